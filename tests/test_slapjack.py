"""Slapjack, rule by rule (S1..S9 of games/slapjack.rules, from the traditional published rules):
the race to slap (S5) is fair, since whoever slaps first is drawn at random each time; a slap
and a wait look the same to the others until the race is run; and random games keep every card
and end.

The scenarios of games/slapjack.test.rules test each rule once on a stacked table.
"""

from __future__ import annotations

import functools
import random
from collections import Counter

import pytest

import rulesdsl
from tests.conftest import GAMES, run_cli

ALICE, BOB, CAROL, DAVE = range(4)


@functools.cache
def game_for(players: int = 4, **params) -> rulesdsl.Game:
    return rulesdsl.load(GAMES / "slapjack.rules", players=players, **params)


def cards_of(st: rulesdsl.State, p: int) -> int:
    return len(st.zone("pile", player=p))


def jack_turned_up(seed: int) -> rulesdsl.State:
    """Alice turns up the J♠ (the middle empty): every player is to answer slap or wait."""
    st = game_for().new_game(seed=seed)
    st.set_turn(ALICE)
    st.set_cards("pile", ["J♠"], player=ALICE, top=True)
    st.apply("turn_up")
    return st


# ---------------------------------------------------------------- S1, S2: the deal

@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_S1_S2_the_whole_deck_is_dealt_as_evenly_as_it_goes(players):
    st = game_for(players).new_game(seed=3, log=False)
    sizes = sorted(cards_of(st, p) for p in range(players))
    assert sum(sizes) == 52 and sizes[-1] - sizes[0] <= 1
    assert st.zone("deck") == [] and st.zone("middle") == []


# ---------------------------------------------------------------- S4, S5: the race

def test_S5_two_slaps_at_a_jack_each_win_about_half_the_time():
    """Bob and dave slap, alice and carol wait: who takes the pile is drawn at random (S5), so
    neither seat wins the race by being asked first (bob is always asked before dave)."""
    takers = Counter()
    for seed in range(200):
        st = jack_turned_up(seed)
        for answer in ("wait", "slap", "wait", "slap"):
            st.apply(answer)
        taker = st.value("taker")
        assert taker in (BOB, DAVE) and st.zone("middle") == []
        takers[taker] += 1
    assert takers[BOB] > 60 and takers[DAVE] > 60


def test_S4_the_only_slapper_takes_the_pile_whatever_the_order():
    for seed in range(20):
        st = jack_turned_up(seed)
        for answer in ("wait", "wait", "slap", "wait"):
            st.apply(answer)
        assert st.value("taker") == CAROL and "J♠" in st.zone("pile", player=CAROL)


def test_S5_a_slap_looks_like_a_wait_to_the_others_until_the_race_is_run():
    slap, wait = jack_turned_up(4), jack_turned_up(4)
    slap.apply("slap")
    wait.apply("wait")
    for p in (BOB, CAROL, DAVE):
        assert slap.view(p) == wait.view(p)
        assert slap.events_for(p) == wait.events_for(p)
    assert slap.current_player == wait.current_player == BOB
    assert slap.move_texts() == wait.move_texts() == ["slap", "wait"]


def test_S6_a_jack_nobody_slaps_stays_in_the_middle():
    st = jack_turned_up(2)
    for _ in range(4):
        st.apply("wait")
    assert st.value("taker") is None and st.zone("middle") == ["J♠"]


# ---------------------------------------------------------------- S7-S9 over random games

@pytest.mark.parametrize("players", [2, 4])
def test_S7_S9_random_games_keep_every_card_and_end(players):
    rng = random.Random(players)
    endings = Counter()
    for seed in range(15):
        st = game_for(players).new_game(seed=seed, log=False)
        while not st.is_over:
            st.apply_index(rng.randrange(st.num_moves()))
            assert sum(cards_of(st, p) for p in range(players)) + len(st.zone("middle")) == 52
        counts = [cards_of(st, p) for p in range(players)]
        if 52 in counts:
            endings["all cards"] += 1
            assert st.winners == [counts.index(52)]
        elif st.turn >= 1000:
            endings["cap"] += 1
        else:
            endings["nobody to turn up"] += 1
            assert counts == [0] * players
        assert all(counts[p] == max(counts) and counts[p] > 0 for p in st.winners)
    assert endings["all cards"] > 0


def test_S9_the_cap_is_a_parameter():
    st = game_for(3, max_turns=5).new_game(seed=1, log=False)
    while not st.is_over:
        st.apply_index(0)
    assert st.turn == 5


def test_a_whole_game_plays_at_the_terminal_with_piped_input():
    code, out, err = run_cli("play", str(GAMES / "slapjack.rules"), "--players", "2", "--seed", "4",
                             "--set", "max_turns=60", stdin="1\n" * 200)
    assert code == 0, err
    assert "alice> 1" in out and "The game is over." in out
