"""The probe on the real model: hooks, swaps, replays, embeddings (all-MiniLM-L6-v2, offline)."""

import pytest
import torch

from gelu_lab.nn import probe as P

pytestmark = pytest.mark.xdist_group("bert")  # one worker, one model load

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "A short one.",
    "Shall I compare thee to a summer's day? Thou art more lovely and more temperate.",
    "Transformers use GELU in their feed-forward layers.",
    "The dog sleeps.",
]


@pytest.fixture(scope="module")
def bert():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny batches under `pytest -n 2`: a second thread only spins
    yield P.load()
    torch.set_num_threads(threads)


def _n_tokens(tok, s):
    return len(tok(s, truncation=True, max_length=P.MAX_TOKENS)["input_ids"])


def test_hooks_capture_the_activation_input_of_real_tokens_only(bert):
    tok, model = bert
    got, acts = {}, {}
    layers = P.layers(model)
    # the activation's own output on the same rows, for an independent check of "input to the activation"
    handles = [
        layer.intermediate.register_forward_hook(lambda m, a, out, i=i: acts.setdefault(i, []).append(out))
        for i, layer in enumerate(layers)
    ]
    try:
        with P.hooked(model, lambda i, x: got.setdefault(i, []).append(x.clone())):
            P.embed(bert, SENTENCES, batch=len(SENTENCES))  # one padded batch
    finally:
        for h in handles:
            h.remove()
    real = sum(_n_tokens(tok, s) for s in SENTENCES)
    assert sorted(got) == list(range(6))
    for i in range(6):
        (x,) = got[i]
        assert x.shape == (real, model.config.intermediate_size) == (real, 1536)
        (out,) = acts[i]  # [batch, padded length, 1536]; keep real rows in the same (row-major) order
        enc = tok(sorted(SENTENCES, key=len), padding=True, return_tensors="pt")
        assert out.shape[1] == enc["attention_mask"].shape[1] > min(_n_tokens(tok, s) for s in SENTENCES)
        assert torch.equal(layers[i].intermediate.intermediate_act_fn(x), out[enc["attention_mask"].bool()])


def test_padding_does_not_change_captured_rows(bert):
    tok, model = bert
    alone, batched = [], []
    s = SENTENCES[1]
    with P.hooked(model, lambda i, x: alone.append(x.clone()) if i == 2 else None):
        P.embed(bert, [s])
    with P.hooked(model, lambda i, x: batched.append(x.clone()) if i == 2 else None):
        P.embed(bert, SENTENCES, batch=len(SENTENCES))
    n = _n_tokens(tok, s)
    assert alone[0].shape[0] == n
    # SENTENCES[1] is the shortest: the first rows of the length-sorted batch
    torch.testing.assert_close(batched[0][:n], alone[0], rtol=0, atol=1e-4)


def test_hooks_and_swaps_leave_the_model_as_it_was(bert):
    _, model = bert
    before = P.embed(bert, SENTENCES)
    originals = [layer.intermediate.intermediate_act_fn for layer in P.layers(model)]
    with P.hooked(model, lambda i, x: None):
        assert torch.equal(P.embed(bert, SENTENCES), before)  # observing changes nothing
    for name in P.SWAPS:
        with P.swapped(model, name):
            assert not torch.equal(P.embed(bert, SENTENCES), before)
        with P.swapped(model, name, [3]):
            assert not torch.equal(P.embed(bert, SENTENCES), before)
    with pytest.raises(RuntimeError):  # an exception inside the context still puts GELU back
        with P.swapped(model, "relu"):
            raise RuntimeError("boom")
    assert [layer.intermediate.intermediate_act_fn for layer in P.layers(model)] == originals
    assert torch.equal(P.embed(bert, SENTENCES), before)


def test_swaps_are_the_activations_they_claim(bert):
    x = torch.linspace(-6, 6, 1001, dtype=torch.float64)
    from gelu_lab import activations

    for name in P.SWAPS:
        want = torch.from_numpy(activations.get(name).fn(x.numpy()))
        torch.testing.assert_close(P.SWAPS[name]()(x), want, rtol=1e-12, atol=1e-15)


def test_replay_from_any_layer_is_bit_identical(bert):
    tok, model = bert
    replay = P._Replay(model)
    full = torch.empty(len(SENTENCES), 384)
    with torch.inference_mode(), replay.recording():
        for idx, enc in P._batches(tok, SENTENCES, batch=2):
            replay.add_batch(idx, enc["attention_mask"])
            full[idx] = P.mean_pool(model(**enc).last_hidden_state, enc["attention_mask"])
    for k in (0, 3, 5):
        assert torch.equal(replay.run(k, len(SENTENCES)), full)
    for k in (1, 4):  # a one-layer swap replayed from its layer == the whole model with that swap
        with P.swapped(model, "silu", [k]):
            assert torch.equal(replay.run(k, len(SENTENCES)), P.embed(bert, SENTENCES, batch=2))


def test_embeddings_match_sentence_transformers(bert):
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(P.model_dir()), device="cpu")
    ref = torch.from_numpy(st.encode(SENTENCES, convert_to_numpy=True))
    ours = P.embed(bert, SENTENCES)
    cos = torch.nn.functional.cosine_similarity(ours, ref, dim=1)
    assert cos.min() >= 0.9999998


def test_probe_end_to_end_small(bert):
    r = P.probe(SENTENCES, precisions=["bfloat16"])
    assert r["n_sentences"] == 5 and r["tokens"] == sum(_n_tokens(bert[0], s) for s in SENTENCES)
    assert [L["units"] for L in r["layers"]] == [1536] * 6
    rows = {(w["activation"], w["layer"]): w for w in r["swaps"]}
    assert set(rows) == {(a, k) for a in P.SWAPS for k in ["all", *range(6)]}
    # the tanh form is a far closer stand-in for GELU than ReLU is
    assert rows["gelu_tanh", "all"]["cos_min"] > 0.9999 > rows["relu", "all"]["cos_min"]
    cr = r["precision"][-1]
    assert cr["cos_min"] > 0.99999 and cr["values"] > 0 and 0 <= cr["share_torch_differs"] <= 1
    assert r["precision"][0]["dtype"] == "bfloat16" and 0.99 < r["precision"][0]["cos_min"] < 1


def test_sentence_box_functions(bert):
    got = P.preactivations(bert, "GELU weighs its input by a probability.")
    assert len(got["layers"]) == 6 and got["tokens"][0] == "[CLS]" and got["tokens"][-1] == "[SEP]"
    assert all(a.shape == (len(got["tokens"]), 1536) for a in got["layers"])
    pool = SENTENCES
    emb = P.pool_embeddings(bert, pool)
    nb = P.neighbours(bert, "A fox jumped over a dog.", pool, emb, k=2)
    assert list(nb) == ["gelu", *P.SWAPS] and nb["gelu"][0]["sentence"] == SENTENCES[0]
    with pytest.raises(P.ProbeError):
        P.preactivations(bert, "   ")
    with pytest.raises(P.ProbeError):
        P.neighbours(bert, "y" * 100000, pool, emb)


def test_subset_runs_the_costly_variants_on_spread_sentences_and_plan_counts_progress(bert):
    assert P.subset_indices(500) == sorted(set(P.subset_indices(500))) and len(P.subset_indices(500)) == P.SUBSET
    assert P.subset_indices(500)[0] == 0 and P.subset_indices(500)[-1] >= 490  # spread over the whole input
    assert P.subset_indices(4) == [0, 1, 2, 3]
    done = []
    r = P.probe(SENTENCES, precisions=["bfloat16"], subset=3, progress=done.append)
    assert sum(done) == P.plan(len(SENTENCES), precisions=["bfloat16"], subset=3)
    sub = P.subset_indices(len(SENTENCES), 3)
    assert r["subset"]["sentences"] == len(sub) == 3
    base = P.embed(bert, SENTENCES)
    for row in r["swaps"]:
        assert row["sentences"] == (len(SENTENCES) if row["layer"] == "all" else 3)
    # a one-layer row == the swapped model run directly on the subset (independent of the replay cache)
    row = next(w for w in r["swaps"] if w["activation"] == "relu" and w["layer"] == 2)
    with P.swapped(bert[1], "relu", [2]):
        direct = P.agreement(base[sub], P.embed(bert, [SENTENCES[i] for i in sub]))
    for key in ("cos_mean", "cos_min", "spearman", "nn_top1"):
        assert abs(row[key] - direct[key]) < 1e-5, key
    assert r["precision"][0]["sentences"] == 3 and r["precision"][-1]["sentences"] == len(SENTENCES)


def test_swap_on_the_real_model_and_back_bit_for_bit(bert):
    from gelu_lab import torch as gtorch

    _, model = bert
    two = SENTENCES[:2]
    before = P.embed(bert, two)
    with P._LOCK:
        for to in ("gelu_lab", "relu"):
            done = gtorch.swap(model, to)
            try:
                assert [r.path for r in done] == [f"encoder.layer.{i}.intermediate.intermediate_act_fn" for i in range(6)]
                assert all(r.form == "none" and type(r.old).__name__ == "GELUActivation" for r in done)
                swapped = P.embed(bert, two)
            finally:
                if to == "relu":
                    assert gtorch.swap(model, done) == []  # swap(model, record) puts it back
                else:
                    gtorch.restore(done)
            assert torch.equal(P.embed(bert, two), before)
            cos = torch.nn.functional.cosine_similarity(swapped, before).min()
            # gelu_lab: the same exact form, correctly rounded; ReLU: a different model
            assert cos > 0.99999 if to == "gelu_lab" else cos < 0.9999


def test_swap_to_relu_then_back_to_gelu_on_the_real_model(bert):
    """As a user tried it: swap(model, "relu") then swap(model, "gelu") left ReLU in place (the
    second call found no GELU-like site; embeddings 1.79 apart at most). Now the sites stay sites."""
    from gelu_lab import torch as gtorch

    _, model = bert
    two = SENTENCES[:2]
    before = P.embed(bert, two)
    with P._LOCK:
        first = gtorch.swap(model, "relu")
        try:
            back = gtorch.swap(model, "gelu")
            assert [type(r.old).__name__ for r in back] == ["ReLU"] * 6
            assert (P.embed(bert, two) - before).abs().max() < 1e-5
        finally:
            gtorch.restore(first)
    assert torch.equal(P.embed(bert, two), before)


def test_probe_swaps_only_the_layers_asked_for(bert):
    _, model = bert
    acts = lambda: [type(layer.intermediate.intermediate_act_fn).__name__ for layer in P.layers(model)]  # noqa: E731
    with P.swapped(model, "relu", [3]):
        assert acts() == ["GELUActivation"] * 3 + ["ReLU"] + ["GELUActivation"] * 2
    assert acts() == ["GELUActivation"] * 6
