"""An :class:`~irscales.evaluation.Evaluation`'s per-topic values in the shapes ir_measures, PyTerrier and ranx
users continue with (issue 41), and the one name of an interval-scaled measure outside irscales.

* ir_measures: ``Metric(query_id, measure, value)`` tuples, as ``ir_measures.iter_calc`` yields them, or their
  frame (with a ``run`` column, as PyTerrier's per-query results carry ``name``);
* ranx: ``{run: {measure: {query_id: value}}}`` — the per-query scores ranx keeps per run and metric
  (``Run.scores``), as plain dicts: ranx has no object for measure values computed elsewhere.

A measure is named by its label (``AP@10``); its interval-scaled values by :func:`interval_name`
(``AP@10[interval]``), the name :func:`irscales.interval_measure` gives the same values in ir_measures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from irscales.options import DEFAULT_TIES

if TYPE_CHECKING:  # pandas loads with the first frame: interval_name names the ir_measures provider's measures,
    import pandas as pd  # which registers when ir_measures is imported (issue 48), and must cost little

__all__ = ["interval_name", "metrics_frame", "ir_measures_metrics", "ranx_scores"]


def interval_name(label: str, *, ties: str = DEFAULT_TIES, raw: bool = False, extra: tuple[str, ...] = ()) -> str:
    """``AP@10[interval]``: a measure's interval-scaled values, with what differs from the default
    (``ties=mid``; ``phi``: raw φ rather than (φ − 1)/(K − 1); ``extra``: further options, as ``k=v``)."""
    opts = [*(["phi"] if raw else []), *([f"ties={ties}"] if ties != DEFAULT_TIES else []), *extra]
    return f"{label}[{','.join(['interval', *opts])}]"


def metrics_frame(ev: Any, system: str | None = None) -> pd.DataFrame:
    """Per-topic values as a frame ``run, query_id, measure, value``: every measure by its label and, where
    interval-scaled values exist, again as :func:`interval_name` (in [0, 1]); one run or all."""
    import pandas as pd

    f = ev.frame if system is None else ev.frame[ev.frame["system"] == _system(ev, system)]
    parts = [pd.DataFrame({"run": f["system"], "query_id": f["topic"], "measure": f["measure"],
                           "value": f["value"].astype(float)})]
    if "interval" in f:
        iv = f[f["measure"].isin([lab for lab, p in ev.scales.items() if p is not None])]
        parts.append(pd.DataFrame({"run": iv["system"], "query_id": iv["topic"],
                                   "measure": [interval_name(m, ties=ev.ties) for m in iv["measure"]],
                                   "value": iv["interval"].astype(float)}))
    return pd.concat(parts, ignore_index=True)


def _system(ev: Any, system: str | None) -> str:
    if system is None:
        if len(ev.systems) != 1:
            raise ValueError(f"name the run: this evaluation holds {len(ev.systems)} ({', '.join(ev.systems)})")
        return ev.systems[0]
    if system not in ev.systems:
        raise ValueError(f"no run {system!r} in this evaluation; runs: {', '.join(ev.systems)}")
    return system


def ir_measures_metrics(ev: Any, system: str | None = None) -> list:
    """One run's per-topic values as ``ir_measures.Metric(query_id, measure, value)`` tuples (``measure`` a
    name, see :func:`metrics_frame`); ``system`` may be left out when the evaluation holds one run."""
    try:
        from ir_measures import Metric
    except ImportError as e:
        raise ImportError("to_ir_measures needs ir_measures (pip install 'irscales[ecosystem]')") from e
    f = metrics_frame(ev, _system(ev, system))
    return [Metric(str(q), m, float(v)) for q, m, v in zip(f["query_id"], f["measure"], f["value"])]


def ranx_scores(ev: Any) -> dict[str, dict[str, dict[str, float]]]:
    """``{run: {measure: {query_id: value}}}``, the measures named as in :func:`metrics_frame`."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for (run, measure), g in metrics_frame(ev).groupby(["run", "measure"], sort=False):
        out.setdefault(str(run), {})[str(measure)] = dict(zip(map(str, g["query_id"]), map(float, g["value"])))
    return out
