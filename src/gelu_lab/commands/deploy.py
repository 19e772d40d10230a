"""`gelu-lab deploy DIR`: nginx in front of N public replicas, as files to read and run.

    gelu-lab deploy /srv/gelu-lab --replicas 2 --port 8080
    /srv/gelu-lab/run.sh      # the replicas on 127.0.0.1:8051.., each waited for on /healthz, then nginx
    /srv/gelu-lab/stop.sh     # nginx, then the replicas

DIR gets:

- ``gelu-lab.conf``: the nginx site, an ``upstream`` of the replicas and a ``server`` that
  proxies to them and keeps the static files (DIR/cache); fit for a system nginx too
  (``/etc/nginx/sites-enabled/``, with DIR/cache writable by nginx's user).
- ``nginx.conf``: a whole nginx configuration around that site whose pid file, logs and
  temporary files all live in DIR, so nginx runs as the user who runs ``run.sh``, on an
  unprivileged port, touching no system file (``nginx -p DIR -c nginx.conf``).
- ``run.sh`` and ``stop.sh``: the commands, with the replicas' pids and logs in DIR/run.

Each replica is ``gelu-lab serve --public`` on loopback (one process; nginx is what spreads
the load): replicas share nothing but the runs store, which they only read, so any request
can go to any of them. nginx sends the client's address as X-Real-IP (the replicas' rate
limit is per client) and, when a replica does not answer, retries the request on the next
one, POSTs included: a Dash callback only computes, and a public replica writes nothing,
so a callback sent twice is a callback answered once more.
"""

from __future__ import annotations

import getpass
import os
import shlex
import shutil
import stat
import sys
from pathlib import Path

FILES = ("gelu-lab.conf", "nginx.conf", "run.sh", "stop.sh")


def register(sub):
    p = sub.add_parser("deploy", help="write an nginx site for N public replicas and the commands to run them")
    p.add_argument("dir", help="folder for the files (created; its files are replaced only with --force)")
    p.add_argument("--replicas", type=int, default=2, help="public `gelu-lab serve` processes behind nginx (default 2)")
    p.add_argument("--port", type=int, default=8080, help="the port nginx listens on (default 8080)")
    p.add_argument("--listen", default="0.0.0.0", help="the address nginx listens on (default all interfaces)")
    p.add_argument("--first-port", type=int, default=8051, help="the first replica's port on 127.0.0.1 (default 8051)")
    p.add_argument("--threads", type=int, default=8, help="worker threads per replica (default 8)")
    p.add_argument("--serve-args", default="", help='more options for each replica\'s `gelu-lab serve`, e.g. "--rate 600" for a class behind one address')
    p.add_argument("--nginx", default=None, help="the nginx binary (default: nginx on PATH, else /usr/sbin/nginx)")
    p.add_argument("--force", action="store_true", help="replace the files of an earlier deploy in DIR")
    p.set_defaults(func=run)


def _check(args) -> None:
    if not 1 <= args.replicas <= 64:
        raise ValueError(f"--replicas must be in 1..64, got {args.replicas}")
    for name, port in (("--port", args.port), ("--first-port", args.first_port), ("--first-port + replicas", args.first_port + args.replicas - 1)):
        if not 1 <= port <= 65535:
            raise ValueError(f"{name} must be in 1..65535, got {port}")
    if args.first_port <= args.port < args.first_port + args.replicas:
        raise ValueError(f"--port {args.port} is one of the replicas' ports ({args.first_port}..{args.first_port + args.replicas - 1})")
    if not 1 <= args.threads <= 64:
        raise ValueError(f"--threads must be in 1..64, got {args.threads}")
    if not args.listen.strip() or any(c in args.listen for c in " ;{}'\""):
        raise ValueError(f"--listen must be an address, got {args.listen!r}")
    extra = shlex.split(args.serve_args)
    taken = {"--host", "--port", "--processes", "--threads", "--public", "--open"} & {a.split("=")[0] for a in extra}
    if taken:
        raise ValueError(f"--serve-args: {', '.join(sorted(taken))} is set by deploy itself")
    from . import CliError, Parser, serve

    check = Parser(prog="gelu-lab")
    serve.register(check.add_subparsers(parser_class=Parser))
    try:
        check.parse_args(["serve", *extra])  # a bad option fails here, not in each replica
    except CliError as e:
        raise ValueError(f"--serve-args: {e}") from None


PROXY = """        proxy_pass http://gelu_lab;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $http_host;  # with the port: the app compares it with the Referer (speed.first_layout)
        proxy_set_header X-Real-IP $remote_addr;  # the replicas' per-client rate limit reads it (from loopback only)
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        # a replica that is down or refuses: the next one answers, callbacks (POST) too, as they only compute
        proxy_next_upstream error timeout http_502 http_503 non_idempotent;
        proxy_connect_timeout 2s;
        proxy_read_timeout 120s;"""


def site(replicas: int, port: int, listen: str, first_port: int, cache: Path) -> str:
    """The nginx site: the replicas' upstream, a cache for the static files, the server that proxies to them."""
    servers = "\n".join(f"    server 127.0.0.1:{first_port + i} max_fails=1 fail_timeout=5s;" for i in range(replicas))
    address = f"[{listen}]" if ":" in listen else listen
    return f"""# GELU Lab: {replicas} public replica(s) behind nginx (written by `gelu-lab deploy`)
upstream gelu_lab {{
{servers}
    keepalive 64;  # connections to the replicas kept open between requests
}}

# Dash's scripts and the app's styles: the same bytes for every reader, their URLs change with
# each version (?m=, .v4_4_1m...); nginx keeps them, so a class's first visits cost the replicas nothing
proxy_cache_path {cache} levels=1:2 keys_zone=gelu_lab_static:10m max_size=256m inactive=7d use_temp_path=off;

server {{
    listen {address}:{port};
    server_name _;
    client_max_body_size 2m;  # a Dash callback's request is a few kB

    location / {{
{PROXY}
    }}

    location ~ ^/(assets|_dash-component-suites)/ {{
{PROXY}
        proxy_cache gelu_lab_static;
        proxy_ignore_headers Cache-Control Expires;  # the app says no-cache to browsers (they revalidate), not to nginx
        proxy_cache_valid 200 1d;
        proxy_cache_lock on;  # a class arriving at once: one request per file goes to a replica
    }}
}}
"""


def whole(prefix: Path, user: str | None) -> str:
    """A whole nginx configuration around the site, every file of it under `prefix`."""
    temps = "\n".join(f"    {k}_temp_path {prefix / 'tmp' / k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    who = f"user {user};  # run as root: the workers stay {user}, who owns this folder\n" if user else ""
    return f"""# nginx for GELU Lab as an ordinary user: `nginx -p {prefix} -c {prefix / 'nginx.conf'}` (run.sh)
{who}worker_processes 1;
pid {prefix / 'run' / 'nginx.pid'};
error_log {prefix / 'logs' / 'error.log'} warn;

events {{
    worker_connections 4096;
}}

http {{
    access_log off;  # every replica logs each request (one JSON line)
{temps}
    include {prefix / 'gelu-lab.conf'};
}}
"""


def scripts(prefix: Path, args, nginx: str) -> tuple[str, str]:
    """(run.sh, stop.sh) for the replicas and nginx."""
    q = lambda p: shlex.quote(str(p))  # noqa: E731
    extra = "".join(f" {shlex.quote(a)}" for a in shlex.split(args.serve_args))
    serve = f"{q(sys.executable)} -m gelu_lab serve --public --processes 1 --threads {args.threads}{extra}"
    ports = " ".join(str(args.first_port + i) for i in range(args.replicas))
    run = f"""#!/bin/sh
# Start {args.replicas} public replica(s) of GELU Lab on 127.0.0.1 and nginx in front of them (gelu-lab deploy).
set -e
cd {q(prefix)}
NGINX=${{NGINX:-{q(nginx)}}}
mkdir -p run logs tmp
fail() {{ printf 'gelu-lab deploy: %s\\n' "$1" >&2; sh {q(prefix / 'stop.sh')} >/dev/null 2>&1; exit 1; }}
i=1
for port in {ports}; do
    {serve} --port "$port" >"logs/replica-$i.log" 2>&1 &
    echo $! >"run/replica-$i.pid"
    i=$((i + 1))
done
i=1
for port in {ports}; do  # each replica answers /healthz once it has built the app
    n=0
    until {q(sys.executable)} -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" "http://127.0.0.1:$port/healthz" 2>/dev/null; do
        # a replica that ended (a busy port, a broken install) is said at once, and the others stopped
        kill -0 "$(cat "run/replica-$i.pid")" 2>/dev/null || fail "replica on port $port exited: $(tail -n 1 "logs/replica-$i.log")"
        n=$((n + 1)); [ "$n" -lt 240 ] || fail "replica on port $port did not start (logs/replica-$i.log)"
        sleep 0.5
    done
    i=$((i + 1))
done
"$NGINX" -p {q(prefix)} -c {q(prefix / 'nginx.conf')} -e {q(prefix / 'logs' / 'error.log')} || fail "nginx did not start (logs/error.log)"
echo "GELU Lab on http://{args.listen}:{args.port}/ ({args.replicas} replica(s) behind nginx; {q(prefix / 'stop.sh')} stops it)"
"""
    stop = f"""#!/bin/sh
# Stop nginx, then the replicas (gelu-lab deploy).
cd {q(prefix)}
NGINX=${{NGINX:-{q(nginx)}}}
[ -f run/nginx.pid ] && "$NGINX" -p {q(prefix)} -c {q(prefix / 'nginx.conf')} -e {q(prefix / 'logs' / 'error.log')} -s quit
for f in run/replica-*.pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; rm -f "$f"
done
exit 0
"""
    return run, stop


def nginx_binary(given: str | None) -> str:
    if given:
        return given
    return shutil.which("nginx") or "/usr/sbin/nginx"


def run(args) -> int:
    _check(args)
    prefix = Path(args.dir).expanduser().resolve()
    if prefix.exists() and not prefix.is_dir():
        raise ValueError(f"{prefix} is a file, not a folder")
    there = [f for f in FILES if (prefix / f).exists()]
    if there and not args.force:
        raise ValueError(f"{prefix} already holds {', '.join(there)} (--force replaces them)")
    user = getpass.getuser() if hasattr(os, "geteuid") and os.geteuid() == 0 else None
    nginx = nginx_binary(args.nginx)
    run_sh, stop_sh = scripts(prefix, args, nginx)
    texts = {"gelu-lab.conf": site(args.replicas, args.port, args.listen, args.first_port, prefix / "cache"),
             "nginx.conf": whole(prefix, user),
             "run.sh": run_sh, "stop.sh": stop_sh}
    for sub in ("run", "logs", "tmp", "cache"):
        (prefix / sub).mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        path = prefix / name
        path.write_text(text)
        if name.endswith(".sh"):
            path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    print(f"wrote {', '.join(str(prefix / f) for f in FILES)}")
    print(f"start: {prefix / 'run.sh'}    stop: {prefix / 'stop.sh'}")
    print(f"or with the system's nginx: copy {prefix / 'gelu-lab.conf'} to /etc/nginx/sites-enabled/ and start the replicas as run.sh does")
    if not shutil.which(nginx) and not Path(nginx).exists():
        print(f"gelu-lab: warning: no nginx at {nginx} (Debian: apt-get install nginx)", file=sys.stderr)
    return 0
