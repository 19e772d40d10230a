"""Helpers for the browser tests of pages with "more detail" folds (gelu_lab.app.components.more)."""

from __future__ import annotations


def unfold(page, id: str) -> None:
    """Open the fold `id` as a reader does, with a click on its summary (if it is not open already)."""
    if not page.evaluate("id => document.getElementById(id).open", id):
        page.click(f"#{id} > summary")
    page.wait_for_function("id => document.getElementById(id).open", arg=id)


def full_of(page, id: str) -> str:
    """The full value of the number shown in element `id` (or in it): the hover title of a components.full span."""
    return page.get_attribute(f"#{id}.full-value, #{id} .full-value", "title")


FULL = "parseFloat(document.querySelector('#%s .full-value').title)"  # the same, in a wait_for_function
