"""Tamalo by hand: a plain-Python random-play simulator, the baseline for the engine's speed.

The same rules as `games/tamalo.rules` (M1-M12 of /work/shared/RULINGS.md) and the same
decisions, each with the same options, one per distinct outcome, as the engine asks them:

- the turn (M5, M6): `take N` (one per non-empty place, while the discard pile has a card),
  `draw` (while a card can be drawn, M11), `call` (while nobody has called);
- after a draw: `swap N` (one per non-empty place) or `play`;
- the power of a played card (M5c), each with `skip`: 7/8 `look N` (own places); 9/10 `look P N`
  (the places of the opponents other than a caller); J/Q `give N` (own places, if an opponent
  has a card) then `take P N`; black K `look P N`, then `swap N` or `keep`;
- the snap window (M7a) after every turn but a call: `snap N` (one per non-empty place) or `pass`,
  by each player in order from the next one until a snap is right; then the claimant alone, until
  they pass, snap wrong or have no card left.

Every decision counts as one move, a decision with a single option included, and each is a
uniformly random pick among its options (`random.Random(seed)`).

Written for speed: a card is an int 0-51 (rank = card % 13, A = 0 .. K = 12; suit = card // 13,
in the order spades, hearts, diamonds, clubs), a square is a list of places holding a card or
None (an empty place stays, M7), piles are lists. Who knows each card is kept as a bitmask of
seats, as the rules say (M3, the looks of M5c, the reveal of a wrong snap), although random play
reads none of it.
"""

from __future__ import annotations

import random

SQUARE_SIZE = 4  # M2
PEEK_COUNT = 2  # M3: places 1 and 2, the row nearest the player
WINNING_TOTAL = 5  # M10
RANK_7, RANK_8, RANK_9, RANK_10, RANK_J, RANK_Q, RANK_K = 6, 7, 8, 9, 10, 11, 12
# M9: A = 1, 2-10 their number, J and Q = 10, black K (spades, clubs) = 15, red K = 0.
POINTS = tuple(
    (15 if suit in (0, 3) else 0) if rank == RANK_K else min(rank + 1, 10)
    for suit in range(4) for rank in range(13)
)
BLACK_KING = tuple(c % 13 == RANK_K and c // 13 in (0, 3) for c in range(52))


def simulate_game(seed: int, players: int = 4,
                  rng: random.Random | None = None) -> tuple[int, int, list[int], list[int], int]:
    """One game of random play: (moves, turns, winners, scores, caller). `rng`, if given,
    replaces `random.Random(seed)` (bench/validate.py records its `randrange` calls)."""
    n = players
    everyone = (1 << n) - 1
    if rng is None:
        rng = random.Random(seed)
    pick = rng.randrange  # every decision, and the first player (M4)
    shuffle = rng.shuffle

    deck = list(range(52))  # M1
    shuffle(deck)
    known = [0] * 52  # who knows each card: a bitmask of seats
    squares: list[list] = [[] for _ in range(n)]
    for _ in range(SQUARE_SIZE):  # M2
        for p in range(n):
            squares[p].append(deck.pop())
    discard = [deck.pop()]
    known[discard[0]] = everyone
    for p in range(n):  # M3: the near row, in secret
        for c in squares[p][:PEEK_COUNT]:
            known[c] |= 1 << p

    def draw_card() -> int:
        """The top card of the draw pile, refilled by the discard pile but its top card (M11);
        -1 if there is no card to draw."""
        nonlocal deck, discard
        if not deck:
            if len(discard) < 2:
                return -1
            deck = discard[:-1]
            discard = discard[-1:]
            shuffle(deck)
            for c in deck:
                known[c] = 0
        return deck.pop()

    def opponents_places(me: int, caller: int) -> list[tuple[list, int]]:
        """The places a power may reach: the opponents' non-empty places, but a caller's (M6)."""
        out = []
        for k in range(1, n):
            p = (me + k) % n
            if p != caller:
                s = squares[p]
                for i, c in enumerate(s):
                    if c is not None:
                        out.append((s, i))
        return out

    caller = -1
    moves = turns = 0
    me = pick(n)  # M4
    while True:
        turns += 1
        bit = 1 << me
        square = squares[me]
        places = [i for i, c in enumerate(square) if c is not None]
        own = len(places)
        takes = own if discard else 0  # M5a: `take N`
        can_draw = len(deck) + len(discard) > 1  # M11
        k = takes + can_draw + (caller < 0)
        discarded = k > 0  # every turn but a call puts a card on the discard pile
        if k:
            moves += 1
            i = pick(k)
            if i < takes:  # M5a: the discard's top for one of yours, which goes face up on the pile
                place = places[i]
                old = square[place]
                square[place] = discard[-1]
                discard[-1] = old
                known[old] = everyone
            elif can_draw and i == takes:  # M5b, M5c
                card = draw_card()
                known[card] |= bit  # seen only by the drawer
                moves += 1  # `swap N` or `play`
                j = pick(own + 1)
                if j < own:  # M5b: keep it; the card it replaces goes face up on the pile
                    place = places[j]
                    old = square[place]
                    square[place] = card
                    discard.append(old)
                    known[old] = everyone
                else:  # M5c: play it, and maybe use its power
                    discard.append(card)
                    known[card] = everyone
                    rank = card % 13
                    if rank in (RANK_7, RANK_8):  # look at one of your own cards
                        moves += 1
                        j = pick(own + 1)
                        if j < own:
                            known[square[places[j]]] |= bit
                    elif RANK_9 <= rank <= RANK_Q:
                        # 9, 10: look at an opponent's card; J, Q: exchange blind.
                        targets = opponents_places(me, caller)
                        moves += 1
                        if rank <= RANK_10:  # `look P N` or `skip`
                            j = pick(len(targets) + 1)
                            if j < len(targets):
                                s, i = targets[j]
                                known[s[i]] |= bit
                        else:  # `give N` (if an opponent has a card) or `skip`
                            mine = own if targets else 0
                            j = pick(mine + 1)
                            if j < mine:
                                moves += 1  # `take P N`
                                s, i = targets[pick(len(targets))]
                                place = places[j]
                                square[place], s[i] = s[i], square[place]
                    elif BLACK_KING[card]:  # look at an opponent's card, then maybe exchange it
                        targets = opponents_places(me, caller)
                        moves += 1  # `look P N` or `skip`
                        j = pick(len(targets) + 1)
                        if j < len(targets):
                            s, i = targets[j]
                            known[s[i]] |= bit
                            moves += 1  # `swap N` or `keep`
                            j = pick(own + 1)
                            if j < own:
                                place = places[j]
                                square[place], s[i] = s[i], square[place]
            else:  # M6: call "Tamalo", the whole turn
                caller = me
                discarded = False
        if discarded:  # M7a: the snap window
            rank = discard[-1] % 13
            claimant = -1
            for k in range(1, n + 1):  # from the next player, ending with this turn's
                p = (me + k) % n
                square = squares[p]
                places = [i for i, c in enumerate(square) if c is not None]
                moves += 1  # `snap N` or `pass`
                j = pick(len(places) + 1)
                if j < len(places):
                    place = places[j]
                    card = square[place]
                    if card % 13 == rank:  # M7: the first correct snap claims the window
                        square[place] = None
                        discard.append(card)
                        known[card] = everyone
                        claimant = p
                        break
                    known[card] = everyone  # M8: shown, back in place, and a penalty card
                    penalty = draw_card()
                    if penalty >= 0:
                        square.append(penalty)
            if claimant >= 0:  # the claimant goes on alone, one card at a time
                square = squares[claimant]
                while True:
                    places = [i for i, c in enumerate(square) if c is not None]
                    if not places:
                        break
                    moves += 1
                    j = pick(len(places) + 1)
                    if j == len(places):
                        break
                    place = places[j]
                    card = square[place]
                    if card % 13 == rank:
                        square[place] = None
                        discard.append(card)
                        known[card] = everyone
                    else:
                        known[card] = everyone
                        penalty = draw_card()
                        if penalty >= 0:
                            square.append(penalty)
                        break
        me = (me + 1) % n
        if caller == me:  # M6: everyone else has had one more turn
            break
    # M9, M10
    scores = [sum(POINTS[c] for c in s if c is not None) for s in squares]
    low = min(scores[p] for p in range(n) if p != caller)
    if scores[caller] <= WINNING_TOTAL and scores[caller] < low:
        winners = [caller]
    else:
        winners = [p for p in range(n) if p != caller and scores[p] == low]
    return moves, turns, winners, scores, caller


def play_game(seed: int, players: int = 4) -> tuple[int, list[int]]:
    """One game of random play: (moves, winners)."""
    moves, _, winners, _, _ = simulate_game(seed, players)
    return moves, winners


if __name__ == "__main__":
    import timing

    timing.main(play_game, "tamalo")
