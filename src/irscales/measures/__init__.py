"""Evaluation measures as small, declared, parameterised objects.

Every measure is an immutable object (``RBP(p=0.8)``, ``DCG(base=2)``, ``AP()``) that is
vectorised over a relevance array of shape ``(..., N)``: the last axis is the ranking, rank 1
first. Entries are relevance grades or real-valued gains; *binary* measures use the lenient
mapping ``rel > 0`` (FFF21 §6: anything above not relevant is relevant).

Measures that depend on the topic take keyword arguments broadcast against ``rel.shape[:-1]``:

``rb``
    the recall base: number of relevant documents of the topic (R, F1, AP, nDCG with binary
    gains, R-prec).
``ideal``
    for graded nDCG, the topic's judged gains sorted in decreasing order, shape ``(..., M)``
    (only the first N are used). Without it nDCG uses ``rb`` ones (binary ideal run).

Exact values
    Every *rational* measure (P, R, F1, AP, SP, RR, RBP and gRBP with rational p, Succ, GP, GR,
    SBTO, RBTO) has :meth:`Measure.exact`, which returns an object array of
    :class:`fractions.Fraction`. Parameters given as floats are read through their shortest decimal
    representation (``0.8`` is 4/5, not the binary double nearest to it). ``exact`` is meant for
    tests and small cases; the enumeration engine uses its own integer kernels and checks them
    against it. Log-discounted measures (DCG, nDCG, ERR with p) raise :class:`NotRationalError`.

Names follow the papers: ``str(m)`` gives ``RBP_p08``, ``DCG_b10``, ``nDCG_b02`` …; ``repr(m)``
gives a constructor form that :func:`parse` reads back (``parse(repr(m)) == m``).

Registration: a measure class names itself in its class statement (``class SP(Measure, names=("SP",))``,
:func:`register`); :data:`REGISTRY` then holds it, and the parser, this package's names, ``irscales``'s, the
command line's list of measures and the ir_measures provider read it from there (``CONTRIBUTING.md``).

Modules: :mod:`~irscales.measures.base` (the :class:`Measure` protocol, the registry and shared checks),
:mod:`~irscales.measures.binary` (P, R, F1, Succ, R-prec, SP, AP, RR, RBP),
:mod:`~irscales.measures.graded` (gP, gR, gRBP, DCG, nDCG, ERR),
:mod:`~irscales.measures.total_order` (SBTO, RBTO), :mod:`~irscales.measures.twist` (Twist, Fer17's
effort-based measure) and :mod:`~irscales.measures._parse` (Cut, names).
"""

from irscales.measures import binary, graded, total_order, twist  # the families: each class registers itself
from irscales.measures.base import REGISTRY, Measure, NotRationalError, register, unregister
from irscales.measures.graded import dcg_discount
from irscales.measures._parse import (
    CLASSIC_MEASURES, WHOLE_RUN, Cut, as_measure, classic_measures, measure_names, parse, parse_list, split_top_level,
)

globals().update(REGISTRY)  # every registered measure class under its name: P, AP, RBP, … (the one list)

__all__ = [
    "Measure", "NotRationalError", *REGISTRY, "Cut", "parse", "parse_list", "CLASSIC_MEASURES", "REGISTRY", "register",
    "unregister", "measure_names",
]
