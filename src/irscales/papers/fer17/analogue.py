"""Fer17 RQ1–RQ3 on the authors' real grids of T07–T10 (issue 29): a *real-data analogue*, never a
reproduction.

Fer17 answers RQ1 and RQ2 on its T13–T15 (GOV2) grid and RQ3 on seven tracks; the GOV2 grids are
not public. The designs of notebook 03 (:mod:`irscales.papers.fer17.sampling`, :mod:`irscales.stats._anova`,
the helpers of :mod:`irscales.papers.fer17.reproduce`) run here on the published grids of T07–T10
(:func:`analogue_sets`: Fer17 §3.2's 1,326 systems, no 3-grams, one query form) and, for
comparison, on any other topic sets (the simulated grid of notebook 03). Every title, caption and
file name carries :data:`~irscales.papers.fer17.real_gop.ANALOGUE_LABEL`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from irscales.figures import RESPONSE_LABELS
from irscales.papers.fer17.measures import label
from irscales.papers.fer17.plots import plot_across_collections, plot_romp, plot_size_curves
from irscales.papers.fer17.printed import SOURCE_NAMES, printed_pair_effects, printed_values
from irscales.papers.fer17.real_gop import ANALOGUE_LABEL, CORPORA, GopTrack
from irscales.papers.fer17.reproduce import nested_tables, no1q_below_allq, qualitative_items, tukey_same_group
from irscales.papers.fer17 import sampling
from irscales.stats import _anova as anova
from irscales.stats._anova import effect_size_class

__all__ = ["analogue_sets", "Designs", "run_designs", "side_by_side_anova", "anova_frame", "pair_effects_frame",
           "romp_against_paper", "rq2_grand_means", "qualitative_frame", "analogue_figures"]


def analogue_sets(gop: Mapping[str, GopTrack], query: str = "short",
                  three_grams: bool = False) -> tuple[dict[str, tuple[str, dict[str, np.ndarray]]], list[str]]:
    """The real grids as the topic sets of the RQ designs: (``topic set → (corpus, {measure label →
    (topics, systems)})``, dropped systems), with the systems of Fer17 §3.2 (no 3-grams: 6 × 13 × 17
    = 1,326) of one ``query`` form, the same systems in the same order on every track (checked). A
    system with a NaN score (Twist's 0/0, two cells of the authors' T09 grid, both of medium or long
    queries) cannot be ranked: it is dropped from every track and listed."""
    subs = {t: g.select(query, three_grams=three_grams) for t, g in gop.items()}
    first = next(iter(subs.values())).systems
    for t, sub in subs.items():
        if sub.systems != first:
            raise ValueError(f"{t}: the grid's systems differ from {next(iter(subs))}'s; the RQ designs need the same systems")
    bad = np.zeros(len(first), bool)
    for sub in subs.values():
        for v in sub.scores.values():
            bad |= v.isna().to_numpy().any(axis=0)
    keep = [s for s, b in zip(first, bad) if not b]
    out = {t: (CORPORA.get(t, t), {label(k): v.loc[:, keep].to_numpy() for k, v in sub.scores.items()})
           for t, sub in subs.items()}
    return out, [s for s, b in zip(first, bad) if b]


@dataclass
class Designs:
    """The RQ1–RQ3 results of one data source (:func:`run_designs`): the long correlation frames
    and the tables the paper prints, under the paper's numbers."""

    rq1: pd.DataFrame          # allQ and no1Q rows of the RQ1/RQ2 design
    table2: pd.DataFrame       # GLMM eq. (8), τ
    table3: pd.DataFrame       # GLMM eq. (8), τ_AP
    pair_tau: pd.Series        # Table 4, τ
    pair_tau_ap: pd.Series     # Table 4, τ_AP
    tukey: dict                # (response, factor) -> levels in the reference's Tukey group
    table5: pd.DataFrame       # RQ2, τ
    table6: pd.DataFrame       # RQ2, τ_AP
    no1q_lower: bool           # §5.2.1 for AP vs nDCG@20
    rq3: pd.DataFrame
    table7: pd.DataFrame | None
    table8: pd.DataFrame | None
    rq3_tau: pd.Series         # Table 9, τ
    rq3_tau_ap: pd.Series      # Table 9, τ_AP

    def qualitative(self) -> dict[str, str]:
        """The qualitative findings compared with the paper (:func:`irscales.papers.fer17.qualitative_items`)."""
        return qualitative_items({"table2": self.table2, "table3": self.table3, "table7": self.table7,
                                  "table8": self.table8}, (self.pair_tau, self.pair_tau_ap), self.no1q_lower, self.tukey)


def run_designs(sets: Mapping[str, tuple[str, Mapping[str, np.ndarray]]], rq1_sets: Sequence[str], seed: int,
                topic_sizes: Sequence[int], system_sizes: Sequence[int], n_samples: int) -> Designs:
    """Fer17's RQ1–RQ3 analyses on ``sets`` (``topic set → (corpus, {measure label → (topics,
    systems)})``), the calls of notebook 03: RQ1/RQ2 on the topic sets ``rq1_sets`` merged
    (:func:`irscales.papers.fer17.sampling.correlation_design` with no1Q, seeded ``seed + 1``), the GLMM of
    eq. (8), Table 4, Tukey HSD against t = 50 and s = 100, Tables 5–6; RQ3 on every set (s = 100
    systems, H samples, seeded ``seed + 2``), eq. (9) and Table 9."""
    names = list(next(iter(sets.values()))[1])
    pooled = {m: np.concatenate([sets[ts][1][m] for ts in rq1_sets]) for m in names}
    data = sampling.correlation_design(pooled, np.random.default_rng(seed + 1), topic_sizes, system_sizes, n_samples,
                                       no1q=True, progress=False)
    rq1 = data[data.variant == "allQ"]
    tab2 = anova.balanced_anova(rq1, "tau", anova.CROSSED_TERMS)
    tab3 = anova.balanced_anova(rq1, "tau_ap", anova.CROSSED_TERMS)
    tukey = {}
    for resp, table in (("tau", tab2), ("tau_ap", tab3)):
        for factor, ref in (("topics", 50), ("systems", 100)):
            if ref in rq1[factor].unique():
                tukey[(resp, factor)] = tukey_same_group(rq1, table, resp, factor, ref)
    n_sys = min(100, next(iter(pooled.values())).shape[1])
    rq3 = sampling.rq3_design(sets, np.random.default_rng(seed + 2), n_systems=n_sys, n_samples=n_samples,
                              progress=False)
    tab7, tab8 = nested_tables(rq3)
    return Designs(data, tab2, tab3, anova.marginal_means(rq1, "tau", "pair"), anova.marginal_means(rq1, "tau_ap", "pair"),
                   tukey, sampling.rq2_table(data, "tau"), sampling.rq2_table(data, "tau_ap"),
                   no1q_below_allq(data, "AP vs nDCG@20"), rq3, tab7, tab8,
                   anova.marginal_means(rq3, "tau", "pair"), anova.marginal_means(rq3, "tau_ap", "pair"))


def side_by_side_anova(published: pd.DataFrame, designs: Mapping[str, Designs], table: str) -> pd.DataFrame:
    """One ANOVA table of the paper (``table2``, ``table3``, ``table7``, ``table8``): ω², its §2.6 class
    and p, printed (``published``: :func:`irscales.papers.published.load` ``("fer17")``) and for each
    data source of ``designs``; columns (source, statistic)."""
    printed = printed_values(published)
    rows = {}
    for term, src in SOURCE_NAMES.items():
        key = f"{table}/{src}"
        if f"{key}/omega2" not in printed or term == "subject":
            continue
        row = {("paper", "omega2"): printed[f"{key}/omega2"],
               ("paper", "class"): effect_size_class(printed[f"{key}/omega2"]), ("paper", "p"): printed[f"{key}/p"]}
        for name, d in designs.items():
            t = getattr(d, table)
            if t is not None and term in t.index:
                row.update({(name, "omega2"): t.loc[term, "omega2"], (name, "class"): t.loc[term, "effect"],
                            (name, "p"): t.loc[term, "p_value"]})
        rows[src] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def anova_frame(published: pd.DataFrame, designs: Mapping[str, Designs]) -> pd.DataFrame:
    """Tables 2, 3, 7 and 8 side by side (:func:`side_by_side_anova`) as one long frame for a CSV:
    table, source (effect), data (paper or a design's name), omega2, class, p."""
    parts = []
    for tab in ("table2", "table3", "table7", "table8"):
        t = side_by_side_anova(published, designs, tab)
        parts.append(t.stack(0, future_stack=True).rename_axis(["source", "data"]).assign(table=tab).reset_index())
    return pd.concat(parts, ignore_index=True)[["table", "source", "data", "omega2", "class", "p"]]


def pair_effects_frame(published: pd.DataFrame, designs: Mapping[str, Designs], table: str = "table4") -> pd.DataFrame:
    """The measure-pair main effects of Table 4 (RQ1) or Table 9 (RQ3) printed and of each design,
    indexed by the paper's pairs; columns (data, tau | tau_ap). A pair a design lacks (Twist's, with
    seven measures) is NaN."""
    printed = printed_pair_effects(published, table)
    attr = "pair" if table == "table4" else "rq3"
    cols = {("paper", r): printed[r] for r in ("tau", "tau_ap")}
    for name, d in designs.items():
        for r in ("tau", "tau_ap"):
            cols[(name, r)] = getattr(d, f"{attr}_{r}").reindex(printed.index)
    return pd.concat(cols, axis=1)


def romp_against_paper(published: pd.DataFrame, d: Designs) -> pd.DataFrame:
    """How the ranking of measure pairs (RoMP) of a design compares with the paper's, for Table 4
    (RQ1) and Table 9 (RQ3), and RQ1 against RQ3 within the design (§6.2.5):
    :func:`irscales.papers.fer17.sampling.romp_comparison` (tauCorr, apCorr, RMSE) per response."""
    rows = {}
    for table, attr in (("table4", "pair"), ("table9", "rq3")):
        printed = printed_pair_effects(published, table)
        for r in ("tau", "tau_ap"):
            rows[(f"paper's {table} vs this", r)] = sampling.romp_comparison(printed[r], getattr(d, f"{attr}_{r}")
                                                                             .reindex(printed.index))
    for r in ("tau", "tau_ap"):
        rows[("RQ1 vs RQ3 (§6.2.5)", r)] = sampling.romp_comparison(getattr(d, f"pair_{r}"), getattr(d, f"rq3_{r}"))
    return pd.DataFrame(rows).T[["tauCorr", "apCorr", "RMSE"]]


def rq2_grand_means(published: pd.DataFrame, designs: Mapping[str, Designs]) -> pd.DataFrame:
    """Tables 5–6 summarised as the paper's §5.2.2 does: the mean tauCorr, apCorr and RMSE of allQ vs
    no1Q over the (topics, systems) cells, printed and for each design; rows (data, response)."""
    val = printed_values(published)
    rows = {}
    for tab, resp in (("table5", "tau"), ("table6", "tau_ap")):
        rows[("paper", resp)] = {s: float(np.mean([v for k, v in val.items() if k.startswith(f"{tab}/")
                                                   and k.endswith(f"/{s}")])) for s in ("tauCorr", "apCorr", "RMSE")}
    for name, d in designs.items():
        for resp, t in (("tau", d.table5), ("tau_ap", d.table6)):
            rows[(name, resp)] = t.mean().to_dict()
    return pd.DataFrame(rows).T


def qualitative_frame(published: pd.DataFrame, designs: Mapping[str, Designs]) -> pd.DataFrame:
    """The paper's qualitative findings (significance and ω² class of every effect, the orderings
    the text states, the Tukey group of t = 50) as printed and in each design, with one
    ``<design> = paper`` column per design; items the paper does not print are left out."""
    q = pd.DataFrame({name: d.qualitative() for name, d in designs.items()})
    q.insert(0, "paper", published.set_index("item")["value"].reindex(q.index))
    q = q.dropna(subset=["paper"])
    for name in designs:
        q[f"{name} = paper"] = q[name] == q["paper"]
    return q.rename_axis("item")


def analogue_figures(d: Designs, full: bool, tag: str = "real_gop_analogue") -> Iterator[tuple[str, object]]:
    """The analogue's figures as (file stem, Figure), titled with
    :data:`~irscales.papers.fer17.real_gop.ANALOGUE_LABEL`: Figs. 4 and 12 (main effects, τ) and 8
    always; with ``full`` also Figs. 3, 4 and 12 (τ_AP), 5, 6, 9, 11, 13 and 14."""
    rq1 = d.rq1[d.rq1.variant == "allQ"]
    L = ANALOGUE_LABEL
    yield f"fig4_main_effects_tau_{tag}", anova.main_effects_plot(
        rq1, "tau", ["pair", "topics", "systems"], title=f"Fer17 Fig. 4, {L}: main effects, τ")
    yield f"fig8_allq_no1q_{tag}", plot_size_curves(
        d.rq1, "AP vs nDCG@20", variants=("allQ", "no1Q"), title=f"Fer17 Fig. 8, {L}: AP vs nDCG@20, allQ vs no1Q")
    yield f"fig12_main_effects_tau_{tag}", anova.main_effects_plot(
        d.rq3, "tau", ["pair", "corpus", "topic_set"], title=f"Fer17 Fig. 12, {L}: main effects, τ")
    if not full:
        return
    yield f"fig3_ap_ndcg20_sizes_{tag}", plot_size_curves(rq1, "AP vs nDCG@20", title=f"Fer17 Fig. 3, {L}: AP vs nDCG@20")
    yield f"fig6_romp_tau_vs_tauap_{tag}", plot_romp(d.pair_tau, d.pair_tau_ap, ("τ", "τ_AP"),
                                                     title=f"Fer17 Fig. 6, {L}: RoMP by τ and τ_AP")
    ref = (50, 100) if (50, 100) in d.table5.index else d.table5.index[len(d.table5) // 2]
    cell = d.rq1[(d.rq1.topics == ref[0]) & (d.rq1.systems == ref[1])]
    for resp in ("tau", "tau_ap"):
        R = RESPONSE_LABELS[resp]
        if resp == "tau_ap":
            yield f"fig4_main_effects_{resp}_{tag}", anova.main_effects_plot(
                rq1, resp, ["pair", "topics", "systems"], title=f"Fer17 Fig. 4, {L}: main effects, {R}")
            yield f"fig12_main_effects_{resp}_{tag}", anova.main_effects_plot(
                d.rq3, resp, ["pair", "corpus", "topic_set"], title=f"Fer17 Fig. 12, {L}: main effects, {R}")
        yield f"fig5_pair_topics_{resp}_{tag}", anova.interaction_plot(
            rq1, resp, "topics", "pair", title=f"Fer17 Fig. 5, {L}: pair × topic size, {R}")
        m = cell.groupby(["variant", "pair"], observed=True)[resp].mean()
        yield f"fig9_allq_no1q_{resp}_t{ref[0]}_s{ref[1]}_{tag}", plot_romp(
            m.loc["allQ"], m.loc["no1Q"], ("allQ", "no1Q"), title=f"Fer17 Fig. 9, {L}: {R}, t={ref[0]}, s={ref[1]}")
        yield f"fig11_collections_{resp}_{tag}", plot_across_collections(
            d.rq3, resp, title=f"Fer17 Fig. 11, {L}: {R} across topic sets")
        yield f"fig13_pair_topicset_{resp}_{tag}", anova.interaction_plot(
            d.rq3, resp, "topic_set", "pair", title=f"Fer17 Fig. 13, {L}: pair × topic set, {R}")
        yield f"fig14_rq1_vs_rq3_{resp}_{tag}", plot_romp(getattr(d, f"pair_{resp}"), getattr(d, f"rq3_{resp}"),
                                                          ("RQ1", "RQ3"), title=f"Fer17 Fig. 14, {L}: RQ1 vs RQ3, {R}")
