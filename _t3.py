import time, numpy as np, functorch_lite as ft, functorch_lite.numpy as fnp
def f(w, h0, xs):
    def step(h, x):
        h = np.tanh(h @ w + x)
        return h, h.sum()
    return ft.scan(step, h0, xs)
w = np.random.randn(8, 8)*0.3; h0 = np.random.randn(8)
for n in (100, 2000):
    xs = np.random.randn(n, 8)
    t=time.perf_counter(); g = ft.make_graph(f)(w, h0, xs); t1=time.perf_counter()-t
    print(n, len(g.traced), len(g.optimized), f"{t1*1e3:.1f} ms")
    print(g.optimized)
    j = ft.jit(f)
    a = j(w, h0, xs); b = j(w, h0, xs); e = f(w, h0, xs)
    print(all(np.array_equal(x, y) for x, y in zip(a, e)), all(np.array_equal(x, y) for x, y in zip(b, e)))
    t=time.perf_counter(); j(w, h0, xs); print("jit call", (time.perf_counter()-t)*1e3, "ms")
    t=time.perf_counter(); f(w, h0, xs); print("eager call", (time.perf_counter()-t)*1e3, "ms")

def newton_sqrt(a):
    def cond_fun(c): return fnp.abs(c[0] - c[1]) > 1e-10
    def body_fun(c): return c[1], 0.5 * (c[1] + a / c[1])
    return ft.while_loop(cond_fun, body_fun, (a, 0.5 * (a + 1.0)))[1]
j = ft.jit(newton_sqrt)
for a in (2.0, 9.0, 1e6):
    print(j(np.array(a)), newton_sqrt(np.array(a)), np.sqrt(a))
print(ft.make_graph(newton_sqrt)(np.array(2.0)))
