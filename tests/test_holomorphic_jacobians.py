"""jacfwd, jacrev and hessian with holomorphic=True (issue 33): the complex Jacobian df_i/dz_j of a
holomorphic f, checked against analytic derivatives, central differences along the real axis
(which give f'(z) for a holomorphic f) and JAX where installed; real inputs and outputs are
refused as JAX refuses them."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp

Z = np.array([0.3 + 0.7j, -1.1 + 0.2j, 0.5 - 0.4j])


def _f(z):                                    # holomorphic R^3 -> C^2
    return fnp.stack([fnp.sin(z[0]) * z[1], fnp.exp(z[2]) * z[0] ** 2])


def _analytic_jacobian(z):
    return np.array([[np.cos(z[0]) * z[1], np.sin(z[0]), 0],
                     [2 * z[0] * np.exp(z[2]), 0, np.exp(z[2]) * z[0] ** 2]])


def _central_differences(f, z, h=1e-6):
    """Column j: (f(z + h e_j) - f(z - h e_j)) / 2h, which is df/dz_j for a holomorphic f."""
    e = np.eye(len(z))
    return np.stack([(np.asarray(f(z + h * e[j])) - np.asarray(f(z - h * e[j]))) / (2 * h)
                     for j in range(len(z))], axis=-1)


@pytest.mark.parametrize("jac", [ft.jacfwd, ft.jacrev], ids=["jacfwd", "jacrev"])
def test_holomorphic_jacobian_is_the_complex_derivative(jac):
    j = jac(_f, holomorphic=True)(Z)
    assert j.dtype == np.complex128 and j.shape == (2, 3)
    np.testing.assert_allclose(j, _analytic_jacobian(Z), rtol=1e-12)
    np.testing.assert_allclose(j, _central_differences(_f, Z), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("jac", [ft.jacfwd, ft.jacrev], ids=["jacfwd", "jacrev"])
def test_holomorphic_jacobian_of_pytrees_argnums_and_under_vmap(jac):
    w = np.array(0.2 - 0.9j)

    def f(z, w):
        return {"a": z * w, "b": fnp.sum(z ** 2)}
    ja, jb = jac(f, argnums=(0, 1), holomorphic=True)(Z, w).values()
    np.testing.assert_allclose(ja[0], np.diag(np.full(3, w)))
    np.testing.assert_allclose(ja[1], Z)
    np.testing.assert_allclose(jb[0], 2 * Z)
    np.testing.assert_allclose(jb[1], 0)
    batch = np.stack([Z, 2 * Z])
    per_row = ft.vmap(jac(_f, holomorphic=True))(batch)
    np.testing.assert_allclose(per_row, [_analytic_jacobian(z) for z in batch], rtol=1e-12)


def test_holomorphic_hessian_is_the_complex_second_derivative():
    def f(z):
        return fnp.sum(fnp.sin(z) * z[0])
    h = ft.hessian(f, holomorphic=True)(Z)
    expected = np.diag(-np.sin(Z) * Z[0])
    expected[0, :] += np.cos(Z)
    expected[:, 0] += np.cos(Z)
    np.testing.assert_allclose(h, expected, rtol=1e-12)
    g = ft.grad(f, holomorphic=True)
    np.testing.assert_allclose(h, _central_differences(g, Z), rtol=1e-7, atol=1e-9)


def test_holomorphic_jacobians_match_jax():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    def jf(z):
        return jnp.stack([jnp.sin(z[0]) * z[1], jnp.exp(z[2]) * z[0] ** 2])
    with jax.enable_x64(True):                         # complex128, for this test only
        for ours, theirs in [(ft.jacfwd, jax.jacfwd), (ft.jacrev, jax.jacrev)]:   # jitted: fast
            np.testing.assert_allclose(ours(_f, holomorphic=True)(Z), np.asarray(
                jax.jit(theirs(jf, holomorphic=True))(jnp.asarray(Z))), rtol=1e-12)
        np.testing.assert_allclose(
            ft.hessian(lambda z: fnp.sum(fnp.exp(z) * z[1]), holomorphic=True)(Z),
            np.asarray(jax.jit(jax.hessian(lambda z: jnp.sum(jnp.exp(z) * z[1]),
                                           holomorphic=True))(jnp.asarray(Z))), rtol=1e-12)


@pytest.mark.parametrize("transform", [ft.jacfwd, ft.jacrev, ft.hessian],
                         ids=["jacfwd", "jacrev", "hessian"])
def test_holomorphic_refuses_real_inputs_and_outputs(transform):
    with pytest.raises(TypeError, match="holomorphic=True needs complex inputs"):
        transform(lambda x: fnp.sum(x * x), holomorphic=True)(np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="holomorphic=True needs complex outputs"):
        transform(lambda z: fnp.sum(fnp.abs(z)), holomorphic=True)(Z)


def test_without_holomorphic_the_refusals_name_the_option():
    with pytest.raises(TypeError, match="holomorphic=True"):
        ft.jacfwd(fnp.sin)(Z)
    with pytest.raises(TypeError, match="holomorphic=True"):
        ft.jacrev(fnp.sin)(Z)
