"""rulesdsl: a declarative language for card-game rules, and one engine that runs any game in it.

    game = rulesdsl.load("games/some_game.rules", players=4)
    state = game.new_game(seed=1)
    while not state.is_over:
        state.apply(state.legal_moves()[0])
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .engine.game import Game, Move
from .engine.state import State
from .errors import IllegalMove, RulesError, RulesRuntimeError

__version__ = "0.1.0"
__all__ = [
    "Game", "IllegalMove", "Move", "RulesError", "RulesRuntimeError", "State", "load", "load_text", "parse_files",
]


def parse_files(path: str | Path, allow_paths: Sequence[str | Path] = ()):
    """Parse a rules file with what it imports and extends: the checker's input (the merged
    declarations first, then the other files for their sources). Imports read only inside the
    file's project, the library of preludes and `allow_paths` (docs/language.md)."""
    from .loader import resolve

    return resolve(path, allow_paths).files()


def load(path: str | Path, players: int | None = None, names: list[str] | None = None,
         limits: dict[str, int] | None = None, *, allow_paths: Sequence[str | Path] = (), **params) -> Game:
    """Load a rules file into a game for `players` players (the file's default if None).

    Keyword arguments set parameters (`tokens_to_lose=2`); `allow_paths` names more folders its
    imports may read. `limits` raises (or lowers) the limits of a run, by name (`{"steps": 10**6,
    "depth": 5000}`; see `rulesdsl.engine.limits.LIMITS`). Raises RulesError with every located
    error if the file, or a parameter, is not valid, and ValueError for a limit that does not
    exist or is not a whole number of at least 1.
    """
    from .checker import check
    from .compile import compile_program

    files = parse_files(path, allow_paths)
    try:
        program = check(files, players, params)
    except RulesError as e:
        raise RulesError(e.diagnostics, {**e.sources, **{f.path: f.source for f in files}}) from None
    game = compile_program(program, names, limits=limits)
    game.allow_paths = _folders(allow_paths)
    return game


def _folders(allow_paths: Sequence[str | Path]) -> tuple[str, ...]:
    """`allow_paths` as absolute folders: a game remembers them so that whoever loads it again
    (a worker, which may start in another folder) reads what this load read."""
    from .loader import _real

    return tuple(str(_real(Path(p))) for p in allow_paths)


def load_text(text: str, players: int | None = None, path: str = "<string>",
              limits: dict[str, int] | None = None, **params) -> Game:
    """Load rules given as text (tests, tools). Imports are not followed. `limits` as for `load`."""
    from .checker import check
    from .compile import compile_program
    from .parser import parse_text

    return compile_program(check([parse_text(text, path)], players, params), limits=limits)
