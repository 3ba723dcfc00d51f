"""Same seed, same numbers: one cheap chapter (notebooks/model.py, quick mode) executed twice with papermill
into a temporary directory must glue exactly the same values.  Skipped when papermill, jupytext, myst_nb or
the python3 kernel is not installed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = "model"

papermill = pytest.importorskip("papermill")
jupytext = pytest.importorskip("jupytext")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("myst_nb")


def _has_kernel(name: str = "python3") -> bool:
    try:
        from jupyter_client.kernelspec import KernelSpecManager

        return name in KernelSpecManager().find_kernel_specs()
    except Exception:  # pragma: no cover - no jupyter_client
        return False


def glued(nb) -> dict[str, str]:
    """name -> text/plain of every ``glue`` output (myst_nb records the name under metadata.scrapbook)."""
    out: dict[str, str] = {}
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None:
                data = o.get("data", {})
                out[name] = data.get("text/plain", data.get("text/markdown", repr(sorted(data))))
    return out


def _execute(tmp: Path, tag: str) -> dict[str, str]:
    nb = jupytext.read(ROOT / "notebooks" / f"{CHAPTER}.py")
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    src = tmp / f"{CHAPTER}-{tag}-in.ipynb"
    dst = tmp / f"{CHAPTER}-{tag}.ipynb"
    nbformat.write(nb, src)
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = str(ROOT) + (os.pathsep + env_path if env_path else "")
    try:
        papermill.execute_notebook(str(src), str(dst), parameters={"mode": "quick", "seed": 0},
                                   kernel_name="python3", cwd=str(ROOT), progress_bar=False, log_output=False)
    finally:
        os.environ["PYTHONPATH"] = env_path
    return glued(nbformat.read(dst, as_version=4))


@pytest.mark.skipif(not _has_kernel(), reason="no python3 Jupyter kernel")
def test_same_seed_same_glued_numbers(tmp_path):
    first = _execute(tmp_path, "a")
    second = _execute(tmp_path, "b")
    assert len(first) >= 5, f"expected glued values from {CHAPTER}, got {sorted(first)}"
    assert first.keys() == second.keys()
    differ = {k: (first[k], second[k]) for k in first if first[k] != second[k]}
    assert not differ, differ
