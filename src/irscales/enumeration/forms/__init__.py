"""The arithmetic forms of measures as registered objects (issue 50): :func:`form_of` gives the :class:`Form` of a
measure's numerator, which says what the enumeration can do with it — its kernel keys, closed-form scale, count of
φ, costs and bracket (:mod:`~irscales.enumeration.forms.base`).

One module per form: :mod:`~irscales.enumeration.forms.grade_sum` (P, gP), :mod:`~irscales.enumeration.forms.additive`
(P@k, RBTO), :mod:`~irscales.enumeration.forms.geometric` (RBP, gRBP), :mod:`~irscales.enumeration.forms.sp` (SP, AP),
:mod:`~irscales.enumeration.forms.first_hit` (RR), :mod:`~irscales.enumeration.forms.any_hit` (Succ) and
:mod:`~irscales.enumeration.forms.discounted` (DCG, nDCG). Each registers itself when imported.
"""
from irscales.enumeration.forms.base import (FORMS, NO_FORM, Form, KnapsackForm, form_of, register)
from irscales.enumeration.forms.additive import ADDITIVE
from irscales.enumeration.forms.any_hit import ANY_HIT
from irscales.enumeration.forms.discounted import DISCOUNTED, dcg_proven_depth
from irscales.enumeration.forms.first_hit import FIRST_HIT
from irscales.enumeration.forms.geometric import GEOMETRIC
from irscales.enumeration.forms.grade_sum import GRADE_SUM
from irscales.enumeration.forms.sp import SP_FORM

__all__ = ["Form", "KnapsackForm", "FORMS", "register", "form_of"]
