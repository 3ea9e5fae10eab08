"""Measures of graded relevance and the log-discounted family: gP, gR, gRBP (FFP19 §4.2, §5),
DCG and nDCG (FFF21 §6), ERR (FFP19 §5)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np

from irscales.exact import to_fraction
from irscales.measures.base import (
    Measure, binary_relevance, broadcast_topic, check_gain_bound, check_grades, check_p, check_positive, log2_ranks,
    seq_div, seq_dot,
)
from irscales.measures.binary import geometric_weights, p_key

__all__ = ["GP", "GR", "GRBP", "DCG", "NDCG", "ERR"]

_TREC_NDCG = {"discount": "log2p1", "gains": "graded"}  # trec_eval's ndcg: gain = grade, 1/log2(i + 1)


def _gains(match) -> str:
    return "graded" if match[1] else "binary"


@dataclass(frozen=True, repr=False)
class GP(Measure, names=("gP",), spellings=("gP",)):
    """Generalised precision gP = (1/N) Σ_i g(rel_i)/g_max, gains = grades (FFP19 §4.2)."""

    max_gain: float = 1
    family: ClassVar[str] = "gP"
    binary: ClassVar[bool] = False
    form: ClassVar[str] = "grade_sum"

    def __post_init__(self):
        check_positive("gP", "max_gain", self.max_gain)

    def integer_weights(self, N: int, c: int) -> tuple[list[int], Fraction]:
        """1 for every rank, over N·g_max."""
        return [1] * N, Fraction(N) * to_fraction(self.max_gain)

    def _compute(self, rel, rb=None, ideal=None):
        check_gain_bound(self, rel.max(initial=0))
        return rel.sum(-1) / (self.max_gain * rel.shape[-1])

    def _exact_one(self, row, rb):
        check_gain_bound(self, max(row, default=0))
        return sum((to_fraction(x, bools=True) for x in row), Fraction(0)) / (to_fraction(self.max_gain) * len(row))


@dataclass(frozen=True, repr=False)
class GR(Measure, names=("gR",), spellings=("gR",)):
    """Generalised recall gR = Σ_i g(rel_i) / RB_g, RB_g the topic's total gain (FFP19 §4.2)."""

    family: ClassVar[str] = "gR"
    needs_rb: ClassVar[bool] = True
    binary: ClassVar[bool] = False
    divides_by: ClassVar[str] = "total_gain"

    def _compute(self, rel, rb=None, ideal=None):
        rbv = broadcast_topic(rb, rel, "rb")
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(rbv > 0, rel.sum(-1) / np.where(rbv > 0, rbv, 1), 0.0)

    def _exact_one(self, row, rb):
        rb = to_fraction(rb)
        return sum((to_fraction(x, bools=True) for x in row), Fraction(0)) / rb if rb > 0 else Fraction(0)


@dataclass(frozen=True, repr=False)
class GRBP(Measure, names=(), spellings=("gRBP",),
           keys={r"gRBP_p0(\d+)": lambda m: {"p": float("0." + m[1])}}):
    """Graded RBP: gRBP = (1 − p) Σ_i (g(rel_i)/g_max) p^{i−1}, gains = grades (FFP19 §5)."""

    p: float = 0.8
    max_gain: float = 1
    family: ClassVar[str] = "gRBP"
    binary: ClassVar[bool] = False
    form: ClassVar[str] = "geometric"

    def __post_init__(self):
        check_p("gRBP", self.p)
        check_positive("gRBP", "max_gain", self.max_gain)

    def integer_weights(self, N: int, c: int) -> tuple[list[int], Fraction]:
        """RBP's weights (:func:`~irscales.measures.binary.geometric_weights`) over b^{N−1}·g_max/(1 − p)."""
        w, d = geometric_weights(self.p, N)
        return w, d * to_fraction(self.max_gain)

    @property
    def key(self) -> str:
        return f"gRBP_{p_key(self.p)}"

    def _compute(self, rel, rb=None, ideal=None):
        check_gain_bound(self, rel.max(initial=0))
        w = (1 - self.p) * self.p ** np.arange(rel.shape[-1])
        return seq_dot(rel / self.max_gain, w)

    def _exact_one(self, row, rb):
        check_gain_bound(self, max(row, default=0))
        p, g = to_fraction(self.p), to_fraction(self.max_gain)
        return (1 - p) * sum((to_fraction(x, bools=True) / g * p**i for i, x in enumerate(row)), Fraction(0))


def dcg_discount(N: int, base: float = 2, discount: str = "jk") -> np.ndarray:
    """Discount weights w_1..w_N.

    ``"jk"``  Järvelin–Kekäläinen: w_i = 1 for i < b, 1/log_b(i) for i ≥ b (FFF21 §6; b=2 gives
             1, 1, 1/log2 3, 1/2, …; b=10 gives ten ones first).
    ``"log2p1"`` w_i = 1/log2(i + 1), as trec_eval's ndcg_cut and MM23's NDCG.
    """
    i = np.arange(1, N + 1, dtype=float)
    if discount == "jk":
        return np.where(i < base, 1.0, 1.0 / np.maximum(np.log(i) / math.log(base), 1e-300))
    if discount == "log2p1":
        return 1.0 / np.log2(i + 1)
    raise ValueError(f"unknown DCG discount {discount!r}; use 'jk' or 'log2p1'")


@dataclass(frozen=True, repr=False)
class DCG(Measure, names=(), keys={r"(g?)DCG_b(\d+)": lambda m: {"base": int(m[2]), "gains": _gains(m)},
                                  r"(g?)DCG_log2p1": lambda m: {"discount": "log2p1", "gains": _gains(m)}}):
    """Discounted cumulated gain DCG = Σ_i g(rel_i) · w_i (Järvelin & Kekäläinen; FFF21 §6 [50]).

    Gains are the values in the array (grades or real gains); ``binary=True`` uses rel > 0.
    The discount is :func:`dcg_discount` with ``base`` and ``discount``.
    """

    base: float = 2
    discount: str = "jk"
    gains: str = "binary"  # "binary" (rel > 0) or "graded" (the values themselves)
    family: ClassVar[str] = "DCG"
    rational: ClassVar[bool] = False
    form: ClassVar[str] = "discounted"

    def __post_init__(self):
        if self.gains not in ("binary", "graded"):
            raise ValueError(f"{self.family} gains must be 'binary' or 'graded', got {self.gains!r}")
        if self.discount not in ("jk", "log2p1"):
            raise ValueError(f"unknown {self.family} discount {self.discount!r}; use 'jk' or 'log2p1'")
        b = self.base
        if isinstance(b, bool) or not isinstance(b, (int, float, np.number)) or not math.isfinite(b) or not b > 1:
            raise ValueError(f"{self.family} needs a log base b > 1 (e.g. {self.family}_b02 or "
                             f"{self.family}(base=10)), got base={b!r}")
        if self.discount == "log2p1" and b != 2:  # one measure, one name: the discount is 1/log2(i + 1)
            raise ValueError(f"the log2p1 discount is 1/log2(i + 1) whatever the base; leave base=2, got base={b!r}")

    @property
    def reads_grades(self) -> bool:
        return self.gains == "graded"

    @property
    def integer_log_base(self) -> int | None:
        """The discount class: B for the JK discount with an integer log base B (ranks 1..B weigh 1, rank i > B
        weighs 1/log_B i, so ranks m, m², m³ … form one class), None otherwise (log2p1, a non-integer base).
        The counts and exact forms of :mod:`irscales.enumeration` need it."""
        b = self.base
        return int(b) if self.discount == "jk" and float(b) == int(b) and int(b) >= 2 else None

    @property
    def key(self) -> str:
        b = f"{int(self.base):02d}" if float(self.base).is_integer() else repr(float(self.base))
        k = f"{self.family}_b{b}" if self.discount == "jk" else f"{self.family}_log2p1"
        return k if self.gains == "binary" else f"g{k}"

    def _gains(self, rel):
        return binary_relevance(rel).astype(float) if self.gains == "binary" else rel.astype(float)

    def _sum(self, gains: np.ndarray) -> np.ndarray:
        """Σ_i gain_i · w_i rank by rank; with the log2(i + 1) discount as trec_eval divides, to its last bit."""
        n = gains.shape[-1]
        if self.discount == "log2p1":
            return seq_div(gains, log2_ranks(n))
        return seq_dot(gains, dcg_discount(n, self.base, self.discount))

    def _compute(self, rel, rb=None, ideal=None):
        return self._sum(self._gains(rel))


@dataclass(frozen=True, repr=False)
class NDCG(DCG, names=(), spellings=("nDCG",),
           keys={r"(g?)nDCG_b(\d+)": lambda m: {"base": int(m[2]), "gains": _gains(m)},
                 r"(g?)nDCG_log2p1": lambda m: {"discount": "log2p1", "gains": _gains(m)}},
           whole_run={"ndcg": _TREC_NDCG, "nDCG": _TREC_NDCG}, cut_names={"ndcg_cut": _TREC_NDCG}):
    """nDCG = DCG(run) / DCG(ideal run), the ideal run being the topic's judged gains in decreasing
    order cut at N (FFF21 §6). With binary gains the ideal run is min(RB, N) ones (pass ``rb``); with
    graded gains pass ``ideal``, at least N ranks of it (fewer are padded with 0: a caller cutting it short
    would raise nDCG; nDCG@k gets k ranks, issue 47). 0 when the ideal DCG is 0.
    """

    family: ClassVar[str] = "nDCG"
    needs_rb: ClassVar[bool] = True
    divides_by: ClassVar[str] = "ideal"
    depth_vs_rb: ClassVar[str] = "rb_at_least"

    def numerator(self) -> Measure:
        return DCG(base=self.base, discount=self.discount, gains=self.gains)

    def _compute(self, rel, rb=None, ideal=None):
        n = rel.shape[-1]
        dcg = self._sum(self._gains(rel))
        if ideal is not None:
            ideal = np.asarray(ideal, dtype=float)
            ideal = -np.sort(-ideal, axis=-1)[..., :n]
            pad = n - ideal.shape[-1]
            if pad > 0:
                ideal = np.concatenate([ideal, np.zeros(ideal.shape[:-1] + (pad,))], axis=-1)
            idcg = np.broadcast_to(self._sum(ideal), rel.shape[:-1])
        else:
            rbv = broadcast_topic(rb, rel, "rb")
            w = 1.0 / log2_ranks(n) if self.discount == "log2p1" else dcg_discount(n, self.base, self.discount)
            cw = np.concatenate([[0.0], np.cumsum(w)])  # sequential, like seq_dot (1/d = 1.0/d: trec_eval's too)
            idcg = cw[np.minimum(rbv, n).astype(int)]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1), 0.0)


@dataclass(frozen=True, repr=False)
class ERR(Measure, names=("ERR",)):
    """Expected reciprocal rank (Chapelle et al. 2009): ERR = Σ_i (1/i) R_i Π_{j<i} (1 − R_j),
    R_i = (2^{g_i} − 1) / 2^{g_max}, g_i the grade (FFP19 §5).
    """

    max_grade: int = 1
    family: ClassVar[str] = "ERR"
    binary: ClassVar[bool] = False

    def __post_init__(self):
        check_grades("ERR", "max_grade", self.max_grade)

    def with_top_grade(self, max_grade: int) -> Measure:
        return ERR(max_grade=max_grade) if self.max_grade == 1 else self

    def _check(self, top) -> None:
        if top > self.max_grade:
            raise ValueError(f"{self!r} got grade {top}: pass max_grade >= the highest grade of the "
                             f"qrels (e.g. ERR(max_grade={int(top)}))")

    def _compute(self, rel, rb=None, ideal=None):
        self._check(rel.max(initial=0))
        r = (np.exp2(rel.astype(float)) - 1) / 2.0**self.max_grade
        stop = np.cumprod(1 - r, axis=-1)
        cont = np.concatenate([np.ones(r.shape[:-1] + (1,)), stop[..., :-1]], axis=-1)
        return (r * cont / np.arange(1, r.shape[-1] + 1)).sum(-1)

    def _exact_one(self, row, rb):
        self._check(max(row, default=0))
        total, cont = Fraction(0), Fraction(1)
        for i, g in enumerate(row, start=1):
            r = Fraction(2 ** int(g) - 1, 2**self.max_grade)
            total += cont * r / i
            cont *= 1 - r
        return total
