"""Bad inputs that used to give a wrong result or an unhelpful error (found by the adversarial
tally in benchmarks/bad_inputs.py) now give errors that name the problem."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp

V = np.array([0.5, -1.0, 2.0])

NON_ARRAY_OUTPUT = {
    "vmap": lambda f: ft.vmap(f)(np.ones((2, 3))),
    "vjp": lambda f: ft.vjp(f, V),
    "jvp": lambda f: ft.jvp(f, (V,), (V,)),
    "linearize": lambda f: ft.linearize(f, V),
    "jacfwd": lambda f: ft.jacfwd(f)(V),
    "jacrev": lambda f: ft.jacrev(f)(V),
}


@pytest.mark.parametrize("transform", sorted(NON_ARRAY_OUTPUT))
@pytest.mark.parametrize("output", ["text", "object", "in_a_tuple"])
def test_non_array_outputs_are_refused(transform, output):
    """A string or any other object among the outputs is a TypeError naming its type (it used
    to come back as a string array from vmap, as the string itself from vjp and jvp, and as None
    or zeros from jacfwd and jacrev)."""
    value = {"text": "a", "object": object(), "in_a_tuple": "a"}[output]
    f = (lambda x: (x * 2, value)) if output == "in_a_tuple" else (lambda x: value)
    kind = type(value).__name__
    with pytest.raises(TypeError, match=f"returned a {kind} .* as an output"):
        NON_ARRAY_OUTPUT[transform](f)


def test_python_numbers_and_none_are_still_outputs():
    assert ft.vmap(lambda x: 1.0)(np.ones(3)).tolist() == [1.0, 1.0, 1.0]
    assert ft.jvp(lambda x: 2, (V,), (V,))[0] == 2
    assert ft.vjp(lambda x: None, V)[0] is None


def test_jacrev_names_itself_for_integer_inputs():
    with pytest.raises(TypeError, match="^jacrev needs floating-point inputs.*int64"):
        ft.jacrev(fnp.sin)(np.arange(3))


def test_vjp_fn_refuses_integer_cotangents():
    _, vjp_fn = ft.vjp(fnp.sin, V)
    with pytest.raises(TypeError, match="cotangent 0 has dtype int64 .* float64"):
        vjp_fn(np.ones(3, dtype=np.int64))
    np.testing.assert_allclose(vjp_fn(np.ones(3, np.float32))[0], np.cos(V), rtol=1e-6)


@pytest.mark.parametrize("transform", ["none", "vmap", "grad"])
def test_transpose_with_a_wrong_permutation_names_transpose(transform):
    """Too few axes for the (per-example) rank: the error names transpose and the per-example
    shape (it used to be a bare 'axis 1 is out of bounds')."""
    f = lambda x: fnp.sum(fnp.transpose(x, (1, 0)))  # noqa: E731
    run = {"none": f, "vmap": ft.vmap(f), "grad": ft.grad(f)}[transform]
    x = np.ones((4, 2)) if transform == "vmap" else np.ones(2)
    with pytest.raises(ValueError, match=r"transpose: axes \(1, 0\) don't match .* \(2,\)"):
        run(x)


@pytest.mark.filterwarnings("ignore:you are shuffling")
def test_in_place_numpy_functions_are_named_in_the_error():
    with pytest.raises(TypeError, match="in-place .* np.random.shuffle"):
        ft.vmap(lambda x: np.random.shuffle(x))(np.ones((2, 3)))


# -- issue 20: unclear errors ------------------------------------------------------------------

def test_custom_jvp_rule_that_is_not_a_pair_is_named():
    """It used to be 'too many values to unpack (expected 2)'."""
    @ft.custom_jvp
    def f(x):
        return fnp.sin(x)
    f.defjvp(lambda primals, tangents: fnp.cos(primals[0]) * tangents[0])
    with pytest.raises(ft.RuleError, match="jvp rule of custom_jvp function 'f' must return a "
                                           r"pair \(primal_out, tangent_out\); it returned a"):
        ft.jvp(f, (V,), (V,))
    f.defjvp(lambda primals, tangents: (fnp.sin(primals[0]),) * 3)
    with pytest.raises(ft.RuleError, match="a tuple of length 3"):
        ft.jvp(f, (V,), (V,))


@pytest.mark.parametrize("argnums", [0, (0,)])
def test_hessian_names_itself_for_integer_inputs(argnums):
    """It used to name jacfwd, the transform hessian is built from."""
    with pytest.raises(TypeError, match="^hessian needs floating-point inputs.*int64"):
        ft.hessian(fnp.sum, argnums=argnums)(np.arange(3))
    with pytest.raises(TypeError, match="^hessian: input leaf 0 is complex"):
        ft.hessian(lambda x: fnp.sum(fnp.abs(x)), argnums=argnums)(V + 1j)
    assert ft.hessian(fnp.sum).__name__ == "hessian(sum)"
    with pytest.raises(TypeError, match="^jacfwd needs floating-point"):
        ft.jacfwd(fnp.sin)(np.arange(3))


@pytest.mark.parametrize("num", [-1, 2.5, "3"])
def test_split_names_num(num):
    """split(key, -1) used to say 'negative dimensions are not allowed'."""
    with pytest.raises(ValueError, match=f"random.split: num must be a non-negative int .*"
                                         f"got {num!r}"):
        ft.random.split(ft.random.key(0), num)


def test_split_takes_zero_and_integer_arrays():
    key = ft.random.key(0)
    assert ft.random.split(key, 0).shape == (0, 2)
    np.testing.assert_array_equal(ft.random.split(key, np.array(3)), ft.random.split(key, 3))


@pytest.mark.parametrize("n", [np.array(5), np.array(5, dtype=np.int32), np.int64(5)])
def test_permutation_of_a_0d_integer_array_is_range(n):
    """As JAX: a 0-d integer array is an int n (it used to raise IndexError)."""
    key = ft.random.key(1)
    np.testing.assert_array_equal(ft.random.permutation(key, n),
                                  ft.random.permutation(key, 5))
    with pytest.raises(TypeError, match="0-d array of dtype float64"):
        ft.random.permutation(key, np.array(5.0))


class ArrayImpl:
    """Stands for an array of another library (jax.Array's class is ArrayImpl)."""

    def __array__(self, dtype=None, copy=None):
        return np.ones(3)


@pytest.mark.parametrize("transform", ["grad", "vjp", "jacrev", "jacfwd", "hessian", "jvp",
                                       "vmap"])
def test_foreign_arrays_get_the_conversion_named(transform):
    """It used to say 'a ArrayImpl is not an array' without saying what to do."""
    call = {"grad": lambda x: ft.grad(fnp.sum)(x), "vjp": lambda x: ft.vjp(fnp.sum, x),
            "jacrev": lambda x: ft.jacrev(fnp.sin)(x), "jacfwd": lambda x: ft.jacfwd(fnp.sin)(x),
            "hessian": lambda x: ft.hessian(fnp.sum)(x),
            "jvp": lambda x: ft.jvp(fnp.sin, (x,), (np.ones(3),)),
            "vmap": lambda x: ft.vmap(fnp.sum)(x)}[transform]
    with pytest.raises((TypeError, ValueError), match=r"ArrayImpl.*np\.asarray\(x\)"):
        call(ArrayImpl())
    with pytest.raises((TypeError, ValueError)) as info:   # no such advice for other objects
        call(object())
    assert "np.asarray" not in str(info.value)


# -- issue 30: errors that did not name the argument or the fix --------------------------------

X6 = np.arange(6.0).reshape(2, 3)

# f(n) makes an array whose shape comes from n; True: its values are deterministic
MAKE_FROM_SIZE = {
    "np.zeros": (lambda n: np.zeros(n), True),
    "np.zeros tuple": (lambda n: np.zeros((n, 2)), True),
    "np.ones": (lambda n: np.ones(n), True),
    "np.empty": (lambda n: np.empty(n), False),
    "np.full": (lambda n: np.full(n, 2.0), True),
    "np.ndarray": (lambda n: np.ndarray(n), False),
    "np.arange": (lambda n: np.arange(n), True),
    "np.eye": (lambda n: np.eye(n), True),
    "np.identity": (lambda n: np.identity(n), True),
    "np.tri": (lambda n: np.tri(n), True),
    "np.linspace": (lambda n: np.linspace(0.0, 1.0, n), True),
    "np.ones_like shape": (lambda n: np.ones_like(X6, shape=n), True),
    "np.tile": (lambda n: np.tile(X6, n), True),
    "Generator.normal size": (lambda n: np.random.default_rng(0).normal(size=n), True),
    "np.random.rand": (lambda n: np.random.rand(n), False),
    "fnp.zeros": (lambda n: fnp.zeros(n), True),
    "fnp.reshape": (lambda n: fnp.reshape(np.ones(3), n), True),
    "x.reshape": (lambda n: np.ones(3).reshape(n), True),
    "random.normal": (lambda n: ft.random.normal(ft.random.key(0), n), True),
}


@pytest.mark.parametrize("name", sorted(MAKE_FROM_SIZE))
def test_a_traced_size_names_static_argnums(name):
    """np.zeros(n) used to give NumPy's 'expected a sequence of integers' (NumPy's converter
    swallows the conversion error), fnp.reshape 'iteration over a 0-d value'."""
    make, deterministic = MAKE_FROM_SIZE[name]
    with pytest.raises(ft.TracerConversionError, match=r"argument 0.*static_argnums"):
        ft.jit(make)(np.array(3))
    out, ref = ft.jit(make, static_argnums=0)(3), make(3)
    assert np.shape(out) == np.shape(ref)
    if deterministic:
        np.testing.assert_array_equal(out, ref)


def test_only_the_swallowed_conversion_is_put_back():
    """A TypeError of NumPy's own, raised after a refusal the user caught, stays NumPy's."""
    def f(x, n):
        try:
            int(n)
        except ft.TracerConversionError:
            pass
        return x + np.zeros(3.5)
    with pytest.raises(TypeError, match="a single integer, got '3.5'") as info:
        ft.jit(f)(np.ones(3), np.array(3))
    assert not isinstance(info.value, ft.TracerConversionError)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_full_like_takes_a_traced_fill_value(backend):
    """It used to say 'numpy.copyto is not supported'. JAX: full_like(x, v) is v broadcast."""
    if backend == "xla":
        pytest.importorskip("jax")
    jit = lambda f: ft.jit(f, backend=backend)
    for v in (2.5, np.array([1.0, 2.0, 3.0])):
        np.testing.assert_array_equal(jit(lambda x, v: np.full_like(x, v))(X6, v),
                                      np.full_like(X6, v))
    np.testing.assert_array_equal(jit(lambda x, v: np.full_like(x, v))(X6.astype(int), 2.7),
                                  np.full_like(X6.astype(int), 2.7))
    np.testing.assert_array_equal(jit(lambda v: fnp.full((2, 2), v, dtype=np.float32))(1.5),
                                  np.full((2, 2), 1.5, dtype=np.float32))
    # d/dv sum(full_like(x, v) * x) = sum(x); d/dv_j sum(full_like(x, v) ** 2) = 2 * 2 v_j
    loss = lambda v, x: fnp.sum(np.full_like(x, v) * x)
    assert ft.grad(lambda v: fnp.sum(fnp.full_like(X6, v) * X6))(2.0) == X6.sum()
    assert jit(ft.grad(loss))(2.0, X6) == X6.sum()
    np.testing.assert_allclose(ft.grad(lambda v: fnp.sum(fnp.full_like(X6, v) ** 2))(
        np.array([1.0, 2.0, 3.0])), [4.0, 8.0, 12.0])
    batched = ft.vmap(lambda v: fnp.full_like(X6, v))(np.arange(3.0))
    np.testing.assert_array_equal(batched, [np.full_like(X6, v) for v in range(3)])
    _, tangent = ft.jvp(lambda v: fnp.full((4,), v), (2.0,), (3.0,))
    np.testing.assert_array_equal(tangent, np.full(4, 3.0))


def test_numpy_full_like_of_a_plain_array_names_the_fnp_spelling():
    with pytest.raises(TypeError, match=r"fnp\.full_like\(a, v\)"):
        ft.grad(lambda v: fnp.sum(np.full_like(X6, v)))(2.0)


@pytest.mark.parametrize("make", [
    ft.jit, ft.make_graph, ft.vmap, ft.grad, ft.value_and_grad, ft.grad_and_value, ft.jacrev,
    ft.jacfwd, ft.hessian, ft.custom_vjp, ft.custom_jvp, ft.checkpoint,
    lambda f: ft.jvp(f, (1.0,), (1.0,)), lambda f: ft.vjp(f, 1.0),
    lambda f: ft.linearize(f, 1.0)])
def test_transforms_of_a_non_function_are_refused_when_made(make):
    """ft.jit(5) used to be accepted and fail only when called."""
    with pytest.raises(TypeError, match=r"needs a function, got 5 \(of type int\)"):
        make(5)


def structured():
    s = np.zeros(3, dtype=[("a", "f8"), ("b", "i4")])
    s["a"], s["b"] = [1.0, 2.0, 3.0], [1, 0, 1]
    return s


@pytest.mark.parametrize("run", [
    lambda f, s: ft.jit(f)(s), lambda f, s: ft.vmap(f)(s),
    lambda f, s: ft.vmap(f, in_dims=None, axis_size=2)(s)])
@pytest.mark.parametrize("field", ["a", ["a", "b"]])
def test_structured_field_reads_under_transforms_say_what_to_do(run, field):
    """It used to be NumPy's IndexError ('only integers, slices ...') under jit and vmap."""
    s = structured()
    f = (lambda s: s[field] * 2.0) if field == "a" else (lambda s: s[field])
    with pytest.raises(TypeError, match=r"field name .*structured dtypes are not supported "
                                        r"under transforms.*separate arrays"):
        run(f, s)


def test_structured_fields_as_separate_arrays_work():
    s = structured()
    np.testing.assert_array_equal(ft.jit(lambda a, b: a * b)(s["a"], s["b"]), s["a"] * s["b"])
    # an argument grad does not differentiate stays a NumPy array: its fields read as eagerly
    assert ft.grad(lambda w, s: fnp.sum(w * s["a"]))(1.0, s) == s["a"].sum()
