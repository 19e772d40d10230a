"""What a reader's browser asks the app for, learnt from the app itself (bench/bench_load.py's readers).

    site = Site("http://127.0.0.1:8080")       # every page, its scripts, components and callbacks
    site.callback_body(route, cb, rng)          # a callback request as Dash's renderer sends it
    site.route_body(route, lang)                # the routing callback for another page

Site GETs each page of the registry, the scripts and styles its HTML names, Dash's
/_dash-layout for that page (the server renders it) and /_dash-dependencies, and from them
lists the server-side callbacks whose inputs are on that page, pattern-matching ones (MATCH,
ALL) bound to the instances the page holds. A callback body moves its trigger the way a
reader does (a slider to another point of its grid, another dropdown option, another subset
of a checklist, a number box retyped); the buttons of class ``run-button`` (background jobs,
fits) are left out. Not a measurement itself: a helper of bench_load.py.
"""

from __future__ import annotations

import http.client
import json
import random
import re
from urllib.parse import urlsplit

ROUTE_OUTPUT = "..shell.children...rendered.data.."


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
