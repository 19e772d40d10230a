"""`gelu-lab deploy`: Debian's nginx (installed by `make test`) in front of two public replicas
on loopback, started by the run.sh it writes, as this user, on free unprivileged ports, with
its files in a temporary folder: pages, callbacks and /healthz through nginx, and one replica
killed under requests without a client error beyond the requests in flight."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from servers import callback_request

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from load_stack import free_ports  # noqa: E402

pytestmark = pytest.mark.xdist_group("public")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
CLIENTS = 4


def get(port: int, path: str, body: bytes | None = None, source: str = "127.0.0.1") -> tuple[int, bytes]:
    """GET (POST with a body) through a new connection from address `source` (127.0.0.0/8: each
    client of a test its own address, as a class's are: the replicas' rate limit is per client)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
    try:
        headers = {"Content-Type": "application/json"} if body else {}
        conn.request("POST" if body else "GET", path, body=body, headers=headers)
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def _alive(pid: int) -> bool:
    """Running, not a zombie (the replicas' parent, run.sh's shell, is gone: init reaps them when it can)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _deploy(d: Path, front: int, first: int) -> Path:
    """`gelu-lab deploy` of two replicas into d/site: nginx on `front`, the replicas on `first` and the next port."""
    r = subprocess.run([sys.executable, "-m", "gelu_lab", "deploy", str(d / "site"), "--replicas", "2", "--port", str(front),
                        "--first-port", str(first), "--listen", "127.0.0.1", "--nginx", NGINX], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return d / "site"


def _started(d: Path):
    """Deploy two replicas into `d`, start them and nginx; yield (site, nginx's port, replica pids); stop all."""
    assert Path(NGINX).exists(), f"no nginx at {NGINX}: `make test` installs Debian's nginx (make nginx)"
    front, first, _ = free_ports(3)
    site = _deploy(d, front, first)
    check = subprocess.run([NGINX, "-t", "-p", str(site), "-c", str(site / "nginx.conf"), "-e", str(site / "logs" / "error.log")],
                           capture_output=True, text=True, timeout=30)
    assert check.returncode == 0, check.stderr
    env = {**os.environ, "GELU_LAB_DATA": str(d / "data")}
    started = subprocess.run(["sh", str(site / "run.sh")], capture_output=True, text=True, timeout=300, env=env)
    pids = [int((site / "run" / f"replica-{i}.pid").read_text()) for i in (1, 2) if (site / "run" / f"replica-{i}.pid").exists()]
    try:
        assert started.returncode == 0, started.stdout + started.stderr + (site / "logs" / "replica-1.log").read_text()[-2000:]
        yield site, front, pids
    finally:
        subprocess.run(["sh", str(site / "stop.sh")], capture_output=True, timeout=60)
        for pid in pids:  # stop.sh's work, made sure of
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """One stack for the tests that only ask it things."""
    yield from _started(tmp_path_factory.mktemp("deploy"))


@pytest.fixture
def own_stack(tmp_path):
    """A stack of the test's own, for a test that kills or stops it: the others' stays whole in any order."""
    yield from _started(tmp_path)


def test_the_files_it_writes(stack):
    site, front, _ = stack
    conf = (site / "gelu-lab.conf").read_text()
    assert conf.count("server 127.0.0.1:") == 2 and f"listen 127.0.0.1:{front};" in conf and "X-Real-IP $remote_addr" in conf
    assert "non_idempotent" in conf  # callbacks are retried on the other replica
    whole = (site / "nginx.conf").read_text()
    assert all(str(site) in ln for ln in whole.splitlines() if ln.strip().startswith(("pid ", "error_log ", "include ")) or "_temp_path" in ln)
    assert "/etc/" not in whole and "/var/" not in whole  # nothing of the system's


def test_pages_callbacks_and_health_through_nginx(stack):
    _, front, pids = stack
    status, body = get(front, "/healthz")
    h = json.loads(body)
    assert status == 200 and h["public"] is True and h["jobs"] is False and h["store"] == "none"
    seen = {json.loads(get(front, "/healthz")[1])["pid"] for _ in range(8)}
    assert seen == set(pids)  # nginx spreads the requests over both replicas
    for path in ("/?lang=en", "/definition?x=2", "/implementation?lang=zh"):
        status, body = get(front, path)
        assert status == 200 and b"_dash-config" in body
    deps = json.loads(get(front, "/_dash-dependencies")[1])
    body = callback_request(deps, "definition-n", "value", {("definition-x", "value"): 1.0, ("definition-n", "value"): 300,
                                                             ("definition-seed", "value"): 0, ("lang", "data"): "en"})
    status, answer = get(front, "/_dash-update-component", json.dumps(body).encode())
    assert status == 200 and "definition-bernoulli" in json.loads(answer)["response"]


def test_a_replica_killed_under_requests_costs_no_client_error(own_stack):
    """Clients keep asking (pages and callbacks) while one replica is killed (SIGKILL): nginx
    retries what that replica did not answer on the other one. At most the requests in flight
    at the kill may fail; after it every request is answered."""
    site, front, pids = own_stack
    deps = json.loads(get(front, "/_dash-dependencies")[1])
    body = json.dumps(callback_request(deps, "definition-n", "value", {("definition-x", "value"): 0.5, ("definition-n", "value"): 200,
                                                                        ("definition-seed", "value"): 1, ("lang", "data"): "en"})).encode()
    stop, results = threading.Event(), []

    def client(k: int):
        me = f"127.0.0.{10 + k}"
        while not stop.is_set():
            try:
                status, answer = get(front, "/_dash-update-component", body, me) if k % 2 else get(front, "/relu?lang=en", None, me)
                if status == 200 and k % 2 and b"sideUpdate" in answer:  # a refusal (rate) would be a failure here too
                    status = "refused"
            except OSError as e:
                status = repr(e)
            results.append(status)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(CLIENTS)]
    for t in threads:
        t.start()
    while len(results) < 20:  # requests answered before the kill
        time.sleep(0.05)
    os.kill(pids[0], signal.SIGKILL)
    at_kill = len(results)
    while len(results) < at_kill + 40:  # requests after it
        time.sleep(0.05)
    stop.set()
    for t in threads:
        t.join(timeout=120)
    failed = [r for r in results if r != 200]
    assert len(failed) <= CLIENTS, failed  # only requests in flight at the kill
    assert all(r == 200 for r in results[at_kill + CLIENTS:]), results[at_kill:]
    assert not _alive(pids[0]) and json.loads(get(front, "/healthz")[1])["pid"] == pids[1]
    log = (site / "logs" / "error.log").read_text()
    assert "[error]" in log and "upstream" in log, log  # nginx saw it go (a request cut, a refused connect), and went on


def test_stop_stops_everything(own_stack):
    site, front, pids = own_stack
    subprocess.run(["sh", str(site / "stop.sh")], capture_output=True, timeout=60, check=True)
    deadline = time.monotonic() + 30  # a bound, not a timing: processes end when the kernel gets to them
    while time.monotonic() < deadline and (any(_alive(p) for p in pids) or (site / "run" / "nginx.pid").exists()):
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids) and not (site / "run" / "nginx.pid").exists()
    with pytest.raises(OSError):
        get(front, "/healthz")


@pytest.mark.parametrize("busy", ["replica", "nginx"])
def test_a_stack_that_cannot_start_says_why_at_once_and_stops_the_replicas(tmp_path, busy):
    """The second replica's port is busy (run.sh fails with that replica's own words, not after
    waiting out its 240 tries on a port that never answers), or nginx's is: either way no
    replica is left running."""
    front, first, second = free_ports(3)
    site = _deploy(tmp_path, front, first)
    try:
        with socket.create_server(("127.0.0.1", second if busy == "replica" else front)):
            started = subprocess.run(["sh", str(site / "run.sh")], capture_output=True, text=True, timeout=300,
                                     env={**os.environ, "GELU_LAB_DATA": str(tmp_path / "data")})
        assert started.returncode == 1
        if busy == "replica":
            assert started.stderr.strip().splitlines() == [
                f"gelu-lab deploy: replica on port {second} exited: gelu-lab: error: OSError: [Errno 98] Address already in use"]
        else:
            assert started.stderr.strip().splitlines()[-1] == "gelu-lab deploy: nginx did not start (logs/error.log)", started.stderr
            assert "Address already in use" in (site / "logs" / "error.log").read_text()
        assert not list((site / "run").glob("*.pid")) and not (site / "run" / "nginx.pid").exists()
        deadline = time.monotonic() + 30  # a bound, not a timing: SIGTERM ends them when the kernel gets to it
        while time.monotonic() < deadline and (_serving(first) or _serving(second)):
            time.sleep(0.1)
        assert not _serving(first) and not _serving(second)
    finally:
        subprocess.run(["sh", str(site / "stop.sh")], capture_output=True, timeout=60)
        for pid in _serving(first) + _serving(second):  # stop.sh's work, made sure of, whatever failed above
            os.kill(pid, signal.SIGKILL)


def _serving(port: int) -> list[int]:
    """The live `gelu_lab serve` processes of this port."""
    found = []
    for d in Path("/proc").iterdir():
        try:
            argv = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"gelu_lab" in argv and b"serve" in argv and str(port).encode() in argv and _alive(int(d.name)):
            found.append(int(d.name))
    return found
