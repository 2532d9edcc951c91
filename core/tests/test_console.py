"""Tables printed in a pipe or at 80 columns keep every word whole ("semantic", not "sema/ntic")
and fit the width, in parts that repeat the row's name when the columns are too many."""

from __future__ import annotations

import io

import pytest
from refig.console import print_table
from rich.console import Console
from rich.table import Table

HEADERS = ("configuration", "tasks", "text /20", "semantic structure /30", "layout /15",
           "editability /25", "visual detail /10", "total /100")
ROW = ("none@raster-paste/direct", "6", "19.3 [18.7, 20.0]*", "26.5 [22.8, 28.8]*",
       "0.0 [0.0, 0.0]", "22.5 [20.8, 24.0]*", "0.2 [0.0, 0.5]", "68.5 [63.7, 72.5]*")


def _printed(width: int, headers=HEADERS, row=ROW) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, color_system=None)
    table = Table()
    for header in headers:
        table.add_column(header, overflow="fold")
    table.add_row(*row)
    print_table(console, table)
    return buffer.getvalue()


@pytest.mark.parametrize("width", [80, 120])
def test_no_word_is_broken_at_a_terminal_s_width(width: int) -> None:
    text = _printed(width)
    cells = " ".join(line.replace("│", " ").replace("┃", " ") for line in text.splitlines())
    words = set(cells.split())
    for value in (*HEADERS, *ROW):
        for word in value.split():
            assert word in words, (word, text)


def test_a_table_that_fits_is_printed_as_rich_lays_it_out() -> None:
    text = _printed(80, HEADERS[:3], ROW[:3])
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "configuration" in text and "19.3 [18.7, 20.0]*" in text


@pytest.mark.parametrize("width", [40, 80])
def test_a_table_too_wide_for_whole_words_is_printed_in_parts_that_fit(width: int) -> None:
    # Before, it was printed at the width its words need: 120 columns in an 80-column terminal.
    text = _printed(width)
    assert max(len(line) for line in text.splitlines()) <= width, text
    assert "(columns 1/" in text
    # each part repeats the column that names the row
    parts = text.count("(columns ")
    assert parts >= 2 and text.count("none@raster") >= parts, text


def test_two_leading_text_columns_both_name_the_row_in_every_part() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, width=80, force_terminal=False, color_system=None)
    table = Table(title="by language")
    table.add_column("language", justify="left", no_wrap=True)
    table.add_column("configuration", justify="left", no_wrap=True)
    for header in HEADERS[1:]:
        table.add_column(header, justify="right")
    table.add_row("python", *ROW)
    print_table(console, table)
    text = buffer.getvalue()
    parts = text.count("(columns ")
    assert parts >= 2 and text.count("python") == parts and text.count("raster-paste") == parts
    assert max(len(line) for line in text.splitlines()) <= 80, text


def test_the_column_that_names_the_row_keeps_its_whole_line() -> None:
    # The terminal report keeps the configuration on one line (no_wrap); squeezed to its longest
    # word it was cut: "none@oracle/direct (ora".
    buffer = io.StringIO()
    console = Console(file=buffer, width=60, force_terminal=False, color_system=None)
    table = Table()
    table.add_column("configuration", overflow="fold", no_wrap=True)
    for header in HEADERS[1:5]:
        table.add_column(header, overflow="fold")
    table.add_row("none@oracle/direct (oracle)", *ROW[1:5])
    print_table(console, table)
    assert "none@oracle/direct (oracle)" in buffer.getvalue(), buffer.getvalue()
