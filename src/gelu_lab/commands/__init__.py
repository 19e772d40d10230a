"""One module per CLI verb, each with ``register(subparsers)``; :mod:`gelu_lab.cli` collects them.

CliError and Parser are here, below the CLI, so that a verb can raise the one
and build sub-parsers with the other.
"""

from __future__ import annotations

import argparse
import re


class CliError(Exception):
    """A usage error with a message fit for one line on stderr (exit 2)."""


class Parser(argparse.ArgumentParser):
    # argparse takes "-1e3" or "-inf" for an option (it knows only -1 and -1.5): `--interval -1e3 1` failed.
    # Its private _negative_number_matcher: the compat entry "argparse_negative" (gelu_lab/app/compat) checks it
    _NEGATIVE = re.compile(r"^-(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$|^-inf(inity)?$", re.IGNORECASE)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = self._NEGATIVE

    def error(self, message):  # argparse prints usage + message over several lines
        raise CliError(f"{self.prog}: {message}")
