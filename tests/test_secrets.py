"""Secret decisions (issue 20): `secret` variables, `secretly` and `simultaneously` blocks, races.

A simultaneous decision is asked one seat at a time, and nothing a later seat sees, nor any of its
options, depends on an earlier seat's answer: the checker refuses a secret block that could make it
so, and the property below checks it at random states of every game (and of the examples of
tests/data): changing an answer a seat does not know changes nothing that seat sees.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.bots import GreedyBot, ISMCTSBot
from rulesdsl.engine.saves import BadSave
from rulesdsl.errors import RulesError, RulesRuntimeError

from .conftest import GAMES, ROOT
from .test_peeking import _budget
from .test_straight import same_games

DATA = ROOT / "tests" / "data"
BIDS = DATA / "sealed_bids.rules"
RACE = DATA / "slap_race.rules"
DERIVED = DATA / "shown_from_secrets.rules"  # a show, a say and a label worked out from secret values
# Every game of the repository (new ones too), and the examples that keep secrets.
RULES = sorted(p for p in [*GAMES.glob("*.rules"), *(GAMES / "variants").glob("*.rules"),
                           *(GAMES / "examples").glob("*.rules")] if not p.name.endswith(".test.rules"))
RULES += [BIDS, RACE, DERIVED, DATA / "players_values.rules"]  # (the last reads secrets through `players.`)
STATES = 12 if settings().max_examples >= 1000 else 4

HEAD = """game "t"
players 3
card n(value) shown "{value}"
cards in deck { 1 n(1), 1 n(2), 1 n(3), 1 n(4), 1 n(5), 1 n(6) }
zone deck: stack, hidden
zone hand per player: hand, private
counter score per player = 0
var bid: int per player secret = 0
var plain: int per player = 0
var got: card per player secret = none
setup { deal 2 from deck to each hand }
game ends when turn > 3
rank by highest me.score
"""


# The start of an action in which each seat bids 1 or 2 in secret.
BIDDING = """
action a {
    simultaneously for each p in players {
        choose k in 1..2 as "bid"
        p.bid = k
    }
"""


def load(text: str, **kw) -> rulesdsl.Game:
    return rulesdsl.load_text(HEAD + text, **kw)


def errors(text: str) -> str:
    with pytest.raises(RulesError) as e:
        load(text)
    return str(e.value)


def at_second_seat(seed: int = 1) -> rulesdsl.State:
    """Sealed bids for 3, in the simultaneous block: alice has bid (card and number), bob is asked."""
    s = rulesdsl.load(BIDS).new_game(seed)
    s.apply("bid")
    s.apply(0)
    s.apply(1)
    assert s.current_player == 1
    return s


# ---------------------------------------------------------------- the language


def test_the_statements_parse_to_their_nodes():
    from rulesdsl import ast
    from rulesdsl.parser import parse_text

    f = parse_text("""var bid: int per player secret = 0
action a {
    simultaneously for each p in players {
        if yes { choose k in 1..2 }
    }
    race for each q in players at random {
        may choose c in q.hand
    }
    race for each q in players { may choose c in q.hand by q }
    secretly { choose z in 1..2 }
}
""", "x.rules")
    var, action = f.decls
    assert var.secret and var.per_player
    loop, fair, ordered, block = action.body
    # `simultaneously` is a loop of secret blocks, each choose in it the loop's seat's.
    assert isinstance(loop, ast.ForEach) and isinstance(loop.body[0], ast.Secretly) and loop.body[0].seat == "p"
    assert loop.body[0].body[0].branches[0][1][0].by.id == "p"
    assert isinstance(fair, ast.Race) and fair.random and fair.body[0].by.id == "q" and not ordered.random
    assert isinstance(block, ast.Secretly) and block.seat is None and block.body[0].by is None
    assert (loop.span.line, loop.span.column, block.span.line) == (3, 5, 10)


def test_a_secret_choose_shows_its_answer_to_its_chooser_alone():
    s = at_second_seat()
    mine, theirs, spectator = s.events_for(0), s.events_for(1), s.events_for(-1)
    assert mine[-2].startswith("alice: bid ") and mine[-1] == "alice: add 1"
    assert theirs[-2:] == ["alice: bid (secret)", "alice: add (secret)"]
    assert spectator[-2:] == mine[-2:]
    # alice's answers are hers alone, with the options they were chosen from.
    cells = s.game.secret_cells
    known = {k: m for k, (m, _) in s.secrets.items()}
    assert set(known) <= set(cells) and set(known.values()) == {1}


def test_the_next_seat_is_asked_with_the_earlier_answers_out_of_its_frames():
    s = at_second_seat()
    card = s.vars[s.game.var_layout["pick"][0]]  # alice's bid, a card of her hand
    hers = s.secrets[s.game.var_layout["pick"][0]][1]
    frame = s.stack[-1][2]
    assert card is not None and card not in frame and hers not in frame
    assert not any(isinstance(v, list) and card in v for v in frame)
    asked = s.game.decisions[s.pending]
    assert asked.secret and all(t.startswith("bid ") for t in s.move_texts())


def test_a_reveal_tells_everyone_and_the_value_shows_in_views_and_messages():
    game = rulesdsl.load(BIDS)
    s = game.new_game(4)
    s.apply("bid")
    while s.game.decisions[s.pending].label != "colour":
        s.apply(s.num_moves() - 1)
    events = s.events_for(2)
    assert any(e.startswith("revealed: alice.offer ") for e in events)
    assert any(e.startswith("revealed: carol.pick ") for e in events)
    assert not s.secrets or set(s.secrets) == {game.var_layout["colour"][0]}
    # The winner of the prize chooses a colour in secret; the next seat is shown it, the third is not.
    best = s.current_player
    s.apply("colour blue")
    shown, third = (best + 1) % 3, (best + 2) % 3
    assert "colour blue" in s.view(best) and "colour blue" in s.view(shown)
    assert "colour ?" in s.view(third) and "colour blue" not in s.view(third)
    assert "the colour is ?" in s.events_for(third) and "the colour is blue" in s.events_for(shown)
    assert f"{game.names[shown]} looks at colour: ?" in s.events_for(third)
    assert "colour blue" in s.view(third, reveal=True)


def test_a_reveal_of_an_answer_nobody_gave_is_a_located_runtime_error():
    game = load("""
action a {
    simultaneously for each p in players {
        may choose c in p.hand as "give" else "keep"
        p.got = c
    }
    for each p in players { reveal p.got }
}
""")
    s = game.new_game(1)
    s.apply("a")
    s.apply("keep")
    s.apply(0)
    with pytest.raises(RulesRuntimeError) as e:
        s.apply(0)
    assert "nobody chose alice.got" in str(e.value) and ":20:29:" in str(e.value)


def test_an_answer_stored_anywhere_else_is_known_to_all():
    game = load(BIDDING + """    me.bid = 7
}
""")
    s = game.new_game(1)
    for m in ("a", "bid 1", "bid 2", "bid 1"):
        s.apply(m)
    base = game.var_layout["bid"][0]
    assert set(s.secrets) == {base + 1, base + 2} and s.vars[base] == 7


def test_a_label_shows_a_secret_value_only_once_everyone_knows_it():
    game = load(BIDDING + """    choose x in [1] as "beat {next(me).bid}"
    reveal next(me).bid
    choose y in [1] as "beat {next(me).bid}"
}
""")
    s = game.new_game(1)
    for m in ("a", "bid 1", "bid 2", "bid 1"):
        s.apply(m)
    assert s.move_texts() == ["beat ? 1"]  # (the log shows a move's text to every seat)
    s.apply(0)
    assert s.move_texts() == ["beat 2 1"] and "revealed: bob.bid 2" in s.events_for(2)


def all_bid(seed: int = 1) -> rulesdsl.State:
    """tests/data/shown_from_secrets.rules once each seat has bid (alice 1, bob 2, carol 3) in
    secret: the `say` is logged and alice is asked the labelled question."""
    s = rulesdsl.load(DERIVED).new_game(seed)
    s.apply("bid")
    for k in (1, 2, 3):
        s.apply(f"bid {k}")
        s.apply_index(0)
    return s


def test_a_show_line_of_a_value_worked_out_from_secret_answers_is_hidden_from_who_knows_not_all():
    s = all_bid()
    for seat in range(3):  # (each knows its own bid, not the others')
        assert "best_bid ?" in s.view(seat)
    assert "best_bid 3" in s.view(0, reveal=True)
    s.apply_index(0)  # (every bid revealed)
    assert "best_bid 3" in s.view(1)


def test_a_say_of_a_value_worked_out_from_secret_answers_shows_it_to_who_knows_them_all():
    s = all_bid()
    said = "the best bid is 3, the picks {}, the best doubled 6"
    for seat in range(3):
        assert "the best bid is ?, the picks ?, the best doubled ?" in s.events_for(seat)
    spectator = [e for e in s.events_for(-1) if e.startswith("the best bid is")]
    assert spectator and spectator[0].startswith(said.split("{")[0]) and spectator[0].endswith("doubled 6")
    s.apply_index(0)
    assert "the best bid was 3" in s.events_for(1)


def test_a_label_of_a_value_worked_out_from_secret_answers_shows_it_once_all_know_them():
    s = all_bid()
    assert s.move_texts() == ["note ? 1"]
    for p in range(3):
        s.secrets.pop(p)  # (known to all, as a `reveal` leaves them)
    s.game.refresh_pending(s)
    assert s.move_texts() == ["note 3 1"]


def test_a_value_read_through_defines_is_known_to_read_secret_variables():
    game = rulesdsl.load(DERIVED)
    assert game.show_secrets == {"best_bid": (0, 1, 2)}


@pytest.mark.parametrize(("rules", "message"), [
    ("action a { secretly { choose k in 1..2\n move top(deck) to me.hand } }", "`move` cannot stand in a secret block"),
    ("action a { secretly { choose k in 1..2\n say \"hi\" } }", "`say` cannot stand in a secret block"),
    ("action a { secretly { choose k in 1..2\n end turn } }", "`end` cannot stand in a secret block"),
    ("action a { simultaneously for each p in players { choose k in 1..3 where it != next(p).bid } }",
     "'bid' is secret and cannot be read in a secret block"),
    ("define high = max(players.bid)\naction a { secretly { choose k in 1..high } }",
     "'high' reads 'bid' is secret"),
    ("action a { simultaneously for each p in players { choose k in 1..2\n p.plain = k } }",
     "'p.plain' cannot be set in a secret block: others would see it"),
    ("action a { simultaneously for each p in players { choose k in 1..2\n p.bid = k + 1 } }",
     "is given a secret choose's answer as it is"),
    ("action a { secretly { secretly { choose k in 1..2 } } }", "cannot stand inside a secret block"),
    ("action a { secretly { choose x in 1..2\n if x == 1 { choose y in 1..2 by next(me) } } }",
     "whether a question is asked here depends on a secret answer"),
    ("action a { secretly { choose x in 1..2\n let z = x + 1\n for each w in 1..z { choose y in 1..2 } } }",
     "whether a question is asked here depends on a secret answer"),
    ("action a { secretly { choose x in players\n choose y in 1..2 by x } }",
     "who is asked here depends on a secret answer"),
    ("action a { secretly { choose x in 1..2\n choose y in 1..x by next(me) } }",
     "these options would show another seat's secret answer"),
    ("action a { simultaneously for each p in players { choose k in 1..2 by next(p) } }",
     "each `choose` here is p's"),
    ("action a { simultaneously for each p in [1, 2] { choose k in 1..2 } }",
     "`simultaneously` goes through a list of players, not a list of numbers"),
    ("action a { reveal me.plain }", "'plain' is not secret"),
    ("action a { reveal players.bid }", "one secret value is revealed at a time"),
    ("action a { for each p in players { secretly { choose k in 1..2\n break } } }", "`break` cannot leave"),
    ("action a { race for each p in players { choose c in p.hand } }", "a race begins with `may choose"),
    ("action a { race for each p in players { say \"x\" } }", "a race begins with `may choose"),
    ("action a { race for each p in [1] { may choose c in 1..2 } }", "a race goes through a list of players"),
    ("action a { race for each p in players { may choose c in 1..2\n race for each q in players "
     "{ may choose d in 1..2 } } }", "a race cannot stand in another race"),
    ("action a { race for each p in players { may choose c in 1..2\n secretly { choose d in 1..2 } } }",
     "a secret block cannot stand in a race's statements"),
])
def test_a_secret_block_that_could_show_or_leak_an_answer_is_refused_where_it_is(rules, message):
    text = errors(rules)
    assert message in text
    assert "<string>:1" in text or ":1" in text  # (located in the rules)


def test_a_question_may_depend_on_its_own_seats_answers_and_an_unasked_one_still_shows():
    game = load("""
action a {
    simultaneously for each p in players {
        choose c in 1..3 as "first"
        choose d in 1..3 where it > c as "more"
        let both = c + 1
        if both > 2 {
            p.bid = c
        }
    }
}
""")
    s = game.new_game(1)
    for m in ("a", "first 3", "first 1", "more 3", "first 2", "more 3"):
        s.apply(m)
    # alice's 3 left her no option for `more`: not asked, but the others read a line all the same.
    assert s.events_for(0)[3:5] == ["alice: first 3", "alice: (nothing to choose)"]
    assert s.events_for(1)[3:7] == ["alice: first (secret)", "alice: more (secret)", "bob: first 1", "bob: more 3"]


def test_a_secret_counter_does_not_parse_and_a_var_says_secret_after_per_player():
    assert load("var x: int secret = 0\naction a { x = 1 }").var_layout["x"]
    with pytest.raises(RulesError):
        load("counter c secret = 0\naction a { c += 1 }")


# ---------------------------------------------------------------- races


def race(action: str, answers: list[int], seed: int = 1) -> rulesdsl.State:
    """Slap Race for 3: alice starts `action`; the seats answer by option index, in the race's
    list's order (alice, bob, carol for `fair`; from bob on for `ordered`)."""
    s = rulesdsl.load(RACE).new_game(seed)
    s.apply(action)
    for k, i in enumerate(answers):
        assert s.current_player == (k if action == "fair" else (k + 1) % 3) and s.game.decisions[s.pending].secret
        s.apply(i)
    return s


def test_a_race_asks_every_seat_in_secret_then_plays_the_first_actor():
    s = race("fair", [0, 3, 0], seed=7)  # alice and carol slap, bob waits
    names = s.game.names
    winner = next(p for p in range(3) if s.counter("score", p))
    assert winner in (0, 2) and sum(s.counter("score", p) for p in range(3)) == 1
    loser = 2 - winner
    bob = s.events_for(1)
    assert "alice: (secret)" in bob and "carol: (secret)" in bob and "bob: wait" in bob
    # The winner's slap is revealed to all as its move; the other slap is never shown.
    assert any(e.startswith(f"{names[winner]}: slap ") for e in bob[bob.index("carol: (secret)"):])
    assert not any(e.startswith(f"{names[loser]}: slap") for e in bob)
    assert not s.secrets and all(s.vars[k] is None for k in s.game.secret_cells)


def test_a_race_at_random_favours_no_seat():
    wins = [0, 0, 0]
    for seed in range(240):
        s = race("fair", [0, 0, 0], seed)
        wins[next(p for p in range(3) if s.counter("score", p))] += 1
    assert all(w > 55 for w in wins), wins  # (80 each expected; a fixed order gives 240, 0, 0)


def test_a_race_in_the_rules_order_plays_its_actors_in_that_order_until_a_break():
    order = [1, 2, 0]  # from the next player on
    for seed in range(20):
        s = race("ordered", [0, 0, 0], seed)  # everyone slaps; a high card ends the race
        slaps = [s.counter("slaps", p) for p in range(3)]
        played = [p for p in order if slaps[p]]
        assert played == order[: len(played)]
        scored = [p for p in range(3) if s.counter("score", p)]
        assert scored == [played[-1]] if scored else played == order


def test_a_race_nobody_acts_in_runs_nothing():
    s = race("fair", [3, 3, 3])
    assert all(s.counter("score", p) == 0 for p in range(3)) and not s.secrets
    assert s.current_player == 1 and s.game.decisions[s.pending].index == 0  # bob's turn


def test_a_race_over_no_seats_is_a_located_runtime_error():
    game = load("""
action a {
    race for each p in players where it.score > 5 {
        may choose c in p.hand as "slap"
    }
}
""")
    with pytest.raises(RulesRuntimeError) as e:
        game.new_game(1).apply("a")
    assert "a race needs players" in str(e.value) and ":16:24:" in str(e.value)


def test_a_save_in_the_middle_of_a_race_resumes():
    s = race("fair", [0])
    text = s.to_json()
    t = rulesdsl.State.from_json(s.game, text)
    assert t.to_json() == text and t.secrets == s.secrets and s.secrets
    for u in (s, t):
        u.apply(0)
        u.apply(0)
    assert t.to_json() == s.to_json()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_races_run_straight_as_on_the_machine(players):
    same_games(str(RACE.relative_to(ROOT)), players, range(12))


def test_M7a_the_snap_race_variant_asks_everyone_before_any_snap_is_played():
    """games/variants/tamalo-snap-race.rules: the seed window (M7a) asks from the next player on
    and the first right snap claims it; as a race, every seat answers in secret first, and the
    snaps are played in a random order drawn for each window, so any seat may be played first."""
    game = rulesdsl.load(GAMES / "variants" / "tamalo-snap-race.rules", players=4)
    played_first, windows = set(), 0
    for seed in range(30):
        s = game.new_game(seed)
        rng = random.Random(seed)
        while not s.is_over:
            if not s.game.decisions[s.pending].secret:
                s.apply_index(rng.randrange(s.num_moves()))
                continue
            windows += 1  # a window: each seat asked once, before anything is played
            start, asked = len(s.log), []
            while not s.is_over and s.game.decisions[s.pending].secret:
                asked.append(s.current_player)
                s.apply(0)  # snap the first card of one's square
            assert sorted(asked) == list(range(4))
            first = next(e for e in s.events_for(-1, start + 4) if ": snap " in e)
            played_first.add(first.split(":")[0])
    assert windows > 50 and played_first == set(game.names)


# ---------------------------------------------------------------- machine, straight, saves, worlds


@pytest.mark.parametrize("players", [2, 3, 4])
def test_secret_blocks_run_straight_as_on_the_machine(players):
    same_games(str(BIDS.relative_to(ROOT)), players, range(10))


def test_a_save_between_two_seats_of_a_simultaneous_decision_resumes():
    s = at_second_seat()
    text = s.to_json()
    assert '"secrets"' in text
    t = rulesdsl.State.from_json(s.game, text)
    assert t.to_json() == text and t.secrets == s.secrets
    assert t.events_for(1) == s.events_for(1) and t.events_for(0) == s.events_for(0)
    for u in (s, t):
        u.playout(random.Random(5).randrange)
    assert t.to_json() == s.to_json()


def test_a_save_without_secrets_has_no_secrets_field():
    s = rulesdsl.load(GAMES / "tamalo.rules").new_game(3)
    assert '"secrets"' not in s.to_json()


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d["secrets"].append([0, 1, [0]]), "secrets"),  # vars[0] of a game whose first cell... see below
    (lambda d: d["secrets"][0].__setitem__(1, 0), "secrets[0][1]"),
    (lambda d: d["secrets"][0].__setitem__(1, 7), "secrets[0][1]"),
    (lambda d: d["secrets"][0].__setitem__(2, [99]), "secrets[0][2]"),
    (lambda d: d["secrets"][0].__setitem__(0, 10**6), "secrets[0][0]"),
    (lambda d: d["secrets"].__setitem__(0, "x"), "secrets[0]"),
    (lambda d: d["log"][-1][5][0].__setitem__(1, "everyone"), "log"),
])
def test_a_save_whose_secrets_are_not_the_engines_is_refused(change, field):
    s = at_second_seat()
    data = json.loads(s.to_json())
    if field == "secrets":  # a cell listed twice
        data["secrets"].append(list(data["secrets"][0]))
    else:
        change(data)
    with pytest.raises(BadSave) as e:
        rulesdsl.State.from_json(s.game, json.dumps(data))
    assert field.split("[")[0] in str(e.value)


def test_a_world_draws_the_answers_a_seat_does_not_know_from_their_options():
    s = at_second_seat()
    seen = set()
    for k in range(40):
        w = s.determinize(1, random.Random(k))
        for cell in s.secrets:
            assert w.vars[cell] in w.secrets[cell][1]  # (cards among the world's own cards)
            seen.add((cell, w.vars[cell]))
        assert w.secrets.keys() == s.secrets.keys()
    offer = s.game.var_layout["offer"][0]
    assert {v for c, v in seen if c == offer} == {0, 1, 2}  # every option drawn, not the real one kept
    w = s.determinize(0, random.Random(1))  # alice knows her own answers
    assert all(w.vars[c] == s.vars[c] for c in s.secrets)


def test_a_world_does_not_depend_on_an_answer_the_seat_does_not_know():
    s = at_second_seat()
    for cell, (_, options) in s.secrets.items():
        for other in options:
            t = s.clone()
            t.vars[cell] = other
            for k in range(3):
                a, b = s.determinize(1, random.Random(k)), t.determinize(1, random.Random(k))
                assert a.vars == b.vars and a.zones == b.zones and a.move_texts() == b.move_texts()


@pytest.mark.parametrize("where", ["between two bids", "in a race"])
def test_no_bot_sees_an_answer_it_does_not_know(where):
    """A bot deciding after others answered in secret chooses the same whatever they answered."""
    for seed in range(4):
        s = at_second_seat(seed) if where == "between two bids" else race("fair", [0], seed)
        tried = 0
        for t in _changes(s, 1):
            for bot in (GreedyBot(seed, samples=2, playout_limit=20), ISMCTSBot(seed, iterations=8, playout_limit=20)):
                assert bot.choose(s) == type(bot)(seed, **_budget(bot)).choose(t)
            tried += 1
        assert tried


# ---------------------------------------------------------------- the property


def _changes(s: rulesdsl.State, seat: int):
    """Copies of s, each with one answer that `seat` does not know set to another of its options."""
    for cell, (mask, options) in sorted(s.secrets.items()):
        if mask >> seat & 1:
            continue
        for other in options:
            if other != s.vars[cell]:
                t = s.clone()
                t.vars[cell] = other
                yield t
                break


def assert_unseen(s: rulesdsl.State, seat: int) -> int:
    """Nothing `seat` sees changes with an answer it does not know; returns the changes tried."""
    g = s.game
    g.refresh_pending(s)
    tried = 0
    for t in _changes(s, seat):
        g.refresh_pending(t)
        assert t.view(seat) == s.view(seat)
        assert t.events_for(seat) == s.events_for(seat)
        if s.current_player == seat:
            assert t.options == s.options and t.move_texts() == s.move_texts()
        tried += 1
    return tried


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.name)
@settings(max_examples=max(3, settings().max_examples // 6))
@given(seed=st.integers(0, 2**32 - 1))
def test_no_seat_sees_an_answer_it_does_not_know_in_any_game(path, seed):
    game = rulesdsl.load(path)
    rng = random.Random(seed)
    s = game.new_game(seed)
    for _ in range(STATES):
        for _ in range(rng.randrange(8)):
            if s.is_over:
                break
            s.apply_index(rng.randrange(s.num_moves()))
        if s.is_over:
            s = game.new_game(rng.randrange(1 << 30))
        for seat in range(game.players):
            assert_unseen(s, seat)


def test_the_property_changes_answers_in_the_example():
    game = rulesdsl.load(BIDS)
    tried = 0
    for seed in range(10):
        s = game.new_game(seed)
        for m in range(14):
            if s.is_over:
                break
            tried += sum(assert_unseen(s, seat) for seat in range(3))
            s.apply_index(random.Random(seed * 100 + m).randrange(s.num_moves()))
    assert tried > 50
