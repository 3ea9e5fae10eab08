"""Fer17 — Ferro, *What Does Affect the Correlation Among Evaluation Measures?* (ACM TOIS 2017).

One module per concern, every public name importable from ``irscales.papers.fer17``:

- :mod:`~irscales.papers.fer17.measures`   the §3.3 measures by canonical key, the paper's labels
  (display only), score matrices on a collection;
- :mod:`~irscales.papers.fer17.kde`        the §3.4 GoP validation: KDE (eq. 6) and D_KL (eq. 7);
- :mod:`~irscales.papers.fer17.plots`      Figs. 1, 3, 4 (left), 6, 8, 9, 11, 12 (left), 14;
- :mod:`~irscales.papers.fer17.printed`    everything recomputed from the paper's printed numbers;
- :mod:`~irscales.papers.fer17.reproduce`  :func:`reproduce`, everything notebook 03 shows in one call,
  and its steps (data, tables as printed, the qualitative items compared with the paper);
- :mod:`~irscales.papers.fer17.sampling`   the sampling designs of RQ1–RQ3 and their progress labels (the core
  keeps τ and τ_AP, :mod:`irscales.correlation`, and the ANOVA, :mod:`irscales.stats`).
"""

from irscales.figures import RESPONSE_LABELS
from irscales.papers.fer17.kde import BANDWIDTH, distribution_summary, kde, kde_curve, kl_divergence
from irscales.papers.fer17.measures import (LABELS, MEASURE_NAMES, MEASURES, fer17_measures, label, labelled,
                                            score_matrices, system_performance)
from irscales.papers.fer17.plots import (plot_across_collections, plot_kde, plot_original_beside_gop,
                                         plot_pair_effects, plot_romp, plot_size_curves)
from irscales.papers.fer17.printed import (PRINTED_NOTE, RATIO_CLAIMS, SOURCE_NAMES, PrintedComparison, PrintedItems,
                                           printed_anova_class_items, printed_input_items,
                                           printed_marginal_changes, printed_ordering_items,
                                           printed_pair_effects, printed_ratio_items, printed_romp_items,
                                           printed_rq2_items, printed_values, power_contradiction,
                                           qualitative_anova_items, recompute_published_anova)
from irscales.papers.fer17.reproduce import (QUICK_SAMPLES, QUICK_SYSTEM_SIZES, QUICK_TOPIC_SIZES, Fer17Reproduction,
                                             anova_text, data_source, design_sizes, kl_halves, nested_tables,
                                             no1q_below_allq, original_systems_t08, pair_effects_table,
                                             qualitative_items, reproduce, set_scores, sets_line,
                                             topic_sets, tukey_same_group)

__all__ = [
    "MEASURES", "LABELS", "MEASURE_NAMES", "label", "labelled", "fer17_measures", "score_matrices",
    "system_performance", "BANDWIDTH", "kde", "kl_divergence", "kde_curve", "distribution_summary",
    "RESPONSE_LABELS", "plot_kde", "plot_original_beside_gop", "plot_size_curves", "plot_romp",
    "plot_across_collections", "plot_pair_effects", "SOURCE_NAMES", "PRINTED_NOTE", "qualitative_anova_items",
    "recompute_published_anova", "printed_values", "printed_pair_effects", "printed_romp_items",
    "printed_rq2_items", "printed_anova_class_items", "printed_marginal_changes", "RATIO_CLAIMS", "PrintedItems",
    "PrintedComparison", "power_contradiction",
    "printed_ratio_items", "printed_ordering_items", "printed_input_items", "QUICK_TOPIC_SIZES",
    "QUICK_SYSTEM_SIZES", "QUICK_SAMPLES", "design_sizes", "topic_sets", "data_source", "sets_line", "set_scores",
    "kl_halves", "original_systems_t08", "anova_text", "pair_effects_table", "tukey_same_group", "no1q_below_allq",
    "nested_tables", "qualitative_items", "Fer17Reproduction", "reproduce",
]
