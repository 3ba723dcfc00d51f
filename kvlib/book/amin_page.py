"""Page helpers of the A_min chapter (notebooks/amin.py): provenance notes and table headers.

:func:`rows_note` turns a stored table's label (:attr:`kvlib.book.store.Table.label`) into Markdown
whose file path is a code literal, for ``{glue:md}`` in captions; :func:`readable` renames the
columns of a display frame to headers a reader knows (no snake_case, no TeX).
"""

from __future__ import annotations

__all__ = ["rows_note", "readable", "POLICY_NAMES"]

#: Registry names of the policies in the chapter's frames -> the names the page uses.
POLICY_NAMES = {"a-min": "A_min", "a-min-progress": "A_min (progress reading)", "a-max": "A_max",
                "a-random": "A_random", "a-l": "A_l", "h-sf": "H-SF"}


def rows_note(table) -> str:
    """The table's label with its CSV path (``results/CHAPTER/NAME.csv``) as a code literal.

    A live table's label names no path and comes back unchanged."""
    label = str(table.label)
    path = str(getattr(table, "path", "") or "")
    return label.replace(path, f"`{path}`") if path and path in label else label


def readable(df, names: dict | None = None):
    """``df`` with its columns renamed by ``names`` and its ``policy`` cells by :data:`POLICY_NAMES`."""
    out = df.rename(columns=names or {})
    if "policy" in out.columns:
        out = out.assign(policy=out["policy"].map(lambda p: POLICY_NAMES.get(p, p)))
    return out
