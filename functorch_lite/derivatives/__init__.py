"""Derivative rules by op family: jvp_*.py (forward mode) and vjp_*.py (reverse mode).

Note [special values in derivatives]
------------------------------------
Forward mode computes t * partial, reverse mode g * partial, for the same local partials
(partials.py holds those both modes share). Every partial is applied by multiplication, never by
selecting the tangent or cotangent with `where`, and a literal 0 partial (x * 0.0) is multiplied
like any number: so an inf or NaN meets the same zeros in both modes and both give NaN (IEEE
0 * inf, as JAX). `where` may shape a partial (0**0, ties), never route a tangent. A symbolic
zero (None) means a structural zero only: an input not differentiated, or x ** 0 with a
Python-number 0. What remains different between modes is the order of the products: at a point
where some partial is infinite, jacfwd's basis tangents and jacrev's cotangents carry zeros
into different entries (docs/autodiff.md, "Special values").
"""
