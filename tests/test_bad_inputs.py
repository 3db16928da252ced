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
