"""Shipped game data (TOML): rulesets/, cards/<ruleset>/, decks/<ruleset>/."""

from importlib.resources import files
from pathlib import Path


def data_dir() -> Path:
    """Directory of the shipped data files, for editable and regular installs alike."""
    return Path(str(files(__name__)))
