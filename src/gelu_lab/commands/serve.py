"""`gelu-lab serve`: the web app on a production WSGI server (waitress), local by default."""

from __future__ import annotations

import ipaddress
import sys
import threading
import webbrowser

LOOPBACK_NAMES = {"localhost"}


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


def run(args) -> int:
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be in 0..65535, got {args.port}")
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
    if not is_loopback(args.host):
        print(f"gelu-lab: warning: bound to {args.host}: the app is reachable from the network", file=sys.stderr, flush=True)
    threading.Thread(target=warm, name="warm", daemon=True).start()
    if args.open:
        local = f"http://127.0.0.1:{port}/" if args.host in ("0.0.0.0", "::") else url
        threading.Timer(0.5, webbrowser.open, args=(local,)).start()
    try:
        server.run()
    except KeyboardInterrupt:
        print("gelu-lab: stopped", file=sys.stderr)
    finally:
        server.close()
    return 0
