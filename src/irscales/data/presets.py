"""Named collections: :func:`load_preset` for the simulated presets (``sim-*``,
:mod:`irscales.data.simulate`) and the public Grid of Points (``gop-*``, :mod:`irscales.data.gop`).

Every preset is a :class:`~irscales.data.collection.Collection`, deterministic in (name, depth,
seed). A simulated one says so in its provenance (``simulated: <name> seed=<s> depth=<N>``) and in
:attr:`~irscales.data.collection.Collection.data_label`; a public grid names itself (``gop-cranfield`` …).
"""

from __future__ import annotations

import os

from irscales.data import gop
from irscales.data import simulate
from irscales.data.collection import Collection

__all__ = ["load_preset", "PRESET_NAMES"]

SIM_PRESETS = tuple(simulate.PRESETS)  # sim-t08, sim-t26, sim-t27, sim-r04, sim-gop
GOP_PRESETS = ("gop-cranfield", "gop-cisi", "gop-cacm", "gop-combined")
PRESET_NAMES = SIM_PRESETS + GOP_PRESETS


def load_preset(name: str, depth: int = 100, seed: int = 0, qrels: str | os.PathLike | None = None) -> Collection:
    """The collection named ``name``, cut at ``depth``.

    ``sim-t08``, ``sim-t26``, ``sim-t27``, ``sim-r04``, ``sim-gop``: simulated (see
    :mod:`irscales.data.simulate` for the model), deterministic in (name, depth, seed).
    ``qrels`` (single-track presets, e.g. ``load_preset("sim-t26", qrels=paths.trec_qrels("T26"))``):
    topics, recall bases and grade counts from that real qrels file, runs still simulated; the
    provenance says so ("simulated: … recall bases and grades from the real qrels <file>").

    ``gop-cranfield``, ``gop-cisi``, ``gop-cacm`` (graded qrels for Cranfield) and ``gop-combined``
    (:func:`irscales.data.gop.load_combined`, its topic split seeded by ``seed``): the public Grid
    of Points, real runs on the shipped collections."""
    if name.startswith("gop-"):
        if qrels is not None:
            raise ValueError(f"qrels= is for the simulated presets; {name} is a public collection with its own qrels")
        if name not in GOP_PRESETS:
            raise KeyError(f"unknown preset {name!r}; choose one of {', '.join(GOP_PRESETS)}")
        if name == "gop-combined":
            return gop.load_combined(depth=depth, seed=seed)
        return gop.load(name[4:], depth=depth)
    if name not in simulate.PRESETS:
        raise KeyError(f"unknown preset {name!r}; choose one of {', '.join(simulate.PRESETS)} (simulated) "
                       f"or {', '.join(GOP_PRESETS)} (public grid: real runs on the shipped collections)")
    sim = simulate.simulate(name, depth=depth, seed=seed, qrels=qrels)
    real = f", recall bases and grades from the real qrels {sim.qrels_source}" if sim.qrels_source else ""
    return Collection(rel=sim.rel, judgments=sim.judgments, run_lengths=sim.run_lengths,
                      topics=tuple(sim.topics), systems=tuple(sim.systems),
                      provenance=f"simulated: {name} seed={seed} depth={depth}{real}", max_grade=sim.max_grade,
                      topic_labels={k: tuple(v) for k, v in sim.topic_labels.items()},
                      system_labels={k: tuple(v) for k, v in sim.system_labels.items()})
