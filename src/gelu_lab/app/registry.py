"""Every page of the app, in navigation order (DESIGN.md, "Pages").

A page is the package ``gelu_lab.app.pages.<slug>`` (page.py, callbacks.py, view.py) with its text in
``content/{zh,en}/<slug>.md``; its nav title and one-line question come from
the ``nav.<slug>`` and ``q.<slug>`` blocks of ``content/<lang>/shell.md``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    slug: str
    route: str


PAGES = [
    Page("overview", "/"),
    Page("story", "/story"),
    Page("definition", "/definition"),
    Page("relu", "/relu"),
    Page("sigmoid", "/sigmoid"),
    Page("gradients", "/gradients"),
    Page("implementation", "/implementation"),
    Page("ffn", "/ffn"),
    Page("bert", "/bert"),
    Page("playground", "/playground"),
    Page("demo", "/demo"),
    Page("misconceptions", "/misconceptions"),
    Page("interview", "/interview"),
    Page("glossary", "/glossary"),
]


def by_route(path: str | None) -> Page | None:
    path = "/" + (path or "/").strip("/")
    return next((p for p in PAGES if p.route == path), None)
