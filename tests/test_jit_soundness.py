"""ft.jit's contract (docs/jit.md): a jitted call returns what the eager call returns, bit for bit,
dtype and shape, in fresh memory, or refuses with an error naming the fix. One test per rule,
each a pattern that once gave a silently different answer; the random-program version is
test_jit_differential.py."""
import dataclasses
import functools
import tracemalloc
import warnings

import numpy as np
import optree
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp
from jit_differential import same_bits


def _calls(f, *argsets):
    """f's results over several calls, jitted (one function) and eager, pairwise."""
    j = ft.jit(f)
    return [(j(*args), f(*args)) for args in argsets], j


# -- 1. value-dependent shapes ---------------------------------------------------------------

def test_boolean_mask_count_change_traces_again():
    f = lambda x: np.mean(x[x > 0])   # noqa: E731
    pairs, j = _calls(f, (np.array([1.0, 2.0, 3.0]),), (np.array([1.0, -1.0, 5.0]),),
                      (np.array([4.0, -1.0, 5.0]),))
    for got, want in pairs:
        assert same_bits(got, want)
    assert j.traces == 2          # the same count again reuses the second program


def test_masked_result_never_lands_in_a_stale_buffer():
    def f(x):
        y = np.exp(x[x > 0])
        return np.sin(y) * 2.0 + y
    for got, want in _calls(f, (np.array([1.0, 2.0, 3.0]),), (np.array([1.0, -1.0, -5.0]),),
                            (np.array([-1.0, -1.0, -5.0]),))[0]:
        assert same_bits(got, want)


def test_a_mask_whose_shape_python_read_is_guarded_even_if_unused():
    def f(x):
        n = x[x > 0].shape[0]          # the masked value itself is dead
        return x * n
    for got, want in _calls(f, (np.array([1.0, 2.0]),), (np.array([1.0, -2.0]),))[0]:
        assert same_bits(got, want)


@pytest.mark.parametrize("fn", [fnp.nonzero, fnp.argwhere, fnp.unique])
def test_value_dependent_functions_are_refused_with_the_alternative(fn):
    with pytest.raises(ft.TracerConversionError) as err:
        ft.jit(fn)(np.array([1.0, 0.0, 1.0]))
    assert "vmap" not in str(err.value) or "ft.jit" in str(err.value)
    assert "fnp.where" in str(err.value) or "fixed-size" in str(err.value)


# -- 2. captured arrays: read once, at trace time, by every pass ------------------------------

def test_captured_array_changed_in_place_is_seen_by_no_part_of_the_program():
    A = np.array([[1.0, 2.0], [3.0, 4.0]])
    f = ft.jit(lambda x: A @ x + np.sum(A) + fnp.sum(A * 2.0))   # matmul, Python, fold
    first = f(np.ones(2))
    A *= 10
    assert same_bits(f(np.ones(2)), first)
    A /= 10
    assert same_bits(first, A @ np.ones(2) + np.sum(A) + np.sum(A * 2.0))


def test_captured_identity_and_duplicates_through_simplify_and_cse():
    identity = np.eye(2)
    f = ft.jit(lambda x: (x @ identity) + (x @ identity))
    x = np.array([np.inf, 1.0])
    first = f(x)
    identity[0, 0] = 5.0             # not seen: the program keeps the traced identity
    assert same_bits(f(x), first)
    identity[0, 0] = 1.0
    assert same_bits(first, (x @ identity) + (x @ identity))


def test_captured_views_share_one_snapshot():
    B = np.arange(12.0).reshape(3, 4)
    f = ft.jit(lambda x: B.T @ x + B[1])
    want = B.T @ np.ones(3) + B[1]
    B[...] = 0.0
    assert same_bits(f(np.ones(3)), np.zeros(4))  # traced after the change: all zeros
    g = ft.jit(lambda x: B.T @ x + B[1])
    B[...] = np.arange(12.0).reshape(3, 4)
    assert same_bits(ft.jit(lambda x: B.T @ x + B[1])(np.ones(3)), want)
    assert g.traces == 0


def test_a_captured_view_keeps_its_layout():
    # a broadcast view of an array whose axes are permuted in memory: a copy in another layout
    # (the zero stride made real) sends matmul down another path, off by an ulp
    rng = np.random.default_rng(0)
    M = rng.standard_normal((2, 4, 4)).transpose(1, 0, 2) * 1.0
    C = np.broadcast_to(M[:, None], (4, 3, 2, 4))
    f = lambda x: C @ x   # noqa: E731
    xs = [rng.standard_normal((4, 3, 4, 1)) for _ in range(10)]
    wants = [f(x) for x in xs]
    j = ft.jit(f)
    j(xs[0])
    M *= 10.0                        # still the traced values: the constant is a copy
    for x, want in zip(xs, wants):
        assert same_bits(j(x), want)


def test_a_constant_the_transforms_make_keeps_its_layout():
    # grad of vmap(out_dims=1) of a Gram matrix: the cotangent reaching the matmuls is a
    # broadcast view of a transposed temporary, a constant of the program
    rng = np.random.default_rng(0)
    w = rng.standard_normal((2, 2, 2))

    def gram_mean(a):
        a = fnp.arctan(a)
        return fnp.mean(a @ fnp.swapaxes(a, -1, -2), axis=0)
    f = ft.grad(lambda x: fnp.sum(ft.vmap(gram_mean, out_dims=1)(x) * w))
    xs = [rng.standard_normal((2, 2, 2, 1)) for _ in range(20)]
    for got, want in _calls(f, *[(x,) for x in xs])[0]:
        assert same_bits(got, want)


@pytest.mark.parametrize("copy", [
    lambda a: a.copy(),                            # ndarray.copy: C order
    lambda a: fnp.copy(a, order="C"),
    lambda a: ft.vjp(lambda b: b, a)[0],           # vjp and linearize copy their inputs
    lambda a: ft.linearize(lambda b: b, a)[0],
], ids=["method", "fnp.copy", "vjp", "linearize"])
def test_a_copy_that_changes_the_layout_is_made_as_eagerly(copy):
    # a row sum of a transposed argument: of the C-contiguous copy eagerly, so in the program
    f = lambda x: fnp.sum(fnp.sin(copy(x)), axis=1)   # noqa: E731
    rng = np.random.default_rng(0)
    xs = [(rng.standard_normal((1000, 3)).T,) for _ in range(5)]
    for got, want in _calls(f, *xs)[0]:
        assert same_bits(got, want)


def test_the_copy_a_transform_makes_of_a_broadcast_output_is_made_as_eagerly():
    """vmap returns an unbatched output as a copy of its broadcast (Note [fresh outputs]); a sum
    over it adds in the copy's order, so the program copies it too (found by the differential
    tester summing a transform's result: 23 in 50 calls differed in the last bit)."""
    prog = lambda a, y: fnp.min(fnp.cumsum(np.sin(a), axis=0), axis=2)   # noqa: E731
    stage = ft.vmap(ft.vmap(prog, in_dims=(-1, 0), out_dims=1), in_dims=(None, -3))
    f = lambda x, y: np.sum(stage(x, y))   # noqa: E731
    rng = np.random.default_rng(0)
    calls = [(rng.uniform(-1.5, 1.5, (1, 2, 1, 3)), rng.uniform(-1.5, 1.5, (3, 1, 2, 2, 1)))
             for _ in range(50)]
    for got, want in _calls(f, *calls)[0]:
        assert same_bits(got, want)


def test_a_copy_in_the_same_layout_is_dropped_and_the_result_is_still_fresh():
    x = np.arange(6.0).reshape(2, 3)
    j = ft.jit(lambda a: a.copy())
    for _ in range(2):
        out = j(x)
        assert same_bits(out, x) and not np.shares_memory(out, x)
    assert "copy" not in str(j.lower(x).optimized)
    assert "copy" in str(j.lower(x.T).optimized)      # C order from a transpose: a real copy


# -- 3. static arguments by type and value ---------------------------------------------------

def test_static_values_that_hash_equal_get_their_own_programs():
    g = ft.jit(lambda x, n: x // n, static_argnums=1)
    x = np.array([0, 1, 2])
    for n in (2, 2.0, True, 2):
        assert same_bits(g(x, n), x // n)
    zero = ft.jit(lambda x, z: x * np.copysign(1.0, z), static_argnums=1)
    assert same_bits(zero(np.ones(1), 0.0), np.ones(1))
    assert same_bits(zero(np.ones(1), -0.0), -np.ones(1))


# -- 4. methods and objects ------------------------------------------------------------------

def test_method_of_a_plain_class_is_refused_with_the_fixes():
    class Model:
        def __init__(self):
            self.w = np.eye(3)

        @ft.jit
        def forward(self, x):
            return x @ self.w
    with pytest.raises(TypeError, match="pytree.*static"):
        Model().forward(np.ones(3))


def test_method_of_a_pytree_class_reads_attributes_per_call():
    @ft.tree.register_pytree_node_class
    class Model:
        def __init__(self, w):
            self.w = w

        def tree_flatten(self):
            return (self.w,), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)

        @ft.jit
        def forward(self, x):
            return x @ self.w
    m = Model(np.eye(3))
    assert same_bits(m.forward(np.ones(3)), np.ones(3))
    m.w = 2 * np.eye(3)
    assert same_bits(m.forward(np.ones(3)), np.full(3, 2.0))


def test_unhashable_dataclass_gets_advice_about_dataclasses_not_lists():
    @dataclasses.dataclass
    class Config:
        scale: float
    with pytest.raises(TypeError) as err:
        ft.jit(lambda x, c: x * c.scale, static_argnums=1)(np.ones(2), Config(2.0))
    assert "list" not in str(err.value) and "frozen dataclass" in str(err.value)


# -- 5. Python scalars are weakly typed ------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.uint8, np.complex64])
def test_python_scalar_arguments_promote_as_in_numpy(dtype):
    x = np.ones(3, dtype)
    for scalar in (3, 2.5, True, 1 + 1j):
        def f(p, s):
            return p * s, p - s * p, np.exp(s) * p
        j = ft.jit(f)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = f(x, scalar)
            except Exception as e:  # noqa: BLE001 (jit must raise the same)
                with pytest.raises(type(e)):
                    j(x, scalar)
                continue
            for _ in range(2):                    # the tracing run, then the program
                for got, w in zip(j(x, scalar), want):
                    assert same_bits(got, w), (dtype, scalar)


def test_python_scalar_arithmetic_stays_a_python_scalar():
    f = ft.jit(lambda p, lr, count: (p - (lr * 0.5) * p, count + 1))
    p = np.ones(2, np.float32)
    for count in range(3):
        out, c = f(p, 0.1, count)
        assert out.dtype == np.float32 and type(c) is int and c == count + 1
    assert f.traces == 1


def test_jitted_adam_step_traces_once():
    opt = ft.optim.adam(1e-2)
    params = {"w": np.ones(3, np.float32)}
    state = opt.init(params)
    step = ft.jit(lambda g, s: opt.update(g, s))
    for _ in range(3):
        updates, state = step({"w": np.full(3, 0.5, np.float32)}, state)
        assert updates["w"].dtype == np.float32
    assert step.traces == 1


# -- 6. outputs are fresh --------------------------------------------------------------------

def test_outputs_alias_no_input_and_no_other_output():
    c = np.arange(2.0)
    f = ft.jit(lambda x: (x * 2, x * 2, x, x.reshape(2, 1), (x * 3).T, c, c))
    x = np.ones(2)
    for _ in range(2):
        outs = f(x)
        for i, a in enumerate(outs):
            assert not np.shares_memory(a, x) and not np.shares_memory(a, c)
            for b in outs[i + 1:]:
                assert not np.shares_memory(a, b)
    assert ft.jit(lambda x: x)(x) is not x



_C = np.arange(6.0).reshape(2, 3)


def _view_then_base(x):
    t = x * 2.0
    return t.T, t


def _base_then_view(x):
    t = x * 2.0
    return t, t.T


def _two_views(x):
    t = x * 2.0
    return t.T, t.reshape(6)


def _two_rows(x):
    t = x * 2.0
    return t[0], t[1:]


VIEW_CASES = {   # name: (f, whether every output is returned without a copy)
    "transposed product": (lambda x: (x * 2.0).T, True),
    "reshaped, sliced": (lambda x: (x * 2.0).T.reshape(6)[::2], True),
    "view and an unrelated result": (lambda x: ((x * 2.0).T, np.sin(x)), True),
    "view, then its base": (_view_then_base, False),
    "base, then its view": (_base_then_view, False),
    "two views of one base": (_two_views, False),
    "two rows of one base": (_two_rows, False),
    "view returned twice": (lambda x: ((x * 2.0).T,) * 2, False),
    "view of an input": (lambda x: x.T, False),
    "view of a constant": (lambda x: (_C.T, x + 1.0), False),
    "view of a view op's view of an input": (lambda x: x.reshape(6)[1:], False),
}


@pytest.mark.parametrize("case", VIEW_CASES)
def test_views_are_copied_exactly_when_another_output_or_an_argument_could_see_them(case):
    """A view of a fresh intermediate (a transposed product) that nothing else returns is
    returned as is, like eager code; one whose base is an input, a constant or shared with
    another output is copied (codegen's alias analysis: the fails-if-over-applied cases)."""
    f, as_is = VIEW_CASES[case]
    j = ft.jit(f)
    x = np.arange(6.0).reshape(2, 3) - 2.5
    firsts = []
    for _ in range(3):
        got, want = (out if isinstance(out, tuple) else (out,) for out in (j(x), f(x)))
        assert all(same_bits(g, w) for g, w in zip(got, want))
        for i, a in enumerate(got):
            assert not np.shares_memory(a, x) and not np.shares_memory(a, _C)
            assert not any(np.shares_memory(a, b) for b in got[i + 1:] + tuple(firsts))
        firsts.extend(got)
    assert ("copy()" not in j.lower(x).fn.source) == as_is


# -- 7. IEEE-exact passes --------------------------------------------------------------------

def test_cse_keeps_negative_and_positive_zero_apart():
    f = lambda x: (np.copysign(1.0, x * -0.0), np.copysign(1.0, x * 0.0))   # noqa: E731
    for (got, want) in _calls(f, (np.array([1.0]),), (np.array([1.0]),))[0]:
        assert all(same_bits(a, b) for a, b in zip(got, want))


def test_identity_and_diagonal_products_keep_inf_nan_and_zero_signs():
    identity = np.eye(2)
    cases = [np.array([np.inf, 1.0]), np.array([0.0, -0.0]), np.array([1.0, 2.0])]
    for x in cases:
        with np.errstate(all="ignore"):
            want = x @ identity
            assert same_bits(ft.jit(lambda v: v @ identity)(x), want)
    A = np.array([[1.0, np.inf], [0.0, 2.0]])
    jac = ft.jacrev(lambda x: np.tanh(A @ x))
    for x in (np.array([0.1, 0.2]), np.array([0.0, 0.0])):
        with np.errstate(all="ignore"):
            j = ft.jit(jac)
            for _ in range(2):
                assert same_bits(j(x), jac(x))



_SPECIAL = [0.0, -0.0, 1.0, -2.5, 1e-300, -1e-300, 5e-324, 1e300, np.inf, -np.inf, np.nan]
_SCALED = {"finite": np.array([[1.0, -2.0], [0.5, 3.0]]),
           "tiny entries": np.array([[1e-30, -1.0], [1.0, 1e-20]]),
           "a zero": np.array([[0.0, 1.0], [1.0, 1.0]]),
           "an infinity": np.array([[1.0, np.inf], [-1.0, 1.0]])}


@pytest.mark.parametrize("name", _SCALED)
@settings(max_examples=60, deadline=None)
@given(v=st.lists(st.sampled_from(_SPECIAL) | st.floats(), min_size=2, max_size=2))
def test_diagonal_products_with_a_constant_are_exact_for_every_scale(name, v):
    """diag(v) @ X and X @ diag(v) for a constant X: the scaling the check lets through (its
    bound on X is decided at compile time, its test of v on each call) is bitwise the
    product for zeros, underflowing scales, infinities and NaN; an X with a zero or an
    infinity is never scaled."""
    X, eye = _SCALED[name], np.eye(2)
    v = np.array(v)
    for f in (lambda v: (eye * v) @ X, lambda v: X @ (eye * v)):
        j = ft.jit(f)
        with np.errstate(all="ignore"):
            for _ in range(2):
                assert same_bits(j(v), f(v))
        ops = [e.op.name for e in j.lower(v).optimized.eqns]
        assert ("diagonal_product" in ops) == (name in ("finite", "tiny entries")), ops


@pytest.mark.parametrize("dtype", [np.complex128, np.int64])
def test_identity_and_diagonal_products_of_complex_and_integer_arrays(dtype):
    """Only real floating products are guarded: a complex product's zero imaginary part
    takes its sign from the zeros the BLAS adds (x @ I gives +0 where x has -0), and an
    integer one has no smallest normal number to bound it (it once crashed)."""
    eye = np.eye(2, dtype=dtype)
    x = np.zeros((2, 2), dtype) + np.array([[1, 2], [3, 4]], dtype)
    v = np.array([1, 2], dtype)
    if dtype == np.complex128:
        x.imag, v.imag = -0.0, [-0.0, 0.0]
    for f, arg in ((lambda x: x @ eye, x), (lambda v: (eye * v) @ x, v),
                   (lambda v: x @ (eye * v), v)):
        j = ft.jit(f)
        for _ in range(2):
            assert same_bits(j(arg), f(arg))

def test_additive_zeros_are_removed_only_when_exact():
    f = lambda x: (x + 0.0, x - 0.0, x * 1.0, x + -0.0)   # noqa: E731
    x = np.array([-0.0, 1.0, np.nan])
    for got, want in _calls(f, (x,), (x,))[0]:
        assert all(same_bits(a, b) for a, b in zip(got, want))


# -- 8. array subclasses ---------------------------------------------------------------------

@pytest.mark.parametrize("make", [lambda: np.ma.array([1.0, 2.0], mask=[True, False]),
                                  lambda: np.matrix([[1.0, 2.0], [3.0, 4.0]])])
@pytest.mark.parametrize("transform", [
    ft.jit, ft.vmap, ft.grad, lambda f: lambda x: ft.jvp(f, (x,), (x,))])
def test_masked_arrays_and_matrices_are_refused_under_every_transform(make, transform):
    with pytest.raises(TypeError, match="masked array|np.matrix"):
        transform(lambda x: np.sum(x * x))(make())


# -- 9. memory -------------------------------------------------------------------------------

def _peak(f, *args):
    f(*args)
    tracemalloc.start()
    f(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_einsum_chain_intermediates_die_at_their_last_use():
    W = np.random.default_rng(0).standard_normal((50, 50)) / 7

    def chain(x):
        for _ in range(100):
            x = np.einsum("ij,jk->ik", x, W)
        return x
    x = np.ones((50, 50))
    assert _peak(ft.jit(chain), x) <= 1.1 * _peak(chain, x)


def test_jit_keeps_what_checkpoint_frees():
    W = np.random.default_rng(1).standard_normal((50, 50)) / 7

    def block(h):
        for _ in range(8):
            h = np.tanh(h @ W)
        return h

    def loss(x):
        for _ in range(8):
            x = ft.checkpoint(block)(x)
        return np.sum(x)
    g = ft.grad(loss)
    x = np.ones((200, 50))
    jitted = ft.jit(g)
    assert same_bits(jitted(x), g(x))
    assert _peak(jitted, x) <= _peak(g, x)
    recomputed = [e.op.name for e in jitted.lower(x).optimized.eqns].count("tanh")
    # each block again in the backward pass (64), after the forward pass (64, less the last
    # block's, whose output only feeds the loss value grad discards): none merged away
    assert recomputed == 64 + 56


# -- 10. the cache ---------------------------------------------------------------------------

def test_cache_evicts_the_least_recently_used():
    f = ft.jit(lambda x: x + 1, cache_size=2, max_retraces=1000)
    hot = np.ones(1)
    for n in range(2, 12):           # a hot shape between cold ones
        f(hot)
        f(np.ones(n))
    assert f.traces == 11            # the hot shape traced once


def test_retrace_warning_once_per_function():
    f = ft.jit(lambda x: x + 1, max_retraces=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 50):
            f(np.ones(n))
    assert sum(issubclass(w.category, ft.PerformanceWarning) for w in caught) == 1


@pytest.mark.parametrize("option", [{"cache_size": -1}, {"cache_size": 0},
                                    {"max_retraces": -3}, {"cache_size": 2.5}])
def test_bad_cache_options_are_refused(option):
    with pytest.raises(ValueError, match=next(iter(option))):
        ft.jit(lambda x: x, **option)


# -- 11. static arguments in every calling style ---------------------------------------------

def test_static_arguments_however_they_are_passed():
    def f(x, n=2, *, k=1):
        return x ** n * k
    x = np.arange(3.0)
    by_num = ft.jit(f, static_argnums=1)
    assert same_bits(by_num(x), f(x)) and same_bits(by_num(x, n=3), f(x, 3))
    assert same_bits(by_num(x, 3), f(x, 3))
    by_name = ft.jit(f, static_argnames=("n", "k"))
    assert same_bits(by_name(x, 3), f(x, 3)) and same_bits(by_name(x, n=3, k=2), f(x, 3, k=2))
    assert by_name.traces == 2
    with pytest.raises(ValueError, match="not a parameter"):
        ft.jit(f, static_argnames="m")


def test_partial_of_a_jitted_function_keeps_statics():
    g = functools.partial(ft.jit(lambda x, n: x * n, static_argnums=1), np.ones(2))
    assert same_bits(g(3), np.full(2, 3.0))


# -- custom rules under jit: their bodies are compiled when they can be ----------------------

def test_custom_vjp_body_is_compiled_or_kept_whole():
    @ft.custom_vjp
    def smooth(x):
        for _ in range(3):
            x = np.sin(x) * 2.0
        return x
    smooth.defvjp(lambda x: (smooth(x), x), lambda x, g: (g * np.cos(x),))

    @ft.custom_vjp
    def solve(x):            # a fixed point with a convergence test: Python on values
        y = x
        while float(np.max(np.abs(np.cos(y) - y))) > 1e-12:
            y = np.cos(y)
        return y
    solve.defvjp(lambda x: (solve(x), x), lambda x, g: (g,))
    x = np.array([0.3, 0.7])
    for f, inlined in ((smooth, True), (solve, False)):
        j = ft.jit(f)
        names = [e.op.name for e in j.lower(x).optimized.eqns]
        assert any(n.startswith("custom_vjp") for n in names) != inlined, names
        for _ in range(2):
            assert same_bits(j(x), f(x))
        g = ft.jit(ft.grad(lambda x: np.sum(f(x))))
        assert same_bits(g(x), ft.grad(lambda x: np.sum(f(x)))(x))


# -- 12. augmented assignment: eager NumPy writes in place, ft.jit refuses or rebinds ---------

def _sgd_step(w, g):
    w -= 0.1 * g          # eagerly: the caller's w changes


def _scaled(x, g):
    h = x * 2.0
    h += g                # eagerly in place: h stays float32, and every name of h sees it
    return h


def test_augmented_assignment_on_a_traced_array_is_refused_with_the_functional_form():
    w, g = np.ones(3), np.full(3, 2.0)
    eager = w.copy()
    _sgd_step(eager, g)
    assert same_bits(eager, np.full(3, 0.8))        # what a silent jit would have lost
    with pytest.raises(TypeError, match=r"x is argument 0: the caller's array changes.*"
                                        r"`w = w - lr \* g; return w`"):
        ft.jit(_sgd_step)(w, g)
    assert same_bits(w, np.ones(3))                   # and ft.jit wrote nothing
    x32 = np.ones(3, np.float32)
    assert _scaled(x32, g).dtype == np.float32        # rebinding would give float64
    with pytest.raises(TypeError, match=r"`x = x \+ \.\.\.`"):
        ft.jit(_scaled)(x32, g)


@pytest.mark.parametrize("name, value", [
    ("iadd", 1.0), ("isub", 1.0), ("imul", 2.0), ("itruediv", 2.0), ("ifloordiv", 2.0),
    ("imod", 2.0), ("ipow", 2.0), ("imatmul", np.eye(2))])
def test_every_in_place_operator_on_a_traced_array_is_refused(name, value):
    import operator
    f = ft.jit(lambda x: getattr(operator, name)(x * 1.0, value))
    with pytest.raises(TypeError, match="writes into it in place"):
        f(np.ones((2, 2)))
    b = ft.jit(lambda m: getattr(operator, name.replace("add", "or"))(m > 0, m < 1))
    if name == "iadd":                                # the logical ones, on booleans
        with pytest.raises(TypeError, match=r"x \|= "):
            b(np.ones(2))


def test_augmented_assignment_on_scalars_rebinds_as_eagerly():
    def f(x, lr, n):
        total = np.sum(x)          # a NumPy scalar: immutable, so `+=` rebinds eagerly too
        total += x[0]
        lr *= 0.5                  # Python scalar arguments
        n += 1
        return total * lr, n, lr
    args = (np.arange(3.0, dtype=np.float32), 0.3, 2)
    j = ft.jit(f)
    for _ in range(2):
        got, want = j(*args), f(*args)
        for a, b in zip(got, want):
            assert type(a) is type(b) and same_bits(a, b)


def test_augmented_assignment_under_vmap_and_grad_rebinds_and_jit_of_them_agrees():
    """A transform's wrappers have no in-place operators: `w -= ...` rebinds, as for JAX
    arrays, the caller's array is never written, and ft.jit of the transform gives the same."""
    def loss(w, g):
        w -= 0.1 * g
        return np.sum(w * w)
    w, g = np.arange(3.0), np.ones(3)
    for t in (ft.grad(loss), ft.vmap(loss), ft.vmap(ft.grad(loss))):
        want = t(w, g)
        assert same_bits(w, np.arange(3.0))
        assert same_bits(ft.jit(t)(w, g), want) and same_bits(w, np.arange(3.0))


# -- 13. output types: each 0-d result is the NumPy scalar or 0-d array eager code gives -----

TYPE_CASES = {
    "grad of a scalar": lambda x: ft.grad(lambda v: v ** 3)(x[0]),
    "value_and_grad with aux": lambda x: ft.value_and_grad(
        lambda v: (np.sum(v ** 2), np.sum(v)), has_aux=True)(x),
    "scan counter": lambda x: ft.scan(lambda c, a: ((c[0] + 1, c[1] + a), a * 2),
                                      (np.int64(0), 0.0), x),
    "scan over ints from a Python int": lambda x: ft.scan(
        lambda c, a: (c + a, c), 0, np.arange(4)),
    "fori_loop of a Python float carry": lambda x: ft.fori_loop(0, 3, lambda i, c: c + x[0], 0.0),
    "while_loop": lambda x: ft.while_loop(lambda c: c < 10.0, lambda c: c + x[1], x[0]),
    "reductions and indexing": lambda x: (np.sum(x), x[1], np.max(x) * 2.0, x[1:2].reshape(())),
    "statistics and norms": lambda x: (np.percentile(x, 30), np.quantile(x, [0.3])[0],
                                       np.quantile(x, 0.3), np.median(x), np.linalg.norm(x),
                                       np.linalg.norm(x, ord=1), np.sinc(x[0])),
}


@pytest.mark.parametrize("backend", ["numpy", "xla"])
@pytest.mark.parametrize("case", sorted(TYPE_CASES))
def test_each_result_has_the_eager_type(case, backend):
    if backend == "xla":
        pytest.importorskip("jax")
    f = TYPE_CASES[case]
    x = np.array([1.0, 4.0, 2.0, 3.0, 0.5])
    want = optree.tree_leaves(f(x))
    j = ft.jit(f, backend=backend)
    for _ in range(2):                       # the tracing call, then the compiled program
        got = optree.tree_leaves(j(x))
        assert [type(g) for g in got] == [type(w) for w in want]
        for g, w in zip(got, want):
            assert np.asarray(g).dtype == np.asarray(w).dtype
            if backend == "numpy":
                assert same_bits(g, w)
            else:
                np.testing.assert_allclose(g, w, rtol=1e-12)
