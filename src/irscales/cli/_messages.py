"""Messages of the ``irscales`` command line: an expected error as one line, in the command line's words
(flags, not the library's keyword arguments)."""

from __future__ import annotations

import re
from pathlib import Path

import click

from irscales._clipping import clip
from irscales.options import READING
from irscales.paths import cache_root

__all__ = ["one_line", "flat", "as_flags", "under_cache"]


def one_line(e: BaseException) -> str:
    """The message of an expected error, on one line."""
    if isinstance(e, KeyError) and e.args:
        msg = str(e.args[0])
    elif isinstance(e, click.ClickException):
        msg = e.format_message()
    elif isinstance(e, OSError) and e.filename is not None:
        msg = f"{e.filename}: {e.strerror or e}"
        if under_cache(e.filename):
            msg += (" (the scale cache: set IRSCALES_CACHE to a writable folder, or pass --no-cache)")
    else:
        msg = str(e) or type(e).__name__
    return flat(msg)


def flat(msg: str) -> str:
    """A message (an error's, a warning's) as one line in the command line's words, long words clipped
    (:func:`irscales._clipping.clip`: the line stays readable, and short for the patterns below)."""
    return as_flags(" ".join(clip(w) for w in msg.split()))


# library keywords (Collection.from_trec, scale) that the command line spells as flags
_FLAG_OF = {**{o.name: o.flag for o in READING}, "ties": "--ties"}
_KEYWORD = re.compile(r"\b(" + "|".join(_FLAG_OF) + r")='([\w-]+)'((?: or '[\w-]+')*)")
# read_qrels(..., negative='zero'): anchored at a word's start (\b), so a long word is scanned once, not
# from each of its characters (a 64 kB docno took 16 s)
_CALL = re.compile(r"\b\w+\(\.\.\., (\w+='[\w-]+')\)")


def as_flags(msg: str) -> str:
    """A library message as the command line says it: ``on_missing_topic='skip'`` → ``--on-missing-topic
    skip``; ``on_no_relevant='skip' or 'keep'`` → ``--on-no-relevant skip or --on-no-relevant keep``."""
    def flag(m: re.Match) -> str:
        name = _FLAG_OF[m.group(1)]
        alts = re.findall(r"'([\w-]+)'", m.group(3) or "")
        return " or ".join(f"{name} {v}" for v in [m.group(2), *alts])
    msg = _KEYWORD.sub(flag, _CALL.sub(r"\1", msg))
    for pattern, repl in _PHRASES:
        msg = pattern.sub(repl, msg)
    return msg


# the library's words for what the command line spells as flags
_PHRASES = [(re.compile(r"\bbuild=True\b"), "--build-scales"),
            (re.compile(r"\buse depth (\d+)"), r"pass --depth \1"),
            (re.compile(r"\bcut at depth (\d+)"), r"cut at --depth \1"),
            (re.compile(r"\bmax_rel_error=(\d+(?:\.\d+)?(?:e[+-]?\d+)?)"), r"--max-rel-error \1"),
            (re.compile(r"\(evaluate\(\.\.\., ranked=True\)\)"), "(--ranked)")]


def under_cache(path) -> bool:
    try:
        Path(path).resolve().relative_to(cache_root().resolve())
        return True
    except (ValueError, OSError):
        return False
