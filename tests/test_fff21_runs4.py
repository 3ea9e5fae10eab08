"""Tests of irscales.papers.fff21.runs4: FFF21 Figs. 1–2 and Examples 9, 10, 12, 13 on short runs."""

from fractions import Fraction

from irscales.papers import published
from irscales.papers.fff21 import runs4 as R


def test_figure1_writes_the_hasse_diagram(tmp_path):
    part = R.figure1(4, tmp_path)
    assert part.items["fig1/n_runs"] == 16 and part.items["s3.2/comparable/(1,1,0,1)<=(1,1,1,0)"] == "yes"
    assert part.items["s3.2/comparable/(1,1,0,0)~(1,0,1,1)"] == "no"
    assert part.text.startswith("16 runs,") and part.text.endswith(f"saved {tmp_path.name}/fig1_hasse_N4.png and .pdf")
    assert (tmp_path / "fig1_hasse_N4.png").exists() and (tmp_path / "fig1_hasse_N4.pdf").exists()


def test_figure2_spacing_and_claims(tmp_path):
    f2 = R.figure2(4)
    t = R.spacing_table(f2).set_index("measure")
    assert t.loc["P", "distinct values"] == 5 and t.loc["P", "equi-spaced"]
    assert t.loc["RBP_p05", "distinct values"] == 16 and t.loc["DCG_b02", "distinct values"] == 12
    it = R.figure2_claims(f2).items
    assert it["fig2/P_equals_R"] == "yes" and it["s3.2/comparable_pairs_never_reversed"] == "yes"
    assert it["fig2/RR/unused_top"] == Fraction(1, 2)  # RR jumps from 1/2 to 1
    assert R.spacing_text(f2).startswith("(a) Precision (and Recall)")
    assert R.plot_figure2(f2, tmp_path) == f"saved {tmp_path.name}/fig2_spacing_N4.png and .pdf"


def test_example9_and_table1_by_hand():
    it = R.example9().items
    assert (it["ex9/MRR_A"], it["ex9/mean_rank_A"], it["ex9/MRR_B"], it["ex9/mean_rank_B"]) == (0.625, 2.5, 0.5, 2.0)
    part = R.table1(R.figure2(4))
    # B: AP(1,1,0,1) = (1 + 1 + 3/4)/4 = 11/16, AP(1,0,1,0) = (1 + 2/3)/4 = 5/12; mean 53/96
    assert part.table.loc[1, "mean AP"] == Fraction(53, 96)
    assert part.items["ex10/A_better_than_B"] == "yes" and part.items["ex10/gap_13_14_smaller_than_gap_10_9"] == "yes"


def test_tie_breaking_strategies_by_hand():
    assert R.tie_breaking().items == {"s5/ties/mid": "[1 2 3.5 3.5 5]", "s5/ties/min": "[1 2 3 3 5]",
                                      "s5/ties/max": "[1 2 4 4 5]", "s5/ties/unq": "[1 2 3 3 4]"}


def test_example12_and_13():
    part = R.example12(R.figure2(4), max_N=4)
    assert part.items["ex12/n_runs"] == 16 and part.items["ex12/n_values"] == 12
    assert part.items["ex12/phi(1,1,1,1)"] == 12 and part.items["ex12/phi(0,0,0,0)"] == 1
    assert part.items["ex12/phi_RBP_p05_closed_form"] == "2^N m + 1"
    assert part.items["ex12/phi_RR_closed_form"] == "N + 2 - 1/m" and len(part.table) == 4
    it = R.example13().items
    assert it["ex13/recall_RB2"] == "{0, 1/2, 1/2, 1}" and it["ex13/recall_RB3"] == "{0, 1/3, 1/3, 2/3}"
    assert it["ex13/mapped"] == "{1, 2, 2, 3}" and it["ex13/diff_r2_r3/mapped"] == "1"
    assert (it["ex13/diff_r2_r3/q1"], it["ex13/diff_r2_r3/q2"]) == (Fraction(1, 2), Fraction(1, 3))


def test_table1_notes_are_computed_from_the_printed_values(monkeypatch):
    printed = published.load("fff21")
    part = R.table1(R.figure2(4))
    # whether the printed D is truncated or rounded is the comparison's rule (tests/test_printing.py)
    assert part.notes["table1/D/AP"] == "exact 17/96 = 0.177083"
    assert "the printed 0.1665 agrees to 3 decimals only" in part.notes["table1/C/AP"]
    changed = printed.assign(value=printed["value"].where(printed["item"] != "table1/B/AP", "0.5500"))
    monkeypatch.setattr(published, "load", lambda paper: changed)
    assert "0.5500 is a typo" in R.table1(R.figure2(4)).notes["table1/B/AP"]
