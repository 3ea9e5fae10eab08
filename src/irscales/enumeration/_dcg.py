"""Exact arithmetic of log-discounted sums: DCG and nDCG with an integer log base (FFF21 §5.1).

With an integer log base B (JK discount w_i = 1/max(1, log_B i), or w_i = 1/log_2(i + 1)) write
every rank's argument as a perfect power i = m^k with m not a perfect power (:func:`perfect_root`);
then w_i = u_m / k with u_m = ln B / ln m, and the weights below the base equal 1 = u_{m_B}/k_B. A
binary run's DCG is Σ_m (Σ_{i: root(i)=m} g_i / k_i) u_m, a vector of rational coefficients over
the u_m (:func:`dcg_root_coefficients`): equal vectors ⇒ equal values. Distinct vectors are ordered
by evaluating Σ c_m u_m in ``Decimal`` (:func:`log_sum`); whether two distinct vectors can tie (a
Q-linear relation among the 1/ln m) is not known to be impossible, so it is *checked*, never
assumed (:class:`~irscales.enumeration._runs.TieUndecidable`).

Used by the enumeration engine (identities of runs), the counting of φ (canonical runs), the exact
system means of DCG/nDCG (:class:`ExactDCG`) and the exact values of FFF21 Fig. 2 (:class:`QLog3`).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import total_ordering
from typing import Mapping, Sequence

import numpy as np

from irscales import measures as M
from irscales.enumeration._runs import TieUndecidable

__all__ = ["perfect_root", "rank_classes", "rank_weights", "coefficient_vector", "dcg_root_coefficients",
           "DCGLayout", "dcg_layout", "log_sum", "log_sum_sign", "QLog3", "qlog3_dcg", "ExactDCG", "exact_dcg"]


def perfect_root(n: int) -> tuple[int, int]:
    """(m, k) with m**k == n and k maximal (m not a perfect power); n ≥ 2."""
    for k in range(int(math.log2(n)), 1, -1):
        m = round(n ** (1.0 / k))
        for cand in (m - 1, m, m + 1):
            if cand >= 2 and cand**k == n:
                return perfect_root(cand)[0], k * perfect_root(cand)[1]
    return n, 1


def rank_classes(m: M.DCG, N: int) -> tuple[list[tuple[int, int]], int]:
    """Rank i's discount as u_r/k: ([(r, k)] for ranks 1..N, log base B). Raises
    ``NotImplementedError`` for a non-integer base."""
    B = m.base
    if float(B) != int(B) or int(B) < 2:
        raise NotImplementedError(f"exact DCG ties need an integer log base ≥ 2, got base={B!r}")
    B = int(B)
    if m.discount == "jk":
        unit = perfect_root(B)
        return [unit if i < B else perfect_root(i) for i in range(1, N + 1)], B
    # log2p1: w_i = 1/log2(i + 1) = u_{root(i+1)}/k with u_m = ln 2 / ln m
    return [perfect_root(i + 1) for i in range(1, N + 1)], 2


def rank_weights(B: int, N: int) -> list[tuple[int, Fraction]]:
    """For ranks 1..N of the JK discount with integer base B: (class root m, weight in units of u_m),
    so that w_i = weight·u_m with u_m = ln B / ln m (:func:`rank_classes` with the weights as Fractions)."""
    cls, _ = rank_classes(M.DCG(base=B), N)
    return [(m, Fraction(1, k)) for m, k in cls]


def coefficient_vector(weights: list[tuple[int, Fraction]], c: int, ranks: list[int]) -> dict:
    """The exact coefficient vector {root: Fraction} of a binary run given as ``c`` relevant documents
    among the ranks weighing 1 (the first B) and the relevant ``ranks`` (1-based) after them."""
    vec: dict = {}
    if c:
        vec[weights[0][0]] = c * weights[0][1]
    for r in ranks:
        m, w = weights[r - 1]
        vec[m] = vec.get(m, 0) + w
    return vec


def _roots(cls: list[tuple[int, int]]) -> tuple[list[int], dict[int, int]]:
    roots = sorted({r for r, _ in cls})
    return roots, {r: math.lcm(*[k for rr, k in cls if rr == r]) for r in roots}


def dcg_root_coefficients(m: M.DCG, N: int) -> tuple[tuple[int, ...], tuple[int, ...], np.ndarray, int]:
    """DCG's exact form: w_i = Σ_r W[i, r] / lcm[r] · u_r with u_r = ln B / ln roots[r] (integer
    log base B; the engine's identity). Returns (roots, lcm, W (N, R) int64, B); a binary run's
    DCG is then the integer vector rel @ W over the u_r."""
    cls, logbase = rank_classes(m, N)
    roots, lcms = _roots(cls)
    w = np.zeros((N, len(roots)), np.int64)
    for i, (r, k) in enumerate(cls):
        w[i, roots.index(r)] = lcms[r] // k
    return tuple(roots), tuple(lcms[r] for r in roots), w, logbase


@dataclass(frozen=True)
class DCGLayout:
    """The engine's exact DCG identity: rank i adds g_i·coef[i] to the coefficient of u_r
    (r = cls[i][0]); the coefficient vector is packed into one integer in mixed radix (digit of r at
    ``stride[r]``, ``radix[r]`` values), ``size`` = the number of identities."""

    cls: list
    roots: list
    lcms: dict
    coef: list
    radix: dict
    stride: dict
    size: int
    logbase: int

    def value(self, ident: int, digits: int) -> Decimal:
        """The DCG of a packed identity, to ``digits`` significant digits."""
        vec = {r: Fraction((int(ident) // self.stride[r]) % self.radix[r], self.lcms[r]) for r in self.roots}
        return log_sum(vec, self.logbase, digits)


def dcg_layout(m: M.DCG, N: int, gmax: int) -> DCGLayout:
    """The :class:`DCGLayout` of ``m`` at run length N with gains 0..gmax."""
    cls, logbase = rank_classes(m, N)
    roots, lcms = _roots(cls)
    coef = [lcms[r] // k for r, k in cls]
    radix = {r: gmax * sum(coef[i] for i in range(N) if cls[i][0] == r) + 1 for r in roots}
    stride, size = {}, 1
    for r in roots:
        stride[r] = size
        size *= radix[r]
    return DCGLayout(cls, roots, lcms, coef, radix, stride, size, logbase)


@functools.lru_cache(maxsize=4096)
def _unit(logbase: int, r: int, digits: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = digits + 10
        return Decimal(logbase).ln() / Decimal(r).ln()


def log_sum(coef: Mapping[int, Fraction | int], logbase: int, digits: int) -> Decimal:
    """Σ_r c_r · ln B / ln r for rational coefficients ``{r: c_r}``, to ``digits`` significant digits
    (computed with 10 guard digits)."""
    with localcontext() as ctx:
        ctx.prec = digits + 10
        v = Decimal(0)
        for r, c in coef.items():
            if c:
                c = Fraction(c)
                v += Decimal(int(c.numerator)) / Decimal(int(c.denominator)) * _unit(logbase, r, digits)
        return +v


def log_sum_sign(coef: Mapping[int, Fraction | int], logbase: int) -> int:
    """The sign of :func:`log_sum` (0 only for the zero vector), decided at 60 then 120 digits;
    :class:`TieUndecidable` when the value stays within 10^-115 of 0."""
    if not any(coef.values()):
        return 0
    for digits in (60, 120):
        v = log_sum(coef, logbase, digits)
        if abs(v) > Decimal(10) ** (-(digits - 5)):
            return 1 if v > 0 else -1
    raise TieUndecidable(f"log base {logbase}: the coefficient vector {dict(coef)} could not be told from 0")


# --------------------------------------------------------------------------- FFF21 Fig. 2: Q(1/log2 3)


@total_ordering
@dataclass(frozen=True)
class QLog3:
    """An exact number a + b / log2(3), a and b rational.

    1/log2(3) is irrational (log2 3 = u/v would mean 3^v = 2^u), so two such numbers are equal
    iff their (a, b) are, and the sign of a + b/log2 3 is decided by one integer comparison:
    for q = u/v > 0, 1/log2 3 > q  ⇔  2^v > 3^u. This is exactly what DCG with log base 2 needs
    for N ≤ 4 (weights 1, 1, 1/log2 3, 1/2).
    """

    a: Fraction
    b: Fraction = Fraction(0)

    def __add__(self, o: "QLog3") -> "QLog3":
        return QLog3(self.a + o.a, self.b + o.b)

    def __sub__(self, o: "QLog3") -> "QLog3":
        return QLog3(self.a - o.a, self.b - o.b)

    def __neg__(self) -> "QLog3":
        return QLog3(-self.a, -self.b)

    def sign(self) -> int:
        a, b = Fraction(self.a), Fraction(self.b)
        if b == 0:
            return (a > 0) - (a < 0)
        # sign(a + b c) = sign(b) · sign(c − q) with q = −a/b, c = 1/log2 3 ∈ (0, 1)
        q = -a / b
        if q <= 0:
            s = 1
        else:
            u, v = q.numerator, q.denominator  # c > u/v ⇔ v > u·log2 3 ⇔ 2^v > 3^u
            s = 1 if 2**v > 3**u else -1
        return s if b > 0 else -s

    def __lt__(self, o: "QLog3") -> bool:
        return (self - o).sign() < 0

    def __eq__(self, o: object) -> bool:
        if not isinstance(o, QLog3):
            return NotImplemented
        return Fraction(self.a) == Fraction(o.a) and Fraction(self.b) == Fraction(o.b)

    def __hash__(self) -> int:
        return hash((Fraction(self.a), Fraction(self.b)))

    def __float__(self) -> float:
        return float(self.a) + float(self.b) / float(np.log2(3))

    def __str__(self) -> str:
        if self.b == 0:
            return str(self.a)
        irr = "1/log2(3)" if self.b == 1 else f"({self.b})/log2(3)"
        return irr if self.a == 0 else f"{self.a} + {irr}"


def qlog3_dcg(run: Sequence[int]) -> QLog3:
    """Exact DCG (log base 2, JK discount, binary gains) of a run of length N ≤ 4 as a
    :class:`QLog3`: its coefficients over u_2 = 1 and u_3 = 1/log2 3 (:func:`dcg_root_coefficients`)."""
    if len(run) > 4:
        raise ValueError(
            f"exact DCG with log base 2 is implemented for N ≤ 4 only (weights 1, 1, 1/log2 3, 1/2); got N = {len(run)}"
        )
    roots, lcm, w, _ = dcg_root_coefficients(M.DCG(base=2), len(run))
    vec = (np.asarray(run, dtype=np.int64) > 0) @ w
    c = {r: Fraction(int(x), l) for r, l, x in zip(roots, lcm, vec)}
    return QLog3(c.get(2, Fraction(0)), c.get(3, Fraction(0)))


# ------------------------------------------------------------------------- system means of DCG, nDCG


@dataclass(frozen=True)
class ExactDCG:
    """Exact DCG (``norm`` None) or nDCG scores ``(T, S)`` of one measure as integer vectors.

    The value on (topic t, system s) is ``Σ_r coef[t, s, r] / lcm[r] · u_r`` with
    ``u_r = ln logbase / ln roots[r]``, divided for nDCG by the same form of ``norm[t]`` (the ideal
    DCG of the topic). :meth:`mean_codes` orders the systems' means exactly.
    """

    coef: np.ndarray  # (T, S, R) int64
    roots: tuple[int, ...]
    lcm: tuple[int, ...]
    logbase: int
    norm: np.ndarray | None = None  # (T, R) int64

    def floats(self) -> np.ndarray:
        """The values in float64 (to check the representation against a measure's floats)."""
        u = np.array([np.log(self.logbase) / np.log(r) / l for r, l in zip(self.roots, self.lcm)])
        v = self.coef @ u
        return v if self.norm is None else v / (self.norm @ u)[:, None]

    def canonical_forms(self) -> tuple[list, list]:
        """Per system: a canonical exact form of the summed scores (equal forms ⇒ equal sums) and
        the terms to evaluate it: DCG — the integer vector Σ_t coef_t. nDCG — topics are grouped by
        the direction of their normaliser n (n = f·d, d primitive); a group's sum X = Σ_t coef_t/f_t
        over d·u is split into a rational part q = X_p/d_p (p the first non-zero entry of d) and a
        remainder X − q·d with a zero at p, so a topic where the run is ideal (nDCG = 1) or any
        other rational part ties with the same rational from any group."""
        if self.norm is None:
            tot = self.coef.sum(axis=0)
            return [tuple(int(x) for x in row) for row in tot], [[(row, None)] for row in tot]
        groups: dict[tuple, list[tuple[int, int]]] = {}
        for t, n in enumerate(self.norm):
            f = math.gcd(*(int(x) for x in n))
            groups.setdefault(tuple(int(x) // f for x in n), []).append((t, f))
        keys, terms = [], []
        for s_ in range(self.coef.shape[1]):
            q_total, rems, parts = Fraction(0), [], []
            for d, members in groups.items():
                x = [sum((Fraction(int(self.coef[t, s_, r]), f) for t, f in members), Fraction(0)) for r in range(len(d))]
                piv = next(r for r, v in enumerate(d) if v)
                q = x[piv] / d[piv]
                q_total += q
                rems.append(tuple(a - q * b for a, b in zip(x, d)))
                parts.append((x, d))
            keys.append((q_total, tuple(rems)))
            terms.append(parts)
        return keys, terms

    def _value(self, parts: list, digits: int) -> Decimal:
        dot = (lambda v: log_sum({r: Fraction(a if isinstance(a, Fraction) else int(a), l)
                                  for r, l, a in zip(self.roots, self.lcm, v)},
                                 self.logbase, digits))
        with localcontext() as ctx:
            ctx.prec = digits + 10
            return +sum((dot(x) if d is None else dot(x) / dot(d) for x, d in parts), Decimal(0))

    def mean_codes(self) -> np.ndarray:
        """Dense ranks (int64) of the systems' exact mean scores: equal codes ⇔ equal means.

        Equal canonical forms (:meth:`canonical_forms`) are equal sums; distinct forms are ordered by
        ``Decimal`` values at 50 digits, and at 120 when two are within 1e-40; a pair still within
        1e-110 raises :class:`~irscales.enumeration._runs.TieUndecidable` (distinct forms with equal
        values would need an algebraic relation among the ln m).
        """
        keys, terms = self.canonical_forms()
        index: dict = {}
        inv = np.array([index.setdefault(k, len(index)) for k in keys], dtype=np.int64)
        first = {i: terms[keys.index(k)] for k, i in index.items()}
        vals = [self._value(first[i], 50) for i in range(len(index))]
        order = sorted(range(len(index)), key=lambda i: vals[i])
        if any(vals[order[k + 1]] - vals[order[k]] <= Decimal("1e-40") for k in range(len(order) - 1)):
            fine = [self._value(first[i], 120) for i in range(len(index))]
            order = sorted(range(len(index)), key=lambda i: fine[i])
            if any(fine[order[k + 1]] - fine[order[k]] <= Decimal("1e-110") for k in range(len(order) - 1)):
                raise TieUndecidable("system means with distinct exact DCG forms could not be separated")
        rank = np.empty(len(index), np.int64)
        rank[order] = np.arange(len(index))
        return rank[inv]


def exact_dcg(m: M.DCG, rel: np.ndarray, rb: np.ndarray, N: int, floats: np.ndarray,
              ideal: np.ndarray | None = None) -> ExactDCG | None:
    """The :class:`ExactDCG` of DCG/nDCG scores ``floats`` (T, S) of runs ``rel`` (S, T, N), checked
    against the floats; None when the measure has no exact form here (non-integer base). Binary gains
    count rel > 0 and the ideal run of nDCG is min(RB, N) ones; graded gains are the grades themselves
    (integers) and nDCG needs ``ideal`` (T, ≥ N), each topic's grades in decreasing order."""
    if float(m.base) != int(m.base):
        return None
    roots, lcm, w, logbase = dcg_root_coefficients(m, N)
    graded = m.gains == "graded"
    gains = np.asarray(rel).astype(np.int64) if graded else (np.asarray(rel) > 0).astype(np.int64)
    if graded and (gains != np.asarray(rel)).any():
        raise ValueError(f"{m!r}: exact graded DCG needs integer grades")
    coef = np.einsum("stn,nr->tsr", gains, w)
    norm = None
    if m.divides_by == "ideal":
        if graded:
            if ideal is None:
                raise ValueError(f"{m!r}: exact graded nDCG needs the ideal runs (T, N)")
            best = -np.sort(-np.asarray(ideal, dtype=np.int64), axis=-1)[:, :N]
            best = np.pad(best, [(0, 0), (0, N - best.shape[1])])
        else:
            best = (np.arange(N)[None, :] < np.minimum(rb, N)[:, None]).astype(np.int64)  # min(RB, N) ones
        norm = best @ w
    ex = ExactDCG(coef, roots, lcm, logbase, norm)
    if np.abs(ex.floats() - floats).max(initial=0) > 1e-9:
        raise ArithmeticError(f"{m!r}: the exact form of its values disagrees with the measure's floats")
    return ex
