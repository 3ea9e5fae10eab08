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

from dataclasses import dataclass
from typing import Any

__all__ = ["Option", "READING", "READING_OPTIONS", "READING_DEFAULTS", "reading_given", "check_reading",
           "DEFAULT_MEASURES", "RANKED_DEFAULT_DEPTH", "EVERY_DOCUMENT", "DEPTH_RULE", "default_depth", "DEFAULT_TIES",
           "DEFAULT_MAX_REL_ERROR", "MAX_REL_ERROR_HELP",
           "Procedure", "SIGNIFICANCE", "PairedTest", "PAIRED_TESTS", "COMPARISON_TESTS", "TEST_NAMES", "TEST_WORDS",
           "METRIC_TESTS", "test_key", "CORRECTIONS", "ROW_ORDERS", "COMPARISON_DEFAULTS", "PERMUTATIONS",
           "EXACT_FLIPS_UP_TO", "TIES", "BUILD_SECONDS_OK", "BUILD_BYTES_OK", "LETTERS_UP_TO"]


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
            raise ValueError(f"{self.name} must be one of {self.choices}, got {value!r}")


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
DEPTH_RULE = ("default: every document of the longest run (as trec_eval) for plain scores; "
              f"{RANKED_DEFAULT_DEPTH} wherever interval-scaled values are computed (--ranked, compare, report, "
              "correlate, ipso)")


def default_depth(ranked: bool, longest: int | None = None) -> int | None:
    """The run length when none is given (:data:`DEPTH_RULE`): :data:`RANKED_DEFAULT_DEPTH` for
    interval-scaled values, else the ``longest`` run's length (at least 1; None before the runs are read)."""
    if ranked:
        return RANKED_DEFAULT_DEPTH
    return None if longest is None else max(1, int(longest))


#: The tie strategies of the ranked measure φ: FFF21 eq. (2) (``unq``) and §7.1.3's min, max and mid rank
#: (their home is here, so the command line's help names them without loading the engine, issue 49;
#: :mod:`irscales.enumeration.ties` applies them).
TIES = ("unq", "min", "max", "mid")
#: The tie rule of the ranked measure φ when none is given: FFF21 eq. (2)'s rank among the distinct values.
DEFAULT_TIES = "unq"

#: A scale build estimated above either limit needs consent (``build=True``, CLI ``--build-scales``):
#: FFF21's N = 30 takes minutes and GBs. About N ≤ 23 builds within it for the binary FFF21 measures
#: (:mod:`irscales.enumeration.routes` applies them).
BUILD_SECONDS_OK = 10.0
BUILD_BYTES_OK = 100e6

#: The comparison table marks systems with letters up to this many, numbers beyond
#: (:mod:`irscales.comparison_render`).
LETTERS_UP_TO = 26

#: The relative error a route that brackets φ (beyond the exact routes: irscales.enumeration.bounded) is asked to
#: reach, hi ≤ (1 + e)·lo, when none is given (issue 42: 1 %); ``evaluate(max_rel_error=)``, CLI ``--max-rel-error``.
DEFAULT_MAX_REL_ERROR = 0.01
MAX_REL_ERROR_HELP = ("where no exact route reaches N (or it would take over 5 minutes), phi is bracketed by proven "
                      "lower and upper bounds refined until upper <= (1 + this) x lower; the interval value is the "
                      "bracket's lower midpoint, and the scale table reports exact = False and the achieved "
                      "max_rel_error")


# ------------------------------------------------------------------- significance tests (irscales.stats)

@dataclass(frozen=True)
class Procedure:
    """A procedure of :mod:`irscales.stats.significance`: its ``key``, its row ``label`` (FFF21 Tables 5–6),
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
    procedure that runs it (:data:`SIGNIFICANCE`, or ``randomisation``: :mod:`irscales.stats.randomisation`),
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
