"""Fer17 in one call: :func:`reproduce` runs every section of notebook 03 in the paper's order and
returns what the notebook shows (:class:`Fer17Reproduction`: the printed lines of each section, the
results, and both comparisons with the published values).

Its steps, each a function here: the data (topic sets of a preset or of saved collections), the §3.4
validation on two halves of the GoP and on the real TREC-8 systems, the ANOVA and measure-pair tables
as the paper lays them out, Tukey groups, the RQ2 summaries, the nested RQ3 model and the qualitative
items compared with the paper; the paper's own printed tables are :mod:`irscales.papers.fer17.printed`.

Scores are keyed by the paper's measure labels here (:func:`irscales.papers.fer17.measures.labelled`):
the measure pairs of the designs (``"AP vs nDCG@20"``) are what the tables and figures show.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from irscales import paths
from irscales.data import Collection, data_label, load_preset
from irscales.figures import RESPONSE_LABELS, write_figure
from irscales.papers import published
from irscales.papers.fer17.kde import distribution_summary, kl_divergence
from irscales.papers.fer17.measures import MEASURE_NAMES, labelled, score_matrices, system_performance
from irscales.papers.fer17.plots import (plot_across_collections, plot_kde, plot_original_beside_gop,
                                         plot_pair_effects, plot_romp, plot_size_curves)
from irscales.papers.fer17.printed import (SOURCE_NAMES, printed_input_items, printed_pair_effects,
                                           qualitative_anova_items)
from irscales.papers.printing import yes_no
from irscales.papers.fer17 import sampling
from irscales.stats import _anova as anova

__all__ = ["QUICK_TOPIC_SIZES", "QUICK_SYSTEM_SIZES", "QUICK_SAMPLES", "design_sizes", "topic_sets", "data_source",
           "sets_line", "set_scores", "kl_halves", "original_systems_t08", "anova_text", "pair_effects_table",
           "tukey_same_group", "no1q_below_allq", "nested_tables", "qualitative_items", "Fer17Reproduction",
           "reproduce"]

#: The quick default (CI): the same code paths on 3 × 3 sizes and H = 10 samples.
QUICK_TOPIC_SIZES = (10, 30, 50)
QUICK_SYSTEM_SIZES = (10, 50, 100)
QUICK_SAMPLES = 10

#: How the ANOVA columns are printed (Fer17 Tables 2, 3, 7, 8).
_ANOVA_FORMAT = {"SS": "{:.4f}", "MS": "{:.4f}", "F": "{:.4f}", "p_value": "{:.3g}", "omega2": "{:.4f}",
                 "power": "{:.4f}"}


def design_sizes(full: bool, topic_sizes: Sequence[int] | None = None, system_sizes: Sequence[int] | None = None,
                 n_samples: int | None = None) -> tuple[Sequence[int], Sequence[int], int]:
    """Topic sizes, system sizes and samples H of the RQ1 design: those given, else Fer17 §4.1's
    (``full``) or the quick default."""
    return (topic_sizes or (sampling.TOPIC_SIZES if full else QUICK_TOPIC_SIZES),
            system_sizes or (sampling.SYSTEM_SIZES if full else QUICK_SYSTEM_SIZES),
            n_samples or (sampling.N_SAMPLES if full else QUICK_SAMPLES))


def topic_sets(preset: str, depth: int, seed: int,
               collections: Mapping[str, tuple[str, str]] | None = None) -> dict[str, tuple[str, Collection]]:
    """``topic set -> (corpus, Collection)``: the tracks of ``preset`` (labelled ``track`` and
    ``corpus``), or ``collections`` = ``{topic set: (corpus, path of a saved Collection)}``."""
    if collections is not None:
        return {ts: (corpus, Collection.load(path)) for ts, (corpus, path) in collections.items()}
    col = load_preset(preset, depth=depth, seed=seed)
    return {ts: (sub.topic_labels["corpus"][0], sub) for ts in dict.fromkeys(col.topic_labels["track"])
            for sub in [col.where(track=ts)]}


def data_source(sets: Mapping[str, tuple[str, Collection]]) -> tuple[bool, str, str]:
    """(any set simulated, the data tag of file names, the source named in titles): simulated, a
    public collection, or your runs."""
    tag = data_label(c for _, c in sets.values())
    source = {"simulated": "simulated", "trec": "your runs"}.get(tag, f"public collections, {tag}")
    return any(c.is_simulated for _, c in sets.values()), tag, source


def sets_line(sets: Mapping[str, tuple[str, Collection]], source: str) -> str:
    """One line: the topic sets with their corpus and number of topics, and the number of systems."""
    shown = {ts: (corpus, len(c.topics)) for ts, (corpus, c) in sets.items()}
    return f"{len(sets)} topic sets ({source}): {shown} | systems: {len(next(iter(sets.values()))[1].systems)}"


def set_scores(sets: Mapping[str, tuple[str, Collection]]) -> dict[str, dict[str, np.ndarray]]:
    """``topic set -> {measure label -> (T, S) scores}`` (:func:`score_matrices`, labelled)."""
    return {ts: labelled(score_matrices(c)) for ts, (_, c) in sets.items()}


def kl_halves(scores: Mapping[str, Mapping[str, np.ndarray]], rng: np.random.Generator,
              names: Sequence[str] | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """Table 1 analogue (§3.4): D_KL (eq. 7) between the per-system means of a random half of the
    systems and of the other half, per topic set (rows) and measure (columns). Returns the table and
    the half-A mask."""
    first = next(iter(scores.values()))
    names = list(first) if names is None else list(names)
    n_sys = next(iter(first.values())).shape[1]
    mask = np.zeros(n_sys, bool)
    mask[rng.permutation(n_sys)[: n_sys // 2]] = True
    kl = pd.DataFrame({m: {ts: kl_divergence(sc[m].mean(0)[mask], sc[m].mean(0)[~mask]) for ts, sc in scores.items()}
                       for m in names})
    kl.index = [f"{ts} half A vs half B" for ts in kl.index]
    return kl, mask


def original_systems_t08(full: bool, scores: Mapping[str, Mapping[str, np.ndarray]], source: str,
                         depth: int):
    """Fig. 1's original-systems side on the real TREC-8 runs, when ``full`` and they are found:
    (text, Figure or None, text after the figure). Table 1 needs the GoP half too."""
    t08 = paths.trec_track("T08") if full else None
    if t08 is None:
        why = ("not found; set IRSCALES_TREC (README: Your own TREC data)" if full
               else "skipped in the quick default (full=True reads them)")
        return f"TREC-8 original systems (real): {why}", None, ""
    orig = Collection.from_trec(t08.runs, t08.qrels, depth=1000)
    perf = labelled(system_performance(orig, ["AP", "gnDCG_b10@20"]))
    lines = [f"Fer17 Fig. 1, TREC-8 original systems (real): {len(orig.systems)} runs x {len(orig.topics)} topics, "
             "depth 1000", distribution_summary(perf).round(4).to_string()]
    gop = {m: scores["T08"][m].mean(0) for m in perf} if "T08" in scores else None
    if gop is not None:
        lines += [f"T08 GoP ({source}, depth {depth}), for comparison of shape only:",
                  distribution_summary(gop).round(4).to_string()]
    fig = plot_original_beside_gop(perf, gop, gop_label=f"T08 GoP ({source})",
                                   title=f"Fer17 Fig. 1: TREC-8 original systems (real) beside the T08 GoP ({source})")
    t1 = published.load("fer17")
    t1 = t1[t1.item.str.startswith("table1/T08/")]
    after = f"Table 1, T08: {len(t1)} items, none computable without the GoP half: " + ", ".join(t1.item)
    return "\n".join(lines), fig, after


def anova_text(table: pd.DataFrame, title: str) -> str:
    """An ANOVA table of :func:`irscales.stats._anova.balanced_anova` as the paper prints it: its
    source names (:data:`SOURCE_NAMES`), 4 decimals, p-values to 3 significant digits; with a title."""
    t = table.copy()
    t.index = [SOURCE_NAMES.get(i, i) for i in t.index]
    for c, f in _ANOVA_FORMAT.items():
        t[c] = [f.format(v) if pd.notna(v) else "" for v in t[c]]
    t["DF"] = t["DF"].astype(int)
    t["effect"] = t["effect"].fillna("")
    return f"{title}\n{t.to_string()}\n"


def pair_effects_table(tau: pd.Series, tau_ap: pd.Series, names: Sequence[str]) -> pd.DataFrame:
    """Fer17 Tables 4 and 9: the measure-pair main effects, a τ and a τ_AP row per measure
    (upper triangle, :func:`irscales.papers.fer17.sampling.pair_table`), to 4 decimals, ``-`` below."""
    t = pd.concat({"τ": sampling.pair_table(tau, names), "τ_AP": sampling.pair_table(tau_ap, names)}).swaplevel()
    t = t.loc[[(n, c) for n in names for c in ("τ", "τ_AP")]]
    return t.map(lambda v: "-" if pd.isna(v) else f"{v:.4f}")


def tukey_same_group(data: pd.DataFrame, table: pd.DataFrame, response: str, factor: str, ref) -> list:
    """The levels of ``factor`` not significantly different from ``ref`` by Tukey HSD (eq. 4) with
    the model's error term (``table``, an ANOVA of ``data``), ``ref`` included, sorted (Fig. 4)."""
    tk = anova.tukey_levels(data, response, factor, table.loc["Error", "MS"], table.loc["Error", "DF"])
    hit = tk[(tk.level_u == ref) | (tk.level_v == ref)]
    others = [int(r.level_v if r.level_u == ref else r.level_u) for r in hit.itertuples() if not r.significant]
    return sorted([ref] + others)


def no1q_below_allq(data: pd.DataFrame, pair: str) -> bool:
    """§5.2.1: is the mean τ and τ_AP of ``pair`` lower without the first quartile (no1Q) than with
    all systems (allQ) in every (topics, systems) cell?"""
    m = data[data.pair == pair].groupby(["topics", "systems", "variant"], observed=True)[["tau", "tau_ap"]].mean()
    m = m.unstack("variant")
    return bool(((m[("tau", "no1Q")] < m[("tau", "allQ")]) & (m[("tau_ap", "no1Q")] < m[("tau_ap", "allQ")])).all())


def nested_tables(rq3: pd.DataFrame) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """Tables 7 and 8: the nested model eq. (9) for τ and τ_AP, or (None, None) unless there are at
    least 2 corpora with at least 2 topic sets each."""
    multi = rq3.groupby("corpus", observed=True)["topic_set"].nunique()
    if not ((multi >= 2).all() and len(multi) >= 2):
        return None, None
    return (anova.balanced_anova(rq3, "tau", anova.NESTED_TERMS),
            anova.balanced_anova(rq3, "tau_ap", anova.NESTED_TERMS))


def qualitative_items(tables: Mapping[str, pd.DataFrame | None], effects: tuple[pd.Series, pd.Series],
                      no1q_lower: bool, tukey: Mapping[tuple[str, str], list]) -> dict[str, str]:
    """The qualitative findings on our data compared with the paper: significance and ω² class of
    every effect of ``tables`` (``{"table2": …, "table3": …, "table7": …, "table8": …}``), the
    orderings of §4.2.1, §4.2.2, §5.2.1 and §6.2.2, and the Tukey group of t = 50 (§4.2.3).
    ``effects``: the RQ1 measure-pair main effects (τ, τ_AP)."""
    out: dict[str, str] = {}
    for tab, table in tables.items():
        if table is not None:
            out.update(qualitative_anova_items(table, tab))
    tab2, tab3, tab7, tab8 = (tables.get(k) for k in ("table2", "table3", "table7", "table8"))
    w = lambda t, k: t.loc[k, "omega2"]  # noqa: E731
    out["s4.2.2/topic_size_omega2_gt_system_size"] = yes_no(w(tab2, "topics") > w(tab2, "systems")
                                                         and w(tab3, "topics") > w(tab3, "systems"))
    out["s4.2.2/system_size_omega2_tau_ap_gt_tau"] = yes_no(w(tab3, "systems") > w(tab2, "systems"))
    out["s4.2.1/tau_ap_below_tau"] = yes_no(bool((effects[1] < effects[0]).all()))
    out["s5.2.1/no1q_below_allq"] = yes_no(no1q_lower)
    if tab7 is not None:
        out["s6.2.2/topic_set_omega2_gt_corpus"] = yes_no(w(tab7, "topic_set(corpus)") > w(tab7, "corpus")
                                                       and w(tab8, "topic_set(corpus)") > w(tab8, "corpus"))
    if ("tau", "topics") in tukey:
        out["s4.2.3/tukey/topics_same_group_as_t50"] = ",".join(map(str, tukey[("tau", "topics")]))
    return out


# ----------------------------------------------------------------------------- the whole reproduction


def _line(*values) -> str:
    """The line ``print(*values)`` writes (without its newline)."""
    return " ".join(str(v) for v in values)


def _saved(fig, out: Path, stem: str) -> str:
    return _line("saved:", [p.name for p in write_figure(fig, out, stem)])


def _effect_plots(data: pd.DataFrame, factors: list[str], figs: tuple[int, int, str, str, str], source: str,
                  out: Path, tag: str) -> list[str]:
    """Main-effects and pair-interaction plots for τ and τ_AP (Figs. 4–5 of RQ1, 12–13 of RQ3): ``figs`` =
    (main-effects figure, interaction figure, the factor the pairs interact with, its name, file stem)."""
    main, inter, factor, level, stem = figs
    lines = []
    for resp in ("tau", "tau_ap"):
        fig = anova.main_effects_plot(data, resp, factors,
                                      title=f"Fer17 Fig. {main} ({source}): main effects, {RESPONSE_LABELS[resp]}")
        lines.append(_saved(fig, out, f"fig{main}_main_effects_{resp}_{tag}"))
        fig = anova.interaction_plot(data, resp, factor, "pair",
                                     title=f"Fer17 Fig. {inter} ({source}): pair × {level}, {RESPONSE_LABELS[resp]}")
        lines.append(_saved(fig, out, f"fig{inter}_{stem}_{resp}_{tag}"))
    return lines


@dataclass
class Fer17Reproduction:
    """What :func:`reproduce` computed: ``text`` (section → the lines notebook 03 prints, in order),
    ``data`` (section results later steps and the comparisons use), the data ``tag`` of file names
    (``simulated``, a public collection, ``trec``), whether any input is ``simulated``, and ``out``."""

    text: dict[str, str]
    data: dict[str, Any]
    tag: str
    simulated: bool
    out: Path

    def __getitem__(self, name: str) -> str:
        return self.text[name]

    def compare_printed(self) -> published.Comparison:
        """Every item recomputed from the paper's own printed numbers (route ``printed``)."""
        p = printed_input_items(published.load("fer17"))
        return published.compare("fer17", p.values, notes=p.notes, spreads=p.spreads, readings=p.readings,
                                 route="printed", below=p.below, contradicted=dict(p.contradicted))

    def compare_data(self) -> published.Comparison:
        """The qualitative findings on the data of this run (route ``simulated``, or ``real`` on your
        runs): significance and ω² class of every effect, orderings, the Tukey group of t = 50."""
        d = self.data
        sim = qualitative_items({"table2": d["tab2"], "table3": d["tab3"], "table7": d["tab7"], "table8": d["tab8"]},
                                (d["eff_tau"], d["eff_tap"]), d["no1q_lower"], d["tukey"])
        names, sizes = d["names"], d["sizes"]
        notes = {k: f"qualitative, {self.tag} data ({len(names)} measures, H = {sizes[2]}, sizes {list(sizes[0])} x "
                    f"{list(sizes[1])})" for k in sim}
        return published.compare("fer17", sim, notes=notes, route="simulated" if self.simulated else "real")

    def save_comparisons(self) -> str:
        """Write both comparison files to ``out`` (``published_vs_reproduced_printed.csv`` and
        ``published_vs_reproduced_<tag>.csv``) and return what the notebook prints about them."""
        cmp_printed = self.compare_printed()
        path = cmp_printed.save(self.out / "published_vs_reproduced_printed.csv")
        done = cmp_printed.frame[cmp_printed.frame.status != "not reproduced"]
        lines = [f"from printed inputs: {len(done)} items, {int(done.match.sum())} match. Saved {path.name}"]
        with pd.option_context("display.max_colwidth", 60):
            lines.append(done[~done.match][["item", "published", "reproduced", "status"]].to_string(index=False))
            cmp = self.compare_data()
            path = cmp.save(self.out / f"published_vs_reproduced_{self.tag}.csv")
            done = cmp.frame[cmp.frame.status != "not reproduced"]
            lines.append(f"\non {self.tag} data: {len(done)} qualitative items, {int(done.match.sum())} agree with the "
                         f"paper. Saved {path.name}")
            lines.append(done[["item", "published", "reproduced", "status"]].to_string(index=False))
        return "\n".join(lines)


def reproduce(*, full: bool = False, seed: int = 20170601, data_seed: int = 0, preset: str = "sim-gop",
              depth: int = 100, collections: Mapping[str, tuple[str, str]] | None = None,
              rq1_sets: Sequence[str] = ("T13", "T14", "T15"), topic_sizes: Sequence[int] | None = None,
              system_sizes: Sequence[int] | None = None, n_samples: int | None = None,
              out: str | Path | None = None) -> Fer17Reproduction:
    """Every Fer17 result of notebook 03, in the paper's order, on the topic sets of ``preset`` (or
    ``collections``, see :func:`topic_sets`): §3.4 (Table 1 / Fig. 1 analogue and the real TREC-8
    original systems when ``full``), RQ1 (Fig. 3, Tables 2–4, Figs. 4–6, Tukey, §4.2.5) on the merged
    ``rq1_sets``, RQ2 (Fig. 8, Tables 5–6, Fig. 9), RQ3 (Fig. 11, Tables 7–9, Figs. 12–14), and the
    paper's own printed tables (§4.2.5, §6.2.5, Figs. 4, 6, 12, 14 from Tables 4 and 9). ``seed`` is
    the only source of randomness (numpy Generators ``seed``, ``seed + 1``, ``seed + 2``); the design
    sizes are :func:`design_sizes`. Figures go to ``out`` (default ``figures/fer17``); the comparison
    files are written by :meth:`Fer17Reproduction.save_comparisons`."""
    out = Path(out) if out is not None else paths.figures_dir("fer17")
    out.mkdir(parents=True, exist_ok=True)
    text: dict[str, str] = {}
    d: dict[str, Any] = {}
    sizes = design_sizes(full, topic_sizes, system_sizes, n_samples)
    T_SIZES, S_SIZES, H = sizes
    sets = topic_sets(preset, depth, data_seed, collections)
    sim, tag, source = data_source(sets)
    scores = set_scores(sets)
    names = list(MEASURE_NAMES)
    d.update(sets=sets, scores=scores, names=names, sizes=sizes)
    text["setup"] = "\n".join([
        sets_line(sets, source), _line("measures:", names, "| pairs:", len(sampling.measure_pairs(names))),
        f"design: topic sizes {list(T_SIZES)}, system sizes {list(S_SIZES)}, H = {H}"])

    # §3.4: Table 1 / Fig. 1 on two halves of the GoP
    kl, half = kl_halves(scores, np.random.default_rng(seed))
    lines = [f"Table 1 analogue ({source}): KL divergence between two halves of the GoP, per track and measure",
             kl.round(4).to_string()]
    for ts, m in [(t, m) for t in ("T08", "T10", "T14") if t in scores for m in ("AP", "nDCG@20")]:
        v = scores[ts][m].mean(0)
        fig = plot_kde({"half A": v[half], "half B": v[~half]},
                       title=f"Fer17 Fig. 1 ({source}): {m} on {ts}, two halves of the GoP")
        lines.append(_saved(fig, out, f"fig1_kde_{ts}_{m.replace('@', '')}_{tag}"))
    text["kl"] = "\n".join(lines)
    d.update(kl=kl, half=half)

    first, fig, table1 = original_systems_t08(full, scores, source, depth)
    lines = [first]
    if fig is not None:
        lines += [_saved(fig, out, f"fig1_kde_T08_original_systems_real_beside_gop_{tag}"), table1]
    text["original"] = "\n".join(lines)

    # RQ1
    rq1_scores = {m: np.concatenate([scores[ts][m] for ts in rq1_sets]) for m in names}
    lines = [_line("RQ1 topic pool:", "+".join(rq1_sets), rq1_scores["AP"].shape, "(topics, systems)")]
    data = sampling.correlation_design(rq1_scores, np.random.default_rng(seed + 1), T_SIZES, S_SIZES, H,
                                       no1q=True, progress=False)
    rq1 = data[data.variant == "allQ"]
    lines.append(_line(len(rq1), "τ and τ_AP values (allQ);", len(data) - len(rq1), "more for no1Q"))
    fig = plot_size_curves(rq1, "AP vs nDCG@20", title=f"Fer17 Fig. 3 ({source}): AP vs nDCG@20, mean and 95% CI "
                                                       "over H samples")
    lines.append(_saved(fig, out, f"fig3_ap_ndcg20_sizes_{tag}"))
    text["rq1"] = "\n".join(lines)

    tab2 = anova.balanced_anova(rq1, "tau", anova.CROSSED_TERMS)
    tab3 = anova.balanced_anova(rq1, "tau_ap", anova.CROSSED_TERMS)
    text["tables2_3"] = "\n".join([anova_text(tab2, f"Table 2 ({source}): τ, GLMM eq. (8)"),
                                   anova_text(tab3, f"Table 3 ({source}): τ_AP, GLMM eq. (8)")])

    eff_tau, eff_tap = anova.marginal_means(rq1, "tau", "pair"), anova.marginal_means(rq1, "tau_ap", "pair")
    lines = [f"Table 4 ({source}): measure-pair main effects (τ_AP: row measure = reference)",
             pair_effects_table(eff_tau, eff_tap, names).to_string()]
    lines += _effect_plots(rq1, ["pair", "topics", "systems"], (4, 5, "topics", "topic size", "pair_topics"),
                           source, out, tag)
    text["table4"] = "\n".join(lines)

    # Tukey HSD (eq. 4) against t = 50 and s = 100, as in Fig. 4: levels in the same group as the reference
    tukey, lines = {}, []
    for resp, table in (("tau", tab2), ("tau_ap", tab3)):
        for factor, ref in (("topics", 50), ("systems", 100)):
            if ref in rq1[factor].unique():
                tukey[(resp, factor)] = tukey_same_group(rq1, table, resp, factor, ref)
                lines.append(f"Tukey ({source}), {resp}: {factor} levels not significantly different from {ref}: "
                             f"{tukey[(resp, factor)]}")
    for f in ("topics", "systems"):
        mm = pd.DataFrame({r: anova.marginal_means(rq1, r, f) for r in ("tau", "tau_ap")})
        lines += [f"marginal means by {f} ({source}):", mm.round(4).T.to_string()]
    text["tukey"] = "\n".join(lines)

    romp = sampling.romp_comparison(eff_tau, eff_tap)
    fig = plot_romp(eff_tau, eff_tap, ("τ", "τ_AP"),
                    title=f"Fer17 Fig. 6 ({source}): RoMP by τ and τ_AP, centred curves")
    text["romp"] = "\n".join([
        f"§4.2.5 ({source}): τ vs τ_AP RoMP: tauCorr = {romp['tauCorr']:.4f}, apCorr = {romp['apCorr']:.4f}, "
        f"RMSE = {romp['RMSE']:.4f}; swaps (discordant pairs of the two RoMP): {romp['swaps']}",
        _saved(fig, out, f"fig6_romp_tau_vs_tauap_{tag}")])
    d.update(data=data, rq1=rq1, tab2=tab2, tab3=tab3, eff_tau=eff_tau, eff_tap=eff_tap, tukey=tukey, romp=romp)

    # RQ2
    fig = plot_size_curves(data, "AP vs nDCG@20", variants=("allQ", "no1Q"),
                           title=f"Fer17 Fig. 8 ({source}): AP vs nDCG@20, allQ vs no1Q")
    lines = [_saved(fig, out, f"fig8_allq_no1q_{tag}")]
    t5, t6 = sampling.rq2_table(data, "tau"), sampling.rq2_table(data, "tau_ap")
    for name, t in (("Table 5 (τ)", t5), ("Table 6 (τ_AP)", t6)):
        lines += [f"{name} ({source}): allQ vs no1Q RoMP per (topics, systems)",
                  t.round(4).unstack("systems").to_string(), ""]
    lines.append(_line(f"grand means ({source}):", {r: t.mean().round(4).to_dict() for r, t in (("tau", t5),
                                                                                                ("tau_ap", t6))}))
    no1q_lower = no1q_below_allq(data, "AP vs nDCG@20")
    lines.append(f"AP vs nDCG@20: no1Q below allQ for τ and τ_AP in every cell ({source}): {no1q_lower}")
    ref = (50, 100) if (50, 100) in t5.index else t5.index[len(t5) // 2]
    for resp in ("tau", "tau_ap"):
        cell = data[(data.topics == ref[0]) & (data.systems == ref[1])]
        m = cell.groupby(["variant", "pair"], observed=True)[resp].mean()
        fig = plot_romp(m.loc["allQ"], m.loc["no1Q"], ("allQ", "no1Q"),
                        title=f"Fer17 Fig. 9 ({source}): {RESPONSE_LABELS[resp]}, allQ vs no1Q at t={ref[0]}, s={ref[1]}")
        lines.append(_saved(fig, out, f"fig9_allq_no1q_{resp}_t{ref[0]}_s{ref[1]}_{tag}"))
    text["rq2"] = "\n".join(lines)
    d.update(t5=t5, t6=t6, no1q_lower=no1q_lower)

    # RQ3
    n_sys = min(100, len(half))
    rq3 = sampling.rq3_design({ts: (corpus, scores[ts]) for ts, (corpus, _) in sets.items()},
                              np.random.default_rng(seed + 2), n_systems=n_sys, n_samples=H, progress=False)
    lines = [_line(len(rq3), f"τ and τ_AP values ({source}), s = {n_sys}")]
    for resp in ("tau", "tau_ap"):
        fig = plot_across_collections(rq3, resp, title=f"Fer17 Fig. 11 ({source}): {RESPONSE_LABELS[resp]} across "
                                                       "topic sets")
        lines.append(_saved(fig, out, f"fig11_collections_{resp}_{tag}"))
    tab7, tab8 = nested_tables(rq3)
    if tab7 is None:
        lines.append("eq. (9) needs >= 2 corpora with >= 2 topic sets each; skipped")
    else:
        lines += [anova_text(tab7, f"Table 7 ({source}): τ, GLMM eq. (9)"),
                  anova_text(tab8, f"Table 8 ({source}): τ_AP, GLMM eq. (9)")]
    text["rq3"] = "\n".join(lines)

    e3_tau, e3_tap = anova.marginal_means(rq3, "tau", "pair"), anova.marginal_means(rq3, "tau_ap", "pair")
    lines = [f"Table 9 ({source}): measure-pair main effects, RQ3",
             pair_effects_table(e3_tau, e3_tap, names).to_string()]
    lines += _effect_plots(rq3, ["pair", "corpus", "topic_set"], (12, 13, "topic_set", "topic set", "pair_topicset"),
                           source, out, tag)
    for resp, a, b in (("tau", eff_tau, e3_tau), ("tau_ap", eff_tap, e3_tap)):
        lines.append(_line(f"§6.2.5 ({source}) RQ1 vs RQ3, {resp}:",
                           {k: round(v, 4) for k, v in sampling.romp_comparison(a, b).items()}))
        fig = plot_romp(a, b, ("RQ1", "RQ3"), title=f"Fer17 Fig. 14 ({source}): RQ1 vs RQ3 measure-pair main effects, "
                                                    f"{RESPONSE_LABELS[resp]}")
        lines.append(_saved(fig, out, f"fig14_rq1_vs_rq3_{resp}_{tag}"))
    text["table9"] = "\n".join(lines)
    d.update(rq3=rq3, tab7=tab7, tab8=tab8, e3_tau=e3_tau, e3_tap=e3_tap)

    text["printed"] = _printed_tables(out)
    return Fer17Reproduction(text, d, tag, sim, out)


def _printed_tables(out: Path) -> str:
    """§4.2.5 and §6.2.5 from the printed Tables 4 and 9 (ties broken by order, and averaged), and
    Figs. 4 (left), 6, 12 (left), 14 redrawn from them (route ``printed``, not simulated)."""
    pub = published.load("fer17")
    t4, t9 = printed_pair_effects(pub, "table4"), printed_pair_effects(pub, "table9")
    runs = [("§4.2.5 from printed Table 4, ties broken by order (Fer17)", "tau", "tau_ap", t4, "order"),
            ("§4.2.5 from printed Table 4, averaged ties", "tau", "tau_ap", t4, "average")]
    runs += [(f"§6.2.5 from printed Tables 4 and 9, {resp}", resp, resp, t9, "order") for resp in ("tau", "tau_ap")]
    lines = []
    for what, a, b, other, ties in runs:
        r = sampling.romp_comparison(t4[a], other[b], ties=ties)
        lines.append(f"{what}: tauCorr = {r['tauCorr']:.4f}, apCorr = {r['apCorr']:.4f}, swaps = {r['swaps']}, "
                     f"RMSE = {r['RMSE']:.4f}")
    figs = {"fig4_left_pair_effects_from_printed_table4": plot_pair_effects(
                t4, title="Fer17 Fig. 4 (left) from printed Table 4 (not simulated): measure-pair main effects"),
            "fig6_romp_tau_vs_tauap_from_printed_table4": plot_romp(
                t4["tau"], t4["tau_ap"], ("τ", "τ_AP"),
                title="Fer17 Fig. 6 from printed Table 4 (not simulated): RoMP by τ and τ_AP, centred curves"),
            "fig12_left_pair_effects_from_printed_table9": plot_pair_effects(
                t9, title="Fer17 Fig. 12 (left) from printed Table 9 (not simulated): measure-pair main effects")}
    figs.update({f"fig14_rq1_vs_rq3_{resp}_from_printed_tables4_9": plot_romp(
        t4[resp], t9[resp], ("RQ1", "RQ3"), title="Fer17 Fig. 14 from printed Tables 4 and 9 (not simulated): RQ1 vs "
        "RQ3, " + RESPONSE_LABELS[resp]) for resp in ("tau", "tau_ap")})
    lines += [_saved(fig, out, stem) for stem, fig in figs.items()]
    return "\n".join(lines)
