"""Inputs: TREC run and qrels files, the :class:`~irscales.data.collection.Collection` of runs,
simulated collections, the public collections (Cranfield, CISI, CACM) and their Grid of Points."""
