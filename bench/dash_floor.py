"""The floor under the app's latency bars: the smallest Dash app with what the pages have.

    .venv/bin/python bench/dash_floor.py [--port 0]

One slider whose value a clientside callback and a server callback each echo
into a readout, and one figure (one 201-point curve), served by waitress with
the same plotly.js bundle and the same "scripts" speed trick (gelu_lab/app/compat/speed.py,
GELU_LAB_FAST) as `gelu-lab serve`. Prints its URL
like `serve`; `bench/bench_app.py` times it beside the real pages: whatever
this app needs, no page of GELU Lab can need less.
"""

from __future__ import annotations

import argparse
import re
import sys

import numpy as np


def make_app():
    import dash
    import plotly.graph_objects as go
    from dash import Input, Output, clientside_callback, dcc, html

    from gelu_lab.app import ASSETS
    from gelu_lab.app.compat import speed

    # as create_app, with the app's vendored scripts and none of its own
    tricks = speed.enabled() & {"scripts"}
    keep = ["plotly-basic.min.js", *(speed.TRICKS["scripts"] if tricks else ())]
    ignore = "^(?!(" + "|".join(re.escape(f) for f in keep) + ")$)"
    app = dash.Dash(__name__, assets_folder=str(ASSETS), assets_ignore=ignore, serve_locally=True, update_title=None, compress=False)
    speed.apply(app, tricks)
    speed.apply(app, tricks)
    x = np.linspace(-4, 4, 201)
    fig = go.Figure(go.Scatter(x=x, y=np.tanh(x), mode="lines"))
    app.layout = html.Main([
        dcc.Slider(id="floor-x", min=-4, max=4, step=0.01, value=0, marks=None),
        html.Div("0", id="floor-client"),
        html.Div("0", id="floor-server"),
        dcc.Graph(id="floor-graph", figure=fig, className="figure"),
    ], className="page")
    clientside_callback("function(v) { return String(v); }", Output("floor-client", "children"), Input("floor-x", "value"))

    @app.callback(Output("floor-server", "children"), Input("floor-x", "value"))
    def echo(v):
        return str(v)

    return app


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    a = ap.parse_args(argv)
    from waitress import create_server

    server = create_server(make_app().server, host="127.0.0.1", port=a.port, threads=4)
    print(f"Dash floor on http://127.0.0.1:{server.effective_port}/", flush=True)
    server.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
