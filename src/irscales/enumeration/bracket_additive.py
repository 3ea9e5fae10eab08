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
    (:func:`irscales.enumeration._dcg.rank_classes`). A run's value is Σ_m q_m·u_m with one rational class
    coefficient q_m = Σ_{ranks of m} g_i/k_i. Runs with equal coefficient tuples tie; distinct tuples
    differ in value unless the u_m (the 1/ln m) are linearly dependent over Q — impossible if Schanuel's
    conjecture holds, not proven (the caveat of :mod:`irscales.interval`). So φ_unq = #{coefficient tuples
    with value ≤ M(r)}: the same knapsack with one item per class, whose options are the class's distinct
    coefficients (multiplicity 1), and K = Π_m #coefficients of class m (exact).

Each count is bracketed by :func:`irscales.enumeration.bracket.count_bounds` (Dyer's rounding, proven bounds,
refined until hi ≤ (1 + rel_error)·lo; :func:`irscales.enumeration.bracket.knapsack_phi_bounds`). The knapsacks are
the forms' (:meth:`irscales.enumeration.forms.KnapsackForm.knapsack`: :mod:`~irscales.enumeration.forms.geometric`,
:mod:`~irscales.enumeration.forms.discounted`); this module reads them by measure. Values are compared soundly:
RBP's weights p^{i−1} and a run's value are exact rationals, the logarithms of DCG are evaluated in ``Decimal`` at
50 digits (correctly rounded ln; a sum of N terms is then accurate to ~N·10^−49, far below one float64 ulp) and
widened outwards (:func:`irscales.enumeration.bracket.outward`).
"""
from __future__ import annotations

import numpy as np

from irscales import measures as M
from irscales.enumeration.forms import NO_FORM, Form, form_of
from irscales.enumeration.ties import TIES
from irscales.options import DEFAULT_MAX_REL_ERROR, DEFAULT_TIES

__all__ = ["phi_bounds", "phi_bounds_ties"]


def _parsed(measure: M.Measure | str, N: int | None = None) -> M.Measure:
    """The measure, with a cut-off ``@k`` (``nDCG@20``) read as the measure itself at N = k."""
    m = M.parse(measure) if isinstance(measure, str) else measure
    if m.uncut is not m:  # cut at k ranks: the uncut measure over REL^k (irscales.interval.scale_target)
        if N is not None and N != m.k:
            raise ValueError(f"{m.key} is the measure at N={m.k}, not N={N} (its ranks beyond {m.k} never count)")
        return m.uncut
    return m


def _form(m: M.Measure, c: int) -> Form:
    """The form of ``m`` when it brackets ``m`` over grades 0..c as a knapsack; else one that brackets nothing."""
    form = form_of(m)
    return form if form.knapsack(m, c) is not None else NO_FORM


def bracket_depth(measure: M.Measure | str, c: int = 1, ties: str | None = None) -> tuple[float, str]:
    """The deepest N at which φ of ``measure`` over grades 0..c is bracketed here (``math.inf``: any N), and
    why not further; 0 when it is not an additive measure handled here."""
    m = _parsed(measure)
    return _form(m, c).bracket_depth(m, c, ties)


def bracket_cost(measure: M.Measure | str, N: int, c: int = 1, ties: str = DEFAULT_TIES, n_runs: int = 1
                 ) -> tuple[float, int]:
    """(seconds, bytes) expected for :func:`phi_bounds` on ``n_runs`` runs: a few grids per power of two of
    the run values (about a dozen on real runs), each (items × options × 2^bits) shifted adds."""
    m = _parsed(measure, N)
    return _form(m, c).bracket_cost(m, N, c, ties, n_runs)


def k_bounds(measure: M.Measure | str, N: int, c: int = 1, ties: str = DEFAULT_TIES) -> tuple[int, int]:
    """K of the interval value (φ − 1)/(K − 1): the number of distinct values (``unq``) or of runs
    (min/max/mid), exact (lo = hi): (c + 1)^N runs; RBP/gRBP without ties have as many values; DCG has
    Π_m #(distinct coefficients of class m) (distinct under Schanuel's conjecture, module doc)."""
    m = _parsed(measure, N)
    return _form(m, c).k_bounds(m, N, c, ties)


def phi_bounds(measure: M.Measure | str, rel, ties: str = DEFAULT_TIES, *, N: int, c: int = 1, rel_error: float = DEFAULT_MAX_REL_ERROR,
               progress: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Proven bounds lo ≤ φ ≤ hi (FFF21 eq. 2 for ``unq``, §7.1.3's min/max/mid) of runs ``rel`` (…, L ≤ N;
    ranks L+1..N not relevant) of length N over grades 0..c, refined until hi ≤ (1 + rel_error)·lo where the
    grid allows (:data:`irscales.enumeration.bracket.MAX_BITS`; the bounds stay valid beyond, with a
    ``RuntimeWarning``). Object arrays with the leading shape of ``rel``: Python ints, for ``mid`` exact halves
    (:class:`~fractions.Fraction`). DCG's ``unq`` is exact under Schanuel's conjecture (module doc)."""
    return phi_bounds_ties(measure, rel, (ties,), N=N, c=c, rel_error=rel_error, progress=progress)[ties]


def phi_bounds_ties(measure: M.Measure | str, rel, ties=TIES, *, N: int, c: int = 1, rel_error: float = DEFAULT_MAX_REL_ERROR,
                    progress: bool | None = None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """:func:`phi_bounds` for several tie strategies at once, tie → (lo, hi): one count of runs serves min, max
    and mid (and unq where values are runs), one count of distinct values DCG's unq."""
    m = _parsed(measure, N)
    return _form(m, c).phi_bounds_ties(m, rel, tuple(ties), N=N, c=c, rel_error=rel_error, progress=progress)
