"""Derivative rules by op family: jvp_*.py (forward mode) and vjp_*.py (reverse mode)."""
