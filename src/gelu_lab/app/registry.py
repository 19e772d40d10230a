"""Every page of the app, in navigation order (DESIGN.md, "Pages").

A row with ``built=False`` shows in the navigation as "coming". A built page
is the module ``gelu_lab.app.pages.<slug>`` with its text in
``content/{zh,en}/<slug>.md``; its nav title and one-line question come from
the ``nav.<slug>`` and ``q.<slug>`` blocks of ``content/<lang>/shell.md``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    slug: str
    route: str
    built: bool = False


PAGES = [
    Page("overview", "/", built=True),
    Page("definition", "/definition", built=True),
    Page("relu", "/relu", built=True),
    Page("sigmoid", "/sigmoid", built=True),
    Page("gradients", "/gradients", built=True),
    Page("implementation", "/implementation", built=True),
    Page("ffn", "/ffn", built=True),
    Page("bert", "/bert", built=True),
    Page("demo", "/demo", built=True),
    Page("misconceptions", "/misconceptions", built=True),
    Page("interview", "/interview", built=True),
]


def by_route(path: str | None) -> Page | None:
    path = "/" + (path or "/").strip("/")
    return next((p for p in PAGES if p.route == path), None)
