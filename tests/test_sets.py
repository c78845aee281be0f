"""`choose set` (issue 21, item 1): several cards as one decision. The parser's node, the
checker's located errors, the options against a brute-force oracle (hypothesis, random hands and
conditions), distinct outcomes over identical cards, move texts and the log per seat, typing a set
at the prompt, the straight run against the machine, saves, and a search bot playing it."""

from __future__ import annotations

import functools
import itertools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl import ast
from rulesdsl.cli import match_move
from rulesdsl.engine.sets import consecutive
from rulesdsl.parser import parse_text

ROOT = Path(__file__).resolve().parent.parent
CLIMB = ROOT / "games/examples/climb.rules"
COLORS, NUMBERS = "rgb", range(1, 7)

DECK = "\n".join(f'    2 tile("{c}", {n})' for c in COLORS for n in NUMBERS)
GAME = """\
game "Sets"
players 2
card tile(color, number) shown "{color}{number}"
cards in deck {
%s
}
zone deck: stack, hidden
zone pile: stack, public
zone hand per player: hand
var k: int = 2

setup {
    shuffle deck
    deal 1 from deck to each hand
}

action play {
    choose set s in me.hand %s
    move s to pile
}

action wait {
}

game ends when count(pile) > 30
winners are players where empty(it.hand)
"""


def game_with(clause: str, players: int = 2, **kw):
    return rulesdsl.load_text(GAME % (DECK, clause), players=players, **kw)


@functools.cache
def cached(clause: str):
    return game_with(clause)


# The conditions the oracle knows: (the rules' text, the same in Python over (color, number) pairs).
def _distinct(xs):
    return list(dict.fromkeys(xs))


CONDITIONS = [
    ("", lambda s: True),
    ("with count(distinct(s.number)) == 1", lambda s: len({n for _, n in s}) == 1),
    ("with consecutive(s.number)", lambda s: consecutive([n for _, n in s])),
    ("with consecutive(distinct(s.number))", lambda s: consecutive(_distinct(n for _, n in s))),
    ("with count(distinct(s.color)) == 1 and consecutive(s.number)",
     lambda s: len({c for c, _ in s}) == 1 and consecutive([n for _, n in s])),
    ("with count(distinct(s.number)) == count(s)", lambda s: len({n for _, n in s}) == len(s)),
    ("with count(distinct(s.color)) <= 2", lambda s: len({c for c, _ in s}) <= 2),
    ("with count(distinct(s.number)) == k and count(s) >= 3", lambda s: len({n for _, n in s}) == 2 and len(s) >= 3),
    ("with sum(s.number) == 7", lambda s: sum(n for _, n in s) == 7),
    ("with count(s) == 2 or consecutive(s.number)", lambda s: len(s) == 2 or consecutive([n for _, n in s])),
    ("with count(distinct(s.number)) == 1 or (count(s) >= 3 and count(distinct(s.color)) == 1 "
     "and consecutive(s.number))",
     lambda s: len({n for _, n in s}) == 1 or (len(s) >= 3 and len({c for c, _ in s}) == 1
                                               and consecutive([n for _, n in s]))),
    ("with not (count(distinct(s.color)) == 1)", lambda s: len({c for c, _ in s}) != 1),
    ("with count(distinct(s.number)) >= 3", lambda s: len({n for _, n in s}) >= 3),
    ("with sum(s.number) <= 6 and count(distinct(s.color)) == 1",
     lambda s: sum(n for _, n in s) <= 6 and len({c for c, _ in s}) == 1),
    ("with 12 < sum(s.number) and count(distinct(s.number)) == count(s)",
     lambda s: sum(n for _, n in s) > 12 and len({n for _, n in s}) == len(s)),
    ("with count(distinct(s.color)) == k and consecutive(distinct(s.number))",
     lambda s: len({c for c, _ in s}) == 2 and consecutive(_distinct(n for _, n in s))),
    ("with count(distinct(s.number)) < 3 and count(distinct(s.color)) > 1",
     lambda s: len({n for _, n in s}) < 3 and len({c for c, _ in s}) > 1),
]
SIZES = [("", None, None), ("size 2", 2, 2), ("size 1..3", 1, 3), ("size 2..k", 2, 2), ("size 3..9", 3, 9)]


def lead_options(g, hand: list[str]):
    """The first turn's options of `play` for alice, given her hand's faces."""
    s = g.new_game(1)
    g.arrange(s, "hand", hand, 0, top=False)
    return s, [v for a, v in s.options if a == 0]


def face_key(g, cards) -> tuple:
    return tuple(sorted(g.card_text[c] for c in cards))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([f"{c}{n}" for c in COLORS for n in NUMBERS]), min_size=0, max_size=9),
       st.sampled_from(range(len(CONDITIONS))), st.sampled_from(range(len(SIZES))))
def test_options_are_the_oracles_distinct_sets(hand, ci, si):
    hand = [f for f in hand if hand.count(f) <= 2]  # (two of each face in the deck)
    (text, test), (size, lo, hi) = CONDITIONS[ci], SIZES[si]
    g = cached(f"{size} {text}")
    s, options = lead_options(g, hand)
    cards = s.zones[g.zone_index("hand", 0)]
    attrs = g.attrs
    want = set()
    for r in range(1, len(cards) + 1):
        if (lo is not None and r < lo) or (hi is not None and r > hi):
            continue
        for sub in itertools.combinations(cards, r):
            if test([(attrs["color"][c], attrs["number"][c]) for c in sub]):
                want.add(face_key(g, sub))
    got = [face_key(g, o) for o in options]
    assert len(got) == len(set(got)), "two options with the same cards"
    assert set(got) == want
    assert all(c in cards for o in options for c in o) and all(len(set(o)) == len(o) for o in options)
    assert [len(o) for o in options] == sorted(len(o) for o in options)  # smaller sets first


def test_identical_cards_are_one_option_and_the_seen_one_goes():
    g = cached("size 2 with count(distinct(s.number)) == 1")
    s, _ = lead_options(g, ["r1", "r1", "g1"])
    assert sorted(s.move_texts()[:-1]) == ["play g1 r1", "play r1 r1"]  # (by number, then by colour)
    hand = s.zones[g.zone_index("hand", 0)]
    r1 = [c for c in hand if g.card_text[c] == "r1"]
    s.known[r1[1]] |= 0b10  # bob saw the second r1: it is the one played with g1
    g.refresh_pending(s)
    pair = next(o for a, o in s.options if a == 0 and len({g.card_text[c] for c in o}) == 2)
    assert r1[1] in pair


def test_move_texts_canonical_order_and_any_order_typed():
    g = cached("size 3 with consecutive(s.number)")
    s, _ = lead_options(g, ["b3", "r1", "g2"])
    texts = s.move_texts()
    assert texts == ["play r1 g2 b3", "wait"]  # (by number, then by colour, whatever the order in hand)
    text = texts[0]
    for typed in ("play r1 g2 b3", "PLAY b3 r1 g2", "play g2 b3 r1"):
        assert match_move(typed, texts) == texts.index(text)
        t = s.clone()
        t.apply(typed)
        assert t.moves == 1
    assert match_move("1", texts) == 0
    assert "not one of your moves" in match_move("play r1 r1 g2", texts)


def test_unknown_cards_are_named_by_place_and_the_log_hides_faces():
    text = GAME.replace("zone hand per player: hand", "zone hand per player: hand\nzone table: stack, hidden")
    text = text.replace("choose set s in me.hand %s", "choose set s in me.hand + table %s")
    g = rulesdsl.load_text(text % (DECK, "size 2"), players=2)
    s = g.new_game(3)
    g.arrange(s, "hand", ["r1"], 0, top=False)
    g.arrange(s, "table", ["g5"], None, top=True)
    texts = s.move_texts()
    assert "play r1 table #1" in texts and not any("g5" in t for t in texts)
    s.apply("play r1 table #1")
    # (r1 went to the public pile, seen by all; the table's card by its place, never its face)
    assert "alice: play r1 table #1" in s.events_for(1) and "alice: play r1 table #1" in s.events_for(0)


def test_a_set_s_cards_show_to_each_seat_as_it_knows_them():
    text = (GAME % (DECK, "size 2")).replace("zone pile: stack, public", "zone pile: stack, hidden")
    g = rulesdsl.load_text(text, players=2)
    s = g.new_game(3)
    g.arrange(s, "hand", ["r1", "g2"], 0, top=False)
    s.apply("play r1 g2")
    assert "alice: play r1 g2" in s.events_for(0)
    assert "alice: play ? ?" in s.events_for(1)


def test_may_choose_set_passes_with_the_empty_list_and_by_and_as():
    g = rulesdsl.load_text(GAME.replace("""    choose set s in me.hand %s
    move s to pile""", """    choose c in me.hand
    may choose set s in next(me).hand %s by next(me) as "give" else "keep"
    move s to me.hand
    say "{count(s)} given" """) % (DECK, "size 1..2 with sum(s.number) <= 4"), players=2)
    s = g.new_game(5)
    g.arrange(s, "hand", ["r1", "g6"], 1, top=False)
    s.apply(s.move_texts()[0])
    assert s.chooser == 1
    texts = s.move_texts()
    assert texts[-1] == "keep" and "give r1" in texts and "give g6" not in texts
    t = s.clone()
    t.apply("keep")
    assert t.events_for(0)[-2] == "0 given"
    s.apply("give r1")
    assert s.events_for(0)[-2] == "1 given"


def test_no_set_possible_asks_nobody_and_the_action_is_not_offered():
    g = cached("size 3 with count(distinct(s.number)) == 1")
    s, options = lead_options(g, ["r1", "g1", "b2"])
    assert options == [] and s.move_texts() == ["wait"]


def test_a_set_is_a_list_of_cards_after_the_question():
    g = rulesdsl.load_text(GAME.replace("    move s to pile", """    for each c in s {
        move c to pile
    }
    reveal s
    say "{count(s)} {sum(s.number)} {s == [] }" """) % (DECK, "size 2"), players=2)
    s = g.new_game(2)
    g.arrange(s, "hand", ["r1", "g2"], 0, top=False)
    s.apply("play r1 g2")
    assert "2 3 no" in s.events_for(0)


# -- the checker
def errors(clause: str, body: str | None = None) -> list[str]:
    text = GAME % (DECK, clause)
    if body is not None:
        text = text.replace("    move s to pile\n", body)
    with pytest.raises(rulesdsl.RulesError) as info:
        rulesdsl.load_text(text, path="sets.rules", players=2)
    return [f"{d.span.file}:{d.span.line}:{d.span.column}: {d.message}" for d in info.value.diagnostics]


LINE = GAME.split("\n").index("    choose set s in me.hand %s") + 1 + DECK.count("\n")


@pytest.mark.parametrize(("clause", "column", "message"), [
    ("with s.colour == 1", 36, "unknown attribute 'colour' of a card"),
    ("size 0", 34, "a set's size is at least 1, not 0"),
    ("size -2..3", 34, "a set's size is at least 1, not -2"),
    ("size 5..3", 34, "the size range 5..3 cannot be met"),
    ("with count(s)", 34, "a set's condition (`with`) must be yes or no"),
    ("with random([yes, no])", 34, "a set's condition cannot draw at random"),
])
def test_located_errors(clause, column, message):
    [e] = errors(clause)
    assert e.startswith(f"sets.rules:{LINE}:{column}: ") and message in e, e


def test_a_set_of_what_is_not_cards_is_refused():
    text = (GAME % (DECK, "")).replace("choose set s in me.hand", "choose set s in players").replace(
        "    move s to pile\n", "")
    with pytest.raises(rulesdsl.RulesError) as info:
        rulesdsl.load_text(text, path="sets.rules", players=2)
    [d] = info.value.diagnostics
    assert (d.span.line, d.span.column) == (LINE, 21)
    assert d.message == "`choose set` picks cards from a zone or a list of cards, not a list of players"


def test_a_set_cannot_begin_a_race_nor_stand_in_a_secret_block():
    body = """    secretly {
        choose set t in me.hand
    }
"""
    [e] = errors("", body)
    assert "`choose set` cannot stand in a secret block or a race" in e


def test_parser_node():
    [play] = [d for d in parse_text(GAME % (DECK, "size 1..k with consecutive(s.number) by me as \"lay\"")).decls
              if isinstance(d, ast.Action) and d.name == "play"]
    node = play.body[0]
    assert isinstance(node, ast.ChooseSet) and isinstance(node, ast.Choose)
    assert node.name == "s" and node.label == "lay" and len(node.size) == 2 and isinstance(node.cond, ast.Call)
    assert node.span.line == LINE


def test_consecutive():
    assert consecutive([]) and consecutive([4]) and consecutive([3, 5, 4])
    assert not consecutive([3, 3, 4]) and not consecutive([1, 3]) and not consecutive([1, None])
    assert not consecutive([True, 2])


# -- limits
def test_a_search_too_large_stops_with_a_clear_error():
    g = game_with("with sum(s.number) > 0", limits={"sets": 50})
    s = g.new_game(1)
    with pytest.raises(rulesdsl.RulesRuntimeError, match="would try more than 50 sets"):
        g.arrange(s, "hand", ["r1", "r2", "r3", "g1", "g2", "g3", "b1", "b2"], 0, top=False)


# -- the straight run, counting without listing, saves, bots
def test_straight_runs_play_as_the_machine_counted_and_listed():
    body = GAME.replace("""    choose set s in me.hand %s
    move s to pile""", """    draw 3 from deck to me.hand
    choose set s in me.hand %s
    move s to pile
    may choose set t in me.hand size 1..2
    move t to pile""")
    for clause in ("", "size 2..3", "with count(distinct(s.number)) == 1"):
        fast = rulesdsl.load_text(body % (DECK, clause), players=2)
        slow = rulesdsl.load_text(body % (DECK, clause), players=2)
        slow.straight = False
        for seed in range(6):
            a, b = fast.new_game(seed, log=False), slow.new_game(seed, log=False)
            ra, rb = random.Random(seed), random.Random(seed)
            a.playout(ra.randrange, 10**6)
            b.playout(rb.randrange, 10**6)
            assert a.to_json() == b.to_json()


def test_saves_keep_a_pending_set_and_its_answer():
    g = rulesdsl.load(CLIMB, players=3)
    s = g.new_game(4)
    for _ in range(5):
        s.apply(0)
    again = g.state_from_json(s.to_json())
    assert again.move_texts() == s.move_texts() and again.to_json() == s.to_json()
    s.apply(0)
    again.apply(0)
    assert again.to_json() == s.to_json()


def test_saves_mid_action_with_a_set_local():
    g = rulesdsl.load_text(GAME.replace("    move s to pile", """    choose c in me.hand
    move s to pile""") % (DECK, "size 2"), players=2)
    s = g.new_game(6)
    g.arrange(s, "hand", ["r1", "g2", "b3"], 0, top=False)
    s.apply("play r1 g2")
    again = g.state_from_json(s.to_json())
    assert again.to_json() == s.to_json()
    again.apply(0)
    s.apply(0)
    assert again.to_json() == s.to_json()


def test_ismcts_plays_a_game_with_sets():
    from rulesdsl.bots import make_bot

    g = rulesdsl.load(CLIMB, players=3)
    s = g.new_game(7)
    bots = [make_bot("ismcts:20", seed) for seed in range(3)]
    moves = 0
    while not s.is_over and moves < 400:
        s.apply_index(bots[s.chooser].choose(s))
        moves += 1
    assert s.is_over


def test_determinized_worlds_keep_the_chooser_s_options():
    g = rulesdsl.load(CLIMB, players=3)
    s = g.new_game(8)
    for _ in range(4):
        s.apply(0)
    me = s.chooser
    for seed in range(5):
        w = s.clone()
        w.determinize(me, random.Random(seed))
        assert w.move_texts() == s.move_texts()


def test_a_set_typed_at_the_prompt_in_another_order_and_a_typo_loses_nothing():
    import io

    from rulesdsl.cli import main

    out, err = io.StringIO(), io.StringIO()
    typed = "play 8♣ 9♠\nplay 8♣ 8♠\nquit\n"  # (a set not in the hand, then one typed out of order)
    code = main(["play", str(CLIMB), "--seed", "3", "--players", "2"], stdin=io.StringIO(typed), stdout=out,
                stderr=err)
    shown = out.getvalue()
    assert code == 0 and "Traceback" not in shown + err.getvalue()
    assert "'play 8♣ 9♠' is not one of your moves" in shown
    assert "alice: play 8♠ 8♣" in shown
