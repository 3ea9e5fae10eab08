"""Progress of long work on stderr (issue 36): whether to show it, and the bar.

``progress=None`` everywhere means *auto*: a bar when stderr is a terminal, nothing otherwise, so logs,
redirected output and notebooks (papermill and Jupyter give stderr as a non-terminal stream) stay
deterministic. A bar redraws at most every :data:`MIN_INTERVAL` seconds, so updating it per block of
work costs microseconds.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Iterable, Iterator, TypeVar

if TYPE_CHECKING:
    from tqdm import tqdm

__all__ = ["shown", "bar", "iterate", "MIN_INTERVAL", "Quiet"]

MIN_INTERVAL = 0.5  # seconds between redraws
_T = TypeVar("_T")


def shown(progress: bool | None) -> bool:
    """Whether to show progress: as asked, or (None) when stderr is a terminal."""
    if progress is not None:
        return bool(progress)
    stream = sys.stderr
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class Quiet:
    """The bar when progress is not shown: it counts (``n`` of ``total``) and draws nothing."""

    def __init__(self, total: int):
        self.total, self.n = total, 0

    def update(self, n: int = 1) -> None:
        self.n += n

    def close(self) -> None:
        pass

    def __enter__(self) -> Quiet:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def bar(total: int, desc: str, progress: bool | None, *, unit: str = "it", delay: float = 0.0,
        unit_scale: bool = False) -> tqdm | Quiet:
    """A tqdm bar on stderr over ``total`` units of work, or a :class:`Quiet` one unless :func:`shown`; it leaves
    no line behind when closed. ``delay``: seconds before it first appears (short work shows nothing);
    ``unit_scale``: counts as 335M rather than 335544316."""
    if not shown(progress):
        return Quiet(total)
    from tqdm import tqdm  # imported when needed (40 ms); the plain bar: tqdm.auto warns in kernels without ipywidgets

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, mininterval=MIN_INTERVAL, delay=delay,
                unit_scale=unit_scale)


def iterate(items: Iterable[_T], total: int, desc: str, progress: bool | None) -> Iterator[_T]:
    """``items`` as they come, with a :func:`bar` of ``total`` steps moved once per item."""
    with bar(total, desc, progress) as b:
        for x in items:
            yield x
            b.update()
