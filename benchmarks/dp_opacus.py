"""functorch_lite.dp against Opacus's ghost clipping (Opacus 1.6,
GradSampleModuleFastGradientClipping + DPLossFastGradientClipping: what
`PrivacyEngine.make_private(..., grad_sample_mode="ghost")` builds), on the models and batches of
benchmarks/dp_clipping.py (the same float32 numbers), one thread. Each method computes the sum
over the batch of the clipped per-example gradients (DP-SGD's step before the noise):

- dp.clipped_grad_sum: functorch_lite.dp (factored: ghost / book-keeping clipping);
- materializing: functorch_lite's vmap(grad), then NumPy norms, clipping and the weighted sum;
- ordinary gradient: functorch_lite's gradient of the batch loss (a non-private step);
- opacus ghost: Opacus's ghost clipping (two backward passes; Linear and Embedding by their
  factors, other layers by their per-example gradients, one layer at a time);
- opacus materializing: Opacus's GradSampleModule (every per-example gradient), clipped and
  summed as its DPOptimizer does;
- torch ordinary gradient: one backward pass of the batch loss in PyTorch.

Peak memory: tracemalloc does not see PyTorch's allocator, so every (model, method) runs in a
fresh subprocess that measures resident memory: one warm-up call, then the kernel's high-water
mark of the process is reset (writing 5 to /proc/self/clear_refs) and the peak RSS of a second
call (VmHWM) less the RSS before it is reported. MALLOC_MMAP_THRESHOLD_ is pinned so that freed
large buffers go back to the system and the warm-up's pages do not hide the second call's.
Times: medians, interleaved, in this process.

Opacus's ghost clipping rejects tied parameters, so its transformer has the unembedding as a
separate Linear initialized to the token table (and the positions as an Embedding of
0..L-1): the same function, 4,096 more parameters; the check below compares it with
functorch_lite on that untied model. Needs torch and opacus (benchmark-only dependencies).
benchmarks/dp_clipping.py times these Opacus steps (its classes below) beside ft.jit (NumPy and
XLA), jax.jit, optax and torch.func; this file is the memory study and the float64 check.

    python benchmarks/dp_opacus.py [--repeats 5] [--quick]
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import pathlib  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import dp_clipping  # noqa: E402
import per_example_transformer as transformer  # noqa: E402

import functorch_lite as ft  # noqa: E402
from functorch_lite import nn as fnn  # noqa: E402

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

warnings.filterwarnings("ignore", module="opacus")
from opacus.grad_sample import GradSampleModule, GradSampleModuleFastGradientClipping  # noqa
from opacus.optimizers import DPOptimizerFastGradientClipping  # noqa: E402
from opacus.utils.fast_gradient_clipping_utils import DPLossFastGradientClipping  # noqa: E402

torch.set_num_threads(1)
MAX_NORM = dp_clipping.MAX_NORM
METHODS = ("dp.clipped_grad_sum", "materializing", "ordinary gradient", "opacus ghost",
           "opacus materializing", "torch ordinary gradient")


# -- the models in PyTorch, loaded with the NumPy parameters ------------------------------------

def _t(a, dtype):
    return torch.tensor(np.asarray(a), dtype=dtype)


class MLP(nn.Module):
    def __init__(self, p, dtype):
        super().__init__()
        depth = len(p) // 2
        self.hidden = nn.ModuleList(nn.Linear(512, 512) for _ in range(depth))
        self.out = nn.Linear(512, p["out"].shape[0], bias=False)
        with torch.no_grad():
            for k, layer in enumerate(self.hidden):
                layer.weight.copy_(_t(p[f"w{k}"], dtype))
                layer.bias.copy_(_t(p[f"b{k}"], dtype))
            self.out.weight.copy_(_t(p["out"], dtype))
        self.to(dtype)

    def forward(self, x):
        for layer in self.hidden:
            x = F.relu(layer(x))
        return self.out(x)


class CNN(nn.Module):
    def __init__(self, p, dtype):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 8, 3, padding=1), nn.Conv2d(8, 16, 3, padding=1)
        self.gn, self.fc = nn.GroupNorm(4, 16), nn.Linear(256, 10)
        with torch.no_grad():
            for mod, w, b in ((self.conv1, "conv1", "b1"), (self.conv2, "conv2", "b2"),
                              (self.gn, "gn_scale", "gn_shift")):
                mod.weight.copy_(_t(p[w], dtype))
                mod.bias.copy_(_t(p[b], dtype))
            self.fc.weight.copy_(_t(p["fc"].T, dtype))
            self.fc.bias.copy_(_t(p["fc_b"], dtype))
        self.to(dtype)

    def forward(self, x):
        h = F.relu(self.conv1(x))
        h = F.max_pool2d(F.relu(self.gn(self.conv2(h))), 2)
        return self.fc(h.flatten(1))


class Transformer(nn.Module):
    """per_example_transformer.py's model, the unembedding untied (see the module docstring)."""

    def __init__(self, p, dtype):
        super().__init__()
        d, v, length, hidden = transformer.DIM, transformer.VOCAB, transformer.LENGTH, \
            transformer.HIDDEN
        self.tok, self.pos = nn.Embedding(v, d), nn.Embedding(length, d)
        self.ln1, self.ln2 = nn.LayerNorm(d, eps=transformer.EPS), nn.LayerNorm(d, eps=transformer.EPS)
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.w1, self.w2 = nn.Linear(d, hidden), nn.Linear(hidden, d)
        self.unembed = nn.Linear(d, v)
        pairs = [(self.tok.weight, "tok"), (self.pos.weight, "pos"), (self.ln1.weight, "ln1_w"),
                 (self.ln1.bias, "ln1_b"), (self.ln2.weight, "ln2_w"), (self.ln2.bias, "ln2_b"),
                 (self.wq.weight, "wq"), (self.wk.weight, "wk"), (self.wv.weight, "wv"),
                 (self.wo.weight, "wo"), (self.w1.weight, "w1"), (self.w1.bias, "b1"),
                 (self.w2.weight, "w2"), (self.w2.bias, "b2"), (self.unembed.weight, "unembed"),
                 (self.unembed.bias, "unembed_b")]
        with torch.no_grad():
            for param, key in pairs:
                param.copy_(_t(p[key], dtype))
        self.to(dtype)

    def forward(self, tokens):
        b, length = tokens.shape
        h = self.tok(tokens) + self.pos(torch.arange(length).repeat(b, 1))
        a = self.ln1(h)
        att = F.scaled_dot_product_attention(self.wq(a), self.wk(a), self.wv(a), is_causal=True)
        h = h + self.wo(att)
        h = h + self.w2(F.relu(self.w1(self.ln2(h))))
        return self.unembed(h)[:, :-1]


def untied_transformer_loss(p, tokens):
    """transformer.loss with the unembedding p["unembed"] (the model Opacus can run)."""
    h = fnn.embedding(tokens, p["tok"]) + p["pos"]
    a = fnn.layer_norm(h, transformer.DIM, p["ln1_w"], p["ln1_b"])
    q, k, v = fnn.linear(a, p["wq"]), fnn.linear(a, p["wk"]), fnn.linear(a, p["wv"])
    h = h + fnn.linear(fnn.scaled_dot_product_attention(q, k, v, is_causal=True), p["wo"])
    m = fnn.layer_norm(h, transformer.DIM, p["ln2_w"], p["ln2_b"])
    h = h + fnn.linear(fnn.relu(fnn.linear(m, p["w1"], p["b1"])), p["w2"], p["b2"])
    logits = fnn.linear(h, p["unembed"], p["unembed_b"])
    return fnn.cross_entropy(logits[:-1], tokens[1:])


def torch_case(index, params, batch, dtype):
    """(module, torch inputs, per-batch criterion inputs) of model `index` of dp_clipping.models."""
    if index == 0:
        p = dict(params, unembed=params["tok"])
        tokens = torch.tensor(batch[0])
        return Transformer(p, dtype), (tokens,), tokens[:, 1:]
    x, y = batch
    module = (CNN if x.ndim == 4 else MLP)(params, dtype)
    return module, (_t(x, dtype),), torch.tensor(y)


def _flat_loss(criterion, logits, target, **kw):
    return criterion(logits.reshape(-1, logits.shape[-1]), target.reshape(-1), **kw)


class _TorchMethod:
    def reset(self):
        """Drop the gradients a call leaves on the parameters (before measuring the next)."""
        for p in self.module.parameters():
            p.grad = None
            p.grad_sample = None


class OpacusGhost(_TorchMethod):
    """Opacus's ghost clipping step, the noise left out (p.grad = the clipped sum)."""

    def __init__(self, module, inputs, target):
        self.module = module
        self.gsm = GradSampleModuleFastGradientClipping(module, max_grad_norm=MAX_NORM,
                                                        use_ghost_clipping=True)
        opt = DPOptimizerFastGradientClipping(torch.optim.SGD(self.gsm.parameters(), lr=0.0),
                                              noise_multiplier=0.0, max_grad_norm=MAX_NORM,
                                              expected_batch_size=len(inputs[0]))
        self.criterion = DPLossFastGradientClipping(self.gsm, opt, nn.CrossEntropyLoss())
        self.inputs, self.target = inputs, target

    def __call__(self):
        self.gsm.zero_grad(set_to_none=True)
        logits = self.gsm(*self.inputs)
        shape = logits.shape if logits.ndim == 3 else None
        _flat_loss(self.criterion, logits, self.target, shape=shape).backward()
        return [p.grad for p in self.gsm.parameters()], self.gsm.per_sample_gradient_norms


class OpacusMaterializing(_TorchMethod):
    """Opacus's GradSampleModule: every per-example gradient, then clipped and summed."""

    def __init__(self, module, inputs, target):
        self.module = module
        self.gsm = GradSampleModule(module)
        self.inputs, self.target = inputs, target

    def __call__(self):
        self.gsm.zero_grad(set_to_none=True)
        for p in self.gsm.parameters():
            p.grad_sample = None
        logits = self.gsm(*self.inputs)
        _flat_loss(nn.CrossEntropyLoss(reduction="none"), logits, self.target) \
            .reshape(len(logits), -1).mean(1).mean().backward()
        samples = [p.grad_sample.reshape(len(logits), -1) for p in self.gsm.parameters()]
        norms = torch.stack([s.norm(2, dim=1) for s in samples]).norm(2, dim=0)
        coef = (MAX_NORM / (norms + 1e-6)).clamp(max=1.0)
        return [torch.einsum("i,i...->...", coef, p.grad_sample)
                for p in self.gsm.parameters()], norms


class TorchOrdinary(_TorchMethod):
    def __init__(self, module, inputs, target):
        self.module, self.inputs, self.target = module, inputs, target

    def __call__(self):
        self.module.zero_grad(set_to_none=True)
        logits = self.module(*self.inputs)
        _flat_loss(nn.CrossEntropyLoss(reduction="none"), logits, self.target) \
            .reshape(len(logits), -1).mean(1).mean().backward()
        return [p.grad for p in self.module.parameters()]


def method_fn(method, index, loss, params, batch):
    if method == "dp.clipped_grad_sum":
        return lambda: ft.dp.clipped_grad_sum(loss, MAX_NORM)(params, *batch)
    if method == "materializing":
        return lambda: dp_clipping.materialized(loss, params, *batch)
    if method == "ordinary gradient":
        return lambda: dp_clipping.ordinary(loss, params, *batch)
    cls = {"opacus ghost": OpacusGhost, "opacus materializing": OpacusMaterializing,
           "torch ordinary gradient": TorchOrdinary}[method]
    return cls(*torch_case(index, params, batch, torch.float32))


# -- exactness: Opacus's and functorch_lite's clipped sums, float64 -----------------------------

def check_same_sum(index, name, loss, params, batch):
    """Both libraries' clipped sums on the same float64 weights and batch; returns the largest
    relative difference over the leaves (and of the norms)."""
    p64 = {k: v.astype(np.float64) for k, v in params.items()}
    b64 = tuple(a.astype(np.float64) if a.dtype == np.float32 else a for a in batch)
    if index == 0:
        p64["unembed"] = p64["tok"]
        loss = untied_transformer_loss
    ours, norms = ft.dp.clipped_grad_sum(loss, MAX_NORM)(p64, *b64)
    module, inputs, target = torch_case(index, p64, b64, torch.float64)
    ghost = OpacusGhost(module, inputs, target)
    grads, op_norms = ghost()
    named = dict(zip((n for n, _ in ghost.gsm.named_parameters()), grads))
    ref = _ours_by_torch_name(index, ours)
    worst = float(np.max(np.abs(op_norms.numpy() - norms) / norms))
    for key, value in ref.items():
        got = named[key].numpy()
        worst = max(worst, float(np.abs(got - value).max() / np.abs(value).max()))
    print(f"  {name}: Opacus ghost vs dp.clipped_grad_sum (float64): largest relative "
          f"difference {worst:.1e} over the norms and {len(ref)} leaves")
    return worst


def _ours_by_torch_name(index, ours):
    if index == 0:
        names = {"tok": "tok.weight", "pos": "pos.weight", "ln1_w": "ln1.weight",
                 "ln1_b": "ln1.bias", "ln2_w": "ln2.weight", "ln2_b": "ln2.bias",
                 "wq": "wq.weight", "wk": "wk.weight", "wv": "wv.weight", "wo": "wo.weight",
                 "w1": "w1.weight", "b1": "w1.bias", "w2": "w2.weight", "b2": "w2.bias",
                 "unembed": "unembed.weight", "unembed_b": "unembed.bias"}
        return {"_module." + names[k]: v for k, v in ours.items()}
    if "conv1" in ours:
        names = {"conv1": "conv1.weight", "b1": "conv1.bias", "conv2": "conv2.weight",
                 "b2": "conv2.bias", "gn_scale": "gn.weight", "gn_shift": "gn.bias",
                 "fc_b": "fc.bias"}
        out = {"_module." + names[k]: v for k, v in ours.items() if k in names}
        out["_module.fc.weight"] = ours["fc"].T
        return out
    out = {"_module.out.weight": ours["out"]}
    for k in range(len(ours) // 2):
        out[f"_module.hidden.{k}.weight"] = ours[f"w{k}"]
        out[f"_module.hidden.{k}.bias"] = ours[f"b{k}"]
    return out


# -- measurement -------------------------------------------------------------------------------

def _status(key):
    with open("/proc/self/status") as f:
        return int(re.search(key + r":\s+(\d+)", f.read()).group(1)) * 1024


def measure_peak(index, method, quick):
    """Run in a fresh process: peak RSS of one call above the RSS before it (bytes)."""
    name, loss, params, batch = list(dp_clipping.models(quick))[index]
    fn = method_fn(method, index, loss, params, batch)
    fn()
    getattr(fn, "reset", lambda: None)()
    gc.collect()
    before = _status("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    fn()
    return _status("VmHWM") - before


def peak_in_subprocess(index, method, quick):
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536", MALLOC_TRIM_THRESHOLD_="65536")
    cmd = [sys.executable, __file__, "--measure", str(index), method] + (["--quick"] * quick)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["peak"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="small batches (a smoke test)")
    parser.add_argument("--measure", nargs=2, metavar=("MODEL", "METHOD"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps({"peak": measure_peak(int(args.measure[0]), args.measure[1],
                                               args.quick)}))
        return
    print(f"torch {torch.__version__}, one thread; peak = RSS high-water mark above the "
          f"RSS before the call, fresh process per cell")
    for index, (name, loss, params, batch) in enumerate(dp_clipping.models(args.quick)):
        check_same_sum(index, name, loss, params, batch)
        fns = [method_fn(m, index, loss, params, batch) for m in METHODS]
        secs = dict(zip(METHODS, dp_clipping.timed(fns, args.repeats)))
        mem = {m: peak_in_subprocess(index, m, args.quick) for m in METHODS}
        b = len(batch[0])
        n_params = sum(v.size for v in params.values())
        print(f"\n{name}: batch {b}, {n_params:,} parameters "
              f"(per-example gradients {b * n_params * 4 / 2 ** 20:.1f} MiB)")
        print(f"  {'':25s}{'peak MiB':>10s}{'ms':>10s}{'mem / dp':>10s}{'time / dp':>11s}")
        for m in METHODS:
            print(f"  {m:25s}{mem[m] / 2 ** 20:10.1f}{secs[m] * 1e3:10.1f}"
                  f"{mem[m] / mem[METHODS[0]]:10.2f}{secs[m] / secs[METHODS[0]]:11.2f}")


if __name__ == "__main__":
    main()
