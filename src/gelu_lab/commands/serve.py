"""`gelu-lab serve`: the web app on a production WSGI server (waitress), local by default.

The app binds 127.0.0.1 unless ``--host`` names another address; then the banner
says so on stderr ("listening on all interfaces" for 0.0.0.0 / ::), because the
app (and its training button) is open to anyone who can reach the machine.
``GELU_LAB_FAST=0 gelu-lab serve`` serves the app without its speed tricks
(:mod:`gelu_lab.app.speed`).
"""

from __future__ import annotations

import ipaddress
import sys
import threading
import webbrowser

LOOPBACK_NAMES = {"localhost"}
ALL_INTERFACES = {"0.0.0.0", "::"}


def register(sub):
    p = sub.add_parser("serve", help="start the web app (http://127.0.0.1:8050 by default)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind; anything but loopback exposes the app to the network")
    p.add_argument("--port", type=int, default=8050, help="TCP port (0: any free port)")
    p.add_argument("--open", action="store_true", help="open the app in the default web browser")
    p.add_argument("--threads", type=int, default=8, help="worker threads (default 8)")
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


def run(args) -> int:
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be in 0..65535, got {args.port}")
    if not args.host.strip():
        raise ValueError("--host is empty (127.0.0.1: this machine only; 0.0.0.0: all interfaces)")
    if not 1 <= args.threads <= 64:
        raise ValueError(f"--threads must be in 1..64, got {args.threads}")
    from waitress import create_server

    from ..app import get_app, warm

    app = get_app()
    server = create_server(app.server, host=args.host, port=args.port, threads=args.threads, ident="gelu-lab")
    port = server.effective_port
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{shown}:{port}/"
    print(f"GELU Lab on {url}  (waitress, {args.threads} threads; Ctrl+C stops)", flush=True)
    warning = exposure(args.host, port)
    if warning:
        print(f"gelu-lab: warning: {warning}", file=sys.stderr, flush=True)
    threading.Thread(target=warm, name="warm", daemon=True).start()
    if args.open:
        local = f"http://127.0.0.1:{port}/" if args.host in ALL_INTERFACES else url
        threading.Timer(0.5, webbrowser.open, args=(local,)).start()
    try:
        server.run()
    except KeyboardInterrupt:
        print("gelu-lab: stopped", file=sys.stderr)
    finally:
        server.close()
    return 0
