"""Fer17 from its printed numbers (irscales.papers.fer17.printed): ANOVA columns, RoMP items, §5.2.2,
classes, percentages, ratios and orderings recomputed from data/published/fer17.csv."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irscales.papers import fer17, published
from irscales.stats import anova, sampling



def test_romp_comparison_reproduces_fer17_printed_4_2_5_and_6_2_5():
    # From the printed Tables 4 and 9 (data/published/fer17.csv): tie-by-order gives §4.2.5's and
    # §6.2.5's printed tauCorr / apCorr; averaged ties do not (0.9775 / 0.8938 for §4.2.5).
    pub = published.load("fer17")
    got = fer17.printed_romp_items(pub)
    printed = dict(zip(pub.item, pub.value))
    for item in ("s4.2.5/tauCorr", "s4.2.5/apCorr", "s4.2.5/romp_swaps", "s4.2.5/RMSE",
                 "s6.2.5/tau/tauCorr", "s6.2.5/tau/apCorr", "s6.2.5/tau_ap/tauCorr", "s6.2.5/tau_ap/apCorr"):
        assert published.matches(printed[item], got[item]), item
    t4 = fer17.printed_pair_effects(pub, "table4")
    avg = sampling.romp_comparison(t4["tau"], t4["tau_ap"], ties="average")
    assert not published.matches(printed["s4.2.5/tauCorr"], avg["tauCorr"])
    assert not published.matches(printed["s4.2.5/apCorr"], avg["apCorr"])

# --------------------------------------------------------------------------- published-vs-reproduced helpers


def test_recompute_published_anova_reproduces_fer17_printed_columns():
    values, tol = fer17.recompute_published_anova(published.load("fer17"))
    cmp = published.compare("fer17", values, tolerances=tol)
    f = cmp.frame.set_index("item")
    # ω² from eq. (3) at the printed F, DF: 10 of the 11 effect rows of Tables 2 and 7 (helper of anova.py)
    assert f.loc["table2/Measure Pair/omega2", "match"] and f.loc["table7/Measure Pair*Topic Set(Corpus)/omega2", "match"]
    assert not f.loc["table2/Topic Size*System Size/omega2", "match"]  # 0.00028 vs printed 0.0002
    # F = (SS/DF)/MS_err from the printed SS, within their rounding
    assert f.loc["table2/Measure Pair/F", "match"] and f.loc["table8/Corpus/F", "match"]
    # p in scientific notation is matched at the mantissa's precision, not to ±0.5
    assert tol["table2/Topic Size*System Size/p"] == pytest.approx(0.5e-7)
    assert not f.loc["table2/Topic Size*System Size/p", "match"]  # 1.62e-05 from F = 2.0079, printed 1.69e-05
    # power of a zero effect is α, not the printed 0.8043
    assert values["table2/Measure Pair*System Size/power"] == pytest.approx(0.05)
    done = cmp.frame[cmp.frame.status != "not reproduced"]
    assert len(done) == 126 and int(done.match.sum()) == 114  # the 12 differences are listed in the notebook


def test_qualitative_anova_items_from_a_table():
    rng = np.random.default_rng(0)
    rows = [(h, p, t, s) for h in range(5) for p in "ab" for t in (1, 2) for s in (1, 2)]
    d = pd.DataFrame(rows, columns=["subject", "pair", "topics", "systems"])
    d["tau"] = (d.pair == "b") * 1.0 + rng.normal(0, 0.01, len(d))  # only the pair effect is real
    items = fer17.qualitative_anova_items(anova.balanced_anova(d, "tau"), "table2")
    assert items["table2/Measure Pair/significant"] == "yes"
    assert items["table2/Measure Pair/effect_class"] == "large"
    assert "table2/Subject/significant" not in items
    assert set(items) >= {f"table2/{fer17.SOURCE_NAMES[k]}/effect_class" for k in anova.CROSSED_TERMS[1:]}

def _mini_published(rows) -> pd.DataFrame:
    return pd.DataFrame([(i, "", "", v, "trec", "") for i, v in rows],
                        columns=["item", "location", "context", "value", "kind", "note"])


def test_printed_marginal_changes_hand_case():
    pub = _mini_published([("s4.2.3/tau/t=10", "0.5000"), ("s4.2.3/tau/t=30", "0.6000"),
                           ("s4.2.3/tau_ap/s=10", "0.8000"), ("s4.2.3/tau_ap/s=50", "0.7800"),
                           ("s4.2.3/change/tau/t=30_vs_t=10", "20.00%"),
                           ("s4.2.3/change/tau_ap/s=50_vs_s=10", "2.50%")])
    val, tol = fer17.printed_marginal_changes(pub)
    assert val["s4.2.3/change/tau/t=30_vs_t=10"] == pytest.approx(20.0)      # 0.1 / 0.5
    assert val["s4.2.3/change/tau_ap/s=50_vs_s=10"] == pytest.approx(2.5)    # |−0.02| / 0.8, a magnitude
    # means rounded to 4 decimals: 100 (0.00005/0.5 + 0.00005·0.6/0.25) = 0.022, plus 0.005
    assert tol["s4.2.3/change/tau/t=30_vs_t=10"] == pytest.approx(0.022 + 0.005)


def test_printed_items_from_fer17_tables():
    pub = published.load("fer17")
    printed = dict(zip(pub.item, pub.value))
    cls = fer17.printed_anova_class_items(pub)
    assert cls["table2/Measure Pair*Topic Size/effect_class"] == "small"      # printed ω² 0.0283
    assert cls["table8/Corpus/effect_class"] == "medium"                      # printed ω² 0.0634
    assert cls["table2/Measure Pair*System Size/significant"] == "no"         # printed p 1.0000
    assert len(cls) == 2 * (6 + 6 + 5 + 5)
    assert all(published.matches(printed[k], v) for k, v in cls.items())
    rq2 = fer17.printed_rq2_items(pub)
    assert all(published.matches(printed[k], v) for k, v in rq2.items()) and len(rq2) == 14
    ratios, tol = fer17.printed_ratio_items(pub)
    bad = sorted(k for k, v in ratios.items() if not published.matches(printed[k], v, tol.get(k)))
    # §6.2.2 "about 25 times": Table 7 / Table 2 ω² is 0.5686 / 0.0283 = 20.1 (τ_AP: 26.3 holds)
    assert bad == ["s6.2.2/ratio/pair_topic_set_over_pair_topic_size/tau"]
    assert ratios[bad[0]] == pytest.approx(0.5686 / 0.0283)
    assert set(fer17.printed_ordering_items(pub).values()) == {"yes"}
    fig = fer17.plot_pair_effects(fer17.printed_pair_effects(pub, "table9"), title="t")
    assert len(fig.axes) == 2 and len(fig.axes[0].lines[0].get_xdata()) == 28
    import matplotlib.pyplot as plt
    plt.close(fig)
