"""nginx in front of N public replicas, as `gelu-lab deploy` writes them, for bench/bench_load.py.

    with Stack(replicas=2, threads=8) as stack:     # deploy into a temporary folder, run.sh, wait until warm
        stack.base                                  # nginx's URL
        stack.pids(), stack.replica_pids            # for their CPU time (cpu_jiffies)
        stack.log_marks(), stack.log_errors(marks)  # what the replicas logged since: errors only

Not a measurement itself: a helper of bench_load.py.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

QUEUED = "Task queue depth is"
WARM_S = 600  # a bound for the replicas' warm-up (every page rendered in both languages)


def free_ports(n: int) -> list[int]:
    """n consecutive ports on 127.0.0.1, free now, below the kernel's ephemeral range: a port the
    kernel hands out for a connection (bind to port 0, or any client socket of another test or of
    a browser) can be taken again between this check and the server's bind, and a client socket's
    local port also refuses a server's bind; below the range (above it, where the range starts
    too low) only another listening server can take one, and this checks that none holds any."""
    span = Path("/proc/sys/net/ipv4/ip_local_port_range")
    low, high = map(int, span.read_text().split()) if span.exists() else (32768, 60999)
    # below the range where there is room (1024: the first unprivileged port), else above it
    lo, hi = (max(1024, low - 12000), low - n) if low - n > 1024 + 1000 else (high + 1, 65536 - n)
    if hi <= lo:
        raise SystemExit(f"no room for {n} ports outside the ephemeral range {low}-{high}")
    rng = random.Random()  # its own: the tests seed the global one alike in every worker
    for _ in range(200):
        start = rng.randrange(lo, hi)
        socks = []
        try:
            for port in range(start, start + n):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
        return list(range(start, start + n))
    raise SystemExit(f"no {n} consecutive free ports in {lo}..{hi + n - 1}")


def cpu_jiffies(pids) -> dict[int, int]:
    """{pid: user + system clock ticks} of the processes still there."""
    out = {}
    for pid in pids:
        try:
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[pid] = int(f[11]) + int(f[12])  # utime, stime (fields 14 and 15)
    return out


def machine_jiffies() -> tuple[int, int]:
    """(busy, of which niced) clock ticks of all CPUs since boot, from /proc/stat: niced work
    (nice > 0, a long experiment) yields the CPU to the servers; the rest competes with them."""
    v = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = v[3] + v[4]  # idle, iowait
    return sum(v) - idle, v[1]


def _children(pid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d))
            except OSError:
                continue
    return out


class Stack:
    def __init__(self, replicas: int, threads: int = 8, keep: bool = False, serve_args: str = ""):
        self.replicas, self.threads, self.keep = replicas, threads, keep  # keep: leave the folder (logs) for a look
        self.serve_args = serve_args

    def __enter__(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="gelu-lab-load-"))
        self.site = self.tmp / "site"
        front, first, *_ = free_ports(1 + self.replicas)  # nginx's, then the replicas' from `first` on
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        subprocess.run([sys.executable, "-m", "gelu_lab", "deploy", str(self.site), "--replicas", str(self.replicas), "--port", str(front),
                        "--first-port", str(first), "--listen", "127.0.0.1", "--threads", str(self.threads), "--nginx", nginx, "--serve-args", self.serve_args],
                       check=True, capture_output=True, text=True, timeout=60)
        env = {**os.environ, "GELU_LAB_DATA": str(self.tmp / "data")}  # an empty store: the shipped results, as on a fresh install
        env.pop("GELU_LAB_STORE", None)
        r = subprocess.run(["sh", str(self.site / "run.sh")], capture_output=True, text=True, timeout=WARM_S, env=env)
        self.replica_pids = {int(p.read_text()) for p in (self.site / "run").glob("replica-*.pid")}
        if r.returncode != 0:
            self.__exit__()
            raise SystemExit(f"bench_load: the stack did not start: {r.stderr.strip()[-500:]}")
        self.nginx_pid = int((self.site / "run" / "nginx.pid").read_text())
        self.base = f"http://127.0.0.1:{front}"
        self.ports = [first + i for i in range(self.replicas)]
        self._wait_warm()
        return self

    def _wait_warm(self):
        deadline = time.monotonic() + WARM_S
        for port in self.ports:
            while json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30).read())["warm"] is not True:
                if time.monotonic() > deadline:
                    raise SystemExit(f"bench_load: the replica on port {port} did not warm up in {WARM_S} s")
                time.sleep(0.5)

    def pids(self) -> set[int]:
        return self.replica_pids | {self.nginx_pid, *_children(self.nginx_pid)}

    def _logs(self):
        return sorted((self.site / "logs").glob("replica-*.log"))

    def log_marks(self) -> dict:
        return {p: p.stat().st_size for p in self._logs()}

    def log_errors(self, marks: dict) -> list[str]:
        """What the replicas logged since `marks` that is an error: a 5xx, or any line but an access-log line."""
        out = []
        for p in self._logs():
            with open(p, "rb") as f:
                f.seek(marks.get(p, 0))
                for raw in f.read().decode(errors="replace").splitlines():
                    if not raw.strip():
                        continue
                    try:
                        status = json.loads(raw)["status"] if raw.startswith("{") else None
                    except (ValueError, KeyError):
                        status = None
                    if status is None and QUEUED in raw:  # waitress: requests wait for a thread (a busy replica, not an error)
                        continue
                    if status is None or status >= 500:
                        out.append(f"server {p.stem}: {raw[:200]}")
        return out

    def __exit__(self, *exc):
        subprocess.run(["sh", str(self.site / "stop.sh")], capture_output=True, timeout=60)
        if self.keep:
            print(f"bench_load: the stack's files and logs are in {self.tmp}", file=sys.stderr)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)
