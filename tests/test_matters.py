"""Tests of irscales.data.matters: every hlp_serialize / MATTERS tag on streams encoded here (by a
small encoder written from the format description, independent of the decoder), MATLAB v7.3 files
written with h5py in tmp_path, malformed and truncated input, and the authors' 36 published grid
files when the shared folder is present."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from irscales import paths
from irscales.data import matters
from irscales.data.matters import Categorical, MatlabObject, MatlabTable, MattersFormatError, decode

# ----------------------------------------------------------------------------- an independent encoder

_CODES = {np.dtype("<f8"): 1, np.dtype("<f4"): 2, np.dtype("i1"): 3, np.dtype("u1"): 4, np.dtype("<i2"): 5,
          np.dtype("<u2"): 6, np.dtype("<i4"): 7, np.dtype("<u4"): 8, np.dtype("<i8"): 9, np.dtype("<u8"): 10}


def u32(n):
    return struct.pack("<I", n)


def u64(n):
    return struct.pack("<Q", n)


def dims8(shape):
    return bytes([len(shape)]) + b"".join(u32(d) for d in shape)


def enc_string(s: str) -> bytes:
    return b"\xc8" if s == "" else b"\x00" + u32(len(s)) + s.encode("latin-1")


def enc_scalar(x) -> bytes:
    a = np.asarray(x)
    return bytes([_CODES[a.dtype.newbyteorder("<") if a.dtype.byteorder == ">" else a.dtype]]) + a.tobytes()


def enc_numeric(a: np.ndarray) -> bytes:
    a = np.asarray(a)
    return bytes([16 + _CODES[a.dtype]]) + dims8(a.shape) + a.tobytes(order="F")


def enc_logical(a: np.ndarray) -> bytes:
    a = np.asarray(a, bool)
    return b"\x85" + dims8(a.shape) + a.astype(np.uint8).tobytes(order="F")


def enc_char(a: np.ndarray) -> bytes:
    a = np.asarray(a, dtype="<U1")
    return b"\x84" + dims8(a.shape) + "".join(a.ravel(order="F")).encode("latin-1")


def enc_cell33(items: list, shape) -> bytes:
    return b"\x21" + dims8(shape) + b"".join(items)


def enc_cellstr(strings: list[str], shape) -> bytes:
    lengths = np.array([len(s) for s in strings], dtype=np.uint32).reshape(shape, order="F")
    empty = np.array([s == "" for s in strings]).reshape(shape, order="F")
    return b"\x24" + enc_string("".join(strings)) + enc_numeric(lengths) + enc_logical(empty)


def enc_struct(fields: dict[str, list[bytes]], shape=(1, 1), layout: int = 1) -> bytes:
    names = list(fields)
    n = int(np.prod(shape))
    head = b"\x80" + u32(len(names)) + b"".join(u32(len(f)) for f in names) + "".join(names).encode()
    head += u32(len(shape)) + b"".join(u32(d) for d in shape) + bytes([layout])
    if layout:  # one cell (fields × elements), column-major: all fields of element 1 first
        items = [fields[f][e] for e in range(n) for f in names]
        return head + enc_cell33(items, (len(names), n))
    return head + b"".join(enc_cell33(fields[f], shape) for f in names)


def enc_table(props: bytes, n_rows: int, columns: list[tuple[int, bytes]]) -> bytes:
    body = b""
    for kind, payload in columns:
        body += bytes([kind]) + u64(len(payload)) + payload
    out = b"\xd2" + u64(len(props)) + props + u64(n_rows) + u64(len(columns))
    return out + (u64(len(body)) + body if columns else b"")


def table_props(rows: list[str], cols: list[str], user: bytes | None = None) -> bytes:
    fields = {"Description": [enc_string("")], "UserData": [user if user is not None else b"\x21" + dims8((0, 0))],
              "RowNames": [enc_cellstr(rows, (len(rows), 1))], "VariableNames": [enc_cellstr(cols, (1, len(cols)))]}
    return enc_struct(fields)


def write_mat(path, stream: bytes, name: str = "measure", cls: str = "uint8", extra: dict | None = None):
    with h5py.File(path, "w") as f:
        ds = f.create_dataset(name, data=np.frombuffer(stream, np.uint8)[None, :] if cls == "uint8"
                              else np.frombuffer(stream, np.uint8)[None, :].astype(np.float64))
        ds.attrs["MATLAB_class"] = np.bytes_(cls)
        for k, v in (extra or {}).items():
            f.create_dataset(k, data=v)
    return path


# ----------------------------------------------------------------------------- tags


def test_strings_and_empty_string():
    assert decode(enc_string("runSet_T08")) == "runSet_T08"
    assert decode(enc_string("")) == ""
    assert decode(enc_string("café")) == "café"  # Latin-1, as MATLAB's char(uint8)


@pytest.mark.parametrize("dtype", list(_CODES))
def test_scalars_of_every_class(dtype):
    x = np.array(7 if dtype.kind in "iu" else -2.5, dtype=dtype)
    v = decode(enc_scalar(x))
    assert v == x and v.dtype == dtype


@pytest.mark.parametrize("dtype", list(_CODES))
def test_numeric_arrays_of_every_class_in_matlab_order(dtype):
    a = (np.arange(24).reshape(2, 3, 4) % 5).astype(dtype)
    v = decode(enc_numeric(a))
    assert v.dtype == dtype and v.shape == (2, 3, 4) and np.array_equal(v, a)


def test_logical_char_complex_and_sparse():
    m = np.array([[True, False, True], [False, False, True]])
    assert np.array_equal(decode(enc_logical(m)), m)
    assert decode(enc_char(np.array([list("Row")]))) == "Row"  # a 1 × n char is a string
    c = decode(enc_char(np.array([list("ab"), list("cd")])))
    assert c.shape == (2, 2) and "".join(c.ravel()) == "abcd"
    z = decode(b"\x83" + enc_numeric(np.array([[1.0, 2.0]])) + enc_numeric(np.array([[0.5, -1.0]])))
    assert np.array_equal(z, np.array([[1 + 0.5j, 2 - 1j]]))
    i, j, s = np.array([1.0, 3.0]), np.array([2.0, 2.0]), np.array([4.0, 5.0])
    sparse = decode(b"\x82" + u64(3) + u64(2) + enc_numeric(i) + enc_numeric(j) + b"\x01" + enc_numeric(s))
    assert sp.issparse(sparse) and sparse.shape == (3, 2)
    assert np.array_equal(sparse.toarray(), np.array([[0, 4], [0, 0], [0, 5]]))
    csparse = decode(b"\x82" + u64(1) + u64(1) + enc_numeric(np.array([1.0])) + enc_numeric(np.array([1.0]))
                     + b"\x00" + enc_numeric(np.array([2.0])) + enc_numeric(np.array([3.0])))
    assert csparse.toarray()[0, 0] == 2 + 3j


def test_cells_of_every_kind():
    v = decode(enc_cell33([enc_string("a"), enc_scalar(np.float64(2)), enc_string("b"), enc_string("")], (2, 2)))
    assert v.shape == (2, 2) and v[0, 0] == "a" and v[1, 0] == 2.0 and v[0, 1] == "b" and v[1, 1] == ""
    v = decode(b"\x22" + enc_numeric(np.array([[1.0, 2.0, 3.0]])))  # 34: cell of the elements of an array
    assert v.shape == (1, 3) and list(v.ravel()) == [1.0, 2.0, 3.0]
    mixed = b"\x23" + b"\x83" + enc_numeric(np.array([1.0, 2.0])) + enc_numeric(np.array([0.0, 1.0]))
    v = decode(mixed + enc_logical(np.array([True, False])))  # 35: first element real
    assert v[0] == 1.0 and not np.iscomplexobj(v[0]) and v[1] == 2 + 1j
    v = decode(enc_cellstr(["401", "", "402"], (3, 1)))  # 36: cell of strings
    assert list(v.ravel()) == ["401", "", "402"] and v.shape == (3, 1)
    for tag, check in ((1, lambda x: isinstance(x, np.ndarray) and x.size == 0),
                       (33, lambda x: x.dtype == object and x.size == 0), (128, lambda x: x == {})):
        v = decode(b"\x25" + bytes([tag]) + dims8((2, 1)))  # 37: empty-valued cell of a known type
        assert v.shape == (2, 1) and all(check(x) for x in v.ravel())
    v = decode(b"\x26" + enc_string("p") + dims8((1, 3)))  # 38: prototype repeated
    assert list(v.ravel()) == ["p", "p", "p"]
    v = decode(b"\x27" + enc_logical(np.array([[True, False]])))  # 39: logical elements
    assert [bool(x) for x in v.ravel()] == [True, False]


@pytest.mark.parametrize("layout", [1, 0])
def test_structs_in_both_layouts(layout):
    one = decode(enc_struct({"identifier": [enc_string("runSet_T08")], "cutOffs": [enc_scalar(np.float64(10))]},
                            layout=layout))
    assert one == {"identifier": "runSet_T08", "cutOffs": 10.0}
    arr = decode(enc_struct({"a": [enc_string("x"), enc_string("y")], "b": [enc_scalar(np.int32(1)),
                                                                            enc_scalar(np.int32(2))]},
                            shape=(1, 2), layout=layout))
    assert arr.shape == (1, 2) and arr[0, 1] == {"a": "y", "b": 2}


def test_object_categorical_and_ordinal():
    o = decode(b"\x86" + enc_string("myclass") + enc_struct({"x": [enc_scalar(np.float64(1))]}))
    assert o == MatlabObject("myclass", {"x": 1.0})
    c = decode(b"\xc9" + enc_cellstr(["NotRelevant", "Relevant", "NotRelevant"], (3, 1)))
    assert isinstance(c, Categorical) and list(c.labels.ravel()) == ["NotRelevant", "Relevant", "NotRelevant"]
    col1, col2 = enc_cellstr(["a", "b"], (2, 1)), enc_cellstr(["c", "d"], (2, 1))
    m = decode(b"\xca" + u64(2) + u64(len(col1)) + col1 + u64(len(col2)) + col2)
    assert m.labels.shape == (2, 2) and m.labels[1, 1] == "d"
    levels = enc_cellstr(["low", "high"], (1, 2))
    o = decode(b"\xcb" + u64(len(levels)) + levels + b"\xc9" + enc_cellstr(["high", "low"], (2, 1)))
    assert o.ordinal and o.levels == ("low", "high") and list(o.labels.ravel()) == ["high", "low"]


def test_table_with_one_value_columns_and_cell_by_cell_columns():
    props = table_props(["401", "402"], ["sysA", "sysB"])
    cells = b"".join(u64(len(e)) + e for e in (enc_string("x"), enc_string("yz")))
    t = decode(enc_table(props, 2, [(212, enc_numeric(np.array([[0.5], [0.25]]))), (211, cells)]))
    assert isinstance(t, MatlabTable) and t.n_rows == 2
    assert t.row_names == ["401", "402"] and t.variable_names == ["sysA", "sysB"]
    assert np.array_equal(t.columns[0].ravel(), [0.5, 0.25]) and list(t.columns[1].ravel()) == ["x", "yz"]
    empty = decode(enc_table(table_props([], []), 0, []))
    assert isinstance(empty, MatlabTable) and empty.columns == []


# ----------------------------------------------------------------------------- bad input


def _valid_table() -> bytes:
    user = enc_struct({"identifier": [enc_string("runSet_X")], "name": [enc_string("averagePrecision")],
                       "shortName": [enc_string("AP_ap_X")], "pool": [enc_string("pool_X")]})
    props = table_props(["1", "2"], ["indri_porter_bm25_noltr_short", "nostop_4grams_dph_noltr_long"], user)
    return enc_table(props, 2, [(212, enc_numeric(np.array([[0.1], [0.2]]))),
                                (212, enc_numeric(np.array([[0.3], [0.4]])))])


def test_every_truncation_is_a_one_line_error():
    data = _valid_table()
    for cut in range(len(data)):
        with pytest.raises(MattersFormatError) as e:
            decode(data[:cut], source="x.mat")
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith("x.mat")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 255))
def test_a_flipped_byte_never_escapes_as_another_exception(pos, value):
    data = bytearray(_valid_table())
    data[pos % len(data)] = value
    try:
        decode(bytes(data))
    except MattersFormatError as e:
        assert "\n" not in str(e)


def test_unknown_tag_trailing_bytes_and_refused_handles():
    with pytest.raises(MattersFormatError, match=r"byte 0: unknown type tag 99"):
        decode(b"\x63")
    with pytest.raises(MattersFormatError, match="2 unexpected bytes"):
        decode(enc_string("a") + b"\x00\x00")
    with pytest.raises(MattersFormatError, match="function handle"):
        decode(b"\x97" + enc_string("sin"))
    with pytest.raises(MattersFormatError, match="empty stream"):
        decode(b"")
    with pytest.raises(MattersFormatError, match="nested deeper"):
        decode((b"\x21" + dims8((1, 1))) * 5000 + enc_string("x"))
    with pytest.raises(MattersFormatError, match="corrupt header"):
        decode(b"\x25\x01" + dims8((100_000, 100_000)))


def test_inconsistent_structures():
    with pytest.raises(MattersFormatError, match="lengths add up to 5"):
        decode(b"\x24" + enc_string("abcd") + enc_numeric(np.array([2, 3], np.uint32)) + enc_logical(np.array([0, 0])))
    props = table_props(["1"], ["a", "b"])
    with pytest.raises(MattersFormatError, match="1 columns decoded, the header says 2"):
        body = enc_table(props, 1, [(212, enc_numeric(np.array([[1.0]])))])
        decode(body[:1 + 8 + len(props) + 8] + u64(2) + body[1 + 8 + len(props) + 16:])
    with pytest.raises(MattersFormatError, match="column 1 has 2 rows, the header says 1"):
        decode(enc_table(props, 1, [(212, enc_numeric(np.array([[1.0], [2.0]]))),
                                    (212, enc_numeric(np.array([[1.0]])))]))
    with pytest.raises(MattersFormatError, match="column kind 7"):
        decode(enc_table(props, 1, [(7, enc_numeric(np.array([[1.0]])))]))
    with pytest.raises(MattersFormatError, match="struct: 1 values for 2 fields"):
        decode(b"\x80" + u32(2) + u32(1) + u32(1) + b"ab" + u32(2) + u32(1) + u32(1) + b"\x01"
               + enc_cell33([enc_string("x")], (1, 1)))


# ----------------------------------------------------------------------------- files


def test_read_measure_from_a_v73_file(tmp_path):
    m = matters.read_measure(write_mat(tmp_path / "ap_X.mat", _valid_table(), "ap_X"))
    assert m.name == "averagePrecision" and m.short_name == "AP_ap_X" and m.pool == "pool_X"
    assert m.topics == ["1", "2"] and m.scores.shape == (2, 2)
    assert np.array_equal(m.scores.to_numpy(), [[0.1, 0.3], [0.2, 0.4]])
    comp = m.components()
    assert list(comp.columns) == list(matters.COMPONENTS)
    assert comp.loc["nostop_4grams_dph_noltr_long"].tolist() == ["nostop", "4grams", "dph", "noltr", "long"]
    both = matters.read_measures(tmp_path)
    assert list(both) == ["ap"]
    with pytest.raises(FileNotFoundError, match="no file for measure"):
        matters.read_measures(tmp_path, ["p10"])


def test_file_errors_name_the_file(tmp_path):
    junk = tmp_path / "junk.mat"
    junk.write_bytes(b"MATLAB 5.0 MAT-file, not HDF5" + bytes(200))
    with pytest.raises(MattersFormatError, match=r"junk\.mat: not a readable MATLAB v7\.3 \(HDF5\) file"):
        matters.read_measure(junk)
    good = write_mat(tmp_path / "good.mat", _valid_table())
    whole = good.read_bytes()
    for n in (len(whole) // 2, len(whole) - 8):
        cut = tmp_path / f"cut{n}.mat"
        cut.write_bytes(whole[:n])
        with pytest.raises(MattersFormatError, match=f"cut{n}.mat") as e:
            matters.read_measure(cut)
        assert "\n" not in str(e.value)
    two = write_mat(tmp_path / "two.mat", _valid_table(), extra={"other": np.zeros(3)})
    with pytest.raises(MattersFormatError, match="expected one variable"):
        matters.read_measure(two)
    dbl = write_mat(tmp_path / "dbl.mat", _valid_table(), cls="double")
    with pytest.raises(MattersFormatError, match="expected a uint8 vector"):
        matters.read_measure(dbl)
    notable = write_mat(tmp_path / "s.mat", enc_string("hello"))
    with pytest.raises(MattersFormatError, match="expected a MATLAB table"):
        matters.read_measure(notable)
    with pytest.raises(FileNotFoundError, match="no such MATTERS file"):
        matters.read_measure(tmp_path / "absent.mat")


def test_system_names_must_have_five_parts():
    with pytest.raises(MattersFormatError, match="expected 5 parts"):
        matters.system_components(["indri_porter_bm25"])


# ----------------------------------------------------------------------------- the authors' files


@pytest.fixture(scope="module")
def grid_dir():
    d = paths.gop_dir()
    if d is None:
        pytest.skip("the authors' Grid of Points is absent (IRSCALES_GOP / IRSCALES_SHARED/gop/trec-jasist2017)")
    return d


@pytest.mark.data
def test_all_36_published_grid_files_decode(grid_dir):
    first_topic = {"T07": 351, "T08": 401, "T09": 451, "T10": 501}
    mean_ap = {}
    for track, t0 in first_topic.items():
        ms = matters.read_measures(grid_dir / track)
        assert sorted(ms) == ["ap", "err", "err20", "ndcg", "ndcg20", "p10", "rbp", "rprec", "twist"]
        for prefix, m in ms.items():
            assert m.scores.shape == (50, 4284), (track, prefix)
            assert m.topics == [str(t) for t in range(t0, t0 + 50)]
            assert m.pool == f"pool_{track}"
            assert m.scores.columns.equals(ms["ap"].scores.columns)
            nan = int(m.scores.isna().to_numpy().sum())
            assert nan == (2 if (track, prefix) == ("T09", "twist") else 0)
        comp = ms["ap"].components()
        assert comp.nunique().to_dict() == {"stop": 6, "lug": 14, "model": 17, "ltr": 1, "query": 3}
        assert not comp.index.duplicated().any()
        mean_ap[track] = round(float(ms["ap"].scores.to_numpy().mean()), 4)
    # the means measured when the files were first read (../shared/gop/README.md)
    assert mean_ap == {"T07": 0.1675, "T08": 0.2054, "T09": 0.1637, "T10": 0.1546}


# ----------------------------------------------------------------------------- hostile files (issue 37, 3)


@pytest.mark.parametrize("stream, what", [
    # 22 bytes that asked for 4.3e9 dicts: a struct of 65535 x 65535 elements without fields
    (b"\x80" + u32(0) + u32(2) + u32(65535) + u32(65535) + b"\x00", "elements without fields"),
    (b"\x80" + u32(1) + u32(1) + b"a" + u32(2) + u32(65535) + u32(65535) + b"\x00",
     r"a struct of 1 field\(s\): 4,294,836,225 elements of at least 1 byte\(s\) each, 1 bytes left"),
    (b"\x21" + dims8((65535, 65535)) + b"\x00", r"a cell: 4,294,836,225 elements of at least 1 byte"),
    (b"\x84" + dims8((0, 2**32 - 1, 2**32 - 1)), "more than MATLAB's largest array"),
    (b"\x11" + dims8((0, 2**32 - 1, 2**32 - 1)), "more than MATLAB's largest array"),
])
def test_counts_and_shapes_are_checked_against_the_bytes_left(stream, what):
    with pytest.raises(MattersFormatError, match=rf"^f.mat: byte \d+: .*{what}"):
        decode(stream, source="f.mat")


def _sparse(m: int, n: int, i, j) -> bytes:
    return (b"\x82" + u64(m) + u64(n) + enc_numeric(np.array(i)) + enc_numeric(np.array(j)) + b"\x01"
            + enc_numeric(np.ones(len(i))))


def test_sparse_shapes_and_indices_are_validated():
    with pytest.raises(MattersFormatError, match=r"^f.mat: byte 1: a sparse matrix of 18,446,744,073,709,551,615 x 1"):
        decode(_sparse(2**64 - 1, 1, [1.0], [1.0]), source="f.mat")  # was scipy's OverflowError
    with pytest.raises(MattersFormatError, match=r"^f.mat: .*index 1.5 is not a whole number"):
        decode(_sparse(3, 3, [1.5], [1.0]), source="f.mat")  # was truncated to 1 silently
    with pytest.raises(MattersFormatError, match=r"^f.mat: .*index nan is not a whole number"):
        decode(_sparse(3, 3, [1.0], [np.nan]), source="f.mat")
    assert decode(_sparse(3, 3, np.array([2], np.int32), np.array([3], np.uint8))).toarray()[1, 2] == 1


def test_an_unwritten_huge_variable_is_refused_before_reading(tmp_path):
    f = tmp_path / "ap_T08.mat"
    with h5py.File(f, "w") as h:  # declared, never written: HDF5 would read 1.5e9 zeros (3 GB at the peak)
        ds = h.create_dataset("measure", shape=(1, 1_500_000_000), dtype=np.uint8)
        ds.attrs["MATLAB_class"] = np.bytes_("uint8")
    assert f.stat().st_size < 100_000
    with pytest.raises(MattersFormatError, match=rf"^{f}: variable 'measure' holds 1,500,000,000 bytes: more than"):
        matters.read_measure(f)
    with h5py.File(f, "w") as h:
        ds = h.create_dataset("measure", shape=(1, 500_000_000), dtype=np.uint8)
        ds.attrs["MATLAB_class"] = np.bytes_("uint8")
    with pytest.raises(MattersFormatError, match=rf"^{f}: variable 'measure' declares 500,000,000 bytes but the file "
                       r"stores 0 for it: never written, or corrupt"):
        matters.read_measure(f)


def test_a_compressed_stream_is_read(tmp_path):
    stream = _valid_table()
    f = tmp_path / "ap_T08.mat"
    with h5py.File(f, "w") as h:  # MATLAB v7.3 deflates its variables
        ds = h.create_dataset("measure", data=np.frombuffer(stream, np.uint8)[None, :], compression="gzip")
        ds.attrs["MATLAB_class"] = np.bytes_("uint8")
    assert matters.read_stream(f)[1] == stream


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "f.mat"
    os.mkfifo(fifo)
    code = ("from irscales.data import matters\ntry:\n    matters.read_measure(%r)\nexcept matters.MattersFormatError"
            " as e:\n    print(e)" % str(fifo))
    src = Path(__file__).resolve().parents[1] / "src"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(src)})  # blocked forever before
    assert r.stdout == f"{fifo}: is a FIFO, not a file: expected a MATTERS .mat (HDF5) file\n"


def test_a_folder_without_recognised_names_says_what_it_expects(tmp_path):
    for name in ("AP_T08.MAT", "ap-T08.mat"):
        write_mat(tmp_path / name, _valid_table())
    with pytest.raises(FileNotFoundError, match=rf"^{tmp_path}: no MATTERS measure file named <measure>_<track>\.mat "
                       r".*e\.g\. ap_T08\.mat\); found 2 other file\(s\): AP_T08\.MAT, ap-T08\.mat$"):
        matters.read_measures(tmp_path)
