"""`python bench/baseline_NAME.py [SECONDS]`: a baseline plays random games for SECONDS (default 3)
and prints its moves per second (bench/run.py is the measurement that compares it with the engine)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


def main(play_game: Callable[[int], tuple[int, list[int]]], name: str, argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    try:
        seconds = float(argv[0]) if argv else 3.0
    except ValueError:
        print(f"usage: python bench/baseline_{name}.py [SECONDS]  (got {argv[0]!r})", file=sys.stderr)
        raise SystemExit(2) from None
    moves = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        moves += play_game(games)[0]
        games += 1
    dt = time.perf_counter() - t0
    print(f"{name} baseline: {games} games, {moves} moves in {dt:.2f} s: {moves / dt:,.0f} moves/s")
