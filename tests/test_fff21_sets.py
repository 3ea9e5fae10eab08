"""Tests of irscales.papers.fff21.sets: FFF21 §3.4 on S[N, K] and Example 11."""

from fractions import Fraction

from irscales.papers.fff21 import sets as S


def test_s22_lists_nine_triples():
    part = S.s22()
    assert part.text.startswith("S[2,2] = [0, 1, 1] [1, 1, 1]") and len(part.table) == 9
    assert part.table.loc[part.table["run"] == "[1, 2, 1]", "F1"].item() == Fraction(2, 3)


def test_images_table_small_sets():
    t = S.images_table([(1, 1), (2, 2)]).set_index("set")
    assert t.loc["S[1,1]", "P"] == "{0, 1}" and t.loc["S[2,2]", "P"] == "{0, 1/2, 1}"
    assert t.loc["S[2,2]", "F1"] == "{0, 1/2, 2/3, 1}" and not t.loc["S[2,2]", "F1 equi-spaced"]


def test_fixed_length_and_fixed_rb():
    assert S.fixed_length_ok(2, 3) and S.fixed_length_ok(1, 1)
    assert S.fixed_rb_ok(3, 2) and S.fixed_rb_ok(1, 1)


def test_section34_claims_small():
    part = S.section34_claims(4)
    it = part.items
    assert it["s3.4/S22/size"] == 9
    assert (it["s3.4.1/P[1,2,1]"], it["s3.4.2/R[1,1,2]"], it["s3.4.3/F1[1,2,1]"]) == (Fraction(1, 2), Fraction(1, 2),
                                                                                       Fraction(2, 3))
    assert it["s3.4.1/P_image/S[1,K]"] == "{0, 1}" and it["s3.4.2/R_image/S[N,2]"] == "{0, 1/2, 1}"
    assert it["s3.4.1/P_interval_iff_N<=2"] == "yes" and it["s3.4.4/S22_P_R_different_order"] == "yes"
    assert "S[2,2]: P vs R tau_b" in part.text


def test_example11_by_hand():
    # Recall at n = 3: {0, 1}, {0, 1/2, 1}, {0, 1/3, 2/3, 1}; common grid of step 1/6
    it = S.example11().items
    assert it == {"ex11/union_equispaced": "no", "ex11/common_grid": "{0, 1/6, 1/3, 1/2, 2/3, 5/6, 1}",
                  "ex11/impossible_values": "{1/6, 5/6}"}
