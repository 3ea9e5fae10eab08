"""FFF21 §2: the worked examples of measurement scales and meaningfulness (Examples 1–8), and the
toy variable of §3.2.

A statement is meaningful on a scale when its truth value is invariant under every permissible
transformation of that scale (§2.4). :func:`meaningfulness_checks` decides Examples 5–8 with
:func:`irscales.theory.meaningfulness.check`: on the data, on the paper's own alternative scale
(φ', φ², °F, miles) and on random permissible transformations, in exact rational arithmetic.
:func:`printed_numbers` gives the medians and means printed around Example 7, and
:func:`examples_1_2_4` the arithmetic of Examples 1, 2 and 4 and of the toy variable.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from irscales.papers.fff21.claims import toy_variable
from irscales.papers.fff21.record import Part, fmt_vec, line
from irscales.papers.printing import yes_no
from irscales.theory import meaningfulness as mf

__all__ = ["C2F", "KM_TO_MI", "K2C", "PHI", "PHI2", "PEOPLE", "WINERY_X", "WINERY_Y", "PARIS", "ROME", "WINE",
           "TOY", "meaningfulness_checks", "printed_numbers", "examples_1_2_4"]

#: Example 3: Celsius → Fahrenheit.
C2F = mf.affine(Fraction(9, 5), 32, "Celsius → Fahrenheit (Example 3)")
#: Example 4: kilometres → miles with the international mile.
KM_TO_MI = mf.similarity(Fraction(1000000, 1609344), "km → miles (1 mi = 1.609344 km)")
#: Example 8: Kelvin → Celsius as the paper does it (0 °C = 273 K).
K2C = mf.affine(1, -273, "Kelvin → Celsius (0 °C = 273 K, as in the paper)")
#: Examples 1/5: nationalities coded by φ, and the paper's other coding φ'.
PHI = {"France": 5, "Germany": 4, "Greece": 3, "Italy": 2, "Spain": 1}
PHI2 = {"France": 41, "Germany": 13, "Greece": -10, "Italy": 23, "Spain": 17}
PEOPLE = ["Spain"] * 5 + ["Germany"] * 3 + ["Greece", "Italy"]
#: Examples 2/6: sparkling wines of two wineries, φ = top of the sugar range.
WINERY_X, WINERY_Y = [6, 6, 12, 17, 32], [3, 3, 3, 12, 50]
#: Examples 3/7: temperatures (°C) in Paris and Rome.
PARIS, ROME = [2, 2, 4, 8, 36], [1, 2, 4, 15, 34]
#: Example 2: the classes of sparkling wine, φ = top of the sugar range (g/l).
WINE = {"pas dosé": 3, "extra brut": 6, "brut": 12, "extra dry": 17, "sec": 32, "demi-sec": 50, "doux": 2000}
#: §3.2: the toy variable, uniform on these values.
TOY = [0, 1, 2, 4, 13]


def meaningfulness_checks(rng: np.random.Generator, n: int) -> Part:
    """Examples 5–8 (§2.4): each statement checked on its scale with ``n`` random permissible
    transformations drawn from ``rng`` (in this order), plus the numbers printed around them.
    ``table``: one row per statement (:meth:`Verdict.as_row`)."""
    items: dict[str, object] = {}
    notes: dict[str, str] = {}
    checks = []

    # Example 1/5 - nominal: nationalities coded by phi; phi' is the paper's other coding
    ex5 = {"P": [PHI[p] for p in PEOPLE], "spain": PHI["Spain"]}
    phi_to_phi2 = mf.bijection({PHI[k]: PHI2[k] for k in PHI}, "φ → φ' (Example 1)")
    checks.append(("ex5/most_from_spain/verdict", "Ex. 5: most people come from Spain (mode)", ex5,
                   lambda d: mf.mode(d["P"]) == d["spain"], "nominal", [phi_to_phi2]))
    checks.append(("ex5/lowest_quartile_spain/verdict", "Ex. 5: the lowest quartile is Spanish", ex5,
                   lambda d: mf.quantile(d["P"], Fraction(1, 4)) == d["spain"], "nominal", [phi_to_phi2]))
    items["ex5/P_prime"] = fmt_vec(phi_to_phi2.apply(ex5["P"]))
    items["ex5/lowest_quartile/phi_prime"] = int(mf.quantile(phi_to_phi2.apply(ex5["P"]), Fraction(1, 4)))

    # Example 2/6 - ordinal: sparkling wines, phi = top of the sugar range, phi' = phi^2
    square = mf.increasing(lambda v: v * v, on=WINERY_X + WINERY_Y, description="φ' = φ² (Example 2)")
    ex6 = {"X": WINERY_X, "Y": WINERY_Y}
    checks.append(("ex6/median/verdict", "Ex. 6: median of winery X > median of winery Y", ex6,
                   lambda d: mf.median(d["X"]) > mf.median(d["Y"]), "ordinal", [square]))
    checks.append(("ex6/mean/verdict", "Ex. 6: mean of winery X > mean of winery Y", ex6,
                   lambda d: mf.mean(d["X"]) > mf.mean(d["Y"]), "ordinal", [square]))
    for s, v in (("X", WINERY_X), ("Y", WINERY_Y)):
        items[f"ex6/median_{s}/phi"] = mf.median(v)
        items[f"ex6/median_{s}/phi2"] = mf.median(square.apply(v))
        items[f"ex6/mean_{s}/phi"] = float(mf.mean(v))
        items[f"ex6/mean_{s}/phi2"] = float(mf.mean(square.apply(v)))

    # Example 3/7 - interval: temperatures
    ex7a = {"rome_now": 20, "oslo_now": 10, "rome_before": 12, "oslo_before": 7}
    checks.append(("ex7/twice_difference/verdict", "Ex. 7: today's Rome−Oslo difference is twice last month's", ex7a,
                   lambda d: d["rome_now"] - d["oslo_now"] == 2 * (d["rome_before"] - d["oslo_before"]), "interval",
                   [C2F]))
    ex7 = {"P": PARIS, "R": ROME}
    checks.append(("ex7/median_equal/verdict", "Ex. 7: median temperature in Paris = in Rome", ex7,
                   lambda d: mf.median(d["P"]) == mf.median(d["R"]), "interval", [C2F]))
    checks.append(("ex7/mean_less/verdict", "Ex. 7: mean temperature in Paris < in Rome", ex7,
                   lambda d: mf.mean(d["P"]) < mf.mean(d["R"]), "interval", [C2F]))
    checks.append(("ex7/gmean_greater/verdict", "Ex. 7: geometric mean in Paris > in Rome", ex7,
                   lambda d: mf.compare_geometric_means(d["P"], d["R"]) > 0, "interval", [C2F]))
    F = {k: C2F(v) for k, v in ex7a.items()}
    items["ex7/diff_today/C"] = ex7a["rome_now"] - ex7a["oslo_now"]
    items["ex7/diff_month_ago/C"] = ex7a["rome_before"] - ex7a["oslo_before"]
    items["ex7/diff_today/F"] = float(F["rome_now"] - F["oslo_now"])
    items["ex7/diff_month_ago/F"] = float(F["rome_before"] - F["oslo_before"])
    items["ex7/paris/F"] = fmt_vec(C2F.apply(PARIS), 1)
    items["ex7/rome/F"] = fmt_vec(C2F.apply(ROME), 1)
    for city, v in (("paris", PARIS), ("rome", ROME)):
        for unit, vals in (("C", v), ("F", C2F.apply(v))):
            items[f"ex7/median_{city}/{unit}"] = float(mf.median(vals))
            items[f"ex7/mean_{city}/{unit}"] = float(mf.mean(vals))
            items[f"ex7/gmean_{city}/{unit}"] = mf.geometric_mean(vals)
    items["ex3/ratio_C/20_over_10"] = Fraction(20, 10)
    items["ex3/ratio_F/68_over_50"] = float(C2F(20) / C2F(10))
    items["ex3/diff_F/86-68"] = C2F(30) - C2F(20)

    # Example 4/8 - ratio: distances and Kelvin temperatures
    checks.append(("ex8/five_times/verdict", "Ex. 8: Rome–Oslo is five times Rome–Padua", {"oslo": 2000, "padua": 400},
                   lambda d: d["oslo"] == 5 * d["padua"], "ratio",
                   [KM_TO_MI, mf.similarity(Fraction("0.62"), "φ' = 0.62 φ (Example 4)")]))
    checks.append(("ex8/twice_as_hot_kelvin/verdict", "Ex. 8: 546 K is twice as hot as 273 K (ratio scale)",
                   {"a": 546, "b": 273}, lambda d: d["a"] == 2 * d["b"], "ratio", []))
    checks.append(("ex8/twice_as_hot_interval/verdict", "Ex. 8: 546 K is twice as hot as 273 K (as an interval scale)",
                   {"a": 546, "b": 273}, lambda d: d["a"] == 2 * d["b"], "interval", [K2C]))
    kelvin = {"P": [t + 273 for t in PARIS], "R": [t + 273 for t in ROME]}
    checks.append(("ex8/gmean_ratio/verdict", "Ex. 8: geometric mean in Paris > in Rome, Kelvin (ratio scale)", kelvin,
                   lambda d: mf.compare_geometric_means(d["P"], d["R"]) > 0, "ratio", []))
    items["ex8/rome_padua/miles"] = float(KM_TO_MI(400))
    items["ex8/rome_oslo/miles"] = float(KM_TO_MI(2000))
    notes["ex8/rome_padua/miles"] = (f"400 km = {float(KM_TO_MI(400)):.4f} mi (1 mi = 1.609344 km); with Example 4's "
                                     f"factor 0.62 it would be {float(400 * Fraction('0.62')):.1f}. The paper also writes "
                                     "the relation backwards (Rome–Padua ∽ 5 · Rome–Oslo, for Rome–Oslo ≈ 5 · Rome–Padua). "
                                     "Verdict unaffected")
    c_of = {k: K2C(v) for k, v in {"cold": 273, "hot": 546}.items()}
    f_of = {k: C2F(v) for k, v in c_of.items()}
    items["ex8/ratio_C"] = c_of["cold"] / f_of["cold"]   # as printed: °C value over °F value of 273 K
    items["ex8/ratio_F"] = float(c_of["hot"] / f_of["hot"])  # and of 546 K

    rows = []
    for item, text, data, stmt, scale, cands in checks:
        v = mf.check(data, stmt, scale, rng, n=n, candidates=cands, name=text)
        items[item] = v.verdict
        rows.append(v.as_row())
    return Part(items, notes, table=pd.DataFrame(rows))


def printed_numbers() -> pd.DataFrame:
    """The medians, means and geometric means of Example 7 on the paper's scales (°C and °F)."""
    series = (PARIS, ROME, C2F.apply(PARIS), C2F.apply(ROME))
    return pd.DataFrame({
        "": ["Paris °C", "Rome °C", "Paris °F", "Rome °F"],
        "median": [float(mf.median(v)) for v in series],
        "mean": [float(mf.mean(v)) for v in series],
        "geometric mean": [round(mf.geometric_mean(v), 4) for v in series],
    })


def examples_1_2_4(rng: np.random.Generator, n: int) -> Part:
    """Example 1 (subtracting nominal codes), Example 2 (squaring the ordinal wine scale; its "twice
    as sweet" checked with ``n`` transformations from ``rng``), Example 4 (km → miles) and the toy
    variable of §3.2 (:func:`irscales.papers.fff21.claims.toy_variable`)."""
    items: dict[str, object] = {}
    by_code = {"φ": {v: k for k, v in PHI.items()}, "φ'": {v: k for k, v in PHI2.items()}}
    diff1 = {"φ": PHI["Germany"] - PHI["Greece"], "φ'": PHI2["Germany"] - PHI2["Greece"]}
    class1 = {s: by_code[s].get(d, "no class") for s, d in diff1.items()}
    items["ex1/phi/Germany-Greece"], items["ex1/phi2/Germany-Greece"] = diff1["φ"], diff1["φ'"]
    items["ex1/phi/difference_class"], items["ex1/phi2/difference_class"] = class1["φ"], class1["φ'"]
    items["ex1/phi_phi2_one_to_one"] = yes_no(len(set(PHI2.values())) == len(PHI2) and set(PHI2) == set(PHI))
    items["ex1/disagreement"] = yes_no(class1["φ"] != class1["φ'"])

    wine_sq = mf.increasing(lambda v: v * v, on=WINE.values(), description="φ' = φ² (Example 2)")
    wine2 = wine_sq.apply(list(WINE.values()))
    items["ex2/phi2"] = fmt_vec(wine2)
    items["ex2/phi2_increasing"] = yes_no(all(a < b for a, b in zip(wine2, wine2[1:])))
    items["ex2/brut_over_extra_brut"] = Fraction(WINE["brut"], WINE["extra brut"])
    items["ex2/brut_minus_extra_brut"] = WINE["brut"] - WINE["extra brut"]
    v2 = mf.check({"brut": WINE["brut"], "extra": WINE["extra brut"]}, lambda d: d["brut"] == 2 * d["extra"],
                  "ordinal", rng, n=n, candidates=[wine_sq], name="Ex. 2: brut is twice as sweet as extra brut")
    items["ex2/twice_as_sweet/verdict"] = v2.verdict

    items["ex4/km_to_miles"] = float(KM_TO_MI(1))

    toy = toy_variable(TOY)
    items["s3.2/toy/mean"], items["s3.2/toy/median"] = toy["mean"], toy["median"]
    items["s3.2/toy/eps_threshold"] = toy["eps_threshold"]
    mass = toy["mass_at"]
    items["s3.2/toy/denser_low"] = yes_no(min(mass[x] for x in (0, 1, 2)) > max(mass[x] for x in (4, 13)))
    lines = [line("Example 1:", {s: f"Germany − Greece = {d} → {class1[s]}" for s, d in diff1.items()}),
             line("Example 2: φ' =", items["ex2/phi2"], "| 'twice as sweet':", v2.verdict),
             line("Example 4: 1 km =", round(float(KM_TO_MI(1)), 6), "mi"),
             line("toy: mean", toy["mean"], "median", toy["median"], "| ε =", toy["eps_threshold"], "P[X ∈ [x−ε, x+ε]]:",
                  {int(x): str(p) for x, p in mass.items()})]
    return Part(items, text="\n".join(lines))
