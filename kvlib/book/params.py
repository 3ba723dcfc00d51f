"""A chapter's papermill parameters: the book's run (``book/chapters.yml``) against a run by hand.

The book executes every chapter with the parameters ``book/chapters.yml`` lists for its mode.  A
reader who runs a notebook by hand (papermill, Jupyter) starts from the notebook's own defaults,
which are the quick-mode values; ``-p mode full`` alone therefore gives a run that is neither the
book's full-mode run nor what the reader meant.  :func:`differences` says which parameters of a
run differ from the book's run of the same mode (the store prints it for runs by hand), and
:func:`parse_overrides` checks ``-p KEY VALUE`` overrides of ``book/run_chapters.py`` against a
notebook's parameters cell (every bad key or value named, with the allowed ones).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any, Iterable, Sequence

__all__ = ["ParameterError", "book_parameters", "declared_parameters", "differences",
           "differences_text", "parse_overrides"]


class ParameterError(ValueError):
    """A parameter override names an unknown parameter or gives a value of the wrong kind."""


def _repo_root() -> Path:
    """The repository that holds this ``kvlib`` (``book/chapters.yml`` beside ``kvlib/``), else the cwd
    (the same rule as :func:`kvlib.book.store.repo_root`, which imports this module)."""
    here = Path(__file__).resolve().parents[2]
    return here if (here / "book" / "chapters.yml").exists() else Path.cwd()


def book_parameters(chapter: str, mode: str, root: Path | None = None) -> dict[str, Any] | None:
    """The parameters ``book/chapters.yml`` gives ``chapter`` in ``mode`` (None: not listed / no file)."""
    import yaml

    path = (root or _repo_root()) / "book" / "chapters.yml"
    if not path.is_file():
        return None
    data = yaml.safe_load(path.read_text(encoding="utf8")) or {}
    entry = (data.get(chapter) or {}).get(mode)
    return dict(entry) if isinstance(entry, dict) else None


def declared_parameters(chapter: str, root: Path | None = None) -> dict[str, Any]:
    """``{name: default}`` of the ``parameters`` cell of ``notebooks/CHAPTER.py`` (literal defaults only)."""
    path = (root or _repo_root()) / "notebooks" / f"{chapter}.py"
    if not path.is_file():
        raise ParameterError(f"no chapter {chapter!r}: {path.name} does not exist in notebooks/")
    return _declared_from_source(path.read_text(encoding="utf8"), path)


def _declared_from_source(text: str, path: Path) -> dict[str, Any]:
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith("# %%") and "parameters" in ln), None)
    if start is None:
        raise ParameterError(f"{path}: no cell tagged 'parameters'")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("# %%")), len(lines))
    out: dict[str, Any] = {}
    for node in ast.parse("\n".join(lines[start + 1:end])).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                out[node.targets[0].id] = None
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return float(a) == float(b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def differences(chapter: str, mode: str, values: dict[str, Any],
                root: Path | None = None) -> list[tuple[str, Any, Any]]:
    """``(name, this run's value, the book's value)`` for every parameter of ``values`` that differs
    from the book's run of ``mode`` (the notebook's default where ``chapters.yml`` does not list it).

    Parameters the book passes from outside (``shared_dir``) are not compared."""
    book = book_parameters(chapter, mode, root)
    if book is None:
        return []
    try:
        defaults = declared_parameters(chapter, root)
    except ParameterError:
        defaults = {}
    out = []
    for name, value in values.items():
        if name in ("shared_dir", "mode"):
            continue
        want = book.get(name, defaults.get(name, value))
        if not _same(value, want):
            out.append((name, value, want))
    return out


def notebook_values(chapter: str, given: dict[str, Any], namespace: dict[str, Any] | None = None,
                    root: Path | None = None) -> dict[str, Any]:
    """Every parameter of the chapter's parameters cell with its value in this run: ``given`` (what the
    chapter hands its store), completed from ``namespace`` (default: the notebook's, ``__main__``) for
    the parameters it does not hand over, so that a comparison with the book's run sees all of them."""
    import sys

    if namespace is None:
        namespace = getattr(sys.modules.get("__main__"), "__dict__", {})
    try:
        declared = declared_parameters(chapter, root)
    except ParameterError:
        return dict(given)
    out = {k: namespace[k] for k in declared if k in namespace and k not in given}
    out.update(given)
    return out


def _show(v: Any) -> str:
    return json.dumps(v) if not isinstance(v, str) else repr(v)


def differences_text(chapter: str, diffs: Sequence[tuple[str, Any, Any]], mode: str = "full") -> str:
    """One paragraph naming the parameters that differ from the book's run (empty if none)."""
    if not diffs:
        return ""
    items = "; ".join(f"{n} = {_show(v)} (book: {_show(b)})" for n, v, b in diffs)
    return (f"These parameters differ from the book's {mode}-mode run of the chapter {chapter!r}: {items}. "
            "Rows already stored for the same inputs are read; the others are computed now and not stored. "
            f"To start from the book's {mode}-mode values and change only some, run "
            f"`python book/run_chapters.py --only {chapter} --mode {mode} -p NAME VALUE --out DIR`.")


def _kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    if isinstance(v, (list, tuple)):
        return "list"
    if isinstance(v, dict):
        return "dict"
    return "any"


def parse_overrides(chapter: str, pairs: Iterable[Sequence[str]], root: Path | None = None,
                    mode: str | None = None) -> dict[str, Any]:
    """``-p KEY VALUE`` pairs as ``{KEY: value}``: each VALUE is read as YAML (``3``, ``0.5``,
    ``[16, 36]``, ``true``, ``fcfs``) and must be of the kind of the parameter's default (an integer
    where the default is an integer, a list where it is a list, ...; a float parameter accepts an
    integer).  Raises :class:`ParameterError` naming the parameter and the allowed ones."""
    import yaml

    declared = declared_parameters(chapter, root)
    if mode is not None:
        book = book_parameters(chapter, mode, root) or {}
        declared = {**declared, **{k: v for k, v in book.items() if k in declared}}
    out: dict[str, Any] = {}
    for pair in pairs:
        if len(pair) != 2:
            raise ParameterError(f"-p takes a name and a value, got {list(pair)}")
        key, text = pair
        if key not in declared:
            raise ParameterError(f"chapter {chapter!r} has no parameter {key!r}; its parameters are: "
                                 + ", ".join(sorted(declared)))
        if key == "mode":
            raise ParameterError("parameter 'mode': choose it with --mode quick|full, not with -p")
        if key == "shared_dir":
            raise ParameterError("parameter 'shared_dir': choose it with --shared-dir DIR, not with -p")
        if key in out:
            raise ParameterError(f"parameter {key!r} is given twice")
        try:
            value = yaml.safe_load(text) if text.strip() else text
        except yaml.YAMLError as exc:
            raise ParameterError(f"parameter {key!r}: cannot read the value {text!r} ({exc.problem})") from None
        default = declared[key]
        want, got = _kind(default), _kind(value)
        ok = (want in ("any", got) or (want == "float" and got == "int")
              or default is None or (want == "list" and got == "list"))
        if not ok:
            raise ParameterError(f"parameter {key!r}: expected {want} like its default {_show(default)}, "
                                 f"got {text!r} ({got})")
        if want == "int" and isinstance(value, int) and isinstance(default, int) and value < 0 \
                and default >= 0 and key != "seed":
            raise ParameterError(f"parameter {key!r}: expected a non-negative integer, got {value}")
        out[key] = float(value) if want == "float" and got == "int" else value
    return out
