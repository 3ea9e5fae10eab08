"""The steps of the Fer17 reproduction (irscales.papers.fer17.reproduce) on small simulated designs:
sizes, data source, the §3.4 halves, the tables as the paper prints them, Tukey groups, RQ2 and RQ3
summaries and the qualitative items."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irscales.papers import fer17
from irscales.papers.fer17 import sampling
from irscales.stats import _anova as anova


def random_scores(T=12, S=15, seed=0, names=("AP", "P@10", "RBP")):
    rng = np.random.default_rng(seed)
    base = rng.random((T, S))
    out = {n: np.clip(base + rng.normal(0, 0.2 * (k + 1), (T, S)), 0, 1) for k, n in enumerate(names)}
    out["P@10"] = np.round(out["P@10"] * 10) / 10  # hits/10
    return out


@pytest.fixture(scope="module")
def design():
    return sampling.correlation_design(random_scores(), np.random.default_rng(1), (3, 6), (5, 8), 6, no1q=True,
                                       progress=False)


def test_design_sizes_quick_full_and_given():
    assert fer17.design_sizes(False) == (fer17.QUICK_TOPIC_SIZES, fer17.QUICK_SYSTEM_SIZES, fer17.QUICK_SAMPLES)
    assert fer17.design_sizes(True) == (sampling.TOPIC_SIZES, sampling.SYSTEM_SIZES, sampling.N_SAMPLES)
    assert fer17.design_sizes(True, [5], [7], 3) == ([5], [7], 3)


def test_kl_halves_splits_the_systems_in_two():
    scores = {"A": random_scores(seed=1), "B": random_scores(seed=2)}
    kl, half = fer17.kl_halves(scores, np.random.default_rng(0))
    assert half.sum() == 7 and half.size == 15
    assert list(kl.index) == ["A half A vs half B", "B half A vs half B"] and list(kl.columns) == ["AP", "P@10", "RBP"]
    v = scores["B"]["RBP"].mean(0)
    assert kl.loc["B half A vs half B", "RBP"] == fer17.kl_divergence(v[half], v[~half])


def test_original_systems_are_skipped_in_the_quick_default():
    text, fig, after = fer17.original_systems_t08(False, {}, "simulated", 100)
    assert text == "TREC-8 original systems (real): skipped in the quick default (full=True reads them)"
    assert fig is None and after == ""


def test_anova_text_uses_the_papers_source_names_and_precision(design):
    tab = anova.balanced_anova(design[design.variant == "allQ"], "tau")
    text = fer17.anova_text(tab, "Table 2 (simulated)")
    lines = text.splitlines()
    assert lines[0] == "Table 2 (simulated)" and text.endswith("\n")
    assert any(ln.startswith("Measure Pair*Topic Size ") for ln in lines)
    assert f"{tab.loc['pair', 'SS']:.4f}" in text and "Error" in text and "Total" in text


def test_pair_effects_table_layout():
    tau = pd.Series({"A vs B": 0.9, "A vs C": 0.8, "B vs C": 0.7})
    t = fer17.pair_effects_table(tau, tau - 0.1, ["A", "B", "C"])
    assert list(t.index) == [(n, c) for n in "ABC" for c in ("τ", "τ_AP")]
    assert t.loc[("A", "τ_AP"), "C"] == "0.7000" and t.loc[("C", "τ"), "A"] == "-" and t.loc[("B", "τ"), "B"] == "1.0000"


def test_tukey_same_group_contains_the_reference(design):
    rq1 = design[design.variant == "allQ"]
    tab = anova.balanced_anova(rq1, "tau")
    group = fer17.tukey_same_group(rq1, tab, "tau", "systems", 8)
    tk = anova.tukey_levels(rq1, "tau", "systems", tab.loc["Error", "MS"], tab.loc["Error", "DF"])
    assert 8 in group and (5 in group) == (not bool(tk.significant.iloc[0]))


def test_no1q_below_allq_reads_every_cell():
    rows = [(t, s, v, p, tau) for t in (1, 2) for s in (1, 2) for p in ("x", "y")
            for v, tau in (("allQ", 0.9), ("no1Q", 0.8))]
    d = pd.DataFrame(rows, columns=["topics", "systems", "variant", "pair", "tau"])
    d["tau_ap"] = d["tau"]
    assert fer17.no1q_below_allq(d, "x")
    d.loc[(d.pair == "x") & (d.topics == 2) & (d.systems == 2) & (d.variant == "no1Q"), "tau_ap"] = 0.95
    assert not fer17.no1q_below_allq(d, "x") and fer17.no1q_below_allq(d, "y")


def test_nested_tables_need_two_corpora_with_two_topic_sets():
    sc = random_scores(S=20)
    one = {"t1": ("c1", sc), "t2": ("c1", random_scores(S=20, seed=3))}
    rq3 = sampling.rq3_design(one, np.random.default_rng(0), n_systems=10, n_samples=4, progress=False)
    assert fer17.nested_tables(rq3) == (None, None)
    two = {**one, "t3": ("c2", random_scores(S=20, seed=4)), "t4": ("c2", random_scores(S=20, seed=5))}
    rq3 = sampling.rq3_design(two, np.random.default_rng(0), n_systems=10, n_samples=4, progress=False)
    tab7, tab8 = fer17.nested_tables(rq3)
    assert "topic_set(corpus)" in tab7.index and tab8.loc["corpus", "DF"] == 1


def test_qualitative_items_from_our_tables(design):
    rq1 = design[design.variant == "allQ"]
    tab2, tab3 = anova.balanced_anova(rq1, "tau"), anova.balanced_anova(rq1, "tau_ap")
    eff = (anova.marginal_means(rq1, "tau", "pair"), anova.marginal_means(rq1, "tau_ap", "pair"))
    items = fer17.qualitative_items({"table2": tab2, "table3": tab3, "table7": None, "table8": None}, eff, True,
                                    {("tau", "topics"): [3, 6]})
    assert items["table2/Measure Pair/effect_class"] == tab2.loc["pair", "effect"]
    assert items["s5.2.1/no1q_below_allq"] == "yes" and items["s4.2.3/tukey/topics_same_group_as_t50"] == "3,6"
    assert items["s4.2.1/tau_ap_below_tau"] == ("yes" if (eff[1] < eff[0]).all() else "no")
    assert "s6.2.2/topic_set_omega2_gt_corpus" not in items and "table7/Corpus/significant" not in items


def test_reproduction_writes_both_comparisons_with_their_statuses(design, tmp_path):
    """What notebook 03 prints at its end: the printed-input comparison (statuses of the rule) and the
    qualitative comparison on the data of the run (route simulated), both written to ``out``."""
    rq1 = design[design.variant == "allQ"]
    tab2, tab3 = anova.balanced_anova(rq1, "tau"), anova.balanced_anova(rq1, "tau_ap")
    data = {"tab2": tab2, "tab3": tab3, "tab7": None, "tab8": None, "eff_tau": anova.marginal_means(rq1, "tau", "pair"),
            "eff_tap": anova.marginal_means(rq1, "tau_ap", "pair"), "no1q_lower": True, "tukey": {},
            "names": ["AP", "P@10", "RBP"], "sizes": ((3, 6), (5, 8), 6)}
    r = fer17.Fer17Reproduction({"setup": "x"}, data, "simulated", True, tmp_path)
    assert r["setup"] == "x"
    text = r.save_comparisons()
    assert text.startswith("from printed inputs: 223 items, 207 match. Saved published_vs_reproduced_printed.csv")
    printed = pd.read_csv(tmp_path / "published_vs_reproduced_printed.csv")
    assert printed["status"].value_counts().to_dict() == {"not reproduced": 674, "match": 207,
                                                          "agrees within printing": 6, "depends on reading": 1,
                                                          "unresolved": 3, "differs": 6}
    assert set(printed.loc[printed["status"] != "not reproduced", "route"]) == {"printed"}
    sim = pd.read_csv(tmp_path / "published_vs_reproduced_simulated.csv")
    assert set(sim.loc[sim["status"] != "not reproduced", "route"]) == {"simulated"}
    done = sim[sim["status"] != "not reproduced"]
    assert "\non simulated data: " in text and done["note"].str.startswith("qualitative, simulated data (3 measures, H = 6").all()


def test_notebook_03_is_a_thin_client_of_reproduce():
    """parameters → reproduce → display: every code cell after the parameters prints what
    :func:`irscales.papers.fer17.reproduce` computed, and only the first calls it."""
    import json

    from irscales.paths import repo_root

    if repo_root() is None:
        pytest.skip("not a source checkout")
    cells = [c for c in json.loads((repo_root() / "notebooks" / "03_fer17_correlation.ipynb").read_text())["cells"]
             if c["cell_type"] == "code" and "parameters" not in c["metadata"].get("tags", [])]
    code = ["\n".join(ln for ln in "".join(c["source"]).splitlines() if ln.strip() and not ln.startswith("#"))
            for c in cells]
    assert "fer17.reproduce(" in code[0] and all("reproduce(" not in c for c in code[1:])
    assert all(c.startswith("print(r[") or c == "print(r.save_comparisons())" for c in code[1:]), code
