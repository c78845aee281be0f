"""The games the engine plays, as one hash per setting, for comparing two versions of the compiler
whose generated source differs (bench/compile_dump.py compares the source itself).

    python bench/play_digest.py OUT [--seeds N]
    PYTHONPATH=/path/to/other/checkout python bench/play_digest.py OTHER && cmp OUT OTHER

For every games/**/*.rules and tests/data/*.rules, at each player count (up to 6), with default,
lowest and highest parameters, with shortcuts and without, N seeds (default 4): a game played by a
seeded random pick with the log (every move's text, each seat's events, the state's JSON every 17
moves, the final ranking), the same game without the log (its JSON at the end), a sampled world
of each seat every 23 moves, and a straight playout from the start. A rebuild of the back-end must
leave OUT the same.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import compile_dump  # (the same settings as the source's digest)

from rulesdsl.checker import check
from rulesdsl.compile import compile_program

ROOT = Path(__file__).resolve().parent.parent
MOVES = 400


def _game(game, seed: int) -> list[str]:
    out: list[str] = []
    st, rng = game.new_game(seed), random.Random(seed)
    quiet = game.new_game(seed, log=False)
    moves = 0
    while not st.is_over and moves < MOVES:
        texts = st.move_texts()
        i = rng.randrange(len(texts))
        out.append(texts[i])
        st.apply_index(i)
        quiet.apply_index(i)
        moves += 1
        if moves % 17 == 0:
            out.append(st.to_json())
        if moves % 23 == 0 and not st.is_over:
            for seat in range(game.players):
                world = st.determinize(seat, random.Random(moves + seat), log=False)
                out.append(world.to_json())
    out.append(quiet.to_json())
    for seat in range(game.players):
        out.extend(st.events_for(seat))
    if st.is_over:
        out.append(repr(getattr(st, "ranking", None)))
    play = game.new_game(seed, log=False)
    pick = random.Random(seed + 1)
    out.append(f"playout {play.playout(lambda n: pick.randrange(n), 2000)} {play.to_json()}")
    return out


def digests(files: list[Path], seeds: int) -> list[str]:
    """One line per setting of each file: its tag and the hash of the games played."""

    def games(parsed, n: int, params: dict, shortcuts: bool) -> str:
        game = compile_program(check(parsed, n, params), shortcuts=shortcuts)
        return "\n".join(line for s in range(seeds) for line in _game(game, s))

    return compile_dump.digests(files, games)


def main(out: str, seeds: int) -> None:
    files = sorted(ROOT.glob("games/**/*.rules")) + sorted(ROOT.glob("tests/data/*.rules"))
    lines = digests(files, seeds)
    Path(out).write_text("\n".join(lines) + "\n")
    print(f"{len(files)} files, {len(lines)} settings: {out}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    n = int(args[args.index("--seeds") + 1]) if "--seeds" in args else 4
    main(args[0], n)
