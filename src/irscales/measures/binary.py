"""Measures of binary relevance (lenient mapping rel > 0, FFF21 §6): set-based P, R, F1, Succ and
R-prec; rank-based SP, AP, RR and RBP."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np

from irscales.exact import to_fraction
from irscales.measures.base import (
    Measure, at_k, binary_relevance, broadcast_topic, check_cut, check_p, in_rank_order, seq_dot,
)

__all__ = ["P", "R", "F1", "Succ", "RPrec", "SP", "AP", "RR", "RBP"]


# --------------------------------------------------------------------------- set-based measures


@dataclass(frozen=True, repr=False)
class P(Measure, names=("P",), keys={r"P@(\d+)": at_k, r"P_(\d+)": at_k}):
    """Precision at the run length N: P = (1/N) Σ_i 1[rel_i > 0]  (FFF21 §3.4.1; FFP19 §4.1).

    ``k`` cuts the run first (P@k divides by k, as trec_eval's P_k, even when padded).
    """

    k: int | None = None
    family: ClassVar[str] = "P"

    def __post_init__(self):
        check_cut("P", self.k)

    @property
    def key(self) -> str:
        return "P" if self.k is None else f"P@{self.k}"

    @property
    def form(self) -> str:  # type: ignore[override]
        return "grade_sum" if self.k is None else "additive"

    @property
    def uncut(self) -> Measure:
        return self if self.k is None else P()

    def integer_weights(self, N: int, c: int) -> tuple[list[int], Fraction]:
        """1 for each of the first k ranks (all N without a cut-off), over k (or N)."""
        w = [1] * N if self.k is None else [1 if i < self.k else 0 for i in range(N)]
        return w, Fraction(self.k if self.k is not None else N)

    def _cut(self, rel):
        return rel if self.k is None else rel[..., : self.k]

    def _compute(self, rel, rb=None, ideal=None):
        r = self._cut(rel)
        n = r.shape[-1] if self.k is None else self.k
        return binary_relevance(r).sum(-1) / n

    def _exact_one(self, row, rb):
        n = len(row) if self.k is None else self.k
        return Fraction(sum(1 for x in row[:n] if x > 0), n)


@dataclass(frozen=True, repr=False)
class R(Measure, names=("R",), cut_names={"recall": {}}):
    """Recall: R = (1/RB) Σ_i 1[rel_i > 0]; 0 when RB = 0 (FFF21 §3.4.2; FFP19 §4.1)."""

    family: ClassVar[str] = "R"
    needs_rb: ClassVar[bool] = True
    divides_by: ClassVar[str] = "rb/N"

    def numerator(self) -> Measure:
        return P()

    def _compute(self, rel, rb=None, ideal=None):
        rbv = broadcast_topic(rb, rel, "rb")
        num = binary_relevance(rel).sum(-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(rbv > 0, num / np.where(rbv > 0, rbv, 1), 0.0)

    def _exact_one(self, row, rb):
        rb = int(rb)
        return Fraction(sum(1 for x in row if x > 0), rb) if rb > 0 else Fraction(0)


@dataclass(frozen=True, repr=False)
class F1(Measure, names=("F1",)):
    """F1 = 2PR/(P+R) = 2 Σ_i 1[rel_i > 0] / (N + RB)  (FFF21 §3.4.3; FFP19 §4.1).

    P is over the run length N (see :class:`P`): trec_eval's ``set_F`` only where a run retrieved N documents."""

    family: ClassVar[str] = "F1"
    needs_rb: ClassVar[bool] = True

    def _compute(self, rel, rb=None, ideal=None):
        rbv = broadcast_topic(rb, rel, "rb")
        return 2.0 * binary_relevance(rel).sum(-1) / (rel.shape[-1] + rbv)

    def _exact_one(self, row, rb):
        return Fraction(2 * sum(1 for x in row if x > 0), len(row) + int(rb))


@dataclass(frozen=True, repr=False)
class Succ(Measure, names=("Succ",), keys={r"(?:Succ|Success)@(\d+)": at_k, r"success_(\d+)": at_k}):
    """Success: 1 if a relevant document is in the top k (k = N by default), else 0 (MM23 §2). Two values: its
    interval-scaled version is itself (FFF21 eq. 2: φ − 1 ∈ {0, 1}, K = 2; the ``any_hit`` form of
    :mod:`irscales.enumeration.forms`)."""

    k: int | None = None
    family: ClassVar[str] = "Succ"

    def __post_init__(self):
        check_cut("Succ", self.k)

    @property
    def key(self) -> str:
        return "Succ" if self.k is None else f"Succ@{self.k}"

    @property
    def form(self) -> str:  # type: ignore[override]
        return "any_hit" if self.k is None else ""  # Succ@k is Succ over its k ranks (uncut)

    @property
    def uncut(self) -> Measure:
        return self if self.k is None else Succ()

    def _compute(self, rel, rb=None, ideal=None):
        r = rel if self.k is None else rel[..., : self.k]
        return (r > 0).any(-1).astype(float)

    def _exact_one(self, row, rb):
        r = row if self.k is None else row[: self.k]
        return Fraction(int(any(x > 0 for x in r)))


@dataclass(frozen=True, repr=False)
class RPrec(Measure, names=("Rprec",), spellings=("Rprec",), whole_run={"Rprec": {}}):
    """R-precision: precision at rank RB (Fer17 §3.3); the run must be at least RB long,
    shorter runs count missing ranks as not relevant. 0 when RB = 0.
    """

    family: ClassVar[str] = "Rprec"
    needs_rb: ClassVar[bool] = True
    depth_vs_rb: ClassVar[str] = "rb_at_most"

    def _compute(self, rel, rb=None, ideal=None):
        rbv = broadcast_topic(rb, rel, "rb").astype(int)
        c = np.concatenate([np.zeros(rel.shape[:-1] + (1,)), np.cumsum(binary_relevance(rel), -1)], -1)
        idx = np.minimum(rbv, rel.shape[-1])
        hits = np.take_along_axis(c, idx[..., None], axis=-1)[..., 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(rbv > 0, hits / np.where(rbv > 0, rbv, 1), 0.0)

    def _exact_one(self, row, rb):
        rb = int(rb)
        return Fraction(sum(1 for x in row[:rb] if x > 0), rb) if rb > 0 else Fraction(0)


# -------------------------------------------------------------------------- rank-based measures


_LCM_MAX_N = 40  # lcm(1..40)·40 < 2^63: SP's integer numerator fits in int64 up to this N


def _sp_float(b: np.ndarray) -> np.ndarray:
    """SP = Σ_i b_i·c_i/i as a float that is equal for runs with equal exact SP.

    Up to N = 40 the exact numerator over lcm(1..N) is summed in int64 and divided once, so equal
    rationals give identical floats (the correctly rounded SP: within an ulp of trec_eval's sum, which
    can split exact ties); beyond that trec_eval's own rank-by-rank sum, to its last bit.
    """
    n = b.shape[-1]
    if n <= _LCM_MAX_N:
        hits = np.cumsum(b, axis=-1)
        lcm = math.lcm(*range(1, n + 1))
        num = (b * hits * (lcm // np.arange(1, n + 1, dtype=np.int64))).sum(-1)
        return num / lcm
    # trec_eval: sum += rel_so_far / rank at each relevant rank; elsewhere the term is 0.0, which adds nothing
    # (the same bits as seq_div(b * hits, ranks), in a fifth of the time: narrow counts, one pass, issue 49)
    terms = np.cumsum(b, axis=-1, dtype=np.int32 if n < 2**31 else np.int64) / np.arange(1, n + 1, dtype=float)
    terms *= b
    return in_rank_order(terms)


@dataclass(frozen=True, repr=False)
class SP(Measure, names=("SP",)):
    """Sum of precisions at relevant ranks: SP = Σ_i 1[rel_i>0] · (Σ_{j≤i} 1[rel_j>0]) / i.

    The numerator of AP (AP = SP / RB); independent of the recall base, which is why the
    interval-scaled AP of one topic is that of SP (FFF21 §5.2.2 and ``irscales.enumeration``).
    """

    family: ClassVar[str] = "SP"
    form: ClassVar[str] = "sp"

    def _compute(self, rel, rb=None, ideal=None):
        b = binary_relevance(rel)
        return _sp_float(b)

    def _exact_one(self, row, rb):
        total, hits = Fraction(0), 0
        for i, x in enumerate(row, start=1):
            if x > 0:
                hits += 1
                total += Fraction(hits, i)
        return total


@dataclass(frozen=True, repr=False)
class AP(Measure, names=("AP",), whole_run={"map": {}}, cut_names={"map_cut": {}}):
    """Average precision AP = SP / RB (FFF21 §6 [15]); 0 when RB = 0.

    At a cut-off N this is trec_eval's ``map_cut_N`` (normalised by the full recall base, not by
    min(RB, N)). Runs retrieving more relevant documents than RB are mathematically possible in
    REL^N but not in a real topic; AP can then exceed 1 (see ``irscales.enumeration``).
    """

    family: ClassVar[str] = "AP"
    needs_rb: ClassVar[bool] = True
    divides_by: ClassVar[str] = "rb"

    def numerator(self) -> Measure:
        return SP()

    def _compute(self, rel, rb=None, ideal=None):
        rbv = broadcast_topic(rb, rel, "rb")
        sp = SP()._compute(rel)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(rbv > 0, sp / np.where(rbv > 0, rbv, 1), 0.0)

    def _exact_one(self, row, rb):
        rb = int(rb)
        return SP()._exact_one(row, None) / rb if rb > 0 else Fraction(0)


@dataclass(frozen=True, repr=False)
class RR(Measure, names=("RR",), whole_run={"recip_rank": {}}):
    """Reciprocal rank RR = 1 / (rank of the first relevant document), 0 if none (FFF21 §6 [84])."""

    family: ClassVar[str] = "RR"
    form: ClassVar[str] = "first_hit"

    def _compute(self, rel, rb=None, ideal=None):
        b = rel > 0
        first = np.argmax(b, axis=-1) + 1
        return np.where(b.any(-1), 1.0 / first, 0.0)

    def _exact_one(self, row, rb):
        for i, x in enumerate(row, start=1):
            if x > 0:
                return Fraction(1, i)
        return Fraction(0)


def geometric_weights(p, N: int) -> tuple[list[int], Fraction]:
    """RBP's exact integer form for p = a/b in lowest terms: weights a^{i−1} b^{N−i} (i = 1..N) and the denominator
    b^{N−1}/(1 − p) (:meth:`RBP.integer_weights`, gRBP's too)."""
    q = to_fraction(p)
    a, b = q.numerator, q.denominator
    return [a**i * b ** (N - 1 - i) for i in range(N)], Fraction(b ** (N - 1)) / (1 - q)


def p_key(p: float) -> str:
    """The persistence in a measure key: 0.8 -> 'p08', 0.3 -> 'p03', 0.95 -> 'p095' (FFF21's naming, extended)."""
    s = repr(float(p))
    if not s.startswith("0."):
        return "p" + s.replace(".", "")
    return "p0" + s[2:]


@dataclass(frozen=True, repr=False)
class RBP(Measure, names=(), keys={r"RBP_p0(\d+)": lambda m: {"p": float("0." + m[1])}}):
    """Rank-biased precision (Moffat & Zobel) RBP = (1 − p) Σ_i 1[rel_i>0] p^{i−1} (FFF21 §6 [65]).

    Binary relevance. For grades use :class:`GRBP`.
    """

    p: float = 0.8
    family: ClassVar[str] = "RBP"
    form: ClassVar[str] = "geometric"

    def __post_init__(self):
        check_p("RBP", self.p)

    def integer_weights(self, N: int, c: int) -> tuple[list[int], Fraction]:
        """p = a/b in lowest terms: w_i = a^{i−1} b^{N−i} over b^{N−1}/(1 − p), so that the key Σ_i g_i·w_i is
        RBP·b^{N−1}/(1 − p), an exact integer."""
        return geometric_weights(self.p, N)

    @property
    def key(self) -> str:
        return f"RBP_{p_key(self.p)}"

    def _compute(self, rel, rb=None, ideal=None):
        w = (1 - self.p) * self.p ** np.arange(rel.shape[-1])
        return seq_dot(binary_relevance(rel), w)

    def _exact_one(self, row, rb):
        p = to_fraction(self.p)
        return (1 - p) * sum((p**i for i, x in enumerate(row) if x > 0), Fraction(0))
