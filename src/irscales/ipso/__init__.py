"""Innate pairwise SERP orderings (IPSO) — the core of Moffat & Mackenzie (MM23), no paper in it.

One module per concern:

* :mod:`~irscales.ipso._compare` — :class:`Relation`, Algorithm 1 (:func:`compare`, vectorised;
  :func:`compare_reference`, one loop), :class:`IPSOResult`;
* :mod:`~irscales.ipso._grid` — all binary SERPs, relation grids, Hasse covers, score axes and τ;
* :mod:`~irscales.ipso._counts` — exact category counts of all 4^k pairs (enumeration, DP, closed form);
* :mod:`~irscales.ipso._montecarlo` — sampled estimates with Wilson intervals;
* :mod:`~irscales.ipso._sqrt5` — exact Q(√5) arithmetic (RBP at the golden ratio), exact score signs;
* :mod:`~irscales.ipso._runs` — IPSO over all system pairs × topics of a set of runs;
* :mod:`~irscales.ipso._sign_test` — the IPSO sign test (the one implementation);
* :mod:`~irscales.ipso._agreement` — metric tests (from :mod:`irscales.stats._significance`) against it;
* :mod:`~irscales.ipso.corroborate` — MM23's † / ‡ reporting rule.

The MM23 reproduction (tables, figures, published-vs-reproduced) is :mod:`irscales.papers.mm23`.
"""

from irscales.ipso._agreement import (
    AGREEMENT, METRIC_TESTS, agreement, metric_test, metric_tests, test_key,
)
from irscales.ipso._compare import LABELS, IPSOResult, Relation, compare, compare_reference
from irscales.ipso.corroborate import Corroboration, corroborate
from irscales.ipso._counts import CategoryCounts, closed_form_counts, count_categories, enumerate_counts
from irscales.ipso._grid import all_serps, axis_order, axis_tau, diagonal_blocks, hasse_edges, relation_grid
from irscales.ipso._montecarlo import MonteCarloResult, default_workers, monte_carlo
from irscales.ipso._runs import PairRelations, pair_relations, pair_relations_reference, relations_of
from irscales.ipso._sign_test import (
    IPSOSignTest, IPSOSignTests, ipso_sign_test, ipso_sign_tests, sign_test_one_sided, sign_test_pvalues,
)
from irscales.ipso._sqrt5 import PHI, QSqrt5, exact_sign, golden_rbp_exact

__all__ = [
    "Relation", "LABELS", "IPSOResult", "compare", "all_serps", "relation_grid", "count_categories", "monte_carlo",
    "pair_relations", "ipso_sign_tests", "agreement", "AGREEMENT", "Corroboration", "corroborate",
]
