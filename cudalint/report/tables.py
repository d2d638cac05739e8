"""Plain-text tables for the terminal, laid out by rich: columns as wide as their longest cell, numbers
right-aligned, no colour and no wrapping (a rule name of any length keeps its row on one line)."""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich import box
from rich.console import Console
from rich.table import Table

# lines of `-` under the header and above a total row, nothing else (rich's SIMPLE_HEAD, in ASCII for any
# terminal's encoding)
_UNDER_HEADER = box.Box("    \n    \n -- \n    \n -- \n    \n    \n    \n", ascii=True)


def render_table(headers: Sequence[str], rows: Sequence[Sequence[object]], *, numeric: Sequence[bool] = (),
                 rule: bool = True, total: Sequence[object] | None = None) -> str:
    """The rows under their headers, columns two spaces apart; `numeric[i]` right-aligns column i; `rule`
    draws a line of `-` under the header, and above the `total` row when there is one. Lines carry no
    trailing spaces."""
    # two spaces between columns: with the rule's box, a cell's right padding and the box's divider
    table = Table(box=_UNDER_HEADER if rule else None, show_edge=False, pad_edge=False,
                  padding=(0, 1, 0, 0) if rule else (0, 1), header_style=None)
    for index, header in enumerate(headers):
        table.add_column(header, justify="right" if index < len(numeric) and numeric[index] else "left",
                         no_wrap=True)
    for index, row in enumerate(rows):
        table.add_row(*(str(cell) for cell in row), end_section=total is not None and index == len(rows) - 1)
    if total is not None:
        table.add_row(*(str(cell) for cell in total))
    out = io.StringIO()
    Console(file=out, width=1_000_000, color_system=None, force_terminal=False, force_jupyter=False,
            emoji=False, highlight=False, markup=False).print(table)
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines()) + "\n"


__all__ = ["render_table"]
