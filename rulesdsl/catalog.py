"""What `rulesdsl list` shows of the bundled games: each with its player counts and one line."""

from __future__ import annotations

import attrs

from . import ast
from .bundled import GAMES, game_files, prelude_files
from .loader import resolve


@attrs.frozen
class Entry:
    """One line of `rulesdsl list`."""

    name: str
    kind: str  # "game", "variant", "example" or "prelude"
    players: str  # "2-6", or "" for a prelude
    summary: str


def summary(text: str, width: int = 80) -> str:
    """A file's one-line description: the first sentence of its opening comment."""
    words: list[str] = []
    for line in text.splitlines():
        if not line.startswith("#") or not line.strip("# \t"):
            break
        words.extend(line.lstrip("#").split())
    first = " ".join(words)
    end = first.find(". ")
    first = first[: end + 1] if end >= 0 else first
    return first if len(first) <= width else first[: width - 2].rsplit(" ", 1)[0].rstrip(",;:") + "..."


def catalog() -> list[Entry]:
    """The bundled games, variants, examples and preludes, with their player counts (read from the
    resolved declarations: a variant may change its base's)."""
    kinds = {".": "game", "variants": "variant", "examples": "example"}
    out: list[Entry] = []
    for name, path in game_files().items():
        players = ""
        for d in resolve(path).decls:
            if isinstance(d, ast.Players):
                players = f"{d.low}-{d.high}" if d.high > d.low else f"{d.low}"
        kind = kinds[path.parent.relative_to(GAMES).as_posix()]
        out.append(Entry(name, kind, players, summary(path.read_text(encoding="utf-8"))))
    for name, path in prelude_files().items():
        out.append(Entry(name, "prelude", "", summary(path.read_text(encoding="utf-8"))))
    return out
