"""MM23 — Moffat & Mackenzie, *How Much Freedom Does An Effectiveness Metric Really Have?*
(JASIST 2024): the reproduction notebook 05 calls.

* :mod:`~irscales.papers.mm23.conventions` — the paper's examples, depths and display labels;
* :mod:`~irscales.papers.mm23.part_a` — Table 1, Fig. 3's τ, Fig. 4, Table 2 (exhaustive, §2–§3);
* :mod:`~irscales.papers.mm23.part_b` — Table 3, Figs 7–8 on runs (§3);
* :mod:`~irscales.papers.mm23.pair_topics` — Figs 5–6 (one system pair over the topics);
* :mod:`~irscales.papers.mm23.printed` — items recomputed from the paper's printed numbers;
* :mod:`~irscales.papers.mm23.plots` — Figs 1–8;
* :mod:`~irscales.papers.mm23.reproduce` — published vs reproduced.

The IPSO core (Algorithm 1, counting, Monte Carlo, the IPSO sign test) is :mod:`irscales.ipso`.
"""

from irscales.papers.mm23.conventions import (
    FIG3_LABELS, FIG3_PANES, FIG4_S1, FIG4_S2, FIG7_DEPTHS, GRADED_EXAMPLE, GROUPS, JONES_K, TABLE2_DEPTHS,
    TABLE3_DEPTHS, TEST_LABELS, TEST_NAMES, metric_labels, metrics_at,
)
from irscales.papers.mm23.pair_topics import exact_values, fig5_pair, mandated_signs, order_by_mean, pair_topics
from irscales.papers.mm23.part_a import (
    TABLE1_METRICS, fig3_convention_taus, fig3_scores, fig4_frame, montecarlo_gap, reproduce_part_a,
    save_table2, table1, table2_frame, table2_notes, table2_sampling_gap,
)
from irscales.papers.mm23.part_b import (
    Runs, fig7, fig7_display, load_runs, relevant_mix, reproduce_part_b, split_simulated, table3,
    table3_with_paper, triangle,
)
from irscales.papers.mm23.plots import (
    AGREEMENT_COLORS, RELATION_COLORS, plot_fig3, plot_fig4, plot_fig7, plot_fig8, plot_grid, plot_hasse,
    plot_pair_topics, plot_triangle, relation_cmap,
)
from irscales.papers.mm23.printed import printed_product, reproduce_from_printed
from irscales.papers.mm23.reproduce import Reproduction, compare_published, reproduce, summary_line

__all__ = [
    "FIG3_LABELS", "FIG3_PANES", "FIG4_S1", "FIG4_S2", "FIG7_DEPTHS", "GRADED_EXAMPLE", "GROUPS", "JONES_K",
    "TABLE2_DEPTHS", "TABLE3_DEPTHS", "TEST_LABELS", "TEST_NAMES", "metric_labels", "metrics_at",
    "exact_values", "fig5_pair", "mandated_signs", "order_by_mean", "pair_topics",
    "TABLE1_METRICS", "fig3_convention_taus", "fig3_scores", "fig4_frame", "montecarlo_gap",
    "reproduce_part_a", "save_table2", "table1", "table2_frame", "table2_notes", "table2_sampling_gap",
    "Runs", "fig7", "fig7_display", "load_runs", "relevant_mix", "reproduce_part_b", "split_simulated",
    "table3", "table3_with_paper", "triangle",
    "AGREEMENT_COLORS", "RELATION_COLORS", "plot_fig3", "plot_fig4", "plot_fig7", "plot_fig8", "plot_grid",
    "plot_hasse", "plot_pair_topics", "plot_triangle", "relation_cmap",
    "printed_product", "reproduce_from_printed",
    "Reproduction", "compare_published", "reproduce", "summary_line",
]
