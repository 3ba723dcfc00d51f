"""Shared by several test files: loading a script of book/ as a module, and reading a layout tree."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def load_module(name: str, path: Path):
    """The file ``path`` imported as module ``name`` (registered in ``sys.modules``)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def layout_tree(text: str) -> list[str]:
    """The folders of the first code block after '## Layout' of a Markdown file: one line per folder, two
    spaces of indent per level, the folder's name (ending in '/') first."""
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    stack: list[tuple[int, str]] = []
    out = []
    for line in block.splitlines():
        name = line.strip().split(" ", 1)[0] if line.strip() else ""
        if not name.endswith("/"):
            continue
        depth = (len(line) - len(line.lstrip(" "))) // 2
        stack = [s for s in stack if s[0] < depth]
        out.append("/".join([s[1] for s in stack] + [name.rstrip("/")]))
        stack.append((depth, name.rstrip("/")))
    return out


def have_browser(check_site) -> bool:
    """Whether ``check_site`` (book/check_site.py, loaded) can drive a headless Chromium here."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return False
    try:
        check_site.find_chromium()
    except check_site.SiteCheckError:
        return False
    return True
