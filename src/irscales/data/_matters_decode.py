"""The decoder of MATTERS' serialisation (``hlp_serialize`` as extended for MATLAB tables by the
MATTERS authors): a byte stream → Python and numpy values. Files are read by
:mod:`irscales.data.matters`.

The stream (all integers little-endian; ``dims`` in MATLAB's column-major order):

=========  ===================================================================================
tag        value
=========  ===================================================================================
0          char row: u32 length, bytes (read as Latin-1, MATLAB's ``char(uint8)``)
200        the empty char ``''``
1–10       a scalar of class double, single, int8, uint8, int16, uint16, int32, uint32, int64,
           uint64 (tag order), its bytes
17–26      a numeric array of the class ``tag − 16``: u8 ndims, u32 dims, the elements
130        sparse: u64 rows, u64 columns, row and column indices (1-based, numeric arrays), u8
           real flag, then the values (one numeric array, or real and imaginary parts)
131        complex: real and imaginary parts (numeric arrays)
132        char array: u8 ndims, u32 dims, one byte per character
133        logical array: u8 ndims, u32 dims, one byte per element
128        struct: u32 number of fields, u32 length of each name, the names, u32 ndims, u32
           dims, u8 layout; layout ≠ 0: one cell of shape (fields, dims…) (``struct2cell``),
           layout 0: one cell per field holding that field of every element
33–39      cell: 33 any values (u8 ndims, u32 dims, the elements); 34 the elements of one
           array; 35 the same with a logical array of the elements that are real; 36 strings
           (all characters as one string, their lengths as a numeric array, a logical array of
           the empty ones); 37 an empty-valued cell (u8 type tag 1, 33 or 128, u8 ndims, u32
           dims); 38 the same with a prototype value; 39 the elements of a logical array
134        object: class name (tag 0 string) and its contents (any value)
201        categorical: a cell of its labels (tag 33–39)
202        categorical matrix: u64 columns, then per column a u64 length and that many bytes
           holding one cell of labels
203        ordinal: u64 length of the levels cell, the levels, then a categorical (201/202)
210        table: u64 length of the properties, the properties (a struct: ``RowNames``,
           ``VariableNames``, ``UserData`` …), u64 rows, u64 columns; an empty table ends there;
           otherwise a u64 length of all columns, then per column a u8 kind, a u64 length and the
           column: kind 212 one value, kind 211 one value per row, each behind its u64 length
=========  ===================================================================================

Function handles (tags 151–153) are not data and are refused. Decoded values are Python and numpy
objects: strings → ``str``; numeric, logical and char arrays → ``numpy.ndarray`` in MATLAB's shape
(scalars → numpy scalars); cells → object arrays; a 1 × 1 struct → ``dict``, a struct array → an
object array of dicts; tables → :class:`MatlabTable`; objects → :class:`MatlabObject`; categoricals
→ :class:`Categorical`. A malformed or truncated stream raises :class:`MattersFormatError` with one
line naming the file, the byte offset and what was expected.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

__all__ = ["MattersFormatError", "MatlabTable", "MatlabObject", "Categorical", "decode", "NUMERIC_CLASSES",
           "MAX_REPEATED", "MAX_ELEMENTS"]


class MattersFormatError(ValueError):
    """A file or byte stream that is not a MATTERS (``hlp_serialize``) serialisation as expected."""


#: Cells of repeated empty values (tags 37, 38) carry only their dimensions, not their elements, so
#: their size is not bounded by the stream; more elements than this is taken as a corrupt header.
MAX_REPEATED = 10_000_000
#: MATLAB's largest array (2^48 - 1 elements): dimensions beyond it are a corrupt header.
MAX_ELEMENTS = 2**48 - 1


#: Numeric classes by tag (1–10 scalars, 17–26 arrays): (MATLAB class, numpy dtype).
NUMERIC_CLASSES = {1: ("double", "<f8"), 2: ("single", "<f4"), 3: ("int8", "i1"), 4: ("uint8", "u1"),
                   5: ("int16", "<i2"), 6: ("uint16", "<u2"), 7: ("int32", "<i4"), 8: ("uint32", "<u4"),
                   9: ("int64", "<i8"), 10: ("uint64", "<u8")}


@dataclass(frozen=True)
class MatlabTable:
    """A decoded MATLAB ``table``: its ``Properties`` (a dict) and one decoded value per column."""

    properties: Mapping[str, Any]
    columns: list
    n_rows: int

    @property
    def row_names(self) -> list[str]:
        return _strings(self.properties.get("RowNames"))

    @property
    def variable_names(self) -> list[str]:
        return _strings(self.properties.get("VariableNames"))

    @property
    def user_data(self) -> Any:
        return self.properties.get("UserData")


@dataclass(frozen=True)
class MatlabObject:
    """A decoded MATLAB object (tag 134): its class name and the contents it was saved with."""

    class_name: str
    contents: Any


@dataclass(frozen=True)
class Categorical:
    """A decoded ``categorical`` (tags 201, 202) or ``ordinal`` (203): the label of each element
    (object array in MATLAB's shape) and, for an ordinal, its levels in order."""

    labels: np.ndarray
    levels: tuple[str, ...] | None = None
    ordinal: bool = False


def _strings(v) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    return [str(x) for x in np.asarray(v, dtype=object).ravel(order="F")]


class _Stream:
    """A cursor over the bytes of one serialised value; every read is bounds-checked."""

    __slots__ = ("buf", "pos", "source", "base")

    def __init__(self, buf: bytes | memoryview, source: str, base: int = 0):
        self.buf = memoryview(buf)
        self.pos = 0
        self.source = source
        self.base = base  # offset of buf in the file's stream, for messages

    def fail(self, what: str, at: int | None = None) -> MattersFormatError:
        return MattersFormatError(f"{self.source}: byte {self.base + (self.pos if at is None else at)}: {what}")

    def take(self, n: int, what: str) -> memoryview:
        if n < 0 or self.pos + n > len(self.buf):
            raise self.fail(f"truncated: expected {n} bytes of {what}, {len(self.buf) - self.pos} left")
        out = self.buf[self.pos:self.pos + n]
        self.pos += n
        return out

    def u8(self, what: str) -> int:
        return self.take(1, what)[0]

    def u32(self, what: str) -> int:
        return struct.unpack("<I", self.take(4, what))[0]

    def u64(self, what: str) -> int:
        return struct.unpack("<Q", self.take(8, what))[0]

    def dims(self, ndims: int, what: str) -> tuple[int, ...]:
        at = self.pos
        shape = tuple(np.frombuffer(self.take(4 * ndims, f"the dimensions of {what}"), "<u4").tolist())
        if _prod(s for s in shape if s) > MAX_ELEMENTS:  # numpy could not even describe an empty one
            raise self.fail(f"{what} of dimensions {shape}: more than MATLAB's largest array (2^48 - 1 elements)", at)
        return shape

    def check_count(self, n: int, per: int, what: str, at: int) -> None:
        """Refuse ``n`` items of at least ``per`` bytes each when fewer bytes are left: a corrupt header
        is caught before anything is built for it (a 22-byte stream once asked for 4.3e9 dicts)."""
        left = len(self.buf) - self.pos
        if n * per > left:
            raise self.fail(f"{what}: {n:,} elements of at least {per} byte(s) each, {left:,} bytes left", at)

    def sub(self, n: int, what: str) -> "_Stream":
        start = self.pos
        return _Stream(self.take(n, what), self.source, self.base + start)

    # ------------------------------------------------------------------ values
    def value(self) -> Any:
        at = self.pos
        tag = self.u8("a type tag")
        if tag == 0 or tag == 200:
            return self._string_body(tag)
        if 1 <= tag <= 10:
            _, dt = NUMERIC_CLASSES[tag]
            size = np.dtype(dt).itemsize
            return np.frombuffer(self.take(size, f"a {NUMERIC_CLASSES[tag][0]} scalar"), dt)[0]
        if 17 <= tag <= 26:
            return self._numeric_body(tag)
        if 33 <= tag <= 39:
            return self._cell_body(tag)
        if tag == 128:
            return self._struct_body()
        if tag == 130:
            return self._sparse_body()
        if tag == 131:
            re_, im = self._numeric(), self._numeric()
            if re_.shape != im.shape:
                raise self.fail(f"complex array: real part {re_.shape} and imaginary part {im.shape} differ")
            return re_ + 1j * im
        if tag == 132:
            nd = self.u8("the number of dimensions of a char array")
            shape = self.dims(nd, "a char array")
            data = bytes(self.take(_prod(shape), "a char array"))
            arr = np.array(list(data.decode("latin-1")), dtype="<U1").reshape(shape, order="F") if data else \
                np.empty(shape, dtype="<U1")
            return "".join(arr.ravel()) if len(shape) == 2 and shape[0] == 1 else arr
        if tag == 133:
            return self._logical_body()
        if tag == 134:
            name = self.string("the class name of an object")
            return MatlabObject(name, self.value())
        if tag in (201, 202):
            return self._categorical_body(tag)
        if tag == 203:
            n = self.u64("the length of an ordinal's levels")
            levels = self.sub(n, "an ordinal's levels").whole("an ordinal's levels")
            cat = self.value()
            if not isinstance(cat, Categorical):
                raise self.fail("ordinal: expected a categorical (tag 201 or 202) after the levels")
            return Categorical(cat.labels, tuple(_strings(levels)), ordinal=True)
        if tag == 210:
            return self._table_body()
        if tag in (151, 152, 153):
            raise self.fail(f"tag {tag} is a function handle, which is code, not data: not supported", at)
        raise self.fail(f"unknown type tag {tag} (expected a hlp_serialize / MATTERS tag: 0-10, 17-26, 33-39, "
                        "128, 130-134, 200-203, 210)", at)

    def whole(self, what: str) -> Any:
        """The one value this stream holds; bytes left over are an error."""
        v = self.value()
        if self.pos != len(self.buf):
            raise self.fail(f"{len(self.buf) - self.pos} unexpected bytes after {what}")
        return v

    def string(self, what: str) -> str:
        tag = self.u8(what)
        if tag not in (0, 200):
            raise self.fail(f"expected a string (tag 0 or 200) for {what}, found tag {tag}", self.pos - 1)
        return self._string_body(tag)

    def _string_body(self, tag: int) -> str:
        if tag == 200:
            return ""
        n = self.u32("a string length")
        return bytes(self.take(n, "a string")).decode("latin-1")

    def _numeric(self) -> np.ndarray:
        tag = self.u8("a numeric array tag")
        if not 17 <= tag <= 26:
            raise self.fail(f"expected a numeric array (tag 17-26), found tag {tag}", self.pos - 1)
        return self._numeric_body(tag)

    def _numeric_body(self, tag: int) -> np.ndarray:
        cls, dt = NUMERIC_CLASSES[tag - 16]
        nd = self.u8(f"the number of dimensions of a {cls} array")
        shape = self.dims(nd, f"a {cls} array")
        n = _prod(shape)
        data = self.take(n * np.dtype(dt).itemsize, f"a {cls} array of {n} elements")
        return np.frombuffer(data, dt).reshape(shape, order="F")

    def _logical_body(self) -> np.ndarray:
        nd = self.u8("the number of dimensions of a logical array")
        shape = self.dims(nd, "a logical array")
        data = self.take(_prod(shape), "a logical array")
        return (np.frombuffer(data, "u1") != 0).reshape(shape, order="F")

    def _logical(self) -> np.ndarray:
        tag = self.u8("a logical array tag")
        if tag != 133:
            raise self.fail(f"expected a logical array (tag 133), found tag {tag}", self.pos - 1)
        return self._logical_body()

    def _sparse_body(self):
        import scipy.sparse as sp

        at = self.pos
        m, n = self.u64("the rows of a sparse matrix"), self.u64("the columns of a sparse matrix")
        # scipy keeps a pointer per column, and its indices are int64: more is a corrupt header
        if n > MAX_REPEATED or m >= 2**63:
            raise self.fail(f"a sparse matrix of {m:,} x {n:,}: more than {MAX_REPEATED:,} columns or 2^63 rows is "
                            "taken as a corrupt header", at)
        i, j = self._numeric().ravel(order="F"), self._numeric().ravel(order="F")
        real = self.u8("the real flag of a sparse matrix")
        s = self._numeric().ravel(order="F")
        if not real:
            s = s + 1j * self._numeric().ravel(order="F")
        if not (len(i) == len(j) == len(s)):
            raise self.fail(f"sparse matrix: {len(i)} row indices, {len(j)} column indices, {len(s)} values")
        for k in (i, j):  # MATLAB's indices are whole numbers: 1.5 or NaN is an error, not truncated
            if k.dtype.kind not in "fiu":
                raise self.fail(f"sparse matrix: indices of type {k.dtype}, expected whole numbers")
            if k.dtype.kind == "f":
                with np.errstate(invalid="ignore"):
                    whole = np.isfinite(k) & (np.mod(k, 1) == 0)
                if not whole.all():
                    raise self.fail(f"sparse matrix: index {float(k[~whole][0])!r} is not a whole number")
        if len(i) and (i.min() < 1 or j.min() < 1 or i.max() > m or j.max() > n):
            raise self.fail(f"sparse matrix: an index lies outside 1..{m} x 1..{n}")
        return sp.csc_matrix((s, (i.astype(np.int64) - 1, j.astype(np.int64) - 1)), shape=(m, n))

    def _cell(self) -> np.ndarray:
        tag = self.u8("a cell tag")
        if not 33 <= tag <= 39:
            raise self.fail(f"expected a cell (tag 33-39), found tag {tag}", self.pos - 1)
        return self._cell_body(tag)

    def _cell_body(self, tag: int) -> np.ndarray:
        if tag == 33:
            at = self.pos
            nd = self.u8("the number of dimensions of a cell")
            shape = self.dims(nd, "a cell")
            self.check_count(_prod(shape), 1, "a cell", at)  # each element has a tag byte at least
            items = [self.value() for _ in range(_prod(shape))]
            return _object_array(items, shape)
        if tag in (34, 35, 39):
            content = self._logical() if tag == 39 else self.value()
            arr = np.asarray(content)
            if tag == 35:
                reality = self.value()
                real = np.asarray(reality, dtype=bool).ravel(order="F")
                flat = arr.ravel(order="F").astype(object)
                if real.size != flat.size:
                    raise self.fail(f"mixed-real cell: {real.size} flags for {flat.size} elements")
                flat[real] = [np.real(x) for x in flat[real]]
                return _object_array(list(flat), arr.shape)
            return _object_array(list(arr.ravel(order="F")), arr.shape)
        if tag == 36:
            chars = self.string("the characters of a cell of strings")
            lengths = self._numeric()
            empty = self._logical()
            if empty.size != lengths.size:
                raise self.fail(f"cell of strings: {empty.size} empty flags for {lengths.size} strings")
            ends = np.cumsum(lengths.ravel(order="F").astype(np.int64))
            if ends.size and ends[-1] != len(chars):
                raise self.fail(f"cell of strings: lengths add up to {int(ends[-1])}, characters are {len(chars)}")
            starts = np.concatenate([[0], ends[:-1]])
            items = [chars[a:b] for a, b in zip(starts.tolist(), ends.tolist())]
            return _object_array(items, lengths.shape)
        if tag == 37:
            kind = self.u8("the type of an empty-valued cell")
            protos = {1: lambda: np.zeros((0, 0)), 33: lambda: np.empty((0, 0), dtype=object), 128: dict}
            if kind not in protos:
                raise self.fail(f"empty-valued cell of type tag {kind}: expected 1 (double), 33 (cell) or 128 (struct)",
                                self.pos - 1)
            shape = self._repeated_shape()
            return _object_array([protos[kind]() for _ in range(_prod(shape))], shape)
        # 38: an empty-valued cell with its prototype
        proto = self.value()
        shape = self._repeated_shape()
        return _object_array([proto] * _prod(shape), shape)

    def _repeated_shape(self) -> tuple[int, ...]:
        at = self.pos
        nd = self.u8("the number of dimensions of a cell")
        shape = self.dims(nd, "a cell")
        if _prod(shape) > MAX_REPEATED:
            raise self.fail(f"a cell of {_prod(shape):,} repeated values (dimensions {shape}): more than "
                            f"{MAX_REPEATED:,} is taken as a corrupt header", at)
        return shape

    def _struct_body(self):
        nf = self.u32("the number of fields of a struct")
        lengths = np.frombuffer(self.take(4 * nf, "the field name lengths of a struct"), "<u4").astype(np.int64)
        names_blob = bytes(self.take(int(lengths.sum()), "the field names of a struct")).decode("latin-1")
        ends = np.cumsum(lengths)
        names = [names_blob[a:b] for a, b in zip(np.concatenate([[0], ends[:-1]]).tolist(), ends.tolist())]
        at = self.pos
        nd = self.u32("the number of dimensions of a struct")
        shape = self.dims(nd, "a struct")
        n = _prod(shape)
        if nf:  # each field of each element holds a value: a tag byte at least
            self.check_count(n * nf, 1, f"a struct of {nf} field(s)", at)
        elif n > MAX_REPEATED:  # elements without fields take no bytes: bounded as repeated cells are
            raise self.fail(f"a struct array of {n:,} elements without fields (dimensions {shape}): more than "
                            f"{MAX_REPEATED:,} is taken as a corrupt header", at)
        layout = self.u8("the layout flag of a struct")
        if layout:
            contents = self._cell()
            if contents.size != nf * n:
                raise self.fail(f"struct: {contents.size} values for {nf} fields x {n} elements")
            flat = contents.reshape((nf, n), order="F")
            elems = [{f: flat[k, e] for k, f in enumerate(names)} for e in range(n)]
        else:
            per_field = []
            for f in names:
                c = self._cell()
                if c.size != n:
                    raise self.fail(f"struct field {f!r}: {c.size} values for {n} elements")
                per_field.append(c.ravel(order="F"))
            elems = [{f: per_field[k][e] for k, f in enumerate(names)} for e in range(n)]
        return elems[0] if n == 1 else _object_array(elems, shape)

    def _categorical_body(self, tag: int) -> Categorical:
        if tag == 201:
            return Categorical(self._cell())
        ncols = self.u64("the columns of a categorical matrix")
        cols = []
        for k in range(ncols):
            n = self.u64(f"the length of column {k + 1} of a categorical matrix")
            sub = self.sub(n, f"column {k + 1} of a categorical matrix")
            c = sub._cell()
            if sub.pos != len(sub.buf):
                raise sub.fail(f"{len(sub.buf) - sub.pos} unexpected bytes after a categorical column")
            cols.append(c.reshape(-1, order="F"))
        if len({len(c) for c in cols}) > 1:
            raise self.fail("categorical matrix: columns of different lengths")
        return Categorical(np.stack(cols, axis=1) if cols else np.empty((0, 0), dtype=object))

    def _table_body(self) -> MatlabTable:
        n_props = self.u64("the length of a table's properties")
        props = self.sub(n_props, "a table's properties").whole("a table's properties")
        if not isinstance(props, dict):
            raise self.fail("table: the properties are not a 1 x 1 struct")
        n_rows = self.u64("the number of rows of a table")
        n_cols = self.u64("the number of columns of a table")
        if n_cols == 0:
            return MatlabTable(props, [], n_rows)
        body = self.sub(self.u64("the length of a table's columns"), "a table's columns")
        columns = []
        while body.pos < len(body.buf):
            kind = body.u8("a table column kind")
            col = body.sub(body.u64("the length of a table column"), f"table column {len(columns) + 1}")
            if kind == 212:
                columns.append(col.whole(f"table column {len(columns) + 1}"))
            elif kind == 211:
                cells = []
                while col.pos < len(col.buf):
                    cells.append(col.sub(col.u64("the length of a table cell"), "a table cell").whole("a table cell"))
                columns.append(_object_array(cells, (len(cells), 1)))
            else:
                raise body.fail(f"table column kind {kind}: expected 211 (cell by cell) or 212 (one value)",
                                body.pos - 9 - len(col.buf))
        if len(columns) != n_cols:
            raise self.fail(f"table: {len(columns)} columns decoded, the header says {n_cols}")
        for k, c in enumerate(columns):
            rows = c.shape[0] if hasattr(c, "shape") and len(c.shape) else 1
            if rows != n_rows:
                raise self.fail(f"table column {k + 1} has {rows} rows, the header says {n_rows}")
        return MatlabTable(props, columns, n_rows)


def _prod(shape: Iterable[int]) -> int:
    out = 1
    for s in shape:
        out *= int(s)
    return out


def _object_array(items: list, shape: tuple[int, ...]) -> np.ndarray:
    arr = np.empty(len(items), dtype=object)
    for k, x in enumerate(items):
        arr[k] = x
    return arr.reshape(shape, order="F")


def decode(stream: bytes | bytearray | memoryview | np.ndarray, source: str = "<stream>") -> Any:
    """Decode one ``hlp_serialize`` / MATTERS stream (see the module docstring) into Python and numpy
    values. ``source`` names the stream in error messages; bytes after the value are an error."""
    buf = stream.tobytes() if isinstance(stream, np.ndarray) else bytes(stream)
    if not buf:
        raise MattersFormatError(f"{source}: empty stream: expected a serialised value")
    try:
        return _Stream(buf, source).whole("the serialised value")
    except RecursionError:
        raise MattersFormatError(f"{source}: values nested deeper than Python's recursion limit "
                                 "(cells or structs inside each other): not a measure file") from None
