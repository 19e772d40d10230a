"""`gelu-lab serve`: the web app on a production WSGI server (waitress), local by default.

The app binds 127.0.0.1 unless ``--host`` names another address; then the banner
says so on stderr ("listening on all interfaces" for 0.0.0.0 / ::), and the app runs
in public mode (:mod:`gelu_lab.app.public`): every page and every live computation, but
no visitor starts a background job or writes to the runs store, and each request and
each client has a budget. ``--public`` asks for it on loopback too (a replica behind
nginx, :mod:`.deploy`); ``--allow-jobs`` lets visitors start jobs again, with a warning.
Each request is one JSON line on stderr (:mod:`gelu_lab.app.guard`); /healthz answers
whether the store is readable. ``GELU_LAB_FAST=0 gelu-lab serve`` serves the app
without its speed tricks (:mod:`gelu_lab.app.compat.speed`).

``--processes N`` (default: one per CPU, at most 4) serves from N processes that
share one listening socket, each a waitress server with ``--threads`` threads:
the pages and callbacks are Python and hold the GIL, so one process uses one
core however many threads it has. The socket is bound before the processes
start (a busy port is one error line), each process builds the app itself (no
state crosses a fork), and the first process is the one that prints the banner
and stops the others on Ctrl+C or SIGTERM. Everything the processes share lives
in files: the runs store (SQLite, WAL) and the background jobs' files.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import signal
import socket
import sys
import threading
import time
import webbrowser

LOOPBACK_NAMES = {"localhost"}
# open connections a process accepts: waitress's default, 100, is less than a class behind nginx
# holds open at once (one per request in flight, and nginx's idle ones): past it new connections
# wait unaccepted in the backlog, and a 1 ms page took a second (bench/bench_load.py, 200 readers)
CONNECTIONS = 1000
ALL_INTERFACES = {"0.0.0.0", "::"}


def register(sub):
    p = sub.add_parser("serve", help="start the web app (http://127.0.0.1:8050 by default)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind; anything but loopback exposes the app to the network")
    p.add_argument("--port", type=int, default=8050, help="TCP port (0: any free port)")
    p.add_argument("--open", action="store_true", help="open the app in the default web browser")
    p.add_argument("--threads", type=int, default=8, help="worker threads per process (default 8)")
    p.add_argument("--processes", type=int, default=None, help="server processes sharing the port (default: one per CPU, at most 4)")
    p.add_argument("--public", action="store_true", help="public mode also on loopback (the default off loopback): no jobs, no writes, budgets")
    p.add_argument("--allow-jobs", action="store_true", help="public mode, but visitors may start and cancel background jobs")
    # the defaults live in gelu_lab.app.public.Policy (the banner says those in force): importing it here would import Dash
    p.add_argument("--budget-seconds", type=float, default=None, help="public: CPU seconds one request may use")
    p.add_argument("--budget-mb", type=float, default=None, help="public: MB of arrays one request may hold")
    p.add_argument("--rate", type=float, default=None, help="public: requests a minute per client (0: no limit)")
    p.add_argument("--cpu-rate", type=float, default=None, help="public: CPU seconds a minute per client (0: no limit)")
    p.set_defaults(func=run)


def policy_of(args):
    """The app's Policy for these arguments: public off loopback or when asked (ValueError for bad limits)."""
    from ..app.public import LOCAL, Policy

    limits = {"seconds": args.budget_seconds, "megabytes": args.budget_mb, "rate": args.rate, "cpu_rate": args.cpu_rate}
    if not (args.public or args.allow_jobs or not is_loopback(args.host)):
        given = [f"--{k}" for k, v in (("budget-seconds", args.budget_seconds), ("budget-mb", args.budget_mb), ("rate", args.rate),
                                       ("cpu-rate", args.cpu_rate)) if v is not None]
        if given:
            raise ValueError(f"{', '.join(given)}: only a public server has limits (add --public; on loopback the app is the reader's own)")
        return LOCAL
    return Policy.public_server(allow_jobs=args.allow_jobs, **limits)


def _access_log() -> None:
    """One JSON line per request on stderr (gelu_lab.app.guard writes them)."""
    log = logging.getLogger("gelu_lab.access")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def exposure(host: str, port: int) -> str | None:
    """The banner's warning for a bind address that is not loopback, else None."""
    if is_loopback(host):
        return None
    if host in ALL_INTERFACES:
        return f"listening on all interfaces ({host}) port {port}: the app is reachable from the network"
    return f"listening on {host} port {port}, not a loopback address: the app is reachable from the network"


def _stop(*_):
    raise KeyboardInterrupt  # SIGTERM stops the server as Ctrl+C does: the workers too


def default_processes() -> int:
    if not hasattr(os, "fork"):
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


def _bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: any free port)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(addr)
        sock.listen(1024)
    except OSError:
        sock.close()
        raise
    return sock


def _die_with_parent(parent: int) -> None:
    """End this worker when the process that started it is gone (killed, not only stopped)."""

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _preload() -> None:
    """Import what pages import on first use (gelu_lab.torch, where torch is installed: seconds of
    CPU) before serving, and before forking, so the workers share it: a public server charges each
    request its CPU time, and a visitor must not pay for the server's own start."""
    import importlib
    import importlib.util

    if importlib.util.find_spec("torch") is not None:
        importlib.import_module("gelu_lab.torch")


def _worker(sock: socket.socket, threads: int, parent: int) -> None:
    """A forked server process: build the app, warm it, serve the shared socket until stopped."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the whole group; the first process decides
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    _die_with_parent(parent)
    code = 0
    try:
        from waitress import create_server

        from ..app import get_app, warm

        server = create_server(get_app().server, sockets=[sock], threads=threads, ident="gelu-lab", connection_limit=CONNECTIONS)
        threading.Thread(target=warm, name="warm", daemon=True).start()
        server.run()
    except BaseException as e:  # a worker never prints a traceback
        print(f"gelu-lab: error: server process {os.getpid()}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        code = 1
    os._exit(code)


def run(args) -> int:
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be in 0..65535, got {args.port}")
    if not args.host.strip():
        raise ValueError("--host is empty (127.0.0.1: this machine only; 0.0.0.0: all interfaces)")
    if not 1 <= args.threads <= 64:
        raise ValueError(f"--threads must be in 1..64, got {args.threads}")
    processes = default_processes() if args.processes is None else args.processes
    if not 1 <= processes <= 16:
        raise ValueError(f"--processes must be in 1..16, got {processes}")
    if processes > 1 and not hasattr(os, "fork"):
        raise ValueError("--processes above 1 needs fork (not on this system)")
    policy = policy_of(args)
    from waitress import create_server

    from ..app import get_app, public, warm
    from ..results import writes

    public.configure(policy)  # before the app is built; the forked processes inherit it
    if policy.public:
        _preload()
    if policy.public and not policy.jobs:
        writes.forbid("a public server only reads")
    _access_log()

    sock = _bind(args.host, args.port)
    workers = []
    for _ in range(processes - 1):
        pid = os.fork()
        if pid == 0:
            _worker(sock, args.threads, os.getppid())
        workers.append(pid)
    app = get_app()
    server = create_server(app.server, sockets=[sock], threads=args.threads, ident="gelu-lab", connection_limit=CONNECTIONS)
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{shown}:{port}/"
    how = f"{processes} processes x {args.threads} threads" if processes > 1 else f"{args.threads} threads"
    mode = "" if not policy.public else "; public: " + ("visitors may start jobs" if policy.jobs else "no jobs, no writes") + (
        f"; a request {policy.seconds:g} s CPU, {policy.megabytes:g} MB; a client {policy.rate:g} requests and {policy.cpu_rate:g} CPU s a minute")
    print(f"GELU Lab on {url}  (waitress, {how}{mode}; Ctrl+C stops)", flush=True)
    warning = exposure(args.host, port)
    if warning:
        print(f"gelu-lab: warning: {warning}", file=sys.stderr, flush=True)
    if policy.public and policy.jobs:
        print("gelu-lab: warning: --allow-jobs: any visitor can start background jobs (minutes of CPU each) that write to the runs store",
              file=sys.stderr, flush=True)
    threading.Thread(target=warm, name="warm", daemon=True).start()
    if args.open:
        local = f"http://127.0.0.1:{port}/" if args.host in ALL_INTERFACES else url
        threading.Timer(0.5, webbrowser.open, args=(local,)).start()
    signal.signal(signal.SIGTERM, _stop)
    try:
        server.run()
    except KeyboardInterrupt:
        print("gelu-lab: stopped", file=sys.stderr)
    finally:
        server.close()
        for pid in workers:
            try:
                os.kill(pid, signal.SIGTERM)
                os.waitpid(pid, 0)
            except OSError:
                pass
    return 0
