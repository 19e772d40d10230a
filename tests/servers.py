"""`gelu-lab serve` in a subprocess for the tests that need a server of its own (public mode
is a setting of the server's process), and Dash callback requests written by hand.

    with Served("--public", data=tmp_path) as s:    # banner read, stderr kept in a file
        s.get("/healthz"), s.post_callback(body), s.log_lines()
    callback_request(deps, trigger_id, trigger_prop, values)   # the body Dash's renderer would send
"""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CMD = [sys.executable, "-m", "gelu_lab", "serve", "--port", "0", "--processes", "1"]
START_S = 120  # a bound for the banner (the app builds in a few seconds; CI's two cores are shared)


class Served:
    def __init__(self, *args: str, data: Path | None = None, env: dict | None = None):
        self.args, self.data, self.env = list(args), data, env or {}

    def __enter__(self):
        self.err = tempfile.NamedTemporaryFile("w+", prefix="gelu-lab-serve-", suffix=".log", delete=False)
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        if self.data is not None:
            env["GELU_LAB_DATA"] = str(self.data)
            env.pop("GELU_LAB_STORE", None)
        self.proc = subprocess.Popen(CMD + self.args, stdout=subprocess.PIPE, stderr=self.err, text=True, env=env)
        self.banner = self.proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", self.banner)
        if not m:
            self.__exit__()
            raise AssertionError(f"no banner: {self.banner!r}; stderr: {Path(self.err.name).read_text()[-2000:]}")
        self.port = int(m.group(1))
        self.base = f"http://127.0.0.1:{self.port}"
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.err.close()

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None) -> tuple[int, dict, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            return r.status, dict(r.getheaders()), r.read()
        finally:
            conn.close()

    def get(self, path: str, headers: dict | None = None) -> tuple[int, bytes]:
        status, _, data = self.request("GET", path, headers=headers)
        return status, data

    def post_callback(self, body: dict, headers: dict | None = None) -> tuple[int, bytes]:
        status, _, data = self.request("POST", "/_dash-update-component", json.dumps(body).encode(),
                                       {"Content-Type": "application/json", **(headers or {})})
        return status, data

    def stderr(self) -> str:
        return Path(self.err.name).read_text()

    def log_lines(self) -> list[dict]:
        """The access log: the JSON lines on the server's stderr."""
        return [json.loads(ln) for ln in self.stderr().splitlines() if ln.startswith("{")]


def _ids(spec: str):
    """A dependency's id as Dash writes it: a string, or a pattern dict (its wildcards as ["MATCH"] ...)."""
    return json.loads(spec) if spec.startswith("{") else spec


def _bind(cid, match: dict):
    """A pattern id with its MATCH / ALL wildcards replaced by `match`'s values."""
    if isinstance(cid, dict):
        return {k: (match.get(k, v) if isinstance(v, list) else v) for k, v in cid.items()}
    return cid


def _outputs(output: str) -> tuple[list[dict], bool]:
    parts = output[2:-2].split("...") if output.startswith("..") else [output]
    return [{"id": _ids(p.rsplit(".", 1)[0]), "property": p.rsplit(".", 1)[1].split("@")[0]} for p in parts], output.startswith("..")


def callback_request(deps: list[dict], trigger: str | dict, prop: str, values: dict | list, match: dict | None = None) -> dict:
    """The body of the request Dash's renderer sends when `trigger`.`prop` changes: for the
    callback that has it as an input, every input and state with its value from `values`
    ({(id, prop): value} or [(id, prop, value)] where an id is a dict; None where absent),
    wildcards bound to `match`."""
    match = match or {}
    for d in deps:
        ins = [(_bind(_ids(x["id"]), match), x["property"]) for x in d["inputs"]]
        if (trigger, prop) not in ins or d.get("clientside_function"):
            continue
        key = lambda cid, p: (json.dumps(cid, sort_keys=True) if isinstance(cid, dict) else cid, p)  # noqa: E731
        triples = [(c, p, v) for (c, p), v in values.items()] if isinstance(values, dict) else values
        vals = {key(cid, p): v for cid, p, v in triples}
        item = lambda cid, p: {"id": cid, "property": p, "value": vals.get(key(cid, p))}  # noqa: E731
        outs, multi = _outputs(d["output"])
        outputs = [{"id": _bind(o["id"], match), "property": o["property"]} for o in outs]
        tid = json.dumps(trigger, sort_keys=True, separators=(",", ":")) if isinstance(trigger, dict) else trigger
        return {"output": d["output"], "outputs": outputs if multi else outputs[0], "inputs": [item(c, p) for c, p in ins],
                "state": [item(_bind(_ids(x["id"]), match), x["property"]) for x in d["state"]], "changedPropIds": [f"{tid}.{prop}"]}
    raise AssertionError(f"no server callback has the input {trigger}.{prop}")
