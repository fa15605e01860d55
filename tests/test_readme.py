"""The README's two commands are the project's promise; CI must run the same test command."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```bash\n(.+?)\n```", text)[:2]


def test_readme_opens_with_install_run_and_install_test_commands():
    run_cmd, test_cmd = readme_commands()
    assert run_cmd.startswith("pip install . && battlesim simulate")
    assert "pytest" in test_cmd and "pip install" in test_cmd


def test_ci_runs_the_readme_test_command():
    _, test_cmd = readme_commands()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "set -euo pipefail" in ci
    commands = [line.strip() for line in ci.splitlines() if line.strip() and not line.startswith("#")]
    assert test_cmd in commands


def test_the_python_example_runs():
    """The README's run_games example works as written (on fewer games, in one process)."""
    text = (ROOT / "README.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "run_games(" in b)
    code = block.replace("20_000", "300").replace(", workers=2", "")
    namespace: dict = {}
    exec(compile(code, "README.md run_games example", "exec"), namespace)
    assert namespace["games"].num_rows == 300
    assert 0.0 < namespace["first"] < 1.0
