"""The job box (gelu_lab.app.job_box) as its one callback fills it, without a browser:
what each state of a job reads, and that every page's jobs go through the one box."""

from __future__ import annotations

import pytest

from gelu_lab.app import content, job_box


def job(state, **kw):
    return {"kind": "k", "pid": 1, "command": "gelu-lab accuracy --impl gelu", "what": "gelu float32", "state": state,
            "progress": {"n": 3, "total": 12}, **kw}


@pytest.mark.parametrize("lang", content.LANGS)
def test_each_state_of_a_job_reads_as_its_text(lang):
    t = content.text(lang, "jobs")
    assert job_box.view(None, lang, "nothing yet") == (0, 1, "nothing yet", False)
    assert job_box.view(job("running"), lang, "") == (3, 12, content.fill(t["running"], what="gelu float32", n="3", total="12", pct="25"), True)
    assert job_box.view(job("done"), lang, "") == (12, 12, content.fill(t["done"], what="gelu float32"), False)
    assert job_box.view(job("failed", error="boom"), lang, "")[2] == content.fill(t["failed"], what="gelu float32", error="boom")
    for cancelled in (False, True):
        n, total, shown, running = job_box.view(job("interrupted", resume="gelu-lab train --resume 4", cancelled=cancelled), lang, "")
        text, _, code = shown  # the words, then the command that continues it, as code
        assert (n, total, running) == (3, 12, False)
        assert text == content.fill(t["cancelled" if cancelled else "interrupted"], what="gelu float32")
        assert code.children == "gelu-lab train --resume 4" and code.className == "job-cmd"
    # a job that says nothing of itself is named by its command; no progress is 0 of 1
    bare = {"kind": "k", "pid": 1, "command": "gelu-lab bench", "state": "running", "progress": None}
    assert job_box.view(bare, lang, "")[:2] == (0, 1) and "gelu-lab bench" in job_box.view(bare, lang, "")[2]


def test_every_page_job_is_a_box_of_the_one_component():
    from gelu_lab.app import page_module
    from gelu_lab.app.pages.ffn import page as ffn
    from gelu_lab.app.pages.implementation import page as implementation
    from gelu_lab.app.pages.misconceptions import page as misconceptions  # noqa: F401  (they register their boxes)

    page_module("ffn")
    assert {"ffn-run", "implementation-acc", "implementation-bench", "misc-relu_half_dead"} <= set(job_box.JOBS)
    kinds = {b.name: b.kind for b in job_box.JOBS.values()}
    assert kinds["ffn-run"] == kinds["misc-relu_half_dead"] == "ffn"  # two boxes, one training job
    box = job_box.box("implementation-bench", "en", "Measure")
    ids = [c.id for c in box.children if c is not None and hasattr(c, "id")]
    assert {"type": "job-tick", "box": "implementation-bench"} in ids and box.id == "implementation-bench"


def test_a_page_job_is_said_in_words_not_registry_names():
    """The status line names what a job computes as a reader says it (zh: no `gelu float32
    exhaustive`), from the job's own fields; a job file without them keeps its own words."""
    from gelu_lab.app.pages.ffn import page as ffn
    from gelu_lab.app.pages.implementation import page as implementation  # noqa: F401  (they register their boxes)

    acc, bench, train = job_box.JOBS["implementation-acc"], job_box.JOBS["implementation-bench"], job_box.JOBS["ffn-run"]
    zh = content.text("zh", "jobs")
    a = acc.what({"command": "gelu-lab accuracy", "what": "torch:gelu float32 exhaustive", "impl": "torch:gelu", "mode": "exhaustive"}, "zh")
    assert a == content.fill(zh["what.accuracy"], impl=content.text("zh", "implementation")["impl.torch_gelu"], mode=zh["mode.exhaustive"])
    assert bench.what({"command": "gelu-lab bench", "what": "bench --n 1"}, "zh") == zh["what.bench"]
    tr = train.what({"command": "gelu-lab train", "activation": "gelu_tanh", "seed": 5, "steps": 600, "fc_init_std": "unit"}, "zh")
    assert tr == content.fill(zh["what.train"], act=content.label("gelu_tanh", "zh"), seed="5", steps="600", fc=zh["fc.unit"])
    assert acc.what({"command": "gelu-lab accuracy", "what": "gelu float32"}, "zh") == "gelu float32"  # an older job file
    for lang in content.LANGS:
        for w in (acc.what({"command": "c", "impl": "gelu", "mode": m}, lang) for m in ("exhaustive", "sample", "range")):
            assert "{" not in w and (lang != "zh" or "gelu" not in w)
        assert job_box.view(job("done"), lang, "", "the words")[2] == content.fill(content.text(lang, "jobs")["done"], what="the words")
