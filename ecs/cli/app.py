"""The ``battlesim`` command line: the typer app and what every command shares.

Errors a user can cause (unknown deck, agent or ruleset, bad numbers, unreadable card
files) end the program with a one-line message on stderr and exit status 2, never a
traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn, Optional

import typer
from rich.console import Console
from rich.text import Text

from battlesim.ecs.datafiles import printable
from battlesim.ecs.runs.runner import (
    ChunkFailed,
)

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="battlesim: play tactical card-battle games in large batches and measure balance.",
)
err = Console(stderr=True)


def _print_version(value: bool) -> None:
    if value:
        from battlesim import __version__

        typer.echo(f"battlesim {__version__}")
        raise typer.Exit()


@app.callback()
def _global_options(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 help="Print battlesim's version and exit."),
) -> None:
    # the options before any command (only --version); the app's help text is Typer(help=...)
    return None


class UserError(Exception):
    pass


PLUGIN_OPTION = typer.Option(
    [], "--plugin", metavar="MODULE",
    help="Load a plugin by import path (a module, or a path to a .py file) without installing it; "
         "repeatable. Installed plugins load anyway (see `battlesim keywords`).",
)


def say(label: str, style: str, message: str, sep: str = " ") -> None:
    """One line on stderr: a styled label, then ``message`` as plain text. The message holds
    user text (deck names, paths, card names), so it is never read as rich markup
    (``--deck '[/x]'``, ``battlesim[ray]``) and its control characters are shown escaped."""
    line = Text(label, style=style)
    line.append(sep + printable(str(message)))
    err.print(line, highlight=False, soft_wrap=True, emoji=False, markup=False)


def fail(message: str) -> NoReturn:
    say("error:", "bold red", message)
    raise typer.Exit(2)


def stop_run(e: BaseException, out: Optional[Path], kept: str) -> NoReturn:
    """How a command that plays games stops on an error: a chunk that kept failing (exit 1,
    its seed range named), Ctrl-C (exit 130; what was written stays for a resume) or bad input
    (exit 2, one line)."""
    if isinstance(e, ChunkFailed):
        say("run stopped:", "bold red", str(e))
        raise typer.Exit(1)
    if isinstance(e, KeyboardInterrupt):
        resume = f"; the {kept} written in {out} are kept: run the same command again to resume" if out else ""
        say("interrupted", "bold red", resume, sep="")
        raise typer.Exit(130)
    fail(str(e))
    raise typer.Exit(2)  # (fail raises it already)


def parse_params(items: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` items: numbers as numbers, other text as text (a parameter may be a name)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UserError(f"--param takes NAME=VALUE (got {item!r})")
        try:
            out[key.strip()] = int(value)
        except ValueError:
            try:
                out[key.strip()] = float(value)
            except ValueError:  # text (grid's map=NAME); a numeric parameter refuses it on load
                out[key.strip()] = value
    return out


def parse_pair(value: str, what: str) -> tuple[str, str]:
    parts = [p.strip() for p in value.split(",")]
    if len(parts) == 1:
        parts = parts * 2
    if len(parts) != 2 or not all(parts):
        raise UserError(f"--{what} takes one name or two separated by a comma (got {value!r})")
    return parts[0], parts[1]


def warn(message: str) -> None:
    say("warning:", "yellow", message)


def run(argv: Optional[list[str]] = None) -> int:
    """Run the command line on ``argv`` (default: ``sys.argv[1:]``) and return its exit status.

    A usage error (``--games abc``, an unknown option or command) is one line on stderr, like
    every other bad input, instead of click's usage box; ``--help`` and a bare ``battlesim``
    still show the help."""
    try:
        status = app(args=argv, standalone_mode=False, prog_name="battlesim")
    except typer.Abort:
        say("interrupted", "bold red", "")
        return 130
    except typer.TyperException as e:
        if type(e).__name__ == "NoArgsIsHelpError" or not hasattr(e, "format_message"):
            e.show()  # type: ignore[attr-defined]
            return int(getattr(e, "exit_code", 2))
        ctx = getattr(e, "ctx", None)
        where = ctx.command_path if ctx is not None else "battlesim"
        say("error:", "bold red", f"{e.format_message()} (see `{where} --help`)")
        return int(getattr(e, "exit_code", 2))
    return status if isinstance(status, int) else 0
