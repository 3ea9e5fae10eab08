"""irscales.papers.printing: the one reading of a printed number and the rule deciding whether a
recomputed value agrees with it (rounded, truncated, a range that holds, a word's tolerance)."""

from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irscales.papers import printing, published


@pytest.mark.parametrize("text, value, decimals, percent, sign", [
    ("0.9498", Fraction(9498, 10000), 4, False, ""), ("-11.60%", Fraction(-116, 10), 2, True, "-"),
    ("−11.60%", Fraction(-116, 10), 2, True, "−"), ("+5.29%", Fraction(529, 100), 2, True, "+"),
    ("8,256", 8256, 0, False, ""), ("24,576", 24576, 0, False, ""), ("1.69e-05", Fraction(169, 10**7), 7, False, ""),
    ("3.648e-85", Fraction(3648, 10**88), 88, False, ""), ("2.5E+03", 2500, -2, False, ""), ("2", 2, 0, False, ""),
    ("1/2", Fraction(1, 2), None, False, ""), ("−1/2", Fraction(-1, 2), None, False, "−"), (" 45% ", 45, 0, True, ""),
    ("0.0000", 0, 4, False, ""),
])
def test_read_printed_numbers(text, value, decimals, percent, sign):
    p = printing.read(text)
    assert (p.value, p.decimals, p.percent, p.sign) == (value, decimals, percent, sign)
    assert printing.read_value(text) == value


@pytest.mark.parametrize("text", ["yes", "2^N m", "10^3", "1,2", "12,34", ".", "", "r ≺ s", "1/0", "0.5.1"])
def test_text_that_is_no_number(text):
    assert printing.read(text) is None and printing.read_value(text) is None


def test_the_typographic_minus_reads_as_minus_and_the_plus_sign_is_kept():
    assert printing.read("−0.50%").value == printing.read("-0.50%").value == Fraction(-1, 2)
    assert printing.read("+5.29%").render(Fraction(5295, 1000)) == "+5.30%"
    assert printing.read("27,390").render(Fraction(28490)) == "28,490"
    assert printing.read("3.44e-05").render(Fraction("3.4514e-05"), truncate=True) == "3.45e-05"


def test_exact_reads_values_without_float_noise():
    assert printing.exact(0.1) == Fraction(1, 10) and printing.exact(Decimal("0.25")) == Fraction(1, 4)
    assert printing.exact("+5.29%") == Fraction(529, 100) and printing.exact(Fraction(1, 3)) == Fraction(1, 3)
    assert printing.exact(float("nan")) is None and printing.exact(None) is None and printing.exact("no") is None
    assert printing.exact(True) is None  # a verdict is no number


def test_yes_no():
    assert printing.yes_no(True) == "yes" and printing.yes_no(0) == "no" and printing.yes_no([1]) == "yes"


# ------------------------------------------------------------------------------ the rule


@pytest.mark.parametrize("printed, ours, kind", [
    ("0.97", 0.9661, "rounded"), ("0.96", 0.9661, "truncated"), ("0.95", 0.9661, "differs"),
    ("0.1770", Fraction(17, 96), "truncated"), ("0.1771", Fraction(17, 96), "rounded"),
    ("0.1665", Fraction(1, 6), "differs"),   # neither: 0.16666… rounds to 0.1667, truncates to 0.1666
    ("248.54", Fraction(400 * 1000000, 1609344), "truncated"),
    ("-0.96", -0.9661, "truncated"), ("-0.97", -0.9661, "rounded"), ("−0.97", -0.9661, "rounded"),
    ("3.64e-85", 3.648096983190008e-85, "truncated"), ("3.65e-85", 3.648096983190008e-85, "rounded"),
    ("12", 12.6, "truncated"), ("13", 12.6, "rounded"), ("yes", "Yes", "equal"), ("yes", "no", "differs"),
    ("1/2", 0.5, "equal"), ("1/2", 0.4081, "differs"), ("2^N m", "2^N m + 1", "differs"),
])
def test_rounding_before_truncation_before_differs(printed, ours, kind):
    assert printing.agreement(printed, ours).kind == kind


def test_a_tie_rounds_either_way_exactly():
    for printed in ("0.12", "0.13"):
        assert printing.agreement(printed, Fraction(1, 8)).kind == "rounded"
        assert printing.agreement(printed, 0.125).kind == "rounded"  # the float is read as its decimal
    assert printing.agreement("0.12", Fraction(1, 8) + Fraction(1, 10**30)).kind == "truncated"


@given(st.fractions(min_value=-1000, max_value=1000), st.integers(0, 6))
def test_rounded_and_truncated_printings_agree_and_a_wrong_digit_does_not(x, d):
    """The printings of an exact value agree with it (a Decimal reference rounds and truncates), and
    a last digit off by more than one unit is an erratum."""
    q = Decimal(10) ** -d
    exact = Decimal(x.numerator) / Decimal(x.denominator)
    rounded = f"{exact.quantize(q, rounding=ROUND_HALF_EVEN):f}"
    truncated = f"{exact.quantize(q, rounding=ROUND_DOWN):f}"
    assert printing.agreement(rounded, x).kind == "rounded"
    assert printing.agreement(truncated, x).kind in ("rounded", "truncated")
    off = Decimal(rounded) + 2 * q if x >= 0 else Decimal(rounded) - 2 * q
    assert printing.agreement(f"{off:f}", x).kind == "differs"
    away = exact.quantize(q, rounding=ROUND_HALF_UP)  # render rounds half away from zero
    if away:
        assert printing.read(rounded).render(x) == f"{away:f}"
        assert Decimal(printing.read(rounded).render(x, truncate=True)) == Decimal(truncated)


def test_spread_of_inputs_printed_rounded():
    # p from an F printed to 4 decimals: 3.4514e-05 at F, 3.4489e-05 at F + 0.00005 — truncates to 3.44e-05
    assert printing.agreement("3.44e-05", 3.451381259300116e-05).kind == "differs"
    assert printing.agreement("3.44e-05", 3.451381259300116e-05, spread=2.44e-8).kind == "truncated"
    assert printing.agreement("0.51", 0.5, spread=0.006).kind == "rounded"


@pytest.mark.parametrize("printed, ours, end, kind", [
    ("10%", 10.99, "lower", "bound"),    # 'loss in the range 10%–30%': the smallest loss 10.99 rounded down
    ("10%", 9.32, "upper", "bound"),     # 'all above 0.9 … loss 2%–10%': the largest loss 9.32 rounded up
    ("14%", 12.99, "lower", "differs"),  # a lower end above the smallest value: the range does not hold
    ("0.86", 0.8701, "upper", "differs"),
    ("0.96", 0.9661, "upper", "truncated"),  # an upper end below the largest value, but its truncation
    ("10%", 9.32, None, "differs"),      # the same number without a range is not a bound
    ("10%", 8.99, "upper", "differs"),   # a bound must be the extreme rounded outward, not any larger number
])
def test_a_range_that_holds_as_stated(printed, ours, end, kind):
    assert printing.agreement(printed, ours, end=end).kind == kind


def test_range_ends_are_read_off_the_item_id():
    assert printing.range_end("s7.1.2/AP/loss_min") == "lower" and printing.range_end("s7.2/overestimated/min") == "lower"
    assert printing.range_end("s7.3.1/RBP_p03/NS2S_max") == "upper" and printing.range_end("x/ranked_max") == "upper"
    assert printing.range_end("s7.3/RB_interval/NS2S_mean") is None and printing.range_end("table2/k5/maximal") is None


@pytest.mark.parametrize("printed, ours, word, kind", [
    ("45%", 44.127916666666664, "around", "approximate"), ("45%", 40.4, "around", "differs"),  # a tenth
    ("25", 26.329, "about", "approximate"), ("25", 20.09, "about", "differs"),
    ("1/2", 0.4081, "roughly", "approximate"), ("1/2", 0.37, "roughly", "differs"),             # a quarter
    ("1/2", 0.4081, "about", "differs"),                                                       # the word decides
    ("0.454", 0.45339765151640377, "≳", "approximate"), ("0.25", 0.6416, "≈", "differs"),
    ("3", 3.5238, "a little bit more than", "approximate"), ("3", 2.9, "a little bit more than", "differs"),
    ("0.5", 0.4492, "slightly less", "approximate"), ("0.5", 0.52, "slightly less", "differs"),
    ("0.5", 0.456, "slightly less", "rounded"),  # on the stated side and rounding to it: reproduced
    ("2%", 1.246875, "around", "differs"),
])
def test_a_verbal_approximation_is_read_with_the_tolerance_of_its_word(printed, ours, word, kind):
    a = printing.agreement(printed, ours, word=word)
    assert a.kind == kind
    assert (f"'{word}'" in a.why) == (kind != "rounded")  # the word is named wherever it decided


def test_a_word_with_a_direction_is_wrong_on_the_other_side_even_when_it_rounds():
    # 'a little bit more than three times': 2.9 rounds to 3 but is not more than 3
    assert printing.agreement("3", 2.9).kind == "rounded"
    assert printing.agreement("3", 2.9, word="a little bit more than").kind == "differs"


def test_an_unknown_word_is_an_error():
    with pytest.raises(ValueError, match="unknown qualifier"):
        printing.agreement("25", 20, word="ish")


@pytest.mark.parametrize("context, printed, word", [
    ("measures depending on the recall base …: NS2S around 45%", "45%", "around"),
    ("p. 5: 2gRBP_p(r) > 2gRBP(s) for p ≳ 0.454", "0.454", "≳"),
    ("'81+36 versus 109 (which results in p≈0.25)'", "0.25", "≈"),
    ("'the topic set effect is about 2–3 times bigger than the corpus effect'", "2", "about"),
    ("'the topic set effect is about 2–3 times bigger than the corpus effect'", "3", "about"),
    ("'its size is slightly less half than the size of the measure pair effect'", "0.5", "slightly less"),
    ("'this effect is a little bit more than three times bigger'", "3", "a little bit more than"),
    ("§6.2.2 (Tables 2–3 against 7–8): 'the former has a ω̂ about 25 times smaller'", "25", "about"),
    ("§4.2.2 GLMM and ANOVA Analysis, Tables 2–3", "3", None),   # a table number, not the claim
    ("RBP with p=0.3 leaves half of its range empty", "1/2", None),
    ("'the golden ratio φ=(√5−1)/2≈0.62'", "0.62", "≈"),
    ("overall average S2NS around 2%", "0.2", None),
])
def test_the_qualifier_is_the_word_right_before_the_number(context, printed, word):
    assert printing.qualifier(context, printed) == word


# ------------------------------------------------------------------- statuses through compare


def _pub(rows):
    return pd.DataFrame([{"item": i, "location": "Table 1", "context": c, "value": v, "kind": "example", "note": ""}
                         for i, c, v in rows], columns=published.COLUMNS)


def test_altering_a_printed_value_from_truncated_to_wrongly_rounded_changes_the_status():
    """Table 1 of FFF21 prints 0.1770 for 17/96 = 0.177083…: truncated, no erratum. Printed as 0.1772 it
    would be wrong at its own precision (an erratum); printed back as 0.1770 it agrees again."""
    exact = Fraction(17, 96)
    status = {}
    for value in ("0.1770", "0.1772", "0.1771", "0.1770"):
        f = published.compare("x", {"table1/D/AP": exact}, published=_pub([("table1/D/AP", "", value)])).frame
        status.setdefault(value, []).append(f.loc[0, "status"])
    assert status == {"0.1770": ["agrees within printing"] * 2, "0.1772": ["differs"], "0.1771": ["match"]}


def test_altering_the_repository_value_changes_the_status():
    """The same on the repository's FFF21 file and FFF21's own Table 1 computation."""
    from irscales.papers.fff21 import runs4

    pub = published.load("fff21")
    part = runs4.table1(runs4.figure2(4))
    got = {}
    for value in ("0.1772", pub.set_index("item").loc["table1/D/AP", "value"]):
        changed = pub.copy()
        changed.loc[changed["item"] == "table1/D/AP", "value"] = value
        f = published.compare("fff21", part.items, notes=part.notes, published=changed).frame.set_index("item")
        got[value] = f.loc["table1/D/AP", "status"]
    assert got == {"0.1772": "differs", "0.1770": "agrees within printing"}


def test_the_word_in_the_context_decides_and_a_hand_label_can_give_it():
    rows = [("s/a", "NS2S around 45%", "45%"), ("s/b", "NS2S 45%", "45%"), ("s/c", "half of its range", "1/2")]
    labels = pd.DataFrame([{"paper": "x", "item": "s/c", "reading": "roughly", "reason": "'roughly corresponding'"}])
    f = published.compare("x", {"s/a": 44.13, "s/b": 44.13, "s/c": 0.4081}, published=_pub(rows),
                          labels=labels).frame.set_index("item")
    assert f["status"].to_dict() == {"s/a": "agrees within printing", "s/b": "differs", "s/c": "agrees within printing"}
    assert "(approximate)" in f.loc["s/a", "note"] and "'roughly corresponding'" in f.loc["s/c", "note"]


def test_an_open_reading_is_no_erratum_and_lists_every_reading():
    rows = [("s/x", "", "yes"), ("s/y", "", "2%"), ("s/z", "", "yes")]
    labels = pd.DataFrame([{"paper": "x", "item": "s/[xy]", "reading": "open", "reason": "the discount is not defined"}])
    f = published.compare("x", {"s/z": "no"}, published=_pub(rows), labels=labels,
                          readings={"s/x": {"JK discount": "no", "log2(i+1) discount": "yes"},
                                    "s/y": {"all cells": 1.25, "cells that change": 2.49}}).frame.set_index("item")
    assert f["status"].to_dict() == {"s/x": "depends on reading", "s/y": "depends on reading", "s/z": "differs"}
    assert f.loc["s/x", "reproduced"] == "no"  # the first reading is ours
    assert "JK discount: no (differs); log2(i+1) discount: yes (agrees)" in f.loc["s/x", "note"]
    assert "the discount is not defined" in f.loc["s/x", "note"]


def test_a_reading_that_is_not_the_reproduced_value_is_an_error():
    with pytest.raises(ValueError, match="not its first reading"):
        published.compare("x", {"s/x": "yes"}, published=_pub([("s/x", "", "yes")]), readings={"s/x": {"a": "no"}})
