"""irscales — measurement theory of IR evaluation measures.

The names a user needs, from the package root (``from irscales import AP, scale, Collection``):

=====================  ==========================================================================
one call               ``evaluate`` (runs and qrels — files, frames or dicts — to labelled scores, with
                       their interval-scaled values; ``Evaluation.means``, ``.compare``, ``.correlations``),
                       ``comparison_table`` (the table of many runs, original and interval scale)
ecosystem              ``interval_measure`` (``AP@10[interval]``: an ir_measures measure, for ir_measures and
                       PyTerrier); ``evaluate`` also reads ranx, ir_datasets and ir_measures objects
measures               ``Measure`` and every registered measure class (``AP``, ``NDCG``, ``RBP`` …: the names
                       of :data:`irscales.measures.REGISTRY`, :func:`irscales.measures.measure_names`),
                       ``parse`` / ``parse_list`` (paper names such as ``RBP_p08``, ``nDCG_b02``),
                       ``CLASSIC_MEASURES`` (the 11 measures of FFF21 §6)
interval scales        ``scale`` (the scale of a measure over REL^N, cached) and ``phi_runs`` (the
                       ranked, interval-scaled values φ of runs, counted where a measure allows)
data                   ``Collection`` (runs × topics × ranks with qrels), ``load_preset``,
                       ``read_run`` / ``read_qrels``
correlation            ``kendall_tau``, ``tau_ap``
significance           ``significance_tests`` and the procedures ``sign_test``, ``rank_sum_test``,
                       ``signed_rank_test``, ``paired_t_test``, ``anova1_tukey``, ``anova2_tukey``,
                       ``kruskal_wallis_tukey``, ``friedman_tukey``
IPSO                   ``compare`` (MM23 Algorithm 1), ``Relation``, ``corroborate``
=====================  ==========================================================================

Score matrices are ``(T topics, S systems)`` everywhere; relevance arrays ``[system, topic, rank]``;
functions of runs (a measure, ``phi_runs``) keep the runs' leading axes. N is a run length, ``depth``
the run length a collection is cut at, ``k`` a measure's own cut-off (``P@10``).
The names are loaded on first use (PEP 562), so ``import irscales`` and the command line stay quick; the measure
classes are the registry's, read (and numpy with them) when one of them or ``__all__`` is first asked for.

Rooms — the core knows no paper:

- :mod:`irscales.measures`      measures as declared, vectorised objects (exact where rational)
- :mod:`irscales.exact`         the one reading of numbers as rationals; common denominators
- :mod:`irscales.ranks`         ties → integers: dense ranks, φ of an image, average ranks
- :mod:`irscales.enumeration`   scales over all runs REL^N, φ by enumeration or by counting (FFF21 §5, §8)
- :mod:`irscales.theory`        orders on runs, scale checkers, set-based runs, Hasse diagrams,
  meaningful statements (FFP17, FFP19, FFF21 §2–3)
- :mod:`irscales.evaluation`    the one call, ``evaluate``: runs and qrels → labelled scores, original and interval-scaled
- :mod:`irscales.ir_measures_provider`  interval-scaled measures inside ir_measures and PyTerrier
- :mod:`irscales.interval`      the interval-scaled version of a measure on runs: scale, route, K, normalisation
- :mod:`irscales.comparison`    the comparison table of many runs (corrected tests, letters, † / ‡, ≠)
- :mod:`irscales.correlation`   Kendall τ and τ_AP
- :mod:`irscales.stats`         significance procedures, ANOVA / Tukey
- :mod:`irscales.ipso`          innate pairwise SERP orderings (MM23 core)
- :mod:`irscales.data`          TREC files, the Collection, presets, simulated and public collections
- :mod:`irscales.figures`       the companion's figure style and file writing
- :mod:`irscales.paths`         settings: shared folder, cache, figures
- :mod:`irscales.cli`           the ``irscales`` command line

and the paper layer, :mod:`irscales.papers`: one module or package per paper (``fff21``, ``ffp19``,
``ffp17``, ``fer17``, ``mm23``), the published values (``published``) and the report.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import sys

_MEASURES = "irscales.measures"
_HERE = os.path.dirname(__file__)
# public name -> module that defines it (loaded on first access); the measure classes are the registry's (_registry)
_HOME = {
    **{n: _MEASURES for n in ("Measure", "parse", "parse_list", "CLASSIC_MEASURES")},
    "scale": "irscales.enumeration", "Scale": "irscales.enumeration", "phi_runs": "irscales.enumeration",
    **{n: "irscales.data" for n in ("Collection", "load_preset", "read_run", "read_qrels")},
    "kendall_tau": "irscales.correlation", "tau_ap": "irscales.correlation",
    **{n: "irscales.stats" for n in (
        "significance_tests", "sign_test", "rank_sum_test", "signed_rank_test", "paired_t_test", "anova1_tukey",
        "anova2_tukey", "kruskal_wallis_tukey", "friedman_tukey")},
    "compare": "irscales.ipso", "Relation": "irscales.ipso", "corroborate": "irscales.ipso",
    "evaluate": "irscales.evaluation", "Evaluation": "irscales.evaluation",
    "comparison_table": "irscales.comparison", "ComparisonTable": "irscales.comparison",
    "interval_measure": "irscales.ir_measures_provider",
}

# with the registered measure classes: made on first use (__getattr__), as the measures load numpy (0.1 s)
__all__: list[str]


def _register_provider() -> None:
    """Register irscales' ir_measures provider (``ir_measures.providers.registry["irscales"]``); a failure is a
    warning, never a broken ``import ir_measures``."""
    try:
        importlib.import_module("irscales.ir_measures_provider")
    except Exception as e:  # pragma: no cover - an environment where the provider cannot load
        import warnings
        warnings.warn(f"irscales could not register its ir_measures provider: {e}", stacklevel=2)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs ``then`` once the module ``name`` has been imported (a post-import hook, PEP 451): the provider
    registers when ir_measures is imported after irscales, without irscales importing ir_measures (0.2 s)."""

    def __init__(self, name: str, then):
        self.name, self.then = name, then

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # once; the other finders locate the module
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        load, then = spec.loader.exec_module, self.then

        def exec_module(module):
            load(module)
            then()

        spec.loader.exec_module = exec_module
        return spec


if "ir_measures" in sys.modules:
    _register_provider()
elif not any(isinstance(f, _AfterImport) for f in sys.meta_path):
    sys.meta_path.insert(0, _AfterImport("ir_measures", _register_provider))


def __getattr__(name: str):
    if name == "__version__":  # importlib.metadata scans the installed distributions: only when asked (issue 49)
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("irscales")
        except PackageNotFoundError:  # running from a source tree without installation
            value = "0.0.0+src"
        globals()[name] = value
        return value
    if name == "__all__":
        value = ["__version__", "Measure", *_registry(), *(n for n in _HOME if n != "Measure")]
    elif name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
    elif name.startswith("_") or any(os.path.exists(os.path.join(_HERE, n)) for n in (name, f"{name}.py")):
        # a sub-module not imported yet (`from irscales import paths` asks here first): no registry needed
        raise AttributeError(f"module 'irscales' has no attribute {name!r}")
    elif name in _registry():
        value = _registry()[name]
    else:
        raise AttributeError(f"module 'irscales' has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def _registry() -> dict:
    """The registered measure classes by name (:data:`irscales.measures.REGISTRY`), the measures loaded."""
    return importlib.import_module(_MEASURES).REGISTRY


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__getattr__("__all__")))
