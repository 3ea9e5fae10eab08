"""FFF21 claims recomputed from printed numbers: hand-computed small tables, and the real published file."""

from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irscales.papers.fff21 import claims as F
from irscales.papers import printing, published
from irscales.papers.fff21.record import Record


def frame(rows):
    return pd.DataFrame([{"item": i, "location": "", "context": "", "value": v, "kind": "trec", "note": ""}
                         for i, v in rows], columns=published.COLUMNS)


def test_parse_printed_is_exact():
    assert F.parse_printed("0.9498") == Fraction(9498, 10000)
    assert F.parse_printed("+5.29%") == Fraction(529, 100)
    assert F.parse_printed("−11.60%") == Fraction(-116, 10)
    assert F.parse_printed("8,256") == 8256
    with pytest.raises(ValueError, match="not a printed number"):
        F.parse_printed("yes")


def test_delta_percent_hand_computed():
    # 0.8 -> 0.9 is +12.5 %, 0.5 -> 0.4 is -20 %
    assert F.delta_percent(Fraction(4, 5), Fraction(9, 10)) == Fraction(25, 2)
    assert F.delta_percent(Fraction(1, 2), Fraction(2, 5)) == -20


def test_table4_delta_spread_accepts_rounding_and_rejects_errors():
    # Msr 0.8000, RnkMsr 0.9000: Δ% = 12.5; inputs ±0.00005 move it by at most ~0.0133 points
    good = frame([("table4/T/A vs B/Msr", "0.8000"), ("table4/T/A vs B/RnkMsr", "0.9000"),
                  ("table4/T/A vs B/Delta%", "+12.51%")])
    (c,) = F.table4_delta_checks(good)
    assert c.item == "table4/T/A vs B/Delta%" and c.value == 12.5
    assert 0.0132 < c.spread < 0.0134
    assert printing.agreement("+12.51%", c.value, spread=c.spread).reproduced       # reachable from rounded inputs
    assert printing.agreement("+12.53%", c.value, spread=c.spread).kind == "differs"  # not reachable
    assert c.note.startswith("recomputed from the paper's printed")


def test_significance_percent_checks_hand_computed():
    rows = [("table5/T/M/Sign Test/Sig", "8"), ("table5/T/M/Sign Test/S2NS", "1"), ("table5/T/M/Sign Test/S2NS%", "12.50%"),
            ("table5/T/M/Sign Test/NS2S", "3"), ("table5/T/M/Sign Test/NS2S%", "37.50%"),
            ("table5/T/M/Sign Test/Delta%", "50.00%")]
    rows += [(i.replace("table5", "table6"), v) for i, v in rows]
    got = {c.item: c.value for c in F.significance_percent_checks(frame(rows))}
    assert got["table5/T/M/Sign Test/S2NS%"] == 12.5
    assert got["table5/T/M/Sign Test/NS2S%"] == 37.5
    assert got["table6/T/M/Sign Test/Delta%"] == 50.0


def test_system_pairs_and_memory():
    assert [F.system_pairs(n) for n in (0, 1, 2, 5)] == [0, 0, 1, 10]
    with pytest.raises(ValueError):
        F.system_pairs(-1)
    # N = 3: 8 runs · 3 digits · 8 bytes = 192 bytes; packed bits: 24 bits = 3 bytes
    assert F.all_runs_memory(3, 64) == 192 and F.all_runs_memory(3, 1) == 3


def test_footnote_8_packed_bits_is_5_tib_not_40():
    got = {c.item: c.value for c in F.footnote_claims()}
    assert got["fn8/N=30/double/GByte"] == 240 and got["fn8/N=40/double/TByte"] == 320
    assert got["fn8/N=40/bit/TByte"] == 5
    assert got["s6/run_space/N=10"] == "10^3" and got["fn7/4-valued/N=30"] == "10^18"


def test_toy_variable_hand_computed():
    t = F.toy_variable([0, 1, 2, 4, 13])
    assert (t["mean"], t["median"], t["eps_threshold"]) == (4, 2, 1)
    assert t["mass_at"][1] == Fraction(3, 5) and t["mass_at"][13] == Fraction(1, 5)
    with pytest.raises(ValueError):
        F.toy_variable([1, 1])


@given(st.lists(st.integers(-50, 50), min_size=2, max_size=8, unique=True))
def test_toy_threshold_is_the_smallest_gap(xs):
    t = F.toy_variable(xs)
    s = sorted(xs)
    assert t["eps_threshold"] == min(b - a for a, b in zip(s, s[1:]))
    assert t["mean"] == Fraction(sum(xs), len(xs))
    assert max(t["mass_at"].values()) > Fraction(1, len(xs))  # not constant at the threshold


def test_section7_on_a_hand_made_table2():
    # two tracks, RR below the others; loss = 1 - tau
    rows = []
    for tr, rr in (("T08_05", "0.9000"), ("T08_10", "0.8000")):
        rows.append((f"table2/{tr}/RR", rr))
    cells = F.table2(frame(rows))
    claims = {c.item: c.value for c in F._range_claims("x", cells, "test")}
    assert claims == {"x/tau_min": 0.8, "x/tau_max": 0.9, "x/loss_min": 10.0, "x/loss_max": 20.0}


@pytest.fixture(scope="module")
def real():
    return published.load("fff21")


def test_printed_tables_are_internally_consistent(real):
    raw = real.set_index("item")["value"]
    checks = F.table4_delta_checks(real) + F.significance_percent_checks(real)
    assert len(checks) == 165 + 792
    assert all(printing.agreement(raw[c.item], c.value, spread=c.spread or 0).reproduced for c in checks)


def test_section7_claims_are_published_items_and_known_disagreements(real):
    claims = F.section7_claims(real) + F.pair_count_claims(real) + F.footnote_claims()
    raw = real.set_index("item")["value"]
    assert all(c.item in raw.index for c in claims)
    differs = sorted(c.item for c in claims
                     if not printing.agreement(raw[c.item], c.value, spread=c.spread or 0).reproduced)
    assert differs == sorted([
        "fn8/N=40/bit/TByte", "s7.1.1/RBP_p08/tau_max", "s7.1.1/RBP_p08/loss_min", "s7.1.2/R/loss_min",
        "s7.1.2/AP/tau_max", "s7.1.2/AP/loss_min", "s7.1.2/nDCG/loss_max", "s7.1.3/P_mid/tau_min",
        "s7.2.2/AP_vs_DCG/ranked_max", "s7.3/RB_ordinal/NS2S_mean", "s7.3/RB_interval/NS2S_mean"])
    got = {c.item: c.value for c in claims}
    assert got["s7.1.1/RBP_p08/tau_max"] == float(F.parse_printed(raw["table2/T26_05/RBP_p08"]))
    assert got["s7.3/pairs/T08_30"] == 129 * 128 // 2


def test_section7_statuses_follow_the_rule(real):
    """Of the §7 figures that do not round to the table: ranges that hold as stated and a marked
    approximation agree within the paper's printing; a truncated range end is an erratum where the same
    sentence's other figures round (0.93 of '0.93–0.96', 9% of '9%–16%'); §7.3's averages are read one way
    for the whole passage (the cells that can change), under which one of them differs; the rest are errata."""
    rec = Record(real.set_index("item")["value"], F.explain)
    rec.claims(F.section7_claims(real) + F.pair_count_claims(real) + F.footnote_claims())
    f = rec.compare("fff21", route="printed").frame.set_index("item")
    off = f[~f["status"].isin(["match", "not reproduced"])]
    assert off["status"].to_dict() == {
        "fn8/N=40/bit/TByte": "differs", "s7.1.1/RBP_p08/tau_max": "differs",
        "s7.1.1/RBP_p08/loss_min": "differs", "s7.1.2/R/loss_min": "agrees within printing",
        "s7.1.2/AP/tau_max": "differs", "s7.1.2/AP/loss_min": "differs", "s7.1.2/nDCG/loss_max": "agrees within printing",
        "s7.1.3/P_mid/tau_min": "differs", "s7.2.2/AP_vs_DCG/ranked_max": "differs",
        "s7.3/RB_ordinal/NS2S_mean": "differs", "s7.3/RB_interval/NS2S_mean": "agrees within printing"}
    for item, evidence in (("s7.1.1/RBP_p08/tau_max", "s7.1.1/RBP_p08/tau_min"),
                           ("s7.2.2/AP_vs_DCG/ranked_max", "s7.2.2/AP_vs_DCG/min")):
        note = f.loc[item, "note"]
        assert "but the paper rounds here" in note and f"only rounding reproduces ({evidence})" in note, note
    assert "(bound)" in f.loc["s7.1.2/R/loss_min", "note"] and "(bound)" in f.loc["s7.1.2/nDCG/loss_max", "note"]
    assert "'around'" in f.loc["s7.3/RB_interval/NS2S_mean", "note"]
    # one reading for the passage, stated in every note, with the other reading's value
    for key in ("no_RB_interval", "RB_ordinal", "RB_interval"):
        for c in ("S2NS", "NS2S"):
            assert "read, for the whole passage, over the cells whose decisions can change" in \
                f.loc[f"s7.3/{key}/{c}_mean", "note"]
    assert f.loc["s7.3/RB_ordinal/S2NS_mean", "status"] == "match"  # 2.49375 over the 24 cells that can change
    assert "averaging all 48 cells instead gives 1.2469%" in f.loc["s7.3/RB_ordinal/S2NS_mean", "note"]
    assert "= 8.4437%" in f.loc["s7.3/RB_ordinal/NS2S_mean", "note"]
    assert "averaging all 48 cells instead gives 4.2219%" in f.loc["s7.3/RB_ordinal/NS2S_mean", "note"]
    assert f.loc["s7.3/no_RB_interval/S2NS_mean", "status"] == "match"
