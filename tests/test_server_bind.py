"""`gelu-lab serve` binds loopback unless --host says otherwise, and its banner says where.

The listening socket's address is read from the kernel (/proc/net/tcp), not from
the banner: the banner could lie, the kernel's table cannot.
"""

from __future__ import annotations

import os
import re
import select
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from gelu_lab.commands.serve import exposure

CMD = [sys.executable, "-m", "gelu_lab", "serve", "--port", "0"]
LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp's st column


def listening_addresses(port: int) -> set[str]:
    """Dotted IPv4 addresses of the sockets listening on `port`, from /proc/net/tcp."""
    found = set()
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        addr, p = local.split(":")
        if state == LISTEN and int(p, 16) == port:
            found.add(socket.inet_ntoa(bytes.fromhex(addr)[::-1]))  # little-endian hex
    return found


def outward_address() -> str | None:
    """This machine's address on its default route (a UDP connect sends nothing), or None if it has none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: routed like any outside address, never contacted
        except OSError:
            return None
        a = s.getsockname()[0]
    return None if a.startswith("127.") or a == "0.0.0.0" else a


def start(*extra):
    """(process, port, first stdout line, stderr lines so far) of a `serve` subprocess."""
    p = subprocess.Popen(CMD + list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    line = p.stdout.readline()
    m = re.search(r"http://[^/]+:(\d+)/", line)
    if not m:
        p.kill()
        pytest.fail(f"no banner: {line!r} {p.stderr.read()!r}")
    return p, int(m.group(1)), line


def stop(p):
    p.terminate()
    try:
        _, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    return err


def can_connect(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=5):
            return True
    except OSError:
        return False


def test_default_binds_loopback_only():
    p, port, banner = start()
    try:
        assert f"http://127.0.0.1:{port}/" in banner and "public" not in banner
        assert listening_addresses(port) == {"127.0.0.1"}
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            assert s.getpeername() == ("127.0.0.1", port)
        out = outward_address()
        if out is not None:  # the same port on the machine's own network address: refused
            assert not can_connect(out, port)
        body = urllib.request.urlopen(f"http://127.0.0.1:{port}/?lang=en", timeout=30).read().decode()
        assert "_dash-config" in body
    finally:
        err = stop(p)
    assert "warning" not in err


def test_all_interfaces_only_when_asked_and_the_banner_warns():
    p, port, banner = start("--host", "0.0.0.0")
    try:
        assert f"http://0.0.0.0:{port}/" in banner and "public: no jobs, no writes" in banner  # public mode: the default off loopback
        deadline = time.time() + 30
        warning = ""
        while "warning" not in warning and time.time() < deadline:
            if select.select([p.stderr], [], [], 1)[0]:  # never block on a server that says nothing
                warning = p.stderr.readline()
        assert warning.strip() == f"gelu-lab: warning: listening on all interfaces (0.0.0.0) port {port}: the app is reachable from the network"
        assert listening_addresses(port) == {"0.0.0.0"}
        assert can_connect("127.0.0.1", port)
        out = outward_address()
        if out is not None:
            assert can_connect(out, port)
    finally:
        stop(p)


def test_exposure_words():
    assert exposure("127.0.0.1", 1) is None and exposure("::1", 1) is None and exposure("localhost", 1) is None
    assert "all interfaces" in exposure("::", 8050) and "8050" in exposure("::", 8050)
    assert "192.168.1.5" in exposure("192.168.1.5", 80) and "not a loopback" in exposure("192.168.1.5", 80)


def test_empty_host_is_a_one_line_error():
    r = subprocess.run(CMD + ["--host", " "], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--host" in r.stderr
