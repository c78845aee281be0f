"""rulesdsl: a declarative language for card-game rules, and one engine that runs any game in it.

    game = rulesdsl.load("games/some_game.rules", players=4)
    state = game.new_game(seed=1)
    while not state.is_over:
        state.apply(state.legal_moves()[0])
"""

from __future__ import annotations

from pathlib import Path

from .engine.game import Game, Move
from .engine.state import State
from .errors import IllegalMove, RulesError, RulesRuntimeError

__version__ = "0.1.0"
__all__ = [
    "Game", "IllegalMove", "Move", "RulesError", "RulesRuntimeError", "State", "load", "load_text", "parse_files",
]


def parse_files(path: str | Path):
    """Parse a rules file and, in order, every file it imports (paths relative to the importer)."""
    from . import ast
    from .errors import Diagnostic
    from .parser import parse_file

    out: list[ast.RulesFile] = []
    seen: set[Path] = set()

    def visit(p: Path, via: ast.Import | None, chain: tuple[Path, ...]) -> None:
        key = p.resolve()
        if key in chain:
            where = via.span if via else None
            raise RulesError([Diagnostic(where, f"'{p}' imports itself (through {len(chain)} files)")])
        if key in seen:
            return
        seen.add(key)
        if via is not None and not p.exists():
            raise RulesError([Diagnostic(via.span, f"cannot import '{via.path}': no such file ({p})")], {})
        f = parse_file(p)
        for d in f.decls:
            if isinstance(d, ast.Import):
                visit(p.parent / d.path, d, chain + (key,))
        out.append(f)

    visit(Path(path), None, ())
    # The main file first: its name and header win, and errors read in its order.
    return [out[-1]] + out[:-1]


def load(path: str | Path, players: int | None = None, names: list[str] | None = None, **params) -> Game:
    """Load a rules file into a game for `players` players (the file's default if None).

    Keyword arguments set parameters (`tokens_to_lose=2`). Raises RulesError with every located
    error if the file, or a parameter, is not valid.
    """
    from .checker import check
    from .compiler import compile_program

    files = parse_files(path)
    try:
        program = check(files, players, params)
    except RulesError as e:
        e.sources.update({f.path: f.source for f in files})
        raise RulesError(e.diagnostics, e.sources) from None
    return compile_program(program, names)


def load_text(text: str, players: int | None = None, path: str = "<string>", **params) -> Game:
    """Load rules given as text (tests, tools). Imports are not followed."""
    from .checker import check
    from .compiler import compile_program
    from .parser import parse_text

    return compile_program(check([parse_text(text, path)], players, params))
