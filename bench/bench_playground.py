"""Training steps plus redraws per second of the Playground page, in Chromium.

    .venv/bin/python bench/bench_playground.py [--seconds 10] [--rounds 5]

Serves the app (waitress, in this process), opens /playground with two networks of
2 hidden layers x 8 units (GELU and ReLU, spiral data) in Debian's headless Chromium
and measures, in the page:

- live: the page's own requestAnimationFrame loop after "play": steps and redraws
  (decision surfaces, 32 unit maps, readout; the loss chart every 8th frame) per
  second over --seconds; one step and one redraw per frame, so this is capped by the
  frame rate (60 per second in headless Chromium);
- capacity: gelu_playground.bench(n), n steps each followed by the same redraw with no
  frame in between: what the page could do with no frame cap; the median of --rounds.

Prints the CPU, the cores and the load average with the figures.
Writes bench/results/bench_playground.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from app_browser import ARGS, CHROMIUM, serve_in_thread  # noqa: E402

import record  # noqa: E402

from gelu_lab.app.pages.playground.view import CELLS  # noqa: E402

URL = "/playground?dataset=spiral&layers=2&units=8&act_a=gelu&act_b=relu&lang=en"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--n", type=int, default=300, help="steps per capacity round")
    args = ap.parse_args()
    with record.recording("bench_playground") as figures:
        figures.update(measure(args))


def measure(args) -> dict:
    from playwright.sync_api import sync_playwright

    base, server = serve_in_thread()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(base + URL)
        page.wait_for_function("window.gelu_playground && gelu_playground.state() && gelu_playground.state().cfg.units === 8", timeout=120_000)
        page.click("#playground-play")
        time.sleep(1.0)  # past the first frames
        c0, t0 = page.evaluate("[gelu_playground.counts(), performance.now()]")
        time.sleep(args.seconds)
        c1, t1 = page.evaluate("[gelu_playground.counts(), performance.now()]")
        page.click("#playground-pause")
        live = [(c1[k] - c0[k]) / ((t1 - t0) / 1000) for k in ("steps", "draws")]
        caps = []
        for _ in range(args.rounds):
            r = page.evaluate("n => gelu_playground.bench(n)", args.n)
            caps.append(r["steps"] / (r["ms"] / 1000))
        version = browser.version
        browser.close()
    server.close()
    print(f"CPU: {record.machine()['cpu']}, {os.cpu_count()} cores, load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}; Chromium {version} (headless)")
    print(f"page: two networks, 2 hidden layers x 8 units (GELU, ReLU), spiral, 400 points, {CELLS} x {CELLS} heatmaps")
    print(f"live (requestAnimationFrame loop, {args.seconds:g} s): {live[0]:.1f} steps/s, {live[1]:.1f} redraws/s")
    print(f"capacity (step + redraw, no frame cap, {args.rounds} x {args.n}): median {statistics.median(caps):.0f} steps+redraws/s "
          f"(min {min(caps):.0f}, max {max(caps):.0f})")
    return {"live loop, steps per second": round(live[0], 1), "live loop, redraws per second": round(live[1], 1),
            "no frame cap, steps + redraws per second (median)": round(statistics.median(caps)), "Chromium": version}


if __name__ == "__main__":
    main()
