"""Page helpers of the A_min chapter (notebooks/amin.py): provenance notes and compact tables.

:func:`rows_note` turns a stored table's label (:attr:`kvlib.book.store.Table.label`) into Markdown
whose file path is a code literal, for ``{glue:md}`` in captions; :func:`readable` renames the
columns of a display frame to headers a reader knows (no snake_case, no TeX); :func:`joined` and
:func:`as_fraction` make narrow tables (several small keys in one column, ``1/4`` for ``0.25``);
:func:`table` is :func:`kvlib.book.tables.styled` with room between the columns (glued tables sit
in a figure, outside the padding the book's stylesheet gives to cell outputs).
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["rows_note", "readable", "joined", "as_fraction", "without_constant", "table", "POLICY_NAMES",
           "CELL_PADDING"]

#: Registry names of the policies in the chapter's frames -> the names the page uses.
POLICY_NAMES = {"a-min": "A_min", "a-min-progress": "A_min (progress reading)", "a-max": "A_max",
                "a-random": "A_random", "a-l": "A_l", "h-sf": "H-SF"}

#: CSS padding of the header and body cells of :func:`table`.
CELL_PADDING = "0.2em 0.55em"


def rows_note(table) -> str:
    """The table's label with its CSV path (``results/CHAPTER/NAME.csv``) as a code literal.

    A live table's label names no path and comes back unchanged."""
    label = str(table.label)
    path = str(getattr(table, "path", "") or "")
    return label.replace(path, f"`{path}`") if path and path in label else label


def readable(df, names: dict | None = None, policies: dict | None = None):
    """``df`` with its columns renamed by ``names`` and its ``policy`` cells by ``policies``
    (default :data:`POLICY_NAMES`)."""
    out = df.rename(columns=names or {})
    if "policy" in out.columns:
        table_ = POLICY_NAMES if policies is None else policies
        out = out.assign(policy=out["policy"].map(lambda p: table_.get(p, p)))
    return out


def _plain(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def joined(df, columns: list, name: str, sep: str = ", ", template: str | None = None):
    """``df`` with ``columns`` replaced by one text column ``name`` (at the first one's place):
    ``"a, b"`` or ``template.format(*values)``, with non-breaking spaces (a cell never wraps);
    whole floats are written as integers."""
    pos = list(df.columns).index(columns[0])
    vals = [[_plain(v) for v in row] for row in df[columns].itertuples(index=False, name=None)]
    text = [(template.format(*r) if template else sep.join(r)).replace(" ", "\u00a0") for r in vals]
    out = df.drop(columns=columns)
    out.insert(pos, name, text)
    return out


def as_fraction(x, max_denominator: int = 100) -> str:
    """``0.25 -> "1/4"``, ``1.0 -> "1"`` (the nearest fraction with a small denominator)."""
    f = Fraction(float(x)).limit_denominator(max_denominator)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def without_constant(df, column: str):
    """``(df without column, its value)`` when every row holds the same value (for the caption to
    state), else ``(df, None)``: a partial table with unequal counts keeps its column."""
    vals = df[column].unique()
    if len(vals) == 1:
        v = vals[0]
        return df.drop(columns=column), (int(v) if float(v).is_integer() else v)
    return df, None


def table(df, font_size: str | None = None, **kwargs):
    """:func:`kvlib.book.tables.styled` with :data:`CELL_PADDING` between the columns (and a smaller
    ``font_size``, e.g. ``"0.85em"``, for a wide table)."""
    from kvlib.book.tables import styled

    props = f"padding: {CELL_PADDING};" + (f" font-size: {font_size};" if font_size else "")
    return styled(df, **kwargs).set_table_styles([{"selector": "th, td", "props": props}], overwrite=False)
