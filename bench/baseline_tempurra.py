"""Tempurra by hand: a plain-Python random-play simulator, the baseline for the engine's speed.

The same rules as `games/tempurra.rules` (T1-T16 of /work/shared/RULINGS.md) and the same
decisions, each with the same options, one per distinct outcome, as the engine asks them:

- `begin N` (T6): the player who begins a plate picks one of the distinct dish numbers in hand;
- the turn (T7-T10): `eat`, `serve N` (the current number, if held), `play +1` / `play reverse`
  / `play choose` (one per kind held), `skip N` (one per number held twice or more);
- `choose P` (T9c): any other player;
- `add indigestion yes/no` (T14): while fewer than 6 indigestion cards are in the deck.

Every decision counts as one move, a decision with a single option included, and each is a
uniformly random pick among its options (`random.Random(seed)`).

Written for speed: a card is an int (a dish is its number 2-7; the other kinds are 8-11), a hand
is a list of counts per card (identical cards are interchangeable, so a count is all a hand
needs), piles are lists of ints. Hands and the reveals of eaten cards are the only private or
shown information in Tempurra and no decision depends on who saw what, so nothing tracks it.
"""

from __future__ import annotations

import random

PLUS, REVERSE, CHOOSE, INDIGESTION = 8, 9, 10, 11
DISHES = (2, 3, 4, 5, 6, 7)
ACTIONS = (PLUS, REVERSE, CHOOSE)
# T1, T2: 14 twos, 14 threes, 12 fours, 12 fives, 10 sixes, 10 sevens; 7 "+1", 5 reverse, 5 choose.
DECK = [2] * 14 + [3] * 14 + [4] * 12 + [5] * 12 + [6] * 10 + [7] * 10 + [PLUS] * 7 + [REVERSE] * 5 + [CHOOSE] * 5
HAND_SIZE = 5  # T4
EMPTY_HAND_DRAW = 3  # T6, T12
TOKENS_TO_LOSE = 3  # T15
INDIGESTION_CARDS = 6  # T3

# Turn options, coded as ints: EAT, SERVE, a played action card (8-10), SKIP_BASE + number.
EAT, SERVE, SKIP_BASE = 0, 1, 20


def simulate_game(seed: int, players: int = 4,
                  rng: random.Random | None = None) -> tuple[int, int, int, list[int], list[int]]:
    """One game of random play: (moves, turns, rounds, winners, tokens per seat). `rng`, if
    given, replaces `random.Random(seed)` (bench/validate.py records its `randrange` calls)."""
    n = players
    if rng is None:
        rng = random.Random(seed)
    pick = rng.randrange  # every decision, and the first player (T5)
    shuffle = rng.shuffle

    # T4: shuffle dish and action cards, deal 5 each, then shuffle one indigestion card in.
    draw = DECK[:]
    shuffle(draw)
    hands = [[0] * 12 for _ in range(n)]  # hands[p][card] = how many p holds
    size = [0] * n  # cards in each hand
    for _ in range(HAND_SIZE):
        for p in range(n):
            hands[p][draw.pop()] += 1
            size[p] += 1
    draw.append(INDIGESTION)
    shuffle(draw)
    box = INDIGESTION_CARDS - 1  # T3: kept apart
    sick = 0  # indigestion cards revealed this round
    discard: list[int] = []
    plate: list[int] = []
    tokens = [0] * n
    starter = pick(n)  # T5
    loser = -1
    moves = turns = rounds = 0
    direction = 1

    def eat_cards(eater: int, amount: int) -> bool:
        """T8, T12: draw `amount` cards (all of them, then reveal); True if indigestion came up."""
        nonlocal draw, discard, sick, loser
        hand = hands[eater]
        sick_now = False
        for _ in range(amount):
            if not draw:  # T8c: the discard pile becomes the draw pile
                if not discard:
                    break
                draw, discard = discard, []
                shuffle(draw)
            c = draw.pop()
            if c == INDIGESTION:
                sick += 1
                sick_now = True
            else:  # T8b: the rest goes to the eater's hand
                hand[c] += 1
                size[eater] += 1
        if sick_now:  # T8a, T13: one token, however many came up
            tokens[eater] += 1
            loser = eater
        return sick_now

    def begin_plate(duty: int) -> int:
        """T6: the first player from `duty` on who holds a dish begins the plate; returns that
        player, or -1 if the round ended while nobody held one (T12's draw found indigestion)."""
        nonlocal moves, plate_sum, number
        while True:
            for k in range(n):
                holder = (duty + direction * k) % n
                hand = hands[holder]
                if size[holder] > hand[PLUS] + hand[REVERSE] + hand[CHOOSE]:
                    break
            else:
                if eat_cards(duty, EMPTY_HAND_DRAW):
                    return -1
                continue
            break
        options = [d for d in DISHES if hand[d]]  # `begin N`: one option per number held
        moves += 1
        d = options[pick(len(options))]
        hand[d] -= 1
        size[holder] -= 1
        plate.append(d)
        plate_sum = number = d
        return holder

    plate_sum = number = 0  # T8: the plate's sum; T7: its current number
    while True:  # a round
        rounds += 1
        if rounds > 1:  # T14
            draw.extend(discard)
            draw.extend([INDIGESTION] * sick)
            discard = []
            sick = 0
            if box:  # `add indigestion yes/no`, offered while some are kept apart
                moves += 1
                if pick(2) == 0:
                    box -= 1
                    draw.append(INDIGESTION)
            shuffle(draw)
            direction = 1
            starter = loser
        last = begin_plate(starter)  # T5, T6, T14: play goes on from whoever began the plate
        chosen = -1  # T9c: the player named by a "choose" card
        while last >= 0:  # a turn
            turns += 1
            me = chosen if chosen >= 0 else (last + direction) % n  # T11
            chosen = -1
            last = me
            hand = hands[me]
            if not size[me] and eat_cards(me, EMPTY_HAND_DRAW):  # T12
                break
            options = [EAT]
            if hand[number]:
                options.append(SERVE)
            for a in ACTIONS:
                if hand[a]:
                    options.append(a)
            for d in DISHES:
                if hand[d] >= 2:
                    options.append(SKIP_BASE + d)
            moves += 1
            o = options[pick(len(options))]
            if o == EAT:  # T8
                if eat_cards(me, plate_sum):
                    break
                discard.extend(plate)  # T8d
                plate.clear()
                last = begin_plate(me)  # -1 if the round ended
            elif o == SERVE:  # T7
                hand[number] -= 1
                size[me] -= 1
                plate.append(number)
                plate_sum += number
            elif o < SKIP_BASE:  # T9: an action card
                hand[o] -= 1
                size[me] -= 1
                plate.append(o)
                if o == PLUS:  # T9a
                    plate_sum += 1
                elif o == REVERSE:  # T9b
                    direction = -direction
                else:  # T9c: `choose P`, any other player
                    moves += 1
                    chosen = (me + direction * (1 + pick(n - 1))) % n
            else:  # T10: two dishes of one number; one ends the plate, the other begins one
                d = o - SKIP_BASE
                hand[d] -= 2
                size[me] -= 2
                plate.append(d)
                discard.extend(plate)
                plate.clear()
                plate.append(d)
                plate_sum = number = d
        # T13: the round is over; the plate goes to the discard pile, hands are kept.
        discard.extend(plate)
        plate.clear()
        if tokens[loser] >= TOKENS_TO_LOSE:  # T15
            break
    # T15: the fewest tokens wins; then the most cards in hand; a tie on both is shared.
    best = min((tokens[p], -size[p]) for p in range(n))
    winners = [p for p in range(n) if (tokens[p], -size[p]) == best]
    return moves, turns, rounds, winners, tokens


def play_game(seed: int, players: int = 4) -> tuple[int, list[int]]:
    """One game of random play: (moves, winners)."""
    moves, _, _, winners, _ = simulate_game(seed, players)
    return moves, winners


if __name__ == "__main__":
    import timing

    timing.main(play_game, "tempurra")
