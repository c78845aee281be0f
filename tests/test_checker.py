"""The checker: every mistake a rules author can make gives a located error with a helpful message.

Most tests break one line of a small game (MINI, below, with its line numbers in mind) and look at
the diagnostics: where they point, what they say, the did-you-mean hint, and that all errors of a
file come out at once. Parameters (`--set`) and player counts are checked through `rulesdsl.load`.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import rulesdsl
from rulesdsl.errors import Diagnostic, RulesError

from .conftest import GAMES, tempurra

MINI = """\
game "Mini"
players 2..4 default 3
param goal = 3 in 1..9
param bonus = yes

card num(value) shown "{value}"
card joker

cards in deck {
    10 num(1), 10 num(2), 10 num(3)
    2 joker
}

zone deck: stack, hidden, refill from pile
zone pile: stack, public
zone hand per player: hand, private

counter score per player = 0
var leader: player = none

define top_value = top(pile where it is num).value

setup {
    shuffle deck
    deal 3 from deck to each hand
}

procedure gain(p: player, n: int) {
    p.score += n
}

action play {
    choose c in me.hand
    move c to pile
    if c is num {
        gain(me, c.value)
    }
}

action draw_one {
    draw 1 from deck to me.hand
}

game ends when any(players where it.score >= goal)
rank by highest it.score
"""
PATH = "mini.rules"


def line_of(text: str, n: int) -> str:
    return text.splitlines()[n - 1]


def edit(old: str, new: str, text: str = MINI) -> str:
    """MINI with one exact, unique piece replaced."""
    assert text.count(old) == 1, f"{old!r} must occur once"
    return text.replace(old, new)


def diagnostics(text: str, **kw) -> list[Diagnostic]:
    with pytest.raises(rulesdsl.RulesError) as info:
        rulesdsl.load_text(text, path=PATH, **kw)
    ds = info.value.diagnostics
    assert ds
    # Formatting never fails, and every located diagnostic shows its line and a caret.
    out = info.value.format()
    for d in ds:
        if d.span is not None and d.span.line > 0:
            assert f"{d.span.file}:{d.span.line}:{d.span.column}: error: {d.message}" in out
    return ds


def the_error(text: str, **kw) -> Diagnostic:
    ds = diagnostics(text, **kw)
    assert len(ds) == 1, [d.message for d in ds]
    return ds[0]


def where(d: Diagnostic) -> tuple[int, int]:
    assert d.span is not None
    return d.span.line, d.span.column


def pointed(d: Diagnostic, text: str) -> str:
    """The source text the diagnostic's span covers (on its first line)."""
    s = d.span
    line = line_of(text, s.line)
    end = s.end_column if s.end_line == s.line else len(line) + 1
    return line[s.column - 1 : end - 1]


# ---------------------------------------------------------------- good files


def test_mini_loads():
    game = rulesdsl.load_text(MINI, path=PATH)
    assert game.name == "Mini"
    assert game.players == 3
    assert game.params == {"goal": 3, "bonus": True}


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_tempurra_checks_for_every_player_count(players):
    game = tempurra(players)
    assert game.players == players
    assert (game.min_players, game.max_players) == (3, 7)


# ---------------------------------------------------------------- names


def test_misspelt_zone_gets_did_you_mean():
    text = edit("move c to pile", "move c to plie")
    d = the_error(text)
    assert where(d) == (34, 15)
    assert pointed(d, text) == "plie"
    assert "'plie'" in d.message
    assert d.hint == "did you mean 'pile'?"


def test_misspelt_zone_in_tempurra_is_located_in_the_file(tmp_path):
    text = (GAMES / "tempurra.rules").read_text(encoding="utf-8")
    i = text.index("move all from plate to discard")
    bad = text[:i] + "move all from plate to dicsard" + text[i + len("move all from plate to discard"):]
    line = bad[:i].count("\n") + 1
    col = i - (bad.rfind("\n", 0, i) + 1) + 1 + len("move all from plate to ")
    p = tmp_path / "tempurra.rules"
    p.write_text(bad, encoding="utf-8")
    with pytest.raises(rulesdsl.RulesError) as info:
        rulesdsl.load(p)
    (d,) = info.value.diagnostics
    assert where(d) == (line, col)
    assert "dicsard" in d.message and d.hint == "did you mean 'discard'?"
    out = info.value.format()
    assert out.startswith(f"{p}:{line}:{col}: error: ")
    assert "did you mean 'discard'?" in out
    assert "\n" + " " * (2 + col - 1) + "^^^^^^^" in out


def test_misspelt_zone_in_deal_cards_and_refill():
    d = the_error(edit("to each hand", "to each hnd"))
    assert where(d) == (25, 30) and d.message == "unknown zone 'hnd'" and d.hint == "did you mean 'hand'?"
    d = the_error(edit("cards in deck", "cards in dek"))
    assert where(d) == (9, 10) and d.message == "unknown zone 'dek'" and d.hint == "did you mean 'deck'?"
    d = the_error(edit("refill from pile", "refill from pil"))
    assert where(d) == (14, 27) and "unknown zone 'pil'" in d.message and d.hint == "did you mean 'pile'?"


def test_deal_to_a_table_zone():
    d = the_error(edit("to each hand", "to each pile"))
    assert where(d) == (25, 30)
    assert "each player" in d.message and "'pile'" in d.message


def test_unknown_card_kind():
    text = edit("if c is num {", "if c is nmu {")
    d = the_error(text)
    assert where(d) == (35, 13)
    assert pointed(d, text) == "nmu"
    assert d.message == "unknown card kind 'nmu'"
    assert d.hint == "did you mean 'num'?"
    d = the_error(edit("2 joker", "2 jocker"))
    assert where(d) == (11, 5)
    assert d.message == "unknown card kind 'jocker'" and d.hint == "did you mean 'joker'?"


def test_unknown_attribute_of_a_card():
    text = edit("gain(me, c.value)", "gain(me, c.colour)")
    d = the_error(text)
    assert where(d) == (36, 20)
    assert pointed(d, text) == "colour"
    assert d.message == "unknown attribute 'colour' of a card"
    assert "value" in d.hint  # what cards do have
    d = the_error(edit("gain(me, c.value)", "gain(me, c.valeu)"))
    assert d.hint == "did you mean 'value'?"


def test_unknown_attribute_in_a_shown_template():
    text = edit('shown "{value}"', 'shown "{vaule}"')
    d = the_error(text)
    assert where(d) == (6, 25)
    assert pointed(d, text) == "vaule"
    assert "'vaule'" in d.message and d.hint == "did you mean 'value'?"


def test_unknown_player_field():
    text = edit("rank by highest it.score", "rank by highest it.scor")
    d = the_error(text)
    assert where(d) == (45, 20)
    assert "'scor'" in d.message and d.hint == "did you mean 'score'?"


def test_unknown_name_function_and_procedure():
    d = the_error(edit("gain(me, c.value)", "gain(me, c.value + bonsu)"))
    assert d.message == "unknown name 'bonsu'" and d.hint == "did you mean 'bonus'?"
    d = the_error(edit("top(pile", "tpo(pile"))
    assert where(d) == (21, 20) and d.message == "unknown function 'tpo'" and d.hint == "did you mean 'top'?"
    d = the_error(edit("gain(me, c.value)", "gian(me, c.value)"))
    assert where(d) == (36, 9) and d.message == "unknown procedure 'gian'" and d.hint == "did you mean 'gain'?"


def test_it_outside_where():
    d = the_error(edit("move c to pile", "move it to pile"))
    assert where(d) == (34, 10)
    assert "`it`" in d.message and "where" in d.message


def test_a_card_kind_is_not_a_value():
    d = the_error(edit("move c to pile", "move joker to pile"))
    assert "'joker' is a kind of card" in d.message
    assert "c is joker" in d.hint


def test_value_and_procedure_mixed_up():
    d = the_error(edit("move c to pile", "move c to pile\n    top_value()"))
    assert where(d) == (35, 5) and "'top_value' gives a value" in d.message
    d = the_error(edit("move c to pile", "move c to pile\n    let x = gain(me, 1)"))
    assert where(d) == (35, 13) and "procedure 'gain' does not give a value" in d.message
    assert d.hint == "run it as a statement"


# ---------------------------------------------------------------- types


def test_number_used_as_a_condition():
    text = edit("if c is num {", "if c.value {")
    d = the_error(text)
    assert where(d) == (35, 8)
    assert pointed(d, text) == "c.value"
    assert d.message == "a condition must be yes or no, but this is a number"


def test_count_of_a_card():
    text = edit("gain(me, c.value)", "gain(me, count(c))")
    d = the_error(text)
    assert where(d) == (36, 24)
    assert pointed(d, text) == "c"
    assert d.message == "count() needs a list, not a card"


def test_comparing_a_card_with_a_number():
    text = edit("if c is num {", "if c == 3 {")
    d = the_error(text)
    assert where(d) == (35, 8)
    assert pointed(d, text) == "c == 3"
    assert d.message == "cannot compare a card with a number"


def test_ordering_a_card():
    d = the_error(edit("if c is num {", "if c < 2 {"))
    assert where(d) == (35, 8)
    assert "`<` compares numbers" in d.message and "a card" in d.message


def test_adding_a_card_to_a_counter():
    d = the_error(edit("gain(me, c.value)", "me.score += c"))
    assert d.span.line == 36
    assert "+=" in d.message and "number" in d.message


def test_adding_a_card_to_a_counter_names_the_card():
    text = edit("gain(me, c.value)", "me.score += c")
    d = the_error(text)
    assert "a card" in d.message
    assert pointed(d, text) == "c"


def test_arithmetic_on_a_player():
    text = edit("gain(me, c.value)", "gain(me, c.value + me)")
    d = the_error(text)
    assert where(d) == (36, 28) and pointed(d, text) == "me"
    assert d.message == "'+' works on numbers, but this is a player"


def test_not_of_a_number():
    d = the_error(edit("if c is num {", "if not 3 {"))
    assert where(d) == (35, 12)
    assert d.message == "the operand of `not` must be yes or no, but this is a number"


def test_sum_of_cards():
    d = the_error(edit("p.score += n", "p.score += sum(p.hand)"))
    assert where(d) == (29, 20)
    assert d.message == "sum() adds numbers, not a card"


def test_moving_a_number_and_moving_to_a_player():
    d = the_error(edit("move c to pile", "move 3 to pile"))
    assert where(d) == (34, 10)
    assert d.message == "what is moved must be a card or cards, but this is a number"
    d = the_error(edit("move c to pile", "move c to me"))
    assert where(d) == (34, 15)
    assert d.message == "where cards move to must be a zone, but this is a player"


def test_end_condition_and_rank_key_types():
    d = the_error(edit("game ends when any(players where it.score >= goal)", "game ends when count(pile)"))
    assert where(d) == (44, 16)
    assert d.message == "`game ends when` must be yes or no, but this is a number"
    d = the_error(edit("rank by highest it.score", "rank by highest it.hand"))
    assert where(d) == (45, 17)
    assert "a ranking key must be a number or a condition" in d.message and "a zone" in d.message


def test_variable_types():
    d = the_error(edit("var leader: player = none", "var leader: player = 3"))
    assert where(d) == (19, 22)
    assert d.message == "'leader' holds a player, but its initial value is a number"
    d = the_error(edit("p.score += n", "p.score += n\n    leader = 3"))
    assert where(d) == (30, 14)
    assert d.message == "'leader' holds a player, not a number"
    d = the_error(edit("var leader: player = none", "var leader: playr = none"))
    assert where(d) == (19, 13)
    assert d.message == "unknown type 'playr'" and d.hint == "did you mean 'player'?"
    d = the_error(edit("var leader: player = none", "var leader = none"))
    assert where(d) == (19, 1)
    assert "cannot tell the type of 'leader'" in d.message and "var leader: player = none" in d.hint


def test_parameters_cannot_be_assigned():
    d = the_error(edit("p.score += n", "p.score += n\n    goal = 2"))
    assert where(d) == (30, 5)
    assert "'goal' is a parameter" in d.message


# ---------------------------------------------------------------- per-player things


def test_per_player_zone_used_without_a_player():
    text = edit("draw 1 from deck to me.hand", "draw 1 from deck to hand")
    d = the_error(text)
    assert where(d) == (41, 25)
    assert pointed(d, text) == "hand"
    assert d.message == "each player has a 'hand'"
    assert "me.hand" in d.hint


def test_per_player_counter_used_without_a_player():
    d = the_error(edit("p.score += n", "score += n"))
    assert where(d) == (29, 5)
    assert d.message == "'score' belongs to each player"
    assert "me.score" in d.hint
    d = the_error(edit("any(players where it.score >= goal)", "score >= goal"))
    assert where(d) == (44, 16)
    assert d.message == "'score' belongs to each player"


def test_cards_cannot_start_in_a_players_zone():
    d = the_error(edit("cards in deck", "cards in hand"))
    assert where(d) == (9, 10)
    assert "each player's 'hand'" in d.message and "setup" in d.hint


# ---------------------------------------------------------------- procedures and functions


def test_procedure_with_too_few_arguments():
    text = edit("gain(me, c.value)", "gain(me)")
    d = the_error(text)
    assert where(d) == (36, 9)
    assert pointed(d, text) == "gain(me)"
    assert d.message == "procedure 'gain' takes 2 argument(s), not 1"


def test_procedure_with_too_many_arguments():
    d = the_error(edit("gain(me, c.value)", "gain(me, 1, 2)"))
    assert d.message == "procedure 'gain' takes 2 argument(s), not 3"


def test_procedure_arguments_of_the_wrong_type_are_each_reported():
    ds = diagnostics(edit("gain(me, c.value)", "gain(c.value, me)"))
    assert [where(d) for d in ds] == [(36, 14), (36, 23)]
    assert ds[0].message == "argument 'p' of procedure 'gain' must be a player, but this is a number"
    assert ds[1].message == "argument 'n' of procedure 'gain' must be a number, but this is a player"


def test_builtin_function_with_the_wrong_number_of_arguments():
    d = the_error(edit("top(pile where it is num)", "top(pile, 2)"))
    assert where(d) == (21, 20)
    assert d.message == "top() takes 1 argument(s), not 2"


def test_procedure_parameter_of_an_unknown_type():
    d = the_error(edit("n: int", "n: integer"))
    assert where(d) == (28, 27)
    assert d.message == "unknown type 'integer'"


# ---------------------------------------------------------------- duplicates


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("zone pile: stack", "zone 'pile' is declared twice"),
        ("card joker", "card kind 'joker' is declared twice"),
        ("param goal = 2", "parameter 'goal' is declared twice"),
        ("action play { }", "action 'play' is declared twice"),
        ("setup { }", "`setup` is declared twice"),
        ('game "Other"', "the game is named twice"),
        ("players 2..3", "the number of players is given twice"),
        ("rank by lowest it.score", "the ranking is given twice"),
    ],
)
def test_duplicate_declarations(extra, message):
    d = the_error(MINI + extra + "\n")
    assert where(d) == (46, 1)
    assert d.message == message


@pytest.mark.parametrize(
    ("extra", "first"),
    [
        ("procedure gain(p: player) { }", "mini.rules:28:1"),
        ("counter goal = 0", "mini.rules:3:1"),
        ("define deck = 1", "mini.rules:14:1"),
        ("var score = 1", "mini.rules:18:1"),
    ],
)
def test_names_declared_twice_say_where_they_were_first(extra, first):
    d = the_error(MINI + extra + "\n")
    assert where(d) == (46, 1)
    assert "is already declared" in d.message
    assert d.hint == f"first declared at {first}"


@pytest.mark.parametrize("name", ["me", "round", "count", "it"])
def test_builtin_names_cannot_be_declared(name):
    d = the_error(MINI + f"counter {name} = 0\n")
    assert where(d) == (46, 1)
    assert d.message == f"'{name}' is a built-in name"


# ---------------------------------------------------------------- zones


def test_unknown_zone_option_with_did_you_mean():
    text = edit("zone pile: stack, public", "zone pile: stak, public")
    d = the_error(text)
    assert where(d) == (15, 12)
    assert pointed(d, text) == "stak"
    assert d.message == "unknown zone option 'stak'" and d.hint == "did you mean 'stack'?"


def test_unknown_zone_option_lists_the_options():
    d = the_error(edit("zone pile: stack, public", "zone pile: stack, shiny"))
    assert "stack" in d.hint and "public" in d.hint


def test_two_shapes_or_two_visibilities():
    d = the_error(edit("zone pile: stack, public", "zone pile: stack, hand, public"))
    assert where(d) == (15, 19) and d.message == "zone 'pile' has two shapes (stack, hand)"
    d = the_error(edit("zone pile: stack, public", "zone pile: stack, public, hidden"))
    assert where(d) == (15, 27) and d.message == "zone 'pile' is given two visibilities (public, hidden)"


def test_private_zone_needs_an_owner():
    d = the_error(edit("zone pile: stack, public", "zone pile: stack, private"))
    assert where(d) == (15, 1)
    assert "private but has no owner" in d.message and "per player" in d.hint


def test_refill_from_itself_or_from_a_players_zone():
    d = the_error(edit("refill from pile", "refill from deck"))
    assert where(d) == (14, 27) and d.message == "zone 'deck' cannot refill from itself"
    d = the_error(edit("refill from pile", "refill from hand"))
    assert where(d) == (14, 27) and "refill" in d.message


# ---------------------------------------------------------------- cards


def test_card_values_must_match_the_kind():
    d = the_error(edit("2 joker", "2 joker(1)"))
    assert where(d) == (11, 5)
    assert d.message == "card kind 'joker' takes 0 value(s) (none), not 1"
    d = the_error(edit("10 num(1),", "10 num,"))
    assert where(d) == (10, 5)
    assert d.message == "card kind 'num' takes 1 value(s) (value), not 0"


def test_an_attribute_with_two_types():
    d = the_error(edit("10 num(3)", '10 num("three")'))
    assert where(d) == (10, 27)
    assert "attribute 'value'" in d.message and "a number" in d.message and "a text" in d.message


def test_no_cards():
    d = the_error(edit("    10 num(1), 10 num(2), 10 num(3)\n    2 joker\n", ""))
    assert d.message == "the game has no cards"


def test_an_absurd_card_count_is_refused_before_any_card_is_built():
    # In a child process limited to 1 GB of memory: building 10**8 cards would fail there with a
    # MemoryError (deterministic on a loaded machine, unlike a time limit). The timeout only
    # guards the suite against a hang.
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "import rulesdsl\n"
        "try:\n"
        "    rulesdsl.load_text(sys.stdin.read(), path='mini.rules')\n"
        "except rulesdsl.RulesError as e:\n"
        "    print([(d.span.line, d.span.column) for d in e.diagnostics if d.span])\n"
    )
    try:
        proc = subprocess.run([sys.executable, "-c", code], input=edit("10 num(1),", "100000000 num(1),"),
                              capture_output=True, text=True, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("checking a file with 100 000 000 cards did not end")
    assert proc.stdout.strip() == "[(10, 5)]", proc.stdout + proc.stderr


# ---------------------------------------------------------------- statements in the wrong place


def test_break_outside_a_loop():
    text = edit("move c to pile", "move c to pile\n    break")
    d = the_error(text)
    assert where(d) == (35, 5)
    assert pointed(d, text) == "break"
    assert d.message == "`break` outside a loop"


def test_break_in_a_procedure_is_outside_a_loop_even_if_called_from_one():
    d = the_error(edit("p.score += n", "p.score += n\n    break"))
    assert where(d) == (30, 5)


def test_break_inside_loops_is_fine():
    rulesdsl.load_text(edit(
        "draw 1 from deck to me.hand",
        "for each p in players {\n if yes { break }\n}\nwhile yes { break }\nrepeat 2 times { break }\n"
        "draw 1 from deck to me.hand",
    ), path=PATH)


def test_bad_end_statements():
    d = the_error(edit("move c to pile", "move c to pile\n    end match"))
    assert where(d) == (35, 5)
    assert "end turn" in d.message and "end round" in d.message
    d = the_error(MINI + "round end {\n    end round\n}\n")
    assert where(d) == (47, 5)
    assert d.message == "`end round` cannot be used in `round end`"


# ---------------------------------------------------------------- the whole game


def test_missing_players():
    d = the_error(edit("players 2..4 default 3\n", ""))
    assert d.message == "the file does not say how many players play"
    assert "players 2..4" in d.hint
    assert d.span is not None and d.span.file == PATH


def test_no_actions():
    text = edit("action play {\n    choose c in me.hand\n    move c to pile\n    if c is num {\n"
                "        gain(me, c.value)\n    }\n}\n", "")
    text = edit("action draw_one {\n    draw 1 from deck to me.hand\n}\n", "", text)
    d = the_error(text)
    assert d.message == "the game has no actions"
    assert "action" in d.hint


def test_no_actions_and_no_question_in_the_turn_hooks():
    """A game may do without actions if its turn hooks ask its decisions; one that asks nothing
    at all is still refused."""
    base = ('game "h"\nplayers 2\ncard c(v)\ncards in z { 1 c(1) }\nzone z: stack\ncounter n per player = 0\n'
            'game ends when turn == 3\nrank by highest me.n\n')
    rulesdsl.load_text(base + "turn start {\n    choose k in 1..2 as \"k\"\n    me.n += k\n}\n")
    with pytest.raises(RulesError, match="the game has no actions"):
        rulesdsl.load_text(base + "turn start {\n    me.n += 1\n}\n")


def test_no_end():
    d = the_error(edit("game ends when any(players where it.score >= goal)\n", ""))
    assert d.message == "the game never ends"
    assert "game ends when" in d.hint and "end game" in d.hint


def test_an_end_game_statement_is_an_end():
    rulesdsl.load_text(edit("game ends when any(players where it.score >= goal)\n",
                            "turn end {\n    if me.score >= goal { end game }\n}\n"), path=PATH)


def test_no_ranking():
    d = the_error(edit("rank by highest it.score\n", ""))
    assert d.message == "the game says nothing about who wins"
    assert "rank by" in d.hint and "winners are" in d.hint


def test_winners_are_is_a_ranking():
    rulesdsl.load_text(edit("rank by highest it.score", "winners are players where it.score >= goal"), path=PATH)


def test_a_file_that_is_not_a_game_says_so_once():
    # An empty file, or a prelude of shared declarations checked alone, is not a game.
    for text in ("", "card a\nzone d: stack\ncards in d { 2 a }\n"):
        d = the_error(text)
        assert where(d) == (1, 1)
        assert "declares no game" in d.message
        assert "import" in d.hint


def test_several_whole_game_mistakes_are_all_reported():
    text = edit("players 2..4 default 3\n", "")
    text = edit("game ends when any(players where it.score >= goal)\n", "", text)
    text = edit("rank by highest it.score\n", "", text)
    messages = {d.message for d in diagnostics(text)}
    assert messages == {"the file does not say how many players play", "the game never ends",
                        "the game says nothing about who wins"}


# ---------------------------------------------------------------- parameters and players in the file


def test_param_default_out_of_its_range():
    text = edit("param goal = 3 in 1..9", "param goal = 30 in 1..9")
    d = the_error(text)
    assert where(d) == (3, 1)
    assert d.message == "the default 30 of 'goal' is outside its range 1..9"


def test_only_a_number_param_has_a_range():
    d = the_error(edit("param bonus = yes", "param bonus = yes in 0..1"))
    assert where(d) == (4, 1)
    assert d.message == "only a number parameter can have a range"


def test_default_player_count_out_of_range():
    ds = diagnostics(edit("players 2..4 default 3", "players 2..4 default 9"))
    located = [d for d in ds if d.span is not None]
    assert [where(d) for d in located] == [(2, 1)]
    assert located[0].message == "the default of 9 players is outside 2..4"


def test_backwards_player_range():
    ds = diagnostics(edit("players 2..4 default 3", "players 4..2"))
    assert any(d.message == "bad player range 4..2" and where(d) == (2, 1) for d in ds)


@pytest.mark.parametrize("line", ["players 2..4 default 9", "players 4..2"])
def test_a_bad_players_line_is_one_error(line):
    d = the_error(edit("players 2..4 default 3", line))
    assert where(d) == (2, 1)


def test_too_many_players_in_the_file():
    d = the_error(edit("players 2..4 default 3", "players 2..100"))
    assert where(d) == (2, 1)
    assert "at most" in d.message


# ---------------------------------------------------------------- parameters given to load (--set)


@pytest.fixture
def mini_file(tmp_path):
    p = tmp_path / "mini.rules"
    p.write_text(MINI, encoding="utf-8")
    return p


def load_errors(path, **kw) -> list[Diagnostic]:
    with pytest.raises(rulesdsl.RulesError) as info:
        rulesdsl.load(path, **kw)
    assert "Traceback" not in info.value.format()
    return info.value.diagnostics


def test_set_parameters_through_load(mini_file):
    game = rulesdsl.load(mini_file, goal=5, bonus=False)
    assert game.params == {"goal": 5, "bonus": False}
    # Values from the command line arrive as text.
    game = rulesdsl.load(mini_file, goal="7", bonus="no")
    assert game.params == {"goal": 7, "bonus": False}
    assert rulesdsl.load(mini_file, bonus="yes").params["bonus"] is True


def test_set_tempurra_parameters():
    assert tempurra(4, tokens_to_lose=1).params["tokens_to_lose"] == 1
    assert tempurra(4, hand_size="10").params["hand_size"] == 10


def test_set_an_unknown_parameter(mini_file):
    (d,) = load_errors(mini_file, goa=2)
    assert d.message == "parameter 'goa': the game has no such parameter"
    assert d.hint == "did you mean 'goal'?"
    (d,) = load_errors(mini_file, colour=2)
    assert "goal" in d.hint and "bonus" in d.hint  # nothing close: list them


def test_set_a_parameter_of_the_wrong_type(mini_file):
    (d,) = load_errors(mini_file, goal="many")
    assert d.message == "parameter goal=many: expected a whole number"
    (d,) = load_errors(mini_file, bonus="maybe")
    assert d.message == "parameter bonus=maybe: expected yes or no"
    (d,) = load_errors(mini_file, goal=True)
    assert "expected a whole number" in d.message


@pytest.mark.parametrize("value", [0, 10, -1, "99"])
def test_set_a_parameter_out_of_range(mini_file, value):
    (d,) = load_errors(mini_file, goal=value)
    assert d.message == f"parameter goal={value}: out of range 1..9"


def test_set_errors_are_all_reported_with_the_files_errors(mini_file):
    mini_file.write_text(edit("move c to pile", "move c to plie"), encoding="utf-8")
    ds = load_errors(mini_file, goa=1, goal=0, bonus="perhaps")
    messages = [d.message for d in ds]
    assert len(ds) == 4, messages
    assert "unknown zone 'plie'" in messages


@pytest.mark.parametrize("players", [1, 5, 0, 60])
def test_player_count_out_of_range(mini_file, players):
    (d,) = load_errors(mini_file, players=players)
    assert d.message == f"this game is for 2 to 4 players, not {players}"


@pytest.mark.parametrize("players", [2, 8])
def test_tempurra_player_count_out_of_range(players):
    with pytest.raises(rulesdsl.RulesError) as info:
        tempurra(players)
    assert "3 to 7 players" in info.value.format()


def test_a_missing_file_is_a_rules_error(tmp_path):
    (d,) = load_errors(tmp_path / "nope.rules")
    assert "no such file" in d.message


def test_a_missing_import_is_located(tmp_path):
    p = tmp_path / "g.rules"
    p.write_text('import "prelude/nope.rules"\n' + MINI, encoding="utf-8")
    (d,) = load_errors(p)
    assert where(d) == (1, 1)
    assert "cannot import 'prelude/nope.rules'" in d.message


def test_an_import_cycle_is_reported(tmp_path):
    (tmp_path / "a.rules").write_text('import "b.rules"\n' + MINI, encoding="utf-8")
    (tmp_path / "b.rules").write_text('import "a.rules"\n', encoding="utf-8")
    (d,) = load_errors(tmp_path / "a.rules")
    assert "imports itself" in d.message


# ---------------------------------------------------------------- all errors at once


def test_four_mistakes_give_four_located_diagnostics():
    text = MINI
    text = edit("zone pile: stack, public", "zone pile: stack, pubilc", text)  # a zone option
    text = edit("move c to pile", "move c to plie", text)  # a zone name
    text = edit("if c is num {", "if c is nmu {", text)  # a card kind
    text = edit("draw 1 from deck", 'draw "one" from deck', text)  # a type
    with pytest.raises(rulesdsl.RulesError) as info:
        rulesdsl.load_text(text, path=PATH)
    ds = info.value.diagnostics
    assert [(where(d), d.message) for d in ds] == [
        ((15, 19), "unknown zone option 'pubilc'"),
        ((34, 15), "unknown zone 'plie'"),
        ((35, 13), "unknown card kind 'nmu'"),
        ((41, 10), "the number of cards must be a number, but this is a text"),
    ]
    assert [d.hint for d in ds[:3]] == ["did you mean 'public'?", "did you mean 'pile'?", "did you mean 'num'?"]
    out = info.value.format()
    assert out.endswith("\n4 errors")
    assert out.count("mini.rules:") == 4
    # Each comes with its source line and a caret under the mistake.
    assert "  zone pile: stack, pubilc\n                    ^^^^^^\n" in out
    assert '      draw "one" from deck to me.hand\n           ^^^^^\n' in out


def test_errors_are_sorted_by_position_and_not_repeated():
    text = edit("gain(me, c.value)", "gain(me, c.colour + c.colour)")
    text = edit("move c to pile", "move c to plie", text)
    ds = diagnostics(text)
    assert [where(d) for d in ds] == [(34, 15), (36, 20), (36, 31)]


# ---------------------------------------------------------------- limits: nothing crashes the checker


def test_a_chain_of_200_defines_is_a_located_error_not_a_crash():
    chain = "".join(f"define d{i} = d{i + 1} + 1\n" for i in range(200)) + "define d200 = 1\n"
    ds = diagnostics(MINI + chain)
    assert ds and all(d.span is not None and d.span.line > MINI.count("\n") for d in ds)
    assert "nests too deeply through defines (more than 150 levels)" in ds[0].message


def test_a_chain_of_forty_defines_checks_compiles_and_runs():
    chain = "".join(f"define d{i} = d{i + 1} + 1\n" for i in range(40)) + "define d40 = 1\n"
    game = rulesdsl.load_text(edit("    p.score += n\n", "    p.score += n + d0 - 41\n", MINI) + chain)
    state = game.new_game(seed=1)
    state.apply(next(m for m in state.legal_moves() if m.text.startswith("play")))


def deepest(head: str, tail: str) -> str:
    """The most deeply nested `head ... 1 ... tail` that the parser accepts in a define."""
    from rulesdsl.parser import parse_text

    for n in range(80, 0, -1):
        text = f"define deep = {head * n}1{tail * n}\n"
        try:
            parse_text(text)
        except rulesdsl.RulesError:
            continue
        return text
    raise AssertionError("no depth accepted")


@pytest.mark.parametrize(("head", "tail"), [("-", ""), ("-(", ")"), ("min(1, ", ")"), ("(1 + ", ")"),
                                            ("if yes then ", " else 0"), ("(if not no then ", " else 0)"),
                                            ("max([1, ", "])"), ("count([", "]) + 1")])
def test_the_deepest_rule_the_parser_accepts_checks_compiles_and_runs(head, tail):
    # The limits are low enough for every later stage: the checker, the compiler, the generated
    # Python (which has limits of its own) and the engine, which all recurse.
    text = edit("    p.score += n\n", "    p.score += n + deep\n", MINI) + deepest(head, tail)
    game = rulesdsl.load_text(text)
    state = game.new_game(seed=1)
    state.apply(next(m for m in state.legal_moves() if m.text.startswith("play")))


def test_replace_show_in_a_variant_is_a_located_error(tmp_path):
    import shutil

    shutil.copytree(GAMES, tmp_path / "games")
    v = tmp_path / "games" / "variants" / "v.rules"
    v.write_text('extends "../tempurra.rules"\n\nreplace show plate_sum\n', encoding="utf-8")
    (d,) = load_errors(v, allow_paths=[tmp_path])
    assert (d.span.line, d.span.column) == (3, 1)
    assert "`replace` takes the place of a declaration the base names; a `show` line has no name" in d.message
    v.write_text('extends "../tempurra.rules"\n\nshow plate_sum\n', encoding="utf-8")
    assert rulesdsl.load(v, allow_paths=[tmp_path]).name == "Tempurra"


@pytest.mark.parametrize("odd", ["\x0c", "\u2028", "\x85"])
def test_an_odd_line_break_in_a_comment_does_not_shift_the_checkers_quote(odd):
    text = edit("counter score per player = 0\n", f"# scores{odd}and more\ncounter score per player = nope\n")
    with pytest.raises(rulesdsl.RulesError) as info:
        rulesdsl.load_text(text, path=PATH)
    (d,) = info.value.diagnostics
    assert info.value.format().splitlines()[1] == "  counter score per player = nope"
    assert line_of(text.replace(odd, " "), d.span.line) == "counter score per player = nope"


def test_the_checker_stops_after_a_hundred_errors_with_a_located_note():
    # (each unknown name looks for a close one among every name: thousands of them took minutes)
    ds = diagnostics(MINI + "".join(f"define u{i} = nope{i} + 1\n" for i in range(3000)))
    assert len(ds) == 101 and all(d.span is not None and d.span.line > 0 for d in ds)
    assert ds[-1].message == "too many errors: stopped after 100"


def test_cards_moved_to_a_zone_worked_out_in_play_are_refused_where_it_is_written():
    # (a zone-typed value that is not a zone's name nor a player's zone: the compiler has no zone
    # to write the move for)
    text = edit("    move c to pile\n", "    move c to (if c is joker then pile else deck)\n")
    (d,) = diagnostics(text)
    assert d.message == "expected a zone"
    assert line_of(text, d.span.line).strip().startswith("move c to (if")


@pytest.mark.parametrize("init", ["later", "later + 1", "count(deck)", "score"])
def test_an_initial_value_that_reads_the_game_is_located(init):
    # (found by fuzzing: a variable declared after it reached the compiler, which has no state yet)
    text = edit("var leader: player = none\n", f"var leader: player = none\nvar early = {init}\nvar later: int = 2\n")
    ds = diagnostics(text)
    assert any(d.message == "an initial value must not depend on the game in progress" for d in ds)
    assert all(line_of(text, d.span.line).startswith("var early") for d in ds)


# ---------------------------------------------------------------- partial knowledge (issue 21)


@pytest.mark.parametrize("told", ["show (next(me).hand where it is num).colour to next(me)",
                                  "reveal (next(me).hand where it is num).colour"])
def test_showing_an_attribute_cards_do_not_have_is_located(told):
    text = edit("    move c to pile\n", f"    move c to pile\n    {told}\n")
    d = the_error(text)
    assert "cards have no attribute 'colour' to show" in d.message and pointed(d, text) == "colour"
    assert "value" in (d.hint or "")


def test_showing_an_attribute_of_cards_and_of_one_card_checks():
    text = edit("    move c to pile\n", "    move c to pile\n    show c.value to next(me)\n"
                "    reveal next(me).hand.kind\n")
    game = rulesdsl.load_text(text, path=PATH)
    assert game.partial_attrs == ("kind", "value")


def test_showing_an_attribute_of_a_number_is_refused_where_it_is_read():
    text = edit("    move c to pile\n", "    move c to pile\n    show me.score.value to me\n")
    d = the_error(text)
    assert d.message == "a number has no attribute 'value'" and where(d) == (35, 19)


def test_a_list_valued_variable_read_through_a_list_of_players_is_a_located_error_with_a_hint():
    # `players.marks` of a `numbers` variable would be a list of lists: refused where it is
    # written, with the loop to write instead; a variable of one value reads as a list of them.
    text = edit("var leader: player = none", "var leader: player = none\nvar marks: numbers per player = []")
    good = edit("define top_value = top(pile where it is num).value",
                "define top_value = top(pile where it is num).value\ndefine leaders = count(players.leader)", text)
    rulesdsl.load_text(edit("var leader: player = none", "var leader: player per player = none", good), path=PATH)
    bad = edit("define top_value = top(pile where it is num).value",
               "define top_value = top(pile where it is num).value\ndefine all_marks = players.marks", text)
    d = the_error(bad)
    assert where(d)[0] == bad.splitlines().index("define all_marks = players.marks") + 1 and pointed(d, bad) == "marks"
    assert d.message == "'marks' of several players at once is not supported"
    assert "for each p in" in d.hint and "p.marks" in d.hint


# ---------------------------------------------------------------- descriptions and display names (issue 22)


def test_a_description_fills_in_parameters_and_is_kept_in_file_order():
    text = edit('game "Mini"', 'about "Score {goal} first;" "bonus: {bonus}."\ngame "Mini"')
    text = edit("action play {", 'about "play a card"\naction play {', text)
    game = rulesdsl.load_text(text, path=PATH, goal=5)
    assert [a[:3] for a in game.about] == [("game", "", "Score 5 first; bonus: yes."),
                                           ("action", "play", "play a card")]
    first = text.splitlines().index("action play {") + 1
    assert game.about[1][3] == (PATH, first, first + 6)       # the lines of what it describes
    assert [w.message for w in game.warnings] == ["action 'draw_one' has no description", "nothing says how to win"]


def test_a_description_can_only_fill_in_parameters():
    gaol, top = diagnostics(edit("action play {", 'about "play up to {gaol} or {top_value}"\naction play {'))
    assert gaol.message == top.message == "a description can only fill in a parameter's value, as in `{hand_size}`"
    assert where(gaol) == (32, 20) and gaol.hint == "did you mean 'goal'?" and where(top) == (32, 30)
    d = the_error(edit("action play {", 'about "worth {top_value + 1}"\naction play {'))
    assert where(d) == (32, 15) and "nothing else has a value yet" in d.hint


@pytest.mark.parametrize(("before", "what"), [
    ("cards in deck {", "`cards in`"), ("players 2..4 default 3", "`players`"),
    ("game ends when", "`game ends when`"),
])
def test_a_description_stands_only_before_what_it_can_describe(before, what):
    text = edit(before, f'about "words" {before}')
    if what == "`game ends when`":
        assert rulesdsl.load_text(text, path=PATH).about[0][:2] == ("ends", "game")
        return
    d = the_error(text)
    assert d.message == f"a description cannot stand before {what}" and pointed(d, text) == '"words"'
    assert "`about` describes the game, a parameter" in d.hint


def test_display_names_are_kept_and_checked():
    text = edit("zone pile: stack", 'zone pile as "discard pile": stack')
    text = edit("counter score per player = 0", 'counter score per player as "points" = 0', text)
    text = edit("define top_value =", 'define top_value as "top value" =', text)
    game = rulesdsl.load_text(text, path=PATH)
    assert game.display_names == {"pile": "discard pile", "score": "points", "top_value": "top value"}
    d = the_error(edit("var leader: player = none", 'var leader: player as "points" = none', text))
    assert d.message == "'points' is already the display name of 'score'" and where(d) == (19, 1)
    d = the_error(edit("zone pile: stack", 'zone pile as " ": stack'))
    assert d.message == "the display name of 'pile' is empty"
    d = the_error(MINI + 'define twice(n: int) as "double" = n * 2\n')
    assert d.message == "'twice' takes parameters, so the table never shows it: it needs no display name"


def test_a_description_and_a_say_may_run_over_several_lines_and_format():
    text = edit("action play {", 'about "play"\n  "a card"   "now"\naction play {\n    say "a"\n        "b"')
    game = rulesdsl.load_text(text, path=PATH)
    assert ("action", "play", "play a card now") in [a[:3] for a in game.about]
    from rulesdsl.fmt import format_text
    assert 'about "play"\n  "a card" "now"\naction play {\n    say "a"\n        "b"' in format_text(text)


def test_a_broken_file_with_descriptions_reports_each_error_once_at_its_place():
    text = 'about "the game"\ngame "G"\nabout "first"\naction a { say "x" + }\nabout "second"\n  "more"\naction b { '
    ds = diagnostics(text)
    assert [(d.span.line, d.message) for d in ds] == [(4, "unexpected '+'"), (7, "unclosed '{'")]
