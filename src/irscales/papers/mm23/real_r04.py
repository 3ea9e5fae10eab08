"""MM23 Part B on the public Robust 2004 data (issue 29): the 10 real runs of
``$IRSCALES_TREC/R04-partial/runs`` judged by the official qrels of all 249 topics
(``qrels.robust2004.txt.gz``), cut at 100 documents, binary (grade ≥ 1 relevant), unjudged not
relevant — MM23 §3 "Experimental Setup" on 10 of its 110 runs.

Everything here is a *real-data analogue* of Table 3 and Figs 5–8: real runs and real judgments,
but not MM23's run set, so it is never counted as a reproduction (:data:`ANALOGUE_LABEL`). The one
check that could turn into a reproduction is :func:`fig6_pair_search`: MM23 Fig. 6 names no systems
but prints its five group sizes over the 249 topics at k = 10; if an ordered pair of our runs had
exactly those sizes it would be the paper's pair, and Figs 5–6 would be reproduced on real data.
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import pandas as pd

from irscales import paths
from irscales.data import Collection
from irscales._formatting import as_text
from irscales.papers.mm23.conventions import GROUPS
from irscales.papers.mm23.pair_topics import pair_topics

__all__ = ["ANALOGUE_LABEL", "FIG6_ITEMS", "r04_folder", "load_r04_249", "printed_fig6_sizes", "fig6_pair_search",
           "analogue_table"]

ANALOGUE_LABEL = "real-data analogue: 10 public Robust 2004 runs over 249 topics, not the paper's 110 runs"
#: The items of ``data/published/mm23.csv`` holding Fig. 6's five group sizes, in the figure's order.
FIG6_ITEMS = ("fig6/group1_nonsep_via_ns", "fig6/group2_ns", "fig6/group3_equal", "fig6/group4_ni",
              "fig6/group5_nonsep_via_ni")


def r04_folder() -> Path | None:
    """``R04-partial`` under :func:`irscales.paths.trec_dir`, or None when absent."""
    root = paths.trec_dir()
    d = root / "R04-partial" if root is not None else None
    return d if d is not None and (d / "runs").is_dir() and (d / "qrels.robust2004.txt.gz").exists() else None


def load_r04_249(folder: str | Path | None = None, depth: int = 100) -> Collection:
    """The 10 public Robust 2004 runs on the 249 judged topics (topic 672, with no relevant
    document, is in the runs but not in the qrels and is dropped), cut at ``depth``."""
    d = Path(folder) if folder is not None else r04_folder()
    if d is None:
        raise paths.MissingSharedData("R04-partial (10 Robust 2004 runs + qrels.robust2004.txt.gz) was not found under "
                                      "IRSCALES_TREC / IRSCALES_SHARED/trec")
    with warnings.catch_warnings():  # the one expected skip (672) is documented above, not warned about
        warnings.filterwarnings("ignore", message=r"1 run topic\(s\) have no judgments in the qrels \(672\)")
        return Collection.from_trec(d / "runs", d / "qrels.robust2004.txt.gz", depth=depth, on_missing_topic="skip")


def printed_fig6_sizes(published: pd.DataFrame) -> tuple[int, ...]:
    """MM23 Fig. 6's five group sizes as printed (``data/published/mm23.csv``), in :data:`GROUPS` order."""
    val = dict(zip(published["item"], published["value"]))
    missing = [i for i in FIG6_ITEMS if i not in val]
    if missing:
        raise KeyError(f"published data lack {missing}: not MM23's CSV?")
    return tuple(int(val[i]) for i in FIG6_ITEMS)


def fig6_pair_search(col: Collection, sizes: tuple[int, ...], depth: int = 10) -> pd.DataFrame:
    """Every ordered pair (A, B) of ``col``'s systems with its Fig. 6 group sizes at ``depth`` over all
    topics (:func:`irscales.papers.mm23.pair_topics`), the L1 distance to the printed ``sizes`` and
    whether they are equal; closest first. Both orders are listed: swapping A and B swaps the ``ns``
    and ``ni`` groups."""
    rows = []
    for a, b in itertools.permutations(range(len(col.systems)), 2):
        groups = pair_topics(col, a, b, depth)["group"].value_counts().reindex(GROUPS, fill_value=0)
        got = tuple(int(v) for v in groups)
        rows.append({"system A": col.systems[a], "system B": col.systems[b],
                     **{g: n for g, n in zip(GROUPS, got)},
                     "L1 distance": int(sum(abs(x - y) for x, y in zip(got, sizes))), "match": got == tuple(sizes)})
    return pd.DataFrame(rows).sort_values(["L1 distance", "system A", "system B"], kind="stable").reset_index(drop=True)


def analogue_table(published: pd.DataFrame, values: dict[str, object]) -> pd.DataFrame:
    """The items of ``published`` that ``values`` (e.g. :func:`irscales.papers.mm23.reproduce_part_b`
    on these runs) computes, beside the printed value, all labelled :data:`ANALOGUE_LABEL`: a table
    for a report section, not a comparison file (nothing here is a reproduction)."""
    pub = published.set_index("item")
    rows = []
    for item, v in values.items():
        if item in pub.index:
            rows.append({"item": item, "location": pub.loc[item, "location"], "published": pub.loc[item, "value"],
                         "real-data analogue": as_text(v), "label": ANALOGUE_LABEL})
    return pd.DataFrame(rows)
