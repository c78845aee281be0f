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
uniformly random pick among its options, drawn as the engine's playout draws it (bench/picks.py:
what `random.Random(seed).randrange` would give, without its two Python calls).

Written for speed, as one would write a simulator of one game: a card is an int 0-51 (rank =
card % 13, A = 0 .. K = 12; suit = card // 13, in the order spades, hearts, diamonds, clubs), a
square is a list of places holding a card or EMPTY (an empty place stays, M7), piles are lists.
Each seat also keeps the list of its square's non-empty places, in order: those are the options
of most decisions (a snap window asks every seat), so they are kept up to date where a place
empties or is added (rare) rather than listed again at each decision. Who knows each card is a
bitmask of seats, kept as the rules say (M3, the looks of M5c, the reveal of a wrong snap, a
reshuffle that hides the pile), although random play reads none of it. The whole game is one
function with its state in local variables (no closure: a variable a closure shares is slower to
read); only the rare steps (a reshuffle, finding a power's target) are calls.
"""

from __future__ import annotations

from picks import AND_ONE, chance, picker

SQUARE_SIZE = 4  # M2
PEEK_COUNT = 2  # M3: places 1 and 2, the row nearest the player
WINNING_TOTAL = 5  # M10
RANK_7, RANK_8, RANK_9, RANK_10, RANK_J, RANK_Q, RANK_K = 6, 7, 8, 9, 10, 11, 12
EMPTY = 52  # an empty place of a square (M7): a card of no rank that scores 0
RANK = tuple(c % 13 for c in range(52)) + (-1,)
# M9: A = 1, 2-10 their number, J and Q = 10, black K (spades, clubs) = 15, red K = 0.
POINTS = tuple(
    (15 if suit in (0, 3) else 0) if rank == RANK_K else min(rank + 1, 10)
    for suit in range(4) for rank in range(13)
) + (0,)
BLACK_KING = tuple(c % 13 == RANK_K and c // 13 in (0, 3) for c in range(52))
# SEATS[n][0][me]: the seats in the order a snap window asks them after me's turn, from the next
# one, ending with me; SEATS[n][1][me]: the same without me (the opponents, for the powers).
SEATS = {n: ([[(me + k) % n for k in range(1, n + 1)] for me in range(n)],
             [[(me + k) % n for k in range(1, n)] for me in range(n)]) for n in range(2, 7)}


def refill(deck: list[int], discard: list[int], known: list[int], shuffle) -> None:
    """M11: the (empty) draw pile takes the discard pile but its top card, shuffled: nobody knows
    those cards any more. The caller has checked that the discard pile holds two cards or more."""
    top = discard.pop()
    deck.extend(discard)
    discard.clear()
    discard.append(top)
    shuffle(deck)
    for c in deck:
        known[c] = 0


def target(j: int, seats: list[int], places: list[list[int]]) -> tuple[int, int]:
    """(seat, place) of the j-th place a power may reach, counting the places of `seats` in order."""
    for p in seats:
        m = len(places[p])
        if j < m:
            return p, places[p][j]
        j -= m
    raise IndexError(j)


def simulate_game(seed: int, players: int = 4, rng=None) -> tuple[int, int, list[int], list[int], int]:
    """One game of random play: (moves, turns, winners, scores, caller). `rng`, if given, stands in
    for `random.Random(seed)` (bench/picks.py; bench/validate.py counts or replays the decisions)."""
    n = players
    everyone = (1 << n) - 1
    known = [0] * 52  # who knows each card: a bitmask of seats
    bits, widths, shuffle = chance(seed, rng, known)
    pick = picker(bits, widths)  # the rare decisions (powers, the first player); the others draw inline
    and_one = AND_ONE if rng is None else widths[1:]  # widths for m options and one more (`pass`, `play`)

    deck = list(range(52))  # M1
    shuffle(deck)
    # M2: dealt one at a time from the top (the end of the list), round the table, 4 times.
    top = len(deck) - 1
    squares = [deck[top - p:top - n * SQUARE_SIZE:-n] for p in range(n)]
    del deck[-n * SQUARE_SIZE:]
    discard = [deck.pop()]
    known[discard[0]] = everyone
    for p in range(n):  # M3: the near row, in secret
        for c in squares[p][:PEEK_COUNT]:
            known[c] |= 1 << p
    places = [list(range(SQUARE_SIZE)) for _ in range(n)]  # each square's non-empty places
    window, opponents = SEATS[n]
    rank_of = RANK

    caller = -1
    moves = turns = 0
    me = pick(n)  # M4: the first player
    while True:
        turns += 1
        square = squares[me]
        mine = places[me]
        own = len(mine)
        takes = own if discard else 0  # M5a: `take N`
        can_draw = len(deck) + len(discard) > 1  # M11
        k = takes + can_draw + (caller < 0)
        discarded = k > 0  # every turn but a call puts a card on the discard pile
        if k:
            moves += 1
            w = widths[k]
            i = bits(w)
            while i >= k:
                i = bits(w)
            if i < takes:  # M5a: the discard's top for one of yours, which goes face up on the pile
                place = mine[i]
                old = square[place]
                square[place] = discard[-1]
                discard[-1] = old
                known[old] = everyone
            elif can_draw and i == takes:  # M5b, M5c
                if not deck:
                    refill(deck, discard, known, shuffle)
                card = deck.pop()
                known[card] |= 1 << me  # seen only by the drawer
                moves += 1  # `swap N` or `play`
                w = and_one[own]
                j = bits(w)
                while j > own:
                    j = bits(w)
                if j < own:  # M5b: keep it; the card it replaces goes face up on the pile
                    place = mine[j]
                    old = square[place]
                    square[place] = card
                    discard.append(old)
                    known[old] = everyone
                else:  # M5c: play it, and maybe use its power
                    discard.append(card)
                    known[card] = everyone
                    rank = rank_of[card]
                    if rank in (RANK_7, RANK_8):  # look at one of your own cards
                        moves += 1
                        j = pick(own + 1)
                        if j < own:
                            known[square[mine[j]]] |= 1 << me
                    elif rank >= RANK_9 and (rank <= RANK_Q or BLACK_KING[card]):
                        # The places an opponent's power reaches: the opponents' but a caller's (M6).
                        seats = opponents[me] if caller < 0 else [p for p in opponents[me] if p != caller]
                        reach = 0
                        for p in seats:
                            reach += len(places[p])
                        moves += 1
                        if rank != RANK_J and rank != RANK_Q:  # 9, 10, black K: `look P N` or `skip`
                            j = pick(reach + 1)
                            if j < reach:
                                p, place = target(j, seats, places)
                                known[squares[p][place]] |= 1 << me
                                if rank == RANK_K:  # then `swap N` or `keep`
                                    moves += 1
                                    j = pick(own + 1)
                                    if j < own:
                                        s, mp = squares[p], mine[j]
                                        square[mp], s[place] = s[place], square[mp]
                        else:  # J, Q: `give N` (if an opponent has a card) or `skip`, then `take P N`
                            give = own if reach else 0
                            j = pick(give + 1)
                            if j < give:
                                moves += 1
                                p, place = target(pick(reach), seats, places)
                                s, mp = squares[p], mine[j]
                                square[mp], s[place] = s[place], square[mp]
            else:  # M6: call "Tamalo", the whole turn
                caller = me
                discarded = False
        if discarded:  # M7a: the snap window
            rank = rank_of[discard[-1]]
            claimant = -1
            for p in window[me]:  # from the next player, ending with this turn's: `snap N` or `pass`
                hers = places[p]
                m = len(hers)
                w = and_one[m]
                j = bits(w)
                while j > m:
                    j = bits(w)
                if j < m:
                    sq = squares[p]
                    place = hers[j]
                    card = sq[place]
                    known[card] = everyone  # right or wrong, the card is shown
                    if rank_of[card] == rank:  # M7: the first correct snap claims the window
                        sq[place] = EMPTY
                        del hers[j]
                        discard.append(card)
                        claimant = p
                        break
                    if deck or len(discard) > 1:  # M8: back in place, and a penalty card (M11)
                        if not deck:
                            refill(deck, discard, known, shuffle)
                        hers.append(len(sq))
                        sq.append(deck.pop())
            moves += n if claimant < 0 else (claimant - me - 1) % n + 1  # the seats that were asked
            if claimant >= 0:  # the claimant goes on alone, one card at a time
                sq = squares[claimant]
                hers = places[claimant]
                while hers:
                    m = len(hers)
                    moves += 1
                    w = and_one[m]
                    j = bits(w)
                    while j > m:
                        j = bits(w)
                    if j == m:
                        break
                    place = hers[j]
                    card = sq[place]
                    known[card] = everyone
                    if rank_of[card] == rank:
                        sq[place] = EMPTY
                        del hers[j]
                        discard.append(card)
                    else:
                        if deck or len(discard) > 1:
                            if not deck:
                                refill(deck, discard, known, shuffle)
                            hers.append(len(sq))
                            sq.append(deck.pop())
                        break
        me += 1
        if me == n:
            me = 0
        if caller == me:  # M6: everyone else has had one more turn
            break
    # M9, M10
    scores = [sum(map(POINTS.__getitem__, s)) for s in squares]
    low = min([s for p, s in enumerate(scores) if p != caller])
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
