"""Tests of irscales.papers.fff21.record: how items are written, and the Record of a notebook."""

from fractions import Fraction

import pandas as pd
import pytest

from irscales.papers.fff21 import claims as F
from irscales.papers.fff21.record import Part, Record, fmt_num, fmt_set, fmt_vec, line, same_for_all


def test_formats_by_hand():
    assert fmt_set([0, Fraction(1, 2), 1]) == "{0, 1/2, 1}"
    assert fmt_num(2) == "2" and fmt_num(Fraction(1, 4)) == "0.25" and fmt_num(Fraction(6, 3)) == "2"
    assert fmt_vec([1, Fraction(1, 2), 4]) == "[1 0.5 4]"
    assert fmt_vec([Fraction(1, 3), 35.6], 1) == "[0.3 35.6]"
    assert same_for_all(["a", "a"]) == "a"
    assert same_for_all(["b", "a", "b"]) == "differs: a | b"
    assert line("saved", 1, 0.5, {"a": 1}) == "saved 1 0.5 {'a': 1}"


def test_record_add_keep_and_claims():
    rec = Record()
    part = Part({"x": 1}, {"x": "why"}, text="t")
    assert rec.add(part) is part and rec.reproduced == {"x": 1} and rec.notes == {"x": "why"}
    frame = rec.keep([F.Claim("fn7/binary/N=30", "10^9", "2^30")])
    assert list(frame.columns) == ["item", "ours", "how"] and rec.notes["fn7/binary/N=30"] == "2^30"
    with pytest.raises(ValueError):
        rec.claims([])


def test_record_claims_keeps_spreads_readings_and_compares():
    printed = pd.Series({"a/1": "0.50", "a/2": "3"})
    rec = Record(printed, lambda c, p: f"{c.note} (printed {p})")
    out = rec.claims([F.Claim("a/1", 0.51, "n1", spread=0.006), F.Claim("a/2", 4, "n2", readings={"r": 4, "s": 3})])
    assert out["agrees"].tolist() == [True, False]  # 0.51 ± 0.006 reaches 0.505
    assert rec.spreads == {"a/1": 0.006} and rec.notes["a/2"] == "n2 (printed 3)"
    assert rec.readings == {"a/2": {"r": 4, "s": 3}}


def test_record_compare_uses_the_published_file():
    rec = Record()
    rec.keep(F.footnote_claims())
    cmp = rec.compare("fff21", route="printed")
    done = cmp.frame[cmp.frame["status"] != "not reproduced"]
    assert set(done["item"]) == set(rec.reproduced)
    assert done.set_index("item").loc["fn7/4^30=2^60", "status"] == "match"
    assert cmp.frame.set_index("item").loc["fn7/4^30=2^60", "route"] == "printed"
