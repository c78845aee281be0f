"""Goofspiel, rule by rule (G1..G7 of games/goofspiel.rules, written from OpenSpiel's
`goofspiel`): an oracle that follows OpenSpiel's rules for each prize of random games and holds
the engine to them, and the secrecy of the sealed bids (G4): no seat's view, log or moves depend
on a bid made before it and not yet revealed.

The scenarios of games/goofspiel.test.rules test each rule once on a stacked table; these tests
check the same rules in every prize random play reaches, with two to four players.
"""

from __future__ import annotations

import functools
import importlib.util
import random

import pytest

import rulesdsl
from tests.conftest import GAMES, ROOT
from tests.test_crazy_eights import load_bench, play_at_the_terminal

ALICE, BOB, CAROL = range(3)


@functools.cache
def game_for(players: int = 2, **params) -> rulesdsl.Game:
    return rulesdsl.load(GAMES / "goofspiel.rules", players=players, **params)


def values(faces: list[str]) -> list[int]:
    return [int(f.rstrip("♦")) for f in faces]


def points(st: rulesdsl.State) -> list[int]:
    return [st.counter("points", p) for p in range(st.game.players)]


def bid_for_prize(players: int, seed: int) -> rulesdsl.State:
    """A new game: its first turn has turned up a prize, and alice is to bid."""
    return game_for(players).new_game(seed=seed)


# ---------------------------------------------------------------- G1, G2: the cards

@pytest.mark.parametrize("players", [2, 3, 4])
def test_G1_G2_a_hand_of_1_to_13_each_and_thirteen_prizes_in_a_random_order(players):
    orders = set()
    for seed in range(20):
        st = game_for(players).new_game(seed=seed, log=False)
        for p in range(players):
            assert sorted(values(st.zone("hand", player=p))) == list(range(1, 14))
        prizes = values(st.zone("prizes")) + values(st.zone("prize"))  # (the first one turned up)
        assert sorted(prizes) == list(range(1, 14))
        orders.add(tuple(prizes))
    assert len(orders) == 20


def test_G1_num_cards_plays_a_smaller_game():
    st = game_for(3, num_cards=5).new_game(seed=1, log=False)
    assert sorted(values(st.zone("prizes")) + values(st.zone("prize"))) == [1, 2, 3, 4, 5]
    assert all(sorted(values(st.zone("hand", player=p))) == [1, 2, 3, 4, 5] for p in range(3))


# ---------------------------------------------------------------- G3-G7: OpenSpiel's rules, prize by prize

def play_with_oracle(players: int, seed: int, rng: random.Random) -> rulesdsl.State:
    """A random game, each prize checked against OpenSpiel's DoApplyActions: the unique highest
    bid takes the prize's value, a tie for the highest discards it; the last cards go unasked."""
    st = game_for(players).new_game(seed=seed, log=False)
    expected = points(st)

    def score(bids: list[int], prize: int) -> None:  # G5
        if bids.count(max(bids)) == 1:
            expected[bids.index(max(bids))] += prize

    while not st.is_over:
        hands = [values(st.zone("hand", player=p)) for p in range(players)]
        prize = values(st.zone("prize"))[-1]              # G3: the turn began with a prize turned up
        coming = values(st.zone("prizes"))
        bids = []
        for p in range(players):                          # G4: every seat, in seat order
            assert st.current_player == p
            texts = st.move_texts()
            assert sorted(int(t.removeprefix("bid ")) for t in texts) == sorted(hands[p])
            i = rng.randrange(len(texts))
            bids.append(int(texts[i].removeprefix("bid ")))
            st.apply_index(i)
        score(bids, prize)
        last = 0
        if len(coming) == 1:                              # G4: the last prize: the last cards, unasked
            score([next(v for v in h if v != b) for h, b in zip(hands, bids, strict=True)], coming[0])
            last = 1
        else:
            assert values(st.zone("prize")) == coming[-1:]  # G3: the next turn turns up the top prize
        assert points(st) == expected, (bids, prize)
        for p in range(players):
            assert values(st.zone("played", player=p))[-1 - last] == bids[p]
    return st


@pytest.mark.parametrize("players", [2, 3, 4])
def test_G3_G7_every_prize_of_random_games_goes_as_in_openspiel(players):
    rng = random.Random(players)
    for seed in range(15):
        st = play_with_oracle(players, seed, rng)
        pts = points(st)
        assert st.turn == 13                              # G6: thirteen prizes
        assert sorted(st.winners) == [p for p in range(players) if pts[p] == max(pts)]   # G7
        assert [sum(values(st.zone("won", player=p))) for p in range(players)] == pts
        assert sum(pts) + sum(values(st.zone("discarded"))) == 91


def test_G4_a_game_asks_twelve_bids_of_each_seat():
    st = game_for(3).new_game(seed=5, log=False)
    asked = [0, 0, 0]
    while not st.is_over:
        if st.move_texts() != ["prize"]:
            asked[st.current_player] += 1
        st.apply_index(0)
    assert asked == [12, 12, 12]


# ---------------------------------------------------------------- G4: sealed bids

@pytest.mark.parametrize("players", [2, 3])
def test_G4_no_later_bidder_sees_an_earlier_bid(players):
    """Alice bids 3 or 11: everything bob (and carol) can see is the same, moves included."""
    low, high = bid_for_prize(players, 7), bid_for_prize(players, 7)
    low.apply("bid 3")
    high.apply("bid 11")
    for p in range(1, players):
        assert low.view(p) == high.view(p)
        assert low.events_for(p) == high.events_for(p)
    assert low.current_player == high.current_player == BOB
    assert low.move_texts() == high.move_texts()
    assert "alice: bid 3" in low.events_for(ALICE)
    assert "alice: bid 3" not in "\n".join(low.events_for(BOB))


def test_G4_the_bids_are_revealed_together_once_all_have_bid():
    st = bid_for_prize(2, 7)
    st.apply("bid 3")
    st.apply("bid 11")
    bobs = "\n".join(st.events_for(BOB))
    assert "alice.bid" in bobs and "3" in bobs
    assert values(st.zone("played", player=ALICE)) == [3]


def test_G4_a_search_bot_world_guesses_an_earlier_bid_from_the_hand():
    """Bob's worlds draw alice's bid from her hand: never always the real one."""
    st = bid_for_prize(2, 7)
    st.apply("bid 3")
    seen = set()
    for k in range(40):
        world = st.determinize(BOB, random.Random(k))
        assert world.view(BOB) == st.view(BOB) and world.move_texts() == st.move_texts()
        world.apply("bid 13")
        seen.add(values(world.zone("played", player=ALICE))[-1])
    assert len(seen) > 3


def test_G4_a_search_bot_bids_the_same_whatever_the_earlier_bid():
    """The ISMCTS bot bidding second, with the same seed, after alice bid 1 or 13: the same bid."""
    from rulesdsl.bots import make_bot

    for seed in range(3):
        picks = set()
        for alice in ("bid 1", "bid 13"):
            st = bid_for_prize(2, seed)
            st.apply(alice)
            picks.add(st.move_texts()[make_bot("ismcts:100", seed=7).choose(st)])
        assert len(picks) == 1


def test_G4_a_save_between_two_bids_resumes_with_the_bid_kept_secret():
    st = bid_for_prize(2, 7)
    st.apply("bid 3")
    back = rulesdsl.State.from_json(st.game, st.to_json())
    assert back.view(BOB) == st.view(BOB) and back.move_texts() == st.move_texts()
    back.apply("bid 13")
    assert values(back.zone("played", player=ALICE)) == [3]


# ---------------------------------------------------------------- the tools run it

def test_openspiel_comparison_bench_plays_20_games_in_each_engine():
    pytest.importorskip("pyspiel")
    bench = load_bench()
    a = bench.play_rulesdsl("goofspiel", 20, 1, 3)
    b = bench.play_openspiel("goofspiel", 20, 1, 3)
    rows = {r.metric: r for r in bench.compare(a, b)}
    assert {"turns", "drawn", "seat 0 wins", "bids"} <= set(rows)
    assert rows["turns"].mean_a == rows["turns"].mean_b == 13
    assert rows["bids"].mean_a == rows["bids"].mean_b == 36


def test_the_speed_bench_plays_the_new_games(capsys):
    spec = importlib.util.spec_from_file_location("games_speed", ROOT / "bench" / "games_speed.py")
    speed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(speed)
    assert speed.main(["goofspiel:3", "slapjack:2", "hearts:4", "--games", "2", "--repeats", "1", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| goofspiel | 3 | 2 | 36.0 |" in out and "| hearts | 4 |" in out  # (12 bids each: 13 turns)


def test_a_whole_game_plays_at_the_terminal_with_piped_input():
    out = play_at_the_terminal("goofspiel.rules", 2, 4)
    assert "alice> 1" in out and "The game is over." in out and "points" in out
