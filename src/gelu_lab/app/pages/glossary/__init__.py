"""The glossary page: ``page.py`` (its URL state, layout and callbacks) and the modules beside it."""

from .page import PARAMS, layout  # noqa: F401  (what the shell reads: app.page_module)
