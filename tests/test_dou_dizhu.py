"""Dou Dizhu, rule by rule (D1..D11 of games/dou_dizhu.rules, written from OpenSpiel's
`dou_dizhu`): an oracle that lists the legal plays of a hand by brute force over every set of its
cards, read by the published rules (OpenSpiel's), held against the engine's options in random
games and constructed hands; the bidding and the score recomputed; bots that play it.

The scenarios of games/dou_dizhu.test.rules test each rule once on a stacked table; these tests
check the same rules in every state random play reaches. Where OpenSpiel is installed, the oracle
itself is held against OpenSpiel's legal actions, so that it is OpenSpiel's game we check.
"""

from __future__ import annotations

import functools
import random
from collections import Counter

import pytest

import rulesdsl
from tests.conftest import GAMES

LEVEL = {**{str(n): n for n in range(3, 11)}, "J": 11, "Q": 12, "K": 13, "A": 14, "2": 15, "BJ": 16, "RJ": 17}
FACE = {v: k for k, v in LEVEL.items()}
ACE, BLACK, RED = 14, 16, 17
Key = tuple[str, tuple[int, ...]]     # a play: its kind and its ranks, sorted


@functools.cache
def game() -> rulesdsl.Game:
    return rulesdsl.load(GAMES / "dou_dizhu.rules")


# ---------------------------------------------------------------- the oracle (D7, D8)

def readings(s: Counter, hand: Counter) -> set[tuple[str, int]]:
    """Every (kind, rank) the set of ranks `s` can be played as from `hand` (D7): the rank is what
    D8 compares, a chain's lowest, a trio's or a plane's first trio."""
    n, levels = sum(s.values()), sorted(s)
    out: set[tuple[str, int]] = set()
    if len(levels) == 1 and n <= 4:
        out.add((("single", "pair", "trio", "bomb")[n - 1], levels[0]))
    if s == Counter({BLACK: 1, RED: 1}):
        out.add(("rocket", RED))
    run = levels[-1] <= ACE and levels[-1] - levels[0] == len(levels) - 1
    for m, least, kind in ((1, 5, "chain"), (2, 3, "pairs"), (3, 2, "plane")):
        # OpenSpiel starts no chain at a rank the player holds four of
        if run and len(levels) >= least and set(s.values()) == {m} and hand[levels[0]] < 4:
            out.add((kind, levels[0]))
    if len(levels) == 2 and sorted(s.values()) in ([1, 3], [2, 3]):
        out.add(("trio+single" if n == 4 else "trio+pair", next(r for r in levels if s[r] == 3)))
    for k in (n // 4, n // 5) if n >= 8 and sum(c == 3 for c in s.values()) >= 2 else ():
        for h in range(3, ACE - k + 2):
            body = range(h, h + k)
            if any(s[r] != 3 for r in body):
                continue
            rest = Counter({r: c for r, c in s.items() if r not in body})
            if sum(rest.values()) == k and max(rest.values()) <= 3 and not (rest[BLACK] and rest[RED]):
                out.add(("plane+singles", h))
            if len(rest) == k and set(rest.values()) == {2}:
                out.add(("plane+pairs", h))
    return out


def subsets(hand: Counter, sizes: set[int] | None = None):
    """Every set of cards of the hand, by ranks (identical cards are one), of one of these sizes."""
    levels = sorted(hand)
    most = sum(hand.values()) if sizes is None else max(sizes)

    def grow(i: int, picked: list[tuple[int, int]], n: int):
        if i == len(levels):
            if n and (sizes is None or n in sizes):
                yield Counter(dict(picked))
            return
        for c in range(min(hand[levels[i]], most - n) + 1):
            yield from grow(i + 1, picked + [(levels[i], c)] if c else picked, n + c)

    yield from grow(0, [], 0)


def legal_plays(hand: Counter, last: tuple[str, int, int] | None) -> set[Key]:
    """The plays open to `hand` (D6-D8): after `last` = (kind, cards, rank) of the play to beat, or
    leading (None). Brute force over every set of cards of the hand."""
    out: set[Key] = set()
    sizes = None if last is None else {last[1], 4, 2}
    for s in subsets(hand, sizes):
        cards = tuple(sorted(s.elements()))
        for kind, rank in readings(s, hand):
            if (last is None or kind == "rocket"
                    or (kind == "bomb" and last[0] != "bomb")       # OpenSpiel: a bomb beats the rocket
                    or (kind == last[0] and len(cards) == last[1] and rank > last[2])):
                out.add((kind, cards))
    return out


# ---------------------------------------------------------------- the oracle is OpenSpiel's game

OS_RANK = {c: r for r, c in enumerate("3456789TJQKA2", start=3)}          # OpenSpiel's rank letters
OS_FIRST = (4, 19, 55, 68, 120, 133, 315, 471, 516, 23104, 26043, 26056)   # OpenSpiel's action ids by kind
OS_KIND = ("single", "chain", "pair", "pairs", "trio", "trio+single", "trio+pair", "plane", "plane+singles",
           "plane+pairs", "bomb", "rocket")


def os_play(st, action: int) -> tuple[str, tuple[int, ...], int]:
    """An OpenSpiel play action as (kind, ranks, the rank it is compared by): a plane with
    attachments is written with its trios first, then '-' and the attachments."""
    kind = OS_KIND[max(i for i, a in enumerate(OS_FIRST) if a <= action)]
    text = st.action_to_string(st.current_player(), action).replace("(BWJ)", "b").replace("(CJ)", "r")
    ranks = [BLACK if c == "b" else RED if c == "r" else OS_RANK[c] for c in text.replace("-", "")]
    rank = ranks[0] if "-" in text else max(ranks, key=ranks.count) if kind.startswith("trio") else ranks[0]
    return kind, tuple(sorted(ranks)), rank if kind not in ("chain", "pairs", "plane") else min(ranks)


def os_hand(st, seat: int) -> Counter:
    text = st.observation_string(seat).split("\n")[0].removeprefix("My hand ")
    text = text.replace("(BWJ)", "b").replace("(CJ)", "r")
    return Counter(BLACK if c == "b" else RED if c == "r" else OS_RANK[c] for c in text)


def test_the_oracle_lists_openspiels_legal_plays_in_random_games():
    pyspiel = pytest.importorskip("pyspiel")
    g = pyspiel.load_game("dou_dizhu")
    rng = random.Random(7)
    checked = leads = 0
    for _ in range(15):
        st = g.new_initial_state()
        last: tuple[str, int, int] | None = None
        passes = 0
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(rng.choice([o for o, _ in st.chance_outcomes()]))
                continue
            legal = st.legal_actions()
            a = legal[rng.randrange(len(legal))]
            if max(legal) <= 3 and len(legal) > 1:      # a bid (D3)
                st.apply_action(a)
                continue
            hand = os_hand(st, st.current_player())
            if last is not None or sum(hand.values()) <= 12:    # (a big hand's brute force is slow)
                expected = {os_play(st, x)[:2] for x in legal if x}
                assert legal_plays(hand, last) == expected, (hand, last)
                checked += 1
                leads += last is None
            if a:
                kind, cards, rank = os_play(st, a)
                last, passes = (kind, len(cards), rank), 0
            else:
                passes += 1
                if passes == 2:
                    last, passes = None, 0
            st.apply_action(a)
    assert checked > 300 and leads > 15


# ---------------------------------------------------------------- the engine's moves are the oracle's

def hand_of(st: rulesdsl.State, seat: int) -> Counter:
    return Counter(LEVEL[f] for f in st.zone("hand", seat))


def last_play(st: rulesdsl.State) -> tuple[str, int, int] | None:
    """The play to beat, as the rules keep it (D8), or None when the player leads."""
    kind = st.value("kind")
    return None if kind == "" else (kind, len(st.zone("trick")), st.value("head"))


def engine_plays(st: rulesdsl.State) -> set[Key]:
    """The options of a play decision as (kind, ranks): `single 7`, `trio+single 3 7 7 7`."""
    out = set()
    for text in st.move_texts():
        label, *faces = text.split(" ")
        if label != "pass":
            out.add((label, tuple(sorted(LEVEL[f] for f in faces))))
    return out


def play_states(games: int, seed: int, biggest_lead: int = 20):
    """Every play decision of `games` random games (leads only up to `biggest_lead` cards)."""
    rng = random.Random(seed)
    for i in range(games):
        st = game().new_game(seed=seed * 1000 + i, log=False)
        while not st.is_over:
            if st.turn > 0 and (last_play(st) is not None or len(st.zone("hand", st.current_player)) <= biggest_lead):
                yield st
            st.apply_index(rng.randrange(st.num_moves()))


def test_D6_D8_moves_are_the_oracles_in_every_state_of_random_games():
    checked = leads = 0
    for st in play_states(games=8, seed=1, biggest_lead=14):
        last = last_play(st)
        assert engine_plays(st) == legal_plays(hand_of(st, st.current_player), last), st.view(st.current_player)
        assert ("pass" in st.move_texts()) == (last is not None)             # D6: a leader cannot pass
        checked += 1
        leads += last is None
    assert checked > 200 and leads > 15


def landlord_leads(seed: int = 3) -> rulesdsl.State:
    """A game where the first bidder bid 3 and leads (D3, D5, D6)."""
    st = game().new_game(seed=seed, log=False)
    st.apply("bid 3")                                                      # D3: a bid of 3 wins at once
    assert st.turn > 0 and len(st.zone("hand", st.current_player)) == 20  # D5: the landlord leads
    return st


def test_D7_the_first_lead_of_a_full_hand_is_the_oracles():
    st = landlord_leads()
    assert engine_plays(st) == legal_plays(hand_of(st, st.current_player), None)


def faces(text: str) -> list[str]:
    return text.split(" ")


HAND = faces("3 3 3 4 4 4 5 5 5 6 6 6 7 7 8 8 9 J BJ RJ")     # planes, wings, chains, the rocket


def test_D7_D9_a_hand_of_planes_leads_the_oracles_plays():
    st = landlord_leads()
    me = st.current_player
    st.set_cards("hand", HAND, player=me)
    plays = engine_plays(st)
    assert plays == legal_plays(hand_of(st, me), None)
    kinds = Counter(k for k, _ in plays)
    assert kinds["plane+singles"] > 50 and kinds["plane+pairs"] > 0 and kinds["rocket"] == 1
    texts = st.move_texts()
    # D9: twelve cards of four trios in a row are a plane, and a plane of three with singles
    assert "plane 3 3 3 4 4 4 5 5 5 6 6 6" in texts and "plane+singles 3 3 3 4 4 4 5 5 5 6 6 6" in texts
    assert "plane+singles 3 3 3 4 4 4 J BJ" in texts and "plane+singles 3 3 3 4 4 4 BJ RJ" not in texts
    assert "plane+pairs 3 3 3 4 4 4 7 7 8 8" in texts and "pairs 6 6 7 7 8 8" in texts


def test_D7_no_chain_starts_at_a_rank_held_four_times():
    st = landlord_leads()
    me = st.current_player
    st.set_cards("hand", faces("3 3 3 3 4 4 4 5 5 5 6 6 7 7 8 9 10 Q K A"), player=me)
    texts = st.move_texts()
    assert not any(t.startswith(("chain 3", "pairs 3", "plane 3")) for t in texts)   # OpenSpiel's quirk
    assert "chain 4 5 6 7 8" in texts and "pairs 4 4 5 5 6 6" in texts and "plane 4 4 4 5 5 5" in texts
    assert "bomb 3 3 3 3" in texts and "plane+singles 3 3 3 4 4 4 6 7" in texts     # (wings may)
    assert engine_plays(st) == legal_plays(hand_of(st, me), None)


# ---------------------------------------------------------------- the bidding (D3, D4) and the score (D11)

def auction(actions: list[int]) -> tuple[int | None, int, int]:
    """OpenSpiel's auction read from its rules (D3, D4): for the bids made in turn from the first
    bidder (0 a pass), the landlord's place after the first bidder (None: nobody bid), the winning
    bid, and how many of the actions it took."""
    bid, lord, in_row = 0, None, 0
    for i, a in enumerate(actions):
        in_row = in_row + 1 if a == 0 else 0
        if a:
            bid, lord = a, i % 3
        if a == 3 or (in_row == 2 and bid) or in_row == 3:
            return lord, bid, i + 1
    raise AssertionError("the auction goes on")


def test_D3_D4_the_bidding_of_random_games_is_openspiels_auction():
    rng = random.Random(5)
    ends = Counter()
    for seed in range(100):
        st = game().new_game(seed=seed, log=False)
        first, made = st.current_player, []
        while st.turn == 0 and not st.is_over:
            assert st.current_player == (first + len(made)) % 3                    # D3: in turn
            top = max(made, default=0)
            assert st.move_texts() == [f"bid {b}" for b in range(top + 1, 4)] + ["pass"]   # D3: higher
            k = rng.randrange(st.num_moves()) if seed % 10 else st.num_moves() - 1    # (some pass only)
            made.append(0 if st.move_texts()[k] == "pass" else int(st.move_texts()[k][4:]))
            st.apply_index(k)
        lord, bid, used = auction(made)
        assert used == len(made)
        if lord is None:                                                           # D4
            assert st.is_over and sorted(st.winners) == [0, 1, 2] and st.value("landlord") is None   # a draw
            ends["nobody"] += 1
        else:
            landlord = (first + lord) % 3
            assert st.value("bid") == bid and st.current_player == landlord        # D5, D6: it leads
            assert len(st.zone("hand", landlord)) == 20 and not st.zone("deck")    # D5
            ends[bid] += 1
    assert ends["nobody"] > 0 and ends[1] > 0 and ends[2] > 0 and ends[3] > 0


def test_D10_D11_returns_are_openspiels_score_of_the_plays_made():
    rng = random.Random(6)
    outcomes = Counter()
    for seed in range(40):
        st = game().new_game(seed=seed, log=False)
        plays, doubles = Counter(), 0
        while not st.is_over:
            k = rng.randrange(st.num_moves())
            text, seat = st.move_texts()[k], st.current_player
            if st.turn > 0 and text != "pass":
                plays[seat] += 1
                doubles += text.startswith(("bomb ", "rocket "))                  # D11
            st.apply_index(k)
        lord = st.value("landlord")
        points = [st.counter("points", p) for p in range(3)]
        if lord is None:
            assert points == [0, 0, 0]
            continue
        farmers = [p for p in range(3) if p != lord]
        spring = plays[lord] == 1 or not plays[farmers[0]] + plays[farmers[1]]
        stake = st.value("bid") * 2 ** (doubles + spring)
        won = not st.zone("hand", lord)                                             # D10
        assert points[lord] == (2 if won else -2) * stake
        assert all(points[f] == (-1 if won else 1) * stake for f in farmers)
        assert set(st.winners) == ({lord} if won else set(farmers))
        outcomes[won] += 1
    assert outcomes[True] and outcomes[False]


# ---------------------------------------------------------------- bots, and the OpenSpiel bench

def test_the_bots_play_whole_games():
    from rulesdsl.bots import GreedyBot, ISMCTSBot, RandomBot

    st = game().new_game(seed=2, log=False)
    bots = [ISMCTSBot(2, iterations=3, playout_limit=20), GreedyBot(2, samples=1, playout_limit=20), RandomBot(2)]
    moves = 0
    while not st.is_over:
        st.apply_index(bots[st.current_player].choose(st))
        moves += 1
    assert moves > 20 and st.winners


def test_openspiel_comparison_bench_plays_10_games_in_each_engine():
    pytest.importorskip("pyspiel")
    from tests.test_crazy_eights import load_bench

    bench = load_bench()
    a = bench.play_rulesdsl("dou_dizhu", 10, 1, None)
    b = bench.play_openspiel("dou_dizhu", 10, 1, None)
    assert {r.metric for r in bench.compare(a, b)} >= {"decisions", "bid decisions", "return of seat 0"}
    assert a.decisions > 100 and b.decisions > 100
