"""FFP19 rank identities and FFP17's basic-operation chains."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irscales.theory import rank_identities as R


def test_total_order_identities_hold_and_sizes_are_hand_counted():
    df = R.total_order_identities(range(1, 5), range(1, 4))
    checks = [c for c in df.columns if df[c].dtype == bool]
    assert len(checks) == 7 and df[checks].all().all()
    # c = 2, N = 2: multisets {00, 10, 11, 20, 21, 22} -> 6 = C(4, 2); 3^2 = 9 ranked runs
    row = df[(df.c == 2) & (df.N == 2)].iloc[0]
    assert row["|R(N)| multisets"] == 6 and row["(c+1)^N"] == 9


def test_chain_counts_hand_worked():
    # FFP17 first example shape: 0000 -> 0001 -> 0010 -> 0100 -> 0101 -> 0110
    assert R.chain_operation_counts((0, 1, 1, 0)) == (0, 1, 2, 2)
    assert R.chain_operation_counts((1, 0, 0)) == (1, 1, 1)   # replace, swap into 2, swap into 1
    assert R.chain_operation_counts((0, 0, 0)) == (0, 0, 0)
    assert R.runs_with_operation_counts(4, (0, 1, 2, 2)) == [(0, 1, 1, 0)]
    assert R.runs_with_operation_counts(3, (2, 0, 0)) == []     # more swaps into 1 than replacements


def test_bad_input():
    with pytest.raises(ValueError):
        R.chain_operation_counts((0, 2, 1))
    with pytest.raises(ValueError):
        R.runs_with_operation_counts(3, (0, 1))


@given(st.lists(st.integers(0, 1), min_size=1, max_size=9))
def test_chain_counts_are_the_cumulative_sums(run):
    assert R.chain_operation_counts(run) == tuple(np.cumsum(run).tolist())
