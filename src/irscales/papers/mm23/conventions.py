"""MM23's examples, depths and display labels (Moffat & Mackenzie, JASIST 2024).

Inside the library measures are named by :attr:`irscales.measures.Measure.key` and tests by the
keys of :data:`irscales.stats._significance.TESTS`; the paper's own names (``Prec@k``, ``RBP(0.5)``,
``NDCG``, ``wilcoxon`` …) are applied only when a table is shown or written
(:func:`metric_labels`, :data:`TEST_NAMES`, :data:`FIG3_LABELS`).

Conventions the text leaves open (our choices)
    * The six metrics of Figs 5–7 at depth k (:func:`metrics_at`): RR@k, Prec@k (= P(k)),
      RBP(0.5)@k, RBP(0.8)@k, AP@k (trec_eval ``map_cut``: normalised by the topic's recall base)
      and NDCG@k with the 1/log2(i+1) discount and the judged ideal run.
    * Fig. 7's four depths are not given in the text (the figure is an image): default
      :data:`FIG7_DEPTHS` = (5, 10, 20, 50).
"""

from __future__ import annotations

from irscales import options
from irscales.measures import AP, NDCG, RBP, RR, Measure, P
from irscales.options import METRIC_TESTS

__all__ = [
    "FIG4_S1", "FIG4_S2", "GRADED_EXAMPLE", "TABLE2_DEPTHS", "TABLE3_DEPTHS", "FIG7_DEPTHS", "JONES_K",
    "GROUPS", "metrics_at", "metric_labels", "TEST_NAMES", "TEST_LABELS", "FIG3_LABELS", "FIG3_PANES",
]

FIG4_S1 = (1, 0, 1, 1, 0, 0, 1, 0, 0, 0)
FIG4_S2 = (1, 0, 1, 0, 0, 1, 1, 0, 1, 1)
"""The Fig. 4 pair as given in the authors' example code (the figure in the text is an image)."""

GRADED_EXAMPLE = {
    "S1": (1.0, 0.8, 0.0, 0.2, 1.0), "S2": (0.8, 0.8, 0.0, 0.2, 0.8), "S3": (1.0, 0.2, 0.0, 0.8, 1.0),
}
"""The real-valued gain SERPs of MM23 §4 (ratio scale {0, 0.2, 0.8, 1})."""

TABLE2_DEPTHS = (5, 10, 15, 20, 50, 100)
TABLE3_DEPTHS = (5, 10, 15, 20, 50, 100)
FIG7_DEPTHS = (5, 10, 20, 50)
JONES_K = 10
"""Depth of the exhaustive lists of Jones et al. (2015) that MM23 §6 counts (all zeros excluded)."""

#: MM23 Fig. 5 groups, top to bottom.
GROUPS = ("** via ns", "ns", "=", "ni", "** via ni")

#: Short test names of notebook 05's tables and CSVs: the library's names (:data:`irscales.options.TEST_NAMES`)
#: of MM23's tests, in the paper's order (keys: :data:`irscales.stats._significance.TESTS`).
TEST_NAMES = {k: options.TEST_NAMES[k] for k in METRIC_TESTS}
#: Row labels of the Fig. 7 plot (the figure's wording), for the same tests.
TEST_LABELS = dict(zip(METRIC_TESTS, ("Sign test", "Wilcoxon signed-rank", "Student t")))

#: Fig. 3 axis labels: RBP(0.5); "AP" = AP@k with recall base k, whose order is that of SP; NDCG@k.
FIG3_LABELS = {"RBP_p05": "RBP(0.5)", "SP": "AP", "nDCG_log2p1": "NDCG"}
#: Fig. 3 panes (a)–(d): (row axis, column axis) as measure keys.
FIG3_PANES = (("RBP_p05", "RBP_p05"), ("RBP_p05", "nDCG_log2p1"), ("SP", "RBP_p05"), ("SP", "nDCG_log2p1"))


def metrics_at(k: int) -> dict[str, Measure]:
    """The six metrics of MM23 Figs 5–7 at depth k, keyed by :attr:`Measure.key` (module docstring)."""
    ms = (RR(), P(k=k), RBP(p=0.5), RBP(p=0.8), AP(), NDCG(discount="log2p1"))
    return {m.key: m for m in ms}


def metric_labels(k: int, generic: bool = False) -> dict[str, str]:
    """The paper's names of :func:`metrics_at` ``(k)``: ``{key: label}`` (``Prec@10``, or ``Prec@k``
    with ``generic=True``, as in Fig. 7)."""
    labels = ("RR", "Prec@k" if generic else f"Prec@{k}", "RBP(0.5)", "RBP(0.8)", "AP", "NDCG")
    return dict(zip(metrics_at(k), labels))
