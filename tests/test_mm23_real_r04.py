"""irscales.papers.mm23.real_r04: the printed Fig. 6 group sizes, the search over ordered pairs on
a hand-built collection (both orders, ns and ni swapped), the analogue table, and the clear error
when the Robust 2004 data are absent. The real runs are used by notebooks/05b_mm23_real_r04_249.ipynb."""

from __future__ import annotations

import numpy as np
import pytest

from irscales import paths
from irscales.data import Collection
from irscales.papers import published
from irscales.papers.mm23 import pair_topics
from irscales.papers.mm23.conventions import GROUPS
from irscales.papers.mm23.real_r04 import (ANALOGUE_LABEL, analogue_table, fig6_pair_search, load_r04_249,
                                           printed_fig6_sizes)


def _collection() -> Collection:
    rng = np.random.default_rng(5)
    rel = (rng.random((3, 12, 10)) < 0.4).astype(np.int8)
    rel[1, 0] = rel[0, 0]  # one topic where systems 0 and 1 retrieve the same SERP
    judg = np.column_stack([np.full(12, 30), rel.max(0).sum(-1) + 1])
    return Collection(rel=rel, judgments=judg, run_lengths=np.full((3, 12), 10), topics=tuple(map(str, range(12))),
                      systems=("a", "b", "c"), provenance="trec: hand-built")


def test_printed_sizes_are_fig6s():
    assert printed_fig6_sizes(published.load("mm23")) == (20, 81, 23, 109, 16)


def test_pair_search_lists_both_orders_and_finds_an_exact_pair():
    col = _collection()
    want = tuple(int(v) for v in pair_topics(col, 2, 0, 10)["group"].value_counts().reindex(GROUPS, fill_value=0))
    s = fig6_pair_search(col, want)
    assert len(s) == 6 and s["match"].sum() >= 1
    top = s.iloc[0]
    assert (top["system A"], top["system B"], top["L1 distance"]) == ("c", "a", 0)
    back = s[(s["system A"] == "a") & (s["system B"] == "c")].iloc[0]
    assert (back["ns"], back["ni"], back["="]) == (top["ni"], top["ns"], top["="])  # swapping A and B
    assert (s[list(GROUPS)].sum(axis=1) == 12).all()


def test_analogue_table_labels_every_item():
    t = analogue_table(published.load("mm23"), {"fig6/group2_ns": 80, "table3/k10/equal": 8.469, "not/an/item": 1})
    assert list(t["item"]) == ["fig6/group2_ns", "table3/k10/equal"]
    assert list(t["real-data analogue"]) == ["80", "8.469"] and set(t["label"]) == {ANALOGUE_LABEL}


@pytest.mark.data
def test_absent_data_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("IRSCALES_TREC", str(tmp_path))
    with pytest.raises(paths.MissingSharedData, match="R04-partial"):
        load_r04_249()
