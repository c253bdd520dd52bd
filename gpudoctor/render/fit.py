"""Fit a rich table to a width without cutting a value mid-token.

Rich shrinks columns past their longest word when a table is too wide, which
splits values ("linux-x/86_64", "12,7…"). Here every kept column is at least as
wide as its longest token (cell or header word), columns are dropped (least
important first) while that does not fit, and the rest of the width goes to
the columns that want it. The caller names what was dropped."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text


def _plain(cell) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def _widths(text: str) -> tuple[int, int]:
    """(longest token, longest line) of one cell."""
    lines = text.splitlines() or [""]
    longest_line = max(cell_len(line) for line in lines)
    longest_token = max((cell_len(word) for line in lines for word in line.split()), default=0)
    return longest_token, longest_line


def fit_table(table: Table, rows: Sequence[Sequence], width: int, drop_order: Sequence[int] = ()) -> list[str]:
    """Add `rows` to `table` (its columns already added), fitted to `width`:
    columns in `drop_order` (indices, first dropped first) are removed while
    the columns' longest tokens do not fit. Returns the dropped headers."""
    columns = list(table.columns)
    need = []
    for i, col in enumerate(columns):
        token, line = _widths(_plain(col.header))
        for row in rows:
            t, ln = _widths(_plain(row[i]))
            token, line = max(token, t), max(line, ln)
        if col.no_wrap:
            token = line
        need.append((max(token, 1), max(line, 1)))
    keep = list(range(len(columns)))

    def overhead(n: int) -> int:
        pad = sum(table.padding[1::2]) if hasattr(table, "padding") else 2
        edges = 2 if (table.box and table.show_edge) else 0
        seps = (n - 1) if table.box else 0
        return n * pad - (0 if table.pad_edge else pad) + edges + seps

    dropped = []
    for i in drop_order:
        if sum(need[k][0] for k in keep) + overhead(len(keep)) <= width:
            break
        keep.remove(i)
        dropped.append(i)
    for i in reversed(dropped[:-1]):  # a column dropped early may fit beside the ones kept after all
        if sum(need[k][0] for k in keep) + need[i][0] + overhead(len(keep) + 1) <= width:
            keep = sorted([*keep, i])
            dropped.remove(i)
    widths = {k: need[k][0] for k in keep}
    spare = width - overhead(len(keep)) - sum(widths.values())
    wanting = [k for k in keep if need[k][1] > widths[k]]
    while spare > 0 and wanting:  # share the spare width, a cell at a time, to the columns still wrapping
        for k in list(wanting):
            if spare <= 0:
                break
            widths[k] += 1
            spare -= 1
            if widths[k] >= need[k][1]:
                wanting.remove(k)
    for k in sorted(dropped, reverse=True):
        del table.columns[k]
    for new, k in enumerate(keep):
        table.columns[new]._index = new
        table.columns[new].width = widths[k]
        table.columns[new].overflow = "fold"  # a token can no longer be longer than its column
    for row in rows:
        table.add_row(*(row[k] for k in keep))
    return [_plain(columns[i].header) for i in dropped]
