"""Tempurra by hand on the engine's data model: how fast compiled rules could be without a new one.

    python bench/model_tempurra.py [--games N] [--repeats R]

The engine keeps every card as an identity, with the zone it is in and who knows it, and lists a
`choose card` decision as one option per face (the card the most seats already know standing for
its face). bench/baseline_tempurra.py keeps a hand as counts per number (and of those, how many everyone knows).
This file plays the baseline's very games (the same random draws in the same order, the same
options in the same order: a test checks that every result is equal) with the engine's model,
written as a good engineer would write it by hand, in plain structured Python: no machine, no
frames, no generated blocks. Its speed against the baseline is the ratio that compiling the rules
better, and nothing else, could reach at best (see bench/RESULTS.md).

What it does that the baseline does not, as the engine must: a card's zone (`loc`) and who knows
it (`known`, one bit per seat) kept up to date on every move, a shuffle that makes its pile
unknown to all, a hand's cards walked one by one to list the turn's options (counts and the best
known card of each face), a card found in a hand to be moved, the plate's current number and sum
read from the plate when they are needed.

It also runs a second time with one change to the data model (`counted=True`): each hand keeps,
beside its cards, how many it holds of each face, updated when a card comes or goes. The turn's
options are then read from the counts, face by face, and the card that stands for a face is
looked for in the hand only once that option is picked. The options are the same, in the same
order (faces in the order the cards are declared, as the baseline and this model list them; the
engine lists them in the order of the hand). The difference between the two speeds is what that
data-model change could give (see bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import baseline_tempurra as base

PLUS, REVERSE, CHOOSE, INDIGESTION = base.PLUS, base.REVERSE, base.CHOOSE, base.INDIGESTION
DISHES, ACTIONS = base.DISHES, base.ACTIONS
# The cards, by identity: the baseline's deck in its order (so one shuffle puts the same faces in
# the same places), then the indigestion cards kept apart.
FACE = tuple(base.DECK) + (INDIGESTION,) * base.INDIGESTION_CARDS
NCARDS = len(FACE)
IS_DISH = tuple(f in DISHES for f in FACE)
VALUE = tuple(f if f in DISHES else 1 if f == PLUS else 0 for f in FACE)  # what a card adds to a plate
DRAW, PLATE, DISCARD, SICK, BOX, HAND = range(6)  # zones; HAND + p is seat p's hand
EAT, SERVE, PLAY, SKIP = range(4)  # the turn's options: (EAT, None), (SERVE, card), (PLAY, card), (SKIP, number)


def simulate_game(seed: int, players: int = 4, rng: random.Random | None = None,
                  counted: bool = False) -> tuple[int, int, int, list[int], list[int]]:
    """One game of random play, as baseline_tempurra.simulate_game: (moves, turns, rounds, winners,
    tokens per seat). `counted`: each hand also keeps how many cards of each face it holds, and
    the options are read from those counts (a face's card is looked for only once it is picked)."""
    n = players
    if rng is None:
        rng = random.Random(seed)
    pick = rng.randrange
    shuffle = rng.shuffle
    everyone = (1 << n) - 1
    loc = [DRAW] * NCARDS
    known = [0] * NCARDS  # who knows each card: a bit per seat

    draw = list(range(len(base.DECK)))
    box = list(range(len(base.DECK), NCARDS))
    for c in box:
        loc[c] = BOX
    shuffle(draw)
    hands: list[list[int]] = [[] for _ in range(n)]
    held = [[0] * (INDIGESTION + 1) for _ in range(n)]  # with `counted`: per hand, cards per face
    for _ in range(base.HAND_SIZE):
        for p in range(n):
            c = draw.pop()
            hands[p].append(c)
            if counted:
                held[p][FACE[c]] += 1
            loc[c] = HAND + p
            known[c] |= 1 << p
    c = box.pop()
    draw.append(c)
    loc[c] = DRAW

    def reshuffle(pile: list[int]) -> None:
        """Shuffle the draw pile: it lies there, and nobody knows a card of it any more."""
        shuffle(pile)
        for c in pile:
            loc[c] = DRAW
            known[c] = 0

    reshuffle(draw)
    sick: list[int] = []
    discard: list[int] = []
    plate: list[int] = []
    tokens = [0] * n
    starter = pick(n)
    loser = -1
    moves = turns = rounds = 0
    direction = 1

    def eat_cards(eater: int, amount: int) -> bool:
        """Draw `amount` cards (the discard pile refills the draw pile), reveal them, keep all but
        indigestion; True if indigestion came up."""
        nonlocal draw, discard, loser
        got = []
        for _ in range(amount):
            if not draw:
                if not discard:
                    break
                draw, discard = discard, []
                reshuffle(draw)
            got.append(draw.pop())
        hand = hands[eater]
        where = HAND + eater
        sick_now = False
        for c in got:
            known[c] = everyone
            if FACE[c] == INDIGESTION:
                sick.append(c)
                loc[c] = SICK
                sick_now = True
            else:
                hand.append(c)
                if counted:
                    held[eater][FACE[c]] += 1
                loc[c] = where
        if sick_now:
            tokens[eater] += 1
            loser = eater
        return sick_now

    def face_card(hand: list[int], f: int) -> int:
        """The card of face `f` that stands for it: the first, unless a later one more seats know."""
        best = -1
        for c in hand:
            if FACE[c] == f:
                if best < 0:
                    best = c
                else:
                    k, b = known[c], known[best]
                    if k != b and k.bit_count() > b.bit_count():
                        best = c
        return best

    def to_plate(hand: list[int], c: int) -> None:
        hand.remove(c)
        if counted:
            held[loc[c] - HAND][FACE[c]] -= 1
        plate.append(c)
        loc[c] = PLATE
        known[c] = everyone

    def plate_to_discard() -> None:
        for c in plate:
            loc[c] = DISCARD
        discard.extend(plate)
        plate.clear()

    def begin_plate(duty: int) -> int:
        """The first seat from `duty` on with a dish begins a plate: the seat, or -1 if the round
        ended while nobody held one."""
        nonlocal moves
        while True:
            for k in range(n):
                holder = (duty + direction * k) % n
                if any(held[holder][d] for d in DISHES) if counted else \
                        any(map(IS_DISH.__getitem__, hands[holder])):
                    break
            else:
                if eat_cards(duty, base.EMPTY_HAND_DRAW):
                    return -1
                continue
            break
        hand = hands[holder]
        if counted:
            faces = [d for d in DISHES if held[holder][d]]
            moves += 1
            to_plate(hand, face_card(hand, faces[pick(len(faces))]))
            return holder
        best: dict[int, int] = {}  # a face's card that the most seats know
        for c in hand:
            if IS_DISH[c]:
                f = FACE[c]
                if f not in best:
                    best[f] = c
                else:
                    k, b = known[c], known[best[f]]
                    if k != b and k.bit_count() > b.bit_count():
                        best[f] = c
        options = [best[d] for d in DISHES if d in best]
        moves += 1
        to_plate(hand, options[pick(len(options))])
        return holder

    while True:  # a round
        rounds += 1
        if rounds > 1:
            for c in discard:
                loc[c] = DRAW
            for c in sick:
                loc[c] = DRAW
            draw.extend(discard)
            draw.extend(sick)
            discard = []
            sick.clear()
            if box:
                moves += 1
                if pick(2) == 0:
                    c = box.pop()
                    draw.append(c)
                    loc[c] = DRAW
            reshuffle(draw)
            direction = 1
            starter = loser
        last = begin_plate(starter)
        chosen = -1
        while last >= 0:  # a turn
            turns += 1
            me = chosen if chosen >= 0 else (last + direction) % n
            chosen = -1
            last = me
            hand = hands[me]
            if not hand and eat_cards(me, base.EMPTY_HAND_DRAW):
                break
            number = 0  # the plate's current number: its top dish
            for c in reversed(plate):
                if IS_DISH[c]:
                    number = FACE[c]
                    break
            if counted:  # the options from the hand's counts, in the same order
                counts = held[me]
                options = [(EAT, None)]
                if counts[number]:
                    options.append((SERVE, number))
                for a in ACTIONS:
                    if counts[a]:
                        options.append((PLAY, a))
                for d in DISHES:
                    if counts[d] >= 2:
                        options.append((SKIP, d))
                moves += 1
                kind, v = options[pick(len(options))]
                if kind in (SERVE, PLAY):
                    counts[v] -= 1
                    v = face_card(hand, v)
            else:
                best = {}
                count: dict[int, int] = {}
                for c in hand:
                    f = FACE[c]
                    if f in count:
                        count[f] += 1
                        k, b = known[c], known[best[f]]
                        if k != b and k.bit_count() > b.bit_count():
                            best[f] = c
                    else:
                        count[f] = 1
                        best[f] = c
                options: list[tuple[int, int | None]] = [(EAT, None)]
                if number in best:
                    options.append((SERVE, best[number]))
                for a in ACTIONS:
                    if a in best:
                        options.append((PLAY, best[a]))
                for d in DISHES:
                    if count.get(d, 0) >= 2:
                        options.append((SKIP, d))
                moves += 1
                kind, v = options[pick(len(options))]
            if kind == EAT:
                if eat_cards(me, sum(map(VALUE.__getitem__, plate))):
                    break
                plate_to_discard()
                last = begin_plate(me)
            elif kind != SKIP:  # serve or play a card (`to_plate` written out: the common move)
                hand.remove(v)
                plate.append(v)
                loc[v] = PLATE
                known[v] = everyone
                if FACE[v] == REVERSE:
                    direction = -direction
                elif FACE[v] == CHOOSE:
                    moves += 1
                    chosen = (me + direction * (1 + pick(n - 1))) % n
            else:  # two dishes of one number: one ends the plate, the other begins one
                for second in (False, True):
                    for c in hand:
                        if FACE[c] == v:
                            break
                    to_plate(hand, c)
                    if not second:
                        plate_to_discard()
        plate_to_discard()
        if tokens[loser] >= base.TOKENS_TO_LOSE:
            break
    best_of = min((tokens[p], -len(hands[p])) for p in range(n))
    winners = [p for p in range(n) if (tokens[p], -len(hands[p])) == best_of]
    return moves, turns, rounds, winners, tokens


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300, help="games per repeat (the seeds of bench/run.py)")
    ap.add_argument("--repeats", type=int, default=7, help="repeats, taken in turn; the best of each side counts")
    args = ap.parse_args(argv)
    if args.games < 1 or args.repeats < 1:
        ap.error("--games and --repeats must be at least 1")
    seeds = range(args.games)
    sides = {"model": simulate_game, "counted": lambda seed, players: simulate_game(seed, players, counted=True),
             "baseline": base.simulate_game}
    best = dict.fromkeys(sides, float("inf"))
    moves = {}
    for _ in range(args.repeats):
        for name, play in sides.items():
            t = time.process_time()
            moves[name] = sum(play(s, 4)[0] for s in seeds)
            best[name] = min(best[name], time.process_time() - t)
    for name in ("model", "counted"):
        if moves[name] != moves["baseline"]:
            raise SystemExit(f"the {name} model played {moves[name]} moves, the baseline {moves['baseline']}: "
                             "not the same games")
    speed = {name: moves[name] / best[name] for name in best}
    print(f"Tempurra, 4 players, {args.games} games, best of {args.repeats} (CPU time):")
    print(f"  the engine's data model by hand:          {speed['model']:,.0f} moves/s, "
          f"ratio {speed['model'] / speed['baseline']:.2f}")
    print(f"  the same with cards counted by face:      {speed['counted']:,.0f} moves/s, "
          f"ratio {speed['counted'] / speed['baseline']:.2f}")
    print(f"  the baseline:                             {speed['baseline']:,.0f} moves/s")

if __name__ == "__main__":
    main()
