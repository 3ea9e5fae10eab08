"""Tests of irscales.data._trec_order: trec_eval's order of parsed runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales.data import trec as io
from irscales.data import _trec_order as trec_order

docnos = st.text(alphabet="aAbB019-_xyZéü", min_size=1, max_size=6)


def write(path, text):
    path.write_text(text)
    return path


def test_long_docno_sort_path_gives_the_same_order(tmp_path, monkeypatch):
    q = write(tmp_path / "q", "1 0 é 1\n1 0 e 2\n1 0 doc10 1\n")
    r = write(tmp_path / "r", "1 Q0 é 1 1 s\n1 Q0 e 2 1 s\n1 Q0 doc10 3 1 s\n1 Q0 doc9 4 1 s\n1 Q0 Z 5 1 s\n")
    # the general path (frames) sorts docnos as fixed-width strings, or as Python strings when they are long;
    # the compiled reader of read_trec compares their bytes
    fixed = io.relevance_arrays([io.read_run(r)], io.read_qrels(q), 5).rel
    monkeypatch.setattr(trec_order, "_FIXED_WIDTH_SORT_BYTES", 0)
    long = io.relevance_arrays([io.read_run(r)], io.read_qrels(q), 5).rel
    compiled = io.read_trec([r], q, depth=5, cache=False).rel
    # strcmp order descending: 'é' (0xC3 0xA9) > 'e' > 'doc9' > 'doc10' > 'Z'
    assert fixed.tolist() == long.tolist() == compiled.tolist() == [[[1, 2, 0, 1, 0]]]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "10"]), docnos,
                          st.sampled_from([0.0, -0.0, 1.0, -1.0, 1e-40, -3.25, 2.5e38, 100000.1546100,
                                           100000.1530000, 1 + 2**-30, 1.0 + 2**-52])),
                min_size=1, max_size=25, unique_by=lambda x: (x[0], x[1])),
       st.sampled_from(["float32", "float64"]))
def test_trec_order_equals_a_plain_sort(rows, precision):
    """The integer-key sort is trec_eval's rule: per topic, score descending at the precision
    (-0.0 ties +0.0), then docno descending in byte order."""
    frame = pd.DataFrame(rows, columns=["topic", "docno", "score"])
    p = trec_order.parsed_frame(frame, 0, precision)
    cast = np.float32 if precision == "float32" else np.float64
    for ti, topic in enumerate(p.topics):
        got = [str(p.docnos[d]) for t, d in zip(p.t_code, p.d_code) if t == ti]
        mine = [(float(cast(s)), d.encode()) for t, d, s in rows if t == topic]
        assert got == [d.decode() for _, d in sorted(mine, reverse=True)]
    assert list(p.t_code) == sorted(p.t_code)  # grouped by topic
