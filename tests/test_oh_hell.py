"""Oh Hell, rule by rule (O1..O9 of games/oh_hell.rules, from OpenSpiel's `oh_hell` and the
published rules it follows): an oracle that recomputes, in Python, the bids open to each player
(O4, O5), the cards open to each play (O6), the winner of every trick (O7) and every score (O8),
and holds the engine to them over random games of every player count; the hand size drawn at
random (O2); the secrecy of the hands; the bots and the tools on it.

The scenarios of games/oh_hell.test.rules test each rule once on a stacked table.
"""

from __future__ import annotations

import functools
import importlib.util
import random
import sys
from collections import Counter

import pytest

import rulesdsl
from tests.conftest import GAMES, ROOT, run_cli
from tests.test_crazy_eights import load_bench, play_at_the_terminal

ORDER = {r: i for i, r in enumerate(("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))}


@functools.cache
def game_for(players: int = 3, **params) -> rulesdsl.Game:
    return rulesdsl.load(GAMES / "oh_hell.rules", players=players, **params)


def suit(face: str) -> str:
    return face[-1]


def rank(face: str) -> str:
    return face[:-1]


def trick_winner(trick: list[tuple[int, str]], trump: str) -> int:
    """O7 as published: the highest trump, else the highest card of the suit led (aces high)."""
    trumps = [t for t in trick if suit(t[1]) == trump]
    contenders = trumps or [t for t in trick if suit(t[1]) == suit(trick[0][1])]
    return max(contenders, key=lambda t: ORDER[rank(t[1])])[0]


def legal_cards(hand: list[str], trick: list[tuple[int, str]]) -> set[str]:
    """O6: follow the suit led if you can, else any card."""
    if not trick:
        return set(hand)
    follow = {f for f in hand if suit(f) == suit(trick[0][1])}
    return follow or set(hand)


def legal_bids(tricks: int, earlier: list[int], last: bool) -> set[int]:
    """O4, O5: 0 to the number of tricks; the last bidder may not make the total the tricks."""
    return {b for b in range(tricks + 1) if not (last and b + sum(earlier) == tricks)}


def score(won: int, bid: int, penalty: bool = False, per_trick: int = 1) -> int:
    """O8: a point a trick and ten for the exact bid; with the off-bid penalty, a missed bid
    costs a point a trick of difference instead."""
    if won == bid:
        return per_trick * won + 10
    return -per_trick * abs(won - bid) if penalty else per_trick * won


def play_checked(st: rulesdsl.State, rng: random.Random, penalty: bool = False, per_trick: int = 1) -> None:
    """A whole game at random, every decision checked against the oracle."""
    n = st.game.players
    tricks = st.value("tricks")
    dealer = st.value("dealer")
    trump = suit(st.zone("trump_card")[0])
    assert all(len(st.zone("hand", player=p)) == tricks for p in range(n))            # O2
    assert len(st.zone("deck")) == 52 - n * tricks - 1                                  # O3
    bids: list[int] = []
    for k in range(n):                                       # O4: from the dealer's left, once each
        p = (dealer + 1 + k) % n
        assert st.current_player == p
        offered = {int(t.removeprefix("bid ")) for t in st.move_texts()}
        assert offered == legal_bids(tricks, bids, k == n - 1)                           # O5
        i = rng.randrange(st.num_moves())
        bids.append(int(st.move_texts()[i].removeprefix("bid ")))
        st.apply_index(i)
    bid_of = {(dealer + 1 + k) % n: b for k, b in enumerate(bids)}
    assert sum(bids) != tricks
    won = [0] * n
    leader = (dealer + 1) % n
    for _ in range(tricks):
        assert st.current_player == leader                   # O4, O7: the dealer's left, then the winner
        trick: list[tuple[int, str]] = []
        for _ in range(n):
            p = st.current_player
            texts = st.move_texts()
            expected = legal_cards(st.zone("hand", player=p), trick)
            assert {t.removeprefix("play ") for t in texts} == expected                   # O6
            i = rng.randrange(len(texts))
            trick.append((p, texts[i].removeprefix("play ")))
            st.apply_index(i)
        leader = trick_winner(trick, trump)
        won[leader] += 1
        assert [st.counter("won", p) for p in range(n)] == won                            # O7
    assert st.is_over
    scores = [st.counter("score", p) for p in range(n)]
    assert scores == [score(won[p], bid_of[p], penalty, per_trick) for p in range(n)]    # O8
    assert sorted(st.winners) == [p for p in range(n) if scores[p] == max(scores)]        # O9


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_O2_to_O9_random_games_follow_the_published_rules(players):
    for seed in range(6):
        play_checked(game_for(players).new_game(seed=seed, log=False), random.Random(seed))


def test_O8_the_off_bid_penalty_and_the_points_a_trick_are_parameters():
    game = game_for(4, off_bid_penalty=True, points_per_trick=3)
    for seed in range(6):
        play_checked(game.new_game(seed=seed, log=False), random.Random(seed), penalty=True, per_trick=3)


def test_O2_a_fixed_hand_size_deals_that_many():
    game = game_for(5, num_tricks_fixed=4)
    for seed in range(3):
        st = game.new_game(seed=seed, log=False)
        assert st.value("tricks") == 4
        play_checked(st, random.Random(seed))


def test_O2_the_hand_size_is_drawn_from_every_size_the_deck_allows():
    """1 to 51 // players, each as likely (OpenSpiel's chance node); with 400 games of three
    players each of the 17 sizes comes up (about 24 times each)."""
    sizes = Counter(game_for(3).new_game(seed=s, log=False).value("tricks") for s in range(400))
    assert set(sizes) == set(range(1, 18))
    assert max(sizes.values()) < 3 * min(sizes.values())
    assert {game_for(7).new_game(seed=s, log=False).value("tricks") for s in range(100)} == set(range(1, 8))


def test_O2_the_dealer_is_drawn_at_random():
    assert {game_for(4).new_game(seed=s, log=False).value("dealer") for s in range(40)} == {0, 1, 2, 3}


# ---------------------------------------------------------------- what each seat knows

def test_O1_a_seat_sees_its_own_hand_the_trump_card_and_the_bids_but_not_the_other_hands():
    st = game_for(3, num_tricks_fixed=5).new_game(seed=2)
    rng = random.Random(2)
    for _ in range(3):                                       # the three bids
        st.apply_index(rng.randrange(st.num_moves()))
    hands = {p: st.zone("hand", player=p) for p in range(3)}
    trump = st.zone("trump_card")[0]
    for p in range(3):
        view = st.view(p)
        assert trump in view and all(f in view for f in hands[p])
        others = [f for q in range(3) if q != p for f in hands[q] if f != trump]
        assert not any(f" {f}" in view.split("player", 1)[1] for f in others if f not in hands[p])
        assert all(f"bid {st.counter('bid', q)}" in "\n".join(st.events_for(p)) for q in range(3))


def test_O7_the_cards_played_stay_known_to_everyone():
    st = game_for(3, num_tricks_fixed=4).new_game(seed=5, log=False)
    rng = random.Random(5)
    while not st.is_over:
        st.apply_index(rng.randrange(st.num_moves()))
    played = st.zone("played")
    assert len(played) == 12
    for p in range(3):
        assert all(f in st.view(p) for f in played[-6:])    # the view lists the last cards played


# ---------------------------------------------------------------- bots and tools

@pytest.mark.parametrize("bot", ["greedy:2", "ismcts:20"])
def test_the_bots_play_whole_games(bot):
    from rulesdsl.bots import make_bot

    for players in (3, 5):
        st = game_for(players).new_game(seed=players, log=False)
        bots = [make_bot(bot, seed=p) for p in range(players)]
        while not st.is_over:
            i = bots[st.current_player].choose(st)
            assert 0 <= i < st.num_moves()
            st.apply_index(i)
        assert st.winners


def test_ismcts_against_random_bots_in_the_arena():
    code, out, err = run_cli("arena", str(GAMES / "oh_hell.rules"), "--bots", "ismcts:10,random,random",
                             "--games", "6", "--workers", "1")
    assert code == 0, err
    assert "ismcts:10" in out and "random" in out and "win rate" in out


def test_a_whole_game_plays_at_the_terminal_with_piped_input():
    out = play_at_the_terminal("oh_hell.rules", 4, 3)
    assert "alice> 1" in out and "bid " in out and "takes the trick" in out and "The game is over." in out


def load_oh_hell_bench():
    """bench/openspiel_oh_hell.py, which imports bench/openspiel_compare.py by name."""
    load_bench()
    spec = importlib.util.spec_from_file_location("openspiel_oh_hell", ROOT / "bench" / "openspiel_oh_hell.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_openspiel_comparison_bench_plays_20_games_in_each_engine():
    pytest.importorskip("pyspiel")
    bench = load_oh_hell_bench()
    a = bench.play_rulesdsl("oh_hell", 20, 1, 4)
    b = bench.play_openspiel("oh_hell", 20, 1, 4)
    for run in (a, b):
        tricks, decisions = run.metrics["tricks (hand size)"], run.metrics["decisions"]
        assert all(d == 4 + 4 * t for d, t in zip(decisions, tricks, strict=True))   # a bid each, a card a trick
        assert all(b != 0 for b in run.metrics["bids over tricks"])                   # O5 in both
    rows = {r.metric for r in load_bench().compare(a, b)}
    assert {"exact bids", "tricks won with a trump", "return of seat 3"} <= rows


def test_openspiel_compare_dispatches_oh_hell_to_its_module(capsys):
    pytest.importorskip("pyspiel")
    load_oh_hell_bench()
    bench = sys.modules["openspiel_compare"]
    assert bench.main(["--game", "oh_hell", "--games", "10"]) == 0
    assert "oh_hell: 10 games each" in capsys.readouterr().out
