"""Reader of MATTERS measure files: MATLAB v7.3 ``.mat`` → a labelled score matrix (issue 29).

MATTERS (*MATlab Toolkit for Evaluation of information Retrieval Systems*, the toolkit of Fer17 §3,
footnote 6) saves its measure tables with ``sersave``: the table is serialised into one ``uint8``
vector by the ``hlp_serialize`` encoding (Tim Hutt's ``serialize.m`` as extended by C. Kothe, with
tags for MATLAB ``table``, ``categorical`` and ``ordinal`` added by N. Ferro and G. Silvello), and
that vector is written as the only variable of a MATLAB v7.3 file, which is HDF5. The published Grid
of Points of the authors' group (``gridofpoints/trec-jasist2017``, ``trec-sigir2016``,
``clef-CLEF2016``) is stored this way. h5py reads the HDF5 container; the decoder is ours.

The stream's format and its decoder are in :mod:`irscales.data._matters_decode` (every tag it
handles, and its errors); the names below are re-exported here.

A *measure file* holds one table: rows are topics (``RowNames``), columns are systems
(``VariableNames``), one score per cell, and ``Properties.UserData`` describes the measure
(``identifier``, ``pool``, ``name``, ``shortName``, ``cutOffs``). :func:`read_measure` returns it
as a :class:`MattersMeasure`: a ``topics × systems`` DataFrame plus that metadata and the system
names split into their components (:func:`system_components`).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from irscales.data._input_bytes import kind_of
from irscales.data._matters_decode import (MAX_REPEATED, NUMERIC_CLASSES, Categorical, MatlabObject, MatlabTable,
                                           MattersFormatError, decode)

__all__ = ["MattersFormatError", "read_mat", "read_measure", "read_measures"]


def read_stream(path: str | Path) -> tuple[str, bytes]:
    """The serialised stream of a MATTERS ``.mat`` (v7.3) file: (variable name, bytes). The file
    must hold exactly one variable, a ``uint8`` vector."""
    path = Path(path)
    try:
        import h5py
    except ImportError as e:  # pragma: no cover - h5py is a dependency
        raise ImportError("reading MATLAB v7.3 files needs h5py: pip install h5py") from e
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):  # HDF5 seeks: a FIFO would block forever, a device never ends
            raise MattersFormatError(f"{path}: is {kind_of(mode)}, not a file: expected a MATTERS .mat (HDF5) "
                                     "file")
        with h5py.File(path, "r") as f:
            names = [k for k in f.keys() if not k.startswith("#")]
            if len(names) != 1:
                raise MattersFormatError(f"{path}: expected one variable (a MATTERS uint8 stream), found "
                                         f"{len(names)}: {', '.join(names[:5]) or 'none'}")
            ds = f[names[0]]
            cls = ds.attrs.get("MATLAB_class", b"")
            cls = cls.decode() if isinstance(cls, bytes) else str(cls)
            if not isinstance(ds, h5py.Dataset) or ds.dtype != np.uint8 or cls != "uint8":
                raise MattersFormatError(f"{path}: variable {names[0]!r} is {cls or 'not a MATLAB variable'} "
                                         f"({getattr(ds, 'dtype', 'a group')}); expected a uint8 vector (MATTERS sersave)")
            if ds.ndim != 2 or 1 not in ds.shape:
                raise MattersFormatError(f"{path}: variable {names[0]!r} has shape {ds.shape}; expected a uint8 vector")
            _check_size(path, names[0], ds)
            return names[0], ds[()].tobytes()
    except MattersFormatError:
        raise
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such MATTERS file") from None
    except (OSError, KeyError, ValueError) as e:
        msg = " ".join(str(e).split())
        raise MattersFormatError(f"{path}: not a readable MATLAB v7.3 (HDF5) file: {msg}") from None


#: The largest stream read from a ``.mat`` file (a measure table of 50 topics x 612 systems is 250 KB).
MAX_STREAM_BYTES = 2**30
#: Bytes of a variable per byte the file stores for it beyond which it is refused: deflate, MATLAB's
#: compression, expands at most 1032 times; more is a variable never written (HDF5 reads it as zeros).
MAX_STORED_RATIO = 1100


def _check_size(path: Path, name: str, ds) -> None:
    """Refuse a variable larger than :data:`MAX_STREAM_BYTES`, or than the file can hold, before reading it
    (a 20 KB file once declared an unwritten 1.5 GB variable)."""
    n, stored = int(ds.size) * ds.dtype.itemsize, int(ds.id.get_storage_size())
    if n > MAX_STREAM_BYTES:
        raise MattersFormatError(f"{path}: variable {name!r} holds {n:,} bytes: more than the {MAX_STREAM_BYTES:,} "
                                 "read from a MATTERS file (irscales.data.matters.MAX_STREAM_BYTES)")
    if n > 65536 and n > MAX_STORED_RATIO * stored:
        raise MattersFormatError(f"{path}: variable {name!r} declares {n:,} bytes but the file stores {stored:,} "
                                 "for it: never written, or corrupt")


def read_mat(path: str | Path) -> Any:
    """The decoded value of a MATTERS ``.mat`` file (:func:`read_stream` + :func:`decode`)."""
    name, data = read_stream(path)
    return decode(data, source=f"{path} (variable {name})")


#: The components of a Grid of Points system name ``<stop>_<lug>_<model>_<ltr>_<query>``
#: (``gridofpoints/trec-jasist2017``: e.g. ``indri_porter_bm25_noltr_short``).
COMPONENTS = ("stop", "lug", "model", "ltr", "query")


def system_components(names: Iterable[str], components: tuple[str, ...] = COMPONENTS) -> pd.DataFrame:
    """Split Grid of Points system names into their components: one row per name, one column per
    component (``stop``, ``lug``, ``model``, ``ltr``, ``query``). A name with a different number of
    ``_``-separated parts is an error naming it."""
    rows = []
    for n in names:
        parts = str(n).split("_")
        if len(parts) != len(components):
            raise MattersFormatError(f"system name {n!r}: expected {len(components)} parts "
                                     f"{'_'.join('<' + c + '>' for c in components)}")
        rows.append(parts)
    return pd.DataFrame(rows, columns=list(components), index=pd.Index(list(names), name="system"))


@dataclass(frozen=True)
class MattersMeasure:
    """One MATTERS measure table: ``scores`` (topics × systems, float), the measure's metadata
    (``Properties.UserData``: ``identifier``, ``pool``, ``name``, ``shortName``, ``cutOffs`` …) and
    where it came from."""

    scores: pd.DataFrame
    metadata: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""

    @property
    def name(self) -> str:
        """MATTERS' name of the measure, e.g. ``averagePrecision``."""
        return str(self.metadata.get("name", ""))

    @property
    def short_name(self) -> str:
        return str(self.metadata.get("shortName", ""))

    @property
    def pool(self) -> str:
        """The identifier of the pool (qrels) the runs were assessed against, e.g. ``pool_T08``."""
        return str(self.metadata.get("pool", ""))

    @property
    def topics(self) -> list[str]:
        return list(self.scores.index)

    @property
    def systems(self) -> list[str]:
        return list(self.scores.columns)

    def components(self) -> pd.DataFrame:
        """The system names split into their components (:func:`system_components`)."""
        return system_components(self.systems)


def _table_matrix(t: MatlabTable, source: str) -> np.ndarray:
    out = np.empty((t.n_rows, len(t.columns)))
    for k, c in enumerate(t.columns):
        a = np.asarray(c)
        if a.dtype == object or a.dtype.kind not in "fiub" or a.size != t.n_rows:
            raise MattersFormatError(f"{source}: column {k + 1} of the table is not one number per row "
                                     f"({a.dtype}, shape {a.shape}); expected a measure table")
        out[:, k] = a.ravel(order="F")
    return out


def read_measure(path: str | Path) -> MattersMeasure:
    """Read a MATTERS measure file (``.mat`` v7.3 holding one ``sersave``'d table) as a
    :class:`MattersMeasure`: scores ``topics × systems`` labelled by ``RowNames`` and ``VariableNames``."""
    path = Path(path)
    name, data = read_stream(path)
    source = f"{path} (variable {name})"
    t = decode(data, source=source)
    if not isinstance(t, MatlabTable):
        raise MattersFormatError(f"{source}: expected a MATLAB table (tag 210), found {type(t).__name__}")
    rows, cols = t.row_names, t.variable_names
    if len(rows) != t.n_rows or len(cols) != len(t.columns):
        raise MattersFormatError(f"{source}: the table has {t.n_rows} rows x {len(t.columns)} columns but "
                                 f"{len(rows)} row names and {len(cols)} variable names")
    meta = t.user_data if isinstance(t.user_data, dict) else {}
    meta = {k: (v.item() if isinstance(v, np.ndarray) and v.size == 1 and v.dtype != object else v)
            for k, v in meta.items()}
    scores = pd.DataFrame(_table_matrix(t, source), index=pd.Index(rows, name="topic"),
                          columns=pd.Index(cols, name="system"))
    return MattersMeasure(scores, meta, str(path))


_FILE = re.compile(r"^(?P<measure>[A-Za-z0-9]+)_(?P<track>[A-Za-z0-9]+)\.mat$")


def read_measures(folder: str | Path, measures: Iterable[str] | None = None) -> dict[str, MattersMeasure]:
    """The measure files ``<measure>_<track>.mat`` of one folder (e.g. ``trec-jasist2017/T08``), by
    file prefix (``ap``, ``p10``, ``ndcg20`` …), in sorted order; ``measures``: only these prefixes
    (a missing one is an error naming the folder)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder of MATTERS measure files")
    files = sorted(folder.iterdir())
    found = {m.group("measure"): p for p in files if (m := _FILE.match(p.name))}
    if not found:  # a folder of AP_T08.MAT or ap-T08.mat files read as no measures at all
        names = [p.name for p in files]
        raise FileNotFoundError(f"{folder}: no MATTERS measure file named <measure>_<track>.mat (letters and digits, "
                                f"lower-case .mat, e.g. ap_T08.mat); found {len(names)} other file(s)"
                                + (f": {', '.join(names[:8])}{' …' if len(names) > 8 else ''}" if names else ""))
    want = list(found) if measures is None else list(measures)
    missing = [m for m in want if m not in found]
    if missing:
        raise FileNotFoundError(f"{folder}: no file for measure(s) {', '.join(missing)} "
                                f"(found: {', '.join(found) or 'none'})")
    return {m: read_measure(found[m]) for m in want}
