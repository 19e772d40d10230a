"""Every request of the app's server: who asks, within what budget, one log line; /healthz.

    install(server, policy)     Flask hooks on the app's server (create_app calls it)

For each request, in this order:

1. its client: the peer's address, or the ``X-Real-IP`` header when the peer is a proxy
   the policy trusts (nginx on this machine: ``gelu-lab deploy`` writes the header);
2. on a public server, the client's rate (:mod:`.ratelimit`): requests a minute, and CPU
   seconds a minute; a client over either is refused, a callback with the notice
   (:mod:`.refusal`), anything else with HTTP 429 and the same words, never run;
3. on a public server, the request's budget (:mod:`gelu_lab.budget`), CPU time and memory;
   a callback over it is answered with the notice (:func:`over_budget`, Dash's ``on_error``);
4. when it is done, one JSON line on the ``gelu_lab.access`` logger: time, method, route
   (the path: never the query, which holds what a reader typed), status, wall and CPU
   milliseconds, the callback's output, a refusal's reason. ``gelu-lab serve`` writes
   these to stderr; elsewhere the logger is silent unless configured.

Static files (assets, Dash's scripts) and /healthz are neither limited nor budgeted.
"""

from __future__ import annotations

import json
import logging
import os
import time
from urllib.parse import urlsplit

import dash
from flask import Response, g, request

from .. import __version__, budget
from ..results import store_state
from . import public, state
from .compat import refusal
from .ratelimit import Buckets

access = logging.getLogger("gelu_lab.access")
CALLBACK = "_dash-update-component"
STATIC = ("assets/", "_dash-component-suites/", "_favicon.ico", "healthz")
BURST_MINUTES = 0.25  # a bucket holds a quarter of a minute's rate: a burst of clicks, not a flood
INTERNAL = "gelu_lab.internal"  # WSGI environ key of the app's own requests (warm-up): not a visitor's
_WARM: list[bool] = []  # set by the app's warm-up (gelu_lab.app.warm), read by /healthz


def mark_warm() -> None:
    _WARM[:] = [True]


def client(policy: public.Policy) -> str:
    peer = request.remote_addr or "?"
    if peer in policy.proxies:
        real = request.headers.get("X-Real-IP", "").strip()
        if real:
            return real[:64]
    return peer


def reader_lang() -> str:
    """The reader's language: the lang of the page the browser is on (the Referer's query)."""
    return state.lang_of(urlsplit(request.referrer or "").query)


def over_budget(err: Exception):
    """Dash's on_error for every callback: a request over its budget (or out of memory) shows
    the notice and changes nothing else; any other error goes on as before (HTTP 204, logged)."""
    if isinstance(err, budget.OverBudget):
        kind = err.kind
    elif isinstance(err, MemoryError):
        kind = "memory"
    else:
        raise err
    g.refused = kind
    dash.set_props(refusal.NOTICE, refusal.notice_props(public.refusal(kind, reader_lang())))
    return None


def install(server, policy: public.Policy, prefix: str = "/") -> None:
    requests = Buckets(policy.rate, max(1.0, policy.rate * BURST_MINUTES)) if policy.public and policy.rate else None
    cpu = Buckets(policy.cpu_rate, max(1.0, policy.cpu_rate * BURST_MINUTES)) if policy.public and policy.cpu_rate else None

    def limited() -> bool:
        if request.environ.get(INTERNAL):  # the server's own warm-up (no HTTP header can set a WSGI key)
            return False
        return policy.public and not request.path.startswith(tuple(prefix + s for s in STATIC))

    @server.before_request
    def _begin():
        g.t0, g.cpu0, g.refused = time.perf_counter(), time.thread_time(), None
        if not limited():
            return None
        g.client = who = client(policy)
        for kind, b, need in (("rate", requests, 1.0), ("cpu", cpu, 1e-3)):
            wait = b.wait(who, need) if b is not None else 0.0
            if wait > 0:
                g.refused = kind
                msg = public.refusal(kind, reader_lang(), wait=f"{max(1, round(wait))}")
                if request.path.endswith(CALLBACK):
                    return refusal.answer(msg)
                return Response(msg, status=429, mimetype="text/plain", headers={"Retry-After": str(max(1, round(wait)))})
        if requests is not None:
            requests.charge(who, 1.0)
        g.budget = budget.limits(policy.seconds, policy.megabytes)
        g.budget.__enter__()
        return None

    @server.after_request
    def _end(response):
        cpu_s = time.thread_time() - g.get("cpu0", time.thread_time())
        if cpu is not None and g.get("client") and g.get("refused") not in ("rate", "cpu"):
            cpu.charge(g.client, cpu_s)
        if access.isEnabledFor(logging.INFO) and not request.environ.get(INTERNAL):
            access.info(line(response.status_code, time.perf_counter() - g.get("t0", time.perf_counter()), cpu_s))
        return response

    @server.teardown_request
    def _close(_exc):
        held = g.pop("budget", None)
        if held is not None:
            held.__exit__(None, None, None)

    @server.route(prefix + "healthz")
    def _healthz():
        st = store_state()
        body = {"status": "ok" if st["store"] != "unreadable" else "store unreadable", "version": __version__, **st,
                "public": policy.public, "jobs": policy.jobs, "warm": bool(_WARM), "pid": os.getpid()}
        return Response(json.dumps(body), status=200 if body["status"] == "ok" else 503, mimetype="application/json")


def line(status: int, seconds: float, cpu_s: float) -> str:
    """The access log's line for the running request (no query string, no client address)."""
    rec = {"time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "method": request.method, "route": request.path[:200], "status": status,
           "ms": round(seconds * 1e3, 1), "cpu_ms": round(cpu_s * 1e3, 1), "pid": os.getpid()}
    if request.path.endswith(CALLBACK) and g.get("refused") not in ("rate", "cpu"):
        body = request.get_json(silent=True)
        if isinstance(body, dict) and isinstance(body.get("output"), str):
            rec["callback"] = body["output"][:120]
    if g.get("refused"):
        rec["refused"] = g.refused
    return json.dumps(rec, ensure_ascii=False)
