"""Bounded rules: a rules file that compiles but runs away (recursion, huge counts, growth, a
failing expression outside a statement) stops with a runtime error located at its line, within a
limit that can be raised (`limits=` in the API, `--limit` at the CLI), the same in straight runs
and on the machine; and never a Python exception."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulesdsl
from rulesdsl.engine.limits import LIMITS, limits_of, parse_limit
from rulesdsl.simulate import SimulationError, simulate

from .conftest import run_cli as run

DATA = Path(__file__).resolve().parent / "data"

HEAD = """game "Limits"
players 2..2
card chip(v)
cards in deck { 6 chip(1), 6 chip(2) }
zone deck: stack, hidden
zone pile: stack, public
zone row: grid, public
zone hand per player: hand, private
counter c = 2
var l: numbers = [1]
var x: int = 0
"""
TAIL = "game ends when turn > 6\nrank by lowest it.seat\n"


def rules(body: str, tail: str = TAIL) -> str:
    return HEAD + body + ("\n" if not body.endswith("\n") else "") + tail


def line_of(text: str, marker: str = "# here") -> int:
    """The line (1-based) of the rules text that holds `marker`."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if marker in line)


def load(text: str, **kw) -> rulesdsl.Game:
    return rulesdsl.load_text(text, path="limits.rules", **kw)


def runtime_error(game: rulesdsl.Game, moves: int = 200, seed: int = 1) -> rulesdsl.RulesRuntimeError:
    """Play random moves until the rules fail; the error (the test fails if they do not)."""
    with pytest.raises(rulesdsl.RulesRuntimeError) as e:
        st = game.new_game(seed, log=False)
        st.playout(random.Random(seed).randrange, moves)
    return e.value


def assert_at(e: rulesdsl.RulesRuntimeError, text: str, marker: str = "# here") -> None:
    line = line_of(text, marker)
    assert e.span is not None and e.span.line == line, str(e)
    assert str(e).startswith(f"limits.rules:{line}:"), str(e)


# ---------------------------------------------------------------- the limits themselves


def test_every_limit_has_a_default_and_can_be_raised_or_refused():
    assert limits_of() == {name: default for name, (default, _) in LIMITS.items()}
    assert limits_of({"depth": 5})["depth"] == 5
    for bad in ({"speed": 1}, {"steps": 0}, {"steps": "10"}, {"steps": True}, {"digits": 10_000}):
        with pytest.raises(ValueError):
            limits_of(bad)
    assert parse_limit("steps=1000") == ("steps", 1000)
    for bad in ("steps", "steps=", "=5", "steps=x", "steps=²", "nothing=5", "steps=-1"):
        with pytest.raises(ValueError):
            parse_limit(bad)


def test_a_game_keeps_its_limits_and_its_states_their_step_budget():
    game = load(rules("action wait { }"), limits={"steps": 1234})
    assert game.limits["steps"] == 1234
    assert game.new_game(1).step_limit == 1234


# ---------------------------------------------------------------- call depth


def test_mutual_recursion_stops_at_the_depth_limit_where_the_call_is():
    with pytest.raises(rulesdsl.RulesRuntimeError) as e:
        rulesdsl.load(DATA / "limit_recursion.rules").new_game(1).apply("serve")
    text = (DATA / "limit_recursion.rules").read_text()
    assert e.value.span.line == line_of(text, "reported here")
    assert "--limit depth" in str(e.value)


def test_recursion_within_the_depth_limit_runs_and_a_raised_limit_allows_deeper():
    text = rules("""procedure down(n: int) {
    if n > 0 { down(n - 1) }       # here
    else { c += 1 }
}
action go { down(50) }""")
    st = load(text).new_game(1)
    st.apply("go")
    assert st.counter("c") == 3
    e = runtime_error(load(text, limits={"depth": 20}), 1)
    assert_at(e, text)
    assert "more than 20 calls" in str(e)


# ---------------------------------------------------------------- loop steps and counts


def test_a_huge_repeat_stops_at_once_at_its_line():
    text = rules("action go {\n    repeat 1000000000000 times { c += 1 }   # here\n}")
    assert_at(runtime_error(load(text), 1), text)


def test_a_repeat_counts_its_passes_against_the_step_budget_which_can_be_raised():
    text = rules("action go {\n    repeat 300000 times { x += 1 }   # here\n}")
    assert_at(runtime_error(load(text), 1), text)
    st = load(text, limits={"steps": 400_000}).new_game(1)
    st.apply("go")
    assert st.value("x") == 300_000


def test_loops_in_loops_over_long_ranges_count_their_passes_as_they_start():
    text = rules("action go {\n    for each a in 1..10000 {\n        for each b in 1..10000 { x += 1 }   # here\n"
                 "    }\n}")
    assert_at(runtime_error(load(text), 1), text)


def test_a_huge_deal_stops_when_the_deck_is_empty():
    st = load(rules("action go { deal 1000000000000 from deck to each hand }")).new_game(1)
    st.apply("go")
    assert st.zone("deck") == [] and len(st.zone("hand", 0)) == len(st.zone("hand", 1)) == 6


def test_a_huge_draw_onto_its_own_pile_moves_the_top_card_once():
    st = load(rules("action go { draw 1000000000000 from deck to deck }")).new_game(1)
    before = st.zone("deck")
    st.apply("go")
    assert st.zone("deck") == before


def test_cards_that_go_round_through_a_refill_count_against_the_step_budget():
    text = HEAD.replace("zone deck: stack, hidden", "zone deck: stack, hidden, refill from pile") + \
        "action go {\n    draw 1000000000000 from deck to pile   # here\n}\n" + TAIL
    assert_at(runtime_error(load(text), 1), text)


@pytest.mark.parametrize(("body", "says"), [
    ("move top(deck) to row at 1000000000", "--limit places"),
    ("while count(l) > 0 { l = l + l }", "--limit list"),
    ("x = top(pile).v", "none"),
])
def test_a_value_past_its_bound_fails_at_its_line(body, says):
    """A far grid place, a list that doubles in a `while`, the attribute of an empty top stored
    in a number: each fails where it is stored, with what to do about it."""
    text = rules("action go {\n    " + body + "   # here\n}")
    e = runtime_error(load(text), 1)
    assert_at(e, text)
    assert says in str(e)


def test_a_raised_places_limit_allows_a_far_place():
    near = rules("action go { move top(deck) to row at 20000 }")
    st = load(near, limits={"places": 30_000}).new_game(1)
    st.apply("go")
    assert len(st.zone("row")) == 20_000


# ---------------------------------------------------------------- sizes of values


def test_a_counter_squared_every_move_stops_at_the_digits_limit():
    path = DATA / "limit_growth.rules"
    game = rulesdsl.load(path)
    with pytest.raises(rulesdsl.RulesRuntimeError) as e:
        game.new_game(1, log=False).playout(random.Random(1).randrange, 100)
    assert e.value.span.line == line_of(path.read_text(), "more digits") and "--limit digits" in str(e.value)
    # A higher limit: the same error, later.
    wide = rulesdsl.load(path, limits={"digits": 200})
    st = wide.new_game(1, log=False)
    with pytest.raises(rulesdsl.RulesRuntimeError):
        st.playout(random.Random(1).randrange, 100)
    assert st.moves > 4


def test_doubling_with_plus_and_a_sum_are_bounded_too():
    for body in ("c += c   # here", "c = c + c   # here", "x = sum([c, c, x]) + 1   # here\n    c = x"):
        text = rules("action go {\n    " + body + "\n}", "game ends when turn > 1000\nrank by lowest it.seat\n")
        assert_at(runtime_error(load(text), 500), text)


def test_plain_assignments_are_not_checked():
    # Nothing stored here can grow or be none: no check is written (the generated code is as before).
    text = rules("action go {\n    c += 1\n    x = c\n    let y = 3\n}")
    st = load(text).new_game(1)
    st.apply("go")
    assert (st.counter("c"), st.value("x")) == (3, 3)


# ---------------------------------------------------------------- errors located outside statements


@pytest.mark.parametrize("tail", [
    "game ends when 1 / (c - 2) > 0   # here\nrank by lowest it.seat\n",
    "round ends when 1 / (c - 2) > 0   # here\ngame ends when turn > 6\nrank by lowest it.seat\n",
    "game ends when turn > 2\nrank by lowest 1 / (c - 2)   # here\n",
    "game ends when turn > 2\nwinners are players where 1 / (c - 2) > 0   # here\n",
])
def test_errors_in_ends_ranks_and_winners_are_located(tail):
    text = rules("action go { }", tail)
    assert_at(runtime_error(load(text)), text)


def test_errors_in_an_actions_when_and_its_leading_choose_are_located():
    text = rules("action go when 1 / (c - 2) > 0 { }   # here\naction wait { }")
    assert_at(runtime_error(load(text)), text)
    text = rules("action go {\n    choose k in 1..(10 / (c - 2))   # here\n}\naction wait { }")
    assert_at(runtime_error(load(text)), text)


def test_rounds_that_end_at_once_are_reported_at_the_round_start_hook():
    text = rules("action go { }\nround start { end round }   # here")
    e = runtime_error(load(text))
    assert_at(e, text)
    assert "--limit steps" in str(e)


def test_a_failing_show_is_located_on_the_play_screen():
    game = rulesdsl.load(DATA / "limit_show.rules")
    st = game.new_game(1)
    with pytest.raises(rulesdsl.RulesRuntimeError) as e:
        st.view(0)
    assert e.value.span.line == line_of((DATA / "limit_show.rules").read_text(), "the show that fails")


def test_a_failing_statistic_is_located_in_simulate():
    game = rulesdsl.load(DATA / "limit_statistic.rules")
    with pytest.raises(SimulationError) as e:
        simulate(game, 2)
    assert f":{line_of((DATA / 'limit_statistic.rules').read_text(), 'statistic that fails')}:" in str(e.value)


# ---------------------------------------------------------------- no winner


def test_winners_that_name_nobody_end_the_game_with_no_winner():
    game = rulesdsl.load(DATA / "limit_no_winner.rules")
    st = game.new_game(1)
    st.playout(random.Random(1).randrange)
    assert st.is_over and st.winners == []
    assert "No winner." in st.view(0)


# ---------------------------------------------------------------- straight runs and the machine


@pytest.mark.parametrize("body", [
    "procedure f(n: int) { g(n + 1) }\nprocedure g(n: int) { f(n + 1) }\naction go { f(1) }\naction wait { }",
    "action go { repeat 1000000000000 times { c += 1 } }\naction wait { }",
    "action go { move top(deck) to row at 1000000000 }\naction wait { }",
    "action go { c = c * c + 1 }\naction wait { }",
    "action go { while count(l) > 0 { l = l + l } }\naction wait { }",
    "action go { x = top(pile).v }\naction wait { }",
])
def test_a_limit_fails_the_same_in_straight_runs_and_on_the_machine(body):
    text = rules(body, "game ends when turn > 300\nrank by lowest it.seat\n")
    fast, slow = load(text), load(text)
    slow.straight = False
    for seed in range(4):
        errors = []
        for game in (fast, slow):
            st = game.new_game(seed, log=False)
            try:
                st.playout(random.Random(seed).randrange)
                errors.append(None)
            except rulesdsl.RulesRuntimeError as e:
                errors.append((str(e), st.moves))
        assert errors[0] == errors[1]


# ---------------------------------------------------------------- the command line


def test_cli_reports_a_runaway_rule_located_and_a_raised_limit_is_used():
    path = str(DATA / "limit_recursion.rules")
    code, _, err = run("simulate", path, "--games", "2", "--workers", "1")
    assert code == 1 and "limit_recursion.rules:13:" in err and "Traceback" not in err
    code, _, err = run("simulate", path, "--games", "2", "--workers", "1", "--limit", "depth=50")
    assert code == 1 and "more than 50 calls" in err


@pytest.mark.parametrize("command", ["play", "simulate", "test", "compare", "arena", "replay"])
def test_cli_refuses_a_bad_limit_with_a_message(command):
    path = str(DATA / "limit_growth.rules")
    argv = {"compare": [command, path, path], "arena": [command, path, "--bots", "random"],
            "replay": [command, path, "missing.json"]}.get(command, [command, path])
    code, _, err = run(*argv, "--limit", "speed=3")
    assert code == 2 and "no limit 'speed'" in err and "Traceback" not in err


def test_cli_failing_show_statistic_and_growth_are_messages_not_tracebacks():
    code, _, err = run("play", str(DATA / "limit_show.rules"), "--seed", "1")
    assert code == 1 and "limit_show.rules:8:" in err and "Traceback" not in err
    code, _, err = run("simulate", str(DATA / "limit_statistic.rules"), "--games", "3", "--workers", "1")
    assert code == 1 and "limit_statistic.rules:8:" in err and "Traceback" not in err
    code, _, err = run("simulate", str(DATA / "limit_growth.rules"), "--games", "3", "--workers", "1")
    assert code == 1 and "limit_growth.rules:9:" in err and "Traceback" not in err


def test_cli_play_says_no_winner():
    code, out, _ = run("play", str(DATA / "limit_no_winner.rules"), "--seed", "1", stdin="wait\n" * 3)
    assert code == 0 and "No winner" in out and "Winner: ." not in out


def test_cli_replay_of_a_game_whose_show_fails_is_a_message(tmp_path):
    from rulesdsl.testing import Transcript

    path = str(DATA / "limit_show.rules")
    saved = tmp_path / "t.json"
    saved.write_text(Transcript(path, 2, {}, 1, ["wait", "wait"]).to_json(), encoding="utf-8")
    code, _, err = run("replay", path, str(saved))
    assert code == 1 and "limit_show.rules:8:" in err and "Traceback" not in err


@pytest.mark.parametrize("draw", [
    "draw 1 from deck to row", "draw 1 from deck to me.spot", "deal 1 from deck to each spot"])
def test_places_added_by_drawing_onto_a_grid_count_against_the_places_limit(draw):
    """A grid grows a place for each card drawn or dealt onto it, and a place stays when its card
    leaves: a loop that draws onto a grid and takes the card back runs into the places limit, as
    `move` does, whether the grid is named or worked out in play (`me.spot`), on the machine or straight."""
    body = "\n".join([
        "action go {",
        "    repeat 100 times {",
        "        DRAW   # here",
        "        if any(row) { move top(row) to deck }",
        "        if any(me.spot) { move top(me.spot) to deck }",
        "        if any(next(me).spot) { move top(next(me).spot) to deck }",
        "    }",
        "}",
    ]).replace("DRAW", draw)
    grids = HEAD.replace("zone hand per player: hand, private", "zone spot per player: grid, public")
    text = grids + body + "\n" + TAIL
    for moves in (1, 200):
        e = runtime_error(load(text, limits={"places": 50}), moves)
        assert_at(e, text)
        assert "--limit places" in str(e), str(e)
