"""The `gelu-lab` command line: one subcommand per job, one line per error.

Each command lives in its own module with a ``register(subparsers)`` function
that adds its parser and sets ``func``; this file only collects them and turns
every failure into one line on stderr: exit 2 for bad usage (CliError,
ValueError from parsing) and for a command whose extra is not installed (the line
names it), 1 for a runtime failure (OSError, ...), never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__, extras
from .commands import CliError, Parser
from .results import jobs

# modules that define register(subparsers); order is the order of `--help`
COMMAND_MODULES = [
    "gelu_lab.commands.table",
    "gelu_lab.commands.train",
    "gelu_lab.commands.runs",
    "gelu_lab.commands.experiment",
    "gelu_lab.commands.errors",
    "gelu_lab.commands.fit",
    "gelu_lab.commands.accuracy",
    "gelu_lab.commands.bench",
    "gelu_lab.commands.claims",
    "gelu_lab.commands.serve",
    "gelu_lab.commands.deploy",
    "gelu_lab.commands.custom",
    "gelu_lab.commands.report",
    "gelu_lab.commands.probe",
    "gelu_lab.commands.doctor",
]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; given a command's name, of that one alone: only its module is
    imported (each imports what its command needs, half a second for all of them, paid by every
    run of the CLI, a training run's process included). Any other word: every command, so
    argparse's own error lists them."""
    parser = Parser(prog="gelu-lab", description="GELU Lab: understand, check and measure GELU.")
    parser.add_argument("--version", action="version", version=f"gelu-lab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for mod in [m for m in COMMAND_MODULES if m.rsplit(".", 1)[1] == command] or COMMAND_MODULES:
        importlib.import_module(mod).register(sub)
    return parser


def _join_list_values(argv: list[str]) -> list[str]:
    """`--x -3,0,3` -> `--x=-3,0,3`: argparse would take "-3,0,3" for an option."""
    out, i = [], 0
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("--") and "=" not in tok and i + 1 < len(argv):
            nxt = argv[i + 1]
            if nxt.startswith("-") and len(nxt) > 1 and (nxt[1].isdigit() or nxt[1] == ".") and "," in nxt:
                out.append(f"{tok}={nxt}")
                i += 2
                continue
        out.append(tok)
        i += 1
    return out


def main(argv=None) -> int:
    """Run one command; in a background job (gelu_lab.results.jobs) also record its exit status."""
    done = jobs.take_done_file()
    rc = 1
    try:
        rc = _run(argv)
    except SystemExit as e:  # --help, --version
        rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        raise
    finally:
        if done is not None:
            jobs.record_exit(done, rc)
    return rc


def _run(argv) -> int:
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        parser = build_parser(argv[0] if argv else None)
        args = parser.parse_args(_join_list_values(argv))
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        whole = extras.COMMANDS.get(args.command)
        gone = extras.missing(whole) if whole else []
        if gone:  # before any work: a command that imports its packages as it goes would start, then fail
            print(f"gelu-lab: error: {extras.needs(f'gelu-lab {args.command}', gone[0], whole)}", file=sys.stderr)
            return 2
        return int(args.func(args) or 0)
    except ModuleNotFoundError as e:
        if e.name is None or extras.extra_of(e.name) is None:  # not an optional package: a broken install
            print(f"gelu-lab: error: ModuleNotFoundError: {e}", file=sys.stderr)
            return 1
        command = argv[0] if argv and not argv[0].startswith("-") else ""
        whole = extras.COMMANDS.get(command)  # `train` needs [nn], which brings torch, not just [torch]
        extra = whole if whole and e.name.split(".")[0] in extras.EXTRAS[whole] else None
        print(f"gelu-lab: error: {extras.needs(f'gelu-lab {command}'.strip(), e.name, extra)}", file=sys.stderr)
        return 2
    except (CliError, ValueError) as e:
        print(f"gelu-lab: error: {e}".replace("gelu-lab: error: gelu-lab", "gelu-lab"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gelu-lab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # runtime failure: one line, not a traceback
        msg = str(e).splitlines()[0] if str(e) else ""
        if type(e).__name__ == "OperationalError" and ("disk" in msg or "full" in msg):  # SQLite's words for ENOSPC/EFBIG
            msg += ": the disk is full or a file hit its size limit; free space, then resume the run"
        print(f"gelu-lab: error: {type(e).__name__}: {msg}", file=sys.stderr)
        return 1
