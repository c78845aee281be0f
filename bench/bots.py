"""How strong the default ISMCTS bot is: four-player Tamalo and Tempurra, one ISMCTS bot against
three random bots, seats rotated, and how long it takes to decide.

    python bench/bots.py                      # 200 games of each, 2 processes (as in docs/bots.md)
    python bench/bots.py --games 40 --bot ismcts:50

The same as `rulesdsl arena games/tamalo.rules --bots ismcts,random,random,random --games 200
--players 4 --workers 2`, then the same for Tempurra, with the targets of docs/bots.md checked:
a win rate of at least 0.45 in Tamalo and 0.40 in Tempurra (chance is 0.25), and under a second
a decision. Timing is wall-clock time in each worker; other load on the machine slows it down.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rulesdsl.arena import run_arena, summarize

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"tamalo.rules": 0.45, "tempurra.rules": 0.40}
FEWEST = {"tempurra.rules": "tokens"}  # also report how often the bot ends with the fewest of this counter


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bot", default="ismcts")
    ap.add_argument("--game", choices=list(TARGETS), action="append", help="only this game (repeatable)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    args = ap.parse_args()
    report, ok = [], True
    for name, target in TARGETS.items():
        if args.game and name not in args.game:
            continue
        path = str(ROOT / "games" / name)
        t0 = time.perf_counter()
        game, lineup, records = run_arena(path, [args.bot, "random", "random", "random"], args.games, players=4,
                                          seed=args.seed, workers=args.workers)
        wall = time.perf_counter() - t0
        bot = summarize(records, lineup)[0]
        fewest = None
        if name in FEWEST:
            counter = FEWEST[name]
            mine = [r.counters[counter][r.bots.index(args.bot)] for r in records if not r.capped]
            least = [min(r.counters[counter]) for r in records if not r.capped]
            fewest = sum(m == low for m, low in zip(mine, least, strict=True)) / max(1, len(mine))
        lo, hi = bot.interval
        fast = bot.seconds_per_choice < 1.0
        met = bot.rate >= target and fast
        ok &= met
        print(f"{game.name}: {args.bot} vs 3 random, {len(records)} games (seed {args.seed}, {args.workers} workers, "
              f"{wall:.0f} s): win rate {bot.rate:.3f} [{lo:.3f}, {hi:.3f}] (target {target}), "
              f"{bot.seconds_per_choice:.3f} s a decision, slowest {bot.slowest:.3f} s, "
              f"{sum(r.capped for r in records)} capped"
              + (f", the fewest {FEWEST[name]} (ties included) in {fewest:.3f}" if fewest is not None else "")
              + f": {'ok' if met else 'MISSED'}")
        report.append({"game": game.name, "bot": args.bot, "games": len(records), "seed": args.seed,
                       "win_rate": round(bot.rate, 4), "interval": [round(lo, 4), round(hi, 4)], "target": target,
                       "seconds_per_decision": round(bot.seconds_per_choice, 4),
                       "slowest_decision": round(bot.slowest, 4), "decisions": bot.choices,
                       "fewest": None if fewest is None else {FEWEST[name]: round(fewest, 4)},
                       "wall_seconds": round(wall, 1)})
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
