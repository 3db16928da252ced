"""The transforms: vmap.py (batching), reverse.py (grad, vjp), forward.py (jvp), jacobians.py,
custom.py (custom_vjp, custom_jvp)."""
