"""Inputs: TREC run and qrels files, the :class:`~irscales.data.collection.Collection` of runs,
simulated collections, the public collections (Cranfield, CISI, CACM) and their Grid of Points.

Modules: :mod:`~irscales.data.trec` (TREC files → relevance arrays; its parser, fast path, order,
caches and arrays in ``trec_parse``, ``trec_fast``, ``trec_order``, ``trec_cache``, ``qrels_cache``,
``file_digests``, ``trec_arrays``),
:mod:`~irscales.data.collection` (:class:`Collection`; runs padded to a depth, within a memory limit, in
:mod:`~irscales._padding`; what runs and qrels given as files may be in :mod:`~irscales.data._sources`),
:mod:`~irscales.data.presets`
(:func:`load_preset`), :mod:`~irscales.data.simulate`, :mod:`~irscales.data.smart`,
:mod:`~irscales.data.datasets`, :mod:`~irscales.data._gop_index` and :mod:`~irscales.data.gop`
(the public Grid of Points), :mod:`~irscales.data.matters` (MATTERS ``.mat`` files: the Fer17 authors'
published Grid of Points as labelled score matrices), :mod:`~irscales.data._run_scores` (per-topic
score tables of submitted runs), :mod:`~irscales.data.run_names` (systems by run tag, or by file when files
share a tag) and :mod:`~irscales.data.run_repeats` (copies of run files without repeated lines).
"""

import importlib

# public name -> module that defines it, loaded on first use (PEP 562): reading TREC files (the command
# line) needs neither the presets nor scipy, which the presets import (issue 32: about 0.4 s and 60 MB)
_HOME = {
    **{n: "irscales.data.collection" for n in ("Collection", "data_label")},
    **{n: "irscales.data.presets" for n in ("load_preset", "PRESET_NAMES", "SIM_PRESETS", "GOP_PRESETS")},
    **{n: "irscales.data.trec" for n in (
        "TrecFormatError", "RelevanceData", "read_run", "read_qrels", "read_trec", "find_runs", "relevance_arrays",
        "write_run", "write_qrels", "lenient_binary", "recall_bases", "qrels_from_ir_datasets", "MAX_GRADE",
        "SCORE_PRECISIONS", "grade_dtype", "parsed_runs_cache")},
}

# what a user reads and writes; the rest of _HOME stays reachable here for the modules that use it
__all__ = ["Collection", "load_preset", "PRESET_NAMES", "read_run", "read_qrels", "read_trec", "write_run",
           "write_qrels", "TrecFormatError"]


def __getattr__(name: str):
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'irscales.data' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
