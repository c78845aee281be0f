"""Go Fish, rule by rule (G1..G8 of games/go_fish.rules, written from OpenSpiel's `go_fish`):
stacked decks, and an oracle that follows OpenSpiel's rules for each ask of random games and
holds the engine to them.

The scenarios of games/go_fish.test.rules test each rule once on a stacked table; these tests
check the same rules in every ask random play reaches, with two and with three players.
"""

from __future__ import annotations

import functools
import random
from collections import Counter

import pytest

import rulesdsl
from tests.conftest import GAMES
from tests.test_crazy_eights import load_bench, play_at_the_terminal

ALICE, BOB, CAROL = range(3)
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
DECK = Counter(r + s for r in RANKS for s in ("♠", "♥", "♦", "♣"))


@functools.cache
def game_for(players: int = 2) -> rulesdsl.Game:
    return rulesdsl.load(GAMES / "go_fish.rules", players=players)


def rank(face: str) -> str:
    return face[:-1]


def hand_ranks(st: rulesdsl.State, p: int) -> Counter:
    return Counter(rank(f) for f in st.zone("hand", player=p))


def all_faces(st: rulesdsl.State) -> Counter:
    faces = Counter(st.zone("deck"))
    for p in range(st.game.players):
        faces.update(st.zone("hand", player=p))
        faces.update(st.zone("laid", player=p))
    return faces


# ---------------------------------------------------------------- G1, G2: cards and the deal

@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_G1_G2_one_deck_seven_cards_each_with_two_players_five_with_more(players):
    size = 7 if players == 2 else 5
    for seed in range(20):
        st = game_for(players).new_game(seed=seed, log=False)
        assert all_faces(st) == DECK
        for p in range(players):
            # a book laid down is made up, except one on the deal's very last card
            assert len(st.zone("hand", player=p)) == size or (p == players - 1 and st.counter("books", p))
        assert st.current_player == ALICE


def first_deal(test, seeds=range(697, 5000)) -> rulesdsl.State:
    """The first two-player deal, from seed 697 on, that passes `test` (a book in the deal is
    rare: about one deal in 600)."""
    for seed in seeds:
        st = game_for(2).new_game(seed=seed, log=False)
        if test(st):
            return st
    raise AssertionError("no such deal in these seeds")


def test_G2_G3_a_book_laid_down_in_the_deal_is_made_up_from_the_pool():
    st = first_deal(lambda st: st.counter("books", ALICE) > 0)
    assert len(st.zone("laid", player=ALICE)) == 4
    assert len(st.zone("hand", player=ALICE)) == 7                # 11 cards dealt to her


def test_G2_G3_the_deal_ends_with_the_last_players_last_card_even_when_it_makes_a_book():
    # as OpenSpiel's dealing loop does: bob is not made up after a book on his seventh card
    st = first_deal(lambda st: st.counter("books", BOB) > 0 and len(st.zone("hand", player=BOB)) < 7,
                    range(0, 20000))
    assert len(st.zone("hand", player=BOB)) == 3 and len(st.zone("laid", player=BOB)) == 4


def test_G3_no_hand_ever_holds_four_of_a_rank_and_books_are_fours():
    rng = random.Random(2)
    for seed in range(25):
        st = game_for(3).new_game(seed=seed, log=False)
        while not st.is_over:
            for p in range(3):
                assert max(hand_ranks(st, p).values(), default=0) < 4
                laid = Counter(rank(f) for f in st.zone("laid", player=p))
                assert len(laid) == st.counter("books", p) and set(laid.values()) <= {4}
            st.apply_index(rng.randrange(st.num_moves()))
        assert sum(st.counter("books", p) for p in range(3)) == 13


# ---------------------------------------------------------------- G4-G7: an ask, by OpenSpiel's rules

def check_ask(st: rulesdsl.State, rng: random.Random) -> None:
    """Play one random ask and check its outcome the way OpenSpiel's DoApplyAction decides it."""
    players = st.game.players
    me = st.current_player
    mine = hand_ranks(st, me)
    askable = [p for p in range(players) if p != me and st.zone("hand", player=p)]
    assert askable, "an ask is offered only when someone can be asked"
    assert sorted(st.move_texts()) == sorted("ask " + r for r in mine)              # G4
    asked_rank = rng.choice(sorted(mine))
    target = rng.choice(askable)
    theirs = hand_ranks(st, target)[asked_rank]
    deck_before = st.zone("deck")
    held = [len(st.zone("hand", player=p)) for p in range(players)]
    books_before = st.counter("books", me)
    st.apply("ask " + asked_rank)
    if len(askable) > 1:                                                            # G4: whom
        assert sorted(st.move_texts()) == sorted("from " + st.game.names[p] for p in askable)
        st.apply("from " + st.game.names[target])
    if theirs:                                                                      # G5
        assert st.counter("books", me) == books_before + (mine[asked_rank] + theirs == 4)
        if st.current_player == me:      # (else the target, left with nothing, may have drawn)
            assert hand_ranks(st, target)[asked_rank] == 0
            together = mine[asked_rank] + theirs
            assert hand_ranks(st, me)[asked_rank] == (0 if together == 4 else together)
        goes_on = True
    elif deck_before:                                                               # G6
        fish = deck_before[-1]
        assert fish not in st.zone("deck")
        goes_on = rank(fish) == asked_rank
    else:
        goes_on = False
    if st.is_over:
        return
    # G7: whoever goes on, with no cards, draws one first; with no cards and an empty pool, or
    # with nobody to ask, the turn passes (OpenSpiel's CheckEmptyAsk). What the others hold and
    # the pool are worked out as they were right after the ask: the next turn may have drawn.
    others_hold = any(held[p] - (theirs if p == target else 0) for p in range(players) if p != me)
    pool_left = len(deck_before) - (0 if theirs or not deck_before else 1)
    mine_left = bool(st.zone("hand", player=me))
    if goes_on and (mine_left or pool_left) and others_hold:
        assert st.current_player == me
    if not goes_on:
        assert st.current_player != me


@pytest.mark.parametrize("players", [2, 3])
def test_G4_to_G7_every_ask_of_random_games_follows_openspiels_rules(players):
    rng = random.Random(players)
    asks = 0
    for seed in range(15):
        st = game_for(players).new_game(seed=seed, log=False)
        while not st.is_over:
            check_ask(st, rng)
            asks += 1
            assert all_faces(st) == DECK
    assert asks > 500


def test_G4_an_ask_tells_everyone_the_asker_holds_the_rank_and_every_world_keeps_it():
    """What a player learns in Go Fish is what the others asked for: the asker's card of that rank
    is shown by its rank (not its suit), each seat's view says so, and so do the worlds a search
    bot samples for them."""
    game = game_for(3)
    st = game.new_game(seed=1)
    st.set_cards("hand", ["7♣", "2♠", "9♦"], player=ALICE)
    st.set_cards("hand", ["3♥", "2♦"], player=BOB)
    st.set_cards("hand", ["4♥", "5♦"], player=CAROL)
    st.set_cards("deck", ["K♦"], top=True)
    st.apply("ask 7")
    st.apply("from bob")                                   # go fish: alice draws the king
    seven = game.card_text.index("7♣")
    assert st.current_player == BOB and not st.known[seven] & (1 << BOB | 1 << CAROL)
    for p in (BOB, CAROL):
        assert "known: 7?" in st.view(p) and "7♣" not in st.view(p)
        for seed in range(20):
            w = st.determinize(p, random.Random(seed), log=False)
            assert "7" in hand_ranks(w, ALICE)


def test_G5_cards_handed_over_are_seen_by_everyone():
    game = game_for(3)
    st = game.new_game(seed=1)
    st.set_cards("hand", ["7♣", "2♠"], player=ALICE)
    st.set_cards("hand", ["7♥", "7♦", "3♦"], player=BOB)
    st.apply("ask 7")
    st.apply("from bob")
    for face in ("7♥", "7♦"):
        assert st.known[game.card_text.index(face)] == game.all_mask
    assert "7♥" in st.view(CAROL) and "7♦" in st.view(CAROL) and "7♣" not in st.view(CAROL)


def test_G7_a_player_with_no_cards_draws_one_at_the_start_of_the_turn():
    st = game_for(2).new_game(seed=1)
    st.set_cards("hand", ["7♣", "7♦", "7♠"], player=ALICE)
    st.set_cards("hand", ["7♥", "2♠"], player=BOB)
    st.set_cards("deck", ["9♦"], top=True)
    st.apply("ask 7")
    assert st.counter("books", ALICE) == 1
    assert st.current_player == ALICE and st.zone("hand", player=ALICE) == ["9♦"]


def test_G7_with_the_pool_empty_a_player_who_runs_out_of_cards_passes_the_turn():
    st = game_for(3).new_game(seed=1)
    st.set_cards("hand", ["7♣", "7♦", "7♠"], player=ALICE)
    st.set_cards("hand", ["7♥", "2♠"], player=BOB)
    st.set_cards("hand", ["2♥", "2♦", "2♣"], player=CAROL)
    st.set_cards("laid", [f for f in DECK if rank(f) not in ("7", "2")], player=CAROL)   # the pool
    assert st.zone("deck") == []
    st.apply("ask 7")
    st.apply("from bob")                              # alice books the sevens and has no cards
    assert st.counter("books", ALICE) == 1 and st.zone("hand", player=ALICE) == []
    assert st.current_player == BOB
    st.apply("ask 2")                                 # only carol holds cards: no second question
    assert st.counter("books", BOB) == 1 and st.is_over


# ---------------------------------------------------------------- G8: the end and the returns

@pytest.mark.parametrize("players", [2, 3, 4])
def test_G8_the_game_ends_with_thirteen_books_and_the_most_books_win(players):
    rng = random.Random(7)
    for seed in range(10):
        st = game_for(players).new_game(seed=seed, log=False)
        while not st.is_over:
            st.apply_index(rng.randrange(st.num_moves()))
        books = [st.counter("books", p) for p in range(players)]
        assert sum(books) == 13 and not st.zone("deck")
        assert sorted(st.winners) == [p for p in range(players) if books[p] == max(books)]


def test_openspiel_comparison_bench_plays_20_games_in_each_engine():
    pytest.importorskip("pyspiel")
    bench = load_bench()
    a = bench.play_rulesdsl("go_fish", 20, 1, None)
    b = bench.play_openspiel("go_fish", 20, 1, None)
    assert {r.metric for r in bench.compare(a, b)} >= {"asks", "books of seat 0", "return of seat 0"}


def test_a_whole_game_plays_at_the_terminal_with_piped_input():
    out = play_at_the_terminal("go_fish.rules", 3, 4)
    assert "alice> 1" in out and "The game is over." in out and "books" in out
