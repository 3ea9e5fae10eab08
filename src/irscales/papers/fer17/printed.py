"""Fer17 from its own printed numbers (route ``printed``): the derived columns of the ANOVA tables
(Tables 2, 3, 7, 8), §4.2.5 and §6.2.5 from Tables 4 and 9, §5.2.2 from Tables 5–6, the
significance and ω² classes, §4.2.3's percentage differences, the ratio claims of §4.2.2 / §6.2.2
and the orderings the text states; plus the qualitative items of an ANOVA table on our data.
``published`` is always :func:`irscales.papers.published.load` ``("fer17")``.
"""

from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType
from typing import Mapping, NamedTuple, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from irscales.papers.printing import read, read_value, yes_no
from irscales.papers.published import PRINTED_NOTE
from irscales.stats._anova import effect_size_class, omega_squared, omega_squared_for_power, power
from irscales.papers.fer17.sampling import romp_comparison

__all__ = ["SOURCE_NAMES", "PRINTED_NOTE", "PrintedItems", "qualitative_anova_items", "recompute_published_anova",
           "printed_values", "printed_pair_effects", "printed_romp_items", "printed_rq2_items",
           "printed_anova_class_items", "printed_marginal_changes", "RATIO_CLAIMS", "printed_ratio_items",
           "printed_ordering_items", "PrintedComparison", "printed_input_items", "power_contradiction"]

#: Our ANOVA term names -> the source names of Fer17 Tables 2, 3, 7 and 8.
SOURCE_NAMES = {"subject": "Subject", "pair": "Measure Pair", "topics": "Topic Size", "systems": "System Size",
                "pair*topics": "Measure Pair*Topic Size", "pair*systems": "Measure Pair*System Size",
                "topics*systems": "Topic Size*System Size", "corpus": "Corpus",
                "topic_set(corpus)": "Topic Set(Corpus)", "pair*corpus": "Measure Pair*Corpus",
                "pair*topic_set(corpus)": "Measure Pair*Topic Set(Corpus)"}


def qualitative_anova_items(table, tab: str, alpha: float = 0.05) -> dict[str, str]:
    """Items ``<tab>/<source>/significant`` (yes/no at ``alpha``) and ``<tab>/<source>/effect_class``
    (Fer17 §2.6 ω² class) from an ANOVA table of :func:`irscales.stats._anova.balanced_anova` — the
    qualitative findings that can be compared between the paper's TREC data and ours."""
    out = {}
    for term, row in table.iterrows():
        if term in ("Error", "Total", "subject") or term not in SOURCE_NAMES:
            continue
        src = SOURCE_NAMES[term]
        out[f"{tab}/{src}/significant"] = yes_no(row["p_value"] < alpha)
        out[f"{tab}/{src}/effect_class"] = row["effect"]
    return out


class PrintedItems(NamedTuple):
    """Items recomputed from the paper's printed numbers: values, spreads (how far the exact value
    may be from ours because its inputs were printed rounded), where the paper leaves a
    convention or its settings open, every reading's or setting's value (ours first), strict
    upper bounds of exact values (``below``: a power is below 1), and the items the paper's own printed
    numbers contradict under every setting it leaves open (``contradicted``: item -> the evidence)."""

    values: dict[str, object]
    spreads: dict[str, float]
    readings: dict[str, dict[str, object]]
    below: Mapping[str, object] = MappingProxyType({})  # read-only: a shared default
    contradicted: Mapping[str, str] = MappingProxyType({})


#: The smallest positive double: where β underflows, the exact power 1 − β still lies in [1 − this, 1).
_TINY = 5e-324


def fitting_total(target: float, w2: float, df: float, df_err: float, n_total: int, alpha: float = 0.05) -> float | None:
    """The total sample size N′ at which eq. (5) (:func:`irscales.stats._anova.power`, the error df moving
    with N′ as G*Power's do: df_err + N′ − N) gives the power ``target``; ``None`` where none does (ω² = 0
    gives α at every N′, and the power only grows with N′)."""
    if w2 <= 0 or not alpha < target < 1:
        return None
    def gap(n: float) -> float:
        return power(w2, df, max(df_err + n - n_total, 1.0), n, alpha) - target
    lo, hi = df + 2.0, float(n_total)
    if gap(lo) > 0:
        return None
    while gap(hi) < 0:
        hi *= 2
        if hi > 1e12:
            return None
    from scipy.optimize import brentq
    return float(brentq(gap, lo, hi, xtol=0.5))


def _spread(f, x: float, lo_in: float, hi_in: float) -> float:
    """How far ``f`` moves from ``f(x)`` when its input moves over [lo_in, hi_in] (monotone ``f``)."""
    base = f(x)
    return float(max(abs(f(lo_in) - base), abs(f(hi_in) - base)))


def _miss(w2: float, df: float, df_err: float, n_total: int, alpha: float) -> float:
    """β = 1 − power of eq. (5) (:func:`irscales.stats._anova.power`), from the noncentral F's lower tail:
    where the power is 1 in double precision, how far from 1 it is (a power of 1 − 3.4e-62 is not 1)."""
    lam = n_total * w2 / (1.0 - w2)
    return float(stats.ncf.cdf(stats.f.ppf(1.0 - alpha, df, df_err), df, df_err, lam)) if lam > 0 else 1.0 - alpha


def recompute_published_anova(published, tables: Sequence[str] = ("table2", "table3", "table7", "table8"),
                              alpha: float = 0.05) -> PrintedItems:
    """Recompute the derived columns of Fer17's printed ANOVA tables from their printed inputs:
    MS = SS/DF, F = MS/MS_error, p from the F distribution at the printed F and DF, ω² from eq. (3)
    at the printed F and DF with N = total DF + 1, and power (:func:`irscales.stats._anova.power`) at that
    ω². ``published`` is :func:`irscales.papers.published.load` ``("fer17")``: a reproduction *from
    published inputs*, not from data. The spreads: MS and F are computed from SS printed to 4
    decimals, p, ω² and power from F printed to 4 decimals; each moves that far over its inputs'
    rounding (a power of 1 in double precision is 1 − β, β the miss probability, so β is its spread).
    The power is tried in two ways (Fer17 reads it from G*Power, whose settings it does not
    give): eq. (5) at ω² from eq. (3) (ours) and at the printed ω²; where neither gives the printed
    power, the sample size at which eq. (5) would (:func:`fitting_total`) is named among the values
    tried. Every power is bounded by 1 (``below``): eq. (5) is a noncentral F tail, never 1.

    A printed power the row's own printed ω² rules out under every setting is ``contradicted``
    (:func:`power_contradiction`): the ω² eq. (5) needs for it at the table's N (the smallest any sample
    size up to N allows) prints as another ω² than the row's, rounded or truncated."""
    raw = {r.item: str(r.value) for r in published.itertuples(index=False)}
    val = {k: read_value(v) for k, v in raw.items()}
    val = {k: float(v) if v is not None else None for k, v in val.items()}
    out: dict[str, object] = {}
    spread: dict[str, float] = {}
    readings: dict[str, dict[str, object]] = {}
    below: dict[str, object] = {}
    contradicted: dict[str, str] = {}
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
            h = float(read(raw[f"{key}/F"]).unit) / 2  # F is printed rounded
            out[f"{key}/MS"] = ssv / dfv
            out[f"{key}/F"] = (ssv / dfv) / ms_err
            spread[f"{key}/MS"] = r / dfv
            spread[f"{key}/F"] = out[f"{key}/F"] * (r / ssv + r / ss_err)
            def p_of(f, dfv=dfv):
                return float(stats.f.sf(f, dfv, df_err))
            out[f"{key}/p"] = p_of(fv)
            spread[f"{key}/p"] = _spread(p_of, fv, fv - h, fv + h)
            if src != "Subject":
                def w2_of(f, dfv=dfv):
                    return omega_squared(f, dfv, n_total)
                w2 = w2_of(fv)
                out[f"{key}/omega2"] = w2
                spread[f"{key}/omega2"] = _spread(w2_of, fv, fv - h, fv + h)
                ours = power(w2, dfv, df_err, n_total, alpha)
                out[f"{key}/power"] = ours
                spread[f"{key}/power"] = _spread(lambda f, dfv=dfv: power(w2_of(f), dfv, df_err, n_total, alpha),
                                                 fv, fv - h, fv + h)
                if ours == 1.0:  # 1 in double precision; the exact power is 1 − β, β > 0 (maybe below any double)
                    spread[f"{key}/power"] = max(spread[f"{key}/power"], _miss(w2, dfv, df_err, n_total, alpha), _TINY)
                below[f"{key}/power"] = 1
                printed_w2 = val.get(f"{key}/omega2")
                if printed_w2 is not None:
                    tried = {f"eq. (5) at ω² = {w2:.6f} from eq. (3) at the printed F, N = {n_total:,}": ours,
                             f"eq. (5) at the printed ω² = {raw[f'{key}/omega2']}": power(printed_w2, dfv, df_err,
                                                                                           n_total, alpha)}
                    target = val.get(f"{key}/power")
                    if target is not None and round(ours, 4) != target:
                        n_fit = fitting_total(target, w2, dfv, df_err, n_total, alpha)
                        if n_fit is not None:
                            tried[f"eq. (5) at ω² = {w2:.6f} and the sample size that gives the printed power, "
                                  f"N = {n_fit:,.0f} instead of {n_total:,}"] = power(
                                      w2, dfv, max(df_err + n_fit - n_total, 1.0), n_fit, alpha)
                        else:
                            tried[f"eq. (5) at ω² = {w2:.6f} and any sample size (none gives the printed power)"] = ours
                    readings[f"{key}/power"] = tried
                    if target is not None:
                        why = power_contradiction(raw[f"{key}/power"], raw[f"{key}/omega2"], raw[f"{key}/F"], dfv,
                                                  df_err, n_total, alpha)
                        if why is not None:
                            contradicted[f"{key}/power"] = why
    return PrintedItems(out, spread, readings, below, contradicted)


def power_contradiction(printed_power: str, printed_omega2: str, printed_f: str, df: float, df_err: float,
                        n_total: int, alpha: float = 0.05) -> str | None:
    """Why a printed power cannot follow from its row's printed ω² under any setting of eq. (5) (Fer17
    §2.6, :func:`irscales.stats._anova.power`) with a sample size up to the table's N, or ``None`` where one
    can. The power eq. (5) gives rises with ω² and with the sample size, so the ω² it needs for the printed
    power at N (:func:`irscales.stats._anova.omega_squared_for_power`) is the smallest any sample size
    N′ ≤ N allows; it contradicts the printed ω² when it is at or above every value that prints as that
    ω², rounded or truncated (below ω²_printed + one unit of its last place). The note gives the needed ω²,
    how it prints, the most power eq. (5) gives to an ω² that prints as the row's, and the row's F where
    it is below 1 (eq. (3) then gives ω² = 0 and the power α at every sample size)."""
    target, w2p = read(printed_power), read(printed_omega2)
    if target is None or w2p is None or w2p.unit is None:
        return None
    needed = omega_squared_for_power(float(target.value), df, df_err, n_total, alpha)
    top = w2p.value + w2p.unit
    if needed is None or needed < top:
        return None
    best = power(float(top), df, df_err, n_total, alpha)
    f = read_value(printed_f)
    null = (f"; the row's printed F = {printed_f} is below 1, so eq. (3) gives ω² = 0, whose power is α = {alpha:g} at "
            "every sample size" if f is not None and f < 1 else "")
    return (f"eq. (5) gives the printed power {printed_power} only at ω² = {needed:.6f} for the table's "
            f"N = {n_total:,} (df {df:g} and {df_err:,.0f}), and at a larger ω² for any smaller sample size; "
            f"ω² = {needed:.6f} prints as {w2p.render(Fraction(needed))}, not as the row's printed ω² "
            f"{printed_omega2}: every ω² that prints so, rounded or truncated, is below {float(top):g}, where eq. (5) "
            f"gives at most {best:.4f} at N = {n_total:,}{null}")


def printed_values(published) -> dict[str, float]:
    """Every published item read as a number (``item -> value``, :func:`irscales.papers.printing.read_value`;
    None where the text is not one)."""
    out = {}
    for r in published.itertuples(index=False):
        v = read_value(str(r.value))
        out[r.item] = None if v is None else float(v)
    return out


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
        cols[resp] = pd.Series([float(read_value(v)) for _, v in rows], index=[k for k, _ in rows])
    if not cols["tau"].index.equals(cols["tau_ap"].index):
        raise ValueError(f"{table}: the τ and τ_AP rows do not list the same measure pairs in the same order")
    return pd.DataFrame(cols)


def printed_romp_items(published) -> dict[str, float]:
    """§4.2.5 (Table 4: τ vs τ_AP RoMP) and §6.2.5 (Table 4 vs Table 9, for τ and for τ_AP) from the
    printed tables, through :func:`irscales.papers.fer17.sampling.romp_comparison` with Fer17's tie-by-order
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
    (§2.6 class of the printed ω², :func:`irscales.stats._anova.effect_size_class`) for every effect row of
    the printed ANOVA tables."""
    val = printed_values(published)
    out = {}
    for tab in tables:
        for src in SOURCE_NAMES.values():
            key = f"{tab}/{src}"
            if f"{key}/omega2" not in val:
                continue
            out[f"{key}/significant"] = yes_no(val[f"{key}/p"] < alpha)
            out[f"{key}/effect_class"] = effect_size_class(val[f"{key}/omega2"])
    return out


def printed_marginal_changes(published) -> tuple[dict[str, float], dict[str, float]]:
    """§4.2.3's percentage differences between the printed marginal means: for every published item
    ``s4.2.3/change/<resp>/<a>_vs_<b>`` the relative difference |m_a − m_b| / m_b in percent, from
    the printed ``s4.2.3/<resp>/<a>`` and ``s4.2.3/<resp>/<b>``. Returns (item -> value, item ->
    spread): the means are printed to 4 decimals, and the spread is that rounding propagated."""
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
        tol[item] = 100.0 * (h / mb + h * ma / mb ** 2)
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

def _tables(item: str) -> str:
    """The printed tables a ratio claim divides: "Table 3" or "Table 7 over Table 2"."""
    (num, _), (den, _) = RATIO_CLAIMS[item]
    return f"Table {num[5:]}" if num == den else f"Table {num[5:]} over Table {den[5:]}"


def printed_ratio_items(published) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """The ratio claims of §4.2.2 and §6.2.2 (:data:`RATIO_CLAIMS`) recomputed from the printed ω²
    of Tables 2, 3, 7 and 8. How the text's word ("about", "slightly less", …) is read is the
    comparison's rule (:mod:`irscales.papers.printing`). Returns (item -> ratio, item -> readings) where
    a sentence gives one ratio for both responses (τ and τ_AP): the ratio of each, and of both
    together (sums of the ω² of both tables), the item's own response first; only where the two
    responses' items print the same number (one sentence, one number)."""
    val = printed_values(published)
    pub_value = {str(r.item): str(r.value) for r in published.itertuples(index=False)}
    printed = set(pub_value)
    out, readings = {}, {}
    for item, ((tn, sn), (td, sd)) in RATIO_CLAIMS.items():
        if item not in printed:
            raise KeyError(f"published data lack the claim {item!r}")
        out[item] = val[f"{tn}/{sn}/omega2"] / val[f"{td}/{sd}/omega2"]
    for stem in {i.rsplit("/", 1)[0] for i in RATIO_CLAIMS}:
        tau, tap = f"{stem}/tau", f"{stem}/tau_ap"
        if tau not in RATIO_CLAIMS or tap not in RATIO_CLAIMS:
            continue
        if read_value(pub_value[tau]) != read_value(pub_value[tap]):
            continue  # the text gives each response its own number ("about 2–3 times")
        (a, b), (c, d) = RATIO_CLAIMS[tau], RATIO_CLAIMS[tap]
        both = (val[f"{a[0]}/{a[1]}/omega2"] + val[f"{c[0]}/{c[1]}/omega2"]) / \
               (val[f"{b[0]}/{b[1]}/omega2"] + val[f"{d[0]}/{d[1]}/omega2"])
        for own, other, name, other_name in ((tau, tap, "τ", "τ_AP"), (tap, tau, "τ_AP", "τ")):
            readings[own] = {f"{name} ({_tables(own)})": out[own], f"{other_name} ({_tables(other)})": out[other],
                             "τ and τ_AP together (sums of both tables' ω²)": both}
    return out, readings


def printed_ordering_items(published) -> dict[str, str]:
    """Orderings the text states, checked on the printed tables: topic size ω² above system size ω²
    (Tables 2, 3); system size ω² larger for τ_AP (Table 3) than for τ (Table 2); τ_AP below τ for
    every measure pair (Table 4); topic set ω² above corpus ω² (Tables 7, 8)."""
    val = printed_values(published)
    w = lambda tab, src: val[f"{tab}/{src}/omega2"]  # noqa: E731
    t4 = printed_pair_effects(published, "table4")
    return {
        "s4.2.2/topic_size_omega2_gt_system_size": yes_no(all(w(t, "Topic Size") > w(t, "System Size")
                                                            for t in ("table2", "table3"))),
        "s4.2.2/system_size_omega2_tau_ap_gt_tau": yes_no(w("table3", "System Size") > w("table2", "System Size")),
        "s4.2.1/tau_ap_below_tau": yes_no(bool((t4["tau_ap"] < t4["tau"]).all())),
        "s6.2.2/topic_set_omega2_gt_corpus": yes_no(all(w(t, "Topic Set(Corpus)") > w(t, "Corpus")
                                                     for t in ("table7", "table8"))),
    }


class PrintedComparison(NamedTuple):
    """Everything recomputed from the printed numbers, ready for
    :func:`irscales.papers.published.compare` (``values``, ``spreads``, ``notes``, ``readings``, ``below``,
    ``contradicted``)."""

    values: dict[str, object]
    spreads: dict[str, float]
    notes: dict[str, str]
    readings: dict[str, dict[str, object]]
    below: Mapping[str, object] = MappingProxyType({})  # read-only: a shared default
    contradicted: Mapping[str, str] = MappingProxyType({})


def printed_input_items(published) -> PrintedComparison:
    """Everything of Fer17 that follows from numbers the paper itself prints, in one place: the
    ANOVA columns (:func:`recompute_published_anova`), §4.2.5 and §6.2.5 (:func:`printed_romp_items`),
    §5.2.2 (:func:`printed_rq2_items`), significance and ω² classes
    (:func:`printed_anova_class_items`), §4.2.3's percentage differences
    (:func:`printed_marginal_changes`), the ratio claims (:func:`printed_ratio_items`) and the
    stated orderings (:func:`printed_ordering_items`). Every note starts with :data:`PRINTED_NOTE`
    and ends with the item's CSV note."""
    csv_notes = {str(r.item): str(r.note) for r in published.itertuples(index=False)}
    values: dict[str, object] = {}
    spreads: dict[str, float] = {}
    readings: dict[str, dict[str, object]] = {}
    what: dict[str, str] = {}

    def add(vals, source, spread=None, alternatives=None):
        values.update(vals)
        spreads.update(spread or {})
        readings.update(alternatives or {})
        what.update({k: source for k in vals})

    anova_items = recompute_published_anova(published)
    add(anova_items.values, "SS, DF and F of Tables 2, 3, 7, 8", anova_items.spreads, anova_items.readings)
    add(printed_romp_items(published), "Tables 4 and 9 (ties broken by order of appearance)")
    add(printed_rq2_items(published), "Tables 5 and 6")
    add(printed_anova_class_items(published), "p-values and ω² of Tables 2, 3, 7, 8")
    changes, change_spreads = printed_marginal_changes(published)
    add(changes, "marginal means of §4.2.3", change_spreads)
    ratios, ratio_readings = printed_ratio_items(published)
    add(ratios, "ω² of Tables 2, 3, 7, 8", alternatives=ratio_readings)
    add(printed_ordering_items(published), "Tables 2, 3, 4, 7, 8")
    notes = {k: f"{PRINTED_NOTE} {src}" + (f"; {csv_notes[k]}" if csv_notes.get(k) else "")
             for k, src in what.items()}
    return PrintedComparison(values, spreads, notes, readings, anova_items.below, anova_items.contradicted)
