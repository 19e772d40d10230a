"""results.latest: the one way to read a result (the reader's store, else the shipped file),
and shipped data that carries provenance but no machine path."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from gelu_lab import results
from gelu_lab.results import shipped
from gelu_lab.results.store import Store, portable, portable_command, provenance

# an absolute path of a POSIX or Windows machine, anywhere in a shipped file
MACHINE_PATH = re.compile(r"(?<![\w.:/])(/tmp|/home|/root|/work|/Users|/var/folders)(/|\b)|\b[A-Za-z]:\\\\")


def test_no_shipped_file_holds_a_machine_path():
    files = sorted(p for p in shipped.DATA.iterdir() if p.is_file())
    assert {p.name for p in files} >= set(shipped.FILES.values())
    for p in files:
        text = p.read_text(encoding="utf-8")
        found = sorted({m.group(0) for m in MACHINE_PATH.finditer(text)})
        assert found == [], f"{p.name} holds machine paths: {found}"
        if p.suffix == ".json":  # nor who ran it: a run's owner is its host, boot id and pid
            assert '"owner"' not in text and '"host"' not in text, p.name


def test_the_path_pattern_catches_what_it_must():
    for bad in ['"--store /tmp/ffn_ship/runs.sqlite"', '"/home/me/x"', '"/root"', '"/work/main/a"', '"/Users/a/b"', r'"C:\\Users\\a"']:
        assert MACHINE_PATH.search(bad), bad
    for ok in ['"1/2"', '"https://arxiv.org/abs/1606.08415"', '"gelu-lab runs export --format json"', '"x/tmp"']:
        assert not MACHINE_PATH.search(ok), ok


@pytest.mark.parametrize("command,want", [
    ("gelu-lab train --store /tmp/ffn_ship/runs.sqlite --preset quick --seeds 2", "gelu-lab train --preset quick --seeds 2"),
    ("gelu-lab bench --store=/tmp/k/exh.sqlite --sizes 1e3,1e5", "gelu-lab bench --sizes 1e3,1e5"),
    ("gelu-lab train --text /home/me/corpus.txt --steps 10", "gelu-lab train --text corpus.txt --steps 10"),
    ("gelu-lab report --out=/Users/me/r.html", "gelu-lab report --out=r.html"),
    (r"gelu-lab report --out C:\Users\me\r.html", "gelu-lab report --out r.html"),
    ('gelu-lab train --text "/home/me/my corpus.txt"', "gelu-lab train --text 'my corpus.txt'"),
    ("gelu-lab train --resume 7", "gelu-lab train --resume 7"),
])
def test_recorded_commands_carry_no_machine_path(command, want):
    assert portable_command(command) == want


def test_provenance_records_the_command_without_the_store_path(monkeypatch):
    monkeypatch.setattr("sys.argv", ["gelu-lab", "accuracy", "--impl", "gelu", "--store", "/tmp/x/runs.sqlite", "--sample", "4096"])
    p = provenance()
    assert p["command"] == "gelu-lab accuracy --impl gelu --sample 4096"
    assert provenance("gelu-lab bench --store /root/s.sqlite")["command"] == "gelu-lab bench"
    doc = portable({"command": "gelu-lab x --store /tmp/a", "train_commands": ["gelu-lab train --store /tmp/a --seeds 1"],
                    "config": {"text": "/home/me/t.txt", "preset": "quick"}, "processor": "AMD EPYC 9B14"})
    assert doc == {"command": "gelu-lab x", "train_commands": ["gelu-lab train --seeds 1"],
                   "config": {"text": "t.txt", "preset": "quick"}, "processor": "AMD EPYC 9B14"}


def test_a_fresh_install_reads_every_kind_from_the_shipped_files(tmp_path):
    none = tmp_path / "none.sqlite"
    for kind in results.KINDS:
        key = "gelu|gelu|float32|exhaustive" if kind == "accuracy" else None
        r = results.latest(kind, key, store=none)
        assert r is not None and r.source == "shipped", kind
        assert r.provenance.get("date") and r.provenance.get("processor"), kind
        assert r == results.latest(kind, key, store=False)
    assert not none.exists()  # reading never creates a store
    acc = results.latest("accuracy", "gelu|gelu|float32|exhaustive", store=False)
    assert acc.value["n"] == 2**32 and acc.value["max_ulp"] == 0
    every = results.latest("accuracy", store=False)
    assert {s["key"] for s in every.value} == {k for name in shipped.ACCURACY_FILES for k in shipped.doc(name)["accuracy"]}
    assert all(s["source"] == "shipped" and s["provenance"]["date"] for s in every.value)
    bench = results.latest("bench", store=False)
    assert {"copy", "numpy:erf", "numpy:tanh"} <= {r["case"] for r in bench.value["rows"]} and bench.value["machine"]["processor"]
    train = results.latest("train", store=False)
    assert len(train.value) == len(shipped.doc("ffn_results.json")["runs"]) and {r["source"] for r in train.value} == {"shipped"}
    assert results.latest("probe", store=False).value == shipped.doc("bert_probe.json")["result"]


def test_the_readers_store_comes_first(tmp_path):
    with Store(tmp_path / "s.sqlite") as st:
        rid = st.start_run("bench", "k", {}, command="gelu-lab bench --store /tmp/x --sizes 1e3")
        st.put_result(rid, "rows", [{"case": "copy", "gelem_s": 1.0}])
        st.put_result(rid, "machine", {"processor": "here"})
        assert results.latest("bench", store=st).source == "shipped"  # not finished: not a result yet
        st.set_status(rid, "done")
        r = results.latest("bench", store=st)
        assert (r.source, r.value, r.run["id"]) == ("store", {"rows": [{"case": "copy", "gelem_s": 1.0}], "machine": {"processor": "here"}}, rid)
        assert r.provenance["command"] == "gelu-lab bench --sizes 1e3"
        # accuracy: the reader's summary replaces the shipped one of the same plan, the others stay
        key = "gelu|gelu|float32|exhaustive"
        aid = st.start_run("accuracy", key, {})
        st.put_result(aid, "summary", {"impl": "gelu", "n": 7})
        st.set_status(aid, "done")
        assert results.latest("accuracy", key, store=st).value == {"impl": "gelu", "n": 7}
        every = {s["key"]: s for s in results.latest("accuracy", store=st).value}
        assert every[key]["n"] == 7 and every[key]["source"] == "store"
        assert {s["source"] for k, s in every.items() if k != key} == {"shipped"}
        # train: the shipped runs, then the reader's
        tid = st.start_run("train", "relu/seed9", {"activation": "relu", "seed": 9})
        st.set_status(tid, "done")
        train = results.latest("train", store=st)
        assert train.source == "store" and train.value[-1]["id"] == tid and train.value[-1]["source"] == "store"
        assert sum(r["source"] == "shipped" for r in train.value) == len(shipped.doc("ffn_results.json")["runs"])
        path = st.path
    assert results.latest("bench", store=str(path)).source == "store"  # a path works as well as an open store


def test_an_unreadable_store_reads_as_empty(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not sqlite at all" * 100)
    assert results.latest("bench", store=bad).source == "shipped"
    with pytest.raises(ValueError, match="unknown result kind"):
        results.latest("nope")


def test_shipped_results_are_not_changed_by_their_readers():
    a = results.latest("train", store=False)
    a.value[0]["source"] = "changed"
    a.value.clear()
    assert results.latest("train", store=False).value[0]["source"] == "shipped"
    assert json.dumps(shipped.doc("ffn_results.json")["runs"][0]).count('"source"') == 0


def test_cpu_name_carries_family_and_model(tmp_path, monkeypatch):
    """A VM may call its CPU only "AMD EPYC": the family and model numbers say which generation."""
    from gelu_lab.results import store

    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 1\n"
                    "model name\t: AMD EPYC\n\nprocessor\t: 1\ncpu family\t: 99\nmodel name\t: other\n")
    monkeypatch.setattr(store, "Path", lambda p: info if p == "/proc/cpuinfo" else pathlib.Path(p))
    assert store.cpu_name() == "AMD EPYC (Family 23 Model 1)"
    info.write_text("model name\t: Some CPU\n")
    assert store.cpu_name() == "Some CPU"
