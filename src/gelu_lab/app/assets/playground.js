/* The Playground page (/playground): two copies of one small network, trained side by side
   in the browser on the same data, from the same initial weights, on the same batches; only
   their activation differs. Everything is float64 and seeded (mulberry32), so a URL gives the
   same run step for step. gelu_lab.nn.playground is the same network in NumPy:
   tests/test_playground.py runs this file under node and checks data, weights and losses
   against it, and the activations against gelu_lab's over a dense grid.

   Network: features of (x1, x2) -> `layers` hidden layers of `units` units (activation) ->
   one logit; loss: binary cross-entropy of sigmoid(logit), the mean over the batch, plus
   l2/2 times the sum of squared weights (not biases); plain SGD. Weights N(0, init²/fan_in),
   biases 0. A hidden unit is dead when its activation's derivative is 0 at every data point. */
(function () {
  'use strict';

  // ---- seeded random numbers: mulberry32 (32-bit state; a float in [0, 1) from 32 bits)
  function mulberry32(seed) {
    let a = seed >>> 0;
    return function () {
      a = (a + 0x6D2B79F5) >>> 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  function gauss(rng) {  // Box-Muller, one draw per call (u in (0, 1])
    const u = 1 - rng(), v = rng();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
  const INIT_SALT = 0x5BD1E995, BATCH_SALT = 0x9E3779B9;  // the weight seed's two streams

  // ---- erf and erfc in float64, relative error ~1e-15 (tests: against gelu_lab and math.erf)
  const SQRT_PI = Math.sqrt(Math.PI), SQRT1_2 = Math.SQRT1_2;
  function expmx2(z) {  // exp(-z²) with z² split exactly: h = z to 24 bits, so h*h is exact
    const h = Math.fround(z);
    return Math.exp(-h * h) * Math.exp(-(z - h) * (z + h));
  }
  function erfSeries(z) {  // 0 <= z < 1.5: 2/√π e^(-z²) Σ 2^n z^(2n+1) / (1·3···(2n+1)), all terms > 0
    let t = z, s = z;
    const z2 = 2 * z * z;
    for (let n = 1; n < 60; n++) {
      t *= z2 / (2 * n + 1);
      s += t;
      if (t < 1e-17 * s) break;
    }
    return 2 / SQRT_PI * expmx2(z) * s;
  }
  function erfcFraction(z) {  // z >= 1.5: e^(-z²)/√π / (z + (1/2)/(z + 1/(z + (3/2)/(z + ...)))), from the tail
    const n0 = z < 2 ? 150 : z < 3 ? 60 : 40;
    let f = z;
    for (let n = n0; n > 0; n--) f = z + 0.5 * n / f;
    return expmx2(z) / SQRT_PI / f;
  }
  // erfc(z) = erfc(c) + Σ_n erfc^(n+1)(c) h^(n+1)/(n+1)! about the nearest c = k/16, z < 8, where
  // erfc^(n+1)(c) = -2/√π (-1)^n H_n(c) e^(-c²) (Hermite polynomials); erfc(c) itself from the
  // series or the fraction above. |2ch| <= 1/4 there, so TERMS terms leave < 1e-17.
  const STEPS = 32, ZMAX = 8, TERMS = 12, TABLE = [];
  for (let k = 0; k <= ZMAX * STEPS; k++) {
    const c = k / STEPS, row = new Float64Array(TERMS + 1), g = -2 / SQRT_PI * Math.exp(-c * c);
    row[0] = c < 1.5 ? 1 - erfSeries(c) : erfcFraction(c);
    let h0 = 1, h1 = 2 * c, fact = 1;
    for (let n = 0; n < TERMS; n++) {
      fact *= n + 1;
      row[n + 1] = g * (n % 2 ? -h0 : h0) / fact;
      const h2 = 2 * c * h1 - 2 * (n + 1) * h0;
      h0 = h1; h1 = h2;
    }
    TABLE.push(row);
  }
  function erfcPos(z) {  // z >= 0
    if (z >= ZMAX) return z > 27.3 ? 0 : erfcFraction(z);
    const k = Math.round(z * STEPS), h = z - k / STEPS, row = TABLE[k];
    let s = row[TERMS];
    for (let n = TERMS - 1; n > 0; n--) s = s * h + row[n];
    return row[0] + s * h;
  }
  function erfc(x) {
    if (x !== x) return x;
    return x < 0 ? 2 - erfcPos(-x) : erfcPos(x);
  }
  function erf(x) {
    if (x !== x) return x;
    const z = Math.abs(x), e = z < 0.5 ? erfSeries(z) : 1 - erfcPos(z);
    return x < 0 ? -e : e;
  }

  // ---- the activations of gelu_lab.activations: [f, f'] (kinks as PyTorch: relu'(0) = 0)
  function sigmoid(x) {
    if (x >= 0) return 1 / (1 + Math.exp(-x));
    const e = Math.exp(x);
    return e / (1 + e);
  }
  const PHI = 1 / Math.sqrt(2 * Math.PI), K_TANH = Math.sqrt(2 / Math.PI), C_TANH = 0.044715, K_SIG = 1.702;
  const LEAKY = 0.01;
  function softplus(x) { return Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x))); }
  const ACTS = {
    gelu: [x => 0.5 * x * erfc(-x * SQRT1_2), x => 0.5 * erfc(-x * SQRT1_2) + x * PHI * Math.exp(-0.5 * x * x)],
    gelu_tanh: [  // ½x(1 + tanh(u)) = x σ(2u), u = √(2/π)(x + 0.044715x³): no cancellation for x < 0
      x => x * sigmoid(2 * K_TANH * (x + C_TANH * x * x * x)),
      x => { const s = sigmoid(2 * K_TANH * (x + C_TANH * x * x * x)); return s + x * s * (1 - s) * 2 * K_TANH * (1 + 3 * C_TANH * x * x); },
    ],
    gelu_sigmoid: [x => x * sigmoid(K_SIG * x), x => { const s = sigmoid(K_SIG * x); return s + K_SIG * x * s * sigmoid(-K_SIG * x); }],
    relu: [x => (x > 0 ? x : 0), x => (x > 0 ? 1 : 0)],
    sigmoid: [sigmoid, x => sigmoid(x) * sigmoid(-x)],
    silu: [x => x * sigmoid(x), x => { const s = sigmoid(x); return s + x * s * sigmoid(-x); }],
    elu: [x => (x > 0 ? x : Math.expm1(x)), x => (x >= 0 ? 1 : Math.exp(x))],
    softplus: [softplus, sigmoid],
    mish: [x => x * Math.tanh(softplus(x)), x => { const t = Math.tanh(softplus(x)); return t + x * (1 - t * t) * sigmoid(x); }],
    leaky_relu: [x => (x > 0 ? x : LEAKY * x), x => (x > 0 ? 1 : LEAKY)],
  };

  // the activations over an array (a loop of its own for the two default ones, so their call is inlined)
  const VEC = {
    gelu: (z, o) => { for (let i = 0; i < z.length; i++) { const x = z[i]; o[i] = 0.5 * x * erfc(-x * SQRT1_2); } },
    relu: (z, o) => { for (let i = 0; i < z.length; i++) o[i] = z[i] > 0 ? z[i] : 0; },
  };
  function vec(name) {
    if (VEC[name]) return VEC[name];
    const f = ACTS[name][0];
    return (z, o) => { for (let i = 0; i < z.length; i++) o[i] = f(z[i]); };
  }

  // ---- data: N points of two classes in [-6, 6]², shuffled, the first `split` % for training
  const N = 400, NOISE = 2, EXTENT = 6;
  const FEATURES = {
    x1: (a, b) => a, x2: (a, b) => b, x1sq: (a, b) => a * a, x2sq: (a, b) => b * b,
    x1x2: (a, b) => a * b, sin1: (a, b) => Math.sin(a), sin2: (a, b) => Math.sin(b),
  };
  const FEATURE_ORDER = Object.keys(FEATURES);

  function dataset(name, noisePct, seed) {
    const rng = mulberry32(seed), half = N / 2, pts = [];
    for (let i = 0; i < N; i++) {
      let c = i < half ? 1 : 0, a, b;
      if (name === 'xor') {
        a = 10 * rng() - 5; b = 10 * rng() - 5;
        a += a > 0 ? 0.3 : -0.3; b += b > 0 ? 0.3 : -0.3;
        c = a * b > 0 ? 1 : 0;
      } else if (name === 'gauss') {
        const m = c ? 2 : -2;
        a = m + gauss(rng); b = m + gauss(rng);
      } else if (name === 'spiral') {
        const k = c ? i : i - half, r = 5 * k / half, t = 3.5 * Math.PI * k / half + (c ? 0 : Math.PI);
        a = r * Math.sin(t); b = r * Math.cos(t);
      } else {  // circle
        const r = c ? 2.5 * rng() : 3.5 + 1.5 * rng(), t = 2 * Math.PI * rng();
        a = r * Math.sin(t); b = r * Math.cos(t);
      }
      const s = noisePct / 100 * NOISE;
      a += s * gauss(rng); b += s * gauss(rng);
      pts.push([a, b, c]);
    }
    for (let i = N - 1; i > 0; i--) {  // Fisher-Yates
      const j = Math.floor(rng() * (i + 1)), t = pts[i]; pts[i] = pts[j]; pts[j] = t;
    }
    return pts;
  }

  // ---- the network
  function makeNet(sizes, act) {
    const W = [], b = [];
    for (let l = 0; l + 1 < sizes.length; l++) { W.push(new Float64Array(sizes[l] * sizes[l + 1])); b.push(new Float64Array(sizes[l + 1])); }
    return { sizes: sizes, act: act, f: ACTS[act][0], df: ACTS[act][1], fv: vec(act), W: W, b: b, bufs: {} };
  }
  function initWeights(net, scale, rng) {
    for (let l = 0; l < net.W.length; l++) {
      const s = scale / Math.sqrt(Math.max(net.sizes[l], 1)), W = net.W[l];
      for (let k = 0; k < W.length; k++) W[k] = s * gauss(rng);
    }
  }
  function copyWeights(from, to) {
    from.W.forEach((W, l) => { to.W[l].set(W); to.b[l].set(from.b[l]); });
  }
  // forward one input `x` (the features); Z[l], A[l+1]: pre-activations and outputs of layer l
  function forward(net, x, Z, A) {
    A[0] = x;
    const L = net.W.length;
    for (let l = 0; l < L; l++) {
      const W = net.W[l], b = net.b[l], nin = net.sizes[l], nout = net.sizes[l + 1], a = A[l], z = Z[l], o = A[l + 1];
      for (let j = 0; j < nout; j++) {
        let s = b[j];
        for (let k = 0; k < nin; k++) s += W[j * nin + k] * a[k];
        z[j] = s;
        o[j] = l + 1 < L ? net.f(s) : s;
      }
    }
    return Z[L - 1][0];
  }
  // forward the n rows of X (n × inputs, flat) at once, layer by layer: the logits, and each
  // hidden layer's pre-activations Z[l] and outputs A[l] (n × units); the arrays are the net's own, reused
  function forwardMany(net, X, n) {
    const L = net.W.length, key = 'n' + n, bufs = net.bufs[key] || (net.bufs[key] = {
      Z: net.sizes.slice(1).map(u => new Float64Array(n * u)), A: net.sizes.slice(1, -1).map(u => new Float64Array(n * u)) });
    let a = X;
    for (let l = 0; l < L; l++) {
      const W = net.W[l], b = net.b[l], nin = net.sizes[l], nout = net.sizes[l + 1], z = bufs.Z[l];
      for (let i = 0; i < n; i++) {
        const ai = i * nin, zi = i * nout;
        for (let j = 0; j < nout; j++) {
          let s = b[j];
          const wj = j * nin;
          for (let k = 0; k < nin; k++) s += W[wj + k] * a[ai + k];
          z[zi + j] = s;
        }
      }
      if (l + 1 < L) { net.fv(z, bufs.A[l]); a = bufs.A[l]; }
    }
    return { logits: bufs.Z[L - 1], Z: bufs.Z, A: bufs.A };
  }
  function buffers(sizes) {
    return { Z: sizes.slice(1).map(n => new Float64Array(n)), A: sizes.map(n => new Float64Array(n)), D: sizes.map(n => new Float64Array(n)) };
  }
  function bce(z, y) { return Math.max(z, 0) - z * y + Math.log1p(Math.exp(-Math.abs(z))); }

  // one SGD step on the rows `batch` of inputs X (feature vectors), labels Y
  function sgdStep(net, X, Y, batch, lr, l2, buf, grads) {
    const L = net.W.length, B = batch.length;
    grads.W.forEach(g => g.fill(0)); grads.b.forEach(g => g.fill(0));
    for (const i of batch) {
      const z = forward(net, X[i], buf.Z, buf.A);
      buf.D[L][0] = (sigmoid(z) - Y[i]) / B;  // d loss / d logit
      for (let l = L - 1; l >= 0; l--) {
        const W = net.W[l], nin = net.sizes[l], nout = net.sizes[l + 1], d = buf.D[l + 1], a = buf.A[l], gW = grads.W[l], gb = grads.b[l];
        for (let j = 0; j < nout; j++) {
          gb[j] += d[j];
          for (let k = 0; k < nin; k++) gW[j * nin + k] += d[j] * a[k];
        }
        if (l > 0) {
          const dp = buf.D[l], zp = buf.Z[l - 1];
          for (let k = 0; k < nin; k++) {
            let s = 0;
            for (let j = 0; j < nout; j++) s += W[j * nin + k] * d[j];
            dp[k] = s * net.df(zp[k]);
          }
        }
      }
    }
    for (let l = 0; l < L; l++) {
      const W = net.W[l], gW = grads.W[l], b = net.b[l], gb = grads.b[l];
      for (let k = 0; k < W.length; k++) W[k] -= lr * (gW[k] + l2 * W[k]);
      for (let j = 0; j < b.length; j++) b[j] -= lr * gb[j];
    }
  }

  // ---- a run: the data, two networks with the same weights, a shared batch order
  function sizesOf(cfg, nin) {
    const s = [nin];
    for (let l = 0; l < cfg.layers; l++) s.push(cfg.units);
    s.push(1);
    return s;
  }
  function featureList(cfg) {
    const f = FEATURE_ORDER.filter(k => (cfg.features || []).indexOf(k) >= 0);
    return f.length ? f : ['x1', 'x2'];
  }
  function flat(xy, fs) {  // the features of points [[x1, x2, ...]] as one n × features array
    const out = new Float64Array(xy.length * fs.length);
    xy.forEach((p, i) => fs.forEach((f, k) => { out[i * fs.length + k] = f(p[0], p[1]); }));
    return out;
  }
  function Run(cfg) {
    this.cfg = cfg;
    this.features = featureList(cfg);
    const fs = this.features.map(k => FEATURES[k]);
    this.points = dataset(cfg.dataset, cfg.noise, cfg.seed);
    this.X = this.points.map(p => Float64Array.from(fs, f => f(p[0], p[1])));
    this.Y = this.points.map(p => p[2]);
    this.Xflat = flat(this.points, fs);
    this.ntrain = Math.min(N - 1, Math.max(1, Math.round(N * cfg.split / 100)));
    const sizes = sizesOf(cfg, this.features.length);
    this.nets = [makeNet(sizes, cfg.act_a), makeNet(sizes, cfg.act_b)];
    initWeights(this.nets[0], cfg.init, mulberry32((cfg.wseed ^ INIT_SALT) >>> 0));
    copyWeights(this.nets[0], this.nets[1]);
    this.initial = this.nets.map(n => ({ W: n.W.map(w => Array.from(w)), b: n.b.map(v => Array.from(v)) }));
    this.batchRng = mulberry32((cfg.wseed ^ BATCH_SALT) >>> 0);
    this.perm = Int32Array.from({ length: this.ntrain }, (_, i) => i);
    this.pos = this.ntrain;  // shuffle before the first batch
    this.step = 0;
    this.buf = buffers(sizes);
    this.grads = { W: this.nets[0].W.map(w => new Float64Array(w.length)), b: this.nets[0].b.map(v => new Float64Array(v.length)) };
    this.history = { step: [], loss: [[], [], [], []] };  // train a, test a, train b, test b
  }
  Run.prototype.nextBatch = function () {
    const n = this.ntrain, B = Math.min(Math.max(1, this.cfg.batch), n), p = this.perm;
    if (this.pos + B > n) {
      for (let i = n - 1; i > 0; i--) { const j = Math.floor(this.batchRng() * (i + 1)), t = p[i]; p[i] = p[j]; p[j] = t; }
      this.pos = 0;
    }
    const out = Array.from(p.subarray(this.pos, this.pos + B));
    this.pos += B;
    return out;
  };
  Run.prototype.train = function () {
    const batch = this.nextBatch();
    for (const net of this.nets) sgdStep(net, this.X, this.Y, batch, this.cfg.lr, this.cfg.l2, this.buf, this.grads);
    this.step += 1;
  };
  // losses, accuracies and dead units of both networks on all the data
  Run.prototype.evaluate = function () {
    const out = [], n = this.X.length, units = this.cfg.units;
    for (const net of this.nets) {
      const f = forwardMany(net, this.Xflat, n);
      let train = 0, test = 0, right = 0;
      for (let i = 0; i < n; i++) {
        const z = f.logits[i], y = this.Y[i];
        if (i < this.ntrain) train += bce(z, y);
        else { test += bce(z, y); if ((z > 0 ? 1 : 0) === y) right += 1; }
      }
      const dead = f.A.map((_, l) => {  // per hidden layer: true where f' is 0 at every data point
        const d = [], Z = f.Z[l];
        for (let j = 0; j < units; j++) {
          let alive = false;
          for (let i = 0; i < n && !alive; i++) alive = net.df(Z[i * units + j]) !== 0;
          d.push(!alive);
        }
        return d;
      });
      const ntest = n - this.ntrain;
      out.push({ train: train / this.ntrain, test: test / ntest, accuracy: right / ntest, dead: dead,
                 ndead: dead.reduce((s, d) => s + d.filter(Boolean).length, 0) });
    }
    return out;
  };
  Run.prototype.record = function (ev) {
    this.history.step.push(this.step);
    ev.forEach((e, k) => { this.history.loss[2 * k].push(e.train); this.history.loss[2 * k + 1].push(e.test); });
  };
  // the JSON export: configuration, features, each network's layers ({weight: [out][in], bias}), checks
  Run.prototype.exported = function (ev) {
    ev = ev || this.evaluate();
    const fs = this.features.map(k => FEATURES[k]), probes = [[0, 0], [1, -2], [-3, 2.5], [4, 4], [-5, -1]];
    return {
      format: 'gelu-lab-playground/1', step: this.step, config: this.cfg, features: this.features,
      networks: this.nets.map((net, k) => ({
        activation: net.act, sizes: net.sizes.slice(),
        layers: net.W.map((W, l) => ({ weight: Array.from({ length: net.sizes[l + 1] }, (_, j) => Array.from(W.subarray(j * net.sizes[l], (j + 1) * net.sizes[l]))), bias: Array.from(net.b[l]) })),
        train_loss: ev[k].train, test_loss: ev[k].test, test_accuracy: ev[k].accuracy, dead_units: ev[k].ndead,
      })),
      check: { inputs: probes, logits: probes.map(p => this.nets.map(net => forward(net, Float64Array.from(fs, f => f(p[0], p[1])), this.buf.Z, this.buf.A))) },
    };
  };

  // ---- PyTorch code of the exported networks (float64, the trained weights written in)
  const TORCH = {
    gelu: 'nn.GELU()', gelu_tanh: 'nn.GELU(approximate="tanh")', gelu_sigmoid: 'SigmoidGELU()', relu: 'nn.ReLU()',
    sigmoid: 'nn.Sigmoid()', silu: 'nn.SiLU()', elu: 'nn.ELU()', softplus: 'nn.Softplus()', mish: 'nn.Mish()', leaky_relu: 'nn.LeakyReLU(' + LEAKY + ')',
  };
  const TORCH_FEATURES = { x1: 'x1', x2: 'x2', x1sq: 'x1 * x1', x2sq: 'x2 * x2', x1x2: 'x1 * x2', sin1: 'torch.sin(x1)', sin2: 'torch.sin(x2)' };
  function torchCode(ex) {
    const num = v => (Number.isInteger(v) ? v.toFixed(1) : String(v));
    const mat = m => '[' + m.map(r => '[' + r.map(num).join(', ') + ']').join(',\n     ') + ']';
    const c = ex.config, lines = [
      '# GELU Lab playground: the two trained networks, in PyTorch (float64).',
      '# data: ' + c.dataset + ', noise ' + c.noise + ' %, train ' + c.split + ' %, seed ' + c.seed + '; weight seed ' + c.wseed + '; step ' + ex.step + '.',
      '# Trained with SGD (lr ' + c.lr + ', batch ' + c.batch + ') on binary cross-entropy of the logit',
      '# (nn.BCEWithLogitsLoss) plus l2/2 times the squared weights, biases excluded (l2 ' + c.l2 + ').',
      'import torch', 'from torch import nn', '',
      'FEATURES = ' + JSON.stringify(ex.features), '', '',
      'def features(x):', '    """(n, 2) points (x1, x2) -> (n, ' + ex.features.length + ') network inputs."""',
      '    x1, x2 = x[:, 0], x[:, 1]',
      '    return torch.stack([' + ex.features.map(k => TORCH_FEATURES[k]).join(', ') + '], dim=1)', '', '',
      'class SigmoidGELU(nn.Module):', '    """x * sigmoid(1.702 x)"""', '', '    def forward(self, x):', '        return x * torch.sigmoid(1.702 * x)', '', '',
      'def network(activation, layers):', '    """nn.Sequential of Linear layers with `activation` between them, weights set from `layers`."""',
      '    mods = []', '    for i, (weight, bias) in enumerate(layers):',
      '        lin = nn.Linear(len(weight[0]), len(weight), dtype=torch.float64)',
      '        with torch.no_grad():', '            lin.weight.copy_(torch.tensor(weight, dtype=torch.float64))', '            lin.bias.copy_(torch.tensor(bias, dtype=torch.float64))',
      '        mods.append(lin)', '        if i < len(layers) - 1:', '            mods.append(activation())', '    return nn.Sequential(*mods)', '',
    ];
    ex.networks.forEach((net, k) => {
      const name = 'NET_' + 'AB'[k];
      lines.push('', name + '_LAYERS = [  # ' + net.activation + ': [weight (out, in), bias] per layer');
      net.layers.forEach(l => lines.push('    (' + mat(l.weight) + ',\n     [' + l.bias.map(num).join(', ') + ']),'));
      lines.push(']', name.toLowerCase() + ' = network(lambda: ' + TORCH[net.activation] + ', ' + name + '_LAYERS)');
    });
    lines.push('', '', 'if __name__ == "__main__":',
      '    x = torch.tensor(' + JSON.stringify(ex.check.inputs) + ', dtype=torch.float64)',
      '    with torch.no_grad():', '        print("p(class 1), network A:", torch.sigmoid(net_a(features(x))).flatten().tolist())',
      '        print("p(class 1), network B:", torch.sigmoid(net_b(features(x))).flatten().tolist())', '');
    return lines.join('\n');
  }

  // ---- node: what tests/test_playground.py calls
  function simulate(cfg, steps) {
    const run = new Run(cfg), out = { points: run.points, ntrain: run.ntrain, initial: run.initial, losses: [] };
    for (let s = 0; s < steps; s++) { run.train(); const ev = run.evaluate(); out.losses.push(ev.map(e => [e.train, e.test])); }
    const ev = run.evaluate();
    out.exported = run.exported(ev);
    out.dead = ev.map(e => e.dead);
    return out;
  }
  const core = { mulberry32, gauss, erf, erfc, ACTS, dataset, Run, simulate, torchCode, forwardMany, FEATURE_ORDER };
  if (typeof module !== 'undefined') { module.exports = core; return; }

  // ======== the page (browser only) ========
  const G = 40;  // heatmap cells per side, over [-6, 6]²
  const gridX = new Float64Array(G), gridY = new Float64Array(G);
  for (let i = 0; i < G; i++) { gridX[i] = -EXTENT + (i + 0.5) * 2 * EXTENT / G; gridY[i] = EXTENT - (i + 0.5) * 2 * EXTENT / G; }
  let run = null, words = null, playing = false, frame = 0, lastEval = null, counts = { steps: 0, draws: 0 };
  const $ = id => document.getElementById(id);

  function rgb(hex) { const h = hex.replace('#', ''); return [0, 2, 4].map(i => parseInt(h.slice(i, i + 2), 16)); }
  // v in [-1, 1] -> class-0 colour (-1) through white (0) to class-1 colour (1), `keep` of the
  // colour: a table of 256 RGBA words, written into an ImageData through a Uint32Array view
  const SHADES = 256;
  function shades(c0, c1, keep) {
    const lut = new Uint32Array(SHADES), px = new Uint8ClampedArray(lut.buffer);
    for (let i = 0; i < SHADES; i++) {
      const v = 2 * i / (SHADES - 1) - 1, c = v < 0 ? c0 : c1, w = Math.abs(v) * keep;
      for (let ch = 0; ch < 3; ch++) px[4 * i + ch] = 255 + (c[ch] - 255) * w;
      px[4 * i + 3] = 255;
    }
    return lut;
  }
  function shade(v) {  // v in [-1, 1] -> its row of a shades() table
    const i = Math.round((v + 1) * (SHADES - 1) / 2);
    return i < 0 ? 0 : i > SHADES - 1 ? SHADES - 1 : i;
  }
  function fill(template, values) {  // the page's words mark a value %name (longest names first)
    return Object.keys(values).sort((a, b) => b.length - a.length).reduce((t, k) => t.split('%' + k).join(values[k]), template);
  }
  const num = v => (isFinite(v) ? Number(v.toPrecision(4)).toString() : '—');
  const pct = v => (100 * v).toFixed(1) + '%';

  // the hidden units' canvases, built once per configuration
  function unitCanvases(k) {
    const box = $('playground-units-' + 'ab'[k]);
    if (!box) return;
    box.textContent = '';
    for (let l = 0; l < run.cfg.layers; l++) {
      const row = document.createElement('div');
      row.className = 'pg-layer';
      for (let j = 0; j < run.cfg.units; j++) {
        const cell = document.createElement('div'), cv = document.createElement('canvas'), tag = document.createElement('span');
        cell.className = 'pg-unit'; cv.width = cv.height = G; tag.className = 'pg-dead'; tag.textContent = words.dead; tag.hidden = true;
        cv.id = 'playground-unit-' + 'ab'[k] + '-' + l + '-' + j;
        cell.appendChild(cv); cell.appendChild(tag); row.appendChild(cell);
      }
      box.appendChild(row);
    }
  }
  function drawPoints(k) {
    const cv = $('playground-points-' + 'ab'[k]);
    if (!cv) return;
    const ctx = cv.getContext('2d'), s = cv.width / (2 * EXTENT), c = [words.colors.class0, words.colors.class1];
    ctx.clearRect(0, 0, cv.width, cv.height);
    run.points.forEach((p, i) => {
      const x = (p[0] + EXTENT) * s, y = (EXTENT - p[1]) * s;
      ctx.beginPath(); ctx.arc(x, y, 3.2, 0, 2 * Math.PI);
      if (i < run.ntrain) { ctx.fillStyle = c[p[2]]; ctx.fill(); ctx.strokeStyle = words.colors.paper; ctx.lineWidth = 1; ctx.stroke(); }
      else { ctx.strokeStyle = c[p[2]]; ctx.lineWidth = 2; ctx.stroke(); }
    });
  }
  // the decision surface and every hidden unit's output over the grid
  const images = {};  // canvas id -> [2d context, ImageData], reused from frame to frame
  function image(cv) {
    const had = images[cv.id];
    if (had && had[2] === cv) return had;
    const ctx = cv.getContext('2d');
    const img = ctx.createImageData(G, G);
    return (images[cv.id] = [ctx, img, cv, new Uint32Array(img.data.buffer)]);
  }
  function drawNet(k, ev) {
    const net = run.nets[k], s = 'ab'[k], surf = $('playground-surface-' + s), units = run.cfg.units;
    if (!surf) return false;
    if (!run.grid) {
      const pts = [];
      for (let r = 0; r < G; r++) for (let c = 0; c < G; c++) pts.push([gridX[c], gridY[r]]);
      run.grid = flat(pts, run.features.map(f => FEATURES[f]));
    }
    const f = forwardMany(net, run.grid, G * G), im = image(surf), lut = words.surfaceShades, unitLut = words.unitShades;
    for (let o = 0; o < G * G; o++) im[3][o] = lut[shade(2 * sigmoid(f.logits[o]) - 1)];
    im[0].putImageData(im[1], 0, 0);
    const e = ev[k], label = words.acts[net.act];
    $('playground-view-' + s).setAttribute('aria-label', fill(words.surface, { act: label, step: run.step, acc: pct(e.accuracy), loss: num(e.test) }));
    const deadList = [];
    f.A.forEach((A, l) => {
      for (let j = 0; j < units; j++) {
        const cv = $('playground-unit-' + s + '-' + l + '-' + j);
        if (!cv) continue;
        let m = 0;
        for (let o = j; o < A.length; o += units) m = Math.max(m, Math.abs(A[o]));
        const ui = image(cv), d = ui[3], k = m > 0 ? 1 / m : 0;
        for (let o = 0; o < G * G; o++) d[o] = unitLut[shade(A[o * units + j] * k)];
        ui[0].putImageData(ui[1], 0, 0);
        const dead = e.dead[l][j];
        if (cv.parentNode.classList.contains('is-dead') !== dead) { cv.parentNode.classList.toggle('is-dead', dead); cv.nextSibling.hidden = !dead; }
        if (dead) deadList.push(fill(words.unit, { layer: l + 1, unit: j + 1 }));
      }
    });
    $('playground-units-' + s).setAttribute('aria-label', fill(words.units, {
      act: label, layers: run.cfg.layers, units: units, dead: e.ndead, which: deadList.length ? deadList.join(', ') : words.none }));
    return true;
  }
  function readout(ev) {
    const set = (id, v) => { const el = $(id); if (el) el.textContent = v; };
    set('playground-r-step', String(run.step));
    ev.forEach((e, k) => {
      const s = 'ab'[k];
      set('playground-r-train-' + s, num(e.train)); set('playground-r-test-' + s, num(e.test));
      set('playground-r-acc-' + s, pct(e.accuracy)); set('playground-r-dead-' + s, String(e.ndead));
    });
  }
  function lossChart() {
    const el = $('playground-loss'), gd = el && window.gelu_lab_compat.plotly_gd.find(el);  // compat/plotly_gd.js
    if (!gd || !window.Plotly || !gd.data) return;
    const h = run.history, n = h.step.length, every = Math.max(1, Math.ceil(n / 500)), pick = a => a.filter((_, i) => i % every === 0 || i === n - 1);
    const names = words.series, acts = run.nets.map(net => words.acts[net.act]), C = words.colors;
    const col = [C.acts[run.cfg.act_a], C.acts[run.cfg.act_b] === C.acts[run.cfg.act_a] ? C.neutral : C.acts[run.cfg.act_b]];
    const data = gd.data.map((tr, i) => Object.assign({}, tr, {
      x: pick(h.step), y: pick(h.loss[i]), name: fill(names[i % 2], { act: acts[i >> 1] }),
      line: Object.assign({}, tr.line, { color: col[i >> 1] }),
    }));
    window.Plotly.react(gd, data, gd.layout);
  }
  function draw(chart) {
    const ev = run.evaluate();
    lastEval = ev;
    if (!drawNet(0, ev) || !drawNet(1, ev)) return false;
    readout(ev);
    run.record(ev);
    if (chart) lossChart();
    counts.draws += 1;
    return true;
  }
  function tick() {
    if (!playing || !run) return;
    if (!$('playground-surface-a')) { playing = false; return; }  // the page is gone
    run.train(); counts.steps += 1; frame += 1;
    draw(frame % 8 === 0);
    requestAnimationFrame(tick);
  }
  function setPlaying(on) {
    playing = on;
    const live = $('playground-readout');
    if (live) live.setAttribute('aria-busy', on ? 'true' : 'false');  // announced when it stops
    if (on) requestAnimationFrame(tick);
    else if (run) lossChart();
  }
  function start(cfg) {
    run = new Run(cfg);
    frame = 0;
    unitCanvases(0); unitCanvases(1); drawPoints(0); drawPoints(1);
    draw(true);
  }
  function download(name, type, text) {
    const url = URL.createObjectURL(new Blob([text], { type: type })), a = document.createElement('a');
    a.href = url; a.download = name; document.body.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }
  document.addEventListener('click', function (e) {
    const b = e.target.closest && e.target.closest('button[id^="playground-"]');
    if (!b || !run) return;
    const what = b.id.slice('playground-'.length);
    if (what === 'play') setPlaying(true);
    else if (what === 'pause') setPlaying(false);
    else if (what === 'step') { setPlaying(false); run.train(); counts.steps += 1; draw(true); }
    else if (what === 'reset') { const on = playing; setPlaying(false); start(run.cfg); if (on) setPlaying(true); }
    else if (what === 'export-json') download('gelu-lab-playground.json', 'application/json', JSON.stringify(run.exported(lastEval), null, 1));
    else if (what === 'export-torch') download('gelu_lab_playground.py', 'text/x-python', torchCode(run.exported(lastEval)));
  });

  window.gelu_playground = Object.assign(core, {
    state: () => run && { step: run.step, playing: playing, eval: lastEval, cfg: run.cfg },
    exported: () => run && run.exported(lastEval),
    counts: () => Object.assign({}, counts),
    // bench/bench_playground.py: n steps, each followed by a full redraw (heatmaps, readout, and the loss chart every 8th)
    bench: function (n) {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) { run.train(); draw(i % 8 === 7); }
      return { steps: n, ms: performance.now() - t0 };
    },
  });
  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    gelu_playground: {
      // a new configuration (the page's validated controls): a new run at step 0, still playing if it was
      configure: function (cfg, w) {
        if (!cfg || !w) return window.dash_clientside.no_update;
        const c0 = rgb(w.colors.class0), c1 = rgb(w.colors.class1);
        words = Object.assign({}, w, { surfaceShades: shades(c0, c1, 0.6), unitShades: shades(c0, c1, 1) });
        const on = playing;
        playing = false;
        requestAnimationFrame(function () { start(cfg); if (on) setPlaying(true); else setPlaying(false); });
        return cfg.wseed;
      },
      // "new weights": the next weight seed (the URL follows it)
      reseed: function (n, wseed, hi) {
        if (!n) return window.dash_clientside.no_update;
        const v = Math.floor(Number(wseed));
        return isFinite(v) && v >= 0 && v < hi ? v + 1 : 0;
      },
    },
  });
})();
