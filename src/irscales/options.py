"""The options of irscales and their defaults, written once (issue 36).

Every reader of runs takes the same **reading options**, with the same names, allowed values and defaults:
``Collection.from_trec``, :func:`irscales.data.trec.read_trec` and
:func:`~irscales.data.trec.relevance_arrays`, :func:`irscales.evaluate`, the command line's flags
(``--on-missing-topic skip`` is ``on_missing_topic="skip"``) and the notebooks that take runs. They are
declared here and only here; the others read :data:`READING` (``tests/test_options.py`` checks every
signature and every flag against it).

The defaults read ordinary real collections as trec_eval does where that loses nothing: a run topic
without judgments (Robust 2004's topic 672) is skipped with a one-line note; what would change numbers
silently (negative grades, runs with different topic sets, a document listed twice) is an error that
names the option to pass.

The other defaults and vocabularies have their one home here too (issue 40): the run length when none is
given (:func:`default_depth`), the default tie rule, the significance procedures with their labels
(:data:`SIGNIFICANCE`), the tests taken by name with the key that runs each and the words of a legend
(:data:`PAIRED_TESTS`: ``t`` or ``ttest``, ``wilcoxon`` or ``signrank`` …), and the comparison's corrections,
row orders and defaults. The command line, :func:`irscales.evaluate`, ``Collection.from_trec``, the comparison,
the IPSO rule and the papers read them (``tests/test_options.py`` checks that they agree).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Integral, Real
from pathlib import Path
from typing import Any

__all__ = [
    "Settings", "ArgumentError", "TIES", "DEFAULT_TIES", "DEFAULT_MAX_REL_ERROR", "READING_OPTIONS",
    "READING_DEFAULTS", "reading_given", "DEFAULT_MEASURES", "RANKED_DEFAULT_DEPTH", "default_depth",
    "SIGNIFICANCE", "COMPARISON_TESTS", "CORRECTIONS", "COMPARISON_DEFAULTS",
]


# ------------------------------------------------------------------ arguments checked once, at the door (issue 48)

class ArgumentError(ValueError):
    """A bad argument, refused at the public boundary before any work (:class:`Settings`, the checks below):
    ``name`` is the keyword argument, ``detail`` what it must be and the value given. The command line shows
    the same message with the option's flag (``max_rel_error`` → ``--max-rel-error``) and exit code 2."""

    def __init__(self, name: str, detail: str):
        self.name, self.detail = name, detail
        super().__init__(f"{name} {detail}")

    @property
    def flag(self) -> str:
        """The command line's spelling of the argument."""
        return {"output": "-o / --output"}.get(self.name, "--" + self.name.replace("_", "-"))


def _is_flag(x: Any) -> bool:
    return x is True or x is False or type(x).__name__ == "bool_"  # numpy's bool without importing numpy


def check_flag(name: str, value: Any) -> bool:
    """``value`` as a bool, or :class:`ArgumentError` (a string or a number is not a yes / no)."""
    if not _is_flag(value):
        raise ArgumentError(name, f"must be True or False, got {value!r}")
    return bool(value)


def check_choice(name: str, value: Any, choices: tuple[str, ...] | list[str], what: str = "") -> str:
    """``value`` if it is one of ``choices``, else :class:`ArgumentError` listing them."""
    if not isinstance(value, str) or value not in choices:
        raise ArgumentError(name, f"must be one of {', '.join(choices)}{what}, got {value!r}")
    return value


def check_depth(value: Any, name: str = "depth") -> int | None:
    """The run length N: None (the default rule, :func:`default_depth`) or a positive integer."""
    if value is None:
        return None
    if _is_flag(value) or not isinstance(value, Integral) or value < 1:
        raise ArgumentError(name, f"must be a positive integer (the run length N), got {value!r}")
    return int(value)


def check_fraction(name: str, value: Any, *, open_low: bool = False, open_high: bool = False, what: str = "") -> float:
    """A finite real number in [0, 1] (``open_low`` / ``open_high``: the end excluded), as a float."""
    lo, hi = "(" if open_low else "[", ")" if open_high else "]"
    ok = (not _is_flag(value) and isinstance(value, Real) and math.isfinite(value)
          and (0 < value if open_low else 0 <= value) and (value < 1 if open_high else value <= 1))
    if not ok:
        raise ArgumentError(name, f"must be a number in {lo}0, 1{hi}{what}, got {value!r}")
    return float(value)


def check_alpha(value: Any, name: str = "alpha") -> float:
    """A significance level: a number in (0, 1)."""
    return check_fraction(name, value, open_low=True, open_high=True, what=" (a significance level, e.g. 0.05)")


#: What ``max_rel_error`` must be, in every message and --help: any finite number above 0 (issue 51: a proven factor
#: such as 1.0, hi ≤ 2·lo, where a bracket cannot reach 1 % — AP beyond the depth its 1 % reaches).
MAX_REL_ERROR_RULE = "a finite number greater than 0 (0.01: phi within a proven 1 %; 1.0: within a proven factor 2)"


def check_max_rel_error(value: Any) -> float:
    """``max_rel_error`` checked (:data:`MAX_REL_ERROR_RULE`): NaN, ±∞, 0, negatives, strings, None and booleans are
    refused naming it. How wide a bracket can be asked is the route's to say (a refusal names the error it reaches,
    :mod:`irscales.enumeration.bounded`), not the door's."""
    if _is_flag(value) or not isinstance(value, Real) or not math.isfinite(value) or not value > 0:
        raise ArgumentError("max_rel_error", f"must be {MAX_REL_ERROR_RULE}, got {value!r}")
    return float(value)


def check_grades(value: Any) -> int | None:
    """The number of relevance grades G of a graded scale: None or an integer of at least 2."""
    if value is None:
        return None
    if _is_flag(value) or not isinstance(value, Integral) or value < 2:
        raise ArgumentError("grades", f"must be an integer of at least 2 (the grades 0..grades-1), got {value!r}")
    return int(value)


def check_output_path(name: str, path: str | Path | None, inputs=()) -> None:
    """An output file (``name``: the argument that gives it) before any work: not a folder, in a folder that
    exists and can be written, and none of the ``inputs`` (files, or folders whose files are inputs) — writing
    there would destroy an input before anyone noticed."""
    if path is None or path == "":
        return
    p = Path(path)
    if p.is_dir():
        raise ArgumentError(name, f"names a folder, not a file: {path}")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise ArgumentError(name, f"is in a folder that does not exist: {folder}")
    if not os.access(folder, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ArgumentError(name, f"cannot be written: {path} (no write permission)")
    if not p.exists():
        return
    for given in inputs:
        g = Path(given)
        for f in (sorted(g.iterdir()) if g.is_dir() else [g]):
            try:
                same = os.path.samefile(p, f)
            except OSError:
                continue
            if same:
                raise ArgumentError(name, f"{path} is an input of this command ({f}); choose another file")


@dataclass(frozen=True)
class Option:
    """One option: its keyword ``name``, the values it allows (``choices``), its ``default`` and one line of
    help (the command line's)."""

    name: str
    choices: tuple[str, ...]
    default: str
    help: str

    @property
    def flag(self) -> str:
        """The command line's spelling: ``on_missing_topic`` → ``--on-missing-topic``."""
        return "--" + self.name.replace("_", "-")

    def check(self, value: Any) -> None:
        if value not in self.choices:
            raise ArgumentError(self.name, f"must be one of {self.choices}, got {value!r}")


#: How run and qrels files are read, in the order of the command line's --help.
READING: tuple[Option, ...] = (
    Option("negative", ("error", "zero"), "error",
           "negative qrels grades: an error, or read as 0 (not relevant) like trec_eval"),
    Option("on_missing_topic", ("skip", "error"), "skip",
           "a run topic absent from the qrels: skipped with a note naming it (as trec_eval), or an error"),
    Option("on_no_relevant", ("skip", "error", "keep"), "skip",
           "a topic whose qrels hold no relevant document: skipping it changes means; trec_eval keeps it "
           "with every measure 0 (keep)"),
    Option("on_uneven_topics", ("empty", "pad", "error"), "empty",
           "runs with different topic sets: empty: a run without a topic that other runs have counts as an "
           "empty run there (zero on every measure, as trec_eval -c), with a note naming them; pad: also every "
           "qrels topic no run retrieved is evaluated (trec_eval -c exactly); or an error"),
    Option("on_repeated_lines", ("error", "drop"), "error",
           "a run line repeating an earlier line's topic, document and score (9 of the 24 CLEF eHealth 2018 "
           "runs): an error as in trec_eval, or drop the repeats with a note counting them per file (a repeat "
           "with another score is always an error)"),
    Option("score_precision", ("float32", "float64"), "float32",
           "precision in which run scores are compared before docno breaks ties: float32 as trec_eval <= 9 "
           "and pytrec_eval (FFF21's tables), float64 as trec_eval >= 10"),
)
READING_OPTIONS: dict[str, Option] = {o.name: o for o in READING}
#: The reading options' defaults by name.
READING_DEFAULTS: dict[str, str] = {o.name: o.default for o in READING}


def check_reading(**opts: Any) -> None:
    """Refuse unknown reading options and values they do not allow (before any file is read)."""
    unknown = sorted(set(opts) - set(READING_OPTIONS))
    if unknown:
        raise TypeError(f"unknown reading option(s) {', '.join(unknown)}; expected {', '.join(READING_OPTIONS)}")
    for name, value in opts.items():
        READING_OPTIONS[name].check(value)


def reading_given(**opts: Any) -> dict[str, str]:
    """Every reading option: the values given (None: not given) over the defaults, checked. The notebooks'
    parameters are None unless set, so their defaults are these."""
    given = {k: v for k, v in opts.items() if v is not None}
    check_reading(**given)
    return {**READING_DEFAULTS, **given}


# ---------------------------------------------------------------------------- measures and run length (depth)

#: The measures computed when none are named (``evaluate``, ``irscales scores`` and ``report``).
DEFAULT_MEASURES = "AP,nDCG_b02,RR"

#: The run length N when none is given and interval-scaled values are computed (every run of length N is
#: counted or enumerated: 10 keeps each measure's scale small), and wherever runs are compared at a fixed
#: length (``irscales ipso``).
RANKED_DEFAULT_DEPTH = 10
#: The depth that reads every document of every run (memory follows the runs' real length).
EVERY_DOCUMENT = 2**31 - 1
#: The one rule for the run length, in the API's docstrings and every subcommand's --help.
DEPTH_RULE = ("for the measures named without a cut-off (a name with one, nDCG@20, P_10, is taken at that N whatever "
              "the depth; every column carries its N: AP@10); default: every document of the longest run (as "
              f"trec_eval) for plain scores; {RANKED_DEFAULT_DEPTH} wherever interval-scaled values are computed "
              "(--ranked, compare, report, correlate, ipso)")


def default_depth(ranked: bool, longest: int | None = None) -> int | None:
    """The run length when none is given (:data:`DEPTH_RULE`): :data:`RANKED_DEFAULT_DEPTH` for
    interval-scaled values, else the ``longest`` run's length (at least 1; None before the runs are read)."""
    if ranked:
        return RANKED_DEFAULT_DEPTH
    return None if longest is None else max(1, int(longest))


#: FFF21 eq. (2)'s tie rule of the ranked measure φ: a value's rank among the distinct values.
UNQ = "unq"
#: The tie rules of φ: eq. (2) (:data:`UNQ`) and §7.1.3's min, max and mid rank of a run among all runs
#: (:mod:`irscales.enumeration.ties` turns counts into these ranks; their home is here, so the command line's
#: help names them without loading the engine, issue 49).
TIES = (UNQ, "min", "max", "mid")
#: The tie rule when none is given.
DEFAULT_TIES = UNQ

#: A scale build estimated above either limit needs consent (``build=True``, CLI ``--build-scales``):
#: FFF21's N = 30 takes minutes and GBs. About N ≤ 23 builds within it for the binary FFF21 measures
#: (:mod:`irscales.enumeration.routes` applies them).
BUILD_SECONDS_OK = 10.0
BUILD_BYTES_OK = 100e6

#: The comparison table marks systems with letters up to this many, numbers beyond
#: (:mod:`irscales.comparison._render`).
LETTERS_UP_TO = 26

#: The relative error a route that brackets φ (beyond the exact routes: irscales.enumeration.bounded) is asked to
#: reach, hi ≤ (1 + e)·lo, when none is given (issue 42: 1 %); ``evaluate(max_rel_error=)``, CLI ``--max-rel-error``.
DEFAULT_MAX_REL_ERROR = 0.01
MAX_REL_ERROR_HELP = ("where no exact route reaches N (or it would take over 5 minutes), phi is bracketed by proven "
                      "lower and upper bounds refined until upper <= (1 + this) x lower; the interval value is the "
                      "bracket's lower midpoint, and the scale table reports exact = False and the achieved "
                      "max_rel_error")

#: A system with fewer than this fraction of its top N judged gets a warning (:mod:`irscales.data._judged`): its
#: unjudged documents count as not relevant there, so its scores are lower bounds.
DEFAULT_JUDGED_THRESHOLD = 0.9


def _reading_tuple(reading: Any) -> tuple[tuple[str, str], ...]:
    given = dict(reading)
    check_reading(**given)
    return tuple((o.name, given.get(o.name, o.default)) for o in READING)


@dataclass(frozen=True, kw_only=True)
class Settings:
    """The settings of one evaluation, checked once, where they are given (:func:`irscales.evaluate`,
    :func:`irscales.interval_measure`, the command line), and passed down whole: below that boundary nothing
    re-defaults or re-checks them. Building one checks every field (:class:`ArgumentError` names the first bad
    one); ``reading`` is filled with the defaults of :data:`READING`.

    depth             the run length N of the measures named without a cut-off (``AP``); a measure named with
                      one (``nDCG@20``, ``P@10``) is taken at its own N whatever ``depth`` says. None: the rule
                      of :func:`default_depth`
    ranked            interval-scaled values too (FFF21 eq. 2)
    ties              the tie rule of φ (:data:`TIES`)
    max_rel_error     the relative error a bracketed φ is to reach (:func:`check_max_rel_error`)
    judged_threshold  warn about systems whose judged@N is below it (0: never)
    phi, build, cache, progress  raw φ and K too; consent to a scale build over the budget; keep scales and
                      parsed runs under ``IRSCALES_CACHE`` (or this folder); progress bars (None: on a terminal)
    grades            the number of grades a graded scale is over (None: the qrels' own)
    reading           the reading options, ``(name, value)`` pairs (a dict is accepted)
    """

    depth: int | None = None
    ranked: bool = False
    ties: str = DEFAULT_TIES
    max_rel_error: float = DEFAULT_MAX_REL_ERROR
    judged_threshold: float = DEFAULT_JUDGED_THRESHOLD
    phi: bool = False
    build: bool = False
    cache: bool | str | Path = True
    progress: bool | None = None
    grades: int | None = None
    reading: tuple[tuple[str, str], ...] = field(default=())

    def __post_init__(self):
        fix = object.__setattr__
        fix(self, "depth", check_depth(self.depth))
        for name in ("ranked", "phi", "build"):
            fix(self, name, check_flag(name, getattr(self, name)))
        fix(self, "ties", check_choice("ties", self.ties, TIES))
        fix(self, "max_rel_error", check_max_rel_error(self.max_rel_error))
        fix(self, "judged_threshold", check_fraction("judged_threshold", self.judged_threshold))
        if not (_is_flag(self.cache) or isinstance(self.cache, (str, Path))):
            raise ArgumentError("cache", f"must be True, False or a folder, got {self.cache!r}")
        if self.progress is not None:
            fix(self, "progress", check_flag("progress", self.progress))
        fix(self, "grades", check_grades(self.grades))
        fix(self, "reading", _reading_tuple(self.reading))

    @property
    def reading_options(self) -> dict[str, str]:
        """The reading options by name (every one of :data:`READING`)."""
        return dict(self.reading)

    @property
    def rel_error(self) -> Fraction:
        """``max_rel_error`` as the exact rational it is written as (0.01 is 1/100: its shortest decimal, as
        :func:`irscales.exact.to_fraction` reads every float)."""
        return Fraction(repr(self.max_rel_error))

    def run_length(self, cutoff: int | None, longest: int | None = None) -> int | None:
        """The N of a measure: its own ``cutoff`` (``nDCG@20`` → 20) whatever the depth, else the depth, else
        :func:`default_depth` (``longest``: the longest run's length, None before the runs are read)."""
        if cutoff is not None:
            return int(cutoff)
        return self.depth if self.depth is not None else default_depth(self.ranked, longest)



# ------------------------------------------------------------------- significance tests (irscales.stats)

@dataclass(frozen=True)
class Procedure:
    """A procedure of :mod:`irscales.stats._significance`: its ``key``, its row ``label`` (FFF21 Tables 5–6),
    whether it assumes only an ordinal scale (FFF21 §2.5) and whether it is an ``omnibus`` test followed by
    Tukey-type comparisons of all pairs (§7.3; these take ``pvalues=``)."""

    key: str
    label: str
    ordinal: bool
    omnibus: bool


#: FFF21's eight procedures, in the order of its Tables 5–6.
SIGNIFICANCE: tuple[Procedure, ...] = (
    Procedure("sign", "Sign Test", ordinal=True, omnibus=False),
    Procedure("ranksum", "Wilcoxon Rank Sum Test", ordinal=True, omnibus=False),
    Procedure("signrank", "Wilcoxon Signed Rank Test", ordinal=False, omnibus=False),
    Procedure("ttest", "Student's t Test", ordinal=False, omnibus=False),
    Procedure("anova1", "One-way ANOVA", ordinal=False, omnibus=True),
    Procedure("kruskalwallis", "Kruskal-Wallis Test", ordinal=True, omnibus=True),
    Procedure("anova2", "Two-way ANOVA", ordinal=False, omnibus=True),
    Procedure("friedman", "Friedman Test", ordinal=True, omnibus=True),
)


@dataclass(frozen=True)
class PairedTest:
    """A test taken by ``name`` (``--test``, ``Evaluation.compare(test=)``, ``irscales ipso``): the ``key`` of the
    procedure that runs it (:data:`SIGNIFICANCE`, or ``randomisation``: :mod:`irscales.stats._randomisation`),
    also accepted as an alias of the name, and the ``words`` that name it in a legend."""

    name: str
    key: str
    words: str


#: The tests by name, in the order of the command line's choices.
PAIRED_TESTS: tuple[PairedTest, ...] = (
    PairedTest("t", "ttest", "paired t test"),
    PairedTest("wilcoxon", "signrank", "Wilcoxon signed-rank test"),
    PairedTest("sign", "sign", "sign test"),
    PairedTest("randomisation", "randomisation", "paired randomisation test of the mean difference"),
    PairedTest("tukey", "anova2", "two-way ANOVA (topic, system) + Tukey's HSD (FFF21)"),
)
#: The test names → the key of the procedure that runs each (``t`` → ``ttest``).
COMPARISON_TESTS: dict[str, str] = {t.name: t.key for t in PAIRED_TESTS}
#: The name of a test by its procedure's key (``ttest`` → ``t``): how a test is shown.
TEST_NAMES: dict[str, str] = {t.key: t.name for t in PAIRED_TESTS}
#: The words naming a test (by name) in a legend.
TEST_WORDS: dict[str, str] = {t.name: t.words for t in PAIRED_TESTS}
#: The paired tests MM23 §3 compare with the IPSO sign test, by key, in the paper's order.
METRIC_TESTS = ("sign", "signrank", "ttest")


def test_key(name: str, among: tuple[str, ...] | None = None) -> str:
    """The procedure key of a test given by name or by key (``t`` and ``ttest`` → ``ttest``), one of the keys
    ``among`` (default: every test of :data:`PAIRED_TESTS`)."""
    keys = tuple(COMPARISON_TESTS.values()) if among is None else among
    key = COMPARISON_TESTS.get(name, name)
    if key not in keys:
        raise ValueError(f"unknown test {name!r}; choose from {', '.join(TEST_NAMES.get(k, k) for k in keys)}")
    return key


test_key.__test__ = False  # not a pytest test


# ----------------------------------------------------------------- the comparison table (irscales.comparison)

#: Multiple-comparison corrections of the per-pair tests (``tukey`` needs none).
CORRECTIONS = ("holm", "bonferroni", "none")
#: Row orders: ``given``; ``mean``: decreasing mean of the first measure on its original scale; ``auto``:
#: ``given`` up to the systems letters can mark, ``mean`` beyond.
ROW_ORDERS = ("auto", "given", "mean")
#: The comparison's defaults (``Evaluation.compare``, :func:`~irscales.comparison.comparison_table`, ``report``).
COMPARISON_DEFAULTS = {"test": "t", "correction": "holm", "order": "auto"}
#: The randomisation test enumerates all 2^T sign patterns up to this many topics T, and samples this many beyond.
EXACT_FLIPS_UP_TO = 20
PERMUTATIONS = 10_000
