"""Interval-scaled measures inside ir_measures and PyTerrier (issue 41): :func:`interval_measure`.

::

    import ir_measures, irscales
    AP10i = irscales.interval_measure("AP@10")            # AP@10[interval]
    ir_measures.calc_aggregate([ir_measures.AP@10, AP10i], qrels, run)
    pt.Experiment([bm25, dph], topics, qrels, eval_metrics=["map", AP10i], baseline=0, correction="holm")

The object is an ``ir_measures.Measure``: it goes wherever a measure goes (``calc_aggregate``, ``iter_calc``,
``evaluator``, PyTerrier's ``eval_metrics``). ir_measures hands it to its ``runtime`` provider (the one
``ir_measures.define`` uses: a measure with a ``runtime_impl``), so nothing of ir_measures is patched;
:class:`IrscalesProvider` is the same computation as a provider of its own (``ir_measures.providers.registry
['irscales']``), for use as ``IrscalesProvider().calc_aggregate(measures, qrels, run)``.

The values are :func:`irscales.evaluate`'s with ``ranked=True``, computed by it: the run and the qrels go
through the same reader, φ is irscales' exact φ, and a measure without an interval version at the depth is
refused with evaluate's words (at construction when the measure is binary). The run length N is evaluate's
rule: the name's cut-off (``AP@10`` → 10) whatever ``depth`` says, else ``depth``, else 10. Every topic of the
qrels counts, as in ir_measures and trec_eval -c (``on_no_relevant="keep"``, ``on_uneven_topics="pad"``): a topic
the run lacks is an empty run. The measures of one call are computed together (one :func:`irscales.evaluate`
per tie rule and reading options), so a judged@N warning comes once per run and N, naming the run where its
frame carries a name (a ``run``, ``system`` or ``name`` column).

The provider is registered (``ir_measures.providers.registry["irscales"]``) as soon as both ``irscales`` and
``ir_measures`` are imported, in either order (:mod:`irscales` registers it when ir_measures finishes loading);
this module loads the evaluation layer only when a value is computed, so registering costs little.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import ir_measures
from ir_measures.measures.base import Measure as IrMeasure, ParamInfo
from ir_measures.providers import Evaluator, Provider, register
from ir_measures.util import Metric, QrelsConverter, RunConverter

from irscales import measures as M
from irscales.data._ids import id_representatives
from irscales._ecosystem_outputs import interval_name
from irscales.options import DEFAULT_TIES, TIES, ArgumentError, Settings, check_flag, default_depth

if TYPE_CHECKING:  # pandas loads with the first value computed: registering the provider costs little
    import pandas as pd

__all__ = ["IntervalMeasure", "IrscalesProvider", "interval_measure"]

#: How topics are counted inside ir_measures: every topic of the qrels, as ir_measures and trec_eval -c do.
TOPIC_RULES = {"on_no_relevant": "keep", "on_uneven_topics": "pad"}


class IntervalMeasure(IrMeasure):
    """The interval-scaled version of an irscales measure as an ``ir_measures.Measure``
    (:func:`interval_measure` makes them); named ``<measure>[interval,…]``."""

    NAME = "interval"
    AT_PARAM = "depth"  # interval_measure("AP") @ 20: the run length N, as a cut-off names it
    SUPPORTED_PARAMS = {
        "measure": ParamInfo(dtype=str, required=True, desc="the irscales measure (AP@10, nDCG@10, RBP_p08)"),
        "depth": ParamInfo(dtype=int, required=True, desc="the run length N of the scale"),
        "ties": ParamInfo(dtype=str, choices=TIES, default=DEFAULT_TIES, desc="FFF21's tie strategy for φ"),
        "raw": ParamInfo(dtype=bool, default=False, desc="raw φ rather than (φ − 1)/(K − 1) in [0, 1]"),
        "grades": ParamInfo(dtype=int, default=None, desc="the grades 0..grades-1 the qrels must hold"),
        "build": ParamInfo(dtype=bool, default=False, desc="consent to a scale build over the budget"),
        "reading": ParamInfo(dtype=tuple, default=(), desc="reading options as (name, value) pairs"),
    }

    def __repr__(self) -> str:
        p = self.params
        extra = [f"N={p['depth']}"] if p["depth"] != _name_depth(p["measure"]) else []
        extra += [f"grades={p['grades']}"] if p.get("grades") is not None else []
        extra += [f"{k}={v}" for k, v in p.get("reading", ())]
        return interval_name(p["measure"], ties=p.get("ties", DEFAULT_TIES), raw=p.get("raw", False), extra=tuple(extra))

    def runtime_impl(self, qrels: pd.DataFrame, run: pd.DataFrame) -> Iterator[Metric]:
        """ir_measures' runtime provider calls this with the qrels and one run as frames."""
        yield from interval_metrics([self], qrels, run)


def _name_depth(name: str) -> int:
    """The run length a measure's name implies: its cut-off (``AP@10`` → 10), else the ranked default."""
    m = M.parse(name)
    return int(m.k) if isinstance(m, M.Cut) else default_depth(ranked=True)


def interval_measure(name: str | IrMeasure, *, depth: int | None = None, ties: str = DEFAULT_TIES, raw: bool = False,
                     grades: int | None = None, build: bool = False, **reading: str) -> IntervalMeasure:
    """The interval-scaled version of the measure ``name`` as an ir_measures measure (module docstring).

    name     an irscales measure name (``AP@10``, ``nDCG@10``, ``RBP_p08@10``) or an ir_measures measure
             whose name irscales reads (``ir_measures.AP@10``)
    depth    the run length N (default: the name's cut-off, else :data:`irscales.options.RANKED_DEFAULT_DEPTH`)
    ties     FFF21's tie strategy for φ: ``unq``, ``min``, ``max``, ``mid``
    raw      the value is φ (an integer; halves with ``mid``), not (φ − 1)/(K − 1) in [0, 1]
    grades   for a graded measure, the number of grades its scale is over: qrels with another largest grade are
             refused (values over different grade scales are not comparable)
    build    consent to a scale build over the budget (as :func:`irscales.evaluate`)
    reading  :func:`irscales.evaluate`'s reading options, except the topic rules fixed by :data:`TOPIC_RULES`
    """
    from irscales.evaluation import measure_specs  # the evaluation layer loads with the first measure made
    from irscales.interval import plan

    label = str(name).strip()
    specs = measure_specs([label])  # the one-line error for a name irscales does not read
    fixed = sorted(set(reading) & set(TOPIC_RULES))
    if fixed:
        raise ArgumentError(fixed[0], f"is fixed inside ir_measures ({fixed[0]}={TOPIC_RULES[fixed[0]]!r}: every "
                            "qrels topic counts, as in ir_measures); use irscales.evaluate to change it")
    try:  # every argument as evaluate checks it (a bad value would end up in the measure's name)
        settings = Settings(depth=depth, ranked=True, ties=ties, build=build, grades=grades, reading=reading)
    except TypeError as e:
        raise ValueError(str(e)) from None
    raw = check_flag("raw", raw)
    m = specs[0][1]
    n = settings.run_length(getattr(m, "k", None))
    if grades is not None and not m.reads_grades:
        raise ArgumentError("grades", f"applies to graded measures; {label} reads no grades: leave out grades")
    # binary measures are planned now, as evaluate plans them before reading: a refusal comes at once
    plan(specs if getattr(m, "k", None) is not None else [(f"{label}@{n}", m)], n, settings, grades=None,
         require=True, bounded=True)
    given = {"ties": ties, "raw": raw, "grades": grades, "build": settings.build,
             "reading": tuple(sorted(reading.items()))}
    # only what differs from the defaults: ir_measures compares measures by their repr
    m = IntervalMeasure(measure=label, depth=n,
                        **{k: v for k, v in given.items() if v != IntervalMeasure.SUPPORTED_PARAMS[k].default})
    m.validate_params()
    return m


#: The warnings already given for the (qrels, run) of the current call: ir_measures' runtime provider hands every
#: measure the same two frames, one measure at a time, so a warning is given once per call, not once per measure.
_GIVEN: dict[str, Any] = {"call": None, "said": set()}


def _run_name(run: Any) -> str:
    """The run's name where its frame carries one (a ``run``, ``system`` or ``name`` column of one value)."""
    import pandas as pd

    if isinstance(run, pd.DataFrame):
        for col in ("run", "system", "name"):
            if col in run.columns and run[col].nunique() == 1:
                return str(run[col].iloc[0])
    return "the run given to ir_measures"


def interval_metrics(measures: Iterable[IntervalMeasure], qrels: Any, run: Any) -> Iterator[Metric]:
    """Per-topic ``Metric(query_id, measure, value)`` of one run for interval measures: one
    :func:`irscales.evaluate` call per tie strategy, reading options and depth of the measures named without a
    cut-off (those named with one join the first); its warnings once per call (:data:`_GIVEN`)."""
    from irscales.evaluation import evaluate

    groups: dict[tuple, dict[int | None, list[IntervalMeasure]]] = {}
    for m in measures:
        p = m.params
        key = (p.get("ties", DEFAULT_TIES), p.get("build", False), p.get("reading", ()))
        own = getattr(M.parse(p["measure"]), "k", None) is not None
        groups.setdefault(key, {}).setdefault(None if own else p["depth"], []).append(m)
    name = _run_name(run)
    call = (id(qrels), id(run))
    if _GIVEN["call"] != call:
        _GIVEN.update(call=call, said=set())
    q = QrelsConverter(qrels, strict=False).as_pd_dataframe()
    r = RunConverter(run, strict=False).as_pd_dataframe()[["query_id", "doc_id", "score"]]
    for (ties, build, reading), by_depth in groups.items():
        cut = by_depth.pop(None, [])
        for depth, ms in (list(by_depth.items()) or [(None, [])]):
            ms = ms + cut if cut else ms
            cut = []
            labels = list(dict.fromkeys(m.params["measure"] for m in ms))
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always")
                ev = evaluate(q, {name: r}, labels, depth=depth, ranked=True, ties=ties, build=build,
                              **{**dict(reading), **TOPIC_RULES})
            for w in said:
                if str(w.message) not in _GIVEN["said"]:
                    _GIVEN["said"].add(str(w.message))
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            names = _qrels_topics(q)  # each topic as the qrels name it: ir_measures fills in those not yielded, by ==
            for m in ms:
                _check_grades(m, ev.collection.max_grade)
                col = ev.interval(m.params["measure"], raw=m.params.get("raw", False))[name]
                for topic, v in col.items():
                    yield Metric(names.get(topic, topic), m, float(v))


def _qrels_topics(qrels: pd.DataFrame) -> dict[str, Any]:
    """``{topic: query id as the qrels give it}`` (:func:`irscales.data._ids.id_representatives`): irscales reads
    101, np.int64(101) and '101' as one topic, and ir_measures expects the qrels' own value back."""
    return id_representatives(qrels["query_id"].unique(), "qrels query_id")


def _check_grades(m: IntervalMeasure, max_grade: int) -> None:
    g = m.params.get("grades")
    if g is not None and M.parse(m.params["measure"]).reads_grades and max(1, int(max_grade)) + 1 != g:
        raise ValueError(f"{m!r} is over {g} grades (0..{g - 1}) but the qrels hold grades 0..{int(max_grade)}")


class IrscalesProvider(Provider):
    """An ir_measures provider of :class:`IntervalMeasure` (the same values as the measures' runtime route)."""

    NAME = "irscales"
    def supports(self, measure: IrMeasure) -> bool:
        return isinstance(measure, IntervalMeasure)

    def _evaluator(self, measures: Iterable[IrMeasure], qrels: Any) -> Evaluator:
        measures = list(measures)
        frame = QrelsConverter(qrels, strict=False).as_pd_dataframe()
        return _IrscalesEvaluator(measures, frame)


class _IrscalesEvaluator(Evaluator):
    def __init__(self, measures: list[IntervalMeasure], qrels: pd.DataFrame):
        super().__init__(measures, set(_qrels_topics(qrels).values()))
        self.qrels = qrels

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        return interval_metrics(self.measures, self.qrels, run)


if IrscalesProvider.NAME not in ir_measures.providers.registry:
    register(IrscalesProvider())
