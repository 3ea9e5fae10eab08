"""Inputs: TREC run and qrels files, the :class:`~irscales.data.collection.Collection` of runs,
simulated collections, the public collections (Cranfield, CISI, CACM) and their Grid of Points.

Modules: :mod:`~irscales.data.trec` (TREC files → relevance arrays; its parser, fast path, order,
cache and arrays in ``trec_parse``, ``trec_fast``, ``trec_order``, ``trec_cache``, ``trec_arrays``),
:mod:`~irscales.data.collection` (:class:`Collection`), :mod:`~irscales.data.presets`
(:func:`load_preset`), :mod:`~irscales.data.simulate`, :mod:`~irscales.data.smart`,
:mod:`~irscales.data.datasets`, :mod:`~irscales.data.gop_index` and :mod:`~irscales.data.gop`
(the public Grid of Points), :mod:`~irscales.data.matters` (MATTERS ``.mat`` files: the Fer17 authors'
published Grid of Points as labelled score matrices), :mod:`~irscales.data.run_scores` (per-topic
score tables of submitted runs), :mod:`~irscales.data.run_names` (systems by run tag, or by file when files
share a tag) and :mod:`~irscales.data.run_repeats` (copies of run files without repeated lines).
"""

from irscales.data.collection import Collection, data_label
from irscales.data.presets import GOP_PRESETS, PRESET_NAMES, SIM_PRESETS, load_preset
from irscales.data.trec import (MAX_GRADE, SCORE_PRECISIONS, RelevanceData, TrecFormatError, find_runs,
                                grade_dtype, lenient_binary, parsed_runs_cache, qrels_from_ir_datasets,
                                read_qrels, read_run, read_trec, recall_bases, relevance_arrays, write_qrels,
                                write_run)

__all__ = [
    "Collection", "data_label", "load_preset", "PRESET_NAMES", "SIM_PRESETS", "GOP_PRESETS",
    "TrecFormatError", "RelevanceData", "read_run", "read_qrels", "read_trec", "find_runs", "relevance_arrays",
    "write_run", "write_qrels", "lenient_binary", "recall_bases", "qrels_from_ir_datasets", "MAX_GRADE",
    "SCORE_PRECISIONS", "grade_dtype", "parsed_runs_cache",
]
