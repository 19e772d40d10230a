// compat entry "phone_fit" (gelu_lab/app/compat/__init__.py; plotly.js of plotly==7.1.0):
// reads plotly.js's computed layout gd._fullLayout (height, margins, axis ranges), an axis's
// private ax._id, the drawn legend's legend._effHeight and the SVG class names of tick labels
// (.xaxislayer-above .x2tick), then redraws with Plotly.react. check() fails naming the field.
// Figures on a narrow screen. gelu_lab.figures lays every figure out for a page 1100 px
// wide; where assets/viewport.css says the screen is narrow (--narrow: 1), this one piece of
// code re-lays each drawn figure, whichever page drew it, so that it takes the width and
// stays legible:
// - the legend goes below the plot, across (beside it, it took half the width);
// - panels side by side narrower than PANEL px go into fewer columns and more rows (sharing
//   their axis titles: the x title under the last row, the y title on the left);
// - the axes take the room their labels need (plotly.js automargin: y axes, names under bars);
// - an x axis whose tick labels would crowd (plotly.js would turn them aslant into the axis
//   title) gets fewer ticks: as many as its widest label leaves room for;
// - a title, a panel's title or an x axis title wider than its room is broken into lines (at
//   a space, or between Chinese words: Intl.Segmenter);
// - the figure grows by the room these take, so that each plot keeps its size.
// It measures the figure plotly.js drew (after Dash draws a figure, and after every draw),
// works from the figure's own layout (what it changed is kept aside), and redraws with
// Plotly.react only what differs, so that a second pass changes nothing; back on a wide
// screen it puts back what it changed. Dash's figure prop is left as the server sent it.
// tests/test_app_phone.py checks every page at 390 px (legend below, no text cut off, over
// the tick labels or over another text).
(function () {
  const C = window.gelu_lab_compat = window.gelu_lab_compat || {};
  C.phone_fit = {
    depends: "plotly==7.1.0 (plotly.js: gd._fullLayout, ax._id, legend._effHeight, .xaxislayer-above .<id>tick)",
    check: function () {
      const gds = C.plotly_gd.all(document.querySelector("main") || document);
      if (!gds.length) return null;
      const out = [];
      gds.forEach(function (gd) {
        const L = gd._fullLayout, id = gd.parentElement && gd.parentElement.id;
        if (!L || typeof L.height !== "number" || !L.margin || typeof L.margin.t !== "number") { out.push("plotly.js: gd._fullLayout.height/margin gone (#" + id + ")"); return; }
        Object.keys(L).filter(function (k) { return /^[xy]axis\d*$/.test(k); }).forEach(function (k) {
          const ax = L[k];
          if (ax._id !== k.charAt(0) + k.slice(5)) out.push("plotly.js: _fullLayout." + k + "._id is " + ax._id + " (#" + id + ")");
          else if (k.charAt(0) === "x" && ax.showticklabels && ax.visible !== false && !gd.querySelector("." + k.charAt(0) + "axislayer-above ." + ax._id + "tick text")) out.push("plotly.js: no .xaxislayer-above ." + ax._id + "tick text (#" + id + ")");
        });
        if (L.showlegend && L.legend && typeof L.legend._effHeight !== "number") out.push("plotly.js: _fullLayout.legend._effHeight gone (#" + id + ")");
      });
      return out;
    },
  };

  const GAP = 10;  // px between two tick labels
  const seg = window.Intl && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: "word" }) : null;
  const ctx = document.createElement("canvas").getContext("2d");

  function narrow() {
    return getComputedStyle(document.documentElement).getPropertyValue("--narrow").trim() === "1";
  }
  function width(s, font) {
    ctx.font = font.size + "px " + font.family;
    return ctx.measureText(s).width;
  }
  // the pieces a line may break between: after a space, or next to a Chinese word (not
  // before closing punctuation, not after an opening bracket): "Φ(x)" stays whole
  const CJK = /[\u3000-\u9fff\uf900-\ufaff\uff00-\uffef]/, CLOSE = /^[\s,.;:!?)\]}，。；：！？、）」』”’》]/, OPEN = /[(\[{（「『“‘《]$/;
  function pieces(line) {
    const out = [];
    (seg ? Array.from(seg.segment(line), function (s) { return s.segment; }) : line.split(/(?<=\s)/)).forEach(function (t) {
      const last = out[out.length - 1];
      const breaks = last !== undefined && !CLOSE.test(t) && !OPEN.test(last) && (/\s$/.test(last) || CJK.test(t.charAt(0)) || CJK.test(last.slice(-1)));
      if (last === undefined || breaks) out.push(t); else out[out.length - 1] += t;
    });
    return out;
  }
  // text broken into lines no wider than room (plotly.js writes a break as <br>); a text with
  // other markup is left as it is
  function wrap(text, font, room) {
    if (typeof text !== "string" || /<(?!br\s*\/?>)\/?[a-z]/i.test(text)) return text;
    const lines = [];
    text.split(/<br\s*\/?>/i).forEach(function (line) {
      let cur = "";
      pieces(line).forEach(function (p) {
        if (cur.trim() && width((cur + p).trimEnd(), font) > room) { lines.push(cur.trimEnd()); cur = p.trimStart(); } else cur += p;
      });
      lines.push(cur.trimEnd());
    });
    return lines.join("<br>");
  }
  function keys(path) { return path.replace(/\[(\d+)\]/g, ".$1").split("."); }  // "annotations[2].text" -> its keys
  function get(obj, path) {
    return keys(path).reduce(function (o, k) { return o == null ? undefined : o[k]; }, obj);
  }
  function r6(v) { return Math.round(v * 1e6) / 1e6; }  // a domain or position, as a layout writes it
  function same(a, b) { return a === b || JSON.stringify(a) === JSON.stringify(b); }
  function lineCount(text) { return typeof text === "string" ? text.split(/<br\s*\/?>/i).length : 1; }

  // The ticks of each auto-ticked linear x axis: plotly.js's own spacing (its rule, for the axis
  // length the plot will have with the legend below) unless its labels would crowd, then the
  // next round step whose labels fit. The widest label is measured once per figure (the
  // labels of other steps are about as wide; measured again they could flip the step back).
  const STEPS = [1, 2, 5, 10];
  function roundUp(v) {
    const base = Math.pow(10, Math.floor(Math.log10(v)));
    return base * STEPS.find(function (s) { return s * base > v; });  // plotly.js: the next step above
  }
  function fewer(d) {  // the next round step above d (4 too: -4, 0, 4 where -4, -2, ... crowd)
    const base = Math.pow(10, Math.floor(Math.log10(d) + 1e-9));
    return base * [1, 2, 4, 5, 10].find(function (s) { return s * base > d * (1 + 1e-9); });
  }
  function count(lo, hi, d) { return Math.floor(hi / d + 1e-9) - Math.ceil(lo / d - 1e-9) + 1; }
  function ticks(gd, L, f, orig, out, geo) {
    Object.keys(L).filter(function (k) { return /^xaxis\d*$/.test(k); }).forEach(function (k) {
      const ax = L[k];
      if (orig(k + ".tickmode") || orig(k + ".dtick") || orig(k + ".nticks") || orig(k + ".tickvals") || ax.type !== "linear" || !ax.showticklabels) return;
      if (!f.ticks[k]) {
        let w = 0;
        gd.querySelectorAll(".xaxislayer-above ." + ax._id + "tick text").forEach(function (t) { w = Math.max(w, t.getComputedTextLength()); });
        if (!w) return;  // none drawn yet: measured after the next draw
        f.ticks[k] = w;
      }
      const d0 = geo.domain(k), len = geo.w * (d0[1] - d0[0]), lo = Math.min(ax.range[0], ax.range[1]), hi = Math.max(ax.range[0], ax.range[1]);
      const room = function (d) { return count(lo, hi, d) * (f.ticks[k] + GAP) <= len; };
      let d = roundUp((hi - lo) / (Math.min(Math.max(len / 80, 4), 9) + 1));
      if (!(d > 0) || room(d)) return;
      while (!room(d) && count(lo, hi, d) > 2) d = fewer(d);
      Object.assign(out, { [k + ".tickmode"]: "linear", [k + ".tick0"]: 0, [k + ".dtick"]: d });
    });
  }

  // The panels of a figure (one per x axis that has a y axis of its own), from the figure's
  // own domains: {x, y (axis names), xd, yd (domains), title (index of the annotation above it)}
  function panels(gd, L, orig) {
    const dom = function (k) { return orig(k + ".domain") || [0, 1]; };  // plotly.js's default
    const out = [];
    Object.keys(L).filter(function (k) { return /^xaxis\d*$/.test(k); }).forEach(function (k) {
      const ax = L[k], y = "yaxis" + String(ax.anchor || "y").slice(1);
      if (ax.overlaying || !L[y]) return;
      out.push({ x: k, y: y, xd: dom(k), yd: dom(y), title: -1 });
    });
    (gd.layout.annotations || []).forEach(function (a, i) {
      const ax = orig("annotations[" + i + "].x"), ay = orig("annotations[" + i + "].y");
      if (a.xref !== "paper" || a.yref !== "paper" || a.showarrow !== false) return;
      out.forEach(function (p) {
        if (Math.abs(ax - (p.xd[0] + p.xd[1]) / 2) < 1e-6 && Math.abs(ay - p.yd[1]) < 1e-6) p.title = i;
      });
    });
    return out;
  }
  function unique(values) {
    return values.map(r6).filter(function (v, i, a) { return a.indexOf(v) === i; });
  }
  const PANEL = 120;  // px: the narrowest panel worth drawing side by side

  // what a narrow screen changes: {layout path: value}, from the figure as Dash gave it (f.orig)
  function phone(gd, L, f) {
    const out = {}, orig = function (p) { return p in f.orig ? f.orig[p] : get(gd.layout, p); };
    let below = 0;  // px that the legend takes below the plot
    if (L.showlegend) {
      Object.assign(out, { "legend.orientation": "h", "legend.xref": "paper", "legend.x": 0, "legend.xanchor": "left",
        "legend.yref": "container", "legend.y": 0, "legend.yanchor": "bottom" });
      // its height is known once it is drawn across: the next pass makes room for it
      if (L.legend.yref === "container" && L.legend.orientation === "h") below = Math.ceil(L.legend._effHeight) + 6;
    }
    // y tick labels and titles take the room they need (beside a plot, a long one met the
    // title), and so do the names under bars (turned aslant on a narrow plot)
    Object.keys(L).filter(function (k) { return /^yaxis\d*$/.test(k) || (/^xaxis\d*$/.test(k) && L[k].type === "category"); }).forEach(function (k) {
      if (!orig(k + ".automargin")) out[k + ".automargin"] = true;
    });

    // Panels side by side narrower than PANEL: fewer columns, more rows, each as tall as before
    const w = L.width - f.base["margin.l"] - f.base["margin.r"], h = f.base.height - f.base["margin.t"] - f.base["margin.b"];
    const ps = panels(gd, L, orig), starts = unique(ps.map(function (p) { return p.xd[0]; })).sort(function (a, b) { return a - b; });
    const cols = starts.length, fitCols = Math.max(1, Math.floor(w / PANEL)), reflow = ps.length > 1 && cols > fitCols;
    const geo = { w: w, domain: function (k) { const p = ps.find(function (p) { return p.x === k; }); return p && p.nxd ? p.nxd : orig(k + ".domain") || [0, 1]; } };
    // a grid's panels share their axis titles: the x title under the last row, the y title left
    const shared = function (a) {
      const t = ps.map(function (p) { return orig(p[a] + ".title.text") || ""; }).filter(function (t, i, all) { return t && all.indexOf(t) === i; });
      return reflow && t.length === 1 ? t[0] : null;
    };
    const xShared = shared("x"), yShared = shared("y");
    const C = reflow ? fitCols : cols;
    if (reflow) {
      ps.sort(function (a, b) { return b.yd[1] - a.yd[1] || a.xd[0] - b.xd[0]; });  // reading order
      ps.forEach(function (p, i) { p.row = Math.floor(i / fitCols); p.col = i % fitCols; });
    } else {
      ps.forEach(function (p) { p.col = starts.indexOf(unique([p.xd[0]])[0]); });
    }
    if (ps.length > 1 && C > 1) {
      // columns as wide as they can be, with room between them for the tick labels and the
      // title of a right-hand panel's y axis (on the narrow plot it stood over its neighbour)
      const was = cols > 1 ? (starts[1] - ps.find(function (p) { return p.col === 0; }).xd[1]) * w : 0;
      let gap = reflow ? Math.max(was, 0.08 * w) : was;
      ps.forEach(function (p) {
        if (p.col === 0) return;
        const ax = L[p.y], title = reflow && yShared ? "" : orig(p.y + ".title.text");
        let labels = 0;
        if (ax.showticklabels) {
          const key = "label " + p.y;
          if (!f.ticks[key]) gd.querySelectorAll(".yaxislayer-above ." + ax._id + "tick text").forEach(function (t) { f.ticks[key] = Math.max(f.ticks[key] || 0, t.getComputedTextLength()); });
          labels = (f.ticks[key] || 0) + 6;
        }
        gap = Math.max(gap, labels + (title ? ax.title.font.size * 1.3 + 8 : 0) + 8);
      });
      gap = Math.min(gap, 0.3 * w) / w;
      const colW = (1 - gap * (C - 1)) / C;
      ps.forEach(function (p) { p.nxd = [r6(p.col * (colW + gap)), r6(p.col * (colW + gap) + colW)]; });
      if (!reflow) {
        ps.forEach(function (p) { if (!same(p.nxd, p.xd.map(r6))) out[p.x + ".domain"] = p.nxd; });
      }
    }

    // titles broken into lines that fit: the figure's at the top, a panel's above its panel
    let grow = 0, panelGrow = 0, rowLines = 0, titleLines = 0;
    const title = orig("title.text");
    if (title) {
      const text = wrap(title, L.title.font, L.width - 20);
      titleLines = lineCount(text);
      if (text !== title) {
        out["title.text"] = text;
        grow = (lineCount(text) - lineCount(title)) * L.title.font.size * 1.3;
      }
    }
    ps.forEach(function (p) {
      if (p.title < 0) return;
      const i = p.title, was = orig("annotations[" + i + "].text"), font = L.annotations[i].font, d = geo.domain(p.x);
      if (typeof was !== "string") return;
      const text = wrap(was, font, w * (d[1] - d[0]));
      if (text !== was) out["annotations[" + i + "].text"] = text;
      if (!reflow || p.row === 0) panelGrow = Math.max(panelGrow, (lineCount(text) - lineCount(was)) * font.size * 1.3);
      else rowLines = Math.max(rowLines, lineCount(text) * font.size * 1.3);
    });
    grow += panelGrow;
    // an x axis title wider than its panel (side by side, two read as one) in lines; the room
    // under the plots (or between rows) grows by the lines it gains
    let xLines = 0;
    const xTitle = function (k, text) {
      const d = geo.domain(k), font = L[k].title.font, lines = wrap(text, font, w * (d[1] - d[0]) - 12);
      xLines = Math.max(xLines, (lineCount(lines) - lineCount(text)) * font.size * 1.3);
      return lines;
    };
    Object.keys(L).filter(function (k) { return /^xaxis\d*$/.test(k); }).forEach(function (k) {
      const text = orig(k + ".title.text");
      if (text && L[k].visible !== false) { const lines = xTitle(k, text); if (lines !== text) out[k + ".title.text"] = lines; }
    });

    let plotGrow = 0;
    if (reflow) {
      const rows = Math.ceil(ps.length / fitCols), ph = h * (ps[0].yd[1] - ps[0].yd[0]);
      const tops = unique(ps.map(function (p) { return p.yd[1]; })).sort(function (a, b) { return b - a; });
      const was = tops.length > 1 ? (ps.find(function (p) { return Math.abs(p.yd[1] - tops[0]) < 1e-6; }).yd[0] - tops[1]) * h : 0;
      const hasXTitle = !xShared && ps.some(function (p) { return orig(p.x + ".title.text"); });  // a title of its own under each panel
      const gap = Math.max(was, 28 + (hasXTitle ? 26 + xLines : 0) + rowLines + 6);  // tick labels, axis title, the next panel's title
      const H = rows * ph + (rows - 1) * gap;
      ps.forEach(function (p, i) {
        const top = 1 - p.row * (ph + gap) / H;
        if (xShared) out[p.x + ".title.text"] = i + fitCols >= ps.length ? xTitle(p.x, xShared) : "";
        if (yShared) out[p.y + ".title.text"] = p.col === 0 ? yShared : "";
        out[p.x + ".domain"] = p.nxd;
        out[p.y + ".domain"] = [r6(top - ph / H), r6(top)];
        if (p.col === 0 && orig(p.y + ".showticklabels") === false) out[p.y + ".showticklabels"] = true;  // shared y: its labels were on the left panel only
        if (p.title >= 0) { out["annotations[" + p.title + "].x"] = r6((p.nxd[0] + p.nxd[1]) / 2); out["annotations[" + p.title + "].y"] = r6(top); }
      });
      plotGrow = H - h;
    }

    ticks(gd, L, f, orig, out, geo);
    // the legend and the titles' lines get room of their own: each plot keeps its size
    if (grow) out["margin.t"] = Math.round(f.base["margin.t"] + grow);
    below += xLines;
    if (below) out["margin.b"] = Math.round(f.base["margin.b"] + below);
    const height = Math.round(f.base.height + grow + below + plotGrow);
    if (grow || below || plotGrow) out.height = height;
    if (titleLines) {
      // at the top, not down into the panels' titles (plotly.js 4 sets a title of more than one
      // line a line higher than its y says)
      Object.assign(out, { "title.yref": "container", "title.yanchor": "top",
        "title.y": r6(1 - (8 + (titleLines > 1 ? L.title.font.size : 0)) / height) });
    }
    return out;
  }

  // a copy of layout with the {path: value} changes (null: left out)
  function changed(layout, upd) {
    const out = JSON.parse(JSON.stringify(layout));
    Object.keys(upd).forEach(function (path) {
      const ks = keys(path), last = ks.pop();
      const o = ks.reduce(function (o, k) { return o[k] == null ? (o[k] = {}) : o[k]; }, out);
      if (upd[path] === null) delete o[last]; else o[last] = upd[path];
    });
    return out;
  }

  function fit(gd) {
    const L = gd._fullLayout;
    if (!L || !gd.isConnected || !gd.layout || gd.__fitting) return;
    let f = gd.__fit;
    if (!f || f.layout !== gd.layout) {  // a new figure from Dash, as drawn: what its own layout gives
      f = gd.__fit = { layout: gd.layout, orig: {}, ticks: {}, passes: 0, base: { height: L.height, "margin.t": L.margin.t, "margin.b": L.margin.b, "margin.l": L.margin.l, "margin.r": L.margin.r } };
    }
    // the value drawn now (the height: Dash's graph sizes itself, with layout.autosize, and
    // plotly.js then leaves layout.height out)
    const now = function (p) { return p in f.base ? get(L, p) : get(gd.layout, p); };
    const want = narrow() ? phone(gd, L, f) : {}, upd = {};
    Object.keys(want).forEach(function (p) {
      if (!(p in f.orig)) f.orig[p] = p in f.base ? f.base[p] : get(gd.layout, p);
      if (!same(now(p), want[p])) upd[p] = want[p];
    });
    Object.keys(f.orig).forEach(function (p) {  // changed before, not wanted now: back as it was
      if (p in want) return;
      if (!same(now(p), f.orig[p])) upd[p] = f.orig[p] === undefined ? null : f.orig[p];
      delete f.orig[p];
    });
    if (!Object.keys(upd).length) return;
    if (++f.passes > 8) {  // a figure this rule cannot settle stays as it is, never redrawn in a loop (tests look for the mark)
      gd.setAttribute("data-fit-unsettled", "");
      return;
    }
    // Plotly.react, not Plotly.relayout: dcc.Graph copies a relayout into its figure prop (as
    // a reader's zoom), which would make this screen's layout the figure's own
    f.layout = changed(gd.layout, upd);
    gd.__fitting = true;
    window.Plotly.react(gd, gd.data, f.layout).then(function () { gd.__fitting = false; fit(gd); }, function () { gd.__fitting = false; });
  }

  function watch(gd) {
    if (gd.__fitWatched || !gd.on) return;
    gd.__fitWatched = true;
    gd.on("plotly_react", function () { fit(gd); });  // Dash drew a new figure (and plotly.js drew ours)
    gd.on("plotly_afterplot", function () { fit(gd); });  // drawn again (a resize)
    setTimeout(function () { fit(gd); }, 0);
  }
  new MutationObserver(function (records) {
    records.forEach(function (r) {
      if (r.target.classList && r.target.classList.contains("js-plotly-plot")) watch(r.target);
    });
  }).observe(document.documentElement, { subtree: true, attributes: true, attributeFilter: ["class"] });
  let was = null;
  window.addEventListener("resize", function () {  // across the breakpoint: plotly.js redraws only when the width changes
    const now = narrow();
    if (was !== null && now !== was) document.querySelectorAll(".js-plotly-plot").forEach(fit);
    was = now;
  });
})();
