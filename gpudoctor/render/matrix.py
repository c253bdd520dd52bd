"""`gpudoctor matrix`'s views of one matrices.views.View: a table with its
"data as of" date, fitted to the width, or JSON."""

from __future__ import annotations

from typing import Any

JSON_SCHEMA_VERSION = 1


def matrix_data(view, query: str | None, as_of: str) -> dict[str, Any]:
    return {"schema_version": JSON_SCHEMA_VERSION, "matrix": view.stem, "query": query, "data_as_of": as_of,
            "rows": view.rows}


def cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict) and set(value) == {"min", "max"}:
        return f"{value['min']}-{value['max']}" if value["max"] else f">={value['min']}"
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value) or "-"
    return str(value)


def render_table(view, as_of: str, console) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    from gpudoctor.render.fit import fit_table

    table = Table(title=Text(f"{view.title} — data as of {as_of}"), title_justify="left")
    for col in view.columns:
        table.add_column(Text(col.replace("_", " ")))  # headers wrap between words, never inside one
    rows = [[Text(cell(row.get(col))) for col in view.columns] for row in view.rows]
    # Too narrow for every column: the rightmost go first (the key columns come first in each view).
    dropped = fit_table(table, rows, console.width, drop_order=range(len(view.columns) - 1, 0, -1))
    console.print(table)
    # Notes (conflicts between sources) under small tables, each once, keyed by its row.
    notes: dict[str, list[str]] = {}
    for row in view.rows:
        if row.get("note"):
            notes.setdefault(row["note"], []).append(" ".join(cell(row.get(c)) for c in view.columns[:3]))
    if notes and len(view.rows) <= 12:
        for note, keys in notes.items():
            console.print(Text(f"{'; '.join(keys)}: {note}", style="dim"))
    n = len(view.rows)
    left_out = f"; left out at this width: {', '.join(dropped)} (a wider terminal or --json shows them)" \
        if dropped else ""
    console.print(f"[dim]{n} row{'s' if n != 1 else ''}; sources: --json{escape(left_out)}[/dim]", highlight=False)
