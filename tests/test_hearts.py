"""Hearts, rule by rule (H1..H10 of games/hearts.rules, from the traditional published rules):
an oracle that recomputes the legal cards of every play (H4-H6), the winner of every trick (H7)
and every hand's points (H9) in Python and holds the engine to them over random games; the pass
direction by hand (H3); and the secrecy of the pass made all at once: no seat's view, log or moves
depend on the cards an earlier seat chose to pass.

The scenarios of games/hearts.test.rules test each rule once on a stacked table.
"""

from __future__ import annotations

import functools
import random

import pytest

import rulesdsl
from tests.conftest import GAMES, run_cli

ALICE, BOB, CAROL, DAVE = range(4)
ORDER = {r: i for i, r in enumerate(("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))}


@functools.cache
def game_for(**params) -> rulesdsl.Game:
    return rulesdsl.load(GAMES / "hearts.rules", **params)


def suit(face: str) -> str:
    return face[-1]


def rank(face: str) -> str:
    return face[:-1]


def is_penalty(face: str) -> bool:
    return suit(face) == "♥" or face == "Q♠"


def points(face: str) -> int:
    return 1 if suit(face) == "♥" else 13 if face == "Q♠" else 0


def legal(hand: list[str], trick: list[str], first_trick: bool, broken: bool) -> set[str]:
    """H4-H6 as the published rules say them."""
    if not trick:
        if first_trick:
            return {"2♣"}
        if broken or all(suit(f) == "♥" for f in hand):
            return set(hand)
        return {f for f in hand if suit(f) != "♥"}
    led = suit(trick[0])
    follow = {f for f in hand if suit(f) == led}
    if follow:
        return follow
    if first_trick and not all(is_penalty(f) for f in hand):
        return {f for f in hand if not is_penalty(f)}
    return set(hand)


def scores(st: rulesdsl.State) -> list[int]:
    return [st.counter("score", p) for p in range(4)]


# ---------------------------------------------------------------- H2, H3: the deal and the pass

def test_H2_H3_thirteen_cards_each_then_the_pass_of_hand_1_goes_left():
    st = game_for().new_game(seed=1, log=False)
    assert all(len(st.zone("hand", player=p)) == 13 for p in range(4))
    assert st.current_player == ALICE
    assert all(t.startswith("pass left ") for t in st.move_texts()) and len(st.move_texts()) == 13


def pass_all(st: rulesdsl.State, rng: random.Random) -> dict[int, list[str]]:
    """Every seat passes three cards at random; what each passed."""
    passed: dict[int, list[str]] = {}
    while st.move_texts()[0].startswith("pass "):
        p = st.current_player
        i = rng.randrange(st.num_moves())
        passed.setdefault(p, []).append(st.move_texts()[i].rsplit(" ", 1)[1])
        st.apply_index(i)
    return passed


def play_hand(st: rulesdsl.State, rng: random.Random) -> list[int]:
    """The thirteen tricks of a hand at random, each play checked against the oracle (H4-H6) and
    each trick's winner (H7); the points each seat took (H9)."""
    broken = False
    taken = [0] * 4
    for trick_no in range(13):
        trick: list[tuple[int, str]] = []
        for _ in range(4):
            p = st.current_player
            hand = st.zone("hand", player=p)
            expected = legal(hand, [f for _, f in trick], trick_no == 0, broken)
            texts = st.move_texts()
            assert {t.removeprefix("play ") for t in texts} == expected, (hand, trick)
            i = rng.randrange(len(texts))
            face = texts[i].removeprefix("play ")
            trick.append((p, face))
            broken = broken or suit(face) == "♥"
            st.apply_index(i)
        led = suit(trick[0][1])
        winner = max((t for t in trick if suit(t[1]) == led), key=lambda t: ORDER[rank(t[1])])[0]
        taken[winner] += sum(points(f) for _, f in trick)
        if trick_no < 12:
            assert st.current_player == winner and st.zone("trick") == []   # H7: the winner leads
    return taken


@pytest.mark.parametrize("seed", range(4))
def test_H3_to_H9_random_hands_follow_the_published_rules(seed):
    rng = random.Random(seed)
    st = game_for().new_game(seed=seed, log=False)
    for hand_no in range(1, 6):
        if st.is_over:
            break
        assert st.round == hand_no
        way = {1: 1, 2: -1, 3: 2, 0: 0}[hand_no % 4]      # H3: left, right, across, keep
        before_pass = {p: set(st.zone("hand", player=p)) for p in range(4)}
        passed = pass_all(st, rng) if way else {}
        assert sorted(passed) == ([0, 1, 2, 3] if way else [])
        for p in range(4):
            hand = set(st.zone("hand", player=p))
            if way:
                giver = (p - way) % 4
                assert hand == (before_pass[p] - set(passed[p])) | set(passed[giver])
            else:
                assert hand == before_pass[p]
        leader = next(p for p in range(4) if "2♣" in st.zone("hand", player=p))
        assert st.current_player == leader                 # H4
        old = scores(st)
        taken = play_hand(st, rng)
        gained = [new - o for new, o in zip(scores(st), old, strict=True)]
        if 26 in taken:                                    # H9: shooting the moon
            assert gained == [0 if t == 26 else 26 for t in taken]
        else:
            assert gained == taken


# ---------------------------------------------------------------- H3: the pass is secret

def test_H3_no_later_seat_sees_the_cards_an_earlier_one_passes():
    a, b = game_for().new_game(seed=3), game_for().new_game(seed=3)
    a.apply_index(0)
    b.apply_index(5)
    for p in (BOB, CAROL, DAVE):
        assert a.view(p) == b.view(p)
        assert a.events_for(p) == b.events_for(p)
    for st in (a, b):
        st.apply_index(0)
        st.apply_index(0)
    assert a.current_player == b.current_player == BOB
    assert a.move_texts() == b.move_texts()
    assert a.view(BOB) == b.view(BOB) and a.events_for(CAROL) == b.events_for(CAROL)


def test_H3_the_fourth_hand_keeps_its_cards():
    st = game_for().new_game(seed=2, log=False)
    rng = random.Random(2)
    while not st.is_over and st.round < 4:
        st.apply_index(rng.randrange(st.num_moves()))
    if not st.is_over:
        assert st.move_texts()[0].startswith("play ")


def test_H10_the_score_to_reach_is_a_parameter():
    st = game_for(game_to=1).new_game(seed=1, log=False)
    rng = random.Random(1)
    while not st.is_over:
        st.apply_index(rng.randrange(st.num_moves()))
    assert st.round <= 3
    s = scores(st)
    assert sorted(st.winners) == [p for p in range(4) if s[p] == min(s)]


def test_a_whole_game_plays_at_the_terminal_with_piped_input():
    code, out, err = run_cli("play", str(GAMES / "hearts.rules"), "--seed", "4", "--set", "game_to=30",
                             stdin="1\n" * 400)
    assert code == 0, err
    assert "alice> 1" in out and "pass left" in out and "The game is over." in out
