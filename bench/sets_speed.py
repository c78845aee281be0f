"""How fast a `choose set` finds its options on a 20-card hand (docs/design.md, "Sets of cards").

    python bench/sets_speed.py [--repeats N] [--hands N]

A 20-card hand of a standard deck has 1,048,575 non-empty subsets. For each condition below, the
options of one `choose set` are worked out on the same hands (seeded deals), each timed as the
median processor time of --repeats runs: as the machine lists them (`Game.refresh_pending`, the turn's options),
and, for the conditions that only sizes restrict, as a straight run counts them
(`count_options`) and builds the one picked (`nth_option`). "Written plainly" is the same
condition hidden from the search (`not not (...)`): every set is a candidate, so the search stops
at the limit (`sets`, 100,000), which is what the forms are for. Timings on a shared machine are
noisy; the options and the sets tried are exact.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import rulesdsl
from rulesdsl.engine import sets as setlib

GAME = """
game "Sets bench"
players 2
import prelude "standard52"
zone deck: stack, hidden
zone pile: stack, public
zone hand per player: hand
setup {
    shuffle deck
    deal 20 from deck to each hand
}
action play {
    choose set s in me.hand %s
    move s to pile
}
action wait { }
game ends when empty(deck)
winners are players where empty(it.hand)
"""

CASES = [
    ("same rank, any size", "with count(distinct(s.rank)) == 1"),
    ("runs of 3+ in one suit", "with count(s) >= 3 and count(distinct(s.suit)) == 1 and consecutive(s.value)"),
    ("size 1..4, anything", "size 1..4"),
    ("size 8, at most 4 ranks", "size 8 with count(distinct(s.rank)) <= 4"),
    ("any size, anything", ""),
    ("same rank, written plainly", "with not not (count(distinct(s.rank)) == 1)"),
]


def load(clause: str):
    return rulesdsl.load_text(GAME.replace("import prelude \"standard52\"", _deck()) % clause, players=2,
                              path="sets_bench.rules")


def _deck() -> str:
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    suits = [("♠", "black"), ("♥", "red"), ("♦", "red"), ("♣", "black")]
    cards = ", ".join(f'1 playing("{r}", {v}, "{s}", "{c}")' for s, c in suits for v, r in enumerate(ranks, 1))
    return 'card playing(rank, value, suit, color) shown "{rank}{suit}"\ncards in deck { ' + cards + " }"


def tried(fn) -> tuple[object, int]:
    """fn's value, and the candidate sets the search tried meanwhile."""
    return fn(), setlib.TRIED[0]


def median_time(fn, repeats: int) -> float:
    """The median processor time of `repeats` calls (processor time: other programs running on a
    shared machine lengthen it less than the time on the clock)."""
    times = []
    for _ in range(repeats):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def one_hand(question, env: list, st, hand: list, repeats: int) -> tuple:
    """For one hand: (options, sets tried or None, listed ms or None, counted ms or None, why it stopped)."""
    n = counted = None
    if question.plain:
        rng = random.Random(0)

        def count_one() -> int:
            classes, lo, hi, k = setlib.count_options(st, hand, st.chooser, *question.size(st, env),
                                                      question.alts(st, env))
            setlib.nth_option(classes, lo, hi, rng.randrange(k))
            return k

        counted = median_time(count_one, repeats) * 1000
        n = count_one()

    def listed() -> list:
        return question.options(st, env, hand, st.chooser)

    t = time.process_time()
    try:
        found, tries = tried(listed)
    except rulesdsl.RulesRuntimeError as e:
        stop = (time.process_time() - t) * 1000
        return n, None, None, counted, str(e).split(" of these")[0].replace("runtime error: ", "") + \
            f": stops after {stop:.0f} ms"
    return len(found), tries, median_time(listed, repeats) * 1000, counted, ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--hands", type=int, default=5)
    args = ap.parse_args(argv)
    base = load("size 1")  # (the deals: every case's game has the same cards, dealt alike)
    states = [base.new_game(seed, log=False) for seed in range(args.hands)]
    print("| condition | options (mean) | sets tried (mean) | listed, ms (median) | counted + one built, ms |")
    print("|---|---:|---:|---:|---:|")
    for name, clause in CASES:
        g = load(clause)
        env = [None] * g.actions[0].nlocals
        rows = [one_hand(g.actions[0].lead.sets, env, st, st.zones[base.zone_index("hand", st.chooser)],
                         args.repeats) for st in states]
        cols = [[r[k] for r in rows if r[k] is not None] for k in range(4)]
        stopped = next((r[4] for r in rows if r[4]), "")
        mean = (lambda xs: f"{statistics.mean(xs):,.0f}" if xs else "—")
        med = (lambda xs: f"{statistics.median(xs):.2f}" if xs else "—")
        note = f" ({stopped})" if stopped else ""
        print(f"| {name}{note} | {mean(cols[0])} | {mean(cols[1])} | {med(cols[2])} | {med(cols[3])} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
