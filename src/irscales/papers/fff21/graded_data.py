"""Real runs judged on a graded scale, read as a user's runs are (issue 30): beyond FFF21, which maps
its graded judgments to binary (§6; footnote 7: "4^30 ≈ 10^18 runs").

Two data sets of the shared folder, each with three relevance grades (0, 1, 2):

* ``clef2018`` — CLEF eHealth 2018 Consumer Health Search, ad hoc task: 24 of its 38 submitted runs
  (10 participant runs, 14 organiser baselines), 50 topics, topical relevance qrels; pool of depth 10.
  Thirteen files share a run tag with another (six Indri baselines are all ``indri``): systems are
  named by file (:mod:`irscales.data.run_names`). Nine files repeat a (topic, document, score) line,
  which trec_eval refuses: the repeats are dropped first (:mod:`irscales.data.run_repeats`). One run
  (UEvora) has 49 topics: a missing topic counts as an empty run (``on_uneven_topics="pad"``, trec_eval -c).
* ``robust2004`` — 10 of the 110 TREC 2004 Robust runs over all 249 judged topics (official qrels;
  topic 672 has no relevant document and is not in the qrels, so it is skipped).

Both are read by :meth:`irscales.data.Collection.from_trec` — the reading of :func:`irscales.evaluate` —
cut at N, unjudged documents counting as not relevant. A depth-10 pool judges the top 10 of the pooled
runs only, so at deeper cut-offs a run's unjudged documents are scored as not relevant:
:func:`judged_at` measures it (judged@k, the fraction of the top k that is judged) by reading the same
runs against the judged/unjudged indicator of the qrels.

Everything computed on these data is labelled :data:`LABEL`: real data, beyond the papers — no paper
printed these numbers, so nothing here is a reproduction.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from irscales import paths
from irscales.data import Collection
from irscales.data._judged import DEFAULT_JUDGED_THRESHOLD, indicator_qrels, judged_fraction
from irscales.data.run_repeats import without_repeats
from irscales.data.trec import find_runs, read_qrels
from irscales.papers.mm23.real_r04 import r04_folder

__all__ = ["LABEL", "DATASETS", "GradedData", "clef_folder", "sources", "available", "missing_reason", "load",
           "judged_at", "UNRELIABLE_JUDGED"]

#: The label of every output computed on these data (titles, captions, file names say it).
LABEL = "real data, beyond the papers"
#: Data set key → (track label used in table rows, what it is).
DATASETS = {
    "clef2018": ("CLEF18", "CLEF eHealth 2018 CHS: 24 real runs, 50 topics, grades 0-2, depth-10 pool"),
    "robust2004": ("R04", "TREC 2004 Robust: 10 real runs, 249 topics, grades 0-2"),
}
#: A system with fewer than this fraction of its top k documents judged makes cut-off k unreliable: its
#: unjudged documents count as not relevant, so its scores there are lower bounds (the core's warning threshold).
UNRELIABLE_JUDGED = DEFAULT_JUDGED_THRESHOLD
_CLEF_QRELS = "CLEF2018_qrel_20180914.txt.gz"


def clef_folder() -> Path | None:
    """``clef/eHealth2018-CHS`` of the shared folder (``IRSCALES_SHARED``), or None when absent."""
    shared = paths.shared_dir()
    d = shared / "clef" / "eHealth2018-CHS" if shared is not None else None
    return d if d is not None and (d / "runs").is_dir() and (d / _CLEF_QRELS).exists() else None


def sources(name: str) -> tuple[Path, Path] | None:
    """(runs folder, qrels file) of a data set, or None when it is not in the shared folder."""
    if name == "clef2018":
        d = clef_folder()
        return (d / "runs", d / _CLEF_QRELS) if d is not None else None
    if name == "robust2004":
        d = r04_folder()
        return (d / "runs", d / "qrels.robust2004.txt.gz") if d is not None else None
    raise KeyError(f"unknown data set {name!r}; known: {', '.join(DATASETS)}")


def available(name: str) -> bool:
    """Whether the data set is in the shared folder."""
    return sources(name) is not None


def missing_reason(name: str) -> str:
    """One line: why a data set cannot be read (empty when it can)."""
    if available(name):
        return ""
    where = {"clef2018": "clef/eHealth2018-CHS (runs/ and CLEF2018_qrel_20180914.txt.gz)",
             "robust2004": "trec/R04-partial (runs/ and qrels.robust2004.txt.gz)"}[name]
    return f"{name}: {where} not found; set IRSCALES_SHARED to the shared folder"


@dataclass(frozen=True)
class GradedData:
    """One data set read at ``depth``: the collection (grades 0..2, unjudged = 0), the judged/unjudged
    indicator of the same runs (``judged.rel`` is 1 where the document is judged), the table of
    repeated lines dropped per file, and the reading notes."""

    name: str
    track: str
    description: str
    collection: Collection
    judged: Collection
    repeats: pd.DataFrame
    notes: tuple[str, ...]


def load(name: str, depth: int = 30, cache: bool = True) -> GradedData:
    """Read data set ``name`` (:data:`DATASETS`) cut at ``depth`` through :meth:`Collection.from_trec`
    (module docstring). Raises :class:`irscales.paths.MissingSharedData` when it is absent."""
    src = sources(name)
    if src is None:
        raise paths.MissingSharedData(missing_reason(name))
    runs, qrels = src
    files, repeats = without_repeats(find_runs(runs))
    opts = dict(on_uneven_topics="pad") if name == "clef2018" else dict(on_missing_topic="skip")
    notes = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        col = Collection.from_trec(files, qrels, depth=depth, cache=cache, **opts)
    notes += [str(w.message) for w in caught]
    q = indicator_qrels(read_qrels(qrels))  # every judged document at grade 1: rel_at(k) is the judged indicator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the same notes as above
        judged = Collection.from_trec(files, q, depth=depth, cache=cache, on_no_relevant="keep", **opts)
    judged = judged.subset(topics=list(col.topics))
    if judged.systems != col.systems:
        raise AssertionError(f"{name}: the judged indicator names the systems differently")
    dropped = repeats[repeats["repeats_dropped"] > 0]
    if len(dropped):
        notes.append(f"{len(dropped)} run files repeat a (topic, document, score) line, which trec_eval refuses; "
                     f"{int(dropped['repeats_dropped'].sum()):,} repeated lines dropped (the first of each kept)")
    track, what = DATASETS[name]
    return GradedData(name, track, what, col, judged, repeats, tuple(notes))


def judged_at(data: GradedData, ks) -> pd.DataFrame:
    """judged@k for each cut-off k of ``ks``: the fraction of the top min(k, L) documents that is judged, over
    all (system, topic) runs (ir_measures' Judged@k, :mod:`irscales.data._judged`: ranks a short run does not
    have do not count), its smallest system mean, the number of systems below
    :data:`UNRELIABLE_JUDGED` and whether the cut-off is reliable (no system below it)."""
    rows = []
    for k in ks:
        frac = judged_fraction(data.judged, k)  # (S, T): irscales.data._judged, the definition evaluate() reports
        per_system = frac.mean(axis=1)
        rows.append({"dataset": data.name, "k": int(k), "judged@k": float(frac.mean()),
                     "lowest system": float(per_system.min()),
                     "systems below": int((per_system < UNRELIABLE_JUDGED).sum()),
                     "systems": len(per_system),
                     "reliable": bool((per_system >= UNRELIABLE_JUDGED).all())})
    return pd.DataFrame(rows)
