"""Decisions' options written as generated loops (rulesdsl/compile/domains.py) give the very options the
plain way gives (shortcuts=False: the domain's value, then its options sorted out): the same values,
merged the same way, in the same order."""

from __future__ import annotations

import json
import random

import rulesdsl
from rulesdsl.checker import check
from rulesdsl.compile import compile_program

# Every form the loops handle: a filter with a value worked out first (`top(...)`), pairs counted
# in a table (and a loop over the hand that reads that table), a whole hand (identical cards merge
# unless the chooser does not know them, the card more players know is kept), a pile (never
# merged), a list with repeats and none, a grid, an attribute that some cards lack, and defines
# applied to the items (and to other values in the same test). Loops of several actions over the
# same hand run as one; scans over the players are written out seat by seat. Tests that read only a
# card's tables become look-ups (`x.n == top(pile).n`: a set of cards per value, none among them,
# also in an `or` and for a variable of the game; a `bottom(...)` worked out first looks at the
# pile's first card first), and a list of constants (with a repeat) is options known at load. A sum
# of shares and counts over one zone is one pass over a table (`exactly_two`); the first places of a
# grid (with empty ones) or a pile are a slice (`near`).
RULES = """game "Options"
players 3..3
card c(n)
card w
cards in deck { 4 c(1), 4 c(2), 3 c(3), 3 w }
zone deck: stack, hidden, refill from pile keeping 1
zone hand per player: hand, private
zone pile: stack, public
zone square per player: grid, hidden
var leader: player = none
var second: player = none
var tally = 0
define top_n = top(pile where it is c).n
define low_n = bottom(pile where it is c).n
define high(x: card) = x is c and top_n != none and x.n >= top_n
define twin(x: card) = x is c and count(me.hand where it is c and it.n == x.n) >= 2
setup {
    shuffle deck
    deal 4 from deck to each hand
    deal 2 from deck to each square
    move top(deck) to pile
}
action match {
    choose x in me.hand where x is c and x.n == top(pile where it is c).n
    move x to pile
}
action pair {
    choose v in distinct((me.hand where it is c).n) where count(me.hand where it is c and it.n == v) >= 2
    move first(me.hand where it is c and it.n == v) to pile
}
action strict {
    choose v in distinct((me.hand where it is c and it.n != top(pile where it is c).n).n)
        where count(me.hand where it is c and it.n == v) >= 2
    move first(me.hand where it is c and it.n == v) to pile
}
action twins {
    choose x in me.hand where twin(x) and x.n != 3
    move x to pile
}
action high {
    choose x in me.hand where high(x) or high(top(deck))
    move x to pile
}
action lead {
    leader = top(players where count(it.hand) >= 2)
    second = first(players where count(it.hand) < 3 and it != me)
    tally = count(players where any(it.hand))
}
action tell {
    choose x in me.hand
    reveal x
}
action grab when any(pile where it is w) {
    choose y in pile where it is w
    move y to me.hand
}
action give {
    say "giving"
    choose z in me.hand by next(me)
    move z to next(me).hand
    choose p in [next(me), previous(me), next(me), none] as "then"
    choose s in p.square by p
    reveal s
}
action ranks when any(me.hand) {
    choose r in distinct(me.hand.n) as "rank"
    draw 1 from deck to me.hand
}
action same {
    choose x in me.hand where x.n == top(pile).n
    move x to pile
}
action low {
    choose x in me.hand where x is c and x.n != low_n and x.n != 2
    move x to pile
}
action either {
    choose x in me.hand where x is w or x.n == tally or x.n == top(pile).n
    move x to pile
}
action tallied {
    choose v in distinct(me.hand.n) where count(me.hand where it.n == v and (it.n == tally or it is w)) >= 1
    tally = tally + 1
}
action exactly_two {
    choose v in distinct((me.hand where it is c).n) where count(me.hand where it is c and it.n == v) == 2
    tally = tally + (sum((pile where it is c).n) + count(pile where it is w) - count(pile where it is c))
}
action more_than_one {
    choose v in distinct((me.hand where it is c).n) where count(me.hand where it is c and it.n == v) > 1
    tally = tally + 1
}
action near when any(me.square) {
    let front = me.square where place(it) <= 2
    let first_one = pile where place(it) < 2
    show me.square where place(it) < 3 to me
    tally = tally + count(front) + count(first_one)
    choose x in me.square as "drop"
    move x to pile
}
action flag {
    choose b in [yes, no, yes] as "flag"
    tally = tally + 1
}
game ends when count(pile) >= 8 or turn > 60
rank by lowest count(it.hand)
"""


def _both(tmp_path, rules: str = RULES):
    path = tmp_path / "options.rules"
    path.write_text(rules)
    fast = rulesdsl.load(path, players=3)
    slow = compile_program(check(rulesdsl.parse_files(path), 3, {}), shortcuts=False)
    return fast, slow


def test_generated_options_are_the_plain_options(tmp_path):
    fast, slow = _both(tmp_path)
    assert fast.turn_options_fn is not None
    merged = 0
    for seed in range(40):
        a, b = fast.new_game(seed), slow.new_game(seed)
        rng = random.Random(seed)
        while not a.is_over:
            assert a.options == b.options and a.move_texts() == b.move_texts()
            da, db = json.loads(a.to_json()), json.loads(b.to_json())
            assert da["zones"] == db["zones"] and da["vars"] == db["vars"]
            if a.pending == 0:
                hand = a.zones[fast.zone_index("hand", a.current)]
                merged += len(hand) > sum(1 for ai, _ in a.options if ai == 6)
            i = rng.randrange(a.num_moves())
            a.apply_index(i)
            b.apply_index(i)
    assert merged > 0  # identical cards did merge


def test_a_count_over_a_list_is_not_taken_for_a_zone(tmp_path):
    """`count((Z where A) where it.x == v)` counts a list, not a zone (counts.value_count): the rules
    compile (they once stopped at 'expected a zone') and give the plain options."""
    rules = RULES.replace("count(me.hand where it is c and it.n == v) > 1",
                          "count((me.hand where it is c) where it.n == v) > 1")
    assert rules != RULES
    path = tmp_path / "options.rules"
    path.write_text(rules)
    fast = rulesdsl.load(path, players=3)
    slow = compile_program(check(rulesdsl.parse_files(path), 3, {}), shortcuts=False)
    for seed in range(10):
        a, b = fast.new_game(seed), slow.new_game(seed)
        rng = random.Random(seed)
        while not a.is_over:
            assert a.move_texts() == b.move_texts()
            i = rng.randrange(a.num_moves())
            a.apply_index(i)
            b.apply_index(i)


def test_joined_counts_whose_test_reads_the_state(tmp_path):
    """A joined count whose test reads more than the card (a variable of the game; pairs of such)
    is filled by the expression writer's count before the loop (domains.value): the plain options."""
    rules = RULES.replace("action flag {", """action seen_twice {
    choose v in distinct((me.hand where it.n != tally).n) where count(me.hand where it.n != tally and it.n == v) >= 2
    tally = tally + 1
}
action flag {""")
    assert rules != RULES
    fast, slow = _both(tmp_path, rules)
    for seed in range(20):
        games, rng = (fast.new_game(seed), slow.new_game(seed)), random.Random(seed)
        while not games[0].is_over:
            assert games[0].options == games[1].options and games[0].move_texts() == games[1].move_texts()
            i = rng.randrange(games[0].num_moves())
            for st in games:
                st.apply_index(i)
