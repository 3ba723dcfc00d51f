"""Glue many values at once, and the values the chapter "Lower-bound instances" glues per failed claim."""

from __future__ import annotations


def glue_all(values: dict) -> None:
    """``myst_nb.glue(name, value, display=False)`` for every item (imported here: only chapters need myst_nb)."""
    from myst_nb import glue

    for name, value in values.items():
        glue(name, value, display=False)


def first_failure(table, prefix: str, tel_col: str, claim_col: str) -> tuple[int | None, dict]:
    """The first ``M`` (index of ``table``) at which the certified upper end of the ratio, column
    ``"ratio <="`` (TEL over a lower bound on OPT, column ``"OPT lower"``), is below the paper's claim in
    ``claim_col``; and the values to glue about it, named ``{prefix}_first_fail``, ``_fail_tel``,
    ``_fail_lb``, ``_fail_ratio``, ``_fail_claim`` (only the first, ``"none"``, when no ``M`` fails)."""
    for col in ("ratio <=", "OPT lower", tel_col, claim_col):
        if col not in table.columns:
            raise KeyError(f"first_failure: table has no column {col!r}")
    fails = table[table["ratio <="] < table[claim_col]]
    if not len(fails):
        return None, {f"{prefix}_first_fail": "none"}
    first = int(fails.index[0])
    return first, {
        f"{prefix}_first_fail": first,
        f"{prefix}_fail_tel": int(table.loc[first, tel_col]),
        f"{prefix}_fail_lb": int(table.loc[first, "OPT lower"]),
        f"{prefix}_fail_ratio": f"{table.loc[first, 'ratio <=']:.3f}",
        f"{prefix}_fail_claim": f"{table.loc[first, claim_col]:.3f}",
    }
