"""`gelu-lab serve`: the web app on a production WSGI server (waitress), local by default.

The app binds 127.0.0.1 unless ``--host`` names another address; then the banner
says so on stderr ("listening on all interfaces" for 0.0.0.0 / ::), because the
app (and its training button) is open to anyone who can reach the machine.
``GELU_LAB_FAST=0 gelu-lab serve`` serves the app without its speed tricks
(:mod:`gelu_lab.app.speed`).

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
import os
import signal
import socket
import sys
import threading
import time
import webbrowser

LOOPBACK_NAMES = {"localhost"}
ALL_INTERFACES = {"0.0.0.0", "::"}


def register(sub):
    p = sub.add_parser("serve", help="start the web app (http://127.0.0.1:8050 by default)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind; anything but loopback exposes the app to the network")
    p.add_argument("--port", type=int, default=8050, help="TCP port (0: any free port)")
    p.add_argument("--open", action="store_true", help="open the app in the default web browser")
    p.add_argument("--threads", type=int, default=8, help="worker threads per process (default 8)")
    p.add_argument("--processes", type=int, default=None, help="server processes sharing the port (default: one per CPU, at most 4)")
    p.set_defaults(func=run)


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


def _worker(sock: socket.socket, threads: int, parent: int) -> None:
    """A forked server process: build the app, warm it, serve the shared socket until stopped."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the whole group; the first process decides
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    _die_with_parent(parent)
    code = 0
    try:
        from waitress import create_server

        from ..app import get_app, warm

        server = create_server(get_app().server, sockets=[sock], threads=threads, ident="gelu-lab")
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
    from waitress import create_server

    from ..app import get_app, warm

    sock = _bind(args.host, args.port)
    workers = []
    for _ in range(processes - 1):
        pid = os.fork()
        if pid == 0:
            _worker(sock, args.threads, os.getppid())
        workers.append(pid)
    app = get_app()
    server = create_server(app.server, sockets=[sock], threads=args.threads, ident="gelu-lab")
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{shown}:{port}/"
    how = f"{processes} processes x {args.threads} threads" if processes > 1 else f"{args.threads} threads"
    print(f"GELU Lab on {url}  (waitress, {how}; Ctrl+C stops)", flush=True)
    warning = exposure(args.host, port)
    if warning:
        print(f"gelu-lab: warning: {warning}", file=sys.stderr, flush=True)
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
