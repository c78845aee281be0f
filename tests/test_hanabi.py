"""Hanabi, rule by rule (H1..H10 of games/hanabi.rules, written from OpenSpiel's `hanabi`): an
oracle that follows the published rules through random games and holds the engine to them, what
each seat knows of its own hand (only what hints told it), the move texts of partial knowledge,
the bots, and a lockstep replay of OpenSpiel's own games when OpenSpiel is installed.

The scenarios of games/hanabi.test.rules test each rule once on a stacked table; these tests check
the same rules in every move random play reaches, with two and with three players.
"""

from __future__ import annotations

import functools
import random
import sys
from collections import Counter

import pytest

import rulesdsl
from rulesdsl.bots import GreedyBot, ISMCTSBot
from rulesdsl.errors import RulesError
from tests.conftest import GAMES, ROOT, run_cli

COLORS = "RYGWB"
DECK = Counter(f"{c}{r}" for c in COLORS for r, k in zip(range(1, 6), (3, 2, 2, 2, 1), strict=True) for _ in range(k))


@functools.cache
def game_for(players: int = 2) -> rulesdsl.Game:
    return rulesdsl.load(GAMES / "hanabi.rules", players=players)


def hand(st: rulesdsl.State, p: int) -> list[int]:
    return st.zones[st.game.zone_index("hand", p)]


def told(st: rulesdsl.State, c: int, seat: int) -> set[str]:
    masks = st.partial.get(c)
    if masks is None:
        return set()
    return {a for a, m in zip(st.game.partial_attrs, masks, strict=True) if m >> seat & 1}


def pick(texts: list[str], rng: random.Random, cautious: bool) -> int:
    """Uniform, or mostly hints and discards (so that games reach the end of the deck)."""
    if cautious:
        rest = [i for i, t in enumerate(texts) if not t.startswith("play ")]
        if rest and rng.random() > 0.05:
            return rest[rng.randrange(len(rest))]
    return rng.randrange(len(texts))


class Oracle:
    """The published rules, kept by hand beside the engine: tokens, fuses, fireworks, what each
    owner was told of each card of its hand, and the turns left once the deck is out."""

    def __init__(self, st: rulesdsl.State):
        self.n = st.game.players
        self.information, self.lives = 8, 3
        self.heights = dict.fromkeys(COLORS, 0)
        self.hinted: dict[int, set[str]] = {}  # card -> the attributes its owner was told
        self.turns_left: int | None = None
        self.pending_hint: tuple[str, str] | None = None  # (attribute, value), its target asked next

    def move(self, st: rulesdsl.State, text: str) -> None:
        g, me = st.game, st.current_player
        words = text.split()
        if words[0] == "hint":
            value = words[1]
            attr = "rank" if value.isdigit() else "color"
            if self.n == 2:
                self.tell(st, (me + 1) % 2, attr, value)
            else:
                self.pending_hint = (attr, value)
            return
        if words[0] == "to":
            self.tell(st, g.names.index(words[1]), *self.pending_hint)
            return
        place = int(words[2].lstrip("#"))
        cards = hand(st, me)
        c = cards[len(cards) - place]
        color, rank = g.attrs["color"][c], g.attrs["rank"][c]
        if words[0] == "discard":
            assert self.information < 8, "H5: no discard with every information token in hand"
            self.information += 1
        elif rank == self.heights[color] + 1:
            self.heights[color] += 1
            if rank == 5 and self.information < 8:
                self.information += 1
        else:
            self.lives -= 1

    def tell(self, st: rulesdsl.State, target: int, attr: str, value: str) -> None:
        self.information -= 1
        touched = [c for c in hand(st, target) if str(st.game.attrs[attr][c]) == value]
        assert touched, "H4: a hint touches at least one card"
        for c in touched:
            self.hinted.setdefault(c, set()).add(attr)


def play_and_check(players: int, seed: int, cautious: bool) -> rulesdsl.State:
    """One random game, the oracle checked after every move."""
    st = game_for(players).new_game(seed=seed)
    g = st.game
    assert Counter(st.zone("deck")) + sum((Counter(st.zone("hand", p)) for p in range(players)), Counter()) == DECK
    oracle = Oracle(st)
    rng = random.Random(seed)
    deck_out_turn = None
    while not st.is_over:
        me = st.current_player
        texts = st.move_texts()
        for p in range(players):  # H3: every hand is seen by the others, not by its owner
            for c in hand(st, p):
                assert st.known[c] == g.all_mask & ~(1 << p)
                assert told(st, c, p) == oracle.hinted.get(c, set()), "H4: the owner knows what it was told"
        for t in texts:  # its own cards, by place, with what it was told of them
            if t.startswith(("play ", "discard ")):
                cards = hand(st, me)
                c = cards[len(cards) - int(t.split()[2].lstrip("#"))]
                note = g.partial_text(st, c, me)
                assert t.endswith(f" ({note})") if oracle.hinted.get(c) else "(" not in t
        text = texts[pick(texts, rng, cautious)]
        oracle.move(st, text)
        st.apply(text)
        assert st.counter("information") == oracle.information and st.counter("lives") == oracle.lives
        assert {k: sum(f[0] == k for f in st.zone("fireworks")) for k in COLORS} == oracle.heights
        if deck_out_turn is None and not st.zone("deck"):
            deck_out_turn = st.turn if st.is_over else st.turn - 1  # (the move began the next turn)
    # H7-H9: the game ended with the last fuse, a complete show, or a round after the deck ran out
    score = sum(oracle.heights.values())
    if oracle.lives > 0 and score < 25:
        assert deck_out_turn is not None and st.turn == deck_out_turn + players
    assert st.value("score") == (0 if oracle.lives == 0 else score)                      # H10
    assert st.winners == (list(range(players)) if st.value("score") >= 1 else [])
    return st


@pytest.mark.parametrize("players", [2, 3])
def test_H1_to_H10_random_games_follow_the_published_rules(players):
    ends = Counter()
    for seed in range(12):
        st = play_and_check(players, seed, cautious=seed % 3 != 0)
        ends["fuses" if st.counter("lives") == 0 else "deck"] += 1
    assert ends["fuses"] and ends["deck"], "both ends reached"


def test_H3_the_owner_never_sees_its_own_cards_in_its_view_or_log():
    """Only what a hint told: the owner's view of its hand is `5 cards`, then `known: R?`; its log
    never shows a face of its hand (the others' logs and views do)."""
    st = game_for().new_game(seed=5)
    mine = [st.game.card_text[c] for c in hand(st, 0)]
    assert "alice (you)  5 cards\n" in st.view(0)
    assert all(f in st.view(1) for f in mine)
    color = st.game.attrs["color"][hand(st, 1)[0]]
    st.apply(f"hint {color}")
    bob = st.view(1)
    assert f"bob (you)    5 cards; known: {color}?" in bob
    row = next(line for line in bob.splitlines() if "bob (you)" in line)
    assert not any(f in row.split("known:")[1].split() for f in (st.game.card_text[c] for c in hand(st, 1)))
    k = sum(st.game.attrs["color"][c] == color for c in hand(st, 1))
    (shown,) = [e for e in st.events_for(1) if "is shown the color" in e]
    assert shown.endswith(": " + " ".join([color] * k))


def test_H4_a_move_shows_what_its_chooser_was_told_and_may_be_typed_without_it():
    st = game_for().new_game(seed=5)
    bob = hand(st, 1)
    rank = st.game.attrs["rank"][bob[-1]]  # bob's newest card, `#1`
    st.apply(f"hint {rank}")
    assert f"play bob.hand #1 (?{rank})" in st.move_texts()
    st.apply("play bob.hand #1")  # the place alone names it
    assert f"bob: play bob.hand #1 (?{rank})" in st.events_for(0)


def test_a_note_in_the_log_is_read_only_by_those_who_may_know_it():
    """Partial knowledge of a card nobody else sees (tests/data/colour_hints.rules: hands hidden
    from everyone): the chooser's log has its move with the colour it was told, the others' without."""
    game = rulesdsl.load(ROOT / "tests" / "data" / "colour_hints.rules", players=2)
    st = game.new_game(3)
    st.apply("colour r")
    noted = [t for t in st.move_texts() if t.endswith("(?r)") and t.startswith("play")]
    assert noted
    st.apply(noted[0])
    assert any(e == f"bob: {noted[0]}" for e in st.events_for(1))
    assert any(e == f"bob: {noted[0].rsplit(' (', 1)[0]}" for e in st.events_for(0))


def test_worlds_sampled_for_a_seat_keep_what_it_was_told_and_its_view():
    """Determinization (what the search bots play in): a seat's own cards are dealt again, each
    place keeping the colour or rank the seat was told, and the others' hands stay as they are."""
    game = game_for()
    for seed in range(6):
        st = game.new_game(seed=seed, log=False)
        rng = random.Random(seed)
        for _ in range(30):
            if st.is_over:
                break
            texts = st.move_texts()
            st.apply(pick(texts, rng, cautious=True))
            for p in range(2):
                places = [(i, told(st, c, p), {a: st.game.attrs[a][c] for a in told(st, c, p)})
                          for i, c in enumerate(hand(st, p))]
                w = st.determinize(p, random.Random(seed))
                assert w.view(p, events=0) == st.view(p, events=0)
                assert w.zone("hand", 1 - p) == st.zone("hand", 1 - p)
                for i, attrs, values in places:
                    c = hand(w, p)[i]
                    assert told(w, c, p) == attrs and all(w.game.attrs[a][c] == v for a, v in values.items())
                if p == st.current_player:
                    assert w.move_texts() == st.move_texts()


@pytest.mark.parametrize("bot", [ISMCTSBot(1, iterations=10, playout_limit=60),
                                 GreedyBot(2, samples=2, playout_limit=60)], ids=["ismcts", "greedy"])
def test_the_bots_play_it_to_the_end(bot):
    st = game_for().new_game(seed=7, log=False)
    while not st.is_over:
        st.apply_index(bot.choose(st))
    assert st.counter("lives") >= 0 and st.value("score") in range(26)


def test_others_is_a_zone_of_a_player_only(tmp_path):
    bad = tmp_path / "others_table.rules"
    text = (GAMES / "hanabi.rules").read_text().replace("zone discard: stack, public", "zone discard: stack, others")
    bad.write_text(text)
    with pytest.raises(RulesError) as e:
        rulesdsl.load(bad)
    line = text[: text.index("zone discard")].count("\n") + 1
    assert f"{bad.name}:{line}:1: error: zone 'discard' is others but has no owner" in str(e.value)


def test_memory_keeps_the_others_hands_in_sight_and_fades_a_hint():
    """`play --memory`: bob's hand, held facing alice, stays in her view; what she was told of her own
    cards fades after a turn, from her view and from her moves, as any card she does not see."""
    for memory in (False, True):
        _, out, _ = run_cli("play", str(GAMES / "hanabi.rules"), "--seed", "3", *(["--memory"] * memory),
                            stdin="1\n" * 6)
        views = [v.rsplit("Hanabi · ", 1)[-1] for v in out.split("Your moves:")[:-1]]
        bob = [line for v in views for line in v.splitlines() if line.startswith("  bob    ")]
        assert len(bob) >= 6 and all("?" not in line and "cards" not in line for line in bob)
        moves = out.split("Your moves:")[-1]  # her last turn's: she was told colours two turns before
        assert ("(Y?)" in moves) is not memory and "play alice.hand #5" in moves


@pytest.mark.skipif("pyspiel" not in sys.modules and not __import__("importlib").util.find_spec("pyspiel"),
                    reason="OpenSpiel is not installed")
def test_openspiel_deals_and_moves_replayed_here_give_the_same_options_and_end():
    """bench/openspiel_hanabi.py's lockstep: OpenSpiel plays a game; the same deal and moves here
    offer the same moves at every turn and end with the same score, fuses, tokens and deck."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import openspiel_hanabi
    finally:
        sys.path.remove(str(ROOT / "bench"))
    problems = [p for seed in range(10) for p in openspiel_hanabi.lockstep(seed, cautious=seed % 2 == 1)]
    assert problems == []
