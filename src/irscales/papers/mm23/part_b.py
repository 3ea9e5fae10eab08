"""MM23 Part B (§3 from "Separability In Practice"): Table 3, Fig. 7 and Fig. 8 on a set of runs,
and the published-vs-reproduced items that need runs.

Everything is vectorised over all S(S−1)/2 system pairs × T topics of a
:class:`~irscales.data.collection.Collection` (MM23: 110 Robust 2004 runs, 5,995 pairs, 249 topics),
on the relations of :func:`irscales.ipso.pair_relations`.

* :func:`table3` — MM23 Table 3: fractions of all (pair, topic) SERP pairs that are equal,
  separable (ni + ns) and non-separable at k = 5, 10, 15, 20, 50, 100 (exact counts).
* :func:`fig7` — MM23 Fig. 7: per pair, metric test (sign, Wilcoxon signed-rank or paired t from
  :mod:`irscales.stats._significance`) against the IPSO sign test, in the categories "Both: Yes",
  "Both: No", "Metric: Yes", "Metric: No" (:func:`irscales.ipso.agreement`).
* :func:`triangle` — MM23 Fig. 8: the same categories per pair, systems ordered by mean Prec@10.
* "p < α" (MM23) for every decision (:mod:`irscales.ipso._agreement`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import pandas as pd

from irscales.data import Collection, load_preset
from irscales.ipso import (
    AGREEMENT, PairRelations, agreement, exact_sign, ipso_sign_tests, metric_tests, relations_of,
)
from irscales.ipso._agreement import METRIC_TESTS
from irscales.measures import NDCG, P
from irscales.papers.mm23.conventions import (
    FIG7_DEPTHS, GROUPS, TABLE3_DEPTHS, TEST_NAMES, metric_labels, metrics_at,
)
from irscales.papers.mm23.pair_topics import exact_values, fig5_pair, order_by_mean, pair_topics
from irscales.papers.printing import yes_no

__all__ = ["Runs", "load_runs", "table3", "table3_with_paper", "relevant_mix", "fig7", "fig7_display",
           "triangle", "reproduce_part_b", "split_simulated", "analogue_in_note"]


class Runs(NamedTuple):
    """The runs of Part B and how to name them: ``data`` for titles (``simulated``, ``TREC``,
    ``public (gop-cranfield)``), ``sim`` a prefix for captions, ``tag`` for file names
    (``simulated_r04`` on simulated data), and the Fig. 7 depths of the run."""

    col: Collection
    data: str
    sim: str
    tag: str
    fig7_depths: tuple[int, ...]


def load_runs(runs=None, qrels: str | None = None, preset: str = "sim-r04", seed: int = 0,
              full: bool = False, **reading) -> Runs:
    """Part B's runs cut at 100 documents: the TREC runs ``runs`` judged by ``qrels`` (MM23 §3
    "Experimental Setup": binary, grade ≥ 1 relevant, unjudged not relevant), read with the reading
    options ``reading`` (:data:`irscales.options.READING`), or the preset ``preset``. Unless ``full``, 30 of
    the systems spread over the collection (same code paths) and Fig. 7 depths 5 and 10 instead of
    :data:`FIG7_DEPTHS`."""
    if runs is not None:
        col = Collection.from_trec(runs, qrels, depth=100, **reading)
    else:
        col = load_preset(preset, depth=100, seed=seed)
    if not full and len(col.systems) > 30:
        S = len(col.systems)
        col = col.subset(systems=[round(i * (S - 1) / 29) for i in range(30)])
    name = "r04" if runs is not None else preset.removeprefix("sim-")  # gop-cranfield: real public runs
    data = "simulated" if col.is_simulated else ("TREC" if runs is not None else f"public ({preset})")
    return Runs(col, data, "simulated " if col.is_simulated else "", col.label(name),
                FIG7_DEPTHS if full else (5, 10))


def table3(rels: PairRelations, depths: Sequence[int] = TABLE3_DEPTHS) -> pd.DataFrame:
    """MM23 Table 3: fractions (%) of all (pair, topic) SERP pairs that are equal, separable
    (ni + ns) and non-separable at each depth, plus the exact counts behind them.

    Depths deeper than the relations' depth are refused (a run cut at N says nothing below N).
    """
    rows = []
    if not len(depths):
        raise ValueError("table3 needs at least one depth")
    for k in depths:
        c = rels.counts(k)
        tot = sum(c.values())
        rows.append({"k": int(k), "equal %": 100 * c["="] / tot, "separable %": 100 * (c["ni"] + c["ns"]) / tot,
                     "non-sep. %": 100 * c["**"] / tot, "n =": c["="], "n ni": c["ni"], "n ns": c["ns"],
                     "n **": c["**"], "SERP pairs": tot})
    return pd.DataFrame(rows).set_index("k")


def table3_with_paper(rels: PairRelations, published: pd.DataFrame) -> pd.DataFrame:
    """:func:`table3` with the printed values of ``published`` (``data/published/mm23.csv``) beside it."""
    t3 = table3(rels)
    pub = published.set_index("item")
    for k in t3.index:
        for col, key in (("equal %", "equal"), ("separable %", "separable"), ("non-sep. %", "nonsep")):
            t3.loc[k, f"paper {key}"] = pub.loc[f"table3/k{k}/{key}", "value"]
    return t3


def relevant_mix(rel, depths: Sequence[int] = TABLE3_DEPTHS) -> pd.DataFrame:
    """Percentage of relevant (1) and non-relevant (0) documents in the top k of all runs
    (MM23 §3: "at k = 5 there are 50.5% non-relevant and 49.5% relevant")."""
    a = np.asarray(rel) > 0
    rows = []
    for k in depths:
        if k > a.shape[-1]:
            raise ValueError(f"depth {k} exceeds the runs' depth {a.shape[-1]}")
        n1 = int(a[..., :k].sum())
        tot = a[..., :k].size
        rows.append({"k": int(k), "relevant %": 100 * n1 / tot, "non-relevant %": 100 * (tot - n1) / tot})
    return pd.DataFrame(rows).set_index("k")



def fig7(col: Collection, depths: Sequence[int] = FIG7_DEPTHS, tests: Sequence[str] = METRIC_TESTS, alpha: float = 0.05,
         rels: PairRelations | None = None, metrics: Mapping[str, object] | None = None,
         exact: bool = True) -> pd.DataFrame:
    """MM23 Fig. 7: for each metric × depth × test, the number and fraction of system pairs in
    each agreement category. Long frame: measure (:attr:`~irscales.measures.Measure.key`), depth,
    test (:data:`irscales.stats._significance.TESTS` key), category, pairs, fraction
    (:func:`fig7_display` gives the paper's names).

    The rational metrics (Prec, AP, RBP) are tested on exact Fractions by default, so equal
    differences tie and distinct ones never do. With ``exact=False`` they are floats, and the
    rank-based tests then depend on rounding: on the simulated Robust collection the signed-rank bar
    of RBP(0.8) at k = 5 moved by one pair between two machines of the same kind (float sums rounded
    differently), and on all 110 runs the float route miscounts one pair of that bar against the exact
    one. Exact costs about 10× the CPU time (tens of seconds on 110 runs).
    """
    rels = rels if rels is not None else relations_of(col)
    rows = []
    for k in depths:
        ip = ipso_sign_tests(rels, k, alpha)
        ms = metrics if metrics is not None else metrics_at(k)
        for name, m in ms.items():
            res = metric_tests(col.evaluate(m, k, exact=exact and getattr(m, "rational", False)), tests, alpha)
            for t in tests:
                cat = agreement(res[t][1], ip.significant)
                cnt = np.bincount(cat, minlength=4)
                for c, lab in enumerate(AGREEMENT):
                    rows.append({"measure": name, "depth": int(k), "test": t, "category": lab,
                                 "pairs": int(cnt[c]), "fraction": cnt[c] / cat.size})
    return pd.DataFrame(rows)



def fig7_display(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`fig7`'s frame with the paper's names: metric (``Prec@k`` …), test (``wilcoxon`` …)."""
    labels = [metric_labels(int(d), generic=True).get(m, m) for m, d in zip(frame["measure"], frame["depth"])]
    out = frame.drop(columns="measure").assign(test=frame["test"].map(TEST_NAMES))
    out.insert(0, "metric", labels)
    return out


def triangle(col: Collection, depth: int = 10, test: str = "ttest", alpha: float = 0.05, topics=None,
             measure=None, rels: PairRelations | None = None) -> pd.DataFrame:
    """MM23 Fig. 8: one row per system pair, systems ranked by mean ``measure`` (default
    Prec@depth) over ``topics`` (1 = best); the metric test on the paired scores and the IPSO
    sign test over the same topics, and the agreement category.

    Columns: system_a, system_b (rank_a < rank_b), rank_a, rank_b, metric_p, metric_sig,
    ni, ns, ipso_p, ipso_sig, category.
    """
    m = measure if measure is not None else P(k=depth)
    sub = col if topics is None else col.subset(topics=topics)
    if rels is None:
        rels = relations_of(col)
    if rels.systems != col.systems or rels.topics != col.topics:
        raise ValueError("the relations given were computed on a different collection")
    tidx = None if topics is None else np.array([col.topics.index(t) for t in sub.topics])
    ip = ipso_sign_tests(rels, depth, alpha, topics=tidx)
    p, sig = metric_tests(sub.evaluate(m, depth), [test], alpha)[test]
    order = order_by_mean(sub, m, depth)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(1, len(order) + 1)
    ra, rb_ = rank[rels.first], rank[rels.second]
    swap = ra > rb_
    names = np.array(col.systems, dtype=object)
    first = np.where(swap, rels.second, rels.first)
    second = np.where(swap, rels.first, rels.second)
    return pd.DataFrame({
        "system_a": names[first], "system_b": names[second],
        "rank_a": np.minimum(ra, rb_), "rank_b": np.maximum(ra, rb_),
        "metric_p": p, "metric_sig": sig, "ni": np.where(swap, ip.ns, ip.ni), "ns": np.where(swap, ip.ni, ip.ns),
        "ipso_p": ip.pvalue, "ipso_sig": ip.significant,
        "category": np.array(AGREEMENT, dtype=object)[agreement(sig, ip.significant)],
    })



def reproduce_part_b(col: Collection, rels: PairRelations | None = None, fig7_frame: pd.DataFrame | None = None,
                     fig5_topics: Sequence[str] | None = None) -> dict[str, object]:
    """Every Part-B item of ``data/published/mm23.csv`` recomputed on ``col`` (keys = items).

    They come from the collection (on a simulated collection they are the simulated analogue and
    must not be reported as reproductions — see :func:`split_simulated`); the items that follow
    from the paper's printed numbers are in :func:`reproduce_from_printed`. ``fig5_topics`` are the
    Fig. 5 topics (default: the first 25 in collection order).
    """
    out: dict[str, object] = {}
    rels = rels if rels is not None else relations_of(col)
    depths = [k for k in TABLE3_DEPTHS if k <= rels.depth]
    t3 = table3(rels, depths) if depths else None
    for k in depths:
        out[f"table3/k{k}/equal"] = float(t3.loc[k, "equal %"])
        out[f"table3/k{k}/separable"] = float(t3.loc[k, "separable %"])
        out[f"table3/k{k}/nonsep"] = float(t3.loc[k, "non-sep. %"])
    out["table3/serp_pairs"] = rels.n_pairs * len(rels.topics)
    mix_depths = [k for k in (5, 50) if k <= rels.depth]
    mix = relevant_mix(col.binary(), mix_depths) if mix_depths else pd.DataFrame()
    for k in mix.index:
        out[f"s3/mix_k{k}/relevant"] = float(mix.loc[k, "relevant %"])
        out[f"s3/mix_k{k}/nonrelevant"] = float(mix.loc[k, "non-relevant %"])
    if rels.depth >= 10:
        a, b = fig5_pair(col, 10)
        full = pair_topics(col, a, b, 10)
        sizes = full.groupby("group").size().reindex(GROUPS, fill_value=0)
        for key, g in zip(("group1_nonsep_via_ns", "group2_ns", "group3_equal", "group4_ni",
                           "group5_nonsep_via_ni"), GROUPS):
            out[f"fig6/{key}"] = int(sizes[g])
        out["fig6/nonsep_topics"] = int(sizes[GROUPS[0]] + sizes[GROUPS[4]])
        t5 = list(fig5_topics) if fig5_topics is not None else list(col.topics[:25])
        f5 = full[full["topic"].isin(t5)]
        out["fig5/group5_nonsep_via_ni"] = int((f5["group"] == GROUPS[4]).sum())
        pair_scores = col.subset(systems=[a, b])
        ms, labels = metrics_at(10), metric_labels(10)
        for key in (P(k=10).key, NDCG(discount="log2p1").key):
            pv = float(metric_tests(pair_scores.evaluate(ms[key], 10), ["ttest"])["ttest"][0][0])
            out[f"s3/fig5pair/{labels[key]}/t_p"] = pv
        for key in ("AP", "RBP_p05", "RBP_p08"):
            pv = float(metric_tests(pair_scores.evaluate(ms[key], 10), ["ttest"])["ttest"][0][0])
            out[f"s3/fig5pair/{labels[key]}/t_p_at_least_0.05"] = yes_no(pv >= 0.05)
        favour = []
        for m in ms.values():
            v = exact_values(col, m, 10, [a, b])
            if getattr(m, "rational", False):
                favour.append(sum(v[0], Fraction(0)) > sum(v[1], Fraction(0)))
            else:
                s0, s1 = float(np.sum(v[0])), float(np.sum(v[1]))
                favour.append(exact_sign(s0, s1, 10 * len(v[0])) > 0)
        out["s3/fig5pair/all_metrics_favour_A"] = yes_no(all(favour))
        tri = triangle(col, 10, "ttest", 0.05, rels=rels)
        frac = tri["category"].value_counts(normalize=True).reindex(AGREEMENT, fill_value=0)
        out["fig8a/both_yes"] = 100 * float(frac["Both: Yes"])
        out["fig8a/metric_yes"] = 100 * float(frac["Metric: Yes"])
        out["fig8a/metric_significant"] = 100 * float(tri["metric_sig"].mean())
        out["fig8a/ipso_significant"] = 100 * float(tri["ipso_sig"].mean())
    if fig7_frame is not None:
        agree = fig7_frame[fig7_frame["category"].isin(AGREEMENT[:2])].groupby(
            ["measure", "depth", "test"])["fraction"].sum()
        out["fig7/agreement_at_least_75pct"] = yes_no(float(agree.min()) >= 0.75)
    return out


def split_simulated(col: Collection, reproduced: Mapping[str, object], published: pd.DataFrame,
                    paper_runs: bool | None = None) -> tuple[dict, dict]:
    """(values to compare, notes): unless ``col`` holds the paper's own runs, items of kind ``trec``
    are moved to the notes as "… analogue: …" so they are never counted as reproductions.

    ``paper_runs`` says whether ``col`` is the Robust 2004 runs (default: any non-simulated
    collection is taken to be); a public collection such as the Grid of Points gives analogues too.
    """
    paper_runs = (not col.is_simulated) if paper_runs is None else paper_runs
    if paper_runs and not col.is_simulated:
        return dict(reproduced), {}
    what = "simulated" if col.is_simulated else f"{col.provenance}"
    kind = dict(zip(published["item"], published["kind"]))
    keep, notes = {}, {}
    for item, v in reproduced.items():
        if kind.get(item) == "trec":
            shown = f"{v:.4g}" if isinstance(v, float) else str(v)
            notes[item] = f"needs the Robust 2004 runs; {what} analogue: {shown}"
        else:
            keep[item] = v
    return keep, notes


def analogue_in_note(note: str, what: str = "simulated") -> str:
    """The value :func:`split_simulated` moved into a note ("…; simulated analogue: 27.65" → "27.65"),
    "" when the note holds none."""
    m = re.search(rf"(?:^|; ){re.escape(what)} analogue: ([^;]+)$", note or "")
    return m.group(1).strip() if m else ""

