"""A public server (`gelu-lab serve --public`) over HTTP: every job button refused, nothing
written, stored and live results shown, /healthz, the access log, and the budgets and the
rate limit hit on purpose (each refusal a clear message, never a 5xx).

The servers are subprocesses: public mode is a setting of the server's process. A test that
wants its own client says so with X-Real-IP (the servers trust it from loopback, as from nginx).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest

from gelu_lab.app import content, job_box, page_module, registry
from gelu_lab.app.public import Policy
from servers import Served, callback_request

pytestmark = pytest.mark.xdist_group("public")
PAGES_WITH_JOBS = ("implementation", "ffn", "misconceptions")


def _register_boxes():
    for p in registry.PAGES:
        page_module(p.slug)  # each page registers its job boxes when imported
    return job_box.JOBS


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A data folder whose runs store holds one real run (a tiny `gelu-lab bench`)."""
    d = tmp_path_factory.mktemp("public-data")
    r = subprocess.run([sys.executable, "-m", "gelu_lab", "bench", "--cases", "copy,numpy:erf", "--sizes", "1e4", "--repeats", "1",
                        "--threads", "1", "--store", str(d / "runs.sqlite")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return d


def snapshot(d) -> dict:
    """Every file under the data folder with its hash, but SQLite's WAL files as a reader makes
    them: a read-only connection creates the WAL index (-shm, shared memory, no data) and an
    empty WAL beside the store when it first opens it, whenever that is; so -shm is left out and
    an empty -wal counts as none. A write would show as the store's or the WAL's bytes."""
    out = {}
    for f in sorted(d.rglob("*")):
        rel = str(f.relative_to(d))
        if f.is_file() and not rel.endswith("-shm") and not (rel.endswith("-wal") and f.stat().st_size == 0):
            out[rel] = hashlib.sha256(f.read_bytes()).hexdigest()
    return out


@pytest.fixture(scope="module")
def server(data):
    with Served("--public", data=data) as s:
        yield s


def _layout(server, route: str, lang: str) -> str:
    status, body = server.get("/_dash-layout", {"Referer": f"{server.base}{route}?lang={lang}"})
    assert status == 200, body[:300]
    return body.decode()


def _components(node, out):
    if isinstance(node, list):
        for n in node:
            _components(n, out)
    elif isinstance(node, dict) and "props" in node:
        out.append(node)
        for v in node["props"].values():
            _components(v, out)
    return out


def test_every_job_button_is_refused_and_nothing_is_written(server, data):
    before = snapshot(data)
    boxes = _register_boxes()
    deps = json.loads(server.get("/_dash-dependencies")[1])
    args = {"implementation-acc": {"impl": "gelu"}, "ffn-run": {"act": "relu", "fc": "0.02", "preset": "quick", "steps": 600}}
    for lang in content.LANGS:
        t = content.text(lang, "public")
        for name, job in boxes.items():
            start = args.get(name, {})
            for part in ("go", "cancel"):
                ids = {f: {"box": name, "type": f"job-{f}"} for f in ("go", "cancel", "tick", "args", "seen", "progress")}
                values = [(ids["go"], "n_clicks", int(part == "go")), (ids["cancel"], "n_clicks", int(part == "cancel")),
                          (ids["args"], "data", start), (ids["go"], "id", ids["go"]), ("lang", "data", lang)]
                body = callback_request(deps, ids[part], "n_clicks", values, match={"box": name})
                status, answer = server.post_callback(body)
                assert status == 200, (name, part, answer[:300])
                said = json.dumps(json.loads(answer)["response"], ensure_ascii=False)
                assert t["jobs.refused"] in said and job.yourself(start) in said, (name, part, said[:500])
    assert snapshot(data) == before  # no job file, no write to the store
    assert not (data / "jobs").exists()


@pytest.mark.parametrize("lang", content.LANGS)
def test_the_job_boxes_are_off_and_show_the_command(server, lang):
    t = content.text(lang, "public")
    boxes = _register_boxes()
    from gelu_lab.app.pages.ffn import page as ffn
    from gelu_lab.app.pages.implementation import page as implementation

    first = {"implementation-acc": {"impl": implementation.IMPLS[0]}, "ffn-run": ffn.RUN_DEFAULT}  # the args each page shows first
    for slug in PAGES_WITH_JOBS:
        route = next(p.route for p in registry.PAGES if p.slug == slug)
        comps = _components(json.loads(_layout(server, route, lang)), [])
        gos = [c for c in comps if isinstance(c["props"].get("id"), dict) and c["props"]["id"].get("type") == "job-go"]
        assert gos and all(c["props"].get("disabled") is True for c in gos), slug
        for c in gos:
            name = c["props"]["id"]["box"]
            status = next(x for x in comps if x["props"].get("id") == {"box": name, "type": "job-status"})
            shown = json.dumps(status["props"]["children"], ensure_ascii=False)
            assert t["jobs.off"] in shown and boxes[name].yourself(first.get(name, {})) in shown, shown


def test_pages_show_stored_and_live_results(server, data):
    page = _layout(server, "/implementation", "en")
    assert "--sizes 1e4" in page  # the cost chart's text names the stored run's command
    deps = json.loads(server.get("/_dash-dependencies")[1])
    body = callback_request(deps, "implementation-f", "value", {("implementation-f", "value"): "x*tanh(softplus(x))", ("implementation-f_lo", "value"): -4,
                                                                 ("implementation-f_hi", "value"): 4, ("lang", "data"): "en"})
    status, answer = server.post_callback(body)
    assert status == 200 and '"implementation-custom-err"' in answer.decode(), answer[:300]
    for p in registry.PAGES:
        for lang in content.LANGS:
            assert server.get(f"{p.route}?lang={lang}")[0] == 200


def test_healthz_says_the_store_is_readable_and_the_version(server):
    from gelu_lab import __version__

    status, body = server.get("/healthz")
    h = json.loads(body)
    assert status == 200 and h["status"] == "ok" and h["version"] == __version__
    assert h["store"] == "readable" and h["runs"] >= 1 and h["public"] is True and h["jobs"] is False


def test_one_log_line_per_request_without_the_query(server):
    n = len(server.log_lines())
    server.get("/definition?x=2&note=my-name-is-alice")
    server.get("/nope?secret=42")
    lines = server.log_lines()[n:]
    routes = [(ln["method"], ln["route"], ln["status"]) for ln in lines]
    assert ("GET", "/definition", 200) in routes and ("GET", "/nope", 200) in routes  # Dash answers any path with the app
    assert all({"time", "method", "route", "status", "ms", "cpu_ms"} <= set(ln) for ln in lines)
    assert "alice" not in server.stderr() and "secret" not in server.stderr()


def test_over_the_time_budget_is_a_message(data):
    """A CPU budget of a millisecond: fitting a visitor's constant takes far more."""
    with Served("--public", "--budget-seconds", "0.001", data=data) as s:
        deps = json.loads(s.get("/_dash-dependencies")[1])
        for lang in content.LANGS:
            body = callback_request(deps, "implementation-f", "value", {("implementation-f", "value"): "x*sigmoid(a*x)*1.5",
                                                                         ("implementation-f_lo", "value"): -3, ("implementation-f_hi", "value"): 3,
                                                                         ("lang", "data"): lang})
            status, answer = s.post_callback(body)
            want = content.fill(content.text(lang, "public")["time"], **Policy.public_server(seconds=0.001).limits())
            assert status == 200 and want in json.loads(answer)["response"]["implementation-custom-msg"]["children"]
        # a page whose own computing takes more (this budget is below any page's): refused in words, not a 5xx
        status, body = s.get("/_dash-layout", {"Referer": f"{s.base}/implementation?lang=zh"})
        assert status == 422 and body.decode() == content.fill(content.text("zh", "public")["time"], seconds="0.001")


@pytest.fixture(scope="module")
def tight(data):
    """A server with a small memory budget and a low rate (12 requests a minute: a burst of 3)."""
    with Served("--public", "--budget-mb", "0.05", "--rate", "12", data=data) as s:
        yield s


def test_over_the_memory_budget_is_a_message(tight):
    deps = json.loads(tight.get("/_dash-dependencies")[1])
    big = "x*Phi(x)+" + "+".join(["0*x"] * 20)  # ~60 nodes: 401 points x 8 bytes each, more than 50 kB
    body = callback_request(deps, "implementation-f", "value", {("implementation-f", "value"): big, ("implementation-f_lo", "value"): -3,
                                                                 ("implementation-f_hi", "value"): 3, ("lang", "data"): "zh"})
    status, answer = tight.post_callback(body, {"X-Real-IP": "10.0.0.1"})
    want = content.fill(content.text("zh", "public")["memory"], **Policy.public_server(megabytes=0.05).limits())
    assert status == 200 and want in json.loads(answer)["response"]["implementation-custom-msg"]["children"]


def test_over_the_rate_a_client_is_told_to_wait_and_others_are_served(tight):
    deps = json.loads(tight.get("/_dash-dependencies")[1])
    body = callback_request(deps, "definition-n", "value", {("definition-x", "value"): 1.0, ("definition-n", "value"): 300,
                                                             ("definition-seed", "value"): 0, ("lang", "data"): "en"})
    me = {"X-Real-IP": "10.0.0.2", "Referer": f"{tight.base}/definition?lang=en"}
    answers = [tight.post_callback(body, me) for _ in range(12)]
    assert all(status == 200 for status, _ in answers)
    refused = [json.loads(a) for _, a in answers if b"sideUpdate" in a]
    assert refused and len(refused) <= 12 - 3, len(refused)  # the burst was served first
    words = content.text("en", "public")["rate"].split("{rate}")[0]
    assert all(words in r["sideUpdate"]["live-notice"]["children"] and r["response"] == {} for r in refused)
    status, headers, page = tight.request("GET", "/definition?lang=zh", headers={"X-Real-IP": "10.0.0.2"})
    assert status == 429 and int(headers["Retry-After"]) >= 1 and content.text("zh", "public")["rate"].split("{rate}")[0] in page.decode()
    assert tight.post_callback(body, {"X-Real-IP": "10.0.0.3"})[1].count(b"sideUpdate") == 0  # another client: served
    assert tight.get("/healthz")[0] == 200  # never limited
    assert all(ln["status"] < 500 for ln in tight.log_lines())
    assert sum(ln.get("refused") == "rate" for ln in tight.log_lines()) == len(refused) + 1


def test_a_fresh_public_server_charges_no_visitor_for_its_own_start(data):
    """Pages import gelu_lab.torch on first use (about 2 s of CPU on a Zen 3); a public server imports
    it before it serves, so the first visitor of /implementation stays within a budget that the
    import alone would overrun."""
    with Served("--public", "--budget-seconds", "1.8", data=data) as s:
        status, body = s.get("/_dash-layout", {"Referer": f"{s.base}/implementation?lang=zh"})
    assert status == 200, body[:300].decode(errors="replace")
