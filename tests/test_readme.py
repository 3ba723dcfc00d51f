"""README.md states what the code does today: its layout tree names folders that exist, and every
top-level folder of CONTRIBUTING.md's tree; its command-line section names every subcommand of `kvlib`."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from _helpers import layout_tree

import pytest

ROOT = Path(__file__).resolve().parent.parent


tree = layout_tree


def _tracked_dirs() -> set[str]:
    r = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("not a git checkout")
    files = r.stdout.splitlines()
    return {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}


def test_readme_tree_names_existing_folders_and_every_top_level_one():
    readme = tree((ROOT / "README.md").read_text(encoding="utf8"))
    contributing = tree((ROOT / "CONTRIBUTING.md").read_text(encoding="utf8"))
    dirs = _tracked_dirs()
    assert {"kvlib", "kvlib/book", "notebooks", "book", "results", "tests"} <= set(readme)
    missing = [d for d in readme if d not in dirs]
    assert not missing, f"README.md's tree names folders git does not track: {missing}"
    top = {d for d in contributing if "/" not in d}
    assert top <= set(readme), f"top-level folders of CONTRIBUTING.md's tree missing from README.md's: {top - set(readme)}"
    named_files = re.findall(r"\b([a-z_]+\.(?:py|yml|sh))\b", (ROOT / "README.md").read_text(encoding="utf8").split(
        "## Layout", 1)[1].split("```", 2)[1])
    for f in named_files:
        assert any(Path(p).name == f for p in (ROOT / "book").glob("*")) or (ROOT / "kvlib" / f).exists(), f


def test_readme_names_every_subcommand():
    from kvlib import cli

    parser = cli.build_parser() if hasattr(cli, "build_parser") else None
    if parser is None:
        pytest.skip("kvlib.cli has no build_parser")
    import argparse

    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    text = (ROOT / "README.md").read_text(encoding="utf8")
    for name in subs.choices:
        assert f"kvlib {name}" in text, name
