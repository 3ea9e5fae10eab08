"""Tables in a total order (irscales.tables): hand-made frames whose rows tie."""

import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from irscales.tables import in_order, top_rows


def _frame():
    return pd.DataFrame({"name": ["b", "a", "c", "a", "d"], "N": [10, 5, 5, 10, 20],
                         "moved": [1.0, 2.0, 1.0, 2.0, 0.5]})


def test_ties_are_broken_by_the_labels_whatever_the_input_order():
    f = _frame()
    a = in_order(f, "moved", ["name", "N"], ascending=False)
    b = in_order(f.iloc[::-1], "moved", ["name", "N"], ascending=False)
    pd.testing.assert_frame_equal(a, b)
    assert list(zip(a["name"], a["N"])) == [("a", 5), ("a", 10), ("b", 10), ("c", 5), ("d", 20)]


def test_numeric_labels_compare_as_numbers_and_orders_take_precedence():
    f = pd.DataFrame({"m": ["x", "y", "x", "z"], "N": [10, 5, 5, 10]})
    out = in_order(f, labels=["m", "N"], orders={"m": ["y", "x"]})
    assert list(zip(out["m"], out["N"])) == [("y", 5), ("x", 5), ("x", 10), ("z", 10)]


def test_a_cut_says_how_many_more_rows_tie():
    f = _frame()
    top = top_rows(f, "moved", 3, ["name", "N"])
    assert list(top.frame["name"]) == ["a", "a", "b"]
    assert top.more_tied == 1 and top.note().startswith("1 more row ties")
    assert top_rows(f, "moved", 2, ["name", "N"]).more_tied == 0
    assert top_rows(f, "moved", 10, ["name", "N"]).more_tied == 0
    with pytest.raises(KeyError, match="no column 'nope'"):
        in_order(f, "nope")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=12),
       st.randoms(use_true_random=False), st.integers(0, 12))
def test_any_permutation_gives_the_same_table_and_cut(rows, rnd, k):
    f = pd.DataFrame(rows, columns=["name", "N", "v"])
    shuffled = f.sample(frac=1, random_state=rnd.randrange(2**32)).reset_index(drop=True)
    a, b = top_rows(f, "v", k), top_rows(shuffled, "v", k)
    pd.testing.assert_frame_equal(a.frame, b.frame)
    assert a.more_tied == b.more_tied
    shown = a.frame["v"]
    assert list(shown) == sorted(f["v"], reverse=True)[:k]  # the k largest values, largest first
    # counted from the unordered rows: every row with the last shown value that is not shown
    last = shown.iloc[-1] if len(shown) else None
    expected = int((f["v"] == last).sum() - (shown == last).sum()) if k and len(f) > k else 0
    assert a.more_tied == expected
