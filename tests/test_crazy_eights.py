"""Crazy Eights, rule by rule (C1..C9 of games/crazy_eights.rules, written from OpenSpiel's
`crazy_eights`): stacked decks, and oracles that recompute OpenSpiel's legal actions and penalty
points in Python and hold them against the engine over random games.

The scenarios of games/crazy_eights.test.rules test each rule once on a stacked table; these
tests check the same rules in every state random play reaches.
"""

from __future__ import annotations

import functools
import importlib.util
import io
import random
import sys
from collections import Counter

import pytest

import rulesdsl
from rulesdsl.cli import main
from tests.conftest import GAMES, ROOT

ALICE, BOB, CAROL, DAVE, ERIN = range(5)
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")   # OpenSpiel's order
SUITS = ("♣", "♦", "♥", "♠")                                                  # C, D, H, S
DECK = Counter(r + s for r in RANKS for s in SUITS)


@functools.cache
def game_for(players: int = 5, **params) -> rulesdsl.Game:
    return rulesdsl.load(GAMES / "crazy_eights.rules", players=players, **params)


def rank_suit(face: str) -> tuple[str, str]:
    return face[:-1], face[-1]


def openspiel_penalty(face: str) -> int:
    """OpenSpiel's ScoreUp for one card: card id = rank * 4 + suit; 8 is 50, J Q K A 10, else id + 2."""
    rank, suit = rank_suit(face)
    r = RANKS.index(rank)
    if rank == "8":
        return 50
    if r >= RANKS.index("J"):
        return 10
    return r * 4 + SUITS.index(suit) + 2


def all_faces(st: rulesdsl.State) -> Counter:
    faces = Counter(st.zone("deck")) + Counter(st.zone("discard"))
    for p in range(st.game.players):
        faces.update(st.zone("hand", player=p))
    return faces


def random_states(players: int, games: int, seed: int):
    """Every state of `games` random games, the first after setup."""
    rng = random.Random(seed)
    game = game_for(players)
    for i in range(games):
        st = game.new_game(seed=seed * 1000 + i, log=False)
        yield st
        while not st.is_over:
            st.apply_index(rng.randrange(st.num_moves()))
            yield st


def expected_turn_moves(st: rulesdsl.State) -> set[str]:
    """OpenSpiel's PlayLegalActions, written as this game's moves."""
    me = st.current_player
    top_rank = rank_suit(st.zone("discard")[-1])[0]
    suit = st.value("current_suit")
    moves = {"play " + f for f in st.zone("hand", player=me)
             if rank_suit(f)[0] == "8" or rank_suit(f)[1] == suit or rank_suit(f)[0] == top_rank}
    deck, draws = st.zone("deck"), st.value("draws")
    if deck and draws < 5:
        moves.add("draw")
    if not deck or draws == 5:
        moves.add("pass")
    return moves


# ---------------------------------------------------------------- C1, C2: cards and the deal

@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_C1_C2_one_deck_five_cards_each_seven_with_two_and_a_starter(players):
    st = game_for(players).new_game(seed=11, log=False)
    size = 7 if players == 2 else 5
    assert all(len(st.zone("hand", player=p)) == size for p in range(players))
    assert len(st.zone("discard")) == 1
    assert len(st.zone("deck")) == 52 - size * players - 1
    assert all_faces(st) == DECK


def test_C2_the_starter_is_never_an_eight_and_an_eight_turned_up_goes_back():
    starters = Counter()
    for seed in range(400):
        st = game_for().new_game(seed=seed, log=False)
        starter = st.zone("discard")[0]
        starters[rank_suit(starter)[0]] += 1
        assert len(st.zone("deck")) == 26                  # a redrawn eight went back into the stock
    assert starters["8"] == 0
    assert len(starters) == 12                               # every other rank turns up


def test_C2_the_player_left_of_a_random_dealer_begins():
    firsts = Counter()
    for seed in range(200):
        st = game_for().new_game(seed=seed, log=False)
        dealer = st.value("dealer")
        assert st.current_player == (dealer + 1) % 5
        firsts[st.current_player] += 1
    assert set(firsts) == set(range(5))


# ---------------------------------------------------------------- C3-C7: the moves

def test_C3_C5_C6_moves_are_openspiels_legal_actions_in_every_state_of_random_games():
    checked = 0
    for st in random_states(players=5, games=40, seed=3):
        if st.is_over:
            continue
        texts = st.move_texts()
        if texts[0].startswith("name "):                     # C4: right after an eight
            assert texts == ["name ♣", "name ♦", "name ♥", "name ♠"]
            assert rank_suit(st.zone("discard")[-1])[0] == "8"
            continue
        assert set(texts) == expected_turn_moves(st), st.view(st.current_player, reveal=True)
        checked += 1
    assert checked > 1000


@pytest.mark.parametrize("players", [2, 3])
def test_C3_C5_moves_match_openspiel_with_fewer_players(players):
    for st in random_states(players=players, games=10, seed=5):
        if not st.is_over and not st.move_texts()[0].startswith("name "):
            assert set(st.move_texts()) == expected_turn_moves(st)


def test_C5_drawing_keeps_the_turn_and_playing_ends_it():
    st = game_for().new_game(seed=2)
    me = st.current_player
    st.set_cards("discard", ["K♥"], top=True)
    st.set_cards("hand", ["2♣"], player=me)
    st.set_cards("deck", ["5♥"], top=True)
    game_for().set_var(st, "current_suit", "♥")
    st.apply("draw")
    assert st.current_player == me and sorted(st.move_texts()) == ["draw", "play 5♥"]
    st.apply("play 5♥")
    assert st.current_player == (me + 1) % 5
    assert st.value("draws") == 0


# ---------------------------------------------------------------- C7-C9: the end and the points

def test_C8_penalty_points_are_openspiels_for_every_card():
    st = game_for().new_game(seed=4, log=False)
    me = st.current_player
    others = [(me + k) % 5 for k in range(1, 5)]
    st.set_cards("discard", ["K♥"], top=True)
    st.set_cards("hand", ["8♠"], player=me)
    rest = [f for f in DECK if f not in ("K♥", "8♠")]
    random.Random(1).shuffle(rest)
    hands = {p: rest[12 * k:12 * (k + 1)] for k, p in enumerate(others)}   # 48 of the 50 left
    for p, faces in hands.items():
        st.set_cards("hand", faces, player=p)
    st.apply("play 8♠")
    assert st.is_over and st.winners == [me]
    assert st.counter("penalty", me) == 0
    for p, faces in hands.items():
        assert st.counter("penalty", p) == sum(openspiel_penalty(f) for f in faces)


def test_C8_points_table_spot_checks():
    assert [openspiel_penalty(f) for f in ("2♣", "2♦", "2♥", "2♠", "3♣", "10♠", "9♣")] == [2, 3, 4, 5, 6, 37, 30]
    assert {openspiel_penalty(r + "♥") for r in ("J", "Q", "K", "A")} == {10}
    assert {openspiel_penalty("8" + s) for s in SUITS} == {50}


def test_C7_C9_every_random_game_ends_by_going_out_or_by_passes_and_lowest_penalty_wins():
    endings = Counter()
    for st in random_states(players=5, games=30, seed=9):
        assert all_faces(st) == DECK
        if not st.is_over:
            continue
        penalties = [st.counter("penalty", p) for p in range(5)]
        hands = [st.zone("hand", player=p) for p in range(5)]
        assert penalties == [sum(openspiel_penalty(f) for f in h) for h in hands]
        assert sorted(st.winners) == [p for p in range(5) if penalties[p] == min(penalties)]
        went_out = any(not h for h in hands)
        endings["out" if went_out else "passes"] += 1
        if not went_out:
            assert not st.zone("deck") and st.value("passes") == 6
    assert endings["out"] > 0 and endings["passes"] > 0


# ---------------------------------------------------------------- the OpenSpiel comparison runs

def load_bench():
    """bench/openspiel_compare.py as a module (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location("openspiel_compare", ROOT / "bench" / "openspiel_compare.py")
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench                 # its dataclasses look their module up
    spec.loader.exec_module(bench)
    return bench


def test_openspiel_comparison_bench_plays_20_games_in_each_engine():
    pytest.importorskip("pyspiel")
    bench = load_bench()
    a = bench.play_rulesdsl("crazy_eights", 20, 1, None)
    b = bench.play_openspiel("crazy_eights", 20, 1, None)
    assert {r.metric for r in bench.compare(a, b)} >= {"decisions", "card plays", "draws", "return of seat 0"}


def play_at_the_terminal(rules: str, players: int, seed: int) -> str:
    """A whole game of `rulesdsl play` with piped input: the human always picks the first move."""
    out, err = io.StringIO(), io.StringIO()
    code = main(["play", str(GAMES / rules), "--players", str(players), "--seed", str(seed)],
                stdin=io.StringIO("1\n" * 400), stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    return out.getvalue()


def test_a_whole_game_plays_at_the_terminal_with_piped_input():
    out = play_at_the_terminal("crazy_eights.rules", 3, 4)
    assert "alice> 1" in out and "The game is over." in out and "penalty" in out
