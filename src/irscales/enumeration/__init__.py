"""Enumeration of all runs REL^N, the scale of a measure and its ranked version (FFF21 §5).

The *scale* of a measure M for run length N is the sorted set of distinct values M takes over all
runs r ∈ REL^N, with their multiplicities. From it FFF21 eq. (2) defines the ranked
("interval-scaled") measure

    φ(m) = |{x ∈ M(REL^N) : x ≤ m}|,          M_R = φ(M)           (FFF21 §5, tie strategy ``unq``)

and §7.1.3 the rank transforms over all runs with ties at their ``min``, ``max`` or ``mid`` rank.

How the engine works
--------------------
Runs are numbered by their *run id* Σ_i rel_i (c+1)^{N−i} (rank 1 is the most significant digit, so
ids follow the strong top-heaviness order of FFP19 eq. 4). A run splits into its top half
(ranks 1..h, id ``a``) and bottom half (ranks h+1..N, id ``b``); for every supported measure the value
is ``A[a] + B_g[b]`` for a group ``g`` of top halves (one group for additive measures such as P, RBP,
DCG; the popcount of the top half for SP, since SP = SP_top + SP_bottom + k·Σ_{bottom, rel} 1/i; two
groups for RR). Tables of size (c+1)^h are tiny; half runs with the same exact half value are merged
into one entry with a multiplicity (ranks 1..9 of DCG_b10 all weigh 1, so its top-half table shrinks
from 2^15 to 352 entries), and the entry pairs whose values lie in a key range [t0, t1) are found
per bottom entry by binary search in the sorted top entries. The key axis is cut into chunks that
fit a memory budget; each chunk (a pure function of the parameters and its range) is sorted and
reduced to distinct values + counts and stored as ``.npy`` files (read back with ``mmap_mode='r'``)
under :func:`irscales.paths.cache_dir`, listed in a manifest with SHA-256 checksums.

Exact ties
----------
* *Integer mode* (P, R, RR, SP/AP, RBP p = a/b while Σ a^{i−1} b^{N−i} fits in 62 bits, RBTO): the key
  is an exact integer: P, R: number of relevant documents; RR: N + 1 − rank of the first relevant one;
  SP·lcm(1..N); RBP·b^{N−1}/(1−p) = Σ rel_i a^{i−1} b^{N−i}. Ties are integer equalities.
* *Float mode* (DCG, nDCG, and RBP when its integer key exceeds 62 bits, e.g. p = 0.8 at N ≥ 28):
  values are summed in float64 with an error bound δ (see :attr:`kernels.Kernel.delta`); runs whose floats
  are within δ form near-tie clusters. Each run also carries an exact integer *identity* with
  "same identity ⇒ same value":

  - RBP with rational p on binary runs: the run id. Binary RBP never ties: a tie would make p = a/b
    a root of a polynomial with coefficients in {−1, 0, 1} and constant term ±1, impossible for a
    rational in (0, 1) by the rational root theorem (b would divide the leading coefficient ±1).
  - DCG with an integer log base B (JK discount w_i = 1/max(1, log_B i), or w_i = 1/log_2(i+1)):
    write every rank's argument as a perfect power i = m^k with m not a perfect power; then
    w_i = u_m / k with u_m = ln B / ln m, and the weights below the base equal 1 = u_{m_B}/k_B.
    DCG = Σ_m (Σ_{i: root(i)=m} g_i / k_i) u_m, so the vector of rational coefficients over the
    u_m is the identity (packed into an int64 in mixed radix). Equal vectors ⇒ equal values.

  A cluster with a single identity is one value. A cluster with several identities is adjudicated
  exactly: Fractions for RBP; for DCG, Decimal evaluation of Σ c_m u_m at 60 then 120 significant
  digits, accepted only when every gap between distinct identities exceeds the evaluation error.
  Whether distinct coefficient vectors can ever give equal DCG (a Q-linear relation among
  1/ln m) is not known to be impossible (it would follow from Schanuel's conjecture), so it is
  *checked*, never assumed: an unresolvable cluster raises :class:`TieUndecidable`.

What the engine finds about ties (binary runs; ``data/derived/distinct_counts.csv``)
-----------------------------------------------------------------------------------
* P, R: N + 1 values, C(N, k) runs each. RR: N + 1 values (1/k for 2^{N−k} runs, 0 once).
* RBP with any rational p: no ties, 2^N values (proof above).
* DCG_b02 (JK discount): the only ties swap ranks 1 and 2 (w_1 = w_2 = 1), so 3·2^{N−2} values,
  multiplicity ≤ 2, for every N checked (up to 30) — FFF21 §5.1's 24, 768, 24,576 for N = 5, 10, 15.
  The log2(i+1) discount gives no ties at all (2^N values), so FFF21 used the JK discount.
* DCG_b10: ranks 1..10 weigh 1, so N + 1 values (the P scale) for N ≤ 10 and 11·2^{N−10} beyond.
* AP (SP): many ties: 810, 644,203, 18,269,373 and 426,591,837 values for N = 10, 20, 25, 30.
* FFF21 §5's closed forms φ(m) = 2^N m (RBP, p = 1/2) and φ(m) = N + 1 − 1/m (RR) count from 0;
  eq. (2) gives one more (φ of the empty run's value 0 is 1).
* Rounding values to 8 decimals (FFF21 fn. 9 rounds averages so) merges distinct values from N ≈ 14
  on (RBP_p08: 16,382 instead of 16,384 at N = 14); ``np.unique`` on raw floats splits equal DCG
  values (3,307 instead of 3,072 at N = 12). At N = 30 distinct AP values can be 1/lcm(1..30) ≈ 4e-13
  apart and ~10^5 RBP_p08 / DCG_b02 values per 10^9 runs lie within the float error bound δ of a
  neighbour; they are separated exactly (Fractions, Decimal).

Recall-base dependent measures (FFF21 §5.2.2)
---------------------------------------------
R = count/RB, AP = SP/RB and nDCG = DCG/IDCG(min(RB, N)) divide a recall-base-free numerator by a
positive constant of the topic, so on one topic their order and their ties are those of the
numerator: φ_R = φ_P, φ_AP = φ_SP, φ_nDCG = φ_DCG for every RB > 0 (tested in
``tests/test_enumeration.py::test_recall_base_independence``; :func:`runs.numerator`). The engine therefore enumerates the
numerator once and only rescales ``values``. All (c+1)^N runs are enumerated whatever RB, including
runs with more relevant documents than RB (R, AP, nDCG > 1 there): this keeps one scale per run
length, as FFF21 does (its Example 13 maps the same four runs for RB = 2 and RB = 3), and FFF21 never
restricts REL^N by the recall base. With RB = 0 these measures are 0 for every run (a one-value
scale).

Modules
-------
``runs`` run ids, the numerator mapping, errors · ``ties`` counts → unq/min/max/mid ranks ·
``dcg`` exact arithmetic of log-discounted sums · ``kernels`` half-run tables and exact keys ·
``cache`` the chunk cache · ``cache_lock`` one writer per cache folder, a lock no dead owner holds ·
``workers`` worker processes that end with their parent · ``scale_class`` :class:`Scale` and closed
forms · ``engine`` chunk planner, runner, limits and build costs · ``brute`` brute-force reference ·
``forms`` one module per arithmetic form of a numerator (its kernel keys, closed form, count, costs, what
a count rests on, bracket), asked by everything below, never named ·
``counting`` / ``meet`` / ``fixed_count`` / ``ap_count`` / ``digit_sums`` φ counted without a scale ·
``bracket`` / ``bracket_additive`` φ of additive measures bracketed with a proven relative error ·
``providers`` the routes to φ as registered providers ·
``routes`` the one planner choosing the best registered route (closed form, counting, cached scale, build;
exact first, then the cheapest) within a budget · ``build``
:func:`scale` and :func:`ranked_runs` (FFF21's measures vs their ranked versions on a collection are
:mod:`irscales.papers.fff21.ranked`, over :mod:`irscales.interval`) ·
``__main__`` the distinct-counts CLI (``python -m irscales.enumeration``).

Exact φ everywhere (:mod:`irscales.enumeration.ties`): ``unq``/``min``/``max`` are int64 arrays when every
value fits, else object arrays of Python ints; ``mid`` is float64 when every 2φ < 2^53 (exact halves),
else an object array of Fractions. Never float64 beyond that.
"""

from irscales.enumeration._brute import brute_force_scale
from irscales.enumeration._build import distinct_counts_table, plan_scale, ranked_runs, scale
from irscales.enumeration._cache import KERNEL_VERSION, prune_cache
from irscales.enumeration.counting import CountedScale, countable, counting_depth, n_distinct, phi_runs
from irscales.enumeration._dcg import ExactDCG, dcg_root_coefficients, perfect_root
from irscales.enumeration._engine import BuildCost, build_cost, max_enumerable_depth
from irscales.enumeration._kernels import supported
from irscales.enumeration.routes import BUILD_BYTES_OK, BUILD_SECONDS_OK, OverBudget, Route, choose_route
from irscales.enumeration.bounded import BoundedRoute  # registers the bounded provider after the exact ones
from irscales.enumeration._runs import CacheError, TieUndecidable, normaliser, numerator, run_ids, runs_from_ids
from irscales.enumeration._scale_class import Scale
from irscales.enumeration.ties import TIES, rank_values, tie_ranks

__all__ = [
    "Scale", "scale", "TieUndecidable", "CacheError", "TIES", "rank_values", "tie_ranks", "phi_runs", "ranked_runs",
    "countable", "counting_depth", "brute_force_scale", "runs_from_ids", "choose_route", "Route", "OverBudget",
    "build_cost", "prune_cache",
]
