"""The repository keeps its promises: the README's two commands, and CI runs the second one."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1]
    match = re.search(r"```bash\n(.*?)```", section, re.S)
    assert match, "no ```bash block"
    block = match.group(1)
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_quick_start_is_exactly_two_commands():
    commands = quick_start_commands()
    assert len(commands) == 2, commands
    assert "mkdocs serve" in commands[0]
    assert commands[1].endswith("pytest")


def test_ci_runs_the_readme_test_command():
    test_command = quick_start_commands()[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    last = [line for line in ci.splitlines() if line.strip() and not line.startswith("#")][-1]
    # CI adds --frozen (the lock must already be current); otherwise the very same command.
    assert last.replace(" --frozen", "") == test_command


def test_chinese_section_gives_the_same_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## 中文说明", 1)[1]
    match = re.search(r"```bash\n(.*?)```", section, re.S)
    assert match, "no ```bash block"
    block = match.group(1)
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == quick_start_commands()
