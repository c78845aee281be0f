"""Python bytecodes executed per move, engine against baseline, and where the engine's go.

    python bench/opcodes.py [--games N] [--top K]

Counts every bytecode the interpreter runs (`sys.settrace` with opcode events) in random play at
4 players: the engine through `State.playout`, each hand-written baseline on the same seeds, after
a few games to warm up (blocks are generated the first time they run). It prints bytecodes per
move for both sides and their ratio, then the engine's functions that run the most bytecodes a
move (the generated blocks are named as the rules name them): a profile that is the same on every
run, which a busy machine cannot blur, and that needs nothing installed. Neither this nor machine
instructions (bench/instructions.py) is the time: a bytecode may be a list index or a big-number
multiply. On 2026-11-30 the ratio of bytecodes stayed close to the timed ratio of bench/run.py for
Tamalo (0.40 and 0.40, then 0.46 and 0.45-0.57) and ran well above it for Tempurra (0.40 against
0.27), whose engine side does more of the costly kind (dictionaries, bit counts, the shuffles' big
numbers). Tracing runs about 30 times slower: the defaults take half a minute.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import baseline_tamalo  # noqa: E402
import baseline_tempurra  # noqa: E402

import rulesdsl  # noqa: E402

PLAYERS = 4
WARM_UP = 5
BASELINES = {"tempurra": baseline_tempurra, "tamalo": baseline_tamalo}


def counted(play: Callable[[], int]) -> tuple[int, collections.Counter]:
    """(moves that `play()` made, bytecodes run per function while it ran)."""
    per: collections.Counter = collections.Counter()

    def trace(frame, event, arg):
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        if event == "opcode":
            code = frame.f_code
            per[(code.co_filename, code.co_name)] += 1
        return trace

    sys.settrace(trace)
    try:
        moves = play()
    finally:
        sys.settrace(None)
    return moves, per


def engine_games(game: rulesdsl.Game, seeds: range) -> Callable[[], int]:
    def play() -> int:
        moves = 0
        for s in seeds:
            st = game.new_game(s, log=False)
            st.playout(random.Random(s).randrange)
            moves += st.moves
        return moves

    return play


def baseline_games(module, seeds: range) -> Callable[[], int]:
    return lambda: sum(module.play_game(s, PLAYERS)[0] for s in seeds)


def label(key: tuple[str, str]) -> str:
    filename, name = key
    if filename.startswith("<rules"):
        return filename.strip("<>").removeprefix("rules ")
    return f"{name} ({Path(filename).name})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=60, help="Tempurra games (Tamalo plays five times as many)")
    ap.add_argument("--top", type=int, default=8, help="the engine's functions to list per game")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    if args.top < 0:
        ap.error("--top must be at least 0")
    rows, details = [], []
    for name, n in (("tempurra", args.games), ("tamalo", 5 * args.games)):
        game = rulesdsl.load(ROOT / "games" / f"{name}.rules", players=PLAYERS)
        engine_games(game, range(WARM_UP))()
        seeds = range(WARM_UP, WARM_UP + n)
        moves_e, per_e = counted(engine_games(game, seeds))
        moves_b, per_b = counted(baseline_games(BASELINES[name], seeds))
        e, b = sum(per_e.values()) / moves_e, sum(per_b.values()) / moves_b
        rows.append(f"| {name} | {e:,.0f} | {b:,.0f} | {b / e:.2f} |")
        details.append((name, moves_e, per_e))
    # (The two sides play the same seeds but not the same deals: each draws its chance its own way.)
    print("| game | engine bytecodes/move | baseline bytecodes/move | baseline / engine |")
    print("|---|---:|---:|---:|")
    print("\n".join(rows))
    for name, moves, per in details:
        if args.top:
            print(f"\n{name}, the engine's functions by bytecodes per move:")
            for key, count in per.most_common(args.top):
                print(f"  {count / moves:7.1f}  {label(key)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
