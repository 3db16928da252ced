"""The fusion pass of ft.jit: groups on hand-built programs, groups of traced transforms, and the
fused device code against the unfused program on NumPy: on CuPy (cupy.fuse kernels) where a GPU
is, and on device_sim (whose fuse runs the function as is) everywhere."""
import numpy as np
import optree
import pytest

import functorch_lite as ft
from functorch_lite.compiler.codegen import generate
from functorch_lite.compiler.fuse import elementwise_name, fusion_groups
from functorch_lite.compiler.ir import Const, Eqn, Program, Var
from functorch_lite.ops import BUILTIN_OPS as OPS

rng = np.random.default_rng(0)


def _vars(*shapes):
    return [Var(i, s, "f8") for i, s in enumerate(shapes)]


def _ops(program):
    return [list(g.ops) for g in fusion_groups(program)]


# -- grouping on hand-built programs --------------------------------------------------------

def test_chain_between_two_matmuls_is_one_group():
    x, w, a, b, c, d, e = _vars((4, 3), (3, 3), (4, 3), (4, 3), (4, 3), (4, 3), (4, 3))
    p = Program([x, w], [Eqn(OPS["matmul"], {}, [x, w], [a]),
                         Eqn(OPS["tanh"], {}, [a], [b]),
                         Eqn(OPS["multiply"], {}, [b, Const(2.0)], [c]),
                         Eqn(OPS["add"], {}, [c, x], [d]),
                         Eqn(OPS["matmul"], {}, [d, w], [e])], [e])
    (g,) = fusion_groups(p)
    assert g.ops == ("tanh", "multiply", "add") and g.positions == [1, 2, 3]
    assert g.outputs == [d] and g.internal == [b, c]
    assert {repr(a) for a in g.inputs if isinstance(a, Var)} == {"v0", "v2"}


def test_value_read_after_a_reduction_is_a_group_output():
    x, a, b, s, c = _vars((4, 3), (4, 3), (4, 3), (4, 1), (4, 3))
    p = Program([x], [Eqn(OPS["sin"], {}, [x], [a]),
                      Eqn(OPS["exp"], {}, [a], [b]),
                      Eqn(OPS["sum"], {"axis": (1,), "keepdims": True, "dtype": None}, [b], [s]),
                      Eqn(OPS["divide"], {}, [b, s], [c])], [c])
    groups = fusion_groups(p)
    assert [list(g.ops) for g in groups] == [["sin", "exp"]]
    assert groups[0].outputs == [b] and groups[0].internal == [a]


def test_dependence_through_a_reduction_splits_groups():
    # b depends on a through the reduction s: b cannot join a's group, but cos(x) feeding only
    # b moves into b's group, and the softmax-like row statistic (4,1) stays inside its reader's
    x, a, s, t, u, b, c = _vars((4, 3), (4, 3), (4, 1), (4, 1), (4, 3), (4, 3), (4, 3))
    p = Program([x], [Eqn(OPS["sin"], {}, [x], [a]),
                      Eqn(OPS["max"], {"axis": (1,), "keepdims": True}, [a], [s]),
                      Eqn(OPS["exp"], {}, [x], [u]),
                      Eqn(OPS["log"], {}, [s], [t]),
                      Eqn(OPS["subtract"], {}, [a, t], [b]),
                      Eqn(OPS["multiply"], {}, [b, u], [c])], [c])
    groups = fusion_groups(p)
    assert [list(g.ops) for g in groups] == [["exp", "log", "subtract", "multiply"]]
    assert groups[0].inputs[:2] == [x, s] and groups[0].outputs == [c]
    for g in groups:
        assert all(elementwise_name(e) for e in g.eqns)


def test_every_output_of_a_group_has_its_shape():
    # a (3,) result read after the group cannot come out of a (4,3) kernel: it is split off
    # (alone, so unfused); cos(a), of shape (3,) too but read inside only, stays
    x, y, a, b, c, d = _vars((3,), (4, 3), (3,), (3,), (4, 3), (4, 3))
    p = Program([x, y], [Eqn(OPS["sin"], {}, [x], [a]),
                         Eqn(OPS["cos"], {}, [a], [b]),
                         Eqn(OPS["multiply"], {}, [b, y], [c]),
                         Eqn(OPS["exp"], {}, [c], [d])], [d, a])
    assert _ops(p) == [["cos", "multiply", "exp"]]
    for g in fusion_groups(p):
        assert all(v.shape == g.shape for v in g.outputs)


def test_results_of_different_shapes_from_one_producer_are_split(dxp):
    s, x, y, p_, a, b = _vars((1, 1), (5, 1), (1, 5), (1, 1), (5, 1), (1, 5))
    p = Program([s, x, y], [Eqn(OPS["sin"], {}, [s], [p_]),
                            Eqn(OPS["add"], {}, [p_, x], [a]),
                            Eqn(OPS["add"], {}, [p_, y], [b])], [a, b])
    assert _ops(p) == []
    args = [rng.standard_normal(v.shape) for v in (s, x, y)]
    got = generate(p, dxp)(*map(dxp.asarray, args))
    for g, w in zip(got, p.evaluate(*args)):
        np.testing.assert_allclose(dxp.asnumpy(g), w, rtol=1e-14)


def test_readers_of_one_value_at_clashing_shapes_are_split(dxp):
    # a scalar read at (6,), at (3, 2) and last at (1,) (as jacfwd of `a * tanh(sum(y))`
    # makes): no kernel iterates over both (6,) and (3, 2), though each broadcasts with the
    # last; the (3, 2) chain is a group, the scalar (read by all) and the other products unfused
    s, x, y, z, p_, a, b, c, d = _vars((), (6,), (3, 2), (1,), (), (6,), (3, 2), (3, 2), (1,))
    p = Program([s, x, y, z], [Eqn(OPS["tanh"], {}, [s], [p_]),
                               Eqn(OPS["multiply"], {}, [p_, x], [a]),
                               Eqn(OPS["multiply"], {}, [p_, y], [b]),
                               Eqn(OPS["exp"], {}, [b], [c]),
                               Eqn(OPS["multiply"], {}, [p_, z], [d])], [a, c, d])
    assert _ops(p) == [["multiply", "exp"]]
    args = [rng.standard_normal(v.shape) for v in (s, x, y, z)]
    got = generate(p, dxp)(*map(dxp.asarray, args))
    for g, w in zip(got, p.evaluate(*args)):
        np.testing.assert_allclose(dxp.asnumpy(g), w, rtol=1e-14)


def test_where_fuses_on_a_bool_condition_only():
    x, m, a, b = _vars((3,), (3,), (3,), (3,))
    m = Var(1, (3,), bool)
    p = Program([x, m], [Eqn(OPS["where"], {}, [m, x, Const(0.0)], [a]),
                         Eqn(OPS["exp"], {}, [a], [b])], [b])
    assert _ops(p) == [["where", "exp"]]
    f = Var(1, (3,), "f8")
    p = Program([x, f], [Eqn(OPS["where"], {}, [f, x, Const(0.0)], [a]),
                         Eqn(OPS["exp"], {}, [a], [b])], [b])
    assert _ops(p) == []


# -- groups of traced transforms ------------------------------------------------------------

def _mlp_loss(params, x, y):
    h = np.tanh(x @ params["w1"] + params["b1"])
    return ft.nn.cross_entropy(h @ params["w2"] + params["b2"], y)


def _mlp_args():
    params = {"w1": rng.standard_normal((6, 5)), "b1": rng.standard_normal(5),
              "w2": rng.standard_normal((5, 4)), "b2": rng.standard_normal(4)}
    return params, rng.standard_normal((3, 6)), rng.integers(0, 4, 3)


def _softmax(x):
    z = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return z / np.sum(z, axis=-1, keepdims=True) * np.cos(x)


A = rng.standard_normal((5, 5))
CASES = {
    "mlp": (ft.vmap(ft.grad(_mlp_loss), in_dims=(None, 0, 0)), _mlp_args()),
    "softmax": (ft.vmap(ft.jacrev(_softmax)), (rng.standard_normal((2, 4)),)),
    "hessian": (ft.hessian(lambda x: np.sum(np.tanh(A @ x) ** 2)), (rng.standard_normal(5),)),
}


@pytest.mark.parametrize("case", CASES)
def test_groups_of_transforms_hold_elementwise_equations_only(case):
    f, args = CASES[case]
    graph = ft.make_graph(f)(*args)
    assert graph.groups and "fusion groups" in str(graph)
    seen = set()
    for g in graph.groups:
        assert len(g.eqns) > 1 and all(elementwise_name(e) for e in g.eqns)
        assert not seen & set(g.positions)
        seen |= set(g.positions)
    # the NumPy results are those of the eager transform
    for got, want in zip(optree.tree_leaves(ft.jit(f)(*args)), optree.tree_leaves(f(*args))):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# -- fused device code -----------------------------------------------------------------------

def _on_device(program, xp):
    """The program with its array constants moved to the device module xp."""
    def move(atom):
        if isinstance(atom, Const) and isinstance(atom.value, np.ndarray):
            return Const(xp.asarray(atom.value))
        return atom
    eqns = [Eqn(e.op, e.params, [move(a) for a in e.ins], e.outs) for e in program.eqns]
    return program.replace(eqns=eqns, outputs=[move(a) for a in program.outputs])


@pytest.mark.parametrize("case", CASES)
def test_fused_device_code_equals_the_unfused_program(case, dxp):
    f, args = CASES[case]
    program = ft.make_graph(f)(*args).optimized
    inputs = [np.asarray(a) for a in optree.tree_leaves(args)]
    fn = generate(_on_device(program, dxp), dxp)
    groups = fusion_groups(program)
    assert fn.source.count("xp.") >= sum(len(g.eqns) for g in groups)
    assert sum(line.startswith("def g") for line in fn.source.splitlines()) == len(groups)
    got = fn(*[dxp.asarray(a) for a in inputs])
    for g, w in zip(got, program.evaluate(*inputs)):
        assert isinstance(g, dxp.ndarray)
        np.testing.assert_allclose(dxp.asnumpy(g), w, rtol=1e-12, atol=1e-12)


def test_jit_on_a_device_calls_each_group_once(dxp):
    f = ft.jit(ft.vmap(ft.grad(_mlp_loss), in_dims=(None, 0, 0)))
    params, x, y = _mlp_args()
    want = f(params, x, y)
    dev = ({k: dxp.asarray(v) for k, v in params.items()}, dxp.asarray(x), dxp.asarray(y))
    got = f(*dev)
    got = f(*dev)                                   # the compiled (fused) program
    compiled = f.lower(*dev)
    body = compiled.fn.source.split("def program")[1]
    assert all(body.count(f"= g{k}(") == 1 for k in range(len(compiled.groups)))
    for k in want:
        assert isinstance(got[k], dxp.ndarray)
        np.testing.assert_allclose(dxp.asnumpy(got[k]), want[k], rtol=1e-12, atol=1e-12)


def test_numpy_code_is_unchanged_straight_line_numpy():
    f = ft.jit(lambda x: np.exp(np.sin(x) * 2.0) + 1.0)
    x = rng.standard_normal(5)
    compiled = f.lower(x)
    assert len(compiled.groups) == 1 and "def g" not in compiled.fn.source
    assert "out=" in compiled.fn.source                # the buffer plan still applies
    np.testing.assert_allclose(f(x), np.exp(np.sin(x) * 2.0) + 1.0)


def _random_program(seed):
    """Elementwise ops, reductions, matmuls and reshapes over (4,3), (4,1) and (3,) values."""
    r = np.random.default_rng(seed)
    inputs = [Var(0, (4, 3), "f8"), Var(1, (4, 1), "f8"), Var(2, (3,), "f8")]
    pool, eqns = list(inputs), []

    def new(shape, dtype="f8"):
        return Var(len(pool), shape, dtype)
    for _ in range(14):
        kind, a = r.integers(6), pool[r.integers(len(pool))]
        if a.dtype == bool:
            continue
        if kind == 0:
            op = OPS[("sin", "tanh", "negative", "cos")[r.integers(4)]]
            eqns.append(Eqn(op, {}, [a], [new(a.shape)]))
        elif kind in (1, 2):
            b = pool[r.integers(len(pool))]
            if b.dtype == bool:
                b = Const(0.5)
            op = OPS[("add", "multiply", "subtract")[r.integers(3)]]
            eqns.append(Eqn(op, {}, [a, b], [new(np.broadcast_shapes(a.shape, b.shape))]))
        elif kind == 3 and len(a.shape) == 2:
            eqns.append(Eqn(OPS["sum"], {"axis": (1,), "keepdims": True, "dtype": None}, [a],
                            [new((a.shape[0], 1))]))
        elif kind == 4 and a.shape[-1] == 3:
            eqns.append(Eqn(OPS["matmul"], {}, [a, Const(r.standard_normal((3, 3)))],
                            [new(a.shape)]))
        elif kind == 5:
            m = new(a.shape, bool)
            eqns.append(Eqn(OPS["greater"], {}, [a, Const(0.0)], [m]))
            pool.append(m)
            eqns.append(Eqn(OPS["where"], {}, [m, a, Const(1.0)], [new(a.shape)]))
        else:
            continue
        pool.append(eqns[-1].outs[0])
    outs = [pool[-1]] + [pool[i] for i in r.choice(len(pool), 2)]
    return Program(inputs, eqns, outs)


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_fuse_into_valid_groups(seed, dxp):
    p = _random_program(seed)
    for g in fusion_groups(p):
        assert all(elementwise_name(e) for e in g.eqns), p
        assert all(v.shape == g.shape for v in g.outputs), p
    args = [rng.standard_normal(v.shape) for v in p.inputs]
    fn = generate(_on_device(p, dxp), dxp)          # every value produced before it is read
    for got, want in zip(fn(*map(dxp.asarray, args)), p.evaluate(*args)):
        np.testing.assert_allclose(dxp.asnumpy(got), want, rtol=1e-13)
