"""docs/plugins.md is a tutorial whose code runs: every ```python block, in order, in one
namespace (as one Python session would), inside ``plugin.isolated()``."""

import os
import re
from pathlib import Path

from battlesim.ecs.plugin import extend, isolated

DOC = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"


def python_blocks() -> list[str]:
    return [code for name, code in _blocks() if not name]


def _blocks() -> list[tuple[str, str]]:
    """Every ```python block in order: ``("", code)`` to run, ``(name, code)`` for a block the
    reader saves as file ``name`` (```python file=NAME: compiled parts must live in files)."""
    return re.findall(r"```python(?: file=(\S+))?\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_tutorial_has_runnable_steps():
    assert len(python_blocks()) >= 5


def test_the_tutorial_runs_and_builds_thorns_from_zero(tmp_path):
    namespace: dict = {"__name__": "my_thorns"}
    cwd = os.getcwd()
    with isolated():
        assert "thorns" not in extend("lanes").keywords, "the tutorial starts from zero"
        os.chdir(tmp_path)
        try:
            for i, (name, block) in enumerate(_blocks(), 1):
                if name:
                    (tmp_path / name).write_text(block)
                    continue
                try:
                    exec(compile(block, f"{DOC.name} python block {i}", "exec"), namespace)
                except Exception as e:  # name the block that broke
                    raise AssertionError(f"docs/plugins.md python block {i} failed: {type(e).__name__}: {e}") from e
        finally:
            os.chdir(cwd)
        assert extend("lanes").keywords["thorns"].doc.startswith("Thorns X")
        assert namespace["games"].num_rows == 2_000
        assert extend("lanes").compiled_stages["thorns"].source == "thorns_compiled"  # the file block, loaded
    assert "thorns" not in extend("lanes").keywords
    assert "thorns" not in extend("lanes").compiled_stages
