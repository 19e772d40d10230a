"""Load test: concurrent clients against `gelu-lab serve` on loopback, bounded in time.

    .venv/bin/python bench/bench_load.py                       # 20 clients, 60 s
    .venv/bin/python bench/bench_load.py --clients 5 --seconds 5 --out /tmp/load.json

Starts `gelu-lab serve --port 0` in a subprocess (127.0.0.1, a free port), learns
the app from the app itself (each page of the registry, the scripts and
styles its HTML names, Dash's /_dash-layout for that page and /_dash-dependencies),
then runs N client threads for T seconds. Each client is a reader, one
keep-alive connection, visiting pages in a loop:

- GET the page (``/relu?lang=en``); a share of visits (``--cold``) comes with an
  empty cache and also GETs every script and stylesheet of the HTML;
- GET /_dash-layout (with the page as Referer: the server renders it) and
  /_dash-dependencies, as the Dash renderer does;
- 2 to 6 callback POSTs to /_dash-update-component, built from the dependencies:
  every server-side callback whose inputs are on that page, with its inputs'
  values taken from the page's layout and moved the way a reader moves them
  (a slider to another point of its grid, another dropdown option, another
  subset of a checklist), pattern-matching ones (MATCH, ALL) on the instances
  the page holds; buttons of class ``run-button`` (background jobs) are left out;
- sometimes an in-app navigation: the routing callback for another page.

An error is a connection failure, an HTTP status other than 200 (204 for a
callback that changes nothing), a callback answer that is not Dash's JSON, or a
line the server logs for a request that failed (a failing callback is answered
204 and logged). Prints requests, errors, throughput and p50 / p95 / p99 latency
per kind; writes the same as JSON to --out (default bench/results/load.json).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

KINDS = ["page", "asset", "layout", "dependencies", "callback", "route"]
ROUTE_OUTPUT = "..shell.children...rendered.data.."
SERVER_ERROR = re.compile(r"^(GET|POST|PUT|DELETE|HEAD) /|Exception|Traceback|ERROR")


# --- the server ----------------------------------------------------------------------------


def start_server(threads: int, errlog):
    """`gelu-lab serve` on a free loopback port: (process, base URL)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    p = subprocess.Popen([sys.executable, "-m", "gelu_lab", "serve", "--port", "0", "--threads", str(threads)],
                         stdout=subprocess.PIPE, stderr=errlog, text=True, env=env)
    m = re.search(r"(http://127\.0\.0\.1:\d+)/", p.stdout.readline())
    if not m:
        p.kill()
        raise SystemExit("bench_load: the server did not start")
    return p, m.group(1)


def stop_server(p) -> None:
    p.terminate()
    try:
        p.wait(timeout=15)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


# --- what a reader's browser asks for, learnt from the app --------------------------------


def _get(conn, path: str, headers=None) -> tuple[int, bytes]:
    conn.request("GET", path, headers=headers or {})
    r = conn.getresponse()
    return r.status, r.read()


def _key(cid) -> str:
    """A component id as Dash writes it in a request: the string, or the dict as sorted compact JSON."""
    return cid if isinstance(cid, str) else json.dumps(cid, sort_keys=True, separators=(",", ":"))


def _components(node, out: dict) -> dict:
    """{id key: (type, props)} for every component with an id in a /_dash-layout tree."""
    if isinstance(node, list):
        for n in node:
            _components(n, out)
    elif isinstance(node, dict) and "props" in node:
        props = node["props"]
        if isinstance(props.get("id"), (str, dict)):
            out[_key(props["id"])] = (node.get("type"), props)
        for v in props.values():
            if isinstance(v, (list, dict)):
                _components(v, out)
    return out


def _split_output(output: str) -> tuple[list[dict], bool]:
    """([{id, property}], multi) for an output string ("id.prop" or "..a.p...b.q.."); ids as written."""

    def one(s):
        cid, prop = s.rsplit(".", 1)
        return {"id": cid, "property": prop.split("@")[0]}

    if output.startswith("..") and output.endswith(".."):
        return [one(s) for s in output[2:-2].split("...")], True
    return [one(output)], False


def _pattern(cid: str) -> dict | None:
    return json.loads(cid) if cid.startswith("{") else None


def _matches(pattern: dict, cid: dict, binding: dict) -> bool:
    if cid.keys() != pattern.keys():
        return False
    for k, v in pattern.items():
        if v == ["MATCH"] and k in binding and cid[k] != binding[k]:
            return False
        if not isinstance(v, list) and cid[k] != v:
            return False
    return True


def resolve(cid: str, comps: dict, binding: dict) -> list[str] | str | None:
    """The id key(s) a dependency's id stands for on this page: a plain id, one id for
    MATCH (under `binding`, which it extends), a list for ALL; None if absent."""
    pattern = _pattern(cid)
    if pattern is None:
        return cid if cid in comps else None
    if any(v == ["ALLSMALLER"] for v in pattern.values()):
        return None
    found = [k for k in comps if k.startswith("{") and _matches(pattern, json.loads(k), binding)]
    if any(v == ["ALL"] for v in pattern.values()):
        return found
    if not found:
        return None
    binding.update({k: json.loads(found[0])[k] for k, v in pattern.items() if v == ["MATCH"]})
    return found[0]


def _grid_value(props, rng):
    lo, hi, step = props.get("min"), props.get("max"), props.get("step")
    if lo is None or hi is None:
        return props.get("value")
    if not step:
        return rng.uniform(lo, hi)
    k = rng.randint(0, int(round((hi - lo) / step)))
    return round(lo + k * step, 10)


def _options(props) -> list:
    return [o["value"] if isinstance(o, dict) else o for o in props.get("options") or []]


def moved(ctype: str, props: dict, prop: str, rng: random.Random):
    """The value of a component's property after a reader touched it."""
    value = props.get(prop)
    if prop in ("value", "drag_value") and ctype in ("Slider", "RangeSlider"):
        return _grid_value(props, rng)
    if prop == "value" and _options(props):
        opts = _options(props)
        if isinstance(value, list):  # a checklist: another subset
            return [o for o in opts if rng.random() < 0.5] or opts[:1]
        return rng.choice(opts)
    if prop == "value" and ctype == "Input" and props.get("type") == "number" and isinstance(value, (int, float)):
        return value + rng.choice([0, 0, 1, -1])  # a few nearby values: a reader retyping a box
    if prop in ("n_clicks", "n_intervals", "n_submit"):
        return (value or 0) + rng.randint(1, 3)
    return value


class Site:
    """The pages as seen over HTTP: route, assets, components, callbacks."""

    def __init__(self, base: str):
        from gelu_lab.app import registry

        self.base = base
        self.conn = http.client.HTTPConnection(urlsplit(base).netloc, timeout=120)
        self.routes = [p.route for p in registry.PAGES]
        status, deps = _get(self.conn, "/_dash-dependencies")
        assert status == 200, f"/_dash-dependencies: HTTP {status}"
        self.deps = json.loads(deps)
        self.assets: set[str] = set()
        self.pages: dict[str, tuple[dict, list]] = {}  # route -> (components, callbacks)
        for route in self.routes:
            status, html = _get(self.conn, f"{route}?lang=en")
            assert status == 200, f"{route}: HTTP {status}"
            self.assets |= set(re.findall(r'(?:src|href)="(/(?:_dash-component-suites|assets)/[^"]+)"', html.decode()))
            status, layout = _get(self.conn, "/_dash-layout", {"Referer": f"{base}{route}?lang=en"})
            assert status == 200, f"/_dash-layout for {route}: HTTP {status}"
            comps = _components(json.loads(layout), {})
            self.pages[route] = (comps, [c for d in self.deps for c in self._on_page(d, comps)])
        self.conn.close()

    @staticmethod
    def _on_page(d: dict, comps: dict) -> list:
        """[(callback, its ids resolved on this page)]: one per MATCH instance, none for a
        clientside callback, one whose ids are missing here, or one a job button triggers."""
        if d.get("clientside_function") or d["output"] == ROUTE_OUTPUT:
            return []
        ids = [x["id"] for x in d["inputs"] + d["state"]] + [o["id"] for o in _split_output(d["output"])[0]]
        firsts = [None]
        m = next((i for i in ids if (_pattern(i) or {}) and ["MATCH"] in _pattern(i).values()), None)
        if m is not None:  # every instance of the MATCH group on the page
            firsts = [k for k in comps if k.startswith("{") and _matches(_pattern(m), json.loads(k), {})]
        out = []
        for first in firsts:
            binding = {} if first is None else {k: json.loads(first)[k] for k, v in _pattern(m).items() if v == ["MATCH"]}
            res = {i: resolve(i, comps, binding) for i in ids}
            if any(v is None or v == [] for v in res.values()):
                continue
            keys = [k for x in d["inputs"] for k in (res[x["id"]] if isinstance(res[x["id"]], list) else [res[x["id"]]])]
            if any("run-button" in str(comps[k][1].get("className", "")) for k in keys):
                continue
            out.append((d, res))
        return out

    def callback_body(self, route: str, cb, rng: random.Random) -> bytes:
        comps = self.pages[route][0]
        d, res = cb
        trig = rng.choice(d["inputs"])
        tkey = res[trig["id"]] if isinstance(res[trig["id"]], str) else rng.choice(res[trig["id"]])

        def item(k, prop, move=False):
            ctype, props = comps[k]
            value = moved(ctype, props, prop, rng) if move else props.get(prop)
            return {"id": json.loads(k) if k.startswith("{") else k, "property": prop, "value": value}

        def items(x, trigger=False):
            r = res[x["id"]]
            if isinstance(r, list):
                return [item(k, x["property"], trigger and k == tkey) for k in r]
            return item(r, x["property"], trigger or rng.random() < 0.2)

        outs, multi = _split_output(d["output"])
        outputs = []
        for o in outs:
            r = res[o["id"]]
            one = lambda k: {"id": json.loads(k) if k.startswith("{") else k, "property": o["property"]}  # noqa: E731
            outputs.append([one(k) for k in r] if isinstance(r, list) else one(r))
        body = {"output": d["output"], "outputs": outputs if multi else outputs[0],
                "inputs": [items(x, x is trig) for x in d["inputs"]],
                "changedPropIds": [f"{tkey}.{trig['property']}"],
                "state": [items(x) for x in d["state"]]}
        return json.dumps(body).encode()

    def route_body(self, route: str, lang: str) -> bytes:
        return json.dumps({"output": ROUTE_OUTPUT, "outputs": _split_output(ROUTE_OUTPUT)[0],
                           "inputs": [{"id": "route", "property": "data", "value": f"{route}?lang={lang}"}],
                           "changedPropIds": ["route.data"], "state": []}).encode()


# --- the clients ---------------------------------------------------------------------------


class Client(threading.Thread):
    def __init__(self, site: Site, seed: int, deadline: float, cold: float):
        super().__init__(daemon=True)
        self.site, self.rng, self.deadline, self.cold = site, random.Random(seed), deadline, cold
        self.lat = {k: [] for k in KINDS}
        self.unchanged = {k: 0 for k in KINDS}  # 204: the callback changed nothing
        self.by_callback: dict[str, list] = {}  # ms per callback (its first output), to find the slow one
        self.errors: list[str] = []
        self.conn = None

    def _req(self, kind, method, path, body=None, headers=None, name=None):
        if time.time() >= self.deadline:
            raise TimeoutError
        if self.conn is None:
            self.conn = http.client.HTTPConnection(urlsplit(self.site.base).netloc, timeout=60)
        t0 = time.perf_counter()
        try:
            self.conn.request(method, path, body=body, headers=headers or {})
            r = self.conn.getresponse()
            data = r.read()
        except (OSError, http.client.HTTPException) as e:
            self.conn.close()
            self.conn = None
            self.errors.append(f"{kind} {method} {path[:80]}: {type(e).__name__}: {e}")
            return None
        self.lat[kind].append((time.perf_counter() - t0) * 1e3)
        if name:
            self.by_callback.setdefault(name, []).append(self.lat[kind][-1])
        ok = r.status == 200 or (r.status == 204 and kind in ("callback", "route"))
        self.unchanged[kind] += r.status == 204
        if ok and r.status == 200 and kind in ("callback", "route"):
            try:
                ok = "response" in json.loads(data)
            except ValueError:
                ok = False
        if not ok:
            self.errors.append(f"{kind} {method} {path[:80]}: HTTP {r.status} {data[:120]!r}")
        return data

    def visit(self):
        site, rng = self.site, self.rng
        route, lang = rng.choice(site.routes), rng.choice(["en", "zh"])
        url = f"{route}?lang={lang}"
        self._req("page", "GET", url)
        if rng.random() < self.cold:
            for a in sorted(site.assets):
                self._req("asset", "GET", a)
        self._req("layout", "GET", "/_dash-layout", headers={"Referer": site.base + url})
        self._req("dependencies", "GET", "/_dash-dependencies")
        callbacks = site.pages[route][1]
        for _ in range(rng.randint(2, 6) if callbacks else 0):
            cb = rng.choice(callbacks)
            name = _split_output(cb[0]["output"])[0][0]["id"]
            self._req("callback", "POST", "/_dash-update-component", site.callback_body(route, cb, rng), {"Content-Type": "application/json"}, name)
        if rng.random() < 0.3:
            self._req("route", "POST", "/_dash-update-component", site.route_body(rng.choice(site.routes), lang), {"Content-Type": "application/json"})

    def run(self):
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=8, help="the server's worker threads (serve's default)")
    ap.add_argument("--cold", type=float, default=0.2, help="share of visits with an empty cache (fetch every asset)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "load.json"), help="JSON results ('-': none)")
    args = ap.parse_args(argv)
    if args.clients < 1 or args.seconds <= 0:
        raise SystemExit("bench_load: --clients >= 1 and --seconds > 0")
    from gelu_lab.results.store import provenance

    os.environ.setdefault("GELU_LAB_DATA", tempfile.mkdtemp(prefix="gelu-lab-load-"))  # the server's own empty store
    errlog = tempfile.TemporaryFile("w+")
    server, base = start_server(args.threads, errlog)
    try:
        site = Site(base)  # also the warm-up: every page rendered once
        n_cb = sum(len(cbs) for _, cbs in site.pages.values())
        print(f"server {base}: {len(site.routes)} pages, {len(site.assets)} assets, {n_cb} callbacks on them; "
              f"{args.clients} clients for {args.seconds:g} s", flush=True)
        t0 = time.time()
        clients = [Client(site, args.seed * 1000 + i, t0 + args.seconds, args.cold) for i in range(args.clients)]
        for c in clients:
            c.start()
        for c in clients:
            c.join(timeout=args.seconds + 120)  # a request in flight at the deadline may finish
        wall = time.time() - t0
        hung = sum(c.is_alive() for c in clients)
    finally:
        stop_server(server)
    errlog.seek(0)
    said = [ln.rstrip() for ln in errlog if ln.strip()]
    server_errors = [ln for ln in said if SERVER_ERROR.search(ln)]
    lat = {k: [v for c in clients for v in c.lat[k]] for k in KINDS}
    by_cb: dict[str, list] = {}
    for c in clients:
        for k, v in c.by_callback.items():
            by_cb.setdefault(k, []).extend(v)
    errors = [e for c in clients for e in c.errors] + [f"server: {ln}" for ln in server_errors]
    errors += [f"{hung} clients still waiting at the end"] if hung else []
    total = sum(len(v) for v in lat.values())
    res = {
        "clients": args.clients, "seconds": args.seconds, "server_threads": args.threads, "cold_share": args.cold, "seed": args.seed,
        "wall_s": round(wall, 1), "requests": total, "errors": len(errors), "requests_per_s": round(total / wall, 1),
        "kinds": {k: {"n": len(v), "n_204": sum(c.unchanged[k] for c in clients), "p50_ms": pct(v, 50), "p95_ms": pct(v, 95), "p99_ms": pct(v, 99), "max_ms": pct(v, 100)} for k, v in lat.items()},
        "callbacks": {k: {"n": len(v), "p50_ms": pct(v, 50), "p95_ms": pct(v, 95), "max_ms": pct(v, 100)}
                      for k, v in sorted(by_cb.items(), key=lambda kv: -pct(kv[1], 95))},
        "all": {"p50_ms": pct(sum(lat.values(), []), 50), "p95_ms": pct(sum(lat.values(), []), 95)},
        "error_samples": errors[:20], "loadavg": [round(v, 2) for v in os.getloadavg()],
        "provenance": provenance(" ".join(["bench/bench_load.py", *(argv if argv is not None else sys.argv[1:])])),
    }
    print(f"\n{'kind':<14}{'n':>7}{'204':>6}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for k, s in res["kinds"].items():
        f = lambda v: f"{v:9.1f}" if v is not None else f"{'-':>9}"  # noqa: E731
        print(f"{k:<14}{s['n']:7d}{s['n_204']:6d}{f(s['p50_ms'])}{f(s['p95_ms'])}{f(s['p99_ms'])}{f(s['max_ms'])}")
    print("slowest callbacks (by p95, ms):", ", ".join(f"{k} {v['p50_ms']:.0f}/{v['p95_ms']:.0f} (n={v['n']})" for k, v in list(res["callbacks"].items())[:5]))
    print(f"\n{total} requests in {wall:.1f} s ({res['requests_per_s']} /s), errors: {len(errors)}; "
          f"load average {' '.join(map(str, res['loadavg']))} on {os.cpu_count()} CPUs")
    for e in errors[:20]:
        print("  " + e)
    if args.out != "-":
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
        print(f"results: {args.out}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
