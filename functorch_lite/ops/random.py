"""The random-number primitive: the Threefry-2x32 block cipher (Salmon, Moraes, Dror and Shaw,
"Parallel random numbers: as easy as 1, 2, 3", SC 2011), 20 rounds.

Threefry maps a 64-bit key and a 64-bit counter to 64 random bits; counting through the
counters gives a stream, and no state is kept anywhere. Both operands hold their two 32-bit
words in a trailing axis of size 2 and broadcast like NumPy arrays over the leading axes, so a
batch of keys against one set of counters (vmap over keys) is one call of the kernel. Only
uint32 arithmetic (wrapping add, shifts, xor) is used: NumPy and CuPy give identical bits.
"""
from ..dispatch import defop

# Rotation distances of Threefry-2x32, one per round, repeating every 8 rounds.
_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
# The key-schedule parity constant of the Threefish/Threefry family (32-bit variant).
_PARITY = 0x1BD11BDA


def _rotate_left(xp, x, r):
    return (x << xp.uint32(r)) | (x >> xp.uint32(32 - r))


def _threefry2x32_kernel(xp, key, counts):
    key = xp.asarray(key, dtype=xp.uint32)
    counts = xp.asarray(counts, dtype=xp.uint32)
    if key.shape[-1:] != (2,) or counts.shape[-1:] != (2,):
        raise ValueError(f"threefry2x32: key and counts need a last axis of size 2 (two 32-bit "
                         f"words), got shapes {key.shape} and {counts.shape}")
    # Words as (..., 1) slices, never 0-d: NumPy warns on wrapping 0-d (scalar) arithmetic.
    k0, k1 = key[..., 0:1], key[..., 1:2]
    schedule = (k0, k1, k0 ^ k1 ^ xp.uint32(_PARITY))
    x0 = counts[..., 0:1] + k0
    x1 = counts[..., 1:2] + k1
    for block in range(5):  # 5 blocks of 4 rounds, a key injection after each block
        for r in _ROTATIONS[4 * (block % 2):4 * (block % 2) + 4]:
            x0 = x0 + x1
            x1 = _rotate_left(xp, x1, r) ^ x0
        x0 = x0 + schedule[(block + 1) % 3]
        x1 = x1 + schedule[(block + 2) % 3] + xp.uint32(block + 1)
    return xp.concatenate(xp.broadcast_arrays(x0, x1), axis=-1)


threefry2x32 = defop(
    "threefry2x32", _threefry2x32_kernel, differentiable=False,
    doc="Threefry-2x32 (20 rounds) of uint32 counts (..., 2) under uint32 keys (..., 2), "
        "broadcasting over the leading axes; returns uint32 (..., 2).")
