"""Certified brackets of knapsack counts: how many assignments of items sum to at most (or below) a bound
(issue 42), and φ of an additive measure from them (:func:`knapsack_phi_bounds`: the forms of
:mod:`irscales.enumeration.forms` that give a :class:`Knapsack`, read by measure in
:mod:`irscales.enumeration.bracket_additive`).

An *item* j has options o with real values v_{j,o} ≥ 0 and integer multiplicities μ_{j,o}; an assignment
picks one option per item and weighs Π μ. For a bound m we want

    F_≤(m) = Σ_{assignments, V ≤ m} Π μ,   F_<(m) = Σ_{V < m} Π μ,   V = Σ_j v_{j,o_j},

the runs (or distinct values) of an additive measure up to and below a run's value. Counting them
exactly is #P-hard (counting knapsack solutions); Dyer (STOC 2003) brackets them by rounding the
weights to a grid and counting the rounded problem exactly by dynamic programming, and Štefankovič,
Vempala and Vigoda (SIAM J. Comput. 41(2), 2012) make the rounding deterministic with an a-priori
(1 + ε) guarantee. We use Dyer's rounding with an *a-posteriori* certificate: both sides are proven
bounds, and the grid is refined until they are within the relative error asked for.

**The bracket (proof).** Take a grid width δ > 0 and, per option, a value interval v⁻ ≤ v ≤ v⁺ (exact
rationals or outward-rounded logarithms, see below). Put A_{j,o} = ⌈v⁺/δ⌉ and B_{j,o} = ⌊v⁻/δ⌋
(integers), so Σ B·δ ≤ V ≤ Σ A·δ for every assignment, and let the bound be known as m⁻ ≤ m ≤ m⁺.

* lower, ≤: if Σ A ≤ ⌊x/δ⌋ with x ≤ m⁻ − S_T then V ≤ Σ A δ + S_T ≤ m: every assignment counted by the
  rounded-up problem is a solution (S_T bounds the *tail* items, below).
* upper, ≤: if V ≤ m then Σ B δ ≤ V ≤ m⁺, and Σ B is an integer, so Σ B ≤ ⌊m⁺/δ⌋.
* strict: Σ A ≤ ⌈x/δ⌉ − 1 gives Σ A δ < x, so V < m; V < m gives Σ B δ < m⁺, i.e. Σ B ≤ ⌈m⁺/δ⌉ − 1.

So #{Σ A ≤ a} ≤ F(m) ≤ #{Σ B ≤ b}, and both are counted exactly as prefix sums of the distribution of
an integer-weighted sum: d ← Σ_o μ_o·shift(d, A_o), one item at a time, truncated at K = R/δ (a sum above
K never comes back below). **Tail items** (the smallest, whose maxima sum to S_T ≤ δ: RBP's deep ranks,
weighing down to 1e-97 at N = 1000) are not rounded: every tail assignment is allowed in the lower count
with the capacity lowered by S_T, and in the upper count at no cost; their Π Σ μ multiplies both.
Options worth more than R ≥ m⁺ are in no solution and are dropped from both.

The relative width: the two rounded problems differ by at most (n + 1)δ in the argument of F, so for
a bound in [R/2, R] the bracket closes like F(m ± n·R·2^{−e}) with δ = R·2^{−e}; :func:`count_bounds`
starts at ``bits`` = e and adds bits for the bounds still wider than asked.

**Exactness of the arithmetic.** δ = 2^k, so v/δ and m/δ are exact in float64 and ⌊·⌋, ⌈·⌉ exact;
value bounds are outward-rounded floats (:func:`outward`). m⁻ − S_T is rounded down by one step of
``nextafter`` after the (correctly rounded) subtraction. Counts are float64: each entry of the
distribution is a sum of products of non-negative terms, each passing through at most
a = Σ_j (n_j + 1) + K + 1 roundings (n_j options, a product and an addition each, then the prefix
sum), so the computed value c̃ and the exact one c satisfy c(1 − u)^a ≤ c̃ ≤ c(1 + u)^a, u = 2^−53. The head's
counts are summed scaled by 2^−S, S = max(0, bits − 1000) for a head total below 2^bits (:data:`MAX_LOG2_COUNT`
bits at most: binary DCG at N = 1000 has 2^1000 runs exactly, issue 51): a power of two, so the scaled problem's
arithmetic is the unscaled one's shifted, every entry is 0 or an integer ≥ 1 times 2^−S ≥ 2^−1000 (never
subnormal) and at most 2^1000 (far below the overflow at 2^1024). Hence c ≥ 2^S·c̃(1 − a·u) and
c ≤ 2^S·c̃ / (1 − a·u) (Bernoulli), taken in exact rational arithmetic and rounded inwards to integers.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Callable, Protocol, Sequence

import numpy as np

from irscales.enumeration.ties import check_ties
from irscales.exact import to_fraction
from irscales.options import DEFAULT_MAX_REL_ERROR, UNQ
from irscales._progress import bar

__all__ = ["Item", "Knapsack", "count_bounds", "knapsack_phi_bounds"]

UNIT_ROUNDOFF = Fraction(1, 2**53)
#: Finest grid: K = 2^MAX_BITS cells (at most three float64 arrays of 8·2^MAX_BITS bytes while counting: 384 MB, within
#: the 512 MB of one AP pass; 24 bits bring binary nDCG@1000 on TREC-8 from 1.7 % to within 1 %, issue 51).
MAX_BITS = 24
#: Counts are float64 while summed, scaled by 2^−S so that every head count stays below 2^1000 (module doc): the
#: head's total must stay below 2^MAX_LOG2_COUNT (binary DCG at N = 1000 reaches 2^1000 exactly, issue 51).
MAX_LOG2_COUNT = 2000
#: The deepest N a knapsack bracket is offered at beyond its own limits (binary nDCG/DCG at N = 1000 measured on TREC-8,
#: docs/benchmarks.md).
KNAPSACK_MAX_N = 1020
#: Counts are summed scaled into [2^−S, 2^FLOAT_LOG2_COUNT] (and geometric weights kept above 2^−(FLOAT_LOG2_COUNT − 40),
#: :mod:`irscales.enumeration.forms.geometric`): far from float64's overflow (2^1024) and, S ≤ 1000, from
#: its subnormals (2^−1022).
FLOAT_LOG2_COUNT = 1000
#: Seconds per cell and option of a grid (numpy shifted adds on the 2-core machine), for a bracket's cost.
SECONDS_PER_CELL = 1.5e-9


def outward(x: Fraction | Decimal | int) -> tuple[float, float]:
    """Floats lo ≤ x ≤ hi around an exact rational (or a ``Decimal`` accurate to far below one float
    ulp, as :mod:`irscales.enumeration._dcg`'s logarithms at 50 digits): the nearest double (Python's
    conversions of ``Fraction`` and ``Decimal`` round correctly) widened by two ulps each way; 0 stays 0."""
    if x == 0:
        return 0.0, 0.0
    f = float(x)
    down, up = math.nextafter(f, -math.inf), math.nextafter(f, math.inf)
    return math.nextafter(down, -math.inf), math.nextafter(up, math.inf)


@dataclass(frozen=True)
class Item:
    """One item of the knapsack: option values within [lo, hi] (float64, ≥ 0) and multiplicities ``mult``
    (positive ints, e.g. the grade assignments of a DCG class giving one coefficient)."""

    lo: np.ndarray
    hi: np.ndarray
    mult: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.mult)

    @classmethod
    def of(cls, values: Sequence, mult: Sequence[int] | None = None) -> "Item":
        """The item whose options are the exact ``values`` (Fractions, ints or 50-digit Decimals), each within
        its :func:`outward` floats, with multiplicities ``mult`` (default 1 each)."""
        b = [outward(v) for v in values]
        return cls(np.array([x for x, _ in b]), np.array([y for _, y in b]), tuple(mult or [1] * len(values)))


@dataclass(frozen=True)
class Bounds:
    """Bounds of F_≤ and F_< per query (Python ints): le_lo ≤ F_≤ ≤ le_hi, lt_lo ≤ F_< ≤ lt_hi, and the
    grid bits each query needed (0: decided without a grid)."""

    le_lo: list[int]
    le_hi: list[int]
    lt_lo: list[int]
    lt_hi: list[int]
    bits: list[int]


def _floor_div(x: float, delta: float) -> int:
    return math.floor(x / delta)  # δ a power of two: the quotient is exact


def _ceil_div(x: float, delta: float) -> int:
    return math.ceil(x / delta)


def _sum_up(xs: Sequence[float]) -> float:
    """An upper bound of the exact sum of floats: the correctly rounded sum (``math.fsum``) one step up."""
    s = math.fsum(xs)
    return math.nextafter(s, math.inf) if s else 0.0


def _distribution(shifts: list[tuple[np.ndarray, list[int]]], K: int, scale: int = 0) -> tuple[np.ndarray, int]:
    """d[k] = 2^−scale · Σ over assignments with Σ shift = k of Π μ, k = 0..K (float64), and the roundings per
    entry (the scale is a power of two: exact)."""
    d = np.zeros(K + 1)
    d[0] = math.ldexp(1.0, -scale)
    ops = 0
    for s, mu in shifts:
        new = np.zeros(K + 1)
        for k, m in zip(s.tolist(), mu):
            if k > K:
                continue
            if m == 1:
                new[k:] += d[: K + 1 - k]
            else:
                new[k:] += float(m) * d[: K + 1 - k]
        d = new
        ops += len(mu) + 1
    return d, ops


def _merge(keys: np.ndarray, mult: Sequence[int]) -> tuple[np.ndarray, list[int]]:
    """Options with equal integer shifts added up (exact int multiplicities): fewer passes, fewer roundings."""
    acc: dict[int, int] = {}
    for k, m in zip(keys.tolist(), mult):
        acc[k] = acc.get(k, 0) + m
    ks = sorted(acc)
    return np.array(ks, dtype=np.int64), [acc[k] for k in ks]


def _low(c: float, a: int, scale: int = 0) -> int:
    return max(0, math.ceil(Fraction(c) * 2**scale * (1 - a * UNIT_ROUNDOFF))) if c > 0 else 0


def _high(c: float, a: int, scale: int = 0) -> int:
    return math.floor(Fraction(c) * 2**scale / (1 - a * UNIT_ROUNDOFF))


def _group(items: Sequence[Item], R: float, bits: int, m_lo: np.ndarray, m_hi: np.ndarray
           ) -> tuple[list[int], list[int], list[int], list[int]]:
    """Bounds for queries with every m⁺ ≤ R = 2^E on the grid δ = R·2^−bits (module doc)."""
    delta = math.ldexp(R, -bits)
    K = 1 << bits
    factor = 1  # items left with zero-valued options only
    live: list[tuple[float, np.ndarray, np.ndarray, list[int]]] = []
    for it in items:
        keep = it.lo <= R
        mult = [m for m, k in zip(it.mult, keep) if k]
        if not mult:
            return [0] * len(m_lo), [0] * len(m_lo), [0] * len(m_lo), [0] * len(m_lo)
        lo, hi = it.lo[keep], it.hi[keep]
        if not hi.any():
            factor *= sum(mult)
            continue
        live.append((float(hi.max()), lo, hi, mult))
    live.sort(key=lambda t: t[0])
    tail, s_tail, n_tail = 1, 0.0, 0
    while n_tail < len(live) and _sum_up([s_tail, live[n_tail][0]]) <= delta:
        s_tail = _sum_up([s_tail, live[n_tail][0]])
        tail *= sum(live[n_tail][3])
        n_tail += 1
    head = live[n_tail:]
    bits = math.prod(sum(t[3]) for t in head).bit_length()  # the head's total is below 2^bits
    if bits > MAX_LOG2_COUNT:
        raise OverflowError(f"the bracket's head counts reach 2^{bits - 1}, over 2^{MAX_LOG2_COUNT} (the scaled "
                            "float64 range)")
    S = max(0, bits - FLOAT_LOG2_COUNT)
    PA, opsA = _distribution([_merge(np.ceil(hi / delta).astype(np.int64), mult) for _, _, hi, mult in head], K, S)
    np.cumsum(PA, out=PA)  # in place: at most three arrays of K + 1 floats at once
    PB, opsB = _distribution([_merge(np.floor(lo / delta).astype(np.int64), mult) for _, lo, _, mult in head], K, S)
    np.cumsum(PB, out=PB)
    a = max(opsA, opsB) + K + 2
    scale = factor * tail
    out: tuple[list[int], ...] = ([], [], [], [])
    for lo_, hi_ in zip(m_lo.tolist(), m_hi.tolist()):
        x = lo_ if s_tail == 0 else math.nextafter(lo_ - s_tail, -math.inf)
        ia_le, ia_lt = min(K, _floor_div(x, delta)), min(K, _ceil_div(x, delta) - 1)
        ib_le, ib_lt = min(K, _floor_div(hi_, delta)), min(K, _ceil_div(hi_, delta) - 1)
        out[0].append(scale * _low(PA[ia_le], a, S) if ia_le >= 0 else 0)
        out[1].append(scale * _high(PB[ib_le], a, S) if ib_le >= 0 else 0)
        out[2].append(scale * _low(PA[ia_lt], a, S) if ia_lt >= 0 else 0)
        out[3].append(scale * _high(PB[ib_lt], a, S) if ib_lt >= 0 else 0)
    return out  # type: ignore[return-value]


def exact_counts(items: Sequence[Item], exact: Sequence[Sequence], add: Callable, zero, sign: Callable,
                 m_lo: float, m_hi: float, m_exact, budget: int = 200_000) -> tuple[int, int] | None:
    """F_≤(m) and F_<(m) exactly by depth-first search, or None past ``budget`` nodes: for the queries whose
    counts are too small for a grid to resolve (a few runs below; 1 % of 100 is one run).

    Items go by decreasing largest value; a partial assignment whose value interval (outward-rounded float
    sums) already exceeds m⁺ counts nothing, one whose largest completion is below m⁻ counts every completion
    (Π Σ μ of the rest, exact); the rest branch, and a complete assignment whose interval contains m is decided
    by ``sign(add(...), m_exact)`` on the exact values (``exact[j][o]``, summed from ``zero`` with ``add``)."""
    order = sorted(range(len(items)), key=lambda j: -float(items[j].hi.max()))
    its = [items[j] for j in order]
    exs = [exact[j] for j in order]
    n = len(its)
    rest_hi = [0.0] * (n + 1)
    rest_total = [1] * (n + 1)
    for j in range(n - 1, -1, -1):
        rest_hi[j] = _sum_up([rest_hi[j + 1], float(its[j].hi.max())])
        rest_total[j] = rest_total[j + 1] * its[j].total
    le = lt = 0
    nodes = 0
    stack = [(0, 0.0, 0.0, zero, 1)]
    while stack:
        j, s_lo, s_hi, acc, w = stack.pop()
        nodes += 1
        if nodes > budget:
            return None
        if s_lo > m_hi:
            continue
        top = _sum_up([s_hi, rest_hi[j]])
        if top < m_lo:
            le += w * rest_total[j]
            lt += w * rest_total[j]
            continue
        if j == n:
            if s_hi < m_lo:
                le, lt = le + w, lt + w
            else:
                sg = sign(acc, m_exact)
                le += w if sg <= 0 else 0
                lt += w if sg < 0 else 0
            continue
        it, ex = its[j], exs[j]
        for lo, hi, mu, x in zip(it.lo.tolist(), it.hi.tolist(), it.mult, ex):
            nlo = math.nextafter(s_lo + lo, -math.inf) if lo else s_lo
            if nlo > m_hi:
                continue
            nhi = math.nextafter(s_hi + hi, math.inf) if hi else s_hi
            stack.append((j + 1, nlo, nhi, add(acc, x), w * mu))
    return le, lt


def count_bounds(items: Sequence[Item], m_lo: np.ndarray, m_hi: np.ndarray, *, rel_error: float = DEFAULT_MAX_REL_ERROR,
                 bits: int = 12, step: int = 3, max_bits: int = MAX_BITS,
                 tight: Callable[[int, int, int, int], bool] | None = None,
                 exact: Callable[[int], tuple[int, int] | None] | None = None, exact_below: int = 2000,
                 progress: bool | None = None) -> Bounds:
    """Bounds of F_≤(m) and F_<(m) (module doc) for bounds m known as m_lo ≤ m ≤ m_hi (float64 arrays).

    Queries are grouped by R = the power of two at or above m_hi; each group is counted on the grid
    δ = R·2^−``bits``, and the queries whose bracket is not yet tight — ``tight(le_lo, le_hi, lt_lo, lt_hi)``,
    by default le_hi ≤ (1 + rel_error)·le_lo and the same for lt — are counted again with ``step`` more bits,
    the last step up to ``max_bits`` exactly; what is still wide then is returned as it is (valid, wider). A query's
    grids follow one ladder whatever the target and it keeps the tightest bounds of all, so a tighter target never
    ends wider (monotone, issue 51). A query not yet tight
    whose upper count is at most ``exact_below`` is counted exactly by ``exact(q)`` → (F_≤, F_<) (e.g.
    :func:`exact_counts`; None: over its budget, refine instead). A bound m⁺ ≤ 0 is
    decided exactly: the assignments of value 0 (options with v⁺ = 0) up to it, none below it.
    """
    m_lo, m_hi = np.asarray(m_lo, dtype=float), np.asarray(m_hi, dtype=float)
    n = len(m_lo)
    total = math.prod(it.total for it in items)
    zero = math.prod(sum(m for m, h in zip(it.mult, it.hi) if h == 0) for it in items)
    s_all = _sum_up([float(it.hi.max()) for it in items])
    rel = to_fraction(rel_error)  # the one reading of a number as a rational: 0.01 is 1/100
    if tight is None:
        def tight(a: int, b: int, c: int, d: int) -> bool:
            return b <= (1 + rel) * a and d <= (1 + rel) * c
    res = Bounds([0] * n, [total] * n, [0] * n, [total] * n, [0] * n)
    todo: dict[tuple[int, int], list[int]] = {}
    for q in range(n):
        if m_hi[q] <= 0:
            res.le_lo[q] = res.le_hi[q] = zero if m_lo[q] >= 0 else 0
            res.lt_lo[q] = res.lt_hi[q] = 0
        elif m_lo[q] >= s_all:  # every assignment is ≤ m; strictly below when m_lo > s_all
            res.le_lo[q] = res.le_hi[q] = total
            res.lt_lo[q] = total if m_lo[q] > s_all else 0
        else:
            todo.setdefault((math.frexp(m_hi[q])[1], bits), []).append(q)
    with bar(len(todo), "bracket", progress, unit="grid", delay=2.0) as pb:
        while todo:
            (E, b), qs = todo.popitem()
            got = _group(items, math.ldexp(1.0, E), b, m_lo[qs], m_hi[qs])
            again = []
            for q, a_, b_, c_, d_ in zip(qs, *got):
                res.le_lo[q], res.le_hi[q] = max(res.le_lo[q], a_), min(res.le_hi[q], b_)
                res.lt_lo[q], res.lt_hi[q] = max(res.lt_lo[q], c_), min(res.lt_hi[q], d_)
                res.bits[q] = b
                if tight(res.le_lo[q], res.le_hi[q], res.lt_lo[q], res.lt_hi[q]):
                    continue
                counted = exact(q) if exact is not None and res.le_hi[q] <= exact_below else None
                if counted is not None:
                    res.le_lo[q] = res.le_hi[q] = counted[0]
                    res.lt_lo[q] = res.lt_hi[q] = counted[1]
                    continue
                if not tight(res.le_lo[q], res.le_hi[q], res.lt_lo[q], res.lt_hi[q]) and b < max_bits:
                    again.append(q)
            if again:  # the last step only as far as the cap (12, 15, 18, 21, then 23: not stopped at 21)
                todo[(E, min(b + step, max_bits))] = again
                pb.total += 1
            pb.update(1)
    return res


# ------------------------------------------------------------------------------------ φ of an additive measure


class Knapsack(Protocol):
    """The counting knapsack of an additive measure M(r) = Σ_i w_i·g(r_i) over grades 0..c, as a form gives it
    (:meth:`irscales.enumeration.forms.Form.knapsack`): runs up to / below M(r) are F_≤ / F_< of one item per
    rank with options g·w_i; where ties ``unq`` count distinct values that are not runs (``distinct(t)``), of one
    item per class of ranks with its distinct coefficients as options."""

    graded: bool  # the runs are read as grades 0..c (else rel > 0)
    bits: int  # the first grid's bits

    def depth(self, c: int, ties: str | None) -> tuple[float, str]:
        """The deepest N bracketed over grades 0..c with ``ties`` (None: every strategy), and why not further."""

    def cost(self, N: int, c: int, ties: str, n_runs: int) -> tuple[float, int]:
        """Rough (seconds, bytes) of bracketing ``n_runs`` runs."""

    def k(self, N: int, c: int, ties: str) -> int:
        """K, the size of φ's range with ``ties`` (exact)."""

    def conditional(self, ties: str) -> bool:
        """Whether φ with ``ties`` is exact only under a conjecture (distinct values counted as tuples)."""

    def distinct(self, ties: str) -> bool:
        """Whether φ with ``ties`` counts distinct values on their own knapsack (not runs)."""

    def items(self, N: int, c: int, distinct: bool) -> tuple[Item, ...]:
        """The items, per rank (runs) or per class (``distinct``)."""

    def values(self, rows: np.ndarray, N: int) -> tuple[np.ndarray, np.ndarray]:
        """Outward float bounds of each run's exact value (rows of grades, shape (n, L ≤ N))."""

    def exact_counter(self, N: int, c: int, distinct: bool, items, rows: np.ndarray, lo_v: np.ndarray,
                      hi_v: np.ndarray) -> Callable[[int], tuple[int, int] | None]:
        """q → exact (up to, below) for the value of run ``rows[q]`` (:func:`exact_counts`)."""


def tie_bounds(res: Bounds, ties: str) -> tuple[list, list]:
    """φ's bounds from the bounds of runs (or values) up to and below: unq/max = up to, min = 1 + below, mid =
    their mean (exact halves); at least 1 (the run itself has its value)."""
    if ties in (UNQ, "max"):
        lo, hi = res.le_lo, res.le_hi
    elif ties == "min":
        lo, hi = [x + 1 for x in res.lt_lo], [x + 1 for x in res.lt_hi]
    else:
        lo = [Fraction(a + 1 + b, 2) for a, b in zip(res.lt_lo, res.le_lo)]
        hi = [Fraction(a + 1 + b, 2) for a, b in zip(res.lt_hi, res.le_hi)]
    return [max(x, 1) for x in lo], hi


def knapsack_phi_bounds(ks: Knapsack, label: str, rel, ties: tuple[str, ...], *, N: int, c: int, rel_error: float,
                        progress: bool | None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """tie → (lo, hi), proven bounds on φ (FFF21 eq. 2, §7.1.3) of runs ``rel`` (…, L ≤ N; ranks L+1..N not
    relevant) of the additive measure ``label`` whose knapsack is ``ks``, refined until hi ≤ (1 + rel_error)·lo
    where the grid allows (:data:`MAX_BITS`; beyond, valid but wider, with a ``RuntimeWarning``). One count of runs
    serves min, max and mid (and unq where values are runs), one count of distinct values the rest. Object arrays
    with the leading shape of ``rel``: Python ints, for ``mid`` exact halves."""
    for t in ties:
        check_ties(t)
    rel = np.asarray(rel)
    if rel.ndim == 0 or not 1 <= rel.shape[-1] <= N:
        raise ValueError(f"phi_bounds: runs must have shape (..., L) with 1 ≤ L ≤ N={N}, got {rel.shape}")
    shape, L = rel.shape[:-1], rel.shape[-1]
    g = rel.reshape(-1, L)
    if ks.graded and g.size and (g.min() < 0 or g.max() > c or not np.array_equal(g, np.round(g))):
        raise ValueError(f"phi_bounds: {label} over grades 0..{c} needs integer grades in 0..{c}, "
                         f"found {g.min()}..{g.max()}")
    g = g.astype(np.int64) if ks.graded else (g > 0).astype(np.int64)  # binary measures read rel > 0
    uniq, inv = np.unique(g, axis=0, return_inverse=True)
    lo_v, hi_v = ks.values(uniq, N)
    rel_f = to_fraction(rel_error)  # the one reading of a number as a rational: 0.01 is 1/100
    counts: dict[bool, Bounds] = {}
    out = {}
    for t in ties:
        distinct = ks.distinct(t)
        if distinct not in counts:
            strict = not distinct and any(x in ("min", "mid") for x in ties)

            def tight(a: int, b: int, c_: int, d: int, strict: bool = strict) -> bool:
                return b <= (1 + rel_f) * a and (not strict or d + 1 <= (1 + rel_f) * (c_ + 1))

            items = ks.items(N, c, distinct)
            exact = ks.exact_counter(N, c, distinct, items, uniq, lo_v, hi_v)
            counts[distinct] = count_bounds(items, lo_v, hi_v, rel_error=rel_error, bits=ks.bits, max_bits=MAX_BITS,
                                            tight=tight, exact=exact, progress=progress)
        lo, hi = tie_bounds(counts[distinct], t)
        wide = sum(h > (1 + rel_f) * x for x, h in zip(lo, hi))
        if wide:
            warnings.warn(f"phi_bounds: {label} at N={N} ({t}): {wide} of {len(lo)} distinct runs keep a bracket wider "
                          f"than rel_error={rel_error} at the finest grid (2^{MAX_BITS} cells); their bounds are valid "
                          "but wider", RuntimeWarning, stacklevel=2)
        out_lo, out_hi = np.empty(len(uniq), dtype=object), np.empty(len(uniq), dtype=object)
        out_lo[:], out_hi[:] = lo, hi
        out[t] = out_lo[inv.ravel()].reshape(shape), out_hi[inv.ravel()].reshape(shape)
    return out
