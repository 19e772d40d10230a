"""`gelu-lab serve`: banner, loopback by default, one-line errors."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import urllib.request

from gelu_lab.commands.serve import is_loopback

CMD = [sys.executable, "-m", "gelu_lab", "serve"]


def test_is_loopback():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.1.2.3")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5") and not is_loopback("example.org")


def test_serve_prints_url_and_answers():
    p = subprocess.Popen(CMD + ["--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = p.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        body = urllib.request.urlopen(f"http://127.0.0.1:{m.group(1)}/definition?x=2", timeout=30).read().decode()
        assert "GELU Lab" in body and "_dash-config" in body
        # the debug UI and hot reload are off
        assert '"ui":false' in body.replace(" ", "") or '"ui": false' in body
    finally:
        p.terminate()
        p.wait(timeout=10)


def test_bad_port_and_busy_port_are_one_line_errors():
    r = subprocess.run(CMD + ["--port", "70000"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--port" in r.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        r = subprocess.run(CMD + ["--port", str(s.getsockname()[1])], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "Address already in use" in r.stderr


def _children(pid: int) -> set[int]:
    out = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(d))
    return out


def _alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_gone(pids, seconds: float) -> set[int]:
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end and any(_alive(q) for q in pids):
        time.sleep(0.1)
    return {q for q in pids if _alive(q)}


def _start_processes(n: int):
    p = subprocess.Popen(CMD + ["--port", "0", "--processes", str(n)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "PYTHONUNBUFFERED": "1"})
    line = p.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/.*2 processes", line)
    assert m, line
    return p, int(m.group(1))


def test_two_processes_share_the_port_and_stop_together():
    p, port = _start_processes(2)
    try:
        workers = _children(p.pid)
        assert len(workers) == 1  # the first process serves too
        for _ in range(6):  # either process may answer; each answers
            assert b"_dash-config" in urllib.request.urlopen(f"http://127.0.0.1:{port}/relu", timeout=60).read()
    finally:
        p.terminate()  # SIGTERM: the server stops, and its worker with it
        p.wait(timeout=20)
    assert "Traceback" not in p.stderr.read()
    assert _wait_gone(workers, 10) == set()


def test_a_killed_server_takes_its_workers_with_it():
    p, _ = _start_processes(2)
    workers = _children(p.pid)
    p.kill()
    p.wait(timeout=10)
    assert workers and _wait_gone(workers, 10) == set()


def test_bad_processes_is_one_line():
    r = subprocess.run(CMD + ["--processes", "0"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--processes" in r.stderr
