"""`make docs`: docs/measurements.md and the README's headline table, rendered from the measurements' JSON.

    .venv/bin/python tools/render_measurements.py [--check]

The sources are the bench scripts' results, bench/results/<name>.json (bench/record.py writes
them: figures, command, date, machine, versions), and the measurements shipped with the
package, src/gelu_lab/data/*.json (each with its provenance). Nothing here is typed in: a
figure in either file is a number of one of those files, with its CPU or device and its date.
A bench script without a result file is listed as not measured as data yet.
tests/test_measurements.py fails when either file differs from what this renders (--check
says the same and exits 1).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
DATA = ROOT / "src" / "gelu_lab" / "data"
MEASUREMENTS = ROOT / "docs" / "measurements.md"
README = ROOT / "README.md"
BEGIN = "<!-- headline figures: `make docs` renders them from bench/results and src/gelu_lab/data -->"
END = "<!-- end of headline figures -->"

# bench script -> the result files it writes, where that is not bench/results/<its name>.json
WRITES = {
    "bench_gelu.py": ["bench/results/bench_gelu.json", "bench/results/bench_gelu_avx2.json"],
    "bench_load.py": ["bench/results/load.json", "bench/results/load_stress.json"],
    "route_cost.py": ["bench/results/route_cost.json", "bench/results/route_cost_bare.json"],
    "ship_measured.py": ["src/gelu_lab/data/measured.json"],
    "ship_frameworks.py": ["src/gelu_lab/data/frameworks.json"],
    "exhaustive_float32.sh": ["src/gelu_lab/data/measured.json"],  # the same sweeps, shipped by ship_measured.py
}
# not measurements: the results writer; the floor app bench_app.py serves; bench_load.py's readers and its nginx stack
HELPERS = {"record.py", "dash_floor.py", "load_site.py", "load_stack.py"}


@dataclass
class Source:
    """One measurement file as the docs show it."""

    title: str
    path: str  # relative to the repository
    command: str
    where: str  # CPU or device
    date: str  # YYYY-MM-DD
    figures: dict = field(default_factory=dict)
    output: str = ""
    short: str = ""  # `where` for the README's table, without the run's load
    rows: list = field(default_factory=list)  # what the headline reads besides the figures


def _day(iso: str) -> str:
    return iso[:10]


def _cpu(m: dict, load: bool = True) -> str:
    """'AMD EPYC (Family 26 Model 2), 2 cpus, AVX-512, kernel avx512, load 5.5'."""
    isa = m.get("isa") or ""
    parts = [m.get("cpu") or m.get("processor", "?"), f"{m.get('cpus', '?')} cpus"]
    parts += ["AVX-512" if "avx512f" in isa else "AVX2" if "avx2" in isa else isa] if isa else []
    parts += [f"kernel {m['kernel']}"] if m.get("kernel") else []
    parts += [f"load {m['loadavg_1min']}"] if load and "loadavg_1min" in m else []
    return ", ".join(str(p) for p in parts)


def _span(days: list[str]) -> str:
    return min(days) if min(days) == max(days) else f"{min(days)} to {max(days)}"


def _num(v) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    return f"{v:.4g}"


def _title(command: str, name: str) -> str:
    """The first line of the bench script's docstring (`bench/x.py --flag` -> bench/x.py's), else the name."""
    import ast

    script = ROOT / command.split()[0]
    doc = ast.get_docstring(ast.parse(script.read_text())) if script.suffix == ".py" and script.exists() else None
    flags = " ".join(w for w in command.split()[1:] if w.startswith("--"))
    return (doc.splitlines()[0].rstrip(".") if doc else name) + (f" ({flags})" if flags else "")


def bench_record(path: Path) -> Source:
    d = json.loads(path.read_text())
    title = _title(d["command"], d["name"])
    where = _cpu(d["machine"]) + (f", other work took {d['busy_before']:.0%} of its CPU time before the run" if "busy_before" in d else "")
    return Source(title, f"bench/results/{path.name}", f".venv/bin/python {d['command']}", where, _day(d["date"]),
                  d["figures"], d.get("output", ""), short=_cpu(d["machine"], load=False), rows=d.get("runs", []))


def gpu_check(path: Path) -> Source:
    d = json.loads(path.read_text())
    p = d["provenance"]
    big = max(r["n"] for r in d["throughput"])
    figs = {f"{f}: float32 inputs not equal to the CPU kernel's, of {e['inputs']:,}": e["wrong"] for f, e in d["exhaustive"].items()}
    figs |= {f"torch time / ours, {r['case'][5:]}, n = {big:,}": round(r["torch_over_ours"], 3)
             for r in d["throughput"] if r["n"] == big and "torch_over_ours" in r}
    f = d["ffn"]
    figs[f"compiled bfloat16 FFN block ({f['tokens']} tokens, {f['dim']} -> {f['hidden']}), step time ours / torch"] = round(f["ours_over_torch"], 3)
    where = f"{p['device']} ({p['sms']} SMs, {p['memory_gib']} GiB), CUDA {p['cuda']}, torch {p['torch']}, triton {p['triton']}"
    return Source("GPU kernels (gelu_lab.gpu)", f"bench/results/{path.name}", f"python {p['command'].split('python3 ', 1)[-1]}",
                  where, _day(p["date"]), figs)


ACCURACY_NAMES = {"gelu": "gelu_lab.gelu", "gelu_grad": "gelu_lab.gelu_grad", "gelu_tanh": "gelu_lab.gelu, tanh form",
                  "torch:gelu": "torch.nn.functional.gelu"}


def measured_accuracy(path: Path) -> Source:
    acc = json.loads(path.read_text())["accuracy"]
    figs, dates, provs = {}, [], []
    for key, s in sorted(acc.items()):
        impl = key.split("|")[0]
        figs[f"{ACCURACY_NAMES.get(impl, impl)}, float32, all {s['n']:,} inputs: not correctly rounded"] = (
            f"{round(s['frac_wrong'] * s['n']):,} ({100 * s['frac_wrong']:.3g} %), worst {s['max_ulp']:,} ulp")
        dates.append(_day(s["provenance"]["date"]))
        provs.append(s["provenance"])
    p = provs[0]
    return Source("float32, every input (shipped)", str(path.relative_to(ROOT)),
                  ".venv/bin/python bench/ship_measured.py (gelu-lab accuracy --impl IMPL --dtype float32 --exhaustive for each)",
                  f"{p['processor']}, {p['cpus']} cpus", _span(dates), figs, rows=[{"impl": k.split("|")[0], **v} for k, v in acc.items()])


def measured_bench(path: Path) -> Source:
    from gelu_lab.analysis import bench

    b = json.loads(path.read_text())["bench"]
    m, rows = b["machine"], b["rows"]
    n = max(r["n"] for r in rows)
    figs = {}
    for num, den in (("gelu_lab:erf", "torch:erf"), ("gelu_lab:erf:fwd+bwd", "torch:erf:fwd+bwd"), ("torch:tanh", "torch:erf"),
                     ("numpy:erf", "torch:erf")):
        for q in bench.ratios(rows, num, den):
            if q["n"] == n:
                figs[f"{num} / {den}, throughput, n = {n:,}, {q['threads']} thread{'s' if q['threads'] > 1 else ''}"] = round(q["ratio"], 3)
    where = _cpu({"cpu": m["processor"], "cpus": m["cpus"], "isa": m["isa"], "kernel": m["kernel"]})
    return Source("The bench run shipped with the package (Implementation page's cost chart)", str(path.relative_to(ROOT)),
                  f".venv/bin/{m['command']} (bench/ship_measured.py --skip-accuracy)", where, _day(m["date"]), figs)


def frameworks(path: Path) -> Source:
    from gelu_lab.analysis import frameworks as fw

    rows = [r for r in fw.accuracy_rows(store=False) if r["measured"]]
    figs = {}
    for r in rows:
        n = "all" if r["mode"] == "exhaustive" else "a stratified sample of"
        figs[f"{r['framework']} {r['version'] or ''} `{r['call']}`{' (default)' if r['default'] else ''}, {r['dtype']}, "
             f"{n} {r['n']:,} inputs"] = f"{r['wrong']:,} ({100 * r['frac_wrong']:.4g} %) not correctly rounded, worst {r['max_ulp']:,} ulp"
    p = next(r["provenance"] for r in rows if r["framework"] != "GELU Lab")
    return Source("Which framework computes GELU right (shipped)", str(path.relative_to(ROOT)),
                  ".venv/bin/python bench/ship_frameworks.py --sample 134217728", f"{p['processor']}, {p['cpus']} cpus",
                  _day(p["date"]), figs, rows=rows)


def ffn(path: Path) -> Source:
    from gelu_lab.commands import run_words as W
    from gelu_lab.results import latest
    from gelu_lab.stats.runsets import comparisons

    got = latest("train", store=False)
    p = got.provenance
    figs = {}
    for g in comparisons(got.value):
        if "each activation's best" not in g["label"]:
            continue
        for q in g["paired"]:
            figs[f"{g['label'].replace(' lr: each activation' + chr(39) + 's best', '')}: {q['a']} - {q['b']}, final val loss, "
                 f"{q['n']} seeds"] = f"{q['mean']:+.4f} [{q['lo']:+.4f}, {q['hi']:+.4f}], {W.VERDICT_WORDS.get(q['verdict'], 'noise unknown')}"
    # the set reuses runs of earlier sessions: each run's own machine and day, not the set's
    runs = [r["provenance"] for r in got.value if r.get("provenance")] or [p]
    machines = sorted({", ".join(x for x in (q.get("processor", "?"), f"{q.get('cpus', '?')} cpus", q.get("isa")) if x) for q in runs})
    days = sorted({_day(q["date"]) for q in runs if q.get("date")})
    return Source("The FFN experiment (shipped)", str(path.relative_to(ROOT)), f".venv/bin/{p['command']}",
                  "; ".join(machines), days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}", figs)


def sources() -> list[Source]:
    out = [measured_accuracy(DATA / "measured.json"), frameworks(DATA / "frameworks.json"), measured_bench(DATA / "measured.json"),
           ffn(DATA / "ffn_results.json")]
    for path in sorted(RESULTS.glob("*.json")):
        if path.name == "gpu_check.json":
            out.append(gpu_check(path))
        elif "figures" in json.loads(path.read_text()):
            out.append(bench_record(path))
    return out


def not_measured() -> list[str]:
    """Bench scripts whose result file does not exist yet."""
    missing = []
    for script in sorted(p for p in (ROOT / "bench").iterdir() if p.suffix in (".py", ".sh") and p.name not in HELPERS):
        files = WRITES.get(script.name, [f"bench/results/{script.stem}.json"])
        if not any((ROOT / f).exists() for f in files):
            missing.append(script.name)
    return missing


def _find(srcs, path: str) -> Source:
    return next(s for s in srcs if s.path == path)


def headline(srcs: list[Source]) -> str:
    """The README's table: accuracy per dtype, speed to torch (CPU, GPU), the FFN verdict, the frameworks' line."""
    rows = []

    def add(what, value, s: Source, where: str | None = None):
        rows.append(f"| {what} | {value} | {where or s.short or s.where} | {s.date} |")

    acc = _find(srcs, "src/gelu_lab/data/measured.json")
    fw = _find(srcs, "src/gelu_lab/data/frameworks.json")
    for dtype in ("float16", "bfloat16"):
        r = next(r for r in fw.rows if r["impl"] == "gelu" and r["dtype"] == dtype)
        add(f"gelu_lab.gelu, {dtype}: not correctly rounded", f"{r['wrong']:,} of {r['n']:,}", fw)
    for impl, label in (("gelu", "gelu_lab.gelu"), ("gelu_grad", "gelu_lab.gelu_grad"), ("torch:gelu", "torch's default GELU")):
        r = next(r for r in acc.rows if r["impl"] == impl)
        worst = f", worst {r['max_ulp']:,} ulp" if r["max_ulp"] else ""
        add(f"{label}, float32: not correctly rounded", f"{round(r['frac_wrong'] * r['n']):,} of 2^32{worst}", acc)
    line = "; ".join(f"{r['framework']} {100 * r['frac_wrong']:.3g} %" for r in fw.rows
                     if r["default"] and r["dtype"] == "float32" and r["framework"] != "GELU Lab")
    add("other frameworks' default GELU, float32 (a sample of 1.34e8 over every binade): not correctly rounded", line, fw)
    cpu = next((s for s in srcs if s.path == "bench/results/bench_gelu.json"), None)
    if cpu is not None:
        for what, key in (("gelu_lab.gelu / torch exact", "gelu_lab.gelu / torch exact"),
                          ("gelu_lab.gelu_grad / torch's backward", "gelu_lab.gelu_grad / torch exact backward"),
                          ("bfloat16, gelu_lab / torch", "gelu_lab bfloat16 / torch bfloat16"),
                          ("float16, gelu_lab / torch", "gelu_lab float16 / torch float16")):
            add(f"CPU speed, {what}, 2^24 inputs, 1 / 2 threads",
                f"{cpu.figures[key + ', 1 thread']:.3f} / {cpu.figures[key + ', 2 threads']:.3f}", cpu)
    gpu = next((s for s in srcs if s.path == "bench/results/gpu_check.json"), None)
    if gpu is not None:
        wrong = [v for k, v in gpu.figures.items() if "not equal to the CPU kernel" in k]
        add("GPU, gelu and gelu_grad, float32: wrong of 2^32 each", " and ".join(map(str, wrong)), gpu)
        for case, label in (("fp32:fwd", "float32 forward"), ("fp32:bwd", "float32 backward"), ("bf16:fwd", "bfloat16 forward"),
                            ("bf16:bwd", "bfloat16 backward")):
            k = next(k for k in gpu.figures if f", {case}, n = " in k)
            add(f"GPU speed, torch time / ours, {label}, 2^28 inputs", f"{gpu.figures[k]:.3f}", gpu)
        k = next(k for k in gpu.figures if k.startswith("compiled bfloat16 FFN"))
        add("GPU, compiled bfloat16 FFN block, step time ours / torch", f"{gpu.figures[k]:.3f}", gpu)
    def setup(src: Source) -> dict:
        return json.loads((ROOT / src.path).read_text()).get("setup", {})

    def shared(src: Source) -> str:
        """Where a load run was measured: the machine and its load before the run (the run's own load is not the machine's)."""
        return f"{src.short}, load {setup(src).get('loadavg_before', ['?'])[0]} before the run"

    load = next((s for s in srcs if s.path == "bench/results/load.json"), None)
    if load is not None:
        for clients in (100, 200):
            runs = sorted((r for r in load.rows if r["clients"] == clients), key=lambda r: r["replicas"])
            if runs:
                p95 = " / ".join(f"{r['kinds']['callback']['p95_ms']:.0f}" for r in runs)
                add(f"A class on loopback: {clients} readers behind nginx (each pausing {setup(load).get('think_s', '?'):g} s on average), "
                    f"callback p95, {' / '.join(str(r['replicas']) for r in runs)} replicas",
                    f"{p95} ms, errors {' / '.join(str(r['errors']) for r in runs)}", load, shared(load))
    stress = next((s for s in srcs if s.path == "bench/results/load_stress.json"), None)
    if stress is not None:
        best = {}
        for r in stress.rows:
            best[r["replicas"]] = max(best.get(r["replicas"], 0), r["requests_per_s"])
        add(f"Server capacity, readers that never pause: requests/s, {' / '.join(map(str, sorted(best)))} replicas",
            " / ".join(f"{best[k]:.0f}" for k in sorted(best)), stress, shared(stress))
    ffn_ = _find(srcs, "src/gelu_lab/data/ffn_results.json")
    for k, v in ffn_.figures.items():
        if "d128" in k and ": gelu - relu," in k:
            init = {"unit": "1/√d"}.get(k.split("fc_init_std ")[1].split(":")[0], k.split("fc_init_std ")[1].split(":")[0])
            add(f"FFN experiment, width 128, init {init}: GELU − ReLU final validation loss, 95% interval", v, ffn_)
    head = "| figure | value | measured on | date |\n|---|---|---|---|"
    return "\n".join([BEGIN, head, *rows, END])


def measurements_md(srcs: list[Source]) -> str:
    out = ["# Measurements", "",
           "Every figure GELU Lab states, rendered by `make docs` (`tools/render_measurements.py`) from the JSON its "
           "bench scripts write (`bench/results/`) and the measurements shipped with the package (`src/gelu_lab/data/`). "
           "Do not edit: rerun the command of a section, then `make docs`. Ratios are between figures of one run; a load "
           "figure is the machine's 1-minute load average when the run was recorded (2 cores: above 2, other work shared them).",
           ""]
    for s in srcs:
        out += [f"## {s.title}", "", f"- reproduce: `{s.command}`", f"- measured on: {s.where}", f"- date: {s.date}",
                f"- data: `{s.path}`", "", "| figure | value |", "|---|---|"]
        out += [f"| {k} | {_num(v)} |" for k, v in s.figures.items()]
        if s.output.strip():
            out += ["", "<details><summary>as printed</summary>", "", "```", s.output.rstrip(), "```", "", "</details>"]
        out.append("")
    missing = not_measured()
    if missing:
        out += ["## Not measured as data yet", "",
                "These scripts write their result file when run; none is in the repository yet:", ""]
        out += [f"- `bench/{m}`" for m in missing]
        out.append("")
    return "\n".join(out)


def render() -> dict[Path, str]:
    """{file: its text as rendered now}: docs/measurements.md and README.md with its headline table."""
    srcs = sources()
    readme = README.read_text()
    if BEGIN not in readme or END not in readme:
        raise SystemExit(f"README.md has no headline-figures block ({BEGIN} ... {END})")
    before, rest = readme.split(BEGIN, 1)
    after = rest.split(END, 1)[1]
    return {MEASUREMENTS: measurements_md(srcs), README: before + headline(srcs) + after}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is out of date")
    a = p.parse_args(argv)
    stale = []
    for path, text in render().items():
        if path.exists() and path.read_text() == text:
            continue
        stale.append(path.relative_to(ROOT))
        if not a.check:
            path.write_text(text)
    for s in stale:
        print(f"{'out of date' if a.check else 'wrote'}: {s}")
    return 1 if a.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
