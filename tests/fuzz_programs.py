"""Random small programs and random stacks of transforms, each checked level by level against an
independent oracle (used by test_fuzz_compositions.py and, for long runs, by
benchmarks/fuzz_compositions.py).

A program is 2 to 6 ops (elementwise, broadcasting with a second argument, reductions, shape
ops, products, cond and switch with branches undefined outside their guards) applied to `x`, with a second argument `y` of the same shape. A stack is 2 or 3
transforms (vmap with random in_dims/out_dims including negative ones and None, grad, jvp, vjp,
jacrev, jacfwd, over argument 0 or 1), applied one after the other. Level k is checked against
its oracle applied to level k - 1 (itself checked): a Python loop for vmap, central finite
differences along random directions for every derivative, so a failure names the level and the
transform that broke.

Choices come from a `Draw` (hypothesis's `data.draw` in the test, `random.Random` in the script),
so the same generator serves both; `describe()` of a case is a runnable reproducer.

`Case.check_device(xp)` runs every level on device arrays (cupy, or the CPU stand-in device_sim)
and requires the NumPy run's results back, on the device: the programs are backend-generic (float
constants follow the arguments' array module, index arrays stay NumPy as users write them).
"""
import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.testing import assert_close

SPECIAL = np.array([-1.0, -0.8, -0.5, 0.0, 0.0, 0.2, 0.5, 0.9, 1.0])
"""Input values at special points: zeros, ties, the kinks of clip and relu_shift."""
ILL_CONDITIONED = 1e8
MAX_SIZE = 24          # elements of any intermediate value
EPS = 1e-6             # finite-difference step
RTOL = 1e-5            # relative to the scale of the values compared


class RandomDraw:
    """The Draw interface over random.Random: integers(lo, hi) inclusive, choice(seq)."""

    def __init__(self, rnd):
        self.rnd = rnd

    def integers(self, lo, hi):
        return self.rnd.randint(lo, hi)

    def choice(self, seq):
        return seq[self.rnd.randrange(len(seq))]


class HypothesisDraw:
    """The Draw interface over hypothesis's `data` object."""

    def __init__(self, data):
        from hypothesis import strategies as st
        self.data, self.st = data, st

    def integers(self, lo, hi):
        return self.data.draw(self.st.integers(lo, hi))

    def choice(self, seq):
        return seq[self.data.draw(self.st.integers(0, len(seq) - 1))]


# ---------------------------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------------------------

UNARY = {
    "sin": fnp.sin, "np.cos": np.cos, "tanh": fnp.tanh, "exp_half": lambda a: fnp.exp(a * 0.5),
    "square": lambda a: a * a, "log1p_sq": lambda a: fnp.log1p(a * a),
    "sqrt_sq1": lambda a: fnp.sqrt(a * a + 1.0), "sigmoid": ft.nn.sigmoid, "abs": fnp.abs,
    "relu_shift": lambda a: fnp.maximum(a, 0.2),
    "leaky_where": lambda a: fnp.where(a > 0, a, 0.1 * a),
    "arctan": fnp.arctan, "softplus": lambda a: fnp.logaddexp(a, 0.0), "neg_pow": lambda a: -a ** 2,
    "clip": lambda a: fnp.clip(a, -0.8, 0.9), "method_sum_T": lambda a: a.T * 1.5,
}


def _like(c, a):
    """The float constant c on the array module of a: float data never moves between devices
    on its own (docs/gpu.md), so backend-generic code builds its constants like its inputs."""
    return fnp.asarray(c, like=a)


def _axis(draw, nd):
    return draw.integers(-nd, nd - 1)


SPECIAL_UNARY = {
    "times_literal_zero_plus_a": lambda a: a * 0.0 + a, "sqrt_abs": lambda a: fnp.sqrt(fnp.abs(a)),
    "std_all": lambda a: fnp.std(a) * a, "pow_half_abs": lambda a: fnp.abs(a) ** 0.5,
}
"""Ops with infinite partials or literal zero partials at special points (zero spread, 0):
only at special points, where the oracle is the other mode, not finite differences."""
INFINITE_PARTIAL = ("sqrt_abs", "pow_half_abs", "std")
DROPS_ELEMENTS = ("a[", "take(", "trace(", "pad(")


def _op_unary(draw, shape, const):
    table = dict(UNARY, **SPECIAL_UNARY) if const["special"] else UNARY
    name = draw.choice(sorted(table))
    fn = table[name]
    return name, lambda a, y: fn(a)


def _op_with_y(draw, shape, const):
    """A binary op with the second argument: y itself when it broadcasts, else a summary."""
    yshape = const["yshape"]
    fits = np.broadcast_shapes(shape, yshape) == tuple(shape) if _broadcastable(shape, yshape) \
        else False
    kind = draw.choice(["mul", "max", "div", "where", "summary"] if fits else ["summary"])
    if kind == "mul":
        return "a * y", lambda a, y: a * y
    if kind == "max":
        return "maximum(a, y)", lambda a, y: fnp.maximum(a, y)
    if kind == "div":
        return "a / (1 + y * y)", lambda a, y: a / (1.0 + y * y)
    if kind == "where":
        return "where(a > y, a, y * 0.5)", lambda a, y: fnp.where(a > y, a, y * 0.5)
    return "a * tanh(sum(y))", lambda a, y: a * fnp.tanh(fnp.sum(y))


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


def _op_const(draw, shape, const):
    """A binary op with a constant that broadcasts from the right (or a scalar)."""
    k = draw.integers(0, len(shape))
    c = const["rng"].uniform(0.5, 1.5, size=shape[len(shape) - k:])
    kind = draw.choice(["mul", "sub", "rsub"])
    if kind == "mul":
        return f"a * C{c.shape}", lambda a, y: a * _like(c, a)
    if kind == "sub":
        return f"a - C{c.shape}", lambda a, y: a - _like(c, a)
    return f"C{c.shape} - a", lambda a, y: _like(c, a) - a


def _op_reduction(draw, shape, const):
    nd = len(shape)
    if nd == 0:
        return None
    ax, keep = _axis(draw, nd), bool(draw.integers(0, 1))
    kind = draw.choice(["sum", "mean", "max", "min", "prod", "var", "cumsum", "cumprod",
                        "logsumexp", "softmax", "sort", "sum_all", "np.mean", "median",
                        "quantile", "nanmax"]
                       + (["std", "std"] if const["special"] else []))
    if kind == "quantile":
        return f"quantile([0, 0.3, 1], axis={ax})", \
            lambda a, y: fnp.quantile(a, [0.0, 0.3, 1.0], axis=ax)
    if kind in ("sum", "mean", "max", "min", "prod", "var", "std", "median", "nanmax"):
        fn = getattr(fnp, kind)
        return f"{kind}(axis={ax}, keepdims={keep})", \
            lambda a, y: fn(a, axis=ax, keepdims=keep)
    if kind in ("cumsum", "cumprod", "sort"):
        fn = getattr(fnp, kind)
        return f"{kind}(axis={ax})", lambda a, y: fn(a, axis=ax)
    if kind == "logsumexp":
        return f"logsumexp(axis={ax})", lambda a, y: ft.nn.logsumexp(a, axis=ax)
    if kind == "softmax":
        return f"softmax(axis={ax})", lambda a, y: ft.nn.softmax(a, axis=ax)
    if kind == "np.mean":
        return f"np.mean(axis={ax})", lambda a, y: np.mean(a, axis=ax)
    return "a.sum()", lambda a, y: a.sum()


def _op_shape(draw, shape, const):
    nd = len(shape)
    kinds = ["reshape_flat", "expand_dims", "concatenate", "stack", "broadcast_to", "pad",
             "repeat"]
    if nd >= 1:
        kinds += ["flip", "slice", "index", "moveaxis", "ravel", "fancy", "at_add", "take"]
    if nd >= 2:
        kinds += ["transpose", "swapaxes"]
    if 1 in shape:
        kinds.append("squeeze")
    kind = draw.choice(kinds)
    if kind == "reshape_flat":
        return "reshape(-1, 1)", lambda a, y: fnp.reshape(a, (-1, 1))
    if kind == "ravel":
        return "a.ravel()", lambda a, y: a.ravel()
    if kind == "expand_dims":
        ax = draw.integers(-nd - 1, nd)
        return f"expand_dims({ax})", lambda a, y: fnp.expand_dims(a, ax)
    if kind == "squeeze":
        ax = draw.choice([i for i, d in enumerate(shape) if d == 1])
        ax = ax - nd if draw.integers(0, 1) else ax
        return f"squeeze({ax})", lambda a, y: fnp.squeeze(a, axis=ax)
    if kind == "concatenate":
        if nd == 0:
            return "stack0", lambda a, y: fnp.stack([a, a * a])
        ax = _axis(draw, nd)
        return f"concatenate([a, a*a], {ax})", lambda a, y: fnp.concatenate([a, a * a], axis=ax)
    if kind == "stack":
        ax = draw.integers(-nd - 1, nd)
        return f"stack([a, sin(a)], {ax})", lambda a, y: fnp.stack([a, fnp.sin(a)], axis=ax)
    if kind == "broadcast_to":
        return "broadcast_to((2,) + shape)", lambda a, y: fnp.broadcast_to(a, (2,) + tuple(a.shape))
    if kind == "pad":
        return "pad(1)", lambda a, y: fnp.pad(a, 1) if nd else a * 1.0
    if kind == "repeat":
        return "repeat(2)", lambda a, y: fnp.repeat(a, 2)
    ax = _axis(draw, nd)
    if kind == "flip":
        return f"flip({ax})", lambda a, y: fnp.flip(a, axis=ax)
    if kind == "slice":
        step = slice(None, None, -2) if shape[ax] > 1 else slice(0, 1)
        idx = (slice(None),) * (ax % nd) + (step,)
        return f"a[{idx}]", lambda a, y: a[idx]
    if kind == "index":
        i = draw.integers(-shape[ax], shape[ax] - 1)
        idx = (slice(None),) * (ax % nd) + (i,)
        return f"a[{idx}]", lambda a, y: a[idx]
    if kind == "fancy":
        idx = const["rng"].integers(-shape[0], shape[0], size=draw.integers(1, 3))
        return f"a[{list(idx)}]", lambda a, y: a[idx]
    if kind == "at_add":
        idx = const["rng"].integers(0, shape[0], size=2)   # repeated indices accumulate
        return f"a.at[{list(idx)}].add(a[0] * 2)", lambda a, y: fnp.at(a)[idx].add(a[0] * 2.0)
    if kind == "take":
        idx = const["rng"].integers(0, shape[ax], size=2)
        return f"take(a, {list(idx)}, axis={ax})", lambda a, y: fnp.take(a, idx, axis=ax)
    if kind == "moveaxis":
        dst = _axis(draw, nd)
        return f"moveaxis({ax}, {dst})", lambda a, y: fnp.moveaxis(a, ax, dst)
    if kind == "transpose":
        perm = list(const["rng"].permutation(nd))
        return f"transpose({perm})", lambda a, y: fnp.transpose(a, perm)
    ax2 = _axis(draw, nd)
    return f"swapaxes({ax}, {ax2})", lambda a, y: fnp.swapaxes(a, ax, ax2)


def _op_product(draw, shape, const):
    nd = len(shape)
    rng = const["rng"]
    kinds = ["outer"]
    if nd >= 1:
        kinds += ["matmul_const", "einsum_self", "tensordot", "dot_vec"]
    if nd >= 2:
        kinds += ["gram", "trace"]
    kind = draw.choice(kinds)
    if kind == "outer":
        v = rng.uniform(-1, 1, size=draw.integers(1, 3))
        return f"outer(ravel(a), v{v.shape})", lambda a, y: fnp.outer(fnp.ravel(a), _like(v, a))
    if kind == "matmul_const":
        m = rng.uniform(-1, 1, size=(shape[-1], draw.integers(1, 3)))
        return f"a @ M{m.shape}", lambda a, y: a @ _like(m, a)
    if kind == "einsum_self":
        return "einsum('...i,...i->...', a, a)", lambda a, y: fnp.einsum("...i,...i->...", a, a)
    if kind == "tensordot":
        m = rng.uniform(-1, 1, size=(shape[-1], 2))
        return f"tensordot(a, M{m.shape}, 1)", lambda a, y: fnp.tensordot(a, _like(m, a), axes=1)
    if kind == "dot_vec":
        v = rng.uniform(-1, 1, size=shape[-1])
        return f"dot(a, v{v.shape})", lambda a, y: fnp.dot(a, _like(v, a))
    if kind == "gram":
        return "a @ swapaxes(a, -1, -2)", lambda a, y: fnp.matmul(a, fnp.swapaxes(a, -1, -2))
    return "trace(a)", lambda a, y: fnp.trace(a)


def _op_branch(draw, shape, const):
    """cond or switch on a scalar summary s of a, each branch undefined (NaN) in part of the
    others' regions: derivatives must go only through the branch taken (lax/branches.py's Note
    [branches and their derivatives]); under ft.jit only that branch runs. The thresholds are
    no sum of special points and every branch is smooth a little past its own region, so
    rounding that moves s across a threshold moves no result by more than rounding."""
    def s_of(a):
        return fnp.sum(a) * 0.5
    if draw.choice(["cond", "switch"]) == "cond":
        return ("cond(s > 0.1234, a * log(s + 0.9), a * sqrt(0.1851 - s))",
                lambda a, y: ft.cond(s_of(a) > 0.1234, lambda a: a * fnp.log(s_of(a) + 0.9),
                                     lambda a: a * fnp.sqrt(0.1851 - s_of(a)), a))
    branches = [lambda a: a * fnp.sqrt(-0.4 - s_of(a)), lambda a: a * fnp.arcsin(s_of(a)),
                lambda a: a * fnp.log(s_of(a) - 0.4)]
    return ("switch((s > -0.4567) + (s > 0.4567), a * sqrt(-0.4 - s), a * arcsin(s), "
            "a * log(s - 0.4))",
            lambda a, y: ft.lax.switch(fnp.astype(s_of(a) > -0.4567, np.int64)
                                       + fnp.astype(s_of(a) > 0.4567, np.int64), branches, a))


OP_FAMILIES = [_op_unary, _op_with_y, _op_const, _op_reduction, _op_shape, _op_product,
               _op_branch]


def draw_shape(draw):
    nd = draw.integers(0, 3)
    return tuple(draw.integers(1, 3) for _ in range(nd))


def draw_program(draw, shape, rng, special=False):
    """(description, f(x, y)): 2 to 6 ops, every intermediate at most MAX_SIZE elements."""
    const = {"rng": rng, "yshape": shape, "special": special}
    steps, cur = [], np.zeros(shape)
    n_ops = draw.integers(2, 6)
    attempts = 0
    while len(steps) < n_ops and attempts < 40:
        attempts += 1
        made = draw.choice(OP_FAMILIES)(draw, tuple(cur.shape), const)
        if made is None:
            continue
        label, fn = made
        with np.errstate(all="ignore"):
            nxt = np.asarray(fn(cur, np.zeros(shape)))
        if nxt.size > MAX_SIZE or nxt.ndim > 4 or nxt.size == 0 or nxt.dtype.kind != "f":
            continue
        steps.append((label, fn))
        cur = nxt
    if not steps:
        steps.append(("sin", lambda a, y: fnp.sin(a)))

    def program(x, y):
        a = x
        for _, fn in steps:
            a = fn(a, y)
        return a
    return " -> ".join(label for label, _ in steps), program


# ---------------------------------------------------------------------------------------------
# Transforms and their oracles
# ---------------------------------------------------------------------------------------------

class Stage:
    """A function of (x, y) with the shapes it takes, its description and its oracle."""

    def __init__(self, fn, xshape, yshape, desc, oracle=None):
        self.fn, self.xshape, self.yshape, self.desc, self.oracle = fn, xshape, yshape, desc, oracle


def _fd(fn, args, argnum, v):
    """Central finite difference of fn(*args) along v in argument argnum."""
    plus, minus = list(args), list(args)
    plus[argnum] = args[argnum] + EPS * v
    minus[argnum] = args[argnum] - EPS * v
    return (np.asarray(fn(*plus)) - np.asarray(fn(*minus))) / (2 * EPS)


def _directions(rng, shape, n=2):
    return [rng.standard_normal(shape) for _ in range(n)]


def wrap_vmap(draw, stage, out_ndim, rng):
    b = draw.integers(1, 3)
    dims = []
    for s in (stage.xshape, stage.yshape):
        nd = len(s)
        dims.append(draw.choice([None] + list(range(-nd - 1, nd + 1))))
    if dims == [None, None]:
        dims[0] = draw.integers(-len(stage.xshape) - 1, len(stage.xshape))
    out_dim = draw.integers(-out_ndim - 1, out_ndim)
    in_dims = tuple(dims)

    def batched(s, d):
        if d is None:
            return s
        d = d % (len(s) + 1)
        return s[:d] + (b,) + s[d:]

    def oracle(x, y):
        outs = []
        for i in range(b):
            xi = x if in_dims[0] is None else np.take(x, i, axis=in_dims[0])
            yi = y if in_dims[1] is None else np.take(y, i, axis=in_dims[1])
            outs.append(np.asarray(stage.fn(xi, yi)))
        return np.stack(outs, axis=out_dim)

    fn = ft.vmap(stage.fn, in_dims=in_dims, out_dims=out_dim)
    return Stage(fn, batched(stage.xshape, in_dims[0]), batched(stage.yshape, in_dims[1]),
                 f"vmap(in_dims={in_dims}, out_dims={out_dim}, batch {b})", oracle)


def _with_arg(fn_of_arg, argnum, x, y):
    """fn_of_arg as a function of argument argnum only, the other fixed."""
    return (lambda a: fn_of_arg(a, y)) if argnum == 0 else (lambda a: fn_of_arg(x, a))


def wrap_derivative(draw, kind, stage, out_shape, rng):
    argnum = draw.integers(0, 1)
    arg_shape = (stage.xshape, stage.yshape)[argnum]
    w = rng.standard_normal(out_shape)                  # output weights (grad, vjp)
    v = rng.standard_normal(arg_shape)                  # input tangent (jvp)
    inner = stage.fn
    dirs = _directions(rng, arg_shape)

    def weighted(x, y):
        out = inner(x, y)
        return fnp.sum(out * _like(w, out))

    if kind == "grad":
        fn = ft.grad(weighted, argnums=argnum)
    elif kind == "vjp":
        def fn(x, y):
            out, vjp_fn = ft.vjp(_with_arg(inner, argnum, x, y), (x, y)[argnum])
            return vjp_fn(_like(w, out))[0]
    elif kind == "jvp":
        def fn(x, y):
            a = (x, y)[argnum]
            return ft.jvp(_with_arg(inner, argnum, x, y), (a,), (_like(v, a),))[1]
    elif kind == "linearize":
        def fn(x, y):
            a = (x, y)[argnum]
            return ft.linearize(_with_arg(inner, argnum, x, y), a)[1](_like(v, a))
    else:
        fn = (ft.jacrev if kind == "jacrev" else ft.jacfwd)(inner, argnums=argnum)

    def oracle(x, y, got, special=False):
        """Pairs (got, expected) of scalars: directional derivatives from finite differences of
        the inner (already checked) function; at special points (ties, zeros, kinks, infinite
        partials), where finite differences do not apply, the same contraction through the
        other mode (dense random directions, so no basis zero meets an inf)."""
        args = (x, y)
        u = rng.standard_normal(np.shape(got))
        if special:
            return [(np.sum(u * got), _other_mode(kind, inner, args, argnum, w, v, u))]
        if kind in ("jvp", "linearize"):
            return [(got, _fd(inner, args, argnum, v))]
        if kind in ("grad", "vjp"):
            inner_w = lambda *a: np.sum(np.asarray(inner(*a)) * w)  # noqa: E731
            return [(np.sum(got * d), _fd(inner_w, args, argnum, d)) for d in dirs]
        nd = len(arg_shape)
        return [(np.tensordot(got, d, axes=nd) if nd else got * d, _fd(inner, args, argnum, d))
                for d in dirs]

    return Stage(fn, stage.xshape, stage.yshape, f"{kind}(argnums={argnum})", oracle)


def _other_mode(kind, inner, args, argnum, w, v, u):
    """<u, what a derivative stage computes>, through the other mode: forward mode for the
    reverse-mode stages and the other way round."""
    f = _with_arg(inner, argnum, *args)
    a = args[argnum]
    if kind in ("grad", "vjp"):      # <u, J^T w> = <w, J u>
        return np.sum(w * ft.jvp(f, (a,), (u,))[1])
    if kind in ("jvp", "linearize"):  # <u, J v> = <J^T u, v>
        return np.sum(ft.vjp(f, a)[1](u)[0] * v)
    # u has shape out + arg: <u, J> = sum over outputs i of <u_i, row i of J>
    out_nd = np.ndim(u) - np.ndim(a)
    if kind == "jacrev":             # through jvps: sum_k <u[..., k], J e_k>
        total = 0.0
        for k in np.ndindex(np.shape(a)):
            e = np.zeros(np.shape(a))
            e[k] = 1.0
            total = total + np.sum(u[(Ellipsis,) + k] * ft.jvp(f, (a,), (e,))[1])
        return total
    total = 0.0                      # jacfwd, through vjps: sum_i <J^T e_i, u[i]>
    for i in np.ndindex(np.shape(u)[:out_nd]):
        e = np.zeros(np.shape(u)[:out_nd])
        e[i] = 1.0
        total = total + np.sum(ft.vjp(f, a)[1](e)[0] * u[i])
    return total


TRANSFORMS = ["vmap", "grad", "jvp", "vjp", "jacrev", "jacfwd", "linearize"]


class Case:
    """A program under a stack of transforms, with its inputs; with nans=True, one case in two
    has a NaN in x (for the jit and XLA differential fuzzers, whose oracle is eager code: NaN
    slices of median and quantile, NaN through sort, max and nanmax)."""

    def __init__(self, draw, seed, nans=False):
        self.seed = seed
        self.nans = False
        self.special = draw.integers(0, 2) == 0
        rng = np.random.default_rng(seed)
        shape = draw_shape(draw)
        self.program_desc, program = draw_program(draw, shape, rng, self.special)
        # an infinite partial (sqrt'(0), std at zero spread) and an op that drops elements
        # (indexing, take, trace) or adds constant ones (pad): reverse mode sends a dropped
        # element a zero cotangent (0 * inf = NaN) and drops the cotangent of an added one,
        # forward mode does the opposite, so one mode is finite where the other is NaN (as in
        # JAX: Note [special values in derivatives])
        desc = self.program_desc
        self.nan_may_differ = any(k in desc for k in INFINITE_PARTIAL) and any(
            k in desc for k in DROPS_ELEMENTS)
        self.stages = [Stage(program, shape, shape, "program")]
        for _ in range(draw.integers(2, 3)):
            stage = self.stages[-1]
            x0, y0 = self.inputs_for(stage, np.random.default_rng(seed + 1))
            out = np.asarray(stage.fn(x0, y0))
            small = out.size * max(x0.size, y0.size) <= 8 * MAX_SIZE
            kind = draw.choice(TRANSFORMS if small else ["vmap", "grad", "jvp", "vjp"])
            if kind == "vmap":
                self.stages.append(wrap_vmap(draw, stage, out.ndim, rng))
            else:
                self.stages.append(wrap_derivative(draw, kind, stage, out.shape, rng))
        self.nans = nans and draw.integers(0, 1) == 1

    def inputs_for(self, stage, rng):
        """Random inputs, or at special points values from a few that make ties and zeros; a
        NaN at a random place of x in a NaN case."""
        if self.special:
            x, y = (rng.choice(SPECIAL, size=s) for s in (stage.xshape, stage.yshape))
        else:
            x, y = (rng.uniform(-1.5, 1.5, size=s) for s in (stage.xshape, stage.yshape))
        if self.nans:
            x.reshape(-1)[rng.integers(x.size)] = np.nan
        return x, y

    def describe(self):
        point = ("special point, " if self.special else "") + ("NaN in x, " if self.nans else "")
        return (f"{point}shape {self.stages[0].xshape}, program: {self.program_desc}; "
                "transforms (innermost first): " + ", ".join(s.desc for s in self.stages[1:]) +
                f"; seed {self.seed}")

    def check(self):
        """Check every level against its oracle; raises AssertionError naming the level."""
        for k in range(1, len(self.stages)):
            stage = self.stages[k]
            x, y = self.inputs_for(stage, np.random.default_rng(self.seed + k))
            got = np.asarray(stage.fn(x, y))
            what = f"level {k} ({stage.desc}) of {self.describe()}"
            assert got.dtype == np.float64, f"{what}: dtype {got.dtype}"
            if stage.desc.startswith("vmap"):
                expected = stage.oracle(x, y)
                assert got.shape == expected.shape, \
                    f"{what}: shape {got.shape}, loop gives {expected.shape}"
                _assert_close(got, expected, 1e-9, what + " vs a loop")
            else:
                against = " vs the other mode" if self.special else " vs finite differences"
                for a, e in stage.oracle(x, y, got, self.special):
                    if self.special:
                        _assert_same_finiteness_and_close(a, e, what + against,
                                                          self.nan_may_differ)
                    else:
                        _assert_close(a, e, RTOL, what + against)
        self.check_transpose()

    def check_device(self, xp):
        """Every level, and the top one under ft.jit, jvp and vjp (in x), on device arrays
        (xp.asarray of the NumPy inputs) gives back a device array equal to the NumPy run:
        shape, dtype, values within the dtype's tolerance and NaNs at the same places. float0
        tangents hold no data and stay NumPy markers (as in JAX)."""
        top, k = self.stages[-1], len(self.stages) - 1
        runs = [(j, s.desc, s.fn) for j, s in enumerate(self.stages) if j] + [
            (k, f"jit of {top.desc}", ft.jit(top.fn)),
            (k, f"jvp of {top.desc}", self._top_jvp), (k, f"vjp of {top.desc}", self._top_vjp)]
        for j, desc, fn in runs:
            x, y = self.inputs_for(self.stages[j], np.random.default_rng(self.seed + j))
            want = fn(x, y)
            got = fn(xp.asarray(x), xp.asarray(y))
            what = f"level {j} ({desc}) on {xp.__name__} of {self.describe()}"
            if getattr(got, "dtype", None) != ft.float0:
                assert type(got) is type(xp.asarray(0.0)), \
                    f"{what}: a {type(got).__name__} came back where a {xp.__name__} array belongs"
            assert_close(got, want, path=what)

    def _top_jvp(self, x, y):
        v = np.random.default_rng(self.seed + 98).standard_normal(np.shape(x))
        return ft.jvp(lambda a: self.stages[-1].fn(a, y), (x,), (_like(v, x),))[1]

    def _top_vjp(self, x, y):
        out, vjp_fn = ft.vjp(lambda a: self.stages[-1].fn(a, y), x)
        u = np.random.default_rng(self.seed + 98).standard_normal(np.shape(out))
        return vjp_fn(_like(u, out))[0]

    def check_transpose(self):
        """<u, J v> == <J^T u, v> between jvp and vjp of the whole stack (one level more)."""
        stage = self.stages[-1]
        rng = np.random.default_rng(self.seed + 99)
        x, y = self.inputs_for(stage, rng)
        f = lambda a: stage.fn(a, y)  # noqa: E731
        out, vjp_fn = ft.vjp(f, x)
        u, v = rng.standard_normal(np.shape(out)), rng.standard_normal(x.shape)
        jv = ft.jvp(f, (x,), (v,))[1]
        _assert_same_finiteness_and_close(np.sum(u * jv), np.sum(vjp_fn(u)[0] * v),
                                          f"transpose identity (jvp vs vjp) over {self.describe()}",
                                          self.nan_may_differ)


def _assert_close(got, expected, rtol, what):
    got, expected = np.asarray(got, float), np.asarray(expected, float)
    assert got.shape == expected.shape, f"{what}: shape {got.shape} != {expected.shape}"
    if not (np.all(np.isfinite(expected)) and np.all(np.isfinite(got))):
        assert np.array_equal(np.isnan(got), np.isnan(expected)) and np.allclose(
            got, expected, equal_nan=True), f"{what}: got {got}, expected {expected}"
        return
    scale = 1.0 + max(np.max(np.abs(expected), initial=0), np.max(np.abs(got), initial=0))
    err = np.max(np.abs(got - expected), initial=0)
    assert err <= rtol * scale, f"{what}: max error {err:.3g} (scale {scale:.3g})\n" \
                                f"got {got}\nexpected {expected}"


def _assert_same_finiteness_and_close(got, expected, what, nan_may_differ=False):
    """Two scalars computed in different modes: both finite and close, or both inf/NaN (which of
    the two depends on the order of the sums, Note [special values in derivatives]). Values
    beyond ILL_CONDITIONED come from a near-zero spread rounded differently in each mode."""
    fin_g, fin_e = np.isfinite(got), np.isfinite(expected)
    if not (fin_g and fin_e):
        assert nan_may_differ or fin_g == fin_e, \
            f"{what}: got {got}, the other mode gives {expected}"
        return
    if max(abs(got), abs(expected)) < ILL_CONDITIONED:
        _assert_close(got, expected, 1e-9, what)
