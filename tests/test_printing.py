"""irscales.papers.printing: the one reading of a printed number and the rule deciding whether a
recomputed value agrees with it (rounded, truncated where the paper's own values show it, a range that
holds, a word's tolerance)."""

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

#: A group whose other values only truncation reproduces: the evidence that lets an item truncate.
TRUNC = printing.Convention("truncated", "a column", ("x/1", "x/2"), ())
ROUND = printing.Convention("rounded", "a column", (), ("x/1", "x/2"))


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
    """Where the paper's other values show a truncation: rounded first, then truncated, else differs."""
    assert printing.agreement(printed, ours, convention=TRUNC).kind == kind


UNDECIDED = printing.Convention("undecided", "a column", (), ())
TIE = printing.Convention("undecided", "a column", ("x/1",), ("x/2",))


@pytest.mark.parametrize("printed, ours, as_rounded", [
    ("0.96", 0.9661, "0.97"), ("0.1770", Fraction(17, 96), "0.1771"), ("12", 12.6, "13"),
    ("248.54", Fraction(400 * 1000000, 1609344), "248.55"), ("-0.96", -0.9661, "-0.97")])
def test_truncation_is_no_default_and_no_erratum_where_nothing_shows_the_convention(printed, ours, as_rounded):
    """A value only truncation reproduces: an erratum where its group shows the paper rounds there; no
    erratum but undecided where nothing shows which convention the paper used (no group, a group without
    evidence, or a tie), with both printings in the note; truncated where the group truncates."""
    a = printing.agreement(printed, ours, convention=ROUND)
    assert a.kind == "differs" and f"truncates to {printed}" in a.why and "the paper rounds here" in a.why
    for conv in (None, UNDECIDED, TIE):
        a = printing.agreement(printed, ours, convention=conv)
        assert a.kind == "undecided" and a.undecided and not a.reproduced and not a.within_printing
        assert "right if the paper truncated, and nothing shows which" in a.why
        assert f"prints as {printed} (the printed value); rounded, as {as_rounded}" in a.why
    assert "a column prints 1 other value only truncation reproduces (x/1) and 1 only rounding reproduces (x/2)" in \
        printing.agreement(printed, ours, convention=TIE).why
    assert "the paper truncates here: a column prints 2 other values" in \
        printing.agreement(printed, ours, convention=TRUNC).why


def test_a_value_neither_convention_gives_differs_whatever_the_evidence():
    """1/6 printed 0.1665 (FFF21 Table 1, C): neither truncation (0.1666) nor rounding (0.1667) gives it."""
    for conv in (None, UNDECIDED, TIE, ROUND, TRUNC):
        assert printing.agreement("0.1665", Fraction(1, 6), convention=conv).kind == "differs"


@pytest.mark.parametrize("printed, ours, r, kind", [
    ("20%", 15.625, 10, "figure"), ("30%", 31.25, 10, "figure"),      # FFF21 Figure 3: labels to one decimal
    ("20%", 15.625, 2, "differs"), ("20%", 9.99, 10, "differs"),      # beyond what the figure shows
    ("20%", 10, 10, "figure"), ("0.5", 0.5, 0, "rounded"), ("0.5", 0.44, Fraction(1, 10), "figure")])
def test_a_value_read_off_a_figure_is_held_to_what_the_figure_shows(printed, ours, r, kind):
    a = printing.agreement(printed, ours, figure=r)
    assert a.kind == kind
    if kind == "figure":
        assert a.within_printing and "read off a figure, which shows it to ±" in a.why
    if kind == "differs":
        assert "what the figure it was read off can show" in a.why
    # truncation does not widen a figure's resolution: 15.9 truncates to 15, yet ± 0.5 does not reach it
    assert printing.agreement("15", 15.9, figure=0.5, convention=TRUNC).kind == "differs"
    with pytest.raises(ValueError, match="either by its word or off a figure"):
        printing.agreement("20%", 15.625, figure=10, word="about")


@pytest.mark.parametrize("printed, ours, kind", [
    ("0.96", 0.96, "rounded"), ("0.96", 0.9699999, "truncated"), ("0.96", 0.97, "differs"),  # half-open above
    ("0.96", Fraction(97, 100) - Fraction(1, 10**40), "truncated"), ("-0.96", -0.97, "differs"),
    ("0.96", 0.95999, "rounded"), ("0.96", 0.9549, "differs"),
])
def test_the_truncation_interval_is_half_open(printed, ours, kind):
    """0.97 does not truncate to 0.96 (the truncation cell is [0.96, 0.97), closed below, open above)."""
    assert printing.agreement(printed, ours, convention=TRUNC).kind == kind


def test_evidence_decides_the_convention_by_the_other_values_of_the_group():
    """MS of Fer17 Table 3: one value truncates, the others of its column only round: rounded. A column of
    scientific-notation p values that truncate: truncated, but fixed-format members are no evidence for them."""
    ms = {"a/MS": ("0.1662", Fraction(1662784, 10**7), 0, None), "b/MS": ("0.2747", 0.27466, 0, None),
          "c/MS": ("0.0306", 0.03056, 0, None), "d/MS": ("0.5000", 0.5, 0, None)}
    c = printing.convention("a/MS", "the MS column", ms)
    assert c.name == "rounded" and c.rounded_only == ("b/MS", "c/MS") and c.truncated_only == ()
    assert printing.agreement("0.1662", ms["a/MS"][1], convention=c).kind == "differs"
    p = {"a/p": ("3.64e-85", 3.648e-85, 0, None), "b/p": ("4.20e-308", 4.2072e-308, 0, None),
         "c/p": ("3.44e-05", 3.4494e-05, 0, None), "d/p": ("1.0000", 0.99996, 0, None),
         "e/p": ("1.0000", 0.99999, 0, None), "f/p": ("1.0000", 0.999993, 0, None)}
    c = printing.convention("a/p", "the p column", p)
    assert c.name == "truncated" and c.truncated_only == ("b/p", "c/p") and c.rounded_only == ()
    assert printing.agreement("3.64e-85", 3.648e-85, convention=c).kind == "truncated"
    assert printing.convention("d/p", "the p column", p).rounded_only == ("e/p", "f/p")
    # a tie decides neither convention: undecided (so is a group with no evidence)
    tie = {"a": ("0.96", 0.9661, 0, None), "b": ("0.93", 0.9288, 0, None), "c": ("0.12", 0.1299, 0, None)}
    assert printing.convention("a", "a passage", tie).name == printing.UNDECIDED
    assert printing.convention("a", "a passage", {"a": tie["a"]}).name == printing.UNDECIDED


def test_a_value_known_below_a_bound_does_not_truncate_to_it():
    """A power of 1 − 1e-300 (1.0 in double precision) prints as 1.0000 only rounded: its set of values is
    [1 − s, 1), which misses the truncation cell [1, 1.0001) of 1.0000 and meets that of 0.9999."""
    assert printing.reproducing("1.0000", 1.0, 5e-324, below=1) == {"rounded"}
    assert printing.reproducing("1.0000", 1.0, 5e-324) == {"rounded", "truncated"}
    assert printing.reproducing("0.9999", 1.0, 3.4e-62, below=1) == {"truncated"}


def test_a_tie_rounds_either_way_exactly():
    for printed in ("0.12", "0.13"):
        assert printing.agreement(printed, Fraction(1, 8)).kind == "rounded"
        assert printing.agreement(printed, 0.125).kind == "rounded"  # the float is read as its decimal
    assert printing.agreement("0.12", Fraction(1, 8) + Fraction(1, 10**30), convention=TRUNC).kind == "truncated"


@given(st.fractions(min_value=-1000, max_value=1000), st.integers(0, 6))
def test_rounded_and_truncated_printings_agree_and_a_wrong_digit_does_not(x, d):
    """The printings of an exact value agree with it (a Decimal reference rounds and truncates), and
    a last digit off by more than one unit is an erratum."""
    q = Decimal(10) ** -d
    exact = Decimal(x.numerator) / Decimal(x.denominator)
    rounded = f"{exact.quantize(q, rounding=ROUND_HALF_EVEN):f}"
    truncated = f"{exact.quantize(q, rounding=ROUND_DOWN):f}"
    assert printing.agreement(rounded, x).kind == "rounded"
    assert printing.agreement(truncated, x, convention=TRUNC).kind in ("rounded", "truncated")
    off = Decimal(rounded) + 2 * q if x >= 0 else Decimal(rounded) - 2 * q
    assert printing.agreement(f"{off:f}", x).kind == "differs"
    away = exact.quantize(q, rounding=ROUND_HALF_UP)  # render rounds half away from zero
    if away:
        assert printing.read(rounded).render(x) == f"{away:f}"
        assert Decimal(printing.read(rounded).render(x, truncate=True)) == Decimal(truncated)


def test_spread_of_inputs_printed_rounded():
    # p from an F printed to 4 decimals: 3.4514e-05 at F, 3.4489e-05 at F + 0.00005 — truncates to 3.44e-05
    assert printing.agreement("3.44e-05", 3.451381259300116e-05, convention=TRUNC).kind == "differs"
    assert printing.agreement("3.44e-05", 3.451381259300116e-05, spread=2.44e-8, convention=TRUNC).kind == "truncated"
    assert printing.agreement("0.51", 0.5, spread=0.006).kind == "rounded"


@pytest.mark.parametrize("printed, ours, end, kind", [
    ("10%", 10.99, "lower", "bound"),    # 'loss in the range 10%–30%': the smallest loss 10.99 rounded down
    ("10%", 9.32, "upper", "bound"),     # 'all above 0.9 … loss 2%–10%': the largest loss 9.32 rounded up
    ("14%", 12.99, "lower", "differs"),  # a lower end above the smallest value: the range does not hold
    ("0.86", 0.8701, "upper", "differs"),
    ("0.96", 0.9661, "upper", "differs"),  # an upper end below the largest value: no bound, and the passage rounds
    ("10%", 9.32, None, "differs"),      # the same number without a range is not a bound
    ("10%", 8.99, "upper", "differs"),   # a bound must be the extreme rounded outward, not any larger number
])
def test_a_range_that_holds_as_stated(printed, ours, end, kind):
    """Range ends, in a passage whose other values show it rounds (FFF21 §7.1.1's 0.93 for 0.9288)."""
    assert printing.agreement(printed, ours, end=end, convention=ROUND).kind == kind


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
    ("0.454", 0.41, "≳", "differs"), ("0.454", 0.453, "≳", "approximate"), ("0.454", 0.4529, "≳", "differs"),
    ("0.454", 0.4546, "≳", "differs"), ("0.454", 0.4549, "≲", "approximate"), ("0.454", 0.4531, "≲", "differs"),
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


@pytest.mark.parametrize("printed, ours, word", [
    ("2", 2.9, "about"), ("0.5", 0.59, "about"), ("3", 3.99, "a little bit more than"), ("45%", 49.9, "around")])
def test_truncation_never_widens_a_word(printed, ours, word):
    """'about 2' is not 2.9 although 2.9 truncates to 2, whatever the paper's convention."""
    for conv in (None, TRUNC):
        assert printing.agreement(printed, ours, word=word, convention=conv).kind == "differs"


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


_GROUP = pd.DataFrame([{"paper": "x", "items": "t/*", "group": "Table 9's column"}])


def test_a_truncated_value_agrees_only_where_its_group_truncates():
    """17/96 printed 0.1770 (truncated): an erratum beside values that only round; no erratum beside two
    values that only truncate; alone, nothing shows which convention the paper used, so it depends on the
    reading; printed 0.1772 an erratum and 0.1771 a match either way."""
    exact = Fraction(17, 96)
    for others, want in ((None, "depends on reading"), ({"t/b": ("0.2747", 0.27466), "t/c": ("0.0306", 0.03056)}, "differs"),
                         ({"t/b": ("0.2746", 0.27466), "t/c": ("0.0305", 0.03056)}, "agrees within printing")):
        rows, vals = [("t/a", "", "0.1770")], {"t/a": exact}
        for k, (v, x) in (others or {}).items():
            rows.append((k, "", v))
            vals[k] = x
        for value, status in (("0.1770", want), ("0.1772", "differs"), ("0.1771", "match")):
            rows[0] = ("t/a", "", value)
            f = published.compare("x", vals, published=_pub(rows), groups=_GROUP).frame.set_index("item")
            assert f.loc["t/a", "status"] == status, (others, value)
    rows[0] = ("t/a", "", "0.1770")
    f = published.compare("x", vals, published=_pub(rows), groups=_GROUP).frame.set_index("item")
    assert "Table 9's column prints 2 other values only truncation reproduces (t/b, t/c)" in f.loc["t/a", "note"]


def test_the_repository_leaves_fff21_table1_d_to_the_reading():
    """Table 1 of FFF21 prints 0.1770 for 17/96: right if truncated, and nothing else in the table shows
    whether it truncates or rounds (A is exact, B and C are neither), so it depends on the reading, with
    both printings and the evidence in its note; B and C stay errata (no convention gives them)."""
    from irscales.papers.fff21 import runs4

    pub = published.load("fff21")
    part = runs4.table1(runs4.figure2(4))
    f = published.compare("fff21", part.items, notes=part.notes).frame.set_index("item")
    assert f.loc["table1/D/AP", "status"] == "depends on reading"
    note = f.loc["table1/D/AP", "note"]
    assert "right if the paper truncated, and nothing shows which" in note
    assert "prints as 0.1770 (the printed value); rounded, as 0.1771" in note
    assert "Table 1's AP column prints 0 other values only truncation reproduces and 0 only rounding" in note
    assert (f.loc["table1/B/AP", "status"], f.loc["table1/C/AP", "status"]) == ("differs", "differs")
    assert pub.set_index("item").loc["table1/D/AP", "value"] == "0.1770"


def test_the_word_in_the_context_decides_and_a_hand_label_can_give_it():
    rows = [("s/a", "NS2S around 45%", "45%"), ("s/b", "NS2S 45%", "45%"), ("s/c", "half of its range", "1/2")]
    labels = pd.DataFrame([{"paper": "x", "item": "s/c", "reading": "roughly", "reason": "'roughly corresponding'"}])
    f = published.compare("x", {"s/a": 44.13, "s/b": 44.13, "s/c": 0.4081}, published=_pub(rows),
                          labels=labels).frame.set_index("item")
    assert f["status"].to_dict() == {"s/a": "agrees within printing", "s/b": "differs", "s/c": "agrees within printing"}
    assert "(approximate)" in f.loc["s/a", "note"] and "'roughly corresponding'" in f.loc["s/c", "note"]


def test_unknown_settings_are_unresolved_and_an_open_reading_no_reading_gives_differs():
    rows = [("s/u", "", "0.8043"), ("s/o", "", "0.5137"), ("s/m", "", "1.0000")]
    labels = pd.DataFrame([{"paper": "x", "item": "s/u", "reading": "unknown", "reason": "G*Power's settings"},
                           {"paper": "x", "item": "s/[om]", "reading": "open", "reason": "two readings"}])
    f = published.compare("x", {"s/m": 1.0}, published=_pub(rows), labels=labels,
                          readings={"s/u": {"eq. (5)": 0.05, "printed ω²": 0.05},
                                    "s/o": {"eq. (5)": 0.986, "printed ω²": 0.91}}).frame.set_index("item")
    assert f["status"].to_dict() == {"s/u": "unresolved", "s/o": "differs", "s/m": "match"}
    assert "values tried — eq. (5): 0.05 (differs)" in f.loc["s/u", "note"]
    assert "no reading the paper allows gives it" in f.loc["s/o", "note"]


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
