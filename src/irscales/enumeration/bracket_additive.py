"""φ of additive measures at any cut-off, bracketed with a proven relative error (issue 42): RBP and graded
RBP with rational p, DCG and nDCG (JK discount with an integer base, or trec_eval's 1/log2(i + 1)) with
binary or graded gains.

An additive measure is M(r) = Σ_i w_i·g(r_i) with w_i > 0, so FFF21 eq. (2) and §7.1.3 need only

* runs up to / below M(r): #{x ∈ {0..c}^N : Σ_i w_i g(x_i) ≤ M(r)} (and <) — a counting knapsack, one
  item per rank with options g·w_i (multiplicity 1); φ_max = up to, φ_min = 1 + below, φ_mid their mean;
* distinct values up to M(r) (φ_unq):
  - RBP with p = a/b and graded RBP with b > c have no ties at any N (proof in
    :mod:`irscales.enumeration.counting`), so φ_unq = runs up to M(r) and K = (c + 1)^N;
  - DCG/nDCG: rank i weighs u_m/k with i (JK) or i + 1 (log2p1) = m^k, m no perfect power, u_m = ln B / ln m
    (:func:`irscales.enumeration.dcg.rank_classes`). A run's value is Σ_m q_m·u_m with one rational class
    coefficient q_m = Σ_{ranks of m} g_i/k_i. Runs with equal coefficient tuples tie; distinct tuples
    differ in value unless the u_m (the 1/ln m) are linearly dependent over Q — impossible if Schanuel's
    conjecture holds, not proven (the caveat of :mod:`irscales.interval`). So φ_unq = #{coefficient tuples
    with value ≤ M(r)}: the same knapsack with one item per class, whose options are the class's distinct
    coefficients (multiplicity 1), and K = Π_m #coefficients of class m (exact).

Each count is bracketed by :func:`irscales.enumeration.bracket.count_bounds` (Dyer's rounding, proven bounds,
refined until hi ≤ (1 + rel_error)·lo). Values are compared soundly: RBP's weights p^{i−1} and a run's
value are exact rationals, the logarithms of DCG are evaluated in ``Decimal`` at 50 digits (correctly
rounded ln; a sum of N terms is then accurate to ~N·10^−49, far below one float64 ulp) and widened outwards
(:func:`irscales.enumeration.bracket.outward`).
"""
from __future__ import annotations

import math
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache

import numpy as np

from irscales import measures as M
from irscales.enumeration.bracket import MAX_BITS, MAX_LOG2_COUNT, Bounds, Item, count_bounds, exact_counts, outward
from irscales.enumeration.dcg import log_sum_sign, rank_classes
from irscales.enumeration.runs import numerator
from irscales.enumeration.ties import TIES
from irscales.exact import to_fraction
from irscales.options import DEFAULT_MAX_REL_ERROR, DEFAULT_TIES, UNQ

__all__ = ["bracket_depth", "bracket_cost", "phi_bounds", "phi_bounds_ties", "k_bounds"]

_DIGITS = 50
# Seconds per cell and option of a grid (numpy shifted adds on the 2-core machine), for bracket_cost.
_SECONDS_PER_CELL = 1.5e-9


def _parsed(measure: M.Measure | str, N: int | None = None) -> M.Measure:
    """The measure, with a cut-off ``@k`` (``nDCG@20``) read as the measure itself at N = k."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    if m.uncut is not m:  # cut at k ranks: the uncut measure over REL^k (irscales.interval.scale_target)
        if N is not None and N != m.k:
            raise ValueError(f"{m.key} is the measure at N={m.k}, not N={N} (its ranks beyond {m.k} never count)")
        return m.uncut
    return m


def _kind(m: M.Measure, c: int) -> str:
    """'rbp', 'grbp', 'dcg' or '' (not bracketed here), from the numerator's declarations: ``form``
    "geometric" without grades (RBP, binary runs only) or with them (gRBP), "discounted" (DCG) with an integer
    log base ≥ 2 (log2p1's is 2) and grades read or binary runs."""
    num = numerator(m)
    if num.form == "geometric":
        return "grbp" if num.reads_grades else ("rbp" if c == 1 else "")
    if num.form == "discounted" and float(num.base) == int(num.base) and int(num.base) >= 2 \
            and (num.reads_grades or c == 1):
        return "dcg"
    return ""


def bracket_depth(measure: M.Measure | str, c: int = 1, ties: str | None = None) -> tuple[float, str]:
    """The deepest N at which φ of ``measure`` over grades 0..c is bracketed here (``math.inf``: any N), and
    why not further; 0 when it is not an additive measure handled here."""
    m = _parsed(measure)
    kind = _kind(m, c)
    if not kind:
        return 0, (f"no bracket for {m!r} over grades 0..{c} (bracketed: RBP over binary runs, gRBP, DCG/nDCG with "
                   "an integer base and JK or log2p1 discount, binary gains over binary runs or graded gains)")
    if kind in ("rbp", "grbp"):
        p = to_fraction(numerator(m).p)
        if kind == "grbp" and ties in (None, UNQ) and p.denominator <= c:
            return 0, f"graded RBP with p = {p} ties over grades 0..{c}: distinct values are not runs"
        depth = int(1 + (MAX_LOG2_COUNT - 40) / -math.log2(p)) if p < 1 else 0
        return depth, (f"weights p^(i−1) must stay normal float64 numbers with 40 bits of grid below them "
                       f"(p^(N−1) ≥ 2^−{MAX_LOG2_COUNT - 40})")
    depth = int(MAX_LOG2_COUNT / math.log2(c + 1))
    return depth, f"counts are summed in float64: (c + 1)^N < 2^{MAX_LOG2_COUNT}"


def bracket_cost(measure: M.Measure | str, N: int, c: int = 1, ties: str = DEFAULT_TIES, n_runs: int = 1
                 ) -> tuple[float, int]:
    """(seconds, bytes) expected for :func:`phi_bounds` on ``n_runs`` runs: a few grids per power of two of
    the run values (about a dozen on real runs), each (items × options × 2^bits) shifted adds."""
    m = _parsed(measure, N)
    kind = _kind(m, c)
    if kind in ("rbp", "grbp"):
        cells = 80 * (c + 1) * 2**16 * 2  # the head: ranks down to the grid width; 2^16 cells typical
        grids = min(n_runs, 40)
    else:
        if ties == UNQ:
            opts = sum(len(v) for v in _class_values(*_dcg_key(m), N, c))
        else:
            opts = N * (c + 1)
        cells = opts * 2**18 * 2
        grids = min(n_runs, 12)
    return grids * cells * _SECONDS_PER_CELL + n_runs * 2e-4, 4 * 8 * 2**MAX_BITS  # four float arrays at worst


# ------------------------------------------------------------------------------------ items and values


def _dcg_key(m: M.Measure) -> tuple[str, int]:
    num = numerator(m)
    return num.discount, int(num.base)


@lru_cache(maxsize=8)
def _rank_weights(discount: str, base: int, N: int) -> tuple[tuple[int, int], ...]:
    return tuple(rank_classes(M.DCG(base=base, discount=discount), N)[0])


@lru_cache(maxsize=256)
def _unit(logbase: int, m: int) -> Decimal:
    """u_m = ln B / ln m at :data:`_DIGITS` digits (1 exactly for m = B)."""
    if m == logbase:
        return Decimal(1)
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        return Decimal(logbase).ln() / Decimal(m).ln()


def _logbase(discount: str, base: int) -> int:
    return 2 if discount == "log2p1" else base


def _rank_decimals(discount: str, base: int, N: int) -> list[Decimal]:
    """w_i = u_m / k per rank at :data:`_DIGITS` digits."""
    B = _logbase(discount, base)
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        return [_unit(B, m) / k for m, k in _rank_weights(discount, base, N)]


@lru_cache(maxsize=16)
def _class_values(discount: str, base: int, N: int, c: int) -> tuple[tuple[int, tuple[Fraction, ...]], ...]:
    """Per class root m: the distinct coefficients q = Σ g_i/k_i over its ranks and grades 0..c, sorted."""
    by_root: dict[int, list[int]] = {}
    for m, k in _rank_weights(discount, base, N):
        by_root.setdefault(m, []).append(k)
    out = []
    for m, ks in by_root.items():
        vals = {Fraction(0)}
        for k in ks:
            vals = {v + Fraction(g, k) for v in vals for g in range(c + 1)}
        out.append((m, tuple(sorted(vals))))
    return tuple(out)


def _item(values: list, mult: list[int] | None = None) -> Item:
    b = [outward(v) for v in values]
    return Item(np.array([x for x, _ in b]), np.array([y for _, y in b]), tuple(mult or [1] * len(values)))


@lru_cache(maxsize=16)
def _items(kind: str, key: tuple, N: int, c: int, distinct: bool) -> tuple[Item, ...]:
    """The knapsack of the measure at N over grades 0..c: per rank (runs) or per DCG class (distinct values)."""
    if kind in ("rbp", "grbp"):
        p = key[0]
        return tuple(_item([g * p**i for g in range(c + 1)]) for i in range(N))
    discount, base = key
    if distinct:
        B = _logbase(discount, base)
        with localcontext() as ctx:
            ctx.prec = _DIGITS
            return tuple(_item([Decimal(q.numerator) / Decimal(q.denominator) * _unit(B, m) for q in qs])
                         for m, qs in _class_values(discount, base, N, c))
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        return tuple(_item([g * w for g in range(c + 1)]) for w in _rank_decimals(discount, base, N))


def _key(m: M.Measure, kind: str) -> tuple:
    return (to_fraction(numerator(m).p),) if kind in ("rbp", "grbp") else _dcg_key(m)


def _values(kind: str, key: tuple, g: np.ndarray, N: int) -> tuple[np.ndarray, np.ndarray]:
    """Outward float bounds of each run's exact value (rows of grades ``g``, shape (n, L))."""
    L = g.shape[1]
    lo, hi = np.empty(len(g)), np.empty(len(g))
    if kind in ("rbp", "grbp"):
        a, b = key[0].numerator, key[0].denominator
        coef = [a**i * b ** (L - 1 - i) for i in range(L)]  # Σ g_i p^(i−1) = Σ g_i a^(i−1) b^(L−i) / b^(L−1)
        den = b ** (L - 1)
        for r, row in enumerate(g):
            nz = np.flatnonzero(row)
            lo[r], hi[r] = outward(Fraction(sum(int(row[i]) * coef[i] for i in nz), den))
        return lo, hi
    w = _rank_decimals(*key, N)[:L]
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        for r, row in enumerate(g):
            nz = np.flatnonzero(row)
            lo[r], hi[r] = outward(sum((int(row[i]) * w[i] for i in nz), Decimal(0)))
    return lo, hi


def _exact_options(kind: str, key: tuple, N: int, c: int, distinct: bool) -> list[list]:
    """The options of :func:`_items` as exact values: RBP as integers Σ g·a^i·b^(N−1−i) (the value times
    b^(N−1)), DCG as (class root, coefficient) pairs."""
    if kind in ("rbp", "grbp"):
        a, b = key[0].numerator, key[0].denominator
        return [[g * a**i * b ** (N - 1 - i) for g in range(c + 1)] for i in range(N)]
    if distinct:
        return [[(m, q) for q in qs] for m, qs in _class_values(*key, N, c)]
    return [[(m, Fraction(g, k)) for g in range(c + 1)] for m, k in _rank_weights(*key, N)]


def _add_coefficient(acc: dict, x: tuple[int, Fraction]) -> dict:
    if not x[1]:
        return acc
    out = dict(acc)
    out[x[0]] = out.get(x[0], 0) + x[1]
    return out


def _exact_counter(kind: str, key: tuple, N: int, c: int, distinct: bool, items, rows: np.ndarray,
                   lo_v: np.ndarray, hi_v: np.ndarray):
    """q → exact (runs or values up to, below) the value of run ``rows[q]`` (:func:`bracket.exact_counts`)."""
    options = _exact_options(kind, key, N, c, distinct)
    if kind in ("rbp", "grbp"):
        zero, add = 0, (lambda s, x: s + x)

        def target(row: np.ndarray):
            return sum(int(row[i]) * options[i][1] for i in np.flatnonzero(row))

        def sign(s, t):
            return (s > t) - (s < t)
    else:
        B = _logbase(*key)
        zero, add = {}, _add_coefficient
        ranks = _rank_weights(*key, N)

        def target(row: np.ndarray):
            t: dict = {}
            for i in np.flatnonzero(row):
                t = _add_coefficient(t, (ranks[i][0], Fraction(int(row[i]), ranks[i][1])))
            return t

        def sign(s, t):
            return log_sum_sign({r: s.get(r, 0) - t.get(r, 0) for r in set(s) | set(t)}, B)
    return lambda q: exact_counts(items, options, add, zero, sign, float(lo_v[q]), float(hi_v[q]), target(rows[q]))


# ------------------------------------------------------------------------------------------- interface


def k_bounds(measure: M.Measure | str, N: int, c: int = 1, ties: str = DEFAULT_TIES) -> tuple[int, int]:
    """K of the interval value (φ − 1)/(K − 1): the number of distinct values (``unq``) or of runs
    (min/max/mid), exact (lo = hi): (c + 1)^N runs; RBP/gRBP without ties have as many values; DCG has
    Π_m #(distinct coefficients of class m) (distinct under Schanuel's conjecture, module doc)."""
    m = _parsed(measure, N)
    kind = _check(m, N, c, ties)
    if ties != UNQ or kind != "dcg":
        return (c + 1) ** N, (c + 1) ** N
    k = math.prod(len(qs) for _, qs in _class_values(*_dcg_key(m), N, c))
    return k, k


def _check(m: M.Measure, N: int, c: int, ties: str) -> str:
    depth, why = bracket_depth(m, c, ties)
    if not 1 <= N <= depth:
        raise ValueError(f"φ of {m.key} over grades 0..{c} is not bracketed at N={N}: {why}")
    return _kind(m, c)


def phi_bounds(measure: M.Measure | str, rel, ties: str = DEFAULT_TIES, *, N: int, c: int = 1,
               rel_error: float = DEFAULT_MAX_REL_ERROR, progress: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Proven bounds lo ≤ φ ≤ hi (FFF21 eq. 2 for ``unq``, §7.1.3's min/max/mid) of runs ``rel`` (…, L ≤ N;
    ranks L+1..N not relevant) of length N over grades 0..c, refined until hi ≤ (1 + rel_error)·lo where the
    grid allows (:data:`irscales.enumeration.bracket.MAX_BITS`; the bounds stay valid beyond, with a
    ``RuntimeWarning``). Object arrays with the leading shape of ``rel``: Python ints, for ``mid`` exact halves
    (:class:`~fractions.Fraction`). DCG's ``unq`` is exact under Schanuel's conjecture (module doc)."""
    return phi_bounds_ties(measure, rel, (ties,), N=N, c=c, rel_error=rel_error, progress=progress)[ties]


def phi_bounds_ties(measure: M.Measure | str, rel, ties=TIES, *, N: int, c: int = 1,
                    rel_error: float = DEFAULT_MAX_REL_ERROR, progress: bool | None = None
                    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """:func:`phi_bounds` for several tie strategies at once, tie → (lo, hi): one count of runs serves min, max
    and mid (and unq where values are runs), one count of distinct values DCG's unq."""
    m = _parsed(measure, N)
    ties = tuple(ties)
    kind = _kind(m, c)
    for t in ties:
        _check(m, N, c, t)
    rel = np.asarray(rel)
    if rel.ndim == 0 or not 1 <= rel.shape[-1] <= N:
        raise ValueError(f"phi_bounds: runs must have shape (..., L) with 1 ≤ L ≤ N={N}, got {rel.shape}")
    shape, L = rel.shape[:-1], rel.shape[-1]
    g = rel.reshape(-1, L)
    graded = kind == "grbp" or (kind == "dcg" and numerator(m).gains == "graded")
    if graded and g.size and (g.min() < 0 or g.max() > c or not np.array_equal(g, np.round(g))):
        raise ValueError(f"phi_bounds: {m.key} over grades 0..{c} needs integer grades in 0..{c}, "
                         f"found {g.min()}..{g.max()}")
    g = g.astype(np.int64) if graded else (g > 0).astype(np.int64)  # binary measures read rel > 0
    key = _key(m, kind)
    uniq, inv = np.unique(g, axis=0, return_inverse=True)
    lo_v, hi_v = _values(kind, key, uniq, N)
    rel_f = to_fraction(rel_error)  # the one reading of a number as a rational: 0.01 is 1/100
    counts: dict[bool, Bounds] = {}
    out = {}
    for t in ties:
        distinct = t == UNQ and kind == "dcg"
        if distinct not in counts:
            strict = not distinct and any(x in ("min", "mid") for x in ties)

            def tight(a: int, b: int, c_: int, d: int, strict: bool = strict) -> bool:
                return b <= (1 + rel_f) * a and (not strict or d + 1 <= (1 + rel_f) * (c_ + 1))

            items = _items(kind, key, N, c, distinct)
            exact = _exact_counter(kind, key, N, c, distinct, items, uniq, lo_v, hi_v)
            counts[distinct] = count_bounds(items, lo_v, hi_v, rel_error=rel_error, bits=14 if kind == "dcg" else 12,
                                            max_bits=MAX_BITS, tight=tight, exact=exact, progress=progress)
        lo, hi = _tie_bounds(counts[distinct], t)
        wide = sum(h > (1 + rel_f) * x for x, h in zip(lo, hi))
        if wide:
            warnings.warn(f"phi_bounds: {m.key} at N={N} ({t}): {wide} of {len(lo)} distinct runs keep a bracket wider "
                          f"than rel_error={rel_error} at the finest grid (2^{MAX_BITS} cells); their bounds are valid "
                          "but wider", RuntimeWarning, stacklevel=2)
        out_lo, out_hi = np.empty(len(uniq), dtype=object), np.empty(len(uniq), dtype=object)
        out_lo[:], out_hi[:] = lo, hi
        out[t] = out_lo[inv.ravel()].reshape(shape), out_hi[inv.ravel()].reshape(shape)
    return out


def _tie_bounds(res: Bounds, ties: str) -> tuple[list, list]:
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
