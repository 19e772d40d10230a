"""Playground: two copies of one small network trained side by side in the browser, one
activation against another (GELU and ReLU by default).

The training and the drawing are app/assets/playground.js (no server call per step); this
module lays out the controls, checks them (one callback, :func:`.state.inputs`) and hands
the checked settings to the script through the ``playground-config`` store. The script's
network is checked against :mod:`gelu_lab.analysis.playground` (the same in NumPy) by
tests/test_playground.py.
"""

from __future__ import annotations

from dash import dcc, html

from .... import activations
from ....analysis import playground as pg
from ....analysis import theory
from ....figures import playground as figs
from ... import content
from ...components import dropdown, graph, md, message, more, number, radio, section, sig, slider
from ...state import Param
from .view import _button, _net, _readout, config, words

DATASET = Param("dataset", "circle", choices=pg.DATASETS)
NOISE = Param("noise", 10, 0, 50, 5, integer=True)
SPLIT = Param("split", 50, 10, 90, 10, integer=True)
FEATURES = Param("features", ["x1", "x2"], choices=tuple(pg.FEATURES), multi=True)
LAYERS = Param("layers", 2, 1, 4, 1, integer=True)
UNITS = Param("units", 4, 1, 8, 1, integer=True)
ACT_A = Param("act_a", "gelu", choices=tuple(activations.names()))
ACT_B = Param("act_b", "relu", choices=tuple(activations.names()))
LR = Param("lr", 0.03, 0.0001, 10.0)
BATCH = Param("batch", 10, 1, 100, 1, integer=True)
L2 = Param("l2", 0.0, 0.0, 1.0)
INIT = Param("init", 1.0, 0.1, 4.0, 0.1)
SEED = Param("seed", 1, 0, 99999, 1, integer=True)
WSEED = Param("wseed", 1, 0, 99999, 1, integer=True)
PARAMS = [DATASET, NOISE, SPLIT, FEATURES, LAYERS, UNITS, ACT_A, ACT_B, LR, BATCH, L2, INIT, SEED, WSEED]


def _controls(state: dict, lang: str, t: dict):
    acts = [{"label": content.label(n, lang), "value": n} for n in activations.names()]
    feats = [{"label": t[f"feat.{f}"], "value": f} for f in pg.FEATURES]
    marks = lambda p: {v: f"{v:g}" for v in (p.lo, p.hi)}  # noqa: E731
    return html.Div([
        html.Div([html.H3(t["data.h"]),
                  radio("playground-dataset", t["label.dataset"], pg.DATASETS, state["dataset"], lambda d: t[f"ds.{d}"]),
                  slider("playground-noise", NOISE, state["noise"], t["label.noise"], marks(NOISE)),
                  slider("playground-split", SPLIT, state["split"], t["label.split"], marks(SPLIT)),
                  html.Div([html.Label(t["label.features"], htmlFor="playground-features", id="playground-features-label", className="control-label"),
                            dcc.Checklist(id="playground-features", options=feats, value=state["features"], inline=True, className="checklist")],
                           className="control")], className="pg-group"),
        html.Div([html.H3(t["net.h"]),
                  slider("playground-layers", LAYERS, state["layers"], t["label.layers"], marks(LAYERS)),
                  slider("playground-units", UNITS, state["units"], t["label.units"], marks(UNITS)),
                  dropdown("playground-act_a", t["label.act_a"], acts, state["act_a"]),
                  dropdown("playground-act_b", t["label.act_b"], acts, state["act_b"])], className="pg-group"),
        html.Div([html.H3(t["train.h"]),
                  number("playground-lr", LR, state["lr"], t["label.lr"]),
                  slider("playground-batch", BATCH, state["batch"], t["label.batch"], marks(BATCH)),
                  number("playground-l2", L2, state["l2"], t["label.l2"]),
                  slider("playground-init", INIT, state["init"], t["label.init"], marks(INIT)),
                  number("playground-seed", SEED, state["seed"], t["label.seed"]),
                  number("playground-wseed", WSEED, state["wseed"], t["label.wseed"])], className="pg-group"),
    ], className="pg-controls")


def layout(state, lang):
    t = content.text(lang, "playground")
    cfg, empty = config(state)
    kp = theory.key_points()
    a, b = (content.label(cfg[k], lang) for k in ("act_a", "act_b"))
    names = [t[s].replace("%act", n) for n in (a, b) for s in ("series.train", "series.test")]
    loss = figs.loss_figure(names, cfg["act_a"], cfg["act_b"], {"title": t["fig.title"], "x": t["fig.x"], "y": t["fig.y"]})
    return html.Div([
        html.H1(t["title"]),
        md(t["intro"]),
        html.Div(md(t["static"]), className="pg-static"),  # shown in the offline report only (playground.css), which runs no training
        section(
            _controls(state, lang, t),
            more(t["controls.more"], md(t["controls.note"])),
            message("playground-msg", t["msg.features"] if empty else ""),
            html.Div([_button("play", t["btn.play"]), _button("pause", t["btn.pause"]), _button("step", t["btn.step"]),
                      _button("reset", t["btn.reset"]), _button("new", t["btn.new"])],
                     className="pg-buttons", role="group", **{"aria-label": t["buttons.label"]}),
            md(t["buttons.note"]),
            _readout(t),
        ),
        section(
            html.Div([_net("a", cfg["act_a"], lang, t), _net("b", cfg["act_b"], lang, t)], className="pg-nets"),
            md(t["legend"]),
            graph("playground-loss", loss),
        ),
        section(html.H2(t["export.h"]), md(t["export.text"]),
                html.Div([_button("export-json", t["btn.json"]), _button("export-torch", t["btn.torch"])], className="pg-buttons")),
        section(html.H2(t["look.h"]), md(content.fill(t["look.text"], gelu_min=sig(kp["gelu_min"]), gelu_argmin=sig(kp["grad_root"])))),
        dcc.Store(id="playground-config", data=cfg),
        dcc.Store(id="playground-words", data=words(lang, t)),
        dcc.Store(id="playground-run"),
        dcc.Store(id="playground-wseed-hi", data=WSEED.hi),
    ])
