"""What the commands print, fitted to the terminal: its width, the moves as the prompt lists
them, and the progress bar of long runs.

The engine's order of the moves is never changed here (seeds and bots index it): the prompt
lists them sorted, and a number typed at the prompt is mapped back to the engine's index.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import textwrap
from collections.abc import Callable, Iterator
from typing import TextIO

from .engine.view import GLUE  # a space no line breaks at

# Without a terminal (a pipe, a file, a test's StringIO) and without $COLUMNS: rich's default too.
DEFAULT_WIDTH = 80
# A list of more moves than this is shown compactly: places in ranges, the rest in columns.
COMPACT_AT = 12


def terminal_width(stream: TextIO) -> int:
    """The columns of the terminal `stream` writes to, read each time (a window can be resized);
    else $COLUMNS, else DEFAULT_WIDTH."""
    with contextlib.suppress(AttributeError, ValueError, OSError):
        if stream.isatty():
            return max(20, os.get_terminal_size(stream.fileno()).columns)
    with contextlib.suppress(ValueError):
        return max(20, int(os.environ.get("COLUMNS", "")))
    return DEFAULT_WIDTH


def wrap(text: str, width: int, indent: int = 4) -> list[str]:
    """`text` in lines of at most `width` characters, continued `indent` spaces in; a word longer
    than a line is kept whole. Its own leading spaces stay."""
    if len(text) <= width:
        return [text]
    return textwrap.wrap(text, width, subsequent_indent=" " * indent, break_long_words=False,
                         break_on_hyphens=False) or [text]


# ---------------------------------------------------------------- moves at the prompt


def display_order(texts: list[str], game) -> list[int]:
    """The indices of `texts` in the order the prompt lists them: grouped by action (in the order
    the actions first come, which is the rules file's), then by value, lowest first: numbers as
    numbers, players in seat order, cards in the order a hand shows them; other words as the rules
    list them. An action whose options the engine lists from high to low is sorted already: kept."""
    first: dict[str, int] = {}
    for t in texts:
        first.setdefault((t.split() or [""])[0], len(first))
    seats = {name: i for i, name in enumerate(game.names)}
    cards: dict[str, int] = {}
    for c in range(game.ncards):
        face = game.card_face[c] if c < len(game.card_face) else c
        cards[game.card_text[c]] = min(face, cards.get(game.card_text[c], face))

    named = cards.keys() | seats.keys()

    def word(w: str) -> tuple:
        if w.isascii() and w.isdigit():
            return (0, int(w))
        if w in seats:
            return (1, seats[w])
        if w in cards:
            return (2, cards[w])
        return (3, 0)  # (other words keep the engine's order: the rules', as ♣ ♦ ♥ ♠ or apple pear plum)

    def key(i: int) -> list:
        words = texts[i].split()
        out, k = [], 1
        while k < len(words):  # the longest run of words that names a card or a player ('apple 2'), else a word
            j = next((j for j in range(len(words), k + 1, -1) if " ".join(words[k:j]) in named), k + 1)
            out.append(word(" ".join(words[k:j])))
            k = j
        return out

    groups: dict[int, list[int]] = {}
    for i, t in enumerate(texts):
        groups.setdefault(first[(t.split() or [""])[0]], []).append(i)
    order: list[int] = []
    for g in sorted(groups):
        keys = [key(i) for i in groups[g]]
        # An action's options already in order, from high to low (a pile from its top), stay so.
        downward = all(a >= b for a, b in itertools.pairwise(keys))
        order += groups[g] if downward else [i for _, i in sorted(zip(keys, groups[g], strict=True))]
    return order


def _place(text: str) -> tuple[str, int] | None:
    """'take bob 3' -> ('take bob', 3): a move whose last word is a place number."""
    head, _, last = text.rpartition(" ")
    return (head, int(last)) if head and last.isascii() and last.isdigit() and len(last) < 6 else None


def _ranges(values: list[int]) -> str:
    """[1, 2, 4, 5, 6, 7] -> '1 2 4..7': three or more in a row as a range."""
    out, i = [], 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        out += [f"{values[i]}..{values[j]}"] if j - i >= 2 else [str(v) for v in values[i:j + 1]]
        i = j + 1
    return " ".join(out)


def move_lines(shown: list[str], width: int) -> list[str]:
    """The lines that list `shown` (already in display order), numbered from 1. Up to COMPACT_AT
    moves, one a line; more, and the moves of an action that differ only by a place number are
    one line (`1-21. take bob 1..7, carol 1..7, dave 1..7`), the others in columns; a closing
    line says how numbers count then."""
    if len(shown) <= COMPACT_AT:
        return [f"  {i:>2}. {t}" for i, t in enumerate(shown, 1)]
    entries: list[tuple[str, str]] = []  # (number or numbers, text)
    example = ""
    i = 0
    while i < len(shown):
        j, action = i, shown[i].split(" ", 1)[0]
        heads: list[tuple[str, list[int]]] = []
        while j < len(shown) and (p := _place(shown[j])) and p[0].split(" ", 1)[0] == action:
            if heads and heads[-1][0] == p[0]:
                heads[-1][1].append(p[1])
            else:
                heads.append((p[0], [p[1]]))
            j += 1
        if j - i >= 3:  # a run of places
            # (a player's places held together on one line: `carol 1..16`, not `carol` / `1..16`)
            parts = [f"{h if k == 0 else h.partition(' ')[2]} {_ranges(v)}".strip().replace(" ", GLUE)
                     for k, (h, v) in enumerate(heads)]
            entries.append((f"{i + 1}-{j}", ", ".join(parts)))
            # (Where a number is not the place it takes, one example says how numbers count.)
            odd = [k for k in range(i, j) if _place(shown[k])[1] != k + 1]
            if odd and not example:
                example = f"{odd[0] + 1} is {shown[odd[0]]}"
            i = j
        else:
            entries.append((str(i + 1), shown[i]))
            i += 1
    numw = max(len(n) for n, _ in entries)
    lines: list[str] = []
    row: list[str] = []
    cellw = max(numw + 4 + len(t) for n, t in entries if "-" not in n) if any("-" not in n for n, _ in entries) else 0
    for n, t in entries:
        if "-" in n:
            lines += _flush(row, width)
            row = []
            lines += [line.replace(GLUE, " ") for line in wrap(f"  {n:>{numw}}. {t}", width, numw + 5)]
        else:
            row.append(f"  {n:>{numw}}. {t}".ljust(cellw))
    lines += _flush(row, width)
    if example:
        lines.append(f"(A number counts the moves as listed: {example}.)")
    return lines


def _flush(cells: list[str], width: int) -> list[str]:
    """Cells of equal width, as many a line as fit."""
    if not cells:
        return []
    per = max(1, width // len(cells[0]))
    return ["".join(cells[k:k + per]).rstrip() for k in range(0, len(cells), per)]


# ---------------------------------------------------------------- progress


@contextlib.contextmanager
def progress_bar(err: TextIO, total: int, what: str, unit: str = "games") -> Iterator[Callable[[int], None] | None]:
    """A bar on `err` while a long run goes on, if `err` is a terminal (else None: no bar, and
    output to a file or a pipe stays clean). Called with how many are done; the time left is
    rich's estimate from the recent speed, so it settles as the run goes on."""
    if not _is_terminal(err):
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn(unit), TaskProgressColumn(), TimeElapsedColumn(), TextColumn("left"),
                   TimeRemainingColumn(), console=Console(file=err), transient=True,
                   speed_estimate_period=60)
    task = bar.add_task(what, total=total)
    best = 0

    def update(done: int) -> None:
        nonlocal best
        if done > best:  # (counts told from two places, the games and the jobs, never go back)
            best = done
            bar.update(task, completed=done)

    with bar:
        yield update


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
