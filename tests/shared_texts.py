"""Where the rules texts and specs are: ``shared/`` beside the repository (``../shared`` of the
main checkout, ``../../shared`` of a worktree), never inside it. Tests that quote them search
every parent of the checkout, and skip (saying why) on a clone that has no ``shared/`` beside it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def shared_file(*parts: str) -> Path | None:
    """``shared/<parts...>`` in the nearest parent of the checkout that has it, else None."""
    for p in ROOT.parents:
        f = p.joinpath("shared", *parts)
        if f.is_file():
            return f
    return None
