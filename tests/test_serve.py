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
