"""Linear in files and topics (issue 49 item 3): what removed the per-file and per-topic overheads, checked for
what it decides, not timed (the times are in docs/benchmarks.md: tests that time the machine stay out of the
suite)."""

import random

import numpy as np
import pytest

from irscales.data import trec, _trec_cache as trec_cache
from irscales.data._trec_arrays import QrelsIndex, topic_key, topic_order


def test_topics_are_ordered_as_topic_key_orders_them_without_a_python_key_per_topic():
    rng = random.Random(49)
    pool = ["1", "2", "10", "01", "001", "0", "a", "B", "b1", "ä", "x y", "9" * 20, "123456789012345678", "Z", "10a",
            "٣", "3", "03", "a\0b"]
    for _ in range(500):
        names = np.array(list(dict.fromkeys(rng.choices(pool, k=rng.randint(0, 12)))), dtype=object)
        assert [names[i] for i in topic_order(names)] == sorted(names, key=topic_key)
    many = np.array([str(i) for i in rng.sample(range(10**6), 5000)] + [f"q{i}" for i in range(50)], dtype=object)
    assert [many[i] for i in topic_order(many)] == sorted(many, key=topic_key)


def test_topic_codes_agree_below_and_above_the_dict_limit():
    import pandas as pd

    topics = [str(t) for t in range(3000)]
    index = QrelsIndex(pd.DataFrame({"topic": topics, "docno": "d", "rel": 1}))
    names = np.array(["7", "nope", "2999", "0"] * 400, dtype=object)
    want = [7, -1, 2999, 0] * 400
    assert index.topic_codes(names).tolist() == want  # 1,600 names: pandas' hash table
    assert index.topic_codes(names[:8]).tolist() == want[:8]  # a few: the dict


def test_many_small_files_take_the_compiled_reader_one_thread_and_no_cache_entries(tmp_path, monkeypatch):
    """From COMPILED_READER_FILES files on the compiled reader parses; small files are read by the calling thread
    alone and parsed on every read rather than cached (each entry would cost more than the parse)."""
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n1 0 b 0\n")
    files = []
    for i in range(6):
        files.append(tmp_path / f"r{i}")
        files[-1].write_text(f"1 Q0 a 1 {i % 3} s{i}\n1 Q0 b 2 1 s{i}\n")
    monkeypatch.setattr(trec_cache, "COMPILED_READER_FILES", 5)
    monkeypatch.setattr(trec_cache, "COMPILED_READER_BYTES", 2**62)
    monkeypatch.setattr(trec_cache, "kernels_loaded", lambda: False)
    used, threads = [], []
    real_scan, real_pool = trec_cache.scan_run, trec_cache.ThreadPoolExecutor
    monkeypatch.setattr(trec_cache, "scan_run", lambda *a: used.append(1) or real_scan(*a))
    monkeypatch.setattr(trec_cache, "ThreadPoolExecutor", lambda *a, **k: threads.append(1) or real_pool(*a, **k))
    out = trec.read_trec(files, q, depth=2, cache=tmp_path / "cache")
    assert out.systems == [f"s{i}" for i in range(6)] and len(used) == 6 and not threads
    assert not list((tmp_path / "cache").glob("*.judged"))  # below CACHED_BYTES: no run cached (the qrels are)
    assert out.judged.tolist() == [[2]] * 6
    monkeypatch.setattr(trec_cache, "THREADED_BYTES_PER_FILE", 0)
    assert trec.read_trec(files, q, depth=2, cache=False).rel.tolist() == out.rel.tolist() and threads


@pytest.mark.parametrize("n", [1, 2500])
def test_a_run_of_many_topics_reads_as_a_run_of_few(tmp_path, n):
    """One document per topic, many topics (the held-out sweep's 10^6, here 2,500: the code path of many)."""
    from irscales import evaluate

    (tmp_path / "r").write_text("".join(f"{t} Q0 d{t} 1 1.0 big\n" for t in range(1, n + 1)))
    (tmp_path / "q").write_text("".join(f"{t} 0 d{t} {t % 2}\n" for t in range(1, n + 1)))
    ev = evaluate(tmp_path / "q", [tmp_path / "r"], "P@1", depth=1, on_no_relevant="keep", judged_threshold=0)
    assert list(ev.topics) == [str(t) for t in range(1, n + 1)]
    assert ev.values("P@1")["big"].tolist() == [t % 2 for t in range(1, n + 1)]
    assert ev.judged()["big"] == 1.0


def test_report_on_more_runs_than_it_can_pair_refuses_before_reading_with_its_estimate(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from irscales import comparison
    from irscales.cli import main

    assert comparison.pairing_seconds(10_000, 1) > comparison.PAIRS_SECONDS_OK  # the held-out sweep's 10,000 runs
    assert comparison.pairing_seconds(129, 5) < comparison.PAIRS_SECONDS_OK  # TREC-8's 129 on five measures
    with pytest.raises(ValueError, match=r"comparing 10,000 runs is 49,995,000 pairs .* give at most about [0-9,]+ runs"):
        comparison.check_pairing(10_000, 1)
    runs = tmp_path / "runs"
    runs.mkdir()
    for i in range(3):
        (runs / f"r{i}").write_text(f"1 Q0 a 1 1 s{i}\n")
    (tmp_path / "q").write_text("1 0 a 1\n")
    monkeypatch.setattr(comparison, "PAIRS_SECONDS_OK", 0.0)
    monkeypatch.setattr(trec_cache, "read_file", lambda *a: pytest.fail("a run was read before the refusal"))
    r = CliRunner().invoke(main, ["report", str(runs), "--qrels", str(tmp_path / "q"), "--measures", "P@1",
                                  "--depth", "1"])
    assert r.exit_code == 1 and "comparing 3 runs is 3 pairs" in r.output and "by estimate" in r.output, r.output
