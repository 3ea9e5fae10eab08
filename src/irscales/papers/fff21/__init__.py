"""FFF21 — Ferrante, Ferro, Fuhr, "Towards meaningful statements in IR evaluation: mapping
evaluation measures to interval scales" (IEEE Access 2021): its scales, tables, claims and the
work beyond its §8.

Modules (one concern each):

* :mod:`~irscales.papers.fff21.reproduce` — :func:`reproduce_scales`: every result of notebook 01a in one call;
* :mod:`~irscales.papers.fff21.record`   — :class:`Part` / :class:`Record`: what a notebook reproduces, and how
  sets, vectors and verdicts are written for ``data/published/fff21.csv``;
* :mod:`~irscales.papers.fff21.examples` — §2 Examples 1–8 (meaningfulness) and the toy variable of §3.2;
* :mod:`~irscales.papers.fff21.sets`     — §3.3–3.4: Precision, Recall, F1 on S[N, K]; Example 11;
* :mod:`~irscales.papers.fff21.runs4`    — Figs. 1–2 on the runs of length 4, Examples 9, 10 (Table 1), 12, 13
  and the tie-breaking example of §5;
* :mod:`~irscales.papers.fff21.scales`   — Figs. 3–5 and §5.1: all values over all 2^N runs, ties;
* :mod:`~irscales.papers.fff21.claims`   — claims recomputed from the printed Tables 2–6 and footnotes 7–8;
* :mod:`~irscales.papers.fff21.beyond`   — beyond §8: counted value curves, graded scales, graded Table 2 τ;
* :mod:`~irscales.papers.fff21.ranked`   — the measures and their ranked versions on a collection, FFF21's
  conventions (paper order, float AP, 8-decimal means) over :mod:`irscales.interval`;
* :mod:`~irscales.papers.fff21.tables`   — Tables 2–4 on TREC runs (notebook 01b);
* :mod:`~irscales.papers.fff21.significance_tables` — Tables 5–6: significance before and after the transform.

Notebooks: 01a (scales: examples, sets, runs4, scales), 01b (tables), 01c (claims), 07 (beyond).
"""

from irscales.papers.fff21.beyond import (counted_curves, graded_ranked_taus, graded_summary, graded_values,
                                          plot_value_curves, value_curve)
from irscales.papers.fff21.graded_scores import graded_measures
from irscales.papers.fff21.claims import (Claim, footnote_claims, pair_count_claims, section7_claims,
                                          significance_percent_checks, table4_delta_checks)
from irscales.papers.fff21.record import Part, Record
from irscales.papers.fff21.reproduce import ScalesReproduction, reproduce_scales
from irscales.papers.fff21.scales import FigureScales, build_scales
from irscales.papers.fff21.significance_tables import (critical_value_flips, grand_mean_delta,
                                                       plot_significance_changes, table56, table56_layout)
from irscales.papers.fff21.tables import (AP_FLOAT_ORDERS, TABLE4_PAIRS, Reproduction, difference_notes,
                                          float_ap_taus, published_items, reproduce_tables, save_table, table2,
                                          table3, table4, topic_by_topic_check)

__all__ = [
    "Part", "Record",
    "reproduce_scales", "ScalesReproduction", "FigureScales", "build_scales",
    "Claim", "footnote_claims", "pair_count_claims", "section7_claims", "significance_percent_checks",
    "table4_delta_checks",
    "value_curve", "counted_curves", "graded_values", "graded_summary", "graded_measures", "graded_ranked_taus",
    "plot_value_curves",
    "reproduce_tables", "Reproduction", "table2", "table3", "table4", "topic_by_topic_check", "TABLE4_PAIRS",
    "save_table", "published_items", "difference_notes", "float_ap_taus", "AP_FLOAT_ORDERS",
    "table56", "table56_layout", "critical_value_flips", "grand_mean_delta", "plot_significance_changes",
]
