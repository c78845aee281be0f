"""Every piece of Python source the compiler writes, for comparing two versions of the compiler.

    python bench/compile_dump.py OUT [--full]
    PYTHONPATH=/path/to/other/checkout python bench/compile_dump.py OTHER && cmp OUT OTHER

For every games/**/*.rules and tests/data/*.rules, at each player count (up to 6), with default,
lowest and highest parameters, with shortcuts and without: the source of every expression, of
every block at every position, of the straight functions (limited and not), then a short random
game played with a log and without. Each setting's sources are kept once each in order of first
writing, names made from a node's id (`_h140215...`, `_j...`) numbered by first use. OUT holds a
hash per setting; --full writes the sources themselves (large). A speed-up of the compiler must
leave OUT the same.
"""

from __future__ import annotations

import hashlib
import importlib
import pkgutil
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

import rulesdsl
import rulesdsl.compile
from rulesdsl.checker import check
from rulesdsl.compile import compile_program

ROOT = Path(__file__).resolve().parent.parent
_IDS = re.compile(r"\b_[hj]\d{6,}\b")


def _recording() -> list[str]:
    """Every module of the compiler that compiles source records it here first."""
    written: list[str] = []
    for m in pkgutil.iter_modules(rulesdsl.compile.__path__):
        module = importlib.import_module(f"rulesdsl.compile.{m.name}")
        if hasattr(module, "code_of"):
            def code_of(text, filename="<string>", mode="eval", _compile=module.code_of):
                written.append(text)
                return _compile(text, filename, mode)
            module.code_of = code_of
    return written


def _settings(program) -> list[dict]:
    out = [{}]
    if program.params:
        out.append({k: v.low for k, v in program.params.items() if v.low is not None})
        out.append({k: v.high for k, v in program.params.items() if v.high is not None})
    return out


def _one(parsed, n: int, params: dict, shortcuts: bool, written: list[str]) -> str:
    written.clear()
    game = compile_program(check(parsed, n, params), shortcuts=shortcuts)
    for code in game.codes:
        for pc in range(len(code.ops)):
            game.block(code.index, pc)
    for unlimited in (False, True):
        game.write_straight(game, unlimited)
    for log in (True, False):
        st, rng, moves = game.new_game(7, log=log), random.Random(7), 0
        while not st.is_over and moves < 300:
            st.apply(rng.choice(st.legal_moves()))
            moves += 1
        written.append(f"played {moves} moves")
    ids: dict[str, str] = {}
    named = [_IDS.sub(lambda m: ids.setdefault(m.group(0), f"_n{len(ids)}"), t) for t in written]
    return "\n".join(dict.fromkeys(named))


def digests(files: list[Path], one: Callable[[object, int, dict, bool], str], full: bool = False) -> list[str]:
    """A line per setting of each file (player counts, parameter extremes, shortcuts): its tag and
    the hash of what `one(parsed, players, params, shortcuts)` gives (a failure's text if it fails);
    with `full`, the text after it. Shared by play_digest.py."""
    lines = []
    for path in files:
        name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        try:
            parsed = rulesdsl.parse_files(path)
            program = check(parsed, None, {})
        except Exception as e:  # (a file that does not load alone: a prelude, a bad example)
            lines.append(f"# {name} does not load: {type(e).__name__}")
            continue
        for n in range(program.min_players, min(program.max_players, 6) + 1):
            for params in _settings(program):
                for shortcuts in (True, False):
                    try:
                        text = one(parsed, n, params, shortcuts)
                    except Exception as e:  # (a rules error of the game itself is part of the record)
                        text = f"fails: {type(e).__name__}: {e}".replace(str(ROOT), "ROOT")
                    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
                    fails = " " + text[:120].replace("\n", " ") if text.startswith("fails") else ""
                    lines.append(f"# {name} players={n} {params} shortcuts={shortcuts} {digest}{fails}")
                    if full:
                        lines.append(text)
    return lines


def main(out: str, full: bool) -> None:
    written = _recording()
    files = sorted(ROOT.glob("games/**/*.rules")) + sorted(ROOT.glob("tests/data/*.rules"))
    lines = digests(files, lambda parsed, n, params, shortcuts: _one(parsed, n, params, shortcuts, written), full)
    Path(out).write_text("\n".join(lines) + "\n")
    print(f"{len(files)} files, {sum(line.startswith('# ') for line in lines)} settings: {out}")


if __name__ == "__main__":
    main(sys.argv[1], "--full" in sys.argv[2:])
