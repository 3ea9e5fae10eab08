"""Fer17 from its own printed numbers (route ``printed``): the derived columns of the ANOVA tables
(Tables 2, 3, 7, 8), §4.2.5 and §6.2.5 from Tables 4 and 9, §5.2.2 from Tables 5–6, the
significance and ω² classes, §4.2.3's percentage differences, the ratio claims of §4.2.2 / §6.2.2
and the orderings the text states; plus the qualitative items of an ANOVA table on our data.
``published`` is always :func:`irscales.papers.published.load` ``("fer17")``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from irscales.papers.published import PRINTED_NOTE, parse_number
from irscales.stats.anova import effect_size_class, omega_squared, power
from irscales.stats.sampling import romp_comparison

__all__ = ["SOURCE_NAMES", "PRINTED_NOTE", "qualitative_anova_items", "recompute_published_anova",
           "printed_values", "printed_pair_effects", "printed_romp_items", "printed_rq2_items",
           "printed_anova_class_items", "printed_marginal_changes", "RATIO_CLAIMS", "RATIO_READING",
           "printed_ratio_items", "printed_ordering_items", "printed_input_items"]

#: Our ANOVA term names -> the source names of Fer17 Tables 2, 3, 7 and 8.
SOURCE_NAMES = {"subject": "Subject", "pair": "Measure Pair", "topics": "Topic Size", "systems": "System Size",
                "pair*topics": "Measure Pair*Topic Size", "pair*systems": "Measure Pair*System Size",
                "topics*systems": "Topic Size*System Size", "corpus": "Corpus",
                "topic_set(corpus)": "Topic Set(Corpus)", "pair*corpus": "Measure Pair*Corpus",
                "pair*topic_set(corpus)": "Measure Pair*Topic Set(Corpus)"}


def qualitative_anova_items(table, tab: str, alpha: float = 0.05) -> dict[str, str]:
    """Items ``<tab>/<source>/significant`` (yes/no at ``alpha``) and ``<tab>/<source>/effect_class``
    (Fer17 §2.6 ω² class) from an ANOVA table of :func:`irscales.stats.anova.balanced_anova` — the
    qualitative findings that can be compared between the paper's TREC data and ours."""
    out = {}
    for term, row in table.iterrows():
        if term in ("Error", "Total", "subject") or term not in SOURCE_NAMES:
            continue
        src = SOURCE_NAMES[term]
        out[f"{tab}/{src}/significant"] = "yes" if row["p_value"] < alpha else "no"
        out[f"{tab}/{src}/effect_class"] = row["effect"]
    return out


def recompute_published_anova(published, tables: Sequence[str] = ("table2", "table3", "table7", "table8"),
                              alpha: float = 0.05) -> tuple[dict[str, float], dict[str, float]]:
    """Recompute the derived columns of Fer17's printed ANOVA tables from their printed inputs:
    MS = SS/DF, F = MS/MS_error, p from the F distribution at the printed F and DF, ω² from eq. (3)
    at the printed F and DF with N = total DF + 1, and power (:func:`irscales.stats.anova.power`) at that
    ω². ``published`` is :func:`irscales.papers.published.load` ``("fer17")``. Returns (item -> value,
    item -> tolerance): a reproduction *from published inputs*, not from data. MS and F are computed
    from SS printed to 4 decimals, so their tolerance is that rounding error propagated plus half a
    unit of the printed last place; the other items use the default printed-precision match."""
    raw = {r.item: str(r.value) for r in published.itertuples(index=False)}
    val = {k: parse_number(v)[0] for k, v in raw.items()}
    out: dict[str, float] = {}
    tol: dict[str, float] = {}
    r = 0.5e-4  # SS are printed to 4 decimals
    for tab in tables:
        try:
            df_err, ss_err = val[f"{tab}/Error/DF"], val[f"{tab}/Error/SS"]
            n_total = int(val[f"{tab}/Total/DF"]) + 1
        except KeyError as e:
            raise KeyError(f"published data lack {e.args[0]!r}: not Fer17's CSV?") from None
        ms_err = ss_err / df_err
        out[f"{tab}/Error/MS"] = ms_err
        for src in SOURCE_NAMES.values():
            key = f"{tab}/{src}"
            if f"{key}/DF" not in val:
                continue
            dfv, ssv, fv = val[f"{key}/DF"], val[f"{key}/SS"], val[f"{key}/F"]
            out[f"{key}/MS"] = ssv / dfv
            out[f"{key}/F"] = (ssv / dfv) / ms_err
            tol[f"{key}/MS"] = r / dfv + r
            tol[f"{key}/F"] = out[f"{key}/F"] * (r / ssv + r / ss_err) + r
            p = float(stats.f.sf(fv, dfv, df_err))
            out[f"{key}/p"] = p
            printed = raw.get(f"{key}/p", "")
            if "e" in printed.lower():  # scientific notation: half a unit of the mantissa's last digit
                mant, exp = printed.lower().split("e")
                digits = len(mant.split(".")[1]) if "." in mant else 0
                tol[f"{key}/p"] = 0.5 * 10.0 ** (int(exp) - digits)
            if src != "Subject":
                w2 = omega_squared(fv, dfv, n_total)
                out[f"{key}/omega2"] = w2
                out[f"{key}/power"] = power(w2, dfv, df_err, n_total, alpha)
    return out, tol



def printed_values(published) -> dict[str, float]:
    """Every published item read as a number (``item -> value``; None where the text is not one)."""
    return {r.item: parse_number(str(r.value))[0] for r in published.itertuples(index=False)}


def printed_pair_effects(published, table: str) -> pd.DataFrame:
    """The measure-pair main effects printed in Fer17 Table 4 (``table="table4"``) or Table 9
    (``"table9"``) as a DataFrame indexed by pair label (``"AP vs P@10"``), columns ``tau`` and
    ``tau_ap``, in the order the table prints them (row by row) — the order that breaks ties."""
    cols = {}
    for resp in ("tau", "tau_ap"):
        pre = f"{table}/{resp}/"
        rows = [(str(r.item)[len(pre):], str(r.value)) for r in published.itertuples(index=False)
                if str(r.item).startswith(pre)]
        if not rows:
            raise KeyError(f"published data have no {pre}* items: not Fer17's CSV, or no {table}?")
        cols[resp] = pd.Series([float(v) for _, v in rows], index=[k for k, _ in rows])
    if not cols["tau"].index.equals(cols["tau_ap"].index):
        raise ValueError(f"{table}: the τ and τ_AP rows do not list the same measure pairs in the same order")
    return pd.DataFrame(cols)


def printed_romp_items(published) -> dict[str, float]:
    """§4.2.5 (Table 4: τ vs τ_AP RoMP) and §6.2.5 (Table 4 vs Table 9, for τ and for τ_AP) from the
    printed tables, through :func:`irscales.stats.sampling.romp_comparison` with Fer17's tie-by-order
    convention: items ``s4.2.5/{tauCorr, apCorr, romp_swaps, RMSE}`` and ``s6.2.5/<resp>/{tauCorr,
    apCorr, RMSE}``."""
    t4, t9 = printed_pair_effects(published, "table4"), printed_pair_effects(published, "table9")
    r = romp_comparison(t4["tau"], t4["tau_ap"])
    out = {"s4.2.5/tauCorr": r["tauCorr"], "s4.2.5/apCorr": r["apCorr"], "s4.2.5/romp_swaps": r["swaps"],
           "s4.2.5/RMSE": r["RMSE"]}
    for resp in ("tau", "tau_ap"):
        r = romp_comparison(t4[resp], t9[resp])
        out.update({f"s6.2.5/{resp}/{k}": r[k] for k in ("tauCorr", "apCorr", "RMSE")})
    return out


def printed_rq2_items(published, cell: tuple[int, int] = (50, 100)) -> dict[str, float]:
    """§5.2.2 from the printed Tables 5 (τ) and 6 (τ_AP): the grand mean of each row kind (tauCorr,
    apCorr, RMSE) over all (t, s) cells, and the values of the cell (t, s) = ``cell`` that the text
    and Fig. 9 discuss, plus the swaps that cell's tauCorr implies (1 − 2·swaps/C(n, 2), n the pairs
    of Table 4). Items ``s5.2.2/<resp>/grand/<stat>`` and ``s5.2.2/<resp>/t<t>_s<s>/<stat>``."""
    val = printed_values(published)
    n_pairs = len(printed_pair_effects(published, "table4"))
    out = {}
    for tab, resp in (("table5", "tau"), ("table6", "tau_ap")):
        t, s = cell
        # tauCorr of two strict RoMP is 1 − 2·swaps/C(n, 2): the swaps the text counts in Fig. 9
        out[f"s5.2.2/{resp}/t{t}_s{s}/swaps"] = (1.0 - val[f"{tab}/t{t}/s{s}/tauCorr"]) * n_pairs * (n_pairs - 1) / 4
        for stat in ("tauCorr", "apCorr", "RMSE"):
            cells = [v for k, v in val.items() if k.startswith(f"{tab}/") and k.endswith(f"/{stat}")]
            if not cells:
                raise KeyError(f"published data have no {tab}/*/{stat} items")
            out[f"s5.2.2/{resp}/grand/{stat}"] = float(np.mean(cells))
            t, s = cell
            out[f"s5.2.2/{resp}/t{t}_s{s}/{stat}"] = val[f"{tab}/t{t}/s{s}/{stat}"]
    return out


def printed_anova_class_items(published, tables: Sequence[str] = ("table2", "table3", "table7", "table8"),
                              alpha: float = 0.05) -> dict[str, str]:
    """``<tab>/<source>/significant`` (printed p < ``alpha``) and ``<tab>/<source>/effect_class``
    (§2.6 class of the printed ω², :func:`irscales.stats.anova.effect_size_class`) for every effect row of
    the printed ANOVA tables."""
    val = printed_values(published)
    out = {}
    for tab in tables:
        for src in SOURCE_NAMES.values():
            key = f"{tab}/{src}"
            if f"{key}/omega2" not in val:
                continue
            out[f"{key}/significant"] = "yes" if val[f"{key}/p"] < alpha else "no"
            out[f"{key}/effect_class"] = effect_size_class(val[f"{key}/omega2"])
    return out


def printed_marginal_changes(published) -> tuple[dict[str, float], dict[str, float]]:
    """§4.2.3's percentage differences between the printed marginal means: for every published item
    ``s4.2.3/change/<resp>/<a>_vs_<b>`` the relative difference |m_a − m_b| / m_b in percent, from
    the printed ``s4.2.3/<resp>/<a>`` and ``s4.2.3/<resp>/<b>``. Returns (item -> value, item ->
    tolerance): the means are printed to 4 decimals, so the tolerance is that rounding propagated
    plus half a unit of the printed percentage's last place."""
    val = printed_values(published)
    out, tol = {}, {}
    for r in published.itertuples(index=False):
        item = str(r.item)
        if not item.startswith("s4.2.3/change/"):
            continue
        resp, pair = item.split("/")[2:4]
        a, b = pair.split("_vs_")
        ma, mb = val[f"s4.2.3/{resp}/{a}"], val[f"s4.2.3/{resp}/{b}"]
        out[item] = abs(ma - mb) / mb * 100.0
        h = 0.5e-4  # half a unit of the means' 4th decimal
        _, decimals, _ = parse_number(str(r.value))
        tol[item] = 100.0 * (h / mb + h * ma / mb ** 2) + 0.5 * 10.0 ** -decimals
    return out, tol


#: §4.2.2 / §6.2.2 ratio claims: item -> ((table, source) of the numerator ω², (table, source) of
#: the denominator ω²). Which effects the text compares; the claimed numbers are in the CSV.
RATIO_CLAIMS = {
    "s4.2.2/ratio/topic_size_over_measure_pair/tau": (("table2", "Topic Size"), ("table2", "Measure Pair")),
    "s4.2.2/ratio/topic_size_over_measure_pair/tau_ap": (("table3", "Topic Size"), ("table3", "Measure Pair")),
    "s4.2.2/ratio/system_size/tau_ap_over_tau": (("table3", "System Size"), ("table2", "System Size")),
    "s4.2.2/ratio/pair_topic_size/tau_over_tau_ap": (("table2", "Measure Pair*Topic Size"),
                                                     ("table3", "Measure Pair*Topic Size")),
    "s6.2.2/ratio/corpus/tau_ap_over_tau": (("table8", "Corpus"), ("table7", "Corpus")),
    "s6.2.2/ratio/topic_set_over_corpus/tau": (("table7", "Topic Set(Corpus)"), ("table7", "Corpus")),
    "s6.2.2/ratio/topic_set_over_corpus/tau_ap": (("table8", "Topic Set(Corpus)"), ("table8", "Corpus")),
    "s6.2.2/ratio/pair_corpus_over_corpus/tau": (("table7", "Measure Pair*Corpus"), ("table7", "Corpus")),
    "s6.2.2/ratio/pair_corpus_over_corpus/tau_ap": (("table8", "Measure Pair*Corpus"), ("table8", "Corpus")),
    "s6.2.2/ratio/pair_topic_set_over_topic_set/tau": (("table7", "Measure Pair*Topic Set(Corpus)"),
                                                       ("table7", "Topic Set(Corpus)")),
    "s6.2.2/ratio/pair_topic_set_over_topic_set/tau_ap": (("table8", "Measure Pair*Topic Set(Corpus)"),
                                                          ("table8", "Topic Set(Corpus)")),
    "s6.2.2/ratio/pair_topic_set_over_pair_topic_size/tau": (("table7", "Measure Pair*Topic Set(Corpus)"),
                                                             ("table2", "Measure Pair*Topic Size")),
    "s6.2.2/ratio/pair_topic_set_over_pair_topic_size/tau_ap": (("table8", "Measure Pair*Topic Set(Corpus)"),
                                                                ("table3", "Measure Pair*Topic Size")),
}

#: How loosely a verbal ratio claim is read, as a tolerance in units of the claimed number's last
#: written digit: "slightly less than"/"a little bit more than" one unit of it, "about 25" half of 5
#: (a round number); every other "about k" the default, half a unit of k's last digit.
RATIO_READING = {"s4.2.2/ratio/topic_size_over_measure_pair/tau": 1.0,
                 "s4.2.2/ratio/topic_size_over_measure_pair/tau_ap": 1.0,
                 "s4.2.2/ratio/system_size/tau_ap_over_tau": 1.0,
                 "s6.2.2/ratio/pair_topic_set_over_pair_topic_size/tau": 2.5,
                 "s6.2.2/ratio/pair_topic_set_over_pair_topic_size/tau_ap": 2.5}


def printed_ratio_items(published) -> tuple[dict[str, float], dict[str, float]]:
    """The ratio claims of §4.2.2 and §6.2.2 (:data:`RATIO_CLAIMS`) recomputed from the printed ω²
    of Tables 2, 3, 7 and 8. Returns (item -> ratio, item -> tolerance from :data:`RATIO_READING`)."""
    val = printed_values(published)
    printed = {str(r.item): str(r.value) for r in published.itertuples(index=False)}
    out, tol = {}, {}
    for item, ((tn, sn), (td, sd)) in RATIO_CLAIMS.items():
        if item not in printed:
            raise KeyError(f"published data lack the claim {item!r}")
        out[item] = val[f"{tn}/{sn}/omega2"] / val[f"{td}/{sd}/omega2"]
        if item in RATIO_READING:
            _, decimals, _ = parse_number(printed[item])
            tol[item] = RATIO_READING[item] * 10.0 ** -decimals
    return out, tol


def printed_ordering_items(published) -> dict[str, str]:
    """Orderings the text states, checked on the printed tables: topic size ω² above system size ω²
    (Tables 2, 3); system size ω² larger for τ_AP (Table 3) than for τ (Table 2); τ_AP below τ for
    every measure pair (Table 4); topic set ω² above corpus ω² (Tables 7, 8)."""
    val = printed_values(published)
    w = lambda tab, src: val[f"{tab}/{src}/omega2"]  # noqa: E731
    yes = lambda c: "yes" if c else "no"  # noqa: E731
    t4 = printed_pair_effects(published, "table4")
    return {
        "s4.2.2/topic_size_omega2_gt_system_size": yes(all(w(t, "Topic Size") > w(t, "System Size")
                                                            for t in ("table2", "table3"))),
        "s4.2.2/system_size_omega2_tau_ap_gt_tau": yes(w("table3", "System Size") > w("table2", "System Size")),
        "s4.2.1/tau_ap_below_tau": yes(bool((t4["tau_ap"] < t4["tau"]).all())),
        "s6.2.2/topic_set_omega2_gt_corpus": yes(all(w(t, "Topic Set(Corpus)") > w(t, "Corpus")
                                                     for t in ("table7", "table8"))),
    }


def printed_input_items(published) -> tuple[dict[str, object], dict[str, float], dict[str, str]]:
    """Everything of Fer17 that follows from numbers the paper itself prints, in one place: the
    ANOVA columns (:func:`recompute_published_anova`), §4.2.5 and §6.2.5 (:func:`printed_romp_items`),
    §5.2.2 (:func:`printed_rq2_items`), significance and ω² classes
    (:func:`printed_anova_class_items`), §4.2.3's percentage differences
    (:func:`printed_marginal_changes`), the ratio claims (:func:`printed_ratio_items`) and the
    stated orderings (:func:`printed_ordering_items`). Returns (item -> value, item -> tolerance,
    item -> note); every note starts with :data:`PRINTED_NOTE` and ends with the item's CSV note."""
    csv_notes = {str(r.item): str(r.note) for r in published.itertuples(index=False)}
    values: dict[str, object] = {}
    tol: dict[str, float] = {}
    what: dict[str, str] = {}

    def add(vals, tolerances, source):
        values.update(vals)
        tol.update(tolerances)
        what.update({k: source for k in vals})

    add(*recompute_published_anova(published), "SS, DF and F of Tables 2, 3, 7, 8")
    add(printed_romp_items(published), {}, "Tables 4 and 9 (ties broken by order of appearance)")
    add(printed_rq2_items(published), {}, "Tables 5 and 6")
    add(printed_anova_class_items(published), {}, "p-values and ω² of Tables 2, 3, 7, 8")
    add(*printed_marginal_changes(published), "marginal means of §4.2.3")
    add(*printed_ratio_items(published), "ω² of Tables 2, 3, 7, 8")
    add(printed_ordering_items(published), {}, "Tables 2, 3, 4, 7, 8")
    notes = {k: f"{PRINTED_NOTE} {src}" + (f"; {csv_notes[k]}" if csv_notes.get(k) else "")
             for k, src in what.items()}
    return values, tol, notes
