"""The steps of the Fer17 reproduction (notebook 03) that are more than a call and a print: the data
(topic sets of a preset or of saved collections), the §3.4 validation on two halves of the GoP and on
the real TREC-8 systems, the ANOVA and measure-pair tables as the paper lays them out, Tukey groups,
the RQ2 summaries, the nested RQ3 model and the qualitative items compared with the paper.

Scores are keyed by the paper's measure labels here (:func:`irscales.papers.fer17.measures.labelled`):
the measure pairs of the designs (``"AP vs nDCG@20"``) are what the tables and figures show.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from irscales import paths
from irscales.data import Collection, data_label, load_preset
from irscales.papers import published
from irscales.papers.fer17.kde import distribution_summary, kl_divergence
from irscales.papers.fer17.measures import labelled, score_matrices, system_performance
from irscales.papers.fer17.plots import plot_original_beside_gop
from irscales.papers.fer17.printed import SOURCE_NAMES, qualitative_anova_items
from irscales.stats import anova, sampling

__all__ = ["QUICK_TOPIC_SIZES", "QUICK_SYSTEM_SIZES", "QUICK_SAMPLES", "design_sizes", "topic_sets", "data_source",
           "sets_line", "set_scores", "kl_halves", "original_systems_t08", "anova_text", "pair_effects_table",
           "tukey_same_group", "no1q_below_allq", "nested_tables", "qualitative_items"]

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
    """An ANOVA table of :func:`irscales.stats.anova.balanced_anova` as the paper prints it: its
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
    (upper triangle, :func:`irscales.stats.sampling.pair_table`), to 4 decimals, ``-`` below."""
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
    yes = lambda c: "yes" if c else "no"  # noqa: E731
    out["s4.2.2/topic_size_omega2_gt_system_size"] = yes(w(tab2, "topics") > w(tab2, "systems")
                                                         and w(tab3, "topics") > w(tab3, "systems"))
    out["s4.2.2/system_size_omega2_tau_ap_gt_tau"] = yes(w(tab3, "systems") > w(tab2, "systems"))
    out["s4.2.1/tau_ap_below_tau"] = yes(bool((effects[1] < effects[0]).all()))
    out["s5.2.1/no1q_below_allq"] = yes(no1q_lower)
    if tab7 is not None:
        out["s6.2.2/topic_set_omega2_gt_corpus"] = yes(w(tab7, "topic_set(corpus)") > w(tab7, "corpus")
                                                       and w(tab8, "topic_set(corpus)") > w(tab8, "corpus"))
    if ("tau", "topics") in tukey:
        out["s4.2.3/tukey/topics_same_group_as_t50"] = ",".join(map(str, tukey[("tau", "topics")]))
    return out
