"""irscales — measurement theory of IR evaluation measures.

Rooms (one concern per module):

- :mod:`irscales.measures`     evaluation measures as declared, vectorised objects
- :mod:`irscales.io`           TREC run and qrels files → relevance arrays
- :mod:`irscales.paths`        where shared data, caches and figures live (settings)
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("irscales")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+src"

__all__ = ["__version__"]
