"""Tempurra by hand: a plain-Python random-play simulator, the baseline for the engine's speed.

The same rules as `games/tempurra.rules` (T1-T16 of /work/shared/RULINGS.md) and the same
decisions, each with the same options, one per distinct outcome, as the engine asks them:

- `begin N` (T6): the player who begins a plate picks one of the distinct dish numbers in hand;
- the turn (T7-T10): `eat`, `serve N` (the current number, if held), `play +1` / `play reverse`
  / `play choose` (one per kind held), `skip N` (one per number held twice or more);
- `choose P` (T9c): any other player;
- `add indigestion yes/no` (T14): while fewer than 6 indigestion cards are in the deck.

Every decision counts as one move, a decision with a single option included, and each is a
uniformly random pick among its options, drawn as the engine's playout draws it (bench/picks.py:
what `random.Random(seed).randrange` would give, without its two Python calls).

Written for speed, as one would write a simulator of one game: a card is an int (a dish is its
number 2-7; the other kinds are 8-11), a hand is a list of counts per card (identical cards are
interchangeable, so a count is all a hand needs), piles are lists of ints. Who knows each card is
the engine's, kept as counts too: the draw pile is known to nobody (every card that enters it is
shuffled), the plate and the other piles to everyone, a dealt card to its holder alone and an
eaten card to everyone (T8a), also once it is in a hand. So a hand keeps, beside its counts, how
many of each card are dealt ones, known to the holder alone (`dealt`: the others are known to
all; an eat adds none, so it costs nothing), and a card that leaves the hand is the one the engine
moves: for `begin`, `serve` and `play` the card most seats know stands for its number (a dealt one
only if no other is held), for `skip` the first in the hand (the dealt ones came first).

The turn's options come from a table: each hand keeps a bit per option it allows besides `eat`
and `serve` (an action card held, a number held twice), set where a card comes or goes, and the
table gives the options, in the engine's order, for those bits and whether the current number is
held; the pick is then an index into that tuple, with no list built a turn. The game is one
function with its state in local variables (no closure: a variable a closure shares is slower to
read); an eat, which draws several cards, is a call.
"""

from __future__ import annotations

from itertools import compress

from picks import chance, picker

PLUS, REVERSE, CHOOSE, INDIGESTION = 8, 9, 10, 11
DISHES = (2, 3, 4, 5, 6, 7)
DISH_COUNTS = slice(DISHES[0], DISHES[-1] + 1)  # a hand's counts of its dishes, in DISHES' order
ACTIONS = (PLUS, REVERSE, CHOOSE)
# T1, T2: 14 twos, 14 threes, 12 fours, 12 fives, 10 sixes, 10 sevens; 7 "+1", 5 reverse, 5 choose.
DECK = [2] * 14 + [3] * 14 + [4] * 12 + [5] * 12 + [6] * 10 + [7] * 10 + [PLUS] * 7 + [REVERSE] * 5 + [CHOOSE] * 5
HAND_SIZE = 5  # T4
EMPTY_HAND_DRAW = 3  # T6, T12
TOKENS_TO_LOSE = 3  # T15
INDIGESTION_CARDS = 6  # T3

# Turn options, coded as ints: EAT, SERVE, a played action card (8-10), SKIP_BASE + number.
EAT, SERVE, SKIP_BASE = 0, 1, 20
# A hand's option bits: bit 0 is "holds the current number" (`serve`, read at the turn), then one
# bit per card: an action card held (`play`), a dish number held twice (`skip`).
SERVE_BIT = 1
CARDS_WITH_BITS = (*ACTIONS, *DISHES)
BIT = [0] * 12
NEED = [1 << 30] * 12  # how many of a card give its option (indigestion: none)
for _k, _card in enumerate(CARDS_WITH_BITS):
    BIT[_card] = 2 << _k
    NEED[_card] = 1 if _card in ACTIONS else 2
# OPTIONS[bits]: the turn's options in the engine's order, eat, serve, the actions, the skips.
OPTIONS = tuple(
    (EAT, *((SERVE,) if bits & SERVE_BIT else ()), *(a for a in ACTIONS if bits & BIT[a]),
     *(SKIP_BASE + d for d in DISHES if bits & BIT[d]))
    for bits in range(2 << len(CARDS_WITH_BITS))
)


def option_bits(hand: list[int]) -> int:
    """The option bits of a hand (but SERVE_BIT), from its counts."""
    bits = 0
    for card in CARDS_WITH_BITS:
        if hand[card] >= NEED[card]:
            bits |= BIT[card]
    return bits


def eat(p: int, amount: int, hands: list[list[int]], size: list[int], opts: list[int], draw: list[int],
        discard: list[int], shuffle) -> int:
    """T8, T12: seat p draws `amount` cards (all of them, then reveals them), the discard pile
    refilling the draw pile (T8c); all but indigestion go to p's hand, known to everyone (T8a,
    T8b). Returns how many indigestion cards came up."""
    hand = hands[p]
    need, bit = NEED, BIT
    options = opts[p]  # an eat only adds cards: a bit can only be set, by a card it draws
    got = 0
    while amount:
        if not draw:  # T8c: the discard pile becomes the draw pile
            if not discard:
                break
            draw.extend(discard)
            discard.clear()
            shuffle(draw)
        take = amount if amount < len(draw) else len(draw)
        cards = draw[-take:]
        del draw[-take:]
        amount -= take
        got += take
        for c in cards:  # an indigestion card is counted in its own slot, then taken out
            hand[c] += 1
            if hand[c] == need[c]:
                options |= bit[c]
    sick = hand[INDIGESTION]
    if sick:
        hand[INDIGESTION] = 0
    size[p] += got - sick
    opts[p] = options
    return sick


def simulate_game(seed: int, players: int = 4, rng=None) -> tuple[int, int, int, list[int], list[int]]:
    """One game of random play: (moves, turns, rounds, winners, tokens per seat). `rng`, if given,
    stands in for `random.Random(seed)` (bench/picks.py; bench/validate.py counts the decisions)."""
    n = players
    hands = [[0] * 12 for _ in range(n)]  # hands[p][card] = how many p holds
    dealt = [[0] * 12 for _ in range(n)]  # of those, how many are dealt ones, known to p alone
    bits, widths, shuffle = chance(seed, rng, (hands, dealt))
    pick = picker(bits, widths)  # the rare decisions; the turn's draws inline

    # T4: shuffle dish and action cards, deal 5 each, then shuffle one indigestion card in.
    draw = DECK[:]
    shuffle(draw)
    size = [HAND_SIZE] * n  # cards in each hand
    for _ in range(HAND_SIZE):
        for p in range(n):
            hands[p][draw.pop()] += 1
    for p in range(n):
        dealt[p][:] = hands[p]
    opts = [option_bits(hand) for hand in hands]  # each hand's option bits
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
    plate_sum = number = 0  # T8: the plate's sum; T7: its current number
    table = OPTIONS

    while True:  # a round
        rounds += 1
        if rounds > 1:  # T14
            draw.extend(discard)
            draw.extend([INDIGESTION] * sick)
            discard.clear()
            sick = 0
            if box:  # `add indigestion yes/no`, offered while some are kept apart
                moves += 1
                if pick(2) == 0:
                    box -= 1
                    draw.append(INDIGESTION)
            shuffle(draw)
            direction = 1
            starter = loser
        duty = starter  # T5, T6, T14: who must begin a plate (-1 when a plate is begun)
        chosen = -1  # T9c: the player named by a "choose" card
        while True:  # a turn, after a plate is begun if one must be
            if duty >= 0:  # T6: the first player from `duty` on who holds a dish begins the plate
                for k in range(n):
                    holder = (duty + direction * k) % n
                    hand = hands[holder]
                    if size[holder] > hand[PLUS] + hand[REVERSE] + hand[CHOOSE]:
                        break
                else:  # nobody holds one: `duty` draws as in T12, and the duty starts again
                    sick = eat(duty, EMPTY_HAND_DRAW, hands, size, opts, draw, discard, shuffle)
                    if sick:
                        loser = duty
                        break
                    continue
                faces = list(compress(DISHES, hand[DISH_COUNTS]))  # `begin N`: one option per number held
                moves += 1
                d = faces[pick(len(faces))]
                hand[d] -= 1
                if hand[d] < dealt[holder][d]:  # a dealt one leaves only if no shown one was held
                    dealt[holder][d] -= 1
                if hand[d] == 1:
                    opts[holder] &= ~BIT[d]
                size[holder] -= 1
                plate.append(d)
                plate_sum = number = d
                last = holder  # play goes on from whoever began the plate
                duty = -1
            turns += 1
            me = chosen if chosen >= 0 else (last + direction) % n  # T11
            chosen = -1
            last = me
            hand = hands[me]
            if not size[me]:  # T12
                sick = eat(me, EMPTY_HAND_DRAW, hands, size, opts, draw, discard, shuffle)
                if sick:
                    loser = me
                    break
            options = table[opts[me] | SERVE_BIT] if hand[number] else table[opts[me]]
            k = len(options)
            moves += 1
            w = widths[k]
            i = bits(w)
            while i >= k:
                i = bits(w)
            o = options[i]
            if o == EAT:  # T8
                sick = eat(me, plate_sum, hands, size, opts, draw, discard, shuffle)
                if sick:
                    loser = me
                    break
                discard.extend(plate)  # T8d
                plate.clear()
                duty = me
            elif o == SERVE:  # T7
                hand[number] -= 1
                if hand[number] < dealt[me][number]:
                    dealt[me][number] -= 1
                if hand[number] == 1:
                    opts[me] &= ~BIT[number]
                size[me] -= 1
                plate.append(number)
                plate_sum += number
            elif o < SKIP_BASE:  # T9: an action card
                hand[o] -= 1
                if hand[o] < dealt[me][o]:
                    dealt[me][o] -= 1
                if not hand[o]:
                    opts[me] &= ~BIT[o]
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
                mine = dealt[me]  # the first two in the hand: dealt ones first
                mine[d] = mine[d] - 2 if mine[d] > 2 else 0
                if hand[d] < 2:
                    opts[me] &= ~BIT[d]
                size[me] -= 2
                plate.append(d)
                discard.extend(plate)
                plate.clear()
                plate.append(d)
                plate_sum = number = d
        # T13: the round is over; one token, however many indigestion cards came up (T8a); the
        # plate goes to the discard pile, hands are kept.
        tokens[loser] += 1
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
