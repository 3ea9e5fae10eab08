"""Fer17's measures (§3.3) on a :class:`~irscales.data.collection.Collection`, by canonical key
(:attr:`irscales.measures.Measure.key`, with ``@k`` for a cut-off), and the paper's labels for them.

===================  ===========  ==============================================================
key                  Fer17 label  reading
===================  ===========  ==============================================================
``AP``               AP           average precision, lenient binary mapping (grade > 0 is
                                  relevant), recall base = RB
``P@10``             P@10         precision at 10
``Rprec``            R-prec       precision at rank RB
``RBP_p08``          RBP          rank-biased precision, p = 0.8, binary
``gnDCG_b10``        nDCG         graded gains 0/5/10 (binary tracks: 0/5), log10 discount, over
                                  the whole run: the DCG stops growing after the last relevant
                                  retrieved document, which is what "calculated up to the last
                                  relevant retrieved document" says; the ideal run is the topic's
                                  judged documents in decreasing grade, cut at the run depth. The
                                  discount is Järvelin and Kekäläinen's (w_i = 1 for i < 10,
                                  1/log10 i after), as MATTERS, the paper's toolkit, uses. Gains
                                  0/5/10 are 5 × the grade; nDCG is invariant to scaling all
                                  gains, so grades are used.
``gnDCG_b10@20``     nDCG@20      the same at cut-off 20 (ideal run cut at 20)
``ERR``              ERR          Chapelle et al.'s ERR with R_i = (2^{g_i} − 1)/2^{g_max}. "The
                                  same gains as nDCG" is read as the same relevance *grades*
                                  (0/1/2, i.e. gains 0/5/10 mapped linearly onto grades); putting
                                  5 and 10 in the exponent would make a relevant document stop
                                  only 3% of users. g_max is the highest grade of the topic's
                                  *track* (1 for the binary tracks T07/T08, 2 for the graded
                                  ones), since the paper evaluates each GoP on its own.
``Twist``            Twist        Ferro et al. (JASIST 2016, Fer17 ref. [32]) as MATTERS computes
                                  it: :class:`irscales.measures.Twist` (runs and ideal run padded
                                  to the run depth, grades as classes)
===================  ===========  ==============================================================

These are MATTERS' conventions, checked against the authors' own published Grid of Points
(``gridofpoints/trec-jasist2017``, read by :mod:`irscales.data.matters`): its ``ndcg`` file is
nDCG over the whole run with the ideal run cut at 1000 and w_i = 1/log10(i) from rank 10 on (a run
whose only relevant document is at rank 1 scores 1/IDCG of its topic there, not 1), its ``err`` has
R = 1/2 for a relevant document of a binary track (maximum ln 2) and R = 3/4 for grade 2 of a graded
one (maximum 3 ln(4/3)); and wherever a cell of the T07 or T08 file determines its run (a single
relevant document at rank r ≤ 20: AP·RB = 1/r, ERR = 1/(2r), RBP = 0.2·0.8^(r−1)), all eight
measures here, Twist included, equal the file's values (``tests/test_fer17_real_gop.py``).

:data:`MEASURES` are the measures of the simulated RQ designs (notebook 03): Twist was added to the
library later (issue 29) and is in :data:`TABLE1_MEASURES`, the eight of Table 1, which the
real-data route (:mod:`irscales.papers.fer17.real_gop`) uses; with :data:`MEASURES` the measure-pair
factor has 21 pairs (DF 20) instead of the paper's 28 (DF 27).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from irscales.data.collection import Collection
from irscales.measures import AP, ERR, NDCG, P, RBP, Measure, RPrec, Twist

__all__ = ["MEASURES", "TABLE1_MEASURES", "LABELS", "MEASURE_NAMES", "TABLE1_NAMES", "label", "labelled",
           "fer17_measures", "score_matrices", "system_performance"]

#: The measures of the simulated RQ designs, by canonical key, in the paper's order (Twist left out:
#: see the module docstring).
MEASURES = ("AP", "P@10", "Rprec", "RBP_p08", "gnDCG_b10", "gnDCG_b10@20", "ERR")
#: The eight measures of Fer17 §3.3 and Table 1, in the paper's order.
TABLE1_MEASURES = MEASURES + ("Twist",)
#: Display only: the paper's label of each measure key (keys not listed are shown as they are).
LABELS: Mapping[str, str] = {"Rprec": "R-prec", "RBP_p08": "RBP", "gnDCG_b10": "nDCG", "gnDCG_b10@20": "nDCG@20"}
#: The paper's labels of :data:`MEASURES`, in the same order (what tables and figures show).
MEASURE_NAMES = tuple(LABELS.get(k, k) for k in MEASURES)
#: The paper's labels of :data:`TABLE1_MEASURES` (Table 1's columns).
TABLE1_NAMES = tuple(LABELS.get(k, k) for k in TABLE1_MEASURES)


def label(key: str) -> str:
    """The paper's label of a measure key (``"RBP_p08"`` → ``"RBP"``); other names unchanged."""
    return LABELS.get(key, key)


def labelled(scores: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A score dictionary ``key -> matrix`` relabelled for display: ``label(key) -> matrix``."""
    return {label(k): v for k, v in scores.items()}


def fer17_measures(max_grade: int = 2) -> dict[str, tuple[Measure, int | None]]:
    """The measures of Fer17 §3.3 as ``key -> (measure, cut-off or None for the full run)``.

    ``max_grade`` is g_max of ERR (the highest grade of the track being evaluated).
    """
    if max_grade < 1:
        raise ValueError(f"max_grade must be >= 1, got {max_grade}")
    ndcg = NDCG(base=10, discount="jk", gains="graded")
    return {"AP": (AP(), None), "P@10": (P(k=10), None), "Rprec": (RPrec(), None), "RBP_p08": (RBP(0.8), None),
            "gnDCG_b10": (ndcg, None), "gnDCG_b10@20": (ndcg, 20), "ERR": (ERR(max_grade=max_grade), None),
            "Twist": (Twist(), None)}


def score_matrices(collection: Collection, names: Sequence[str] = MEASURES,
                   group_by: str | None = "track") -> dict[str, np.ndarray]:
    """Score matrices ``M_k`` of Fer17 §1/§4.1: ``key -> (T topics, S systems)`` float array
    (measure keys of :data:`TABLE1_MEASURES`; :func:`labelled` gives the paper's labels).

    Topics are evaluated group by group (``group_by``, a topic label such as ``"track"``; ``None``
    or a collection without that label: all topics at once) so that ERR's g_max is the group's own
    highest judged grade, and memory stays bounded by one group.
    """
    unknown = [n for n in names if n not in TABLE1_MEASURES]
    if unknown:
        raise KeyError(f"unknown Fer17 measure(s) {unknown}; choose from {', '.join(TABLE1_MEASURES)}")
    if collection.depth < 20:
        raise ValueError(f"the collection's depth is {collection.depth}; nDCG@20 and P@10 need at least 20")
    T, S = len(collection.topics), len(collection.systems)
    out = {n: np.empty((T, S)) for n in names}
    if group_by is not None and group_by in collection.topic_labels:
        lab = np.array(collection.topic_labels[group_by], dtype=object)
        groups = [np.flatnonzero(lab == g) for g in dict.fromkeys(lab)]
    else:
        groups = [np.arange(T)]
    for idx in groups:
        sub = collection.subset(topics=idx) if len(idx) < T else collection
        judged = np.flatnonzero(sub.judgments.sum(0) > 0)
        gmax = max(1, int(judged.max()) if judged.size else 1)
        ms = fer17_measures(gmax)
        for n in names:
            m, cut = ms[n]
            out[n][idx] = sub.evaluate(m, depth=cut)
    return out


def system_performance(collection: Collection, names: Sequence[str] = MEASURES) -> dict[str, np.ndarray]:
    """The performance distribution of a set of systems (Fer17 §3.4, Fig. 1, Table 1): each system's
    mean score over the topics, ``key -> (S,)``; its KDE (eq. 6) is compared with the GoP systems'
    by KL divergence (eq. 7). On the real TREC-8 runs (``irscales.paths.trec_track("T08")``, read
    at full depth) this is the "original systems" side of Fig. 1 and Table 1; the GoP side needs the
    TIPSTER corpus."""
    return {n: m.mean(axis=0) for n, m in score_matrices(collection, names).items()}

