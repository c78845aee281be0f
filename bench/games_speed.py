"""Random play speed of any games, by the same measure as bench/run.py: moves per second of the
engine's playout (`State.playout`, a `random.Random`'s randrange per decision, as `simulate`'s
random bots and the search bots' rollouts play), in CPU time of this process, best and median of
R repeats. Why a script of its own: run.py measures the seed games against hand-written
baselines; the games added since (issue 20's simultaneous and race games) have none, and their
speed is wanted beside the seed games' measured the same way at the same moment.

    python bench/games_speed.py                         # the default list below, 7 repeats
    python bench/games_speed.py goofspiel:2 hearts:4 --games 200 --repeats 5 --markdown
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import engine_play  # noqa: E402

import rulesdsl  # noqa: E402

ROOT = HERE.parent
# game:players and games per repeat (about a tenth of a second of play each)
DEFAULT = {"goofspiel:2": 400, "goofspiel:3": 300, "goofspiel:4": 250, "slapjack:4": 60, "hearts:4": 15,
           "tempurra:4": 300, "tamalo:4": 1500}


def measure(spec: str, games: int, repeats: int) -> dict:
    """One game's random play, `games` seeds per repeat; moves/s of each repeat (CPU time)."""
    name, _, players = spec.partition(":")
    game = rulesdsl.load(ROOT / "games" / f"{name}.rules", players=int(players) if players else None)
    rates = []
    moves = 0
    for _ in range(repeats):
        t0 = time.process_time()
        moves = engine_play(game, range(games))
        rates.append(moves / (time.process_time() - t0))
    return {"game": name, "players": game.players, "games": games, "moves a game": moves / games,
            "best": max(rates), "median": statistics.median(rates)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="*", help="GAME:PLAYERS (default: the new games and the seed games)")
    ap.add_argument("--games", type=int, default=None, help="games per repeat (default: per game)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    specs = args.specs or list(DEFAULT)
    rows = [measure(s, args.games or DEFAULT.get(s, 100), args.repeats) for s in specs]
    if args.markdown:
        print("| game | players | games a repeat | moves a game | moves/s, best | moves/s, median |")
        print("|---|---:|---:|---:|---:|---:|")
        for r in rows:
            print(f"| {r['game']} | {r['players']} | {r['games']} | {r['moves a game']:.1f} | "
                  f"{r['best']:,.0f} | {r['median']:,.0f} |")
    else:
        for r in rows:
            print(f"{r['game']:<12} {r['players']} players  {r['moves a game']:8.1f} moves a game"
                  f"  {r['best']:>10,.0f} moves/s best  {r['median']:>10,.0f} median")
    return 0


if __name__ == "__main__":
    sys.exit(main())
