"""Tests of irscales.papers.fff21.examples: FFF21 §2 Examples 1–8 and the toy variable of §3.2."""

from fractions import Fraction

import numpy as np

from irscales.papers.fff21 import examples as X


def test_meaningfulness_verdicts_of_examples_5_to_8():
    part = X.meaningfulness_checks(np.random.default_rng(0), 20)
    it = part.items
    assert it["ex5/most_from_spain/verdict"] == "meaningful"
    assert it["ex5/lowest_quartile_spain/verdict"] == "not meaningful"  # φ' moves the quartile off Spain
    assert it["ex6/median/verdict"] == "meaningful" and it["ex6/mean/verdict"] == "not meaningful"
    assert it["ex7/twice_difference/verdict"] == "meaningful"
    assert it["ex8/twice_as_hot_kelvin/verdict"] == "meaningful"
    assert it["ex8/twice_as_hot_interval/verdict"] == "not meaningful"
    # by hand: 20 °C − 10 °C = 10 → 18 °F; 12 − 7 = 5 → 9 °F; 30 °C − 20 °C = 18 °F
    assert it["ex7/diff_today/F"] == 18.0 and it["ex7/diff_month_ago/F"] == 9.0 and it["ex3/diff_F/86-68"] == 18
    assert it["ex6/median_X/phi"] == 12 and it["ex6/median_X/phi2"] == 144
    assert len(part.table) == 12 and set(part.table["verdict"]) == {"meaningful", "not meaningful"}


def test_printed_numbers_by_hand():
    t = X.printed_numbers()
    # Paris: (2+2+4+8+36)/5 = 10.4, Rome: (1+2+4+15+34)/5 = 11.2; in °F 1.8·m + 32
    assert t["mean"].tolist() == [10.4, 11.2, 50.72, 52.16]
    assert t["median"].tolist() == [4.0, 4.0, 39.2, 39.2]


def test_examples_1_2_4_and_the_toy_variable():
    it = X.examples_1_2_4(np.random.default_rng(0), 5).items
    assert (it["ex1/phi/Germany-Greece"], it["ex1/phi/difference_class"]) == (1, "Spain")
    assert (it["ex1/phi2/Germany-Greece"], it["ex1/phi2/difference_class"]) == (23, "Italy")
    assert it["ex2/brut_over_extra_brut"] == 2 and it["ex2/brut_minus_extra_brut"] == 6
    assert it["ex2/phi2"] == "[9 36 144 289 1024 2500 4000000]"
    assert it["ex4/km_to_miles"] == float(Fraction(1000, 1609344) * 1000)
    assert (it["s3.2/toy/mean"], it["s3.2/toy/median"], it["s3.2/toy/eps_threshold"]) == (4, 2, 1)
    assert it["s3.2/toy/denser_low"] == "yes"


def test_example_8_miles_depend_on_the_reading():
    """400 km = 248.5485 mi, printed 248.54: right if the paper truncated, and nothing else Example 8 prints
    shows whether it truncates or rounds (1,242.74 and 0.52 print so either way), so no erratum; its note
    gives both printings and the (empty) evidence."""
    from irscales.papers import printing, published

    part = X.meaningfulness_checks(np.random.default_rng(0), 5)
    ex8 = {k: v for k, v in part.items.items() if k.startswith("ex8/")}
    f = published.compare("fff21", ex8, notes=part.notes).frame.set_index("item")
    assert f.loc["ex8/rome_padua/miles", "status"] == "depends on reading"
    note = f.loc["ex8/rome_padua/miles", "note"]
    assert "truncated, 248.5485 prints as 248.54 (the printed value); rounded, as 248.55" in note
    assert "Example 8 prints 0 other values only truncation reproduces and 0 only rounding reproduces" in note
    for item, printed in (("ex8/rome_oslo/miles", "1,242.74"), ("ex8/ratio_F", "0.52")):
        assert printing.reproducing(printed, ex8[item]) == {"rounded", "truncated"}
        assert f.loc[item, "status"] == "match"
