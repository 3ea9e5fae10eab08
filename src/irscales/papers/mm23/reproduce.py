"""MM23 published-vs-reproduced: every item of ``data/published/mm23.csv`` beside the value we
recompute, with the route that produced it (:data:`irscales.papers.published.ROUTES`):

* ``exhaustive`` — Part A from the exact counts (:func:`~irscales.papers.mm23.reproduce_part_a`);
* ``printed`` — §3 items that follow from numbers the paper prints
  (:func:`~irscales.papers.mm23.reproduce_from_printed`);
* ``real`` — Part B on the Robust 2004 runs (:func:`~irscales.papers.mm23.reproduce_part_b`); on
  other runs the items that need them are moved to the notes (:func:`~irscales.papers.mm23.split_simulated`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import pandas as pd

from irscales.data.collection import Collection
from irscales.ipso import CategoryCounts, PairRelations
from irscales.papers import published
from irscales.papers.mm23.part_a import reproduce_part_a
from irscales.papers.mm23.part_b import reproduce_part_b, split_simulated
from irscales.papers.mm23.printed import reproduce_from_printed

__all__ = ["Reproduction", "reproduce", "compare_published", "summary_line"]


class Reproduction(NamedTuple):
    """Reproduced items of MM23 with their notes and routes (keys: items of ``mm23.csv``)."""

    items: dict[str, object]
    notes: dict[str, str]
    routes: dict[str, str]


def reproduce(col: Collection, rels: PairRelations | None = None, fig7_frame: pd.DataFrame | None = None,
              counts: CategoryCounts | None = None, paper_runs: bool = False,
              notes: Mapping[str, str] | None = None) -> Reproduction:
    """Every item of ``data/published/mm23.csv`` that can be recomputed: Part A (from ``counts``,
    which must reach depth 100; default: counted here), the printed items, and Part B on ``col``
    (``paper_runs``: ``col`` holds the Robust 2004 runs; otherwise its trec items become notes).
    ``notes`` (e.g. :func:`~irscales.papers.mm23.table2_notes`) are added to the notes."""
    pub = published.load("mm23")
    repro_a = reproduce_part_a(counts)
    repro_printed, printed_notes = reproduce_from_printed(pub)
    repro_b = reproduce_part_b(col, rels, fig7_frame)
    keep_b, notes_b = split_simulated(col, repro_b, pub, paper_runs=paper_runs)
    routes = {**dict.fromkeys(repro_a, "exhaustive"), **dict.fromkeys(repro_printed, "printed"),
              **dict.fromkeys(keep_b, "real")}
    return Reproduction({**repro_a, **repro_printed, **keep_b}, {**notes_b, **(notes or {}), **printed_notes},
                        routes)


def compare_published(rep: Reproduction) -> published.Comparison:
    """:func:`irscales.papers.published.compare` of a :class:`Reproduction` with ``mm23.csv``."""
    return published.compare("mm23", rep.items, notes=rep.notes, route=rep.routes)


def summary_line(cmp: published.Comparison) -> str:
    """One line: how many published items match, by route, and how many were not reproduced."""
    f = cmp.frame
    return (f"{cmp.n_match} of {len(f)} published items match; by route: "
            + ", ".join(f"{r} {int((f['route'] == r).sum())}" for r in published.ROUTES)
            + f"; {(f['status'] == 'not reproduced').sum()} not reproduced (they need the Robust 2004 runs)")
