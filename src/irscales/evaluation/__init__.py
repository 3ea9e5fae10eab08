"""One call from runs and qrels to labelled scores, original and interval-scaled: :func:`evaluate` (issue 28).

::

    ev = evaluate("qrels.txt", "runs/", "AP,P@10,nDCG_b02", depth=10, ranked=True)
    ev.frame          # system, topic, measure, value, interval (and phi, K with phi=True)
    ev.means()        # systems × measures: the original and the interval-scaled means side by side
    ev.compare()      # the comparison table of the runs (irscales.comparison)

What it takes: TREC files (a folder of runs or a list of files, gz allowed, and a qrels file), pandas frames
with the ir_measures / ranx columns (``query_id, doc_id, score`` and ``query_id, doc_id, relevance``) or
pytrec_eval-style nested dicts (:mod:`irscales.data._frames`), ranx, ir_datasets and ir_measures objects
(:mod:`irscales.data._ecosystem_inputs`), read through the same path as files. The reading
options, their defaults and the notes are the command line's (``irscales scores``): the CLI is a client of this
function. A measure keeps the name it was given everywhere (``nDCG@10`` stays ``nDCG@10``).

**Run length.** ``depth`` is the run length N: runs are cut at N and shorter runs padded with non-relevant
documents (FFF21 §5.1). Default (one rule, API, CLI and ``Collection.from_trec``:
:func:`irscales.options.default_depth`): the longest run — every document, as trec_eval — for plain values,
and 10 when interval-scaled values are asked (their scales grow like 2^N; FFF21 and MM23 use N = 10 first).
``k`` is a measure's own cut-off (``P@10``), never the run length.

**Orientation.** Score matrices are (topics, systems) throughout the public API — :meth:`Evaluation.values`,
:meth:`Evaluation.interval`, ``Collection.evaluate``, the significance tests; tidy frames have one row per
(system, topic, measure).

**Interval-scaled values** (:mod:`irscales.interval`): (φ − 1)/(K − 1) in [0, 1] by default, exact; raw φ
and K with ``phi=True``. The position of the run among all runs of length N, one scale for every topic (FFF21
§5.2.2): AP is ranked by SP = AP × RB, nDCG by DCG, so the recall base and the ideal ranking do not enter and a
perfect run on a topic with fewer than N relevant documents is well below 1 (:meth:`Evaluation.scale_table`,
column ``scale_over``). Every measure asked gets its interval version, or nothing is returned: a measure
without one at this depth raises :class:`~irscales.interval.NoIntervalScaleError` (a ValueError) naming how
far its routes reach. :attr:`Evaluation.scales` says per measure which scale, which route, K, and what the
exactness rests on.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from irscales import measures as M
from irscales.certified import Bounds, ScoreBox, kendall_tau_range, mean_bounds, rank_range, tau_ap_range
from irscales.correlation import kendall_tau, system_means, tau_ap_symmetric
from irscales.data.collection import Collection
from irscales.data._ecosystem_inputs import ecosystem_qrels, ecosystem_runs
from irscales.data._frames import is_in_memory, qrels_frame, run_frames
from irscales.data._ids import check_spellings
from irscales.data._sources import qrels_source as _qrels_source, run_source as _run_source
from irscales.data._judged import judged_at, judged_warning
from irscales.data.trec import relevance_arrays
from irscales.evaluation._frame import tidy_frame
from irscales._ecosystem_outputs import ir_measures_metrics, metrics_frame, ranx_scores
from irscales._lazy_modules import pandas as pd  # imported on first use (issue 49)
# re-exported: READING_DEFAULTS, DEFAULT_MEASURES, RANKED_DEFAULT_DEPTH, default_depth (home: irscales.options)
from irscales.options import (COMPARISON_DEFAULTS, DEFAULT_JUDGED_THRESHOLD, DEFAULT_MAX_REL_ERROR, DEFAULT_MEASURES,
                              DEFAULT_TIES, EVERY_DOCUMENT, PERMUTATIONS, RANKED_DEFAULT_DEPTH, READING_DEFAULTS,
                              ArgumentError, Settings, check_reading, default_depth)

if TYPE_CHECKING:
    from irscales.comparison import ComparisonTable
    from irscales.interval import IntervalPlan, IntervalValues

__all__ = ["Evaluation", "evaluate", "measure_specs"]


def measure_specs(measures: str | M.Measure | Sequence[str | M.Measure]) -> list[tuple[str, M.Measure]]:
    """(label, measure) pairs. A name keeps the label it was given, without spaces (``map``, ``P_10``,
    ``nDCG@10``, ``RBP_p08``); a constructor form or a :class:`~irscales.measures.Measure` object is
    labelled by its key when the key parses back to it (``RBP(p=0.8)`` → ``RBP_p08``), else by its repr."""
    if isinstance(measures, (str, M.Measure)):
        items = M.split_top_level(measures) if isinstance(measures, str) else [measures]
    else:
        items = list(measures)
    specs = []
    for x in items:
        if isinstance(x, str):
            x = x.strip()
            if not x:
                continue
            m = M.parse(x)
            specs.append(("".join(x.split()) if "(" not in x else _label(m), m))
        elif isinstance(x, M.Measure):
            specs.append((_label(x), x))
        else:
            raise ValueError(f"a measure is a name or a Measure, got {type(x).__name__}: {x!r}")
    if not specs:
        raise ValueError("no measure given (e.g. measures='AP,nDCG_b02,RR')")
    labels = [lab for lab, _ in specs]
    dup = sorted({lab for lab in labels if labels.count(lab) > 1})
    if dup:
        raise ValueError(f"measure {dup[0]} is given more than once")
    return specs


def graded_err(specs: list[tuple[str, M.Measure]], given: Any, max_grade: int) -> list[tuple[str, M.Measure]]:
    """``specs`` with each ERR named without ``max_grade`` (``ERR``, ``ERR@10``) on the qrels' scale 0..max_grade
    (:func:`evaluate`); an ERR given as an object or with ``max_grade`` keeps its own."""
    if max_grade <= 1:
        return specs
    if isinstance(given, str):
        items = M.split_top_level(given)
    else:
        items = [] if isinstance(given, M.Measure) else list(given)
    bare = {"".join(x.split()) for x in items if isinstance(x, str) and "max_grade" not in x}
    return [(lab, m.with_top_grade(max_grade) if lab in bare else m) for lab, m in specs]


def _label(m: M.Measure) -> str:
    try:
        return m.key if M.parse(m.key) == m else repr(m)
    except ValueError:
        return repr(m)


def check_depth(specs: Sequence[tuple[str, M.Measure]], col: Collection, depth: int) -> None:
    """Refuse trec_eval's whole-run names (``map``, ``ndcg`` …) whose meaning the cut at ``depth`` would change
    (never a silent wrong number); a measure named with a cut-off is taken at it whatever the depth."""
    longest = int(col.run_lengths.max(initial=0))
    for name, m in specs:
        if name not in M.WHOLE_RUN:
            continue
        need, why = longest, f"the longest run has {longest} documents"
        top_rb = int(col.rb.max(initial=0))
        if m.depth_vs_rb == "rb_at_least" and top_rb > need:  # nDCG: its ideal run holds every relevant document
            need, why = top_rb, f"a topic has {top_rb} relevant documents"
        elif m.depth_vs_rb == "rb_at_most" and top_rb < need:  # R-prec: only the top RB ranks count
            need, why = top_rb, f"a topic has {top_rb} relevant documents"
        if depth < need:
            raise ValueError(f"{name} is computed over the whole run as trec_eval does, but runs are cut at "
                             f"depth {depth} ({why}); use depth {need}, or name a cut-off measure "
                             f"(e.g. {m.key}@{depth})")


def load_collection(qrels: Any, runs: Any, depth: int | None, *, progress: bool | None = None,
                    cache: bool = True, **reading) -> Collection:
    """Runs and qrels (files or in memory, see the module docstring) as a :class:`Collection` cut at
    ``depth`` (None: every document)."""
    check_reading(**reading)
    opts = {**READING_DEFAULTS, **reading}
    read_depth = EVERY_DOCUMENT if depth is None else int(depth)
    if not is_in_memory(qrels):
        qrels = _qrels_source(qrels)
    if is_in_memory(runs) or is_in_memory(qrels):
        q = qrels_frame(qrels, negative=opts["negative"])
        frames = run_frames(runs) if is_in_memory(runs) else None
        if frames is None:  # files with in-memory qrels
            return Collection.from_trec(_run_source(runs), q, depth=read_depth, cache=cache, progress=progress, **opts)
        check_spellings([q, *frames])  # integer ids against strings that spell them otherwise ('01' vs 1)
        names = [f.attrs["system"] for f in frames]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"two runs are named {dup[0]!r}; give each run its own name")
        # frames hold no lines to repeat (a document twice in a frame is an error naming its row)
        d = relevance_arrays(frames, q, read_depth, pad=False,
                             **{k: v for k, v in opts.items() if k not in ("negative", "on_repeated_lines")})
        col = Collection(rel=d.rel, judgments=d.judgments, run_lengths=d.run_lengths, topics=tuple(d.topics),
                         systems=tuple(d.systems), provenance=f"memory: {len(frames)} runs + {q.attrs.get('path')}",
                         max_grade=d.judgments.shape[1] - 1, padded_to=read_depth, judged=d.judged)
    else:
        col = Collection.from_trec(_run_source(runs), qrels, depth=read_depth, cache=cache, progress=progress, **opts)
    return col


@dataclass(frozen=True, kw_only=True)
class Evaluation:
    """Scores of runs on measures, original and interval-scaled (what :func:`evaluate` returns).

    ``frame``: one row per (system, topic, measure): ``value``; with interval-scaled values ``interval``
    ((φ − 1)/(K − 1), the nearest double; exact values in :meth:`interval`), and with ``phi=True`` also
    ``phi`` (exact integers; halves for ties ``mid``) and ``K`` (made on first use: a call that writes its
    scores from :meth:`scores` needs no pandas, issue 49). ``measures``: by label, each carrying its N
    (``AP@10``; :func:`at_cutoffs`); every method also takes the measure as it was given (``AP``).
    ``cutoffs``: the N of each measure. ``scales``: per measure label, how its interval version was obtained
    (every measure with ``ranked``, none without). ``depth``: the run length the runs are cut at, the largest N.
    :meth:`judged`: judged@N per system at that N (how far the qrels reach into the runs). ``settings``: the
    checked settings of the call (:class:`irscales.options.Settings`).
    """

    collection: Collection
    depth: int
    measures: dict[str, M.Measure]
    scales: dict[str, IntervalPlan | None]
    notes: tuple[str, ...]
    ties: str = DEFAULT_TIES
    _values: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _interval: dict[str, IntervalValues] = field(default_factory=dict, repr=False)
    _judged: np.ndarray | None = field(default=None, repr=False)  # (T, S) judged@depth
    judged_threshold: float = DEFAULT_JUDGED_THRESHOLD
    _exact: dict[str, np.ndarray] = field(default_factory=dict, repr=False)  # filled on first use
    _boxes: dict[str, ScoreBox | None] = field(default_factory=dict, repr=False)  # filled on first use
    settings: Settings = field(default_factory=Settings, repr=False)
    cutoffs: dict[str, int] = field(default_factory=dict)
    given: dict[str, str] = field(default_factory=dict, repr=False)  # the measure as given → its label

    @property
    def systems(self) -> tuple[str, ...]:
        return self.collection.systems

    @property
    def topics(self) -> tuple[str, ...]:
        return self.collection.topics

    @functools.cached_property
    def frame(self) -> pd.DataFrame:
        return tidy_frame(self.collection, list(self.measures.items()), self._values, self._interval,
                          self.settings.ranked, self.settings.phi)

    def scores(self, measure: str) -> np.ndarray:
        """The (topics × systems) float scores of one measure (by its label), as :meth:`values` gives them in a
        frame."""
        return self._values[self._check(measure)]

    def values(self, measure: str, exact: bool = False) -> pd.DataFrame:
        """The (topics × systems) scores of one measure (by its label): floats, or with ``exact=True`` exact
        Fractions (:meth:`Measure.exact`) where the measure is rational (:meth:`decision_values`)."""
        v = self.decision_values(measure) if exact else self._values[self._check(measure)]
        return pd.DataFrame(v, index=list(self.topics), columns=list(self.systems))

    def decision_values(self, measure: str) -> np.ndarray:
        """The (topics × systems) scores decisions are taken on: exact for a rational measure (a float can round
        away a difference the interval scale keeps: RBP_p05 at depth 60), floats otherwise."""
        lab = self._check(measure)
        m = self.measures[lab]
        if m.rational and lab not in self._exact:
            self._exact[lab] = self.collection.evaluate(m, self.n(lab), exact=True)
        return self._exact[lab] if m.rational else self._values[lab]

    def interval(self, measure: str, raw: bool = False) -> pd.DataFrame:
        """The (topics × systems) interval-scaled values of one measure, exact: Fractions (φ − 1)/(K − 1),
        or with ``raw=True`` the integers φ (halves for ties ``mid``)."""
        iv = self.interval_values(measure)
        return pd.DataFrame(iv.phi if raw else iv.unit, index=list(self.topics), columns=list(self.systems))

    def interval_values(self, measure: str) -> IntervalValues:
        """Everything known of one measure's interval-scaled values: its plan (scale, route, K, exactness), φ and
        the normalised values as (topics × systems) arrays, and, for a bracketed route, the bounds ``phi_lo`` /
        ``phi_hi`` and the achieved relative error (:class:`irscales.interval.IntervalValues`)."""
        lab = self._check(measure)
        iv = self._interval.get(lab)
        if iv is None:
            raise ValueError(f"{lab} has no interval-scaled values here"
                             + ("" if self.scales.get(lab, "") is None else " (evaluate(..., ranked=True))"))
        return iv

    def interval_box(self, measure: str) -> ScoreBox | None:
        """The box of one measure's interval-scaled values where they are bracketed (None where exact): per
        (topic, system) the proven bounds (φ_lo − 1)/(K − 1) … (φ_hi − 1)/(K − 1), with what is known exactly of
        their order within a topic (:func:`irscales._interval_box.interval_box`). :meth:`compare` decides every
        statement on it: proven for every value inside the brackets, or undecided (issue 51)."""
        lab = self._check(measure)
        iv = self.interval_values(lab)
        if iv.plan.exact or iv.phi_lo is None:
            return None
        if lab not in self._boxes:
            m = self.measures[lab]
            from irscales._interval_box import interval_box  # the scale engine: with brackets only
            self._boxes[lab] = interval_box(iv, self.collection, self.decision_values(lab) if m.rational else None)
        return self._boxes[lab]

    def judged(self, per_topic: bool = False) -> pd.Series | pd.DataFrame:
        """judged@N (N = :attr:`depth`) as ir_measures' ``Judged@N``: per system, the mean over topics of the
        fraction of its first min(N, L) documents (L: those it retrieved) that appear in the topic's qrels (any
        grade); a rank a short run does not have does not count and a topic it retrieved nothing for is 0
        (:mod:`irscales.data._judged`); ``per_topic``: the (topics × systems) fractions. Below
        :attr:`judged_threshold` :func:`evaluate` warns: unjudged documents count as not relevant."""
        if self._judged is None:
            raise ValueError("judged@N is not known for this evaluation (made without its qrels)")
        if per_topic:
            return pd.DataFrame(self._judged, index=list(self.topics), columns=list(self.systems))
        return pd.Series(self._judged.mean(axis=0), index=pd.Index(list(self.systems), name="system"),
                         name=f"judged@{self.depth}")

    def _check(self, measure: str) -> str:
        """The label of ``measure``, given by its label (``AP@10``) or as it was named (``AP``)."""
        if measure in self.measures:
            return measure
        if measure in self.given:
            return self.given[measure]
        raise KeyError(f"no measure {measure!r} in this evaluation; measures: {', '.join(self.measures)}")

    def n(self, measure: str) -> int:
        """The run length N a measure is taken at: its own cut-off, or the depth (:func:`at_cutoffs`)."""
        lab = self._check(measure)
        return self.cutoffs.get(lab, self.depth)

    def means(self, bounds: bool = False) -> pd.DataFrame:
        """Systems × measures: each measure's mean over topics and, where it exists, the mean of its
        interval-scaled values (column ``<label> (interval)``) — the one-call view. ``bounds``: also the exact
        range of each interval mean over every value inside the brackets (columns ``<label> (interval) lo`` and
        ``… hi``, :func:`irscales.certified.mean_bounds`; the mean itself where the values are exact)."""
        out = {}
        for lab in self.measures:
            out[lab] = self._values[lab].mean(axis=0)
            if lab in self._interval:
                out[f"{lab} (interval)"] = [float(x) for x in system_means(self._interval[lab].unit)]
                if bounds:
                    mb = self.interval_mean_bounds(lab)
                    out[f"{lab} (interval) lo"] = [float(x) for x in mb.lo]
                    out[f"{lab} (interval) hi"] = [float(x) for x in mb.hi]
        return pd.DataFrame(out, index=pd.Index(list(self.systems), name="system"))

    def interval_ranks(self, measure: str) -> pd.DataFrame:
        """Per system, its interval-scaled mean, the mean's exact range over the brackets (``mean_lo``, ``mean_hi``),
        its rank by the mean (1 = the highest, ties the best rank) and its best and worst rank over every value
        inside the brackets (:func:`irscales.certified.rank_range`; the rank itself where the values are exact)."""
        means = system_means(self.interval_values(measure).unit)
        mb = self.interval_mean_bounds(measure)
        best, worst = rank_range(mb)
        return pd.DataFrame({"mean": [float(x) for x in means], "mean_lo": [float(x) for x in mb.lo],
                             "mean_hi": [float(x) for x in mb.hi], "rank": rank_range(Bounds.point(means))[0],
                             "rank_best": best, "rank_worst": worst},
                            index=pd.Index(list(self.systems), name="system"))

    def interval_mean_bounds(self, measure: str) -> Bounds:
        """Exact bounds (Fractions) of each system's mean interval value over every value inside the brackets
        (points where the values are exact)."""
        box = self.interval_box(measure)
        if box is None:
            return Bounds.point(system_means(self.interval_values(measure).unit))
        return mean_bounds(Bounds(box.lo, box.hi))

    def scale_table(self) -> pd.DataFrame:
        """One row per measure: the scale of its interval version (measure, N, grades, ties, K, route, caveat);
        ``exact``: whether the values are exact without a caveat (False where they rest on a conjecture, or where
        the route brackets φ), ``max_rel_error``: the achieved proven bound on the relative error of φ, the
        largest hi/lo − 1 of the brackets of the values given (0 for an exact route; the route's target when no
        value was computed); ``bracket``: '' for exact values, else what they are in a legend's words
        (``bracketed within a proven 1 % (not exact)``, :func:`irscales.interval.bracket_words`);
        ``scale_over``: the runs it ranks and by what, and what does not enter (the recall base, the ideal
        ranking: one scale for every topic, FFF21 §5.2.2); ``affine``: where the interval value is an affine
        image of the measure itself (P at its own N, RBP with p = 1/2), that it is — the interval column is
        then the measure again, up to a constant factor, and says nothing new."""
        from irscales.interval import affine_image, bracket_words, scale_over  # the scale engine: with scales only

        rows = []
        for lab, p in self.scales.items():
            if p is None:
                rows.append({"measure": lab, "scale_of": "", "N": np.nan, "grades": np.nan, "ties": self.ties,
                             "K": np.nan, "route": "none", "exact": False, "max_rel_error": np.nan, "bracket": "",
                             "caveat": "", "scale_over": "", "affine": ""})
            else:
                m = self.measures[lab]
                iv = self._interval.get(lab)
                achieved = iv.max_rel_error if iv is not None else p.max_rel_error
                rows.append({"measure": lab, "scale_of": p.measure.key, "N": p.N, "grades": p.c + 1, "ties": p.ties,
                             "K": p.K, "route": p.kind, "exact": p.exact and not p.caveat,
                             "max_rel_error": achieved, "bracket": bracket_words(p, achieved), "caveat": p.caveat,
                             "scale_over": scale_over(p, m), "affine": affine_image(p, m)})
        return pd.DataFrame(rows)

    def compare(self, *, test: str = COMPARISON_DEFAULTS["test"], correction: str = COMPARISON_DEFAULTS["correction"],
                alpha: float = 0.05, baseline: str | None = None, permutations: int = PERMUTATIONS, seed: int = 0,
                order: str = COMPARISON_DEFAULTS["order"]) -> ComparisonTable:
        """The comparison table of the runs on every measure, original and interval-scaled
        (:func:`irscales.comparison.comparison_table`; ‡ from the IPSO sign test of the runs at this depth;
        ``permutations`` and ``seed``: the randomisation test's sampled sign flips; ``order``: the rows').
        Bracketed interval values are decided over their box (:meth:`interval_box`): each decision proven for
        every value inside the brackets or undecided (``pairs_frame()['proven']``, ``decision_counts()``)."""
        from irscales.comparison import comparison_table  # scipy.stats and statsmodels: only when comparing

        original = {lab: self.decision_values(lab) for lab in self.measures}
        interval = {lab: iv.unit for lab, iv in self._interval.items()}
        boxes = {lab: box for lab in self._interval if (box := self.interval_box(lab)) is not None}
        return comparison_table(original, interval, self.systems, test=test, correction=correction, alpha=alpha,
                                baseline=baseline, rel=self.collection.binary(self.depth) if baseline else None,
                                depth=self.depth, notes=(*self.notes, *self._scale_lines()), permutations=permutations,
                                seed=seed, order=order, boxes=boxes)

    def _scale_lines(self) -> list[str]:
        """One legend line per interval version: what its scale is over, and whether it is an affine image."""
        t = self.scale_table()
        return [f"{r.measure} (interval): " + (f"{r.bracket}; " if r.bracket else "") + f"over {r.scale_over}"
                + (f" ({r.measure} (interval) {r.affine})" if r.affine else "")
                for r in t.itertuples() if r.scale_over]

    def to_ir_measures(self, system: str | None = None, frame: bool = False) -> list | pd.DataFrame:
        """Per-topic values as ``ir_measures.Metric`` tuples of one run (``system``: optional with one run), or
        with ``frame`` as a frame ``run, query_id, measure, value``; interval values as ``AP@10[interval]``."""
        return metrics_frame(self, system) if frame else ir_measures_metrics(self, system)

    def to_ranx_scores(self) -> dict[str, dict[str, dict[str, float]]]:
        """``{run: {measure: {query_id: value}}}`` (ranx's per-query scores; :mod:`irscales._ecosystem_outputs`)."""
        return ranx_scores(self)

    def correlations(self) -> tuple[pd.DataFrame, list[str]]:
        """Kendall τ (FFF21 §3.3) and τ_AP (Fer17 eq. 2, symmetric) between every two measures' system
        rankings by mean, original and interval-scaled; and a note for every value left NaN. ``tau_interval_min``
        … ``tau_ap_interval_max``: the sound ranges of the interval-scaled τ and τ_AP over every value inside the
        brackets (:func:`irscales.certified.kendall_tau_range`, :func:`~irscales.certified.tau_ap_range`; the
        point where the values are exact, τ_AP's NaN where exact means tie)."""
        if len(self.systems) < 3:
            raise ValueError(f"correlation needs at least 3 runs, got {len(self.systems)}")
        if len(self.measures) < 2:
            raise ValueError("correlation is between measures: give at least two")
        rows, notes = [], []
        means = {}
        for lab, m in self.measures.items():
            means[lab], note = ordered_means(self.collection, m, self.n(lab), self._values[lab], lab)
            if note:
                notes.append(note)
        imeans = {lab: system_means(iv.unit) for lab, iv in self._interval.items()}
        nan = float("nan")
        for a, b in combinations(self.measures, 2):
            both = a in imeans and b in imeans
            row = {"measure_a": a, "measure_b": b, "tau": float(kendall_tau(means[a], means[b])),
                   "tau_interval": float(kendall_tau(imeans[a], imeans[b])) if both else nan}
            if not both:
                missing = [x for x in (a, b) if x not in imeans]
                notes.append(f"{a} vs {b}: tau_interval is NaN: no interval-scaled {' or '.join(missing)} here")
            for key, ma, mb in (("tau_ap", means[a], means[b]), ("tau_ap_interval", imeans.get(a), imeans.get(b))):
                if ma is None or mb is None:
                    row[key] = nan
                    continue
                tied = _tied(ma, self.systems) or _tied(mb, self.systems)
                if tied:
                    row[key] = nan
                    which = a if _tied(ma, self.systems) else b
                    notes.append(f"{a} vs {b}: {key} is NaN: tau_AP is undefined with tied system means "
                                 f"({which}{' (interval)' if key.endswith('interval') else ''}: {tied})")
                else:
                    row[key] = float(tau_ap_symmetric(ma, mb))
            if both:  # the ranges over every value inside the brackets (points where the values are exact)
                ba, bb = self.interval_mean_bounds(a), self.interval_mean_bounds(b)
                r, rap = kendall_tau_range(ba, bb), tau_ap_range(ba, bb)
                row.update({"tau_interval_min": r.lo, "tau_interval_max": r.hi, "tau_ap_interval_min": rap.lo,
                            "tau_ap_interval_max": rap.hi})
            else:
                row.update(dict.fromkeys(("tau_interval_min", "tau_interval_max", "tau_ap_interval_min",
                                          "tau_ap_interval_max"), nan))
            rows.append(row)
        return pd.DataFrame(rows), notes


def ordered_means(col: Collection, m: M.Measure, depth: int, values: np.ndarray, label: str = "") \
        -> tuple[np.ndarray, str]:
    """System means whose order and ties are exact: float means (summed in sorted order, so equal
    multisets of values give equal means), except where two are within 1e-9 (relative) of each other —
    there float rounding could make or break a tie, so those systems' means are recomputed exactly
    (Fractions, :meth:`Measure.exact`). A measure without an exact form keeps its floats, with a note."""
    means = system_means(values)
    if values.dtype == object or len(means) < 2:
        return means, ""
    order = np.argsort(means, kind="stable")
    m_sorted = means[order]
    tol = 1e-9 * max(1.0, float(np.abs(m_sorted).max()))
    close = np.flatnonzero(np.diff(m_sorted) <= tol)
    if not len(close):
        return means, ""
    idx = sorted({int(order[k]) for k in close} | {int(order[k + 1]) for k in close})
    if not m.rational:
        names = ", ".join(col.systems[i] for i in idx[:4]) + (" …" if len(idx) > 4 else "")
        return means, (f"{label or m.key}: the means of {names} are within 1e-9 of each other and "
                       f"{m.key} has no exact form: their order and ties follow floating point")
    exact = system_means(col.subset(systems=idx).evaluate(m, depth, exact=True))
    out = means.astype(object)
    for i, v in zip(idx, exact):
        out[i] = v  # Fractions compare exactly with the other (float) means, all farther than 1e-9
    return out, ""


def _tied(means, systems) -> str:
    """'' or the first two systems with equal means (exact for exact means)."""
    seen = {}
    for s, v in zip(systems, list(means)):
        key = Fraction(v) if not isinstance(v, Fraction) else v
        if key in seen:
            return f"{seen[key]} and {s}"
        seen[key] = s
    return ""


_KEYWORDS = {"depth": None, "ranked": False, "ties": DEFAULT_TIES, "phi": False, "build": False, "cache": True,
             "progress": None, "judged_threshold": DEFAULT_JUDGED_THRESHOLD, "max_rel_error": DEFAULT_MAX_REL_ERROR}


def settings_of(settings: Settings | None, reading: dict, **keywords: Any) -> Settings:
    """The :class:`~irscales.options.Settings` of a call: ``settings`` as given, or built (and so checked) from
    the keywords and reading options; both at once is refused (which would win is not obvious)."""
    if settings is None:
        return Settings(**keywords, reading=reading)
    if not isinstance(settings, Settings):
        raise ArgumentError("settings", f"must be an irscales.options.Settings, got {type(settings).__name__}")
    changed = sorted(k for k, v in keywords.items() if k in _KEYWORDS and v is not _KEYWORDS[k] and v != _KEYWORDS[k])
    if changed or reading:
        raise ArgumentError("settings", f"comes alone: give {', '.join(changed + sorted(reading))} inside it "
                            "(Settings(...)), not beside it")
    return settings


def at_cutoffs(specs: Sequence[tuple[str, M.Measure]], depth: int) -> list[tuple[str, M.Measure]]:
    """``specs`` labelled with the N each measure is taken at (issue 48: one rule for N, visible in every
    name): a measure named with a cut-off keeps its label (``nDCG@20``, ``P_10``: N is its own); one named
    without takes ``depth`` and says so (``AP`` at depth 10 is ``AP@10``, ``map`` over 1000 ranks ``map@1000``)."""
    out = [(lab if getattr(m, "k", None) is not None else f"{lab}@{depth}", m) for lab, m in specs]
    seen: dict[str, str] = {}
    for (given, _), (lab, _) in zip(specs, out):
        if lab in seen:
            raise ArgumentError("measures", f"name {seen[lab]} and {given}, both {lab} at depth {depth}: give it once")
        seen[lab] = given
    return out


def evaluate(qrels: Any, runs: Any, measures: str | M.Measure | Sequence[str | M.Measure] = DEFAULT_MEASURES, *,
             depth: int | None = None, ranked: bool = False, ties: str = DEFAULT_TIES, phi: bool = False,
             build: bool = False, cache: bool = True, progress: bool | None = None,
             judged_threshold: float = DEFAULT_JUDGED_THRESHOLD, max_rel_error: float = DEFAULT_MAX_REL_ERROR,
             settings: Settings | None = None, **reading) -> Evaluation:
    """Evaluate runs on measures, with their interval-scaled versions when ``ranked`` (module docstring).

    qrels     a qrels file, a frame (``query_id, doc_id, relevance``), ``{query_id: {doc_id: grade}}``, ranx
              ``Qrels``, ir_measures / ir_datasets qrels namedtuples or an ir_datasets dataset
    runs      a folder of run files, a file or a list of files; a frame (``query_id, doc_id, score`` [, ``run``]);
              ``{query_id: {doc_id: score}}`` (one run), ``{name: frame or dict}``, ranx ``Run`` (or a list) or
              ir_measures ``ScoredDoc`` namedtuples, ``{name: [ScoredDoc, …]}`` for several
              (:mod:`irscales.data._ecosystem_inputs`); ids on every route as :mod:`irscales.data._ids` reads them
    measures  names (``"AP,P@10,nDCG@10"``), a list of names or :class:`~irscales.measures.Measure` objects.
              A measure named with a cut-off (``nDCG@20``, ``P@10``, ``map_cut_100``) is taken at that N,
              interval-scaled or not, whatever ``depth`` says; one named without takes ``depth``, and its label
              says so (``AP`` → ``AP@10``); :meth:`Evaluation.values` etc. accept either spelling
    depth     the run length N of the measures named without a cut-off (default: the longest run;
              :data:`~irscales.options.RANKED_DEFAULT_DEPTH` with ``ranked``: :func:`irscales.options.default_depth`)
    ranked    add the interval-scaled values (FFF21 eq. 2): ``interval`` = (φ − 1)/(K − 1), for every measure or
              :class:`~irscales.interval.NoIntervalScaleError` naming those without one at their N
    ties      FFF21's tie strategy for φ: ``unq`` (eq. 2), ``min``, ``max``, ``mid`` (§7.1.3)
    phi       also give raw φ and K
    build     consent to a scale build over the budget (else such a build is refused with its estimate and
              the cheaper options; the CLI's --build-scales)
    cache     keep built scales and parsed runs under ``IRSCALES_CACHE``
    judged_threshold  warn, naming them, about systems whose judged@N (:meth:`Evaluation.judged`) is below it
              (default 0.9; 0: never)
    max_rel_error  where φ is beyond the exact routes, the relative error its proven bracket is to reach
              (hi ≤ (1 + max_rel_error)·lo, any finite number > 0: 1.0 is a proven factor 2, what AP reaches at
              N = 1000; a request below what a bracket reaches is refused naming that error;
              :mod:`irscales.enumeration.bounded`); exact routes are taken first
    settings  all of the above at once, an :class:`irscales.options.Settings` (then none of them beside it)
    reading   ``negative``, ``on_missing_topic``, ``on_no_relevant``, ``on_uneven_topics``, ``on_repeated_lines``,
              ``score_precision`` (:data:`irscales.options.READING`; trec_eval's numbers: ``negative="zero",
              on_no_relevant="keep"``)

    Every argument is checked before any file is read (:class:`irscales.options.ArgumentError`, a ValueError
    naming the argument). ``ERR`` named without ``max_grade`` takes the qrels' largest grade G:
    R_i = (2^g − 1)/2^G (Chapelle et al.'s definition on the qrels' scale; binary qrels: G = 1).
    ``ERR(max_grade=4)`` is gdeval's and ir_measures' ``ERR@k`` normalisation.
    """
    s = settings_of(settings, reading, depth=depth, ranked=ranked, ties=ties, phi=phi, build=build, cache=cache,
                    progress=progress, judged_threshold=judged_threshold, max_rel_error=max_rel_error)
    given = measure_specs(measures)
    qrels, runs = ecosystem_qrels(qrels), ecosystem_runs(runs)  # ranx, ir_datasets, ir_measures objects
    depth = s.run_length(None)  # None: the longest run's length, once the runs are read
    ns = [s.run_length(getattr(m, "k", None)) for _, m in given]  # each measure's N, None where it is that length
    notes: list[str] = []
    plans: dict[str, IntervalPlan | None] = {}
    if s.ranked:  # the scale engine (the enumeration, numba) loads only for interval values (issue 49)
        from irscales.interval import interval_values, plan, uses_grades

        # binary measures are planned before reading (graded ones after): a refusal comes at once
        plans, n1 = plan(at_cutoffs(given, depth), depth, grades=None, settings=s, require=True, bounded=True)
        notes += n1
    read = None if None in ns else max(ns)  # the runs are read to the largest N (None: every document)
    col = load_collection(qrels, runs, read, progress=s.progress, cache=s.cache, **s.reading_options)
    if depth is None:
        depth = s.run_length(None, int(col.run_lengths.max(initial=0)))
    given = graded_err(given, measures, int(col.max_grade))
    check_depth(given, col, depth)
    specs = at_cutoffs(given, depth)
    n = {lab: s.run_length(getattr(m, "k", None), depth) for lab, m in specs}
    read = max(n.values())
    judged = judged_at(col, read)  # counted in the same reading as the grades: each run file is read once
    per_system = dict(zip(col.systems, judged.mean(axis=1).tolist()))
    if (warn := judged_warning(per_system, read, s.judged_threshold)):
        notes.append(warn)
    if s.ranked:
        graded = [(lab, m) for lab, m in specs if uses_grades(m)]
        p2, n2 = plan(graded, depth, grades=int(col.max_grade), settings=s, require=True, bounded=True)
        plans.update(p2)
        notes += n2
        plans = {lab: plans.get(lab) for lab, _ in specs}
    values: dict[str, np.ndarray] = {}
    ivals: dict[str, IntervalValues] = {}
    for lab, m in specs:
        values[lab] = col.evaluate(m, n[lab])
        p = plans.get(lab)
        if p is not None:
            ivals[lab] = iv = interval_values(p, col, progress=s.progress)  # at the plan's N
            if iv.wide:
                notes.append(f"{lab}: {iv.wide} of {iv.phi.size} interval values are bracketed wider than "
                             f"max_rel_error={p.max_rel_error:g} (the widest by {iv.max_rel_error:.3g}); their "
                             "bounds are proven, only wider")
    for lab, p in plans.items():
        if p is not None and p.caveat:
            notes.append(f"{lab}: {p.caveat}")
    for note in notes:
        warnings.warn(note, stacklevel=2)
    return Evaluation(collection=col, depth=read, measures=dict(specs), scales=plans, notes=tuple(notes),
                      ties=s.ties, _values=values, _interval=ivals, _judged=judged.T,
                      judged_threshold=s.judged_threshold, settings=s, cutoffs=n,
                      given={g: lab for (g, _), (lab, _) in zip(given, specs)})

