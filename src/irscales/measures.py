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
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import ClassVar

import numpy as np

__all__ = [
    "Measure", "NotRationalError", "P", "R", "F1", "SP", "AP", "RR", "RBP", "GRBP", "DCG", "NDCG",
    "ERR", "Succ", "RPrec", "GP", "GR", "SBTO", "RBTO", "Cut", "parse", "parse_list", "split_top_level",
    "WHOLE_RUN", "FFF21_MEASURES", "fff21_measures", "REGISTRY",
]


class NotRationalError(ValueError):
    """The measure takes irrational values, so it has no exact rational representation."""


def _frac(x: float | int | Fraction) -> Fraction:
    """The rational a user meant: 0.8 -> 4/5 (via the shortest repr), not the nearest double."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    return Fraction(repr(float(x)))


def _check_cut(name: str, k) -> None:
    """A cut-off k is None (the whole run) or an integer ≥ 1."""
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
        raise ValueError(f"{name}@k needs an integer cut-off k >= 1 (e.g. {name}@10), got k={k!r}")


def _check_positive(cls: str, name: str, x) -> None:
    if isinstance(x, bool) or not isinstance(x, (int, float, Fraction, np.number)) or not x > 0 \
            or not math.isfinite(x):
        raise ValueError(f"{cls} needs {name} > 0 (the highest gain of the qrels), got {name}={x!r}")


def _check_gain_bound(m: "Measure", top) -> None:
    """Gains above ``max_gain`` would push a normalised measure above 1: say so instead."""
    if top > m.max_gain:
        raise ValueError(f"{m!r} got gain {top}: pass max_gain >= the highest grade of the qrels "
                         f"(e.g. max_gain={top})")


def _check_grades(cls: str, name: str, x) -> None:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1:
        raise ValueError(f"{cls} needs an integer {name} >= 1 (the highest relevance grade), got {name}={x!r}")


def _check_p(cls: str, p) -> None:
    if isinstance(p, bool) or not isinstance(p, (int, float, Fraction, np.number)) or not 0 < float(p) < 1:
        raise ValueError(f"{cls} needs a persistence 0 < p < 1 (e.g. {cls}(p=0.8)), got p={p!r}")


def _as_rel(rel) -> np.ndarray:
    a = np.asarray(rel)
    if a.ndim == 0:
        raise ValueError("a relevance array needs at least one axis (the ranks), got a scalar")
    if a.dtype == object:
        a = a.astype(float)
    return a


def _binary(rel: np.ndarray) -> np.ndarray:
    return (rel > 0).astype(np.int64)


def _seq_dot(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Σ_i x[..., i]·w[i] accumulated rank by rank, in the same order for every run.

    A BLAS product or numpy's pairwise sum groups terms by position, so two runs whose values are
    mathematically equal (e.g. DCG_b02 runs differing by a swap of ranks 1 and 2, which both weigh 1)
    can come out one ulp apart and then look distinct to any tie-sensitive code. Accumulating in rank
    order gives bit-identical results whenever the partial sums agree exactly (tested).
    """
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape[:-1])
    for i in range(x.shape[-1]):
        out += x[..., i] * w[i]
    return out


_LCM_MAX_N = 40  # lcm(1..40)·40 < 2^63: SP's integer numerator fits in int64 up to this N


def _sp_float(b: np.ndarray) -> np.ndarray:
    """SP = Σ_i b_i·c_i/i as a float that is equal for runs with equal exact SP.

    Up to N = 40 the exact numerator over lcm(1..N) is summed in int64 and divided once, so equal
    rationals give identical floats; beyond that a rank-ordered float sum is used.
    """
    n = b.shape[-1]
    hits = np.cumsum(b, axis=-1)
    if n <= _LCM_MAX_N:
        lcm = math.lcm(*range(1, n + 1))
        num = (b * hits * (lcm // np.arange(1, n + 1, dtype=np.int64))).sum(-1)
        return num / lcm
    return _seq_dot(b * hits, 1.0 / np.arange(1, n + 1))


def _broadcast_topic(x, rel: np.ndarray, what: str) -> np.ndarray:
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
class Measure:
    """Base class: a measure is a frozen dataclass whose fields are its parameters."""

    family: ClassVar[str] = ""
    needs_rb: ClassVar[bool] = False
    rational: ClassVar[bool] = True
    binary: ClassVar[bool] = True  # uses only rel > 0

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


# --------------------------------------------------------------------------- set-based measures


@dataclass(frozen=True, repr=False)
class P(Measure):
    """Precision at the run length N: P = (1/N) Σ_i 1[rel_i > 0]  (FFF21 §3.4.1; FFP19 §4.1).

    ``k`` cuts the run first (P@k divides by k, as trec_eval's P_k, even when padded).
    """

    k: int | None = None
    family: ClassVar[str] = "P"

    def __post_init__(self):
        _check_cut("P", self.k)

    @property
    def key(self) -> str:
        return "P" if self.k is None else f"P@{self.k}"

    def _cut(self, rel):
        return rel if self.k is None else rel[..., : self.k]

    def _compute(self, rel, rb=None, ideal=None):
        r = self._cut(rel)
        n = r.shape[-1] if self.k is None else self.k
        return _binary(r).sum(-1) / n

    def _exact_one(self, row, rb):
        n = len(row) if self.k is None else self.k
        return Fraction(sum(1 for x in row[:n] if x > 0), n)


@dataclass(frozen=True, repr=False)
class R(Measure):
    """Recall: R = (1/RB) Σ_i 1[rel_i > 0]; 0 when RB = 0 (FFF21 §3.4.2; FFP19 §4.1)."""

    family: ClassVar[str] = "R"
    needs_rb: ClassVar[bool] = True

    def _compute(self, rel, rb=None, ideal=None):
        rbv = _broadcast_topic(rb, rel, "rb")
        num = _binary(rel).sum(-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(rbv > 0, num / np.where(rbv > 0, rbv, 1), 0.0)

    def _exact_one(self, row, rb):
        rb = int(rb)
        return Fraction(sum(1 for x in row if x > 0), rb) if rb > 0 else Fraction(0)


@dataclass(frozen=True, repr=False)
class F1(Measure):
    """F1 = 2PR/(P+R) = 2 Σ_i 1[rel_i > 0] / (N + RB)  (FFF21 §3.4.3; FFP19 §4.1)."""

    family: ClassVar[str] = "F1"
    needs_rb: ClassVar[bool] = True

    def _compute(self, rel, rb=None, ideal=None):
        rbv = _broadcast_topic(rb, rel, "rb")
        return 2.0 * _binary(rel).sum(-1) / (rel.shape[-1] + rbv)

    def _exact_one(self, row, rb):
        return Fraction(2 * sum(1 for x in row if x > 0), len(row) + int(rb))


@dataclass(frozen=True, repr=False)
class GP(Measure):
    """Generalised precision gP = (1/N) Σ_i g(rel_i)/g_max, gains = grades (FFP19 §4.2)."""

    max_gain: float = 1
    family: ClassVar[str] = "gP"
    binary: ClassVar[bool] = False

    def __post_init__(self):
        _check_positive("gP", "max_gain", self.max_gain)

    def _compute(self, rel, rb=None, ideal=None):
        _check_gain_bound(self, rel.max(initial=0))
        return rel.sum(-1) / (self.max_gain * rel.shape[-1])

    def _exact_one(self, row, rb):
        _check_gain_bound(self, max(row, default=0))
        return sum((_frac(x) for x in row), Fraction(0)) / (_frac(self.max_gain) * len(row))


@dataclass(frozen=True, repr=False)
class GR(Measure):
    """Generalised recall gR = Σ_i g(rel_i) / RB_g, RB_g the topic's total gain (FFP19 §4.2)."""

    family: ClassVar[str] = "gR"
    needs_rb: ClassVar[bool] = True
    binary: ClassVar[bool] = False

    def _compute(self, rel, rb=None, ideal=None):
        rbv = _broadcast_topic(rb, rel, "rb")
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(rbv > 0, rel.sum(-1) / np.where(rbv > 0, rbv, 1), 0.0)

    def _exact_one(self, row, rb):
        rb = _frac(rb)
        return sum((_frac(x) for x in row), Fraction(0)) / rb if rb > 0 else Fraction(0)


@dataclass(frozen=True, repr=False)
class Succ(Measure):
    """Success: 1 if a relevant document is in the top k (k = N by default), else 0 (MM23 §2)."""

    k: int | None = None
    family: ClassVar[str] = "Succ"

    def __post_init__(self):
        _check_cut("Succ", self.k)

    @property
    def key(self) -> str:
        return "Succ" if self.k is None else f"Succ@{self.k}"

    def _compute(self, rel, rb=None, ideal=None):
        r = rel if self.k is None else rel[..., : self.k]
        return (r > 0).any(-1).astype(float)

    def _exact_one(self, row, rb):
        r = row if self.k is None else row[: self.k]
        return Fraction(int(any(x > 0 for x in r)))


# -------------------------------------------------------------------------- rank-based measures


@dataclass(frozen=True, repr=False)
class SP(Measure):
    """Sum of precisions at relevant ranks: SP = Σ_i 1[rel_i>0] · (Σ_{j≤i} 1[rel_j>0]) / i.

    The numerator of AP (AP = SP / RB); independent of the recall base, which is why the
    interval-scaled AP of one topic is that of SP (FFF21 §5.2.2 and ``irscales.enumeration``).
    """

    family: ClassVar[str] = "SP"

    def _compute(self, rel, rb=None, ideal=None):
        b = _binary(rel)
        return _sp_float(b)

    def _exact_one(self, row, rb):
        total, hits = Fraction(0), 0
        for i, x in enumerate(row, start=1):
            if x > 0:
                hits += 1
                total += Fraction(hits, i)
        return total


@dataclass(frozen=True, repr=False)
class AP(Measure):
    """Average precision AP = SP / RB (FFF21 §6 [15]); 0 when RB = 0.

    At a cut-off N this is trec_eval's ``map_cut_N`` (normalised by the full recall base, not by
    min(RB, N)). Runs retrieving more relevant documents than RB are mathematically possible in
    REL^N but not in a real topic; AP can then exceed 1 (see ``irscales.enumeration``).
    """

    family: ClassVar[str] = "AP"
    needs_rb: ClassVar[bool] = True

    def _compute(self, rel, rb=None, ideal=None):
        rbv = _broadcast_topic(rb, rel, "rb")
        sp = SP()._compute(rel)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(rbv > 0, sp / np.where(rbv > 0, rbv, 1), 0.0)

    def _exact_one(self, row, rb):
        rb = int(rb)
        return SP()._exact_one(row, None) / rb if rb > 0 else Fraction(0)


@dataclass(frozen=True, repr=False)
class RR(Measure):
    """Reciprocal rank RR = 1 / (rank of the first relevant document), 0 if none (FFF21 §6 [84])."""

    family: ClassVar[str] = "RR"

    def _compute(self, rel, rb=None, ideal=None):
        b = rel > 0
        first = np.argmax(b, axis=-1) + 1
        return np.where(b.any(-1), 1.0 / first, 0.0)

    def _exact_one(self, row, rb):
        for i, x in enumerate(row, start=1):
            if x > 0:
                return Fraction(1, i)
        return Fraction(0)


def _pkey(p: float) -> str:
    """0.8 -> 'p08', 0.3 -> 'p03', 0.95 -> 'p095' (FFF21's naming, extended)."""
    s = repr(float(p))
    if not s.startswith("0."):
        return "p" + s.replace(".", "")
    return "p0" + s[2:]


@dataclass(frozen=True, repr=False)
class RBP(Measure):
    """Rank-biased precision (Moffat & Zobel) RBP = (1 − p) Σ_i 1[rel_i>0] p^{i−1} (FFF21 §6 [65]).

    Binary relevance. For grades use :class:`GRBP`.
    """

    p: float = 0.8
    family: ClassVar[str] = "RBP"

    def __post_init__(self):
        _check_p("RBP", self.p)

    @property
    def key(self) -> str:
        return f"RBP_{_pkey(self.p)}"

    def _compute(self, rel, rb=None, ideal=None):
        w = (1 - self.p) * self.p ** np.arange(rel.shape[-1])
        return _seq_dot(_binary(rel), w)

    def _exact_one(self, row, rb):
        p = _frac(self.p)
        return (1 - p) * sum((p**i for i, x in enumerate(row) if x > 0), Fraction(0))


@dataclass(frozen=True, repr=False)
class GRBP(Measure):
    """Graded RBP: gRBP = (1 − p) Σ_i (g(rel_i)/g_max) p^{i−1}, gains = grades (FFP19 §5)."""

    p: float = 0.8
    max_gain: float = 1
    family: ClassVar[str] = "gRBP"
    binary: ClassVar[bool] = False

    def __post_init__(self):
        _check_p("gRBP", self.p)
        _check_positive("gRBP", "max_gain", self.max_gain)

    @property
    def key(self) -> str:
        return f"gRBP_{_pkey(self.p)}"

    def _compute(self, rel, rb=None, ideal=None):
        _check_gain_bound(self, rel.max(initial=0))
        w = (1 - self.p) * self.p ** np.arange(rel.shape[-1])
        return _seq_dot(rel / self.max_gain, w)

    def _exact_one(self, row, rb):
        _check_gain_bound(self, max(row, default=0))
        p, g = _frac(self.p), _frac(self.max_gain)
        return (1 - p) * sum((_frac(x) / g * p**i for i, x in enumerate(row)), Fraction(0))


def dcg_discount(n: int, base: float = 2, discount: str = "jk") -> np.ndarray:
    """Discount weights w_1..w_n.

    ``"jk"``  Järvelin–Kekäläinen: w_i = 1 for i < b, 1/log_b(i) for i ≥ b (FFF21 §6; b=2 gives
             1, 1, 1/log2 3, 1/2, …; b=10 gives ten ones first).
    ``"log2p1"`` w_i = 1/log2(i + 1), as trec_eval's ndcg_cut and MM23's NDCG.
    """
    i = np.arange(1, n + 1, dtype=float)
    if discount == "jk":
        return np.where(i < base, 1.0, 1.0 / np.maximum(np.log(i) / math.log(base), 1e-300))
    if discount == "log2p1":
        return 1.0 / np.log2(i + 1)
    raise ValueError(f"unknown DCG discount {discount!r}; use 'jk' or 'log2p1'")


@dataclass(frozen=True, repr=False)
class DCG(Measure):
    """Discounted cumulated gain DCG = Σ_i g(rel_i) · w_i (Järvelin & Kekäläinen; FFF21 §6 [50]).

    Gains are the values in the array (grades or real gains); ``binary=True`` uses rel > 0.
    The discount is :func:`dcg_discount` with ``base`` and ``discount``.
    """

    base: float = 2
    discount: str = "jk"
    gains: str = "binary"  # "binary" (rel > 0) or "graded" (the values themselves)
    family: ClassVar[str] = "DCG"
    rational: ClassVar[bool] = False

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
    def key(self) -> str:
        b = f"{int(self.base):02d}" if float(self.base).is_integer() else repr(float(self.base))
        k = f"{self.family}_b{b}" if self.discount == "jk" else f"{self.family}_log2p1"
        return k if self.gains == "binary" else f"g{k}"

    def _gains(self, rel):
        return _binary(rel).astype(float) if self.gains == "binary" else rel.astype(float)

    def _compute(self, rel, rb=None, ideal=None):
        return _seq_dot(self._gains(rel), dcg_discount(rel.shape[-1], self.base, self.discount))


@dataclass(frozen=True, repr=False)
class NDCG(DCG):
    """nDCG = DCG(run) / DCG(ideal run), the ideal run being the topic's judged gains in decreasing
    order cut at N (FFF21 §6). With binary gains the ideal run is min(RB, N) ones (pass ``rb``); with
    graded gains pass ``ideal``. 0 when the ideal DCG is 0.
    """

    family: ClassVar[str] = "nDCG"
    needs_rb: ClassVar[bool] = True

    def _compute(self, rel, rb=None, ideal=None):
        n = rel.shape[-1]
        w = dcg_discount(n, self.base, self.discount)
        dcg = _seq_dot(self._gains(rel), w)
        if ideal is not None:
            ideal = np.asarray(ideal, dtype=float)
            ideal = -np.sort(-ideal, axis=-1)[..., :n]
            pad = n - ideal.shape[-1]
            if pad > 0:
                ideal = np.concatenate([ideal, np.zeros(ideal.shape[:-1] + (pad,))], axis=-1)
            idcg = np.broadcast_to(_seq_dot(ideal, w), rel.shape[:-1])
        else:
            rbv = _broadcast_topic(rb, rel, "rb")
            cw = np.concatenate([[0.0], np.cumsum(w)])  # sequential, like _seq_dot
            idcg = cw[np.minimum(rbv, n).astype(int)]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1), 0.0)


@dataclass(frozen=True, repr=False)
class ERR(Measure):
    """Expected reciprocal rank (Chapelle et al. 2009): ERR = Σ_i (1/i) R_i Π_{j<i} (1 − R_j),
    R_i = (2^{g_i} − 1) / 2^{g_max}, g_i the grade (FFP19 §5).
    """

    max_grade: int = 1
    family: ClassVar[str] = "ERR"
    binary: ClassVar[bool] = False

    def __post_init__(self):
        _check_grades("ERR", "max_grade", self.max_grade)

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


@dataclass(frozen=True, repr=False)
class RPrec(Measure):
    """R-precision: precision at rank RB (Fer17 §3.3); the run must be at least RB long,
    shorter runs count missing ranks as not relevant. 0 when RB = 0.
    """

    family: ClassVar[str] = "Rprec"
    needs_rb: ClassVar[bool] = True

    def _compute(self, rel, rb=None, ideal=None):
        rbv = _broadcast_topic(rb, rel, "rb").astype(int)
        c = np.concatenate([np.zeros(rel.shape[:-1] + (1,)), np.cumsum(_binary(rel), -1)], -1)
        idx = np.minimum(rbv, rel.shape[-1])
        hits = np.take_along_axis(c, idx[..., None], axis=-1)[..., 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(rbv > 0, hits / np.where(rbv > 0, rbv, 1), 0.0)

    def _exact_one(self, row, rb):
        rb = int(rb)
        return Fraction(sum(1 for x in row[:rb] if x > 0), rb) if rb > 0 else Fraction(0)


# ---------------------------------------------------------------- FFP19's interval-scale measures


@dataclass(frozen=True, repr=False)
class SBTO(Measure):
    """Set-Based Total Order measure (FFP19 Def. 2, eq. 3), grades 0..c:

    SBTO(r) = Σ_{j=1}^{N} C(δ(r_j) + N − j, N − j + 1), with the grades sorted decreasingly.
    The rank of r in the set-based total order (eq. 1); for c = 1 it is the number of relevant
    documents.
    """

    c: int = 1
    family: ClassVar[str] = "SBTO"
    binary: ClassVar[bool] = False

    def __post_init__(self):
        _check_grades("SBTO", "c", self.c)

    def _compute(self, rel, rb=None, ideal=None):
        g = -np.sort(-rel.astype(np.int64), axis=-1)
        n = g.shape[-1]
        j = np.arange(1, n + 1)
        top = g + n - j
        bot = n - j + 1
        comb = np.vectorize(math.comb, otypes=[object])(top, np.broadcast_to(bot, top.shape))
        return np.asarray(comb.sum(-1), dtype=float)

    def _exact_one(self, row, rb):
        g = sorted((int(x) for x in row), reverse=True)
        n = len(g)
        return Fraction(sum(math.comb(d + n - j, n - j + 1) for j, d in enumerate(g, start=1)))


@dataclass(frozen=True, repr=False)
class RBTO(Measure):
    """Rank-Based Total Order measure (FFP19 Def. 3, eq. 6): RBTO(r) = Σ_i δ(r_i) (c+1)^{N−i},
    the run's grades read as a base-(c+1) number (strong top-heaviness order, eq. 4).
    """

    c: int = 1
    family: ClassVar[str] = "RBTO"
    binary: ClassVar[bool] = False

    def __post_init__(self):
        _check_grades("RBTO", "c", self.c)

    def _compute(self, rel, rb=None, ideal=None):
        n = rel.shape[-1]
        w = float(self.c + 1) ** np.arange(n - 1, -1, -1)
        return _seq_dot(rel, w)

    def _exact_one(self, row, rb):
        n = len(row)
        return Fraction(sum(int(x) * (self.c + 1) ** (n - i) for i, x in enumerate(row, start=1)))


# ------------------------------------------------------------------------------------ cut-offs


@dataclass(frozen=True, repr=False)
class Cut(Measure):
    """``measure`` on the top ``k`` ranks only (trec_eval's ``map_cut_k``, ``ndcg_cut_k``, ``recall_k``;
    ir_measures' ``AP@k``, ``nDCG@k``). Topic quantities are not cut: AP@k divides by the full recall
    base, nDCG@k by the ideal run cut at k. Runs shorter than k count as padded with non-relevant
    documents (FFF21 §5.1). ``repr`` is ``AP()@10``, which :func:`parse` reads back.
    """

    measure: Measure
    k: int

    def __post_init__(self):
        if not isinstance(self.measure, Measure) or isinstance(self.measure, (Cut, P, Succ, GR)):
            what = self.measure.key if isinstance(self.measure, Measure) else repr(self.measure)
            hint = " (P@k and Succ@k carry their own cut-off)" if isinstance(self.measure, (P, Succ)) else ""
            raise ValueError(f"cannot cut {what} at a rank{hint}")
        _check_cut(self.measure.key, self.k)

    # what callers ask of a measure is that of the cut one
    needs_rb = property(lambda self: self.measure.needs_rb)  # type: ignore[assignment]
    rational = property(lambda self: self.measure.rational)  # type: ignore[assignment]
    binary = property(lambda self: self.measure.binary)  # type: ignore[assignment]
    family = property(lambda self: self.measure.family)  # type: ignore[assignment]

    @property
    def gains(self) -> str:
        return getattr(self.measure, "gains", "binary")

    @property
    def key(self) -> str:
        return f"{self.measure.key}@{self.k}"

    def __repr__(self) -> str:
        return f"{self.measure!r}@{self.k}"

    def _top(self, rel: np.ndarray) -> np.ndarray:
        r = rel[..., : self.k]
        if r.shape[-1] < self.k:
            r = np.concatenate([r, np.zeros(r.shape[:-1] + (self.k - r.shape[-1],), r.dtype)], axis=-1)
        return r

    def _compute(self, rel, rb=None, ideal=None):
        return self.measure._compute(self._top(rel), rb=rb, ideal=ideal)

    def _exact_one(self, row, rb):
        top = tuple(row[: self.k]) + (0,) * max(0, self.k - len(row))
        return self.measure._exact_one(top, rb)


# ----------------------------------------------------------------------------------- registry

REGISTRY: dict[str, type[Measure]] = {
    cls.__name__: cls
    for cls in (P, R, F1, GP, GR, Succ, SP, AP, RR, RBP, GRBP, DCG, NDCG, ERR, RPrec, SBTO, RBTO)
}

_TREC_NDCG = NDCG(discount="log2p1", gains="graded")  # trec_eval's ndcg: gain = grade, 1/log2(i + 1)

_KEY_RE = {
    re.compile(r"^RBP_p0(\d+)$"): lambda m: RBP(p=float("0." + m.group(1))),
    re.compile(r"^gRBP_p0(\d+)$"): lambda m: GRBP(p=float("0." + m.group(1))),
    re.compile(r"^(g?)(n?)DCG_b(\d+)$"): lambda m: (NDCG if m.group(2) else DCG)(
        base=int(m.group(3)), gains="graded" if m.group(1) else "binary"),
    re.compile(r"^(g?)(n?)DCG_log2p1$"): lambda m: (NDCG if m.group(2) else DCG)(
        discount="log2p1", gains="graded" if m.group(1) else "binary"),
    re.compile(r"^P@(\d+)$"): lambda m: P(k=int(m.group(1))),
    re.compile(r"^(?:Succ|Success)@(\d+)$"): lambda m: Succ(k=int(m.group(1))),
    # trec_eval names with a cut-off
    re.compile(r"^P_(\d+)$"): lambda m: P(k=int(m.group(1))),
    re.compile(r"^success_(\d+)$"): lambda m: Succ(k=int(m.group(1))),
    re.compile(r"^map_cut_(\d+)$"): lambda m: Cut(AP(), int(m.group(1))),
    re.compile(r"^ndcg_cut_(\d+)$"): lambda m: Cut(_TREC_NDCG, int(m.group(1))),
    re.compile(r"^recall_(\d+)$"): lambda m: Cut(R(), int(m.group(1))),
}
_SIMPLE = {"P": P, "R": R, "F1": F1, "AP": AP, "SP": SP, "RR": RR, "Succ": Succ, "Rprec": RPrec,
           "ERR": ERR, "gP": GP, "gR": GR}

#: trec_eval / ir_measures names that mean a measure over the *whole* run (trec_eval evaluates every
#: retrieved document): they equal our measure only when runs are not cut (``--depth`` at least the
#: longest run; for ndcg also at least the recall base, as its ideal run holds every relevant
#: document), which the command line checks.
WHOLE_RUN: dict[str, Measure] = {
    "map": AP(), "recip_rank": RR(), "Rprec": RPrec(), "ndcg": _TREC_NDCG, "nDCG": _TREC_NDCG,
}
_FAMILIES = {"gP": GP, "gR": GR, "gRBP": GRBP, "nDCG": NDCG, "Rprec": RPrec}  # papers' spellings
_CALL_RE = re.compile(r"^(\w+)\((.*)\)$", re.S)


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split ``text`` at ``sep`` outside parentheses and quotes:
    ``"AP,NDCG(discount='log2p1', gains='graded')"`` → ``['AP', "NDCG(discount='log2p1', gains='graded')"]``."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced ')' in {text!r}")
        elif ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if quote or depth:
        raise ValueError(f"unclosed {'quote' if quote else '('} in {text!r}")
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def parse_list(text: str) -> list[Measure]:
    """Measures from a comma-separated list; commas inside ``NDCG(…, …)`` do not split."""
    names = [x for x in split_top_level(text) if x]
    if not names:
        raise ValueError("no measure given (e.g. AP,nDCG_b02,RR)")
    return [parse(x) for x in names]


def parse(text: str) -> Measure:
    """Read a measure from its paper key (``RBP_p08``, ``nDCG_b02``, ``P@10``), its repr
    (``RBP(p=0.8)``, ``DCG(base=10, discount='jk', gains='binary')``, ``AP()@10``), a trec_eval name
    (``map``, ``P_10``, ``map_cut_10``, ``ndcg_cut_10``, ``recall_10``, ``recip_rank``, ``Rprec``,
    ``success_5``) or an ir_measures name (``AP@10``, ``nDCG@10``, ``RR@10``, ``R@10``,
    ``RBP(rel=1, p=0.8)``). Names are exact synonyms only (see :data:`WHOLE_RUN` for those that
    assume an uncut run); invalid parameters raise ``ValueError`` saying what is allowed."""
    s = text.strip()
    split_top_level(s)  # unbalanced parentheses or quotes: say so
    if s in _SIMPLE:
        return _SIMPLE[s]()
    if s in WHOLE_RUN:
        return WHOLE_RUN[s]
    for rx, make in _KEY_RE.items():
        m = rx.match(s)
        if m:
            return make(m)
    if "@" in s and not s.startswith("P@"):  # a cut-off: AP@10, nDCG@10, AP()@10
        inner, _, k = s.rpartition("@")
        if not k.isdigit():
            raise ValueError(f"cannot parse measure {text!r}: the cut-off after '@' must be an integer >= 1")
        return Cut(parse(inner), int(k))
    m = _CALL_RE.match(s)
    if m and (m.group(1) in REGISTRY or m.group(1) in _FAMILIES):
        cls = REGISTRY.get(m.group(1)) or _FAMILIES[m.group(1)]
        kwargs = {}
        names = {f.name for f in fields(cls)}
        for part in filter(None, split_top_level(m.group(2))):
            if "=" not in part:
                raise ValueError(f"cannot parse measure {text!r}: expected name=value, got {part!r}")
            k, v = (x.strip() for x in part.split("=", 1))
            if cls is RBP and k == "rel":  # ir_measures: rel=1 is the lenient binary mapping we use
                if _literal(v, text) != 1:
                    raise ValueError(f"cannot parse measure {text!r}: RBP here is binary with grade > 0 "
                                     "relevant, i.e. ir_measures' rel=1; graded RBP is gRBP(p=…, max_gain=…)")
                continue
            if k not in names:
                allowed = ", ".join(sorted(names)) or "none"
                raise ValueError(f"cannot parse measure {text!r}: {cls.__name__} has no parameter {k!r} "
                                 f"(parameters: {allowed})")
            kwargs[k] = _literal(v, text)
        try:
            return cls(**kwargs)
        except TypeError as e:  # e.g. a value of the wrong kind reaching a formula
            raise ValueError(f"cannot parse measure {text!r}: {e}") from None
    known = ", ".join(["AP", "RR", "P@10", "nDCG_b02", "RBP_p08", "RBP(p=0.8)", "ERR(max_grade=3)",
                       "map", "map_cut_10", "ndcg_cut_10", "recip_rank", "nDCG@10", "AP@10"])
    raise ValueError(f"unknown measure {text!r}; examples of valid names: {known}")


def _literal(v: str, text: str):
    if v == "None":
        return None
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    try:
        return int(v)
    except ValueError:
        pass
    try:
        x = float(v)
    except ValueError:
        raise ValueError(f"cannot parse measure {text!r}: bad value {v!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"cannot parse measure {text!r}: bad value {v!r}")
    return x


def fff21_measures() -> dict[str, Measure]:
    """The 11 measures of FFF21 §6, keyed by the paper's names, in the paper's column order."""
    ms = [P(), R(), AP(), RR(), RBP(p=0.3), RBP(p=0.5), RBP(p=0.8), DCG(base=2), DCG(base=10),
          NDCG(base=2), NDCG(base=10)]
    return {m.key: m for m in ms}


FFF21_MEASURES: dict[str, Measure] = fff21_measures()
