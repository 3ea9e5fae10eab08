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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Option", "READING", "READING_OPTIONS", "READING_DEFAULTS", "reading_given", "check_reading",
           "COMPARISON_TESTS", "CORRECTIONS", "ROW_ORDERS", "PERMUTATIONS", "EXACT_FLIPS_UP_TO"]


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



# ----------------------------------------------------------------- the comparison table (irscales.comparison)

#: The paired tests by the name the command line and ``Evaluation.compare`` take → the key of
#: :data:`irscales.stats.significance.TESTS` that runs it (``randomisation``: :mod:`irscales.stats.randomisation`).
COMPARISON_TESTS = {"t": "ttest", "wilcoxon": "signrank", "sign": "sign", "randomisation": "randomisation",
                    "tukey": "anova2"}
#: Multiple-comparison corrections of the per-pair tests (``tukey`` needs none).
CORRECTIONS = ("holm", "bonferroni", "none")
#: Row orders: ``given``; ``mean``: decreasing mean of the first measure on its original scale; ``auto``:
#: ``given`` up to the systems letters can mark, ``mean`` beyond.
ROW_ORDERS = ("auto", "given", "mean")
#: The randomisation test enumerates all 2^T sign patterns up to this many topics T, and samples this many beyond.
EXACT_FLIPS_UP_TO = 20
PERMUTATIONS = 10_000
