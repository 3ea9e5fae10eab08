"""The ``additive`` form: value = Σ_i g_i·w_i / d with integer rank weights (P@k over its N ranks, RBTO). The
engine enumerates it with exact integer keys (the measure's :meth:`~irscales.measures.Measure.integer_weights`);
no closed form, no count, no bracket (P@k's interval version is P's over its k ranks, FFF21 §5.1)."""
from __future__ import annotations

from irscales.enumeration.forms.base import Form, register

__all__ = ["Additive"]


class Additive(Form):
    """Σ_i g_i·w_i / d with integer weights (module docstring)."""

    name = "additive"
    has_kernel = True

    def build_kernel(self, ker, a_dig, b_dig, graded, int_bits):
        w, d = ker.measure.numerator().integer_weights(ker.N, ker.c)
        ker.additive_int(a_dig, b_dig, w, graded, d)


ADDITIVE = register(Additive())
