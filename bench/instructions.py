"""Machine instructions per move, engine against baseline: a measure a busy machine cannot blur.

    python bench/instructions.py [--games N] [--only GAME] [--engine-only] [--tree DIR --python PY]

Runs random play at 4 players under valgrind's callgrind (it must be installed) for the engine
(`State.playout`, as bench/run.py times it) and for each hand-written baseline, twice (N/5 and N
games, the same seeds as bench/run.py), and prints the instructions of the difference divided by
its moves: the cost of a move with start-up, loading and the first games taken away. Also the
cost of an *empty move*: a two-player game whose two actions do nothing, so all it measures is the
machine (the random pick, the turn and the options). Callgrind runs programs about 50 times
slower: expect a few minutes. `--tree` and `--python` count another checkout's engine (its own
venv's python) on the same games, for a before and after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

EMPTY = """game "Empty"
players 2..2
card token(n)
cards in pile { 2 token(1) }
zone pile: stack
action wait { }
action rest { }
game ends when turn > TURNS
rank by lowest it.seat
"""

ENGINE = """
import random, rulesdsl
g = rulesdsl.load({path!r}, players=4)
m = 0
for s in range({n}):
    rng = random.Random(s)
    st = g.new_game(s, log=False)
    st.playout(rng.randrange)
    m += st.moves
print(m)
"""

BASELINE = """
import sys
sys.path.insert(0, {here!r})
import baseline_{game} as b
print(sum(b.play_game(s, 4)[0] for s in range({n})))
"""

EMPTY_RUN = """
import random, rulesdsl
g = rulesdsl.load_text({text!r}.replace("TURNS", "{n}"), path="empty.rules")
rng = random.Random(1)
st = g.new_game(1, log=False)
st.playout(rng.randrange)
print(st.moves)
"""


def count(code: str, python: str = sys.executable, cwd: Path = ROOT) -> tuple[int, int]:
    """(moves printed by `code`, instructions it took) under callgrind."""
    # String hashes fixed: dicts and sets lay out alike on every run, so the count is the same on
    # every run (with random hashes, runs of one tree differed by up to 3%).
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", python, "-c", code],
        capture_output=True, text=True, cwd=cwd, env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    if out.returncode != 0:
        sys.exit(f"bench/instructions.py: the run failed:\n{out.stderr[-2000:]}")
    line = next((x for x in out.stderr.splitlines() if "Collected" in x), None)
    if line is None:
        sys.exit("bench/instructions.py: callgrind printed no count")
    return int(out.stdout.split()[-1]), int(line.split()[-1])


def per_move(make, n: int, python: str = sys.executable, cwd: Path = ROOT) -> tuple[int, int]:
    """Instructions per move of the runs of n//5 and n games, and the moves between them."""
    m1, i1 = count(make(max(1, n // 5)), python, cwd)
    m2, i2 = count(make(n), python, cwd)
    return (i2 - i1) // max(1, m2 - m1), m2 - m1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=60, help="Tempurra games (Tamalo plays five times as many)")
    ap.add_argument("--only", choices=("tempurra", "tamalo"), help="count this game alone")
    ap.add_argument("--engine-only", action="store_true", help="neither the baselines nor the empty move")
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose engine and games are counted")
    ap.add_argument("--python", default=sys.executable, help="the python that runs --tree's engine")
    args = ap.parse_args(argv)
    if args.games < 5:
        ap.error("--games must be at least 5")
    if shutil.which("valgrind") is None:
        print("bench/instructions.py: valgrind is not installed", file=sys.stderr)
        return 1
    print("| game | engine instructions/move | baseline instructions/move | baseline / engine |")
    print("|---|---:|---:|---:|")
    tree = args.tree.resolve()
    for game, n in (("tempurra", args.games), ("tamalo", 5 * args.games)):
        if args.only not in (None, game):
            continue
        path = str(tree / "games" / f"{game}.rules")
        eng, _ = per_move(lambda k, path=path: ENGINE.format(path=path, n=k), n, args.python, tree)
        if args.engine_only:
            print(f"| {game} | {eng:,} | | |")
            continue
        base, _ = per_move(lambda k, game=game: BASELINE.format(here=str(HERE), game=game, n=k), n)
        print(f"| {game} | {eng:,} | {base:,} | {base / eng:.2f} |")
    if args.engine_only:
        return 0
    empty, _ = per_move(lambda k: EMPTY_RUN.format(text=EMPTY, n=k * 10), 2000, args.python, tree)
    print(f"\nAn empty move (two actions that do nothing): {empty:,} instructions.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
