"""Tamalo, rule by rule: every test names the rule (M1..M12 of seeds/tamalo.md) it checks.

Most tests set up a table on a stacked deck and look at what the engine does: the legal moves,
the squares, the discard pile, who decides, what each seat knows (`st.known[c]`, a bitmask of
seats, and `st.view(seat)`), the scores and the winners. The usual table is four players (alice,
bob, carol, dave) on seed 3; `table()` makes it someone's turn, rewrites the squares, the discard
pile and the top of the draw pile, and checks that the 52 cards are all there, once.

Note that `set_cards` forgets what the players looked at in setup (M3) for the cards it places:
a stacked square is unknown to everyone unless a test says otherwise with `know()`.
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter

import pytest

import rulesdsl
from tests.conftest import GAMES

ALICE, BOB, CAROL, DAVE = range(4)
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("♠", "♥", "♦", "♣")
DECK = Counter(r + s for r in RANKS for s in SUITS)
POINTS = {"A": 1, **{str(n): n for n in range(2, 11)}, "J": 10, "Q": 10}
TURN_MOVES = ["take 1", "take 2", "take 3", "take 4", "draw", "call"]
SNAPS = ["snap 1", "snap 2", "snap 3", "snap 4", "pass"]

# A quiet table: no two cards of a rank in one square, and no power on the discard pile.
QUIET = {
    ALICE: ["2♠", "3♠", "4♠", "6♠"],
    BOB: ["2♥", "3♥", "4♥", "6♥"],
    CAROL: ["2♦", "3♦", "4♦", "6♦"],
    DAVE: ["2♣", "3♣", "4♣", "6♣"],
}

# The same with high cards, leaving the low ones in the draw pile.
HIGH = {
    ALICE: ["7♠", "8♠", "9♠", "10♠"],
    BOB: ["7♥", "8♥", "9♥", "10♥"],
    CAROL: ["J♠", "Q♠", "J♥", "Q♥"],
    DAVE: ["7♦", "8♦", "9♦", "10♦"],
}


# ---------------------------------------------------------------- helpers

@functools.cache
def game_for(players: int = 4, **params) -> rulesdsl.Game:
    return rulesdsl.load(GAMES / "tamalo.rules", players=players, **params)


def all_faces(st: rulesdsl.State) -> Counter:
    faces = Counter(st.zone("deck")) + Counter(st.zone("discard"))
    for p in range(st.game.players):
        faces.update(f for f in st.zone("square", player=p) if f is not None)
        faces.update(st.zone("drawn", player=p))
    return faces


def assert_conserved(st: rulesdsl.State) -> None:
    """Every card is somewhere, once: the 52 cards of M1."""
    faces = all_faces(st)
    assert faces == DECK, f"cards lost or made: {faces - DECK} extra, {DECK - faces} missing"
    seen = [c for zi in range(st.game.nzones) for c in st.zones[zi] if c is not None]
    assert sorted(seen) == list(range(st.game.ncards))


def stack_deck(st: rulesdsl.State, top: list[str]) -> None:
    """Put these faces on top of the draw pile (the last one on the very top), by rearranging the
    pile only. The faces must be in the draw pile."""
    rest = st.zone("deck")
    for f in top:
        assert f in rest, f"no '{f}' in the draw pile to stack"
        rest.remove(f)
    st.set_cards("deck", rest + list(top))
    if top:
        assert st.zone("deck")[-len(top):] == list(top)


def table(turn: int = ALICE, *, players: int = 4, seed: int = 3, squares=None, discard=None,
          deck_top=None, **params):
    """A game at the start of `turn`'s turn, with these squares, discard pile and draw-pile top."""
    game = game_for(players, **params)
    st = game.new_game(seed=seed)
    if st.turn_player != turn:
        st.set_turn(turn)
    for p, faces in (squares or {}).items():
        st.set_cards("square", faces, player=p)
    if discard is not None:
        st.set_cards("discard", discard)
    if deck_top is not None:
        stack_deck(st, deck_top)
    for p, faces in (squares or {}).items():
        assert st.zone("square", player=p) == list(faces)
    if discard is not None:
        assert st.zone("discard") == list(discard)
    assert_conserved(st)
    assert st.current_player == turn and st.turn_player == turn
    return game, st


def square(st: rulesdsl.State, p: int) -> list[int | None]:
    return list(st.zones[st.game.zone_index("square", p)])


def card_at(st: rulesdsl.State, p: int, place: int) -> int:
    c = square(st, p)[place - 1]
    assert c is not None
    return c


def know(st: rulesdsl.State, seat: int, p: int, *places: int) -> None:
    """Let `seat` know the cards at these places of p's square."""
    for k in places:
        st.known[card_at(st, p, k)] |= 1 << seat


def empty_places(st: rulesdsl.State, p: int, *places: int) -> None:
    """Make these places of p's square empty, as a snap would (M7), the cards going to the bottom
    of the draw pile (unknown again)."""
    g = st.game
    sq, deck = g.zone_index("square", p), g.zone_index("deck")
    for k in places:
        c = st.zones[sq][k - 1]
        st.zones[sq][k - 1] = None
        st.zones[deck].insert(0, c)
        st.loc[c] = deck
        st.known[c] = 0
    g.refresh_pending(st)
    assert_conserved(st)


def seen_square(st: rulesdsl.State, viewer: int, p: int) -> list[str]:
    """p's square as `viewer`'s view shows it: a face, '?' or '_' (an empty place) by place."""
    name = st.game.names[p]
    for line in st.view(viewer, events=0).splitlines():
        words = line[2:].split()
        if words and words[0] == name:
            return [w.split(":", 1)[1] for w in words if re.fullmatch(r"\d+:\S+", w)]
    raise AssertionError(f"no row for {name} in the view")


def knows(st: rulesdsl.State, seat: int, c: int) -> bool:
    return bool(st.known[c] >> seat & 1)


def pass_window(st: rulesdsl.State) -> None:
    """Everyone passes in the snap window that is open now."""
    while "pass" in st.move_texts() and not any(t in st.move_texts() for t in ("draw", "call")):
        st.apply("pass")


def finish(st: rulesdsl.State, max_moves: int = 400) -> list[int]:
    """Play to the end without touching any square: draw and play, skip powers, pass snaps.
    Returns whose turn each action was."""
    turns = []
    for _ in range(max_moves):
        if st.is_over:
            return turns
        texts = st.move_texts()
        if "draw" in texts:
            turns.append(st.turn_player)
            st.apply("draw")
        elif "play" in texts:
            st.apply("play")
        elif "skip" in texts:
            st.apply("skip")
        else:
            st.apply("pass")
    raise AssertionError("the game did not end")


def scores_after_call(squares: dict, caller: int, players: int = 4, **params):
    """`caller` calls on a table with these squares; everyone else takes a quiet last turn."""
    _, st = table(caller, players=players, squares=squares, **params)
    st.apply("call")
    finish(st)
    assert st.is_over
    return st, [st.counter("score", p) for p in range(players)]


def deck_to_discard(st: rulesdsl.State) -> None:
    """Put the whole draw pile under the discard pile (its top stays the top)."""
    st.set_cards("discard", st.zone("deck") + st.zone("discard"))
    assert st.zone("deck") == []
    assert_conserved(st)


def everything_in_squares(st: rulesdsl.State, keep_up: str) -> None:
    """Both piles empty but for one face-up card: the other 51 cards in the four squares."""
    rest = sorted(DECK - Counter([keep_up]))
    for p in range(4):
        st.set_cards("square", rest[p * 13: (p + 1) * 13] if p < 3 else rest[39:], player=p)
    st.set_cards("discard", [keep_up])
    assert st.zone("deck") == [] and st.zone("discard") == [keep_up]
    assert_conserved(st)


def is_turn_decision(texts: list[str]) -> bool:
    return bool(texts) and all(t in ("draw", "call") or re.fullmatch(r"take \d+", t) for t in texts)


def is_snap_decision(texts: list[str]) -> bool:
    return bool(texts) and texts[-1] == "pass" and all(re.fullmatch(r"snap \d+", t) for t in texts[:-1])


def points(face: str) -> int:
    if face in ("K♠", "K♣"):
        return 15
    return 0 if face in ("K♥", "K♦") else POINTS[face[:-1]]


def m10_winners(scores: list[int], caller: int, winning_total: int = 5) -> list[int]:
    """M10, written out again: the oracle for random games."""
    others = [p for p in range(len(scores)) if p != caller]
    if scores[caller] <= winning_total and all(scores[p] > scores[caller] for p in others):
        return [caller]
    best = min(scores[p] for p in others)
    return [p for p in others if scores[p] == best]


def play_random(players: int, seed: int, max_moves: int = 3000) -> rulesdsl.State:
    """A random game that checks, move by move, that no snap reaches another player's card (M8a),
    that the 52 cards stay (M1), that one call at most is made and the others then take exactly one
    turn each (M6), and at the end the count (M9) and the winners (M10)."""
    st = game_for(players).new_game(seed=seed)
    rng = random.Random(seed * 7 + players)
    calls, after_call = 0, []
    for _ in range(max_moves):
        if st.is_over:
            break
        texts = st.move_texts()
        me = st.current_player
        if is_snap_decision(texts):
            own = [k for k, c in enumerate(square(st, me), 1) if c is not None]
            assert texts == [f"snap {k}" for k in own] + ["pass"]
            move = "pass" if rng.random() < 0.8 else rng.choice(texts)
        elif is_turn_decision(texts):
            assert ("call" in texts) == (calls == 0)
            if calls:
                after_call.append(st.turn_player)
            move = "call" if "call" in texts and rng.random() < 0.04 else rng.choice([t for t in texts if t != "call"])
            calls += move == "call"
            if move == "call":
                caller = me
        else:
            move = rng.choice(texts)
        st.apply(move)
        assert_conserved(st)
    assert st.is_over and calls == 1
    assert after_call == [(caller + i) % players for i in range(1, players)]
    scores = [sum(points(f) for f in st.zone("square", player=p) if f is not None) for p in range(players)]
    assert [st.counter("score", p) for p in range(players)] == scores
    assert sorted(st.winners) == m10_winners(scores, caller)
    return st


# ---------------------------------------------------------------- M1-M4: components and setup

@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_M1_one_standard_52_card_deck(players):
    g = game_for(players)
    assert g.ncards == 52
    assert sorted(g.card_text) == sorted(DECK)
    for c in range(52):
        rank, suit, color = g.attrs["rank"][c], g.attrs["suit"][c], g.attrs["color"][c]
        assert g.card_text[c] == rank + suit
        assert color == ("red" if suit in "♥♦" else "black")
    for seed in range(3):
        st = g.new_game(seed=seed)
        assert_conserved(st)


def test_M1_players_two_to_six():
    for players in (2, 6):
        assert game_for(players).players == players
    with pytest.raises(Exception):  # noqa: B017  (whatever the loader raises for a bad count)
        rulesdsl.load(GAMES / "tamalo.rules", players=7)
    with pytest.raises(Exception):  # noqa: B017
        rulesdsl.load(GAMES / "tamalo.rules", players=1)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_M2_four_face_down_each_and_one_card_turned_up(players):
    g = game_for(players)
    st = g.new_game(seed=7)
    for p in range(players):
        sq = square(st, p)
        assert len(sq) == 4 and None not in sq
        assert all(st.known[c] & ~(1 << p) == 0 for c in sq)        # no one else has seen them
    (up,) = st.zones[st.game.zone_index("discard")]
    assert st.known[up] == st.game.all_mask                        # the discard pile is face up
    deck = st.zones[st.game.zone_index("deck")]
    assert len(deck) == 52 - 4 * players - 1
    assert all(st.known[c] == 0 for c in deck)
    assert all(st.zone("drawn", player=p) == [] for p in range(players))


def test_M2_deal_is_shuffled():
    squares = {tuple(game_for(4).new_game(seed=s).zone("square", player=ALICE)) for s in range(10)}
    assert len(squares) == 10


def test_M2_square_size_parameter():
    st = game_for(3, square_size=6, peek_count=2).new_game(seed=1)
    assert [len(square(st, p)) for p in range(3)] == [6, 6, 6]
    assert len(st.zone("deck")) == 52 - 18 - 1


def test_M2_places_keep_their_cards_only_exchanges_change_them():
    _, st = table(ALICE, squares=QUIET, discard=["9♣"], deck_top=["5♥"])
    before = square(st, ALICE)
    st.apply("take 3")
    after = square(st, ALICE)
    assert [after[0], after[1], after[3]] == [before[0], before[1], before[3]]
    assert st.zone("square", player=ALICE) == ["2♠", "3♠", "9♣", "6♠"]
    pass_window(st)
    st.set_turn(ALICE)
    st.apply("draw")
    st.apply("swap 1")
    assert st.zone("square", player=ALICE) == ["5♥", "3♠", "9♣", "6♠"]
    assert square(st, ALICE)[1:] == after[1:]


def test_M3_each_player_looks_at_places_one_and_two():
    g = game_for(4)
    for seed in range(5):
        st = g.new_game(seed=seed)
        for p in range(4):
            sq = square(st, p)
            assert [st.known[c] for c in sq] == [1 << p, 1 << p, 0, 0]
            faces = st.zone("square", player=p)
            assert seen_square(st, p, p) == [faces[0], faces[1], "?", "?"]
            for q in range(4):
                if q != p:
                    assert seen_square(st, q, p) == ["?"] * 4
                    assert f"{g.names[p]} looks at {g.names[p]}.square 1, {g.names[p]}.square 2: ? ?" \
                           in st.events_for(q)
            assert f"{g.names[p]} looks at {g.names[p]}.square 1, {g.names[p]}.square 2: " \
                   f"{faces[0]} {faces[1]}" in st.events_for(p)


def test_M3_peek_count_parameter():
    st = game_for(4, peek_count=0).new_game(seed=2)
    assert all(st.known[c] == 0 for p in range(4) for c in square(st, p))
    st = game_for(4, peek_count=4).new_game(seed=2)
    assert all(st.known[c] == 1 << p for p in range(4) for c in square(st, p))


def test_M4_first_player_is_random():
    g = game_for(4)
    starters = set()
    for seed in range(40):
        st = g.new_game(seed=seed)
        assert st.current_player == st.turn_player
        assert st.move_texts() == TURN_MOVES
        starters.add(st.turn_player)
    assert starters == {0, 1, 2, 3}


def test_M4_play_goes_clockwise():
    g = game_for(4)
    st = g.new_game(seed=3)
    first = st.turn_player
    order = []
    for _ in range(9):
        order.append(st.turn_player)
        st.apply("draw")
        st.apply("play")
        if "skip" in st.move_texts():
            st.apply("skip")
        pass_window(st)
    assert order == [(first + i) % 4 for i in range(9)]


# ---------------------------------------------------------------- M5a: take the discard's top

def test_M5a_take_exchanges_the_discard_top_with_a_chosen_place():
    _, st = table(ALICE, squares=QUIET, discard=["9♣", "K♦"])
    assert st.move_texts() == TURN_MOVES
    old = card_at(st, ALICE, 2)
    st.apply("take 2")
    assert st.zone("square", player=ALICE) == ["2♠", "K♦", "4♠", "6♠"]
    assert st.zone("discard") == ["9♣", "3♠"]                       # the given card, face up on top
    assert st.known[old] == st.game.all_mask
    assert st.known[card_at(st, ALICE, 2)] == st.game.all_mask     # everyone saw the card taken
    for q in range(4):
        assert seen_square(st, q, ALICE) == ["?", "K♦", "?", "?"]
    assert st.current_player == BOB and st.move_texts() == SNAPS    # then the snap window (M7a)


def test_M5a_only_places_with_a_card_can_take():
    _, st = table(ALICE, squares=QUIET, discard=["9♣"])
    empty_places(st, ALICE, 2, 4)
    assert st.move_texts() == ["take 1", "take 3", "draw", "call"]
    with pytest.raises(rulesdsl.IllegalMove):
        st.apply("take 2")
    empty_places(st, ALICE, 1, 3)
    assert st.move_texts() == ["draw", "call"]


def test_M5a_a_power_card_given_to_the_discard_has_no_power():
    _, st = table(ALICE, squares={ALICE: ["9♠", "7♠", "J♠", "K♠"], **{p: QUIET[p] for p in (1, 2, 3)}},
                  discard=["5♣"])
    for place in (1, 2, 3, 4):
        probe = st.clone()
        probe.apply(f"take {place}")
        assert probe.current_player == BOB and probe.move_texts() == SNAPS


# ---------------------------------------------------------------- M5b: draw and exchange

def test_M5b_the_drawn_card_is_seen_only_by_the_drawer():
    _, st = table(CAROL, squares=QUIET, discard=["5♣"], deck_top=["Q♥"])
    st.apply("draw")
    assert st.zone("drawn", player=CAROL) == ["Q♥"]
    (c,) = st.zones[st.game.zone_index("drawn", CAROL)]
    assert st.known[c] == 1 << CAROL
    assert st.current_player == CAROL
    assert st.move_texts() == ["swap 1", "swap 2", "swap 3", "swap 4", "play"]   # no call after a draw
    assert "drawn: Q♥" in st.view(CAROL)
    for q in (ALICE, BOB, DAVE):
        assert "Q♥" not in st.view(q) and "drawn: 1 card" in st.view(q)


def test_M5b_swap_keeps_the_drawn_card_and_discards_the_old_one_face_up():
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=["9♥"])
    old = card_at(st, ALICE, 3)
    st.apply("draw")
    drawn = st.zones[st.game.zone_index("drawn", ALICE)][0]
    st.apply("swap 3")
    assert st.zone("square", player=ALICE) == ["2♠", "3♠", "9♥", "6♠"]
    assert st.zone("drawn", player=ALICE) == []
    assert st.zone("discard") == ["5♣", "4♠"]
    assert st.known[old] == st.game.all_mask
    assert st.known[drawn] == 1 << ALICE                            # still seen only by alice
    assert seen_square(st, ALICE, ALICE) == ["?", "?", "9♥", "?"]
    assert seen_square(st, BOB, ALICE) == ["?"] * 4
    assert not any("9♥" in e for q in (BOB, CAROL, DAVE) for e in st.events_for(q, level=9))
    # a 9 kept in the square has no power: straight to the snap window
    assert st.current_player == BOB and st.move_texts() == SNAPS


def test_M5b_swap_into_an_empty_place_is_not_offered():
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=["9♥"])
    empty_places(st, ALICE, 1)
    st.apply("draw")
    assert st.move_texts() == ["swap 2", "swap 3", "swap 4", "play"]


# ---------------------------------------------------------------- M5c: draw and play, powers

@pytest.mark.parametrize("face", ["A♥", "2♣", "3♦", "4♥", "5♣", "6♦"])
def test_M5c_play_discards_face_up_a_card_without_power(face):
    _, st = table(ALICE, squares=HIGH, discard=["K♣"], deck_top=[face])
    st.apply("draw")
    st.apply("play")
    assert st.zone("discard") == ["K♣", face]
    assert st.known[st.zones[st.game.zone_index("discard")][-1]] == st.game.all_mask
    assert st.zone("square", player=ALICE) == HIGH[ALICE]
    assert st.current_player == BOB and st.move_texts() == SNAPS    # no power: the window


@pytest.mark.parametrize("face", ["7♥", "8♣"])
def test_M5c_seven_or_eight_looks_at_one_of_your_own_cards(face):
    _, st = table(ALICE, squares=QUIET, discard=["9♣"], deck_top=[face])
    st.apply("draw")
    st.apply("play")
    assert st.zone("discard")[-1] == face                           # played before the power
    assert st.current_player == ALICE
    assert st.move_texts() == ["look 1", "look 2", "look 3", "look 4", "skip"]
    st.apply("look 3")
    c = card_at(st, ALICE, 3)
    assert st.known[c] == 1 << ALICE
    assert seen_square(st, ALICE, ALICE) == ["?", "?", "4♠", "?"]
    for q in (BOB, CAROL, DAVE):
        assert seen_square(st, q, ALICE) == ["?"] * 4
    assert st.current_player == BOB and st.move_texts() == SNAPS    # then the window


@pytest.mark.parametrize("face", ["9♦", "10♠"])
def test_M5c_nine_or_ten_looks_at_one_card_of_an_opponent(face):
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=[face])
    st.apply("draw")
    st.apply("play")
    assert st.current_player == ALICE
    assert st.move_texts() == [f"look {n} {k}" for n in ("bob", "carol", "dave") for k in (1, 2, 3, 4)] + ["skip"]
    st.apply("look bob 3")
    c = card_at(st, BOB, 3)
    assert st.known[c] == 1 << ALICE                                # bob himself has not seen it
    assert seen_square(st, ALICE, BOB) == ["?", "?", "4♥", "?"]
    for q in (BOB, CAROL, DAVE):
        assert seen_square(st, q, BOB) == ["?"] * 4
        assert "4♥" not in st.view(q)
    assert "4♥" in st.view(ALICE)
    assert st.zone("square", player=BOB) == QUIET[BOB]              # looked at, not moved
    assert st.current_player == BOB and st.move_texts() == SNAPS


@pytest.mark.parametrize("face", ["J♥", "Q♣"])
def test_M5c_jack_or_queen_exchanges_blind(face):
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=[face])
    know(st, ALICE, ALICE, 1)                                       # alice knows her 2♠
    know(st, CAROL, CAROL, 4)                                       # carol knows her 6♦
    mine, theirs = card_at(st, ALICE, 1), card_at(st, CAROL, 4)
    st.apply("draw")
    st.apply("play")
    assert st.move_texts() == ["give 1", "give 2", "give 3", "give 4", "skip"]
    st.apply("give 1")
    assert st.current_player == ALICE
    assert st.move_texts() == [f"for {n} {k}" for n in ("bob", "carol", "dave") for k in (1, 2, 3, 4)]
    st.apply("for carol 4")
    assert st.zone("square", player=ALICE) == ["6♦", "3♠", "4♠", "6♠"]
    assert st.zone("square", player=CAROL) == ["2♦", "3♦", "4♦", "2♠"]
    # nobody looks: each card is known by those who knew it, wherever it now lies
    assert st.known[mine] == 1 << ALICE and st.known[theirs] == 1 << CAROL
    assert seen_square(st, ALICE, ALICE) == ["?"] * 4
    assert seen_square(st, ALICE, CAROL) == ["?", "?", "?", "2♠"]
    assert seen_square(st, CAROL, ALICE) == ["6♦", "?", "?", "?"]
    assert st.current_player == BOB and st.move_texts() == SNAPS


@pytest.mark.parametrize("face", ["K♠", "K♣"])
def test_M5c_black_king_looks_then_may_exchange(face):
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=[face])
    st.apply("draw")
    st.apply("play")
    assert st.move_texts() == [f"look {n} {k}" for n in ("bob", "carol", "dave") for k in (1, 2, 3, 4)] + ["skip"]
    st.apply("look dave 2")
    looked = card_at(st, DAVE, 2)
    assert knows(st, ALICE, looked) and not knows(st, DAVE, looked)
    assert seen_square(st, ALICE, DAVE) == ["?", "3♣", "?", "?"]
    assert seen_square(st, BOB, DAVE) == ["?"] * 4
    assert st.move_texts() == ["swap 1", "swap 2", "swap 3", "swap 4", "keep"]
    mine = card_at(st, ALICE, 4)
    st.apply("swap 4")
    assert st.zone("square", player=ALICE) == ["2♠", "3♠", "4♠", "3♣"]
    assert st.zone("square", player=DAVE) == ["2♣", "6♠", "4♣", "6♣"]
    assert st.known[looked] == 1 << ALICE and st.known[mine] == 0
    assert seen_square(st, ALICE, ALICE) == ["?", "?", "?", "3♣"]
    assert st.current_player == BOB and st.move_texts() == SNAPS


def test_M5c_black_king_may_keep_after_looking():
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=["K♠"])
    st.apply("draw")
    st.apply("play")
    st.apply("look carol 1")
    st.apply("keep")
    assert st.zone("square", player=ALICE) == QUIET[ALICE]
    assert st.zone("square", player=CAROL) == QUIET[CAROL]
    assert knows(st, ALICE, card_at(st, CAROL, 1))
    assert st.current_player == BOB and st.move_texts() == SNAPS


@pytest.mark.parametrize("face", ["K♥", "K♦"])
def test_M5c_red_king_has_no_power(face):
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=[face])
    st.apply("draw")
    st.apply("play")
    assert st.zone("discard")[-1] == face
    assert st.current_player == BOB and st.move_texts() == SNAPS


@pytest.mark.parametrize("face", ["7♠", "9♠", "J♦", "K♣"])
def test_M5c_powers_are_optional(face):
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=[face])
    known = st.known[:]
    st.apply("draw")
    st.apply("play")
    assert st.move_texts()[-1] == "skip"
    st.apply("skip")
    assert all(st.zone("square", player=p) == QUIET[p] for p in range(4))
    drawn = st.zones[st.game.zone_index("discard")][-1]
    assert [k for c, k in enumerate(st.known) if c != drawn] == [k for c, k in enumerate(known) if c != drawn]
    assert st.current_player == BOB and st.move_texts() == SNAPS


@pytest.mark.parametrize("face", ["7♣", "9♥", "J♣", "K♠"])
def test_M5c_power_only_when_drawn_and_played_not_when_kept_or_snapped(face):
    rank = face[:-1]
    others = [f for f in (rank + s for s in SUITS) if f != face]
    # drawn and swapped in: the card that leaves is a plain 2, the power card stays, no power
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=[face])
    st.apply("draw")
    st.apply("swap 1")
    assert st.current_player == BOB and st.move_texts() == SNAPS
    # the same rank reaching the discard by a snap gives no power either
    _, st = table(ALICE, squares={**QUIET, BOB: [others[0], "3♥", "4♥", "6♥"]},
                  discard=["5♣"], deck_top=[others[1], face])
    st.apply("draw")
    st.apply("play")
    st.apply("skip")                                                # the played card's own power
    assert st.current_player == BOB
    st.apply("snap 1")                                              # a correct snap of the rank
    assert st.zone("discard")[-1] == others[0]
    assert st.current_player == BOB and st.move_texts() == ["snap 2", "snap 3", "snap 4", "pass"]
    st.apply("pass")
    assert st.turn_player == BOB and st.move_texts() == TURN_MOVES[1:]   # his place 1 is empty now


def test_M5c_power_is_resolved_before_the_snap_window():
    _, st = table(ALICE, squares={**QUIET, BOB: ["9♣", "3♥", "4♥", "6♥"]}, discard=["5♣"], deck_top=["9♥"])
    st.apply("draw")
    st.apply("play")
    assert st.current_player == ALICE and st.move_texts()[0] == "look bob 1"
    st.apply("look bob 1")
    assert st.current_player == BOB and st.move_texts() == SNAPS   # bob may now snap his 9
    st.apply("snap 1")
    assert st.zone("discard")[-2:] == ["9♥", "9♣"]


def test_M5c_power_without_a_target_leaves_only_skip():
    # 7/8: no card of your own
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=["7♥"])
    empty_places(st, ALICE, 1, 2, 3, 4)
    st.apply("draw")
    st.apply("play")
    assert st.move_texts() == ["skip"]
    # 9/10, black K and J/Q: the only opponent has no card
    for face in ("10♥", "K♣", "Q♦"):
        _, st = table(ALICE, players=2, squares={ALICE: QUIET[ALICE], BOB: QUIET[BOB]},
                      discard=["5♣"], deck_top=[face])
        empty_places(st, BOB, 1, 2, 3, 4)
        st.apply("draw")
        st.apply("play")
        assert st.move_texts() == ["skip"], face
        st.apply("skip")
        assert st.current_player == BOB and st.move_texts() == ["pass"]
    # J/Q: the opponents have cards but you have none
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=["J♠"])
    empty_places(st, ALICE, 1, 2, 3, 4)
    st.apply("draw")
    st.apply("play")
    assert st.move_texts() == ["skip"]


def test_M5c_black_king_with_no_card_of_your_own_can_still_look():
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=["K♠"])
    empty_places(st, ALICE, 1, 2, 3, 4)
    st.apply("draw")
    st.apply("play")
    st.apply("look bob 2")
    assert knows(st, ALICE, card_at(st, BOB, 2))
    assert st.move_texts() == ["keep"]


def test_M5c_powers_reach_only_places_with_a_card():
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=["10♣"])
    empty_places(st, BOB, 2, 3)
    empty_places(st, CAROL, 1, 2, 3, 4)
    st.apply("draw")
    st.apply("play")
    assert st.move_texts() == ["look bob 1", "look bob 4"] + [f"look dave {k}" for k in (1, 2, 3, 4)] + ["skip"]


# ---------------------------------------------------------------- M6: calling Tamalo

def test_M6_call_is_the_whole_turn_and_opens_no_window():
    _, st = table(BOB, squares=QUIET, discard=["5♣"])
    assert "call" in st.move_texts()
    st.apply("call")
    assert st.value("caller") == BOB
    assert st.zone("discard") == ["5♣"]                             # nothing was played
    assert all(st.zone("square", player=p) == QUIET[p] for p in range(4))
    assert st.turn_player == CAROL and st.current_player == CAROL   # no snap window (M7a)
    assert st.move_texts() == TURN_MOVES[:-1]                       # and no second call
    assert any("bob calls Tamalo!" in e for e in st.events_for(DAVE))


def test_M6_call_whatever_the_total_but_only_at_the_start_of_the_turn():
    _, st = table(ALICE, squares={**QUIET, ALICE: ["K♠", "K♣", "Q♠", "J♠"]}, discard=["5♣"])
    assert "call" in st.move_texts()                                # 50 points: a call all the same
    st.apply("draw")
    assert "call" not in st.move_texts()
    st.apply("play")
    if "skip" in st.move_texts():
        st.apply("skip")
    for _ in range(4):
        assert "call" not in st.move_texts()
        st.apply("pass")
    assert st.turn_player == BOB and "call" in st.move_texts()


def test_M6_at_most_one_call_a_game():
    _, st = table(ALICE, squares=QUIET, discard=["5♣"])
    st.apply("call")
    while not st.is_over:
        assert "call" not in st.move_texts()
        st.apply("draw" if "draw" in st.move_texts() else st.move_texts()[-1])


@pytest.mark.parametrize(("players", "caller"), [(2, 0), (2, 1), (3, 2), (4, 1), (5, 3), (6, 0)])
def test_M6_every_other_player_takes_exactly_one_more_turn(players, caller):
    _, st = table(caller, players=players)
    st.apply("call")
    turns = finish(st)
    assert turns == [(caller + i) % players for i in range(1, players)]
    assert st.is_over


def test_M6_callers_cards_cannot_be_reached_by_powers():
    for face in ("9♥", "10♦", "K♠", "K♣"):
        _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=[face])
        game_for(4).set_var(st, "caller", BOB)
        st.apply("draw")
        st.apply("play")
        assert st.move_texts() == [f"look {n} {k}" for n in ("carol", "dave") for k in (1, 2, 3, 4)] + ["skip"]
    for face in ("J♥", "Q♠"):
        _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=[face])
        game_for(4).set_var(st, "caller", BOB)
        st.apply("draw")
        st.apply("play")
        st.apply("give 2")
        assert st.move_texts() == [f"for {n} {k}" for n in ("carol", "dave") for k in (1, 2, 3, 4)]
    # with two players the only opponent is the caller: nothing to reach
    _, st = table(ALICE, players=2, squares={ALICE: QUIET[ALICE], BOB: QUIET[BOB]}, discard=["5♣"],
                  deck_top=["10♠"])
    game_for(2).set_var(st, "caller", BOB)
    st.apply("draw")
    st.apply("play")
    assert st.move_texts() == ["skip"]


def test_M6_callers_cards_protected_after_a_real_call():
    _, st = table(BOB, squares=QUIET, discard=["5♣"], deck_top=["9♠"])
    st.apply("call")
    st.apply("draw")                                                # carol draws the 9
    st.apply("play")
    assert not any(t.startswith("look bob") for t in st.move_texts())
    assert "look alice 1" in st.move_texts()


def test_M6_the_caller_still_snaps_in_the_last_turns():
    _, st = table(BOB, squares={**QUIET, BOB: ["5♥", "3♥", "4♥", "6♥"]}, discard=["A♣"], deck_top=["5♠"])
    st.apply("call")
    st.apply("draw")                                                # carol's last turn
    st.apply("play")
    assert [st.current_player, st.move_texts()] == [DAVE, SNAPS]
    st.apply("pass")
    st.apply("pass")                                                # alice
    assert st.current_player == BOB and st.move_texts() == SNAPS    # the caller has his chance
    st.apply("snap 1")
    assert st.zone("square", player=BOB) == [None, "3♥", "4♥", "6♥"]
    assert st.zone("discard")[-1] == "5♥"


# ---------------------------------------------------------------- M7: snaps

def test_M7_a_card_of_the_same_rank_goes_on_the_discard_leaving_an_empty_place():
    _, st = table(ALICE, squares={**QUIET, BOB: ["2♥", "8♦", "4♥", "6♥"]}, discard=["5♣"], deck_top=["8♠"])
    st.apply("draw")
    st.apply("play")
    st.apply("skip")
    snapped = card_at(st, BOB, 2)
    st.apply("snap 2")
    assert st.zone("square", player=BOB) == ["2♥", None, "4♥", "6♥"]
    assert st.zone("discard") == ["5♣", "8♠", "8♦"]
    assert st.known[snapped] == st.game.all_mask
    for q in range(4):
        assert seen_square(st, q, BOB) == ["?", "_", "?", "?"]
    assert len(square(st, BOB)) == 4                                # the place stays, empty
    assert len(st.zone("deck")) == 35 - 1                           # no card drawn for a good snap


@pytest.mark.parametrize("suit", ["♠", "♥", "♦"])
def test_M7_suit_and_colour_do_not_matter(suit):
    _, st = table(ALICE, squares={**QUIET, BOB: ["2♥", "3♥", "4♥", f"5{suit}"]}, discard=["A♣"], deck_top=["5♣"])
    st.apply("draw")
    st.apply("play")
    st.apply("snap 4")
    assert st.zone("square", player=BOB)[3] is None


@pytest.mark.parametrize(("top", "held"), [("J♣", "Q♥"), ("Q♣", "J♥"), ("J♣", "10♥"), ("10♣", "Q♥"),
                                           ("Q♣", "10♦")])
def test_M7_same_rank_not_same_points(top, held):
    # J, Q and 10 all count 10 (M9), yet only the same rank matches
    _, st = table(ALICE, squares={**QUIET, BOB: [held, "3♥", "4♥", "6♥"]}, discard=["5♣"], deck_top=[top])
    st.apply("draw")
    st.apply("play")
    if "skip" in st.move_texts():
        st.apply("skip")
    st.apply("snap 1")
    assert st.zone("square", player=BOB)[0] == held                 # a wrong snap (M8)
    assert len(st.zone("square", player=BOB)) == 5


# ---------------------------------------------------------------- M7a: the snap window

@pytest.mark.parametrize("turn", [ALICE, BOB, CAROL, DAVE])
def test_M7a_window_order_from_the_next_player_ending_with_the_turns_player(turn):
    _, st = table(turn, squares=QUIET, discard=["5♣"], deck_top=["A♥"])
    st.apply("draw")
    st.apply("play")
    askers = []
    while st.turn_player == turn:
        askers.append(st.current_player)
        assert st.move_texts() == SNAPS
        st.apply("pass")
    assert askers == [(turn + i) % 4 for i in (1, 2, 3, 4)]
    assert st.turn_player == (turn + 1) % 4 and st.move_texts() == TURN_MOVES


def test_M7a_a_window_after_every_turn_but_a_call():
    for first in (["take 1"], ["draw", "swap 2"], ["draw", "play"]):
        _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=["A♥"])
        for m in first:
            st.apply(m)
        assert st.current_player == BOB and st.move_texts() == SNAPS, first
    _, st = table(ALICE, squares=QUIET, discard=["5♣"])
    st.apply("call")
    assert st.current_player == BOB and st.move_texts() == TURN_MOVES[:-1]


def test_M7a_first_correct_snap_claims_the_window():
    _, st = table(ALICE, squares={ALICE: ["5♠", "2♠", "3♠", "4♠"], BOB: ["5♥", "2♥", "3♥", "4♥"],
                                  CAROL: ["2♦", "5♦", "3♦", "4♦"], DAVE: ["2♣", "3♣", "4♣", "6♣"]},
                  discard=["A♣"], deck_top=["5♣"])
    st.apply("draw")
    st.apply("play")
    assert st.current_player == BOB
    st.apply("pass")                                                # bob lets it go
    assert st.current_player == CAROL
    st.apply("snap 2")                                              # carol is first: she claims it
    assert st.zone("discard")[-1] == "5♦"
    assert st.current_player == CAROL
    assert st.move_texts() == ["snap 1", "snap 3", "snap 4", "pass"]
    st.apply("pass")
    # dave and alice never get their chance (alice's 5♠ stays); no new window for the 5♦
    assert st.turn_player == BOB and st.current_player == BOB and st.move_texts() == TURN_MOVES
    assert st.zone("square", player=ALICE)[0] == "5♠"
    assert st.zone("square", player=BOB)[0] == "5♥"


def test_M7a_the_claimant_goes_on_alone_until_they_pass():
    # carol holds three 7s against a played 7: she snaps them one at a time
    _, st = table(ALICE, squares={**QUIET, CAROL: ["7♦", "7♥", "3♦", "7♠"], DAVE: ["A♠", "3♣", "4♣", "6♣"]},
                  discard=["A♣"], deck_top=["7♣"])
    st.apply("draw")
    st.apply("play")
    st.apply("skip")
    st.apply("pass")                                                # bob
    st.apply("snap 1")                                              # carol claims
    st.apply("snap 4")
    assert st.current_player == CAROL and st.move_texts() == ["snap 2", "snap 3", "pass"]
    st.apply("snap 2")
    assert st.zone("square", player=CAROL) == [None, None, "3♦", None]
    assert st.zone("discard")[-4:] == ["7♣", "7♦", "7♠", "7♥"]
    assert st.current_player == CAROL and st.move_texts() == ["snap 3", "pass"]
    st.apply("pass")
    assert st.turn_player == BOB and st.move_texts() == TURN_MOVES


def test_M7a_a_wrong_snap_by_the_claimant_closes_the_window():
    _, st = table(ALICE, squares={**QUIET, BOB: ["5♥", "2♥", "3♥", "4♥"]}, discard=["A♣"],
                  deck_top=["9♦", "5♣"])
    st.apply("draw")
    st.apply("play")
    st.apply("snap 1")
    st.apply("snap 2")                                              # a 2 on a 5: wrong (M8)
    assert st.zone("square", player=BOB) == [None, "2♥", "3♥", "4♥", "9♦"]
    assert st.turn_player == BOB and st.move_texts() == ["take 2", "take 3", "take 4", "take 5", "draw", "call"]


def test_M7a_the_window_closes_when_the_claimant_has_no_card_left():
    _, st = table(ALICE, squares={**QUIET, CAROL: ["2♦", "5♦", "3♦", "4♦"]}, discard=["A♣"], deck_top=["5♣"])
    empty_places(st, CAROL, 1, 3, 4)
    st.apply("draw")
    st.apply("play")
    st.apply("pass")
    st.apply("snap 2")                                              # carol's last card
    assert st.zone("square", player=CAROL) == [None] * 4
    assert st.turn_player == BOB and st.move_texts() == TURN_MOVES


def test_M7a_a_wrong_snap_does_not_claim_and_ends_only_that_players_chance():
    _, st = table(ALICE, squares={**QUIET, CAROL: ["2♦", "5♦", "3♦", "4♦"]}, discard=["A♣"],
                  deck_top=["8♥", "5♣"])
    st.apply("draw")
    st.apply("play")
    st.apply("snap 3")                                              # bob: a 4, wrong
    assert len(st.zone("square", player=BOB)) == 5
    assert st.current_player == CAROL and st.move_texts() == SNAPS
    st.apply("snap 2")                                              # carol claims
    st.apply("pass")
    assert st.turn_player == BOB and st.move_texts()[-2:] == ["draw", "call"]


def test_M7a_the_turns_player_snaps_last():
    _, st = table(ALICE, squares={**QUIET, ALICE: ["2♠", "3♠", "4♠", "5♠"]}, discard=["A♣"], deck_top=["5♣"])
    st.apply("draw")
    st.apply("play")
    for p in (BOB, CAROL, DAVE):
        assert st.current_player == p
        st.apply("pass")
    assert st.current_player == ALICE and st.turn_player == ALICE and st.move_texts() == SNAPS
    st.apply("snap 4")
    assert st.current_player == ALICE and st.move_texts() == ["snap 1", "snap 2", "snap 3", "pass"]
    st.apply("pass")
    assert st.zone("square", player=ALICE) == ["2♠", "3♠", "4♠", None]
    assert st.turn_player == BOB


def test_M7a_a_player_with_no_card_still_has_a_chance_with_only_pass():
    _, st = table(ALICE, squares=QUIET, discard=["A♣"], deck_top=["5♣"])
    empty_places(st, CAROL, 1, 2, 3, 4)
    st.apply("draw")
    st.apply("play")
    st.apply("pass")
    assert st.current_player == CAROL and st.move_texts() == ["pass"]
    st.apply("pass")
    assert st.current_player == DAVE and st.move_texts() == SNAPS


def test_M7a_a_turn_that_puts_no_card_on_the_discard_opens_no_window():
    # Both piles empty but for the face-up 5♣ (M11), a call made, and alice without a card: her
    # last turn has no possible action (no take, no draw, no second call). Her turn put no card on
    # the discard pile, so there is no window; bob called, so the game ends after her turn (M6).
    _, st = table(DAVE)
    everything_in_squares(st, "5♣")
    st.set_cards("square", sorted(DECK - Counter(["5♣"]))[:26], player=BOB)   # alice's cards go to bob
    assert st.zone("square", player=ALICE) == [None] * 13
    game_for(4).set_var(st, "caller", BOB)
    st.apply("take 1")                                              # dave's last turn: a window
    assert st.current_player == ALICE and st.move_texts() == ["pass"]
    for _ in range(4):
        st.apply("pass")
    assert st.is_over                                               # the engine asks bob to snap again


def test_M7a_a_snapped_power_card_opens_no_window_and_no_power():
    # bob snaps a 9 onto the played 9: the window goes on with bob alone, then the next turn
    _, st = table(ALICE, squares={**QUIET, BOB: ["9♥", "3♥", "4♥", "6♥"]}, discard=["A♣"], deck_top=["9♣"])
    st.apply("draw")
    st.apply("play")
    st.apply("skip")
    st.apply("snap 1")
    assert st.current_player == BOB and st.move_texts() == ["snap 2", "snap 3", "snap 4", "pass"]
    st.apply("pass")
    assert st.turn_player == BOB and st.move_texts() == TURN_MOVES[1:]


# ---------------------------------------------------------------- M8: wrong snaps and penalties

def test_M8_wrong_snap_is_shown_to_all_stays_and_a_penalty_card_is_added_unseen():
    _, st = table(ALICE, squares=QUIET, discard=["A♣"], deck_top=["Q♦", "5♣"])
    st.apply("draw")
    st.apply("play")
    wrong = card_at(st, BOB, 2)
    deck_before = len(st.zone("deck"))
    st.apply("snap 2")                                              # a 3 on a 5
    assert st.known[wrong] == st.game.all_mask                # shown to everyone
    assert card_at(st, BOB, 2) == wrong                             # back in its place
    assert st.zone("square", player=BOB) == ["2♥", "3♥", "4♥", "6♥", "Q♦"]
    penalty = card_at(st, BOB, 5)
    assert st.known[penalty] == 0                                   # a new place, face down, unseen
    assert len(st.zone("deck")) == deck_before - 1
    assert st.zone("discard")[-1] == "5♣"
    for q in range(4):
        assert seen_square(st, q, BOB) == ["?", "3♥", "?", "?", "?"]
    assert any("revealed in bob.square: 3♥" in e for e in st.events_for(CAROL))
    assert st.current_player == CAROL                                # bob's chance is over


def test_M8_the_penalty_place_is_a_place_like_the_others():
    _, st = table(ALICE, squares=QUIET, discard=["A♣"], deck_top=["Q♦", "5♣"])
    st.apply("draw")
    st.apply("play")
    st.apply("snap 1")
    pass_window(st)
    assert st.turn_player == BOB
    assert st.move_texts() == ["take 1", "take 2", "take 3", "take 4", "take 5", "draw", "call"]
    st.apply("take 5")
    assert st.zone("square", player=BOB)[4] == "5♣"
    assert st.zone("discard")[-1] == "Q♦"


def test_M8_snapping_an_unknown_card_is_a_legal_gamble():
    _, st = table(ALICE, squares={**QUIET, BOB: ["2♥", "3♥", "5♥", "6♥"]}, discard=["A♣"], deck_top=["5♣"])
    assert not any(knows(st, BOB, c) for c in square(st, BOB))
    st.apply("draw")
    st.apply("play")
    assert st.move_texts() == SNAPS                                 # every place, known or not
    st.apply("snap 3")
    assert st.zone("square", player=BOB) == ["2♥", "3♥", None, "6♥"]


def test_M8_known_and_unknown_places_alike_in_a_real_deal():
    g = game_for(4)
    st = g.new_game(seed=11)
    me = st.turn_player
    st.apply("draw")
    st.apply("play")
    if "skip" in st.move_texts():
        st.apply("skip")
    nxt = (me + 1) % 4
    assert st.current_player == nxt
    assert st.move_texts() == SNAPS                                 # places 3 and 4 were never seen


# ---------------------------------------------------------------- M8a: only your own cards

def test_M8a_there_is_no_move_to_snap_another_players_card():
    _, st = table(ALICE, squares={**QUIET, CAROL: ["5♦", "3♦", "4♦", "6♦"]}, discard=["A♣"], deck_top=["5♣"])
    st.apply("draw")
    st.apply("play")
    assert st.current_player == BOB and st.move_texts() == SNAPS
    for bad in ("snap carol 1", "snap alice 1", "snap 5"):
        with pytest.raises(rulesdsl.IllegalMove):
            st.apply(bad)
    assert st.zone("square", player=CAROL)[0] == "5♦"


@pytest.mark.parametrize("players", [2, 4, 6])
def test_M8a_every_snap_offered_in_random_games_is_of_the_choosers_own_square(players):
    for seed in range(4):
        play_random(players, seed)                                  # checks every snap decision


# ---------------------------------------------------------------- M9: the count

@pytest.mark.parametrize("rank", RANKS)
def test_M9_card_points(rank):
    for suit in SUITS:
        face = rank + suit
        bob = [face, *[f for f in ("A♠", "A♥", "A♦", "A♣", "2♥") if f != face][:3]]
        alice = [f for f in sorted(DECK) if f[:-1] not in (rank, "A", "2")][:4]
        _, scores = scores_after_call({ALICE: alice, BOB: bob}, caller=ALICE)
        expected = 0 if face in ("K♥", "K♦") else 15 if rank == "K" else POINTS[rank]
        assert scores[BOB] == expected + sum(POINTS[f[:-1]] for f in bob[1:]), face


@pytest.mark.parametrize("face", ["K♥", "K♦"])
def test_M9_red_king_is_worth_nothing(face):
    _, scores = scores_after_call({ALICE: QUIET[ALICE], BOB: [face, "A♦", "A♣", "A♠"]}, caller=ALICE)
    assert scores[BOB] == 3


def test_M9_the_whole_table():
    squares = {ALICE: ["K♠", "K♥", "Q♦", "J♣"], BOB: ["A♠", "2♥", "3♦", "4♣"],
               CAROL: ["10♠", "9♥", "8♦", "7♣"], DAVE: ["K♣", "K♦", "5♠", "6♥"]}
    st, scores = scores_after_call(squares, caller=BOB)
    assert scores == [35, 10, 34, 26]
    assert st.winners == [DAVE]                                     # bob called with more than 5 (M10)


def test_M9_every_card_is_turned_face_up_at_the_end():
    _, st = table(CAROL, squares=QUIET)
    st.apply("call")
    finish(st)
    for p in range(4):
        assert all(st.known[c] == st.game.all_mask for c in square(st, p) if c is not None)
        for q in range(4):
            assert seen_square(st, q, p) == st.zone("square", player=p)


def test_M9_an_empty_place_scores_nothing_and_a_penalty_place_counts():
    _, st = table(DAVE, squares={**QUIET, ALICE: ["Q♠", "2♠", "3♠", "4♠"], BOB: ["9♥", "5♥", "3♥", "4♥"]},
                  discard=["A♣"], deck_top=["8♠", "5♣"])
    game_for(4).set_var(st, "caller", ALICE)                       # dave's turn is the last one
    st.apply("draw")
    st.apply("play")                                                # the 5♣
    st.apply("snap 1")                                              # alice: Q♠, wrong; the 8♠ is added
    assert st.current_player == BOB
    st.apply("snap 2")                                              # bob: 5♥, right
    st.apply("pass")
    assert st.is_over
    assert st.zone("square", player=ALICE) == ["Q♠", "2♠", "3♠", "4♠", "8♠"]
    assert st.zone("square", player=BOB) == ["9♥", None, "3♥", "4♥"]
    assert st.counter("score", ALICE) == 27
    assert st.counter("score", BOB) == 16


def test_M9_a_square_with_no_card_scores_zero():
    _, st = table(ALICE, squares=QUIET)
    empty_places(st, CAROL, 1, 2, 3, 4)
    st.apply("call")
    finish(st)
    assert st.counter("score", CAROL) == 0
    assert st.winners == [CAROL]


# ---------------------------------------------------------------- M10: who wins

def test_M10_the_caller_wins_with_at_most_five_and_strictly_lowest():
    sq = {ALICE: ["A♠", "A♥", "A♦", "2♠"], BOB: ["2♥", "2♦", "3♦", "K♥"],
          CAROL: ["3♠", "3♥", "K♦", "2♣"], DAVE: ["4♠", "4♥", "4♦", "4♣"]}
    st, scores = scores_after_call(sq, caller=ALICE)
    assert scores == [5, 7, 8, 16]
    assert st.winners == [ALICE]
    assert st.view(DAVE, events=0).splitlines()[1] == "The game is over. Winner: alice."


def test_M10_the_caller_with_more_than_five_loses_even_if_lowest():
    sq = {ALICE: ["A♠", "A♥", "2♦", "2♠"], BOB: ["10♥", "3♦", "K♥", "4♦"],
          CAROL: ["9♠", "9♥", "K♦", "2♣"], DAVE: ["10♠", "10♦", "4♣", "5♣"]}
    st, scores = scores_after_call(sq, caller=ALICE)
    assert scores == [6, 17, 20, 29]
    assert st.winners == [BOB]


def test_M10_the_caller_not_strictly_lowest_loses():
    sq = {ALICE: ["A♠", "A♥", "A♦", "2♠"], BOB: ["A♣", "K♥", "K♦", "3♦"],
          CAROL: ["9♠", "9♥", "2♦", "2♣"], DAVE: ["10♠", "10♦", "4♣", "5♣"]}
    st, scores = scores_after_call(sq, caller=ALICE)
    assert scores == [5, 4, 22, 29]
    assert st.winners == [BOB]


@pytest.mark.parametrize("caller", [ALICE, CAROL])
def test_M10_a_tie_with_the_caller_goes_against_the_caller(caller):
    sq = {ALICE: ["A♠", "A♥", "A♦", "2♠"], BOB: ["9♠", "9♥", "K♦", "2♣"],
          CAROL: ["A♣", "2♥", "2♦", "K♥"], DAVE: ["10♠", "10♦", "4♣", "5♣"]}
    st, scores = scores_after_call(sq, caller=caller)
    assert scores == [5, 20, 5, 29]
    assert st.winners == [ALICE + CAROL - caller]                   # the one who did not call


def test_M10_ties_among_the_others_are_shared():
    sq = {ALICE: ["A♠", "A♥", "2♦", "2♠"], BOB: ["3♦", "3♥", "4♦", "K♥"],
          CAROL: ["3♠", "3♣", "4♥", "K♦"], DAVE: ["10♠", "10♦", "4♣", "5♣"]}
    st, scores = scores_after_call(sq, caller=ALICE)
    assert scores == [6, 10, 10, 29]
    assert sorted(st.winners) == [BOB, CAROL]
    # a three-way tie with the caller: the two others share it (squares of two places here)
    sq = {ALICE: ["A♠", "3♠"], BOB: ["A♥", "3♥"], CAROL: ["2♦", "2♣"], DAVE: ["10♠", "10♦"]}
    st, scores = scores_after_call(sq, caller=ALICE)
    assert scores == [4, 4, 4, 20]
    assert sorted(st.winners) == [BOB, CAROL]


def test_M10_winning_total_parameter():
    sq = {ALICE: ["A♠", "A♥", "A♦", "4♠"], BOB: ["2♥", "2♦", "4♦", "K♥"],
          CAROL: ["9♠", "9♥", "K♦", "2♣"], DAVE: ["10♠", "10♦", "4♣", "5♣"]}
    st, scores = scores_after_call(sq, caller=ALICE, winning_total=7)
    assert scores == [7, 8, 20, 29]
    assert st.winners == [ALICE]
    st, _ = scores_after_call(sq, caller=ALICE)                     # the default is 5
    assert st.winners == [BOB]
    st, _ = scores_after_call(sq, caller=ALICE, winning_total=6)
    assert st.winners == [BOB]


def test_M10_two_players():
    sq = {ALICE: ["A♠", "A♥", "A♦", "2♠"], BOB: ["A♣", "2♥", "2♦", "K♥"]}
    st, scores = scores_after_call(sq, caller=BOB, players=2)
    assert scores == [5, 5] and st.winners == [ALICE]
    sq[ALICE] = ["A♠", "A♥", "A♦", "3♠"]
    st, scores = scores_after_call(sq, caller=BOB, players=2)
    assert scores == [6, 5] and st.winners == [BOB]


@pytest.mark.parametrize("players", [2, 3, 5])
def test_M10_random_games_end_with_the_count_and_winners_of_the_rules(players):
    for seed in range(6):
        play_random(players, seed)                                  # M9 and M10 checked at the end


# ---------------------------------------------------------------- M11: an empty draw pile

def test_M11_an_empty_draw_pile_is_refilled_from_the_discard_but_its_top():
    _, st = table(ALICE, squares=QUIET, discard=["5♣"])
    deck_to_discard(st)
    assert len(st.zone("discard")) == 36 and st.zone("discard")[-1] == "5♣"
    assert "draw" in st.move_texts()
    st.apply("draw")
    assert st.zone("discard") == ["5♣"]                             # the top stays
    assert len(st.zone("deck")) == 34 and len(st.zone("drawn", player=ALICE)) == 1
    assert all(st.known[c] == 0 for c in st.zones[st.game.zone_index("deck")])   # face down again
    assert "discard is shuffled to make a new deck" in st.events_for(BOB, level=1)
    assert_conserved(st)


def test_M11_the_refill_is_shuffled():
    tops = set()
    for seed in range(6):
        _, st = table(ALICE, seed=seed, squares=QUIET, discard=["5♣"])
        deck_to_discard(st)
        st.apply("draw")
        tops.add(tuple(st.zone("deck")[-5:]))
    assert len(tops) == 6


def test_M11_a_penalty_card_is_drawn_from_the_refilled_pile():
    _, st = table(ALICE, squares=QUIET, discard=["5♣"], deck_top=["A♥"])
    st.apply("draw")                                                # the last card of the pile
    deck_to_discard(st)
    st.apply("play")                                                # A♥ on top
    st.apply("snap 1")                                              # bob: a 2 on an ace, wrong
    assert len(st.zone("square", player=BOB)) == 5
    assert st.zone("discard") == ["A♥"]
    assert len(st.zone("deck")) == 52 - 16 - 2
    assert_conserved(st)


def test_M11_no_draw_when_both_piles_are_empty():
    _, st = table(ALICE)
    everything_in_squares(st, "5♣")
    texts = st.move_texts()
    assert "draw" not in texts
    assert texts == [f"take {k}" for k in range(1, 14)] + ["call"]
    with pytest.raises(rulesdsl.IllegalMove):
        st.apply("draw")


def test_M11_no_penalty_card_when_both_piles_are_empty():
    _, st = table(ALICE)
    everything_in_squares(st, "K♣")
    st.apply("take 1")                                              # the discard still holds one card
    assert len(st.zone("discard")) == 1 and st.zone("deck") == []
    top = st.zone("discard")[-1]
    assert st.current_player == BOB
    wrong = next(k for k, f in enumerate(st.zone("square", player=BOB), 1) if f[:-1] != top[:-1])
    st.apply(f"snap {wrong}")
    assert len(st.zone("square", player=BOB)) == 13                 # nothing to add
    assert st.known[card_at(st, BOB, wrong)] == st.game.all_mask  # but the card is still shown
    assert st.current_player == CAROL
    assert_conserved(st)


# ---------------------------------------------------------------- M12: one round

def test_M12_the_game_is_one_round():
    _, st = table(BOB, squares=QUIET)
    st.apply("call")
    finish(st)
    assert st.is_over and st.round == 1
    assert st.current_player is None and st.move_texts() == []
    with pytest.raises(rulesdsl.IllegalMove):
        st.apply("draw")
    assert [st.counter("score", p) for p in range(4)] == [15, 15, 15, 15]
    assert st.winners == [ALICE, CAROL, DAVE]                       # M10: the caller loses the tie
    assert st.value("caller") == BOB
