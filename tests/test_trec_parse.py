"""Tests of irscales.data.trec_parse: the general parser (pandas' C reader, the line-by-line scan naming bad lines)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales.data import trec as io
from irscales.data import trec_parse


def test_large_input_uses_the_fast_path(tmp_path, monkeypatch):
    # 200 topics x 500 documents: valid input must never reach the per-line Python scan
    rng = np.random.default_rng(0)
    t = np.repeat(np.arange(200), 500).astype(str)
    d = np.char.add("d", rng.integers(0, 10**9, t.size).astype(str))
    _, keep = np.unique(np.char.add(np.char.add(t, "/"), d), return_index=True)
    keep.sort()
    io.write_run(tmp_path / "r", t[keep], d[keep], rng.random(keep.size), "big")
    io.write_qrels(tmp_path / "q", t[keep][::7], d[keep][::7], rng.integers(0, 3, keep[::7].size))

    def forbidden(*a, **k):
        raise AssertionError("slow per-line scan used on valid input")

    monkeypatch.setattr(trec_parse, "_slow_scan", forbidden)
    monkeypatch.setattr(trec_parse, "line_numbers", forbidden)
    out = io.read_trec([tmp_path / "r"], tmp_path / "q", depth=100, on_no_relevant="keep")
    assert out.rel.shape == (1, 200, 100)
    assert out.run_lengths.sum() == keep.size


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 30)), max_size=60), st.booleans())
def test_first_duplicate_matches_a_plain_scan(pairs, wide):
    """The counting shortcut and the sort give the first repeated (topic, docno) in file order."""
    nd = 31 if not wide else 10**7  # wide: keys beyond the counting bound take the sorting path
    t = np.array([p[0] for p in pairs], dtype=np.int64)
    d = np.array([p[1] for p in pairs], dtype=np.int64)
    seen, want = {}, None
    for row, p in enumerate(pairs):
        if p in seen:
            want = (row, seen[p])
            break
        seen[p] = row
    assert trec_parse.first_duplicate(t, d, nd) == want
