"""Load test: a class of readers against N public replicas behind Debian's nginx, on loopback.

    .venv/bin/python bench/bench_load.py                     # 1 and 2 replicas x 50, 100, 200 readers, 60 s each
    .venv/bin/python bench/bench_load.py --replicas 1 --clients 5 --seconds 5 --out /tmp/load.json

For each number of replicas: `gelu-lab deploy` into a temporary folder (nginx on a free port,
each replica `gelu-lab serve --public`, one process), its run.sh, a wait until every replica
has warmed up (/healthz), a warm-up run of --warmup seconds (not counted); then for each
number of clients, that many readers for --seconds, arriving one after another over the
first --ramp seconds. A reader (bench/load_site.py learns the
app) has its own loopback address (127.0.0.2, ...: nginx passes it on, and the replicas'
per-client rate limit sees a class, not one client) and one keep-alive connection, and
visits pages: the page, a share (--cold) of visits with an empty cache fetching every script
and style, Dash's layout and dependencies (back to back, as a browser), then 2 to 6 times
a pause (--think s on average, 0.5 to 1.5 times it) and a callback, sometimes an in-app
navigation, a pause, the next visit.

An error: a failed connection, an HTTP status but 200 (204 for a callback), a callback
answer that is not Dash's JSON, a refusal (rate or budget: the server's notice), a 5xx or any
line but an access-log line in a replica's log. Figures per run: requests/s, p50/p95/p99 of
the page, its layout and the callbacks, errors, and where the CPU went (replicas, nginx, this
script, other work at the same priority, niced work, which yields to the servers, idle). Written through bench/record.py to
bench/results/load.json; `make docs` renders them.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import record  # noqa: E402
from load_site import Site, _split_output  # noqa: E402
from load_stack import Stack, cpu_jiffies, machine_jiffies  # noqa: E402

KINDS = ["page", "asset", "layout", "dependencies", "callback", "route"]


def address(i: int) -> str:
    """Reader i's loopback address: 127.0.0.2 to 127.0.0.251, then 127.0.1.2, ..."""
    return f"127.0.{i // 250}.{i % 250 + 2}"


class Reader(threading.Thread):
    def __init__(self, site: Site, i: int, seed: int, start: float, deadline: float, cold: float, think: float):
        super().__init__(daemon=True)
        self.site, self.source = site, address(i)
        self.rng, self.start_at, self.deadline, self.cold, self.think = random.Random(seed), start, deadline, cold, think
        self.lat = {k: [] for k in KINDS}
        self.errors: list[str] = []
        self.refused = 0
        self.unchanged = {k: 0 for k in KINDS}  # 204: the callback changed nothing
        self.conn = None

    def pause(self):
        if self.think:
            time.sleep(self.think * self.rng.uniform(0.5, 1.5))

    def req(self, kind, method, path, body=None, headers=None):
        import http.client
        from urllib.parse import urlsplit

        if time.time() >= self.deadline:
            raise TimeoutError
        if self.conn is None:
            self.conn = http.client.HTTPConnection(urlsplit(self.site.base).netloc, timeout=60, source_address=(self.source, 0))
        t0 = time.perf_counter()
        try:
            self.conn.request(method, path, body=body, headers=headers or {})
            r = self.conn.getresponse()
            data = r.read()
        except (OSError, http.client.HTTPException) as e:
            self.conn.close()
            self.conn = None
            self.errors.append(f"{kind} {method} {path[:80]}: {type(e).__name__}: {e}")
            return
        self.lat[kind].append((time.perf_counter() - t0) * 1e3)
        callback = kind in ("callback", "route")
        ok = r.status == 200 or (r.status == 204 and callback)
        self.unchanged[kind] += r.status == 204
        if ok and r.status == 200 and callback:
            ok = data.startswith(b'{"multi"') or b'"response"' in data[:200]  # Dash's answer (not parsed: the client's CPU is the machine's)
            if ok and b'"sideUpdate"' in data and b"live-notice" in data:
                self.refused += 1
                ok = False
        if not ok:
            self.errors.append(f"{kind} {method} {path[:80]}: HTTP {r.status} {data[:160]!r}")

    def visit(self):
        site, rng = self.site, self.rng
        route, lang = rng.choice(site.routes), rng.choice(["en", "zh"])
        url = f"{route}?lang={lang}"
        self.req("page", "GET", url)
        if rng.random() < self.cold:
            for a in sorted(site.assets):
                self.req("asset", "GET", a)
        self.req("layout", "GET", "/_dash-layout", headers={"Referer": site.base + url})
        self.req("dependencies", "GET", "/_dash-dependencies")
        callbacks = site.pages[route][1]
        json_type = {"Content-Type": "application/json", "Referer": site.base + url}
        for _ in range(rng.randint(2, 6) if callbacks else 0):
            self.pause()
            self.req("callback", "POST", "/_dash-update-component", site.callback_body(route, rng.choice(callbacks), rng), json_type)
        if rng.random() < 0.3:
            self.pause()
            self.req("route", "POST", "/_dash-update-component", site.route_body(rng.choice(site.routes), lang), json_type)
        self.pause()

    def run(self):
        time.sleep(max(0.0, self.start_at - time.time()))
        try:
            while time.time() < self.deadline:
                self.visit()
        except TimeoutError:
            pass
        finally:
            if self.conn is not None:
                self.conn.close()


def pct(a, q) -> float | None:
    return round(float(np.percentile(np.asarray(a), q)), 1) if a else None


def measure(stack: Stack, site: Site, clients: int, seconds: float, args) -> dict:
    """`clients` readers for `seconds`: latencies, errors and CPU of one run."""
    log_from = stack.log_marks()
    procs0, mine0, all0 = cpu_jiffies(stack.pids()), time.process_time(), machine_jiffies()
    t0 = time.time()
    ramp = min(args.ramp, seconds / 2)  # the class arrives over the ramp, one reader after another
    readers = [Reader(site, i, args.seed * 1000 + i, t0 + ramp * i / clients, t0 + seconds, args.cold, args.think) for i in range(clients)]
    for r in readers:
        r.start()
    for r in readers:
        r.join(timeout=seconds + 120)  # a request in flight at the deadline may finish
    wall = time.time() - t0
    tick = os.sysconf("SC_CLK_TCK")
    procs1, mine, all1 = cpu_jiffies(stack.pids()), time.process_time() - mine0, machine_jiffies()
    replicas_s = sum(procs1[p] - procs0.get(p, 0) for p in procs1 if p in stack.replica_pids) / tick
    nginx_s = sum(procs1[p] - procs0.get(p, 0) for p in procs1 if p not in stack.replica_pids) / tick
    busy_s, niced_s = (all1[0] - all0[0]) / tick, (all1[1] - all0[1]) / tick
    lat = {k: [v for r in readers for v in r.lat[k]] for k in KINDS}
    errors = [e for r in readers for e in r.errors] + stack.log_errors(log_from)
    errors += [f"{n} readers still waiting at the end"] if (n := sum(r.is_alive() for r in readers)) else []
    total = sum(len(v) for v in lat.values())
    cpus = os.cpu_count() or 1
    return {
        "replicas": stack.replicas, "clients": clients, "seconds": seconds, "wall_s": round(wall, 1), "requests": total,
        "requests_per_s": round(total / wall, 1), "errors": len(errors), "refused": sum(r.refused for r in readers),
        "kinds": {k: {"n": len(v), "n_204": sum(r.unchanged[k] for r in readers), "p50_ms": pct(v, 50), "p95_ms": pct(v, 95), "p99_ms": pct(v, 99), "max_ms": pct(v, 100)} for k, v in lat.items()},
        "cpu_share": {"replicas": round(replicas_s / (wall * cpus), 3), "nginx": round(nginx_s / (wall * cpus), 3),
                      "load_generator": round(mine / (wall * cpus), 3),
                      "other": round(max(0.0, busy_s - niced_s - replicas_s - nginx_s - mine) / (wall * cpus), 3),
                      "other_niced": round(niced_s / (wall * cpus), 3),
                      "idle": round(max(0.0, 1 - busy_s / (wall * cpus)), 3)},
        "loadavg_after": [round(v, 2) for v in os.getloadavg()], "error_samples": errors[:10],
    }


def show(run: dict) -> str:
    k, c = run["kinds"], run["cpu_share"]
    f = lambda s: "/".join("-" if s[q] is None else f"{s[q]:.0f}" for q in ("p50_ms", "p95_ms", "p99_ms"))  # noqa: E731
    return (f"{run['replicas']} replica(s) {run['clients']:4d} readers: {run['requests_per_s']:6.1f} req/s, page {f(k['page'])}, "
            f"layout {f(k['layout'])}, callback {f(k['callback'])} ms (p50/p95/p99), errors {run['errors']} (refused {run['refused']}); "
            f"CPU replicas {c['replicas']:.0%} nginx {c['nginx']:.0%} generator {c['load_generator']:.0%} other {c['other']:.0%} "
            f"other niced {c['other_niced']:.0%} idle {c['idle']:.0%}")


def figures_of(run: dict) -> dict:
    who = f"{run['replicas']} replica{'s' if run['replicas'] > 1 else ''}, {run['clients']} readers"
    k, c = run["kinds"], run["cpu_share"]
    three = lambda s: " / ".join("-" if s[q] is None else f"{s[q]:g}" for q in ("p50_ms", "p95_ms", "p99_ms"))  # noqa: E731
    return {f"{who}: requests per second": run["requests_per_s"], f"{who}: page p50 / p95 / p99, ms": three(k["page"]),
            f"{who}: layout p50 / p95 / p99, ms": three(k["layout"]), f"{who}: callback p50 / p95 / p99, ms": three(k["callback"]),
            f"{who}: errors (refused)": f"{run['errors']} ({run['refused']})",
            f"{who}: CPU share replicas / nginx / load generator / other work / other niced work / idle": " / ".join(f"{100 * c[x]:.0f} %" for x in c)}


def _ints(text: str, name: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"bench_load: {name} takes whole numbers separated by commas, got {text!r}") from None
    if not out or min(out) < 1:
        raise SystemExit(f"bench_load: {name} must be at least 1")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicas", default="1,2", help="numbers of replicas, one stack each (default 1,2)")
    ap.add_argument("--clients", default="50,100,200", help="numbers of readers, one run each (default 50,100,200)")
    ap.add_argument("--seconds", type=float, default=60.0, help="length of each run (default 60)")
    ap.add_argument("--warmup", type=float, default=15.0, help="a first run of this many seconds with 20 readers, not counted")
    ap.add_argument("--think", type=float, default=1.0, help="a reader's mean pause before each action, s (0: none, a stress test)")
    ap.add_argument("--ramp", type=float, default=10.0, help="the readers arrive one after another over this many seconds (default 10)")
    ap.add_argument("--cold", type=float, default=0.2, help="share of visits with an empty cache (fetch every asset)")
    ap.add_argument("--threads", type=int, default=8, help="worker threads per replica (serve's default)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-rate-limit", action="store_true", help="replicas without the per-client rate (a stress test: --think 0)")
    ap.add_argument("--keep", action="store_true", help="leave each stack's folder (its logs: one JSON line per request) in /tmp")
    ap.add_argument("--name", default="load", help="the result's name: bench/results/NAME.json (default load; the stress test: load_stress)")
    ap.add_argument("--out", default=None, help="the JSON elsewhere than bench/results (a test's short run)")
    args = ap.parse_args(argv)
    replicas, clients = _ints(args.replicas, "--replicas"), _ints(args.clients, "--clients")
    if args.seconds <= 0 or args.think < 0 or not 0 <= args.cold <= 1:
        raise SystemExit("bench_load: --seconds > 0, --think >= 0, --cold in 0..1")
    runs: list[dict] = []
    setup = {"think_s": args.think, "ramp_s": args.ramp, "cold_share": args.cold, "seconds": args.seconds, "warmup_s": args.warmup, "replica_threads": args.threads,
             "seed": args.seed, "rate_limit": not args.no_rate_limit, "loadavg_before": [round(v, 2) for v in os.getloadavg()]}
    with record.recording(args.name, path=Path(args.out) if args.out else None, setup=setup, runs=runs) as figures:
        for n in replicas:
            with Stack(n, args.threads, keep=args.keep, serve_args="--rate 0 --cpu-rate 0" if args.no_rate_limit else "") as stack:
                site = Site(stack.base)
                print(f"{stack.base}: {n} replica(s) behind nginx; {len(site.routes)} pages, {len(site.assets)} assets, "
                      f"{sum(len(cbs) for _, cbs in site.pages.values())} callbacks; think {args.think:g} s, cold {args.cold:g}", flush=True)
                if args.warmup > 0:
                    measure(stack, site, 20, args.warmup, args)
                for c in clients:
                    run = measure(stack, site, c, args.seconds, args)
                    runs.append(run)
                    figures.update(figures_of(run))
                    print(show(run), flush=True)
                    for e in run["error_samples"][:5]:
                        print("  " + e)
        print(f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} CPUs (before: {' '.join(map(str, setup['loadavg_before']))})")
    return 1 if any(r["errors"] for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
