"""The claim about ReLU² ("~1–2 % better than GELU", modded-nanogpt) against an FFN experiment in a
runs store: each verdict from runs whose relative gaps are known here."""

import statistics

import pytest

from gelu_lab.analysis import claims
from gelu_lab.app import claim_words, content
from gelu_lab.results.store import Store

CFG = {"preset": "decide", "steps": 1000, "n_layer": 4, "n_embd": 128, "fc_init_std": 0.02, "params": 820480}


def store_with(path, relu2_losses, gelu=1.8, lr=4e-3):
    """An experiment: seed 0 of both swept at two rates (the other rate worse), GELU at `gelu` in every seed."""
    with Store(path) as st:
        def add(act, seed, loss, rate):
            rid = st.start_run("train", f"{act}/{seed}/{rate}", {**CFG, "activation": act, "seed": seed, "lr": rate})
            st.log_metrics(rid, 1000, {"val_loss": loss})
            st.put_result(rid, "final", {"val_loss_full": loss})
            st.set_status(rid, "done")

        for act, losses in (("gelu", [gelu] * len(relu2_losses)), ("relu2", relu2_losses)):
            for seed, loss in enumerate(losses):
                add(act, seed, loss, lr)
            add(act, 0, losses[0] + 0.5, 2 * lr)
    return path


@pytest.mark.parametrize("gains,verdict,note", [
    ((0.015, 0.014, 0.016, 0.015, 0.013), "true", "note.relu2_better.true"),  # 1.5 % lower, every seed
    ((0.002, 0.0025, 0.0015, 0.002, 0.002), "false", "note.relu2_better.false.size"),  # ahead, by far less than 1 %
    ((-0.01, -0.012, -0.011, -0.009, -0.01), "false", "note.relu2_better.false.gelu"),  # GELU ahead
    ((0.02, -0.02, 0.015, -0.01, 0.0), "unsettled", "note.relu2_better.unsettled"),  # the noise decides nothing
])
def test_relu2_claim_verdicts(tmp_path, gains, verdict, note):
    path = store_with(str(tmp_path / "s.sqlite"), [1.8 * (1 - g) for g in gains])
    r = claims.check("relu2_better", store=path)
    assert r["verdict"] == verdict and r["note"] == note and r["source"] == "store"
    rel = r["figures"]["relative"]
    assert rel["n"] == 5 and rel["mean"] == pytest.approx(statistics.mean(gains), rel=1e-9)
    said = claim_words.value(r["values"]["mean"], content.text("en", "misconceptions"), "en")  # the analysis gives a number, the app says it
    assert r["values"]["params"] == CFG["params"] and said.endswith("%")


def test_relu2_claim_untested_without_runs(tmp_path):
    path = store_with(str(tmp_path / "s.sqlite"), [1.7])  # one seed: no noise estimate
    assert claims.check("relu2_better", store=path)["verdict"] == "untested"
