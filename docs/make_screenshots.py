"""PNG screenshots of every page of the app, in both languages, on a laptop and on a phone,
into docs/screenshots/.

    make screenshots        (installs a CJK font first, so that the zh pages render)
    .venv/bin/python docs/make_screenshots.py

Starts the app on a free port and drives Debian's Chromium (offline), full page: 1280 px
wide, docs/screenshots/<page>-<lang>.png, and 390 px wide (a phone, the app's narrow
layout: pages behind a menu, legends below the figures), <page>-<lang>-phone.png.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from app_browser import ARGS, CHROMIUM, open_page, serve_in_thread  # noqa: E402

from gelu_lab.app import content, registry  # noqa: E402

# a state worth showing on each page (the URL carries it)
STATE = {"definition": "x=-0.8&n=2000", "relu": "s=3&mu=-0.5", "sigmoid": "beta=1.7", "gradients": "depth=24"}
WIDTHS = {"": 1280, "-phone": 390}  # file suffix: viewport width
# Dash has answered every callback and assets/compat/figure_fit.js has laid out every figure
SETTLED = "() => !document.querySelector('[data-dash-is-loading]') && ![...document.querySelectorAll('.js-plotly-plot')].some(g => g.__fitting)"


def main() -> int:
    from playwright.sync_api import sync_playwright

    out = HERE / "screenshots"
    out.mkdir(exist_ok=True)
    url, server = serve_in_thread()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for suffix, width in WIDTHS.items():
            page = browser.new_page(viewport={"width": width, "height": 900 if width > 600 else 844}, device_scale_factor=1)
            for p in registry.PAGES:
                for lang in content.LANGS:
                    q = "&".join(s for s in (STATE.get(p.slug, ""), f"lang={lang}") if s)
                    open_page(page, f"{url}{p.route}?{q}")
                    page.wait_for_function(SETTLED, timeout=60_000)
                    page.wait_for_timeout(800)  # Plotly transitions settle
                    path = out / f"{p.slug}-{lang}{suffix}.png"
                    page.screenshot(path=str(path), full_page=True)
                    print(path.relative_to(HERE.parent))
            page.close()
        browser.close()
    server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
