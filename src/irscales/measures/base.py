"""The measure protocol: :class:`Measure`, parameter checks and the helpers every family shares.

A measure is a frozen dataclass whose fields are its parameters, vectorised over a relevance array
of shape ``(..., N)`` (``__call__``, floats) with an exact path (``exact``, Fractions) when it is
rational. The families live in :mod:`~irscales.measures.binary`, :mod:`~irscales.measures.graded` and
:mod:`~irscales.measures.total_order`; names are read back by :mod:`~irscales.measures._parse`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Callable, ClassVar, Mapping

import numpy as np

__all__ = ["Measure", "NotRationalError", "REGISTRY", "register", "unregister", "binary_relevance"]

class NotRationalError(ValueError):
    """The measure takes irrational values, so it has no exact rational representation."""


def check_cut(name: str, k) -> None:
    """A cut-off k is None (the whole run) or an integer ≥ 1."""
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
        raise ValueError(f"{name}@k needs an integer cut-off k >= 1 (e.g. {name}@10), got k={k!r}")


def check_positive(cls: str, name: str, x) -> None:
    """``x`` (a measure parameter such as ``max_gain``) is a finite number > 0."""
    if isinstance(x, bool) or not isinstance(x, (int, float, Fraction, np.number)) or not x > 0 \
            or not math.isfinite(x):
        raise ValueError(f"{cls} needs {name} > 0 (the highest gain of the qrels), got {name}={x!r}")


def check_gain_bound(m: "Measure", top) -> None:
    """Gains above ``max_gain`` would push a normalised measure above 1: say so instead."""
    if top > m.max_gain:
        raise ValueError(f"{m!r} got gain {top}: pass max_gain >= the highest grade of the qrels "
                         f"(e.g. max_gain={top})")


def check_grades(cls: str, name: str, x) -> None:
    """``x`` (a top grade such as ``max_grade`` or ``c``) is an integer ≥ 1."""
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1:
        raise ValueError(f"{cls} needs an integer {name} >= 1 (the highest relevance grade), got {name}={x!r}")


def check_p(cls: str, p) -> None:
    """A persistence 0 < p < 1 (RBP, gRBP)."""
    if isinstance(p, bool) or not isinstance(p, (int, float, Fraction, np.number)) or not 0 < float(p) < 1:
        raise ValueError(f"{cls} needs a persistence 0 < p < 1 (e.g. {cls}(p=0.8)), got p={p!r}")


def _as_rel(rel) -> np.ndarray:
    a = np.asarray(rel)
    if a.ndim == 0:
        raise ValueError("a relevance array needs at least one axis (the ranks), got a scalar")
    if a.dtype == object:
        a = a.astype(float)
    return a


def binary_relevance(rel: np.ndarray) -> np.ndarray:
    """The lenient binary mapping of FFF21 §6: 1 where rel > 0, else 0 (int64)."""
    return (rel > 0).astype(np.int64)


def seq_dot(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Σ_i x[..., i]·w[i] accumulated rank by rank, in the same order for every run.

    A BLAS product or numpy's pairwise sum groups terms by position, so two runs whose values are
    mathematically equal (e.g. DCG_b02 runs differing by a swap of ranks 1 and 2, which both weigh 1)
    can come out one ulp apart and then look distinct to any tie-sensitive code. Accumulating in rank
    order gives bit-identical results whenever the partial sums agree exactly (tested).
    """
    x = np.asarray(x, dtype=float)
    return in_rank_order(x * np.asarray(w)[: x.shape[-1]])


def seq_div(x: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Σ_i x[..., i] / d[i] accumulated rank by rank: trec_eval's own arithmetic (``sum += gain / disc``,
    ``sum += rel_so_far / rank``), so that values named after trec_eval measures equal its values to the
    last bit, not just to an ulp (dividing differs from multiplying by a rounded reciprocal)."""
    x = np.asarray(x, dtype=float)
    return in_rank_order(x / np.asarray(d)[: x.shape[-1]])


def in_rank_order(terms: np.ndarray) -> np.ndarray:
    """Σ of ``terms`` over the last axis accumulated rank by rank from 0.0 (``out = 0.0; out += terms[..., i]``
    for i = 0, 1, …): ``np.cumsum`` adds in sequence, never pairwise, so its last partial sum is that loop's to
    the last bit (tested), without a Python step per rank (1,000 ranks: 0.15 s for map on TREC-8, issue 49);
    ``+ 0.0`` turns the -0.0 of a sum of -0.0 terms into the loop's 0.0."""
    if terms.shape[-1] == 0:
        return np.zeros(terms.shape[:-1])
    return np.cumsum(terms, axis=-1)[..., -1] + 0.0


def log2_ranks(N: int) -> np.ndarray:
    """log2(i + 1) for ranks i = 1..N, each from C's ``log2`` (Python's ``math.log2``), as trec_eval
    computes its discount (numpy's vectorised log2 may differ from the C library in the last bit)."""
    return np.array([math.log2(i + 1) for i in range(1, N + 1)], dtype=float)


def broadcast_topic(x, rel: np.ndarray, what: str) -> np.ndarray:
    """A topic quantity (``rb``) as floats broadcast against the runs ``rel.shape[:-1]``."""
    if x is None:
        label = {"rb": "recall base"}.get(what, what)
        raise ValueError(f"this measure needs the {label} of each topic (pass {what}=...)")
    arr = np.asarray(x, dtype=float)
    try:
        return np.broadcast_to(arr, rel.shape[:-1])
    except ValueError:
        raise ValueError(
            f"{what} of shape {arr.shape} does not broadcast against runs of shape {rel.shape[:-1]}"
        ) from None


def _fraction_array(rel: np.ndarray, fn) -> np.ndarray:
    """Apply ``fn(row_tuple, index) -> Fraction`` to every run; returns an object array."""
    flat = rel.reshape(-1, rel.shape[-1])
    out = np.empty(flat.shape[0], dtype=object)
    for i, row in enumerate(flat):
        out[i] = fn(tuple(row.tolist()), i)
    return out.reshape(rel.shape[:-1])


def _topic_values(x, rel: np.ndarray) -> list:
    """Per-run Python values of a topic parameter (for the exact paths)."""
    if x is None:
        return [None] * int(np.prod(rel.shape[:-1], dtype=np.int64))
    arr = np.broadcast_to(np.asarray(x, dtype=object), rel.shape[:-1])
    return list(arr.reshape(-1))


@dataclass(frozen=True)
class Names:
    """How the names of a registered measure class read (:func:`irscales.measures.parse`): ``simple`` names mean
    ``cls()``; ``spellings`` are other names of its constructor form (``gP(max_gain=2)``); ``keys`` are patterns
    (whole names) with the parameters a match gives (``RBP_p08`` → p = 0.8); ``whole_run`` names (trec_eval's
    ``map``) mean the measure with these parameters over the whole run; ``cut_names`` prefixes read
    ``<prefix>_<k>`` as it cut at k ranks (``map_cut_10``)."""

    cls: type
    simple: tuple[str, ...] = ()
    spellings: tuple[str, ...] = ()
    keys: tuple[tuple[re.Pattern, Callable[[re.Match], dict]], ...] = ()
    whole_run: Mapping[str, dict] = field(default_factory=dict)
    cut_names: Mapping[str, dict] = field(default_factory=dict)


#: Every registered measure class by its constructor name (``RBP`` reads ``RBP(p=0.8)``): what the parser, the
#: package's names (``irscales.measures.__all__``, ``irscales``), the command line's list of measures and the
#: ir_measures provider read. A class registers where it is declared (:meth:`Measure.__init_subclass__`).
REGISTRY: dict[str, type] = {}
#: How each registered class's names read, by class name (:class:`Names`).
NAMES: dict[str, Names] = {}


def register(cls: type, names: tuple[str, ...] = (), *, spellings: tuple[str, ...] = (),
             keys: Mapping[str, Callable[[re.Match], dict]] | None = None, whole_run: Mapping[str, dict] | None = None,
             cut_names: Mapping[str, dict] | None = None) -> type:
    """Register the measure class ``cls`` under its class name with the names it is read by (:class:`Names`;
    ``keys`` maps a pattern of a whole name to the parameters of a match). A name another class holds is refused.
    The class statement does this: ``class P(Measure, names=("P",), keys={"P@([0-9]+)": at_k})``."""
    entry = Names(cls, tuple(names), tuple(spellings),
                  tuple((re.compile(f"^(?:{rx})$"), make) for rx, make in (keys or {}).items()),
                  dict(whole_run or {}), dict(cut_names or {}))
    same = REGISTRY.get(cls.__name__)
    if same is not None and (same.__module__, same.__qualname__) != (cls.__module__, cls.__qualname__):
        raise ValueError(f"measure {cls.__name__}: the name is {same.__module__}.{same.__qualname__}'s")
    taken = {n: other.cls.__name__ for other in NAMES.values() if other.cls.__name__ != cls.__name__
             for n in (other.cls.__name__, *other.simple, *other.spellings, *other.whole_run, *other.cut_names)}
    clash = [n for n in (cls.__name__, *entry.simple, *entry.spellings, *entry.whole_run, *entry.cut_names)
             if n in taken]
    if clash:
        raise ValueError(f"measure {cls.__name__}: the name {clash[0]!r} is {taken[clash[0]]}'s")
    REGISTRY[cls.__name__] = cls
    NAMES[cls.__name__] = entry
    return cls


def at_k(match: re.Match) -> dict:
    """The parameters of a name with the measure's own cut-off as its first group (``P@10``, ``success_5``)."""
    return {"k": int(match[1])}


def unregister(cls: type) -> None:
    """Remove ``cls`` from the registry (a measure defined for a while, e.g. in a test)."""
    if REGISTRY.get(cls.__name__) is cls:
        del REGISTRY[cls.__name__], NAMES[cls.__name__]


@dataclass(frozen=True)
class Measure:
    """Base class: a measure is a frozen dataclass whose fields are its parameters.

    A measure class registers by naming itself in its class statement (:func:`register`): ``names`` (read as
    ``cls()``; ``()`` for a constructor form only), and as it needs ``spellings``, ``keys``, ``whole_run`` and
    ``cut_names``. Without ``names`` it is not registered (a helper such as :class:`~irscales.measures.Cut`)."""

    def __init_subclass__(cls, names: tuple[str, ...] | None = None, spellings: tuple[str, ...] = (),
                          keys: Mapping[str, Callable[[re.Match], dict]] | None = None,
                          whole_run: Mapping[str, dict] | None = None, cut_names: Mapping[str, dict] | None = None,
                          **kwargs):
        super().__init_subclass__(**kwargs)
        if names is not None:
            register(cls, names, spellings=spellings, keys=keys, whole_run=whole_run, cut_names=cut_names)

    family: ClassVar[str] = ""
    needs_rb: ClassVar[bool] = False
    rational: ClassVar[bool] = True
    binary: ClassVar[bool] = True  # uses only rel > 0
    #: The arithmetic form of the measure when it is its own :meth:`numerator`, by the name of a registered form
    #: (:mod:`irscales.enumeration.forms`: its kernels, counts, closed forms, costs and brackets; they read this, never
    #: the class). ``"grade_sum"`` Σ_i g_i / d (P, gP);
    #: ``"additive"`` Σ_i g_i·w_i / d with integer weights (P@k, RBTO); ``"geometric"`` the same with
    #: w_i = a^{i−1} b^{N−i} for a persistence p = a/b (RBP, gRBP); ``"sp"`` Σ_i hits_i / i over relevant ranks (SP);
    #: ``"first_hit"`` 1 / the first relevant rank (RR); ``"any_hit"`` 1 if any rank is relevant (Succ);
    #: ``"discounted"`` DCG's log discount
    #: (:attr:`~irscales.measures.DCG.integer_log_base` names its discount class); ``""`` none of these (no kernel,
    #: no count). :meth:`integer_weights` gives the weights of the three additive forms.
    form: ClassVar[str] = ""
    #: How a recall-base dependent measure divides its :meth:`numerator` (FFF21 §5.2.2): ``"rb"`` (AP = SP/RB),
    #: ``"rb/N"`` (R = P·N/RB), ``"ideal"`` (nDCG = DCG / the ideal run's DCG), ``"total_gain"`` (gR = Σ g / RB_g);
    #: ``""`` by nothing of the topic, or by RB without a numerator of its own.
    divides_by: ClassVar[str] = ""
    #: What a whole-run measure (trec_eval's ``ndcg``, ``Rprec``) needs of the depth besides the longest run:
    #: ``"rb_at_least"`` the depth reaches every relevant document (nDCG's ideal run holds them all),
    #: ``"rb_at_most"`` only the top RB ranks count (R-prec), ``""`` nothing.
    depth_vs_rb: ClassVar[str] = ""

    def numerator(self) -> "Measure":
        """The recall-base-free measure whose scale this one shares (FFF21 §5.2.2): R → P, AP → SP, nDCG → DCG;
        any other measure is its own. On one topic the order and ties are the numerator's (φ_AP = φ_SP)."""
        return self

    @property
    def reads_grades(self) -> bool:
        """Whether the measure reads grades (gains = grades), not only rel > 0."""
        return not self.binary

    @property
    def uncut(self) -> "Measure":
        """The measure over the whole run whose values over REL^k this one takes over REL^N (N ≥ k): the measure of
        a :class:`~irscales.measures.Cut`, P for P@k; any other measure is itself."""
        return self

    def integer_weights(self, N: int, c: int) -> tuple[list[int], Fraction]:
        """For the forms ``grade_sum``, ``additive`` and ``geometric``: exact integer rank weights w_1..w_N and the
        denominator d with value = Σ_i g_i·w_i / d over grades 0..c (g_i = rel_i > 0 for a binary measure)."""
        raise NotImplementedError(f"{self!r} is not an additive measure with integer weights")

    def with_top_grade(self, max_grade: int) -> "Measure":
        """This measure on the qrels' grades 0..``max_grade`` when its name left the top grade open (ERR named
        without ``max_grade``); any other measure is itself."""
        return self

    def __call__(self, rel, rb=None, ideal=None) -> np.ndarray:
        rel = _as_rel(rel)
        return self._compute(rel, rb=rb, ideal=ideal)

    def _compute(self, rel: np.ndarray, rb=None, ideal=None) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def exact(self, rel, rb=None, ideal=None) -> np.ndarray:
        """Exact values as an object array of Fractions (see the module docstring)."""
        if not self.rational:
            raise NotRationalError(f"{self!r} takes irrational values; it has no exact rational form")
        rel = _as_rel(rel)
        rbs = _topic_values(rb, rel)
        if self.needs_rb and rb is None:
            raise ValueError(f"{self!r} needs the recall base (pass rb=...)")
        return _fraction_array(rel, lambda row, i: self._exact_one(row, rbs[i]))

    def _exact_one(self, row: tuple, rb) -> Fraction:  # pragma: no cover
        raise NotImplementedError

    def params(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({args})"

    def __str__(self) -> str:
        return self.key

    @property
    def key(self) -> str:
        """The paper-style name (FFF21 §6): ``RBP_p08``, ``DCG_b02``, ``nDCG_b10`` …"""
        return self.family
