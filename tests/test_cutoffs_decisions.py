"""The table of decisions the brackets prove (notebook 09, ``irscales.papers.fff21.cutoffs_decisions``): a measure
refused keeps its rows with the reason, and the counts of the others stay integers in the stored table."""

from __future__ import annotations

import csv
import io

import numpy as np

from irscales.papers.fff21 import cutoffs_decisions as D
from irscales.papers.fff21.cutoffs import Source
from irscales.stored import csv_text


def _source(tmp_path) -> Source:
    """Six generated (simulated) runs of five topics and 12 documents, and their qrels."""
    rng = np.random.default_rng(3)
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{t} 0 d{i} {int(rng.random() < 0.4)}\n" for t in range(1, 6) for i in range(20)))
    runs = []
    for s in range(6):
        f = tmp_path / f"sim{s}"
        f.write_text("".join(f"{t} Q0 d{d} {k + 1} {12 - k} sim{s}\n" for t in range(1, 6)
                             for k, d in enumerate(rng.permutation(20)[:12])))
        runs.append(f)
    return Source(qrels, runs, True, len(runs))


def test_a_refused_measure_keeps_its_rows_and_the_counts_stay_integers(tmp_path):
    f = D.decisions_frame(_source(tmp_path), [10], errors=(0.1,), measures=("RBP_p08", "no_such_measure"),
                          tests=("t", "sign"))
    assert len(f) == 4
    done, refused = f[f["route"] != "none"], f[f["route"] == "none"]
    assert len(done) == 2 and len(refused) == 2 and (refused["reason"] != "").all()
    assert (done["systems"] == 6).all() and (done["pairs"] == 15).all()
    assert (done["proven_significant"] + done["proven_not_significant"] + done["undecided"] == 15).all()
    assert refused[list(D.COUNTS)].isna().all().all()
    for row in csv.DictReader(io.StringIO(csv_text(f, index=False))):
        counts = [row[c] for c in D.COUNTS]
        if row["route"] == "none":
            assert counts == [""] * len(counts), row
        else:  # whole numbers, as counted: 6, not 6.0
            assert all(c.isdigit() for c in counts) and row["systems"] == "6", row
