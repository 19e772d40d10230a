"""The sigmoid page: ``page.py`` (its URL state and layout), ``callbacks.py`` and the modules beside it."""

from .page import PARAMS, layout  # noqa: F401  (what the shell reads: app.page_module)
from . import callbacks  # noqa: F401,E402  (registers the page's callbacks)
