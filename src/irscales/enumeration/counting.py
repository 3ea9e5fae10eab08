"""The ranked measure φ by *counting* runs instead of enumerating them (issue 20; FFF21 §8).

FFF21 eq. (2) needs, for a run r, only φ_unq(r) = |{x ∈ M(REL^N) : x ≤ M(r)}|, and §7.1.3's
``min``/``max``/``mid`` need the number of runs below and up to M(r). Where the structure of a
measure tells its ties, these numbers can be *counted* without storing the scale, at any N the
arithmetic allows:

* P (and R, whose scale is P's, see :func:`irscales.enumeration._runs.numerator`): k relevant documents in N ranks;
  φ_unq = k + 1, runs below = Σ_{j<k} C(N, j), runs up to = Σ_{j≤k} C(N, j). Any N: the prefix sums are
  walked once per call up to the k's that occur (from the nearer end, by symmetry;
  :func:`grade_sum_prefix`), O(N) big-integer steps at most, not one binomial per j per run.
* RR: first relevant document at rank f (none: value 0); φ_unq = N + 2 − f (1 for none), runs
  below 1/f = 2^{N−f} (the runs with a later first hit and the empty run), 2^{N−f} runs tie. Any N,
  one shift per distinct f.
* Succ (whether a relevant document is retrieved): two values, the empty run alone below; φ_unq = 1 + hit,
  runs below a hit 1, up to it 2^N. Any N (:mod:`irscales.enumeration.forms.any_hit`).
* RBP with rational p = a/b (lowest terms). Its exact key K(r) = Σ_i rel_i a^{i−1} b^{N−i}
  (= RBP·b^{N−1}/(1 − p)) orders runs exactly as RBP does.

  **No ties, any N.** Suppose runs r ≠ s had K(r) = K(s). Then Σ_{i=1}^{N} d_i a^{i−1} b^{N−i} = 0
  with d_i = rel_i(r) − rel_i(s) ∈ {−1, 0, 1}. Every term with i < N holds the factor b^{N−i}, so
  modulo b the sum is d_N a^{N−1} ≡ 0; gcd(a, b) = 1 makes a^{N−1} invertible modulo b, so
  b | d_N, and b ≥ 2 (p < 1) with |d_N| ≤ 1 gives d_N = 0. Dividing the remaining sum by b leaves
  Σ_{i=1}^{N−1} d_i a^{i−1} b^{N−1−i} = 0, the same statement for N − 1; by induction every d_i = 0,
  i.e. r = s. Hence all 2^N values are distinct and φ_unq = φ_min = φ_max = φ_mid = 1 + #{runs
  below}. (``tests/test_counting.py`` also checks it exhaustively for N ≤ 20.)

  - p ≤ 1/2: rank i outweighs all later ranks, runs are ordered by their run id, φ = run id + 1
    (the engine's closed form), any N.
  - p > 1/2: *meet in the middle*. Split the ranks into a top part of h = ⌊N/2⌋ ranks and a bottom
    part of N − h (one rank less on top from N = 46 on, see :func:`irscales.enumeration.meet.split`);
    K = b^{N−h}·V_h(top) + a^h·V_{N−h}(bottom) with V_L(x) = Σ_{i≤L} x_i a^{i−1}
    b^{L−i} an exact int64. The half tables (2^h and 2^{N−h} keys) are sorted once. For a query value,
    top halves far enough below it count all 2^{N−h} bottoms, those above it none; for each top
    half in between a search in the sorted bottom table (bucket index + steps) counts the bottoms below the
    threshold. Searches run on float64 images of the exact integers with a proven error band;
    pairs inside the band are compared exactly with Python integers, so every count is exact.
    Limits: V_L < 2^62 (int64 keys; L ≤ 26 for p = 0.8) and 2^L ≤ 2^26 table entries (memory:
    20 bytes each; 1.6 GB at N = 50, 3 GB while building), i.e. N ≤ 52 for RBP_p08.

* DCG and nDCG with the JK discount and an integer log base B (DCG_b02, DCG_b10; nDCG's order and
  ties are DCG's): ranks 1..B all weigh 1, so every run has the value of its *canonical* run, the
  number c = rel_1 + … + rel_B and the ranks after B; C(B, c) runs share it (FFF21 §5.1's
  3·2^{N−2} values for B = 2). The values of the canonical runs below a query are counted by meet in
  the middle over ranks B+1..N, once per c (:mod:`irscales.enumeration._fixed_count`: exact int64
  fixed-point half sums, every weight within one unit of 2^F·w, a cache-blocked compiled pass, also
  for graded DCG); pairs within the proven band (|D| ≤ R units) are decided exactly (equal coefficient
  vectors over the u_m = ln B / ln m of :mod:`irscales.enumeration._dcg` are a tie, otherwise a 60- then
  120-digit evaluation, else :class:`irscales.enumeration._runs.TieUndecidable`).

  *What is proven.* Counting canonical runs counts distinct values only if distinct canonical runs
  never tie. Two kinds of ties are possible: (a) rational ones inside one class m (ranks m, m^2, …
  weigh u_m, u_m/2, …): the first one is 1/log2 4 = 1/log2 8 + 1/log2 64 for B = 2, found by
  :func:`irscales.enumeration.meet.dcg_tie_scan` by exhaustive search, so counting stops one rank before it; (b) ties
  across classes, a Q-linear relation among the 1/ln m: impossible if Schanuel's conjecture holds,
  not proven. The engine's enumeration found none for N ≤ 30 (every near-tie adjudicated), so counted
  φ is proven by computation up to N = 30 (and equal to the engine's there, tested) and exact
  *conditionally on (b)* beyond; every comparison with the query run itself is checked.
  Cost grows as (B + 1)·2^{(N−B)/2} per run (the top halves within the bottom part's range are
  most of them; no split avoids it): ≈ 90 ms per run at N = 50 on two cores (``docs/benchmarks.md``),
  memory-bound at 2^26-entry tables.

* Graded RBP (gRBP, FFP19 §5) over grades 0..c (G = c + 1 grades, gains = grades) with p = a/b in
  lowest terms: K(r) = Σ_i g_i a^{i−1} b^{N−i}, g_i ∈ {0..c}.

  **No ties when b > c, ties when b ≤ c (N ≥ 2).** If K(r) = K(s), the differences
  d_i = g_i(r) − g_i(s) now lie in {−c..c}; modulo b the sum is d_N a^{N−1} ≡ 0, so b | d_N as
  above, and |d_N| ≤ c < b forces d_N = 0; the induction goes through unchanged, so all (c+1)^N
  values are distinct. When b ≤ c the runs (a, 0, …) and (0, b, …) are both in the grade range
  (a < b ≤ c) and tie: a·b^{N−1} = b·a·b^{N−2} (:func:`graded_rbp_tie`). So p = 1/2 ties from
  three grades on ((1, 0) and (0, 2): 1 = 2·½), p = 0.8 = 4/5 from six. FFP19 §5 places the
  threshold at p = G'/(G'+1) with G' the smallest normalised gain gap (1/c for gains = grades,
  i.e. p = 1/(c+1)): below it gRBP is ordinal (strong top-heaviness; no ties), at it interval (the
  base-(c+1) rank, RBTO), above it neither — and only above it can ties appear: p = 1/2 > 1/3 for
  c = 2 ties, while p = 0.8 is above the threshold too but has b = 5 > c, no ties, and its φ is
  counted here by the same meet in the middle over (c+1)-ary half tables, up to N = 2L with
  c·V_L < 2^62 and (c+1)^L ≤ 2^MAX_HALF (N ≤ 32 for G = 3, 26 for G = 4). With ties and p = 1/b
  (gRBP_p05 from three grades on) every integer key from 0 to c·(b^N − 1)/(b − 1) is a value, so
  φ_unq = K + 1 at any N, and runs below and up to a key are counted digit by digit with carries
  (:mod:`irscales.enumeration.digit_sums`, with the proof); other p with ties are not counted.

* Graded DCG and nDCG (gains = grades 0..c, JK discount, integer base B): rank i weighs w_i/k·u_m
  with u_m = ln B / ln m for its class root m (ranks 1..B and B², B³ … are the class of B, with
  u_B = 1), so a run's value is Σ_m q_m·u_m with one rational *class coefficient* q_m per root. With
  grades, rational ties inside a class appear early (for B = 2 and three grades: grade 2 at rank 4
  weighs as much as grade 1 at rank 1, from N = 4; grade 2 at rank 9 as grade 1 at rank 3), so each
  class is one item whose distinct coefficients are enumerated exactly
  (:func:`irscales.enumeration.meet.dcg_class_items`), and φ_unq = 1 + the number of coefficient tuples
  below the run, counted by meet in the middle over the items (the pair count of the binary DCG).
  Distinct tuples have distinct values unless the u_m are Q-linearly dependent — the same assumption
  (Schanuel) as the binary count beyond N = 30; counted φ equals the engine's for every run where both
  exist (tested: three grades to N = 9 exhaustively and N = 14 on random runs, four grades N = 7 and 11,
  five grades N = 6), and for three grades no two distinct coefficient tuples of all 3^17 runs tie in base 2
  or 10 (:func:`irscales.enumeration.meet.class_gap`: proven to N = 17). Runs below and up to a value (ties
  min/max/mid) weigh each tuple by the product of its items' multiplicities (grade assignments per
  coefficient), summed in int64 by the same pass. Tables of at most 2^MAX_HALF sums: N ≤ 34 for three grades
  in base 2 (39 in base 10), 28 for four (0.07 s per run at N = 30).

* gP over grades 0..c (FFP19 §4.2; gains = grades): its value is t/(N·c) with t = Σ g_i the grade sum, so
  φ_unq = t + 1, and the runs with sum j are the coefficient of x^j in (1 + x + … + x^c)^N (exact
  integers). Any N, any c.

* AP and SP (AP = SP/RB orders and ties runs as SP; :mod:`irscales.enumeration._ap_count` has the
  details): runs below / up to a value are counted exactly by a meet in the middle conditioned on the
  top half's number of hits k, SP·L = S(top) + A(bottom) + k·B(bottom) with L = lcm(1..N), all in
  int64 while N·L < 2^62 (N ≤ 40, the engine's limit too). So **φ_min, φ_max, φ_mid are proven exact
  for N ≤ 40** (equal to the engine's, tested). AP has many exact ties without a known structure, so
  **φ_unq is exact only by deduplicating keys**: all 2^N of them for N ≤ 24 (the counted path here),
  or, beyond, for runs with few runs up to their value (``ap_count.phi_unq_exact``). Elsewhere φ_unq
  is only *estimated* (``ap_count.phi_unq_estimate``, with a Hoeffding bound) and never returned by
  :func:`phi_runs`: ``countable(AP, N)`` (ties ``unq`` or unspecified) stops at N = 24, and
  ``countable(AP, N, ties="min")`` etc. at N = 40.
"""
from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np

from irscales import measures as M
from irscales._padding import padded
from irscales.enumeration import _ap_count as ap_count
from irscales.enumeration.digit_sums import graded_rbp_tie, grade_sum_prefix
from irscales.enumeration.forms import dcg_proven_depth, form_of
from irscales.enumeration.meet import MAX_HALF, half_table
from irscales.enumeration._runs import numerator
from irscales.enumeration.ties import TIES, check_ties
from irscales._progress import shown
from irscales.options import DEFAULT_TIES

__all__ = ["countable", "counting_depth", "phi_runs", "n_distinct", "CountedScale"]


def counting_depth(measure: M.Measure | str, c: int = 1, ties: str | None = None) -> tuple[int, str]:
    """The largest run length N at which φ of ``measure`` is counted exactly here (``math.inf``:
    any N), and why not further. 0 when this module cannot count the measure. ``ties`` matters for AP
    only: ``min``/``max``/``mid`` are counted further than ``unq`` (None: every tie strategy). Its numerator's
    form says (:meth:`irscales.enumeration.forms.Form.counting_depth`)."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    return form_of(m).counting_depth(m, c, ties)


def countable(measure: M.Measure | str, N: int, c: int = 1, ties: str | None = None) -> bool:
    """Whether φ of ``measure`` at run length N (with tie strategy ``ties``; None: all) is counted here."""
    return 1 <= N <= counting_depth(measure, c, ties)[0]


def family(m: M.Measure, c: int) -> str:
    """How φ of ``m`` is counted: ``closed`` (P, R, RR, Succ, RBP p ≤ 1/2, gP), ``rbp`` (meet in the middle,
    binary or graded), ``digits`` (graded RBP with p = 1/b), ``dcg``, ``gdcg`` (graded DCG), ``ap`` (SP/AP), or
    ``none`` (:meth:`irscales.enumeration.forms.Form.count_family`)."""
    return form_of(m).count_family(m, c)


def count_cost(measure: M.Measure | str, N: int, c: int = 1, ties: str | None = None,
               runs: int = 10_000) -> tuple[float, int]:
    """Rough cost of :func:`phi_runs` for ``runs`` runs of length N: (seconds, peak bytes of its tables).

    An order of magnitude for choosing a route and for messages, fitted to ``docs/benchmarks.md``
    (2 cores; simulated uniform runs, the widest meet-in-the-middle windows): closed forms take
    ~10 ns per rank and run plus, for min/max/mid, the walk of :func:`grade_sum_prefix`; RBP p > 1/2
    builds half tables of (c+1)^{N/2} keys (~0.15 µs and 40 bytes each) and scans ~((c+1)p)^{N/2} of them
    per run (50 ns each: RBP_p08 at N = 50, 6,450 runs, ≈ 47 s); binary DCG ≈ 0.1 ms per run at N = 30,
    ×2 every 2.5 ranks, plus its tables (14 s at N = 50); graded DCG ≈ 40 ms per run at N = 30 with three
    grades, ×(c+1) every two ranks; AP min/max/mid ≈ 0.4 ms per run at N = 30, ×2^0.76 per rank, plus
    ≈ 2.5 µs per entry of its bottom table (2^20 entries at N = 30 and 40); AP unq deduplicates all 2^N
    keys (≈ 1.5 µs each: 31 s at N = 24 on the contended machine). Not a promise: real runs are usually
    cheaper (sparser). Each form states its own (:meth:`irscales.enumeration.forms.Form.count_cost`)."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    return form_of(m).count_cost(m, N, c, ties, max(int(runs), 1))


def count_basis(measure: M.Measure, N: int, c: int = 1) -> tuple[str, str]:
    """What counted φ of ``measure`` at run length N over grades 0..c rests on: (``proof``, ``enumeration`` or
    ``conditional``, the reason in words) — the proofs of this module's docstring, the enumeration that found no
    tie across DCG's discount classes (:func:`dcg_proven_depth`), or Schanuel's conjecture beyond
    (:meth:`irscales.enumeration.forms.Form.count_basis`)."""
    return form_of(measure).count_basis(measure, N, c)


# --------------------------------------------------------------------------------- interface


# The last few counts (issue 32): (numerator, N, c, ties, SHA-256 of the runs) -> φ. nDCG's φ is DCG's on the
# same runs (its numerator), so asking for both, as ``irscales scores --measures DCG_b02,nDCG_b02`` does,
# counts once (at N = 50 a count takes half a minute and GBs); results are small (one number per run).
_COUNTED: OrderedDict = OrderedDict()
_COUNTED_KEEP = 8


def _counted_key(num: M.Measure, rel: np.ndarray, ties: str, c: int, N: int) -> tuple | None:
    """The memo's key for these runs of length N; None for runs that are not a numeric array (an object
    array's buffer holds addresses, not values)."""
    if rel.dtype.kind not in "biuf":
        return None
    h = hashlib.sha256(f"{rel.dtype.str}{rel.shape}".encode())
    h.update(np.ascontiguousarray(rel))  # the array's buffer itself: no copy of contiguous runs
    return num, N, c, ties, h.hexdigest()


def release_tables(keep: str | None = None) -> None:
    """Drop the tables the counting families keep for later counts, but those of family ``keep``
    (:func:`family`): RBP's sorted half tables (1.3 GB at N = 50) and AP's. A count of another measure
    then does not hold them while it builds its own, so memory does not add up across measures (issue 32;
    DCG's tables, 5 GB at N = 50, are never kept)."""
    if keep != "rbp":
        half_table.cache_clear()
    if keep != "ap":
        ap_count.release_tables()


def phi_runs(measure: M.Measure | str, rel, ties: str = DEFAULT_TIES, *, progress: bool | None = None,
             workers: int | None = None, c: int = 1, N: int | None = None) -> np.ndarray:
    """Exact ranked measure φ (FFF21 eq. 2 for ties ``unq``; §7.1.3's min/max/mid) of runs
    ``rel`` of shape (..., N), counted without a scale; N is the last axis. Runs are binary (c = 1),
    or graded 0..c for gRBP, gP and graded DCG (the scale of all (c+1)^N runs). Equal to
    :meth:`irscales.enumeration.Scale.phi_runs` wherever both exist (tested).

    Returns exact values, never rounded (:mod:`irscales.enumeration.ties`): ``unq``/``min``/``max`` as an
    int64 array when every value fits, else an object array of Python ints; ``mid`` as float64 when every
    2φ < 2^53 (halves exact), else an object array of :class:`~fractions.Fraction`.
    ``progress``: a tqdm bar on stderr for the long counts (meet in the middle); None: when stderr is a
    terminal and :func:`count_cost` expects more than a few seconds.
    Raises ``ValueError`` when the measure cannot be counted at this N (see :func:`counting_depth`).
    This is the counting route itself: :func:`irscales.enumeration.ranked_runs` chooses between it and a
    stored scale (:mod:`irscales.enumeration.routes`). The last few results are kept, keyed by the measure's
    numerator (:func:`irscales.enumeration._runs.numerator`), N, c, ``ties`` and the runs' bytes: nDCG after
    DCG on the same runs is not counted again (issue 32). Starting a count of another family drops the
    tables the previous one kept (:func:`release_tables`).

    ``N``: the run length, when ``rel`` holds only the first ranks (…, L ≤ N) and ranks L+1..N are not
    relevant (padding, FFF21 §5.1): the closed forms (P, RR, RBP with p ≤ 1/2, gP) never allocate the
    padding — at N = 10^6 it would be S·T·10^6 bytes — the others (N ≤ 54) pad first.
    """
    return phi_runs_ties(measure, rel, (ties,), progress=progress, workers=workers, c=c, N=N)[ties]


def phi_runs_ties(measure: M.Measure | str, rel, ties=TIES, *, progress: bool | None = None,
                  workers: int | None = None, c: int = 1, N: int | None = None) -> dict[str, np.ndarray]:
    """:func:`phi_runs` for several tie strategies (``ties``) at once, tie → φ: the meet-in-the-middle counts
    (RBP, gRBP, binary and graded DCG) give runs below, runs up to and the distinct rank together, so one
    count serves every strategy; the closed forms and AP run once per strategy."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    ties = tuple(ties)
    for t in ties:
        check_ties(t)
    rel = np.asarray(rel)
    if rel.ndim == 0 or rel.shape[-1] < 1:
        raise ValueError(f"phi_runs: runs must have shape (..., N) with N ≥ 1, got {rel.shape}")
    N = rel.shape[-1] if N is None else int(N)
    if rel.shape[-1] > N:
        raise ValueError(f"phi_runs: runs of {rel.shape[-1]} ranks are longer than N={N}")
    limit, why = min((counting_depth(m, c, t) for t in ties), key=lambda x: x[0])
    if N > limit:
        raise ValueError(f"φ of {m.key} is not counted at N={N}" + (f" (at most N={limit})" if limit else "")
                         + f": {why}")
    if rel.shape[-1] < N and not form_of(m).pads_lazily(m, c):
        rel = padded(rel, N)
    key = _counted_key(numerator(m), rel, ties, c, N)
    if key is not None and key in _COUNTED:
        _COUNTED.move_to_end(key)
        return _COUNTED[key].copy()
    release_tables(keep=family(m, c))
    out = _count(m, rel, ties, progress, workers, c, N)
    if key is not None:
        _COUNTED[key] = out.copy()
        while len(_COUNTED) > _COUNTED_KEEP:
            _COUNTED.popitem(last=False)
    return out


def _count(m: M.Measure, rel: np.ndarray, ties: str, progress: bool | None, workers: int | None, c: int,
           N: int) -> np.ndarray:
    """φ of runs ``rel`` (…, L) of length N (L < N only where the form pads lazily), counted by the form of
    ``m``'s numerator."""
    L = rel.shape[-1]
    shape = rel.shape[:-1]
    if progress is None:
        progress = shown(None) and max(count_cost(m, N, c, t, max(1, rel.size // L))[0] for t in ties) > 2
    if numerator(m).reads_grades:  # gRBP, gP, graded DCG
        g = rel.reshape(-1, L)
        if g.size and (g.min() < 0 or g.max() > c or not np.array_equal(g, np.round(g))):
            raise ValueError(f"phi_runs: {m.key} over grades 0..{c} needs integer grades in 0..{c}, "
                             f"found {g.min()}..{g.max()}")
        runs = g.astype(np.int64)
    else:
        runs = np.asarray(rel.reshape(-1, L)) > 0
    out = form_of(m).count(m, runs, N, c, ties, progress, workers)
    return {t: v.reshape(shape) for t, v in out.items()}


def n_distinct(measure: M.Measure | str, N: int, c: int = 1) -> int:
    """|M(REL^N)| for a counted measure: N + 1 for P, R, RR; 2^N for RBP (no ties, module doc);
    (B + 1)·2^{N−B} for DCG/nDCG with base B (distinct canonical runs, module doc); AP, SP by
    deduplicating all keys (N ≤ 24)."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    limit, why = counting_depth(m, c)
    if not 1 <= N <= limit:
        raise ValueError(f"{m.key} is not counted at N={N}: {why}")
    return form_of(m).n_distinct(m, N, c)


class CountedScale:
    """What :func:`irscales.enumeration.scale` returns when φ is counted instead of stored: beyond the
    engine's depth, or where building the scale is over the budget (:mod:`irscales.enumeration.routes`).
    It has the sizes of the scale and the exact :meth:`phi_runs`, with nothing stored
    (``method="count"``); the stored values (``values``, ``counts``, ``quantiles`` …) need the built
    scale, and asking for them says how (``reason`` holds why this scale is counted)."""

    method = "count"
    mode = "count"
    directory = None
    _STORED = ("values", "counts", "keys", "quantiles", "iter_chunks", "phi", "to_frame", "exact_values", "chunks")

    def __init__(self, measure: M.Measure, N: int, rb: float | None = None, c: int = 1, reason: str = ""):
        if not countable(measure, N, c):
            raise ValueError(f"{measure.key} is not counted at N={N}: {counting_depth(measure, c)[1]}")
        self.measure, self.N, self.c, self.rb, self.reason = measure, N, c, rb, reason

    def __repr__(self) -> str:
        return f"CountedScale({self.measure.key}, N={self.N}, c={self.c})"

    def __getattr__(self, name: str):
        if name in CountedScale._STORED:
            raise AttributeError(
                f"{name}: the scale of {self.measure.key} at N={self.N} is counted, not stored "
                f"({self.reason or 'beyond the engine'}), so only n_runs, n_distinct and phi_runs exist; "
                "scale(..., method='engine', build=True) builds the stored scale where the engine reaches")
        raise AttributeError(name)

    @property
    def n_runs(self) -> int:
        return (self.c + 1) ** self.N

    @property
    def n_distinct(self) -> int:
        return n_distinct(self.measure, self.N, self.c)

    def phi_runs(self, rel, ties: str = DEFAULT_TIES, progress: bool | None = None) -> np.ndarray:
        """Exact φ of runs ``rel`` (..., N), counted (:func:`phi_runs`; same return types)."""
        rel = np.asarray(rel)
        if rel.ndim == 0 or rel.shape[-1] != self.N:
            raise ValueError(f"phi_runs: runs must have shape (..., {self.N}), got {rel.shape}")
        return phi_runs(self.measure, rel, ties, c=self.c, progress=progress)
