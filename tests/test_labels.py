"""`choose ... as "LABEL"` and `else "PASS LABEL"` with `{values}`: filled in at each ask, in the
decision's own block, and shown wherever a move's text is (moves, prompt, log, saves, replays)."""

from __future__ import annotations

import pytest

from rulesdsl import load, load_text
from rulesdsl.engine.state import IllegalMove, State
from rulesdsl.errors import RulesRuntimeError
from rulesdsl.testing import Transcript, replay

from .conftest import GAMES
from .conftest import run_cli as run

GAME = """\
game "Labels"
players 2

card number(n) shown "{n}"
cards in deck {
    1 number(1), 1 number(2), 1 number(3), 1 number(4), 1 number(5), 1 number(6), 1 number(7), 1 number(8)
}

zone deck: stack, hidden
zone pile: stack, public
zone hand per player: hand

counter given per player = 0

setup {
    for each p in players {
        draw 3 from deck to p.hand
    }
}

action give {
    let n = 0
    repeat 2 times {
        n += 1
        may choose c in me.hand as "pass {n} of {me}" else "keep {count(me.hand)}"
        if c != none {
            move c to pile
            me.given += 1
        }
    }
}

action cover when any(pile) {
    choose d in me.hand as "on {top(pile)} under {top(deck)}"
    move d to pile
}

game ends when count(pile) >= 5
rank by highest me.given
"""

# Unshuffled: alice holds 8 7 6 and bob 5 4 3 (a draw takes the top card: the last listed).
ALICE = ["8", "7", "6"]


def game():
    return load_text(GAME)


def at_first_choose() -> State:
    st = game().new_game(1)
    assert st.move_texts() == ["give"]  # (nothing on the pile: no `cover`)
    st.apply("give")
    return st


def test_labels_are_filled_in_with_their_values_in_the_moves():
    st = at_first_choose()
    assert st.move_texts() == [f"pass 1 of alice {c}" for c in ALICE] + ["keep 3"]
    assert [m.text for m in st.legal_moves()] == st.move_texts()


def test_a_label_value_is_worked_out_again_at_each_ask():
    st = at_first_choose()
    st.apply("pass 1 of alice 8")
    # n and the hand changed since the first ask: both labels show it
    assert st.move_texts() == ["pass 2 of alice 7", "pass 2 of alice 6", "keep 2"]


def test_a_pass_label_with_a_value_gives_none():
    st = at_first_choose()
    st.apply("keep 3")
    assert st.move_texts() == ["pass 2 of alice 8", "pass 2 of alice 7", "pass 2 of alice 6", "keep 3"]
    st.apply("keep 3")
    assert st.chooser == 1 and st.move_texts() == ["give"]  # nothing was passed: still no `cover`


def test_a_move_is_played_by_its_filled_in_text_and_logged_so():
    st = at_first_choose()
    st.apply("PASS 1 OF ALICE 7")  # as any move text: matched whatever the case
    assert "alice: pass 1 of alice 7" in st.events_for(0)
    with pytest.raises(IllegalMove, match="not a legal move"):
        st.apply("pass 1 of alice 8")  # the first ask's label: n is 2 now


def test_a_merged_first_choose_fills_in_its_label_at_the_turn():
    st = at_first_choose()
    st.apply("pass 1 of alice 8")
    st.apply("keep 2")
    # bob's turn: the pile's top is public (its face), the deck's top is hidden (its place)
    assert st.move_texts() == ["give"] + [f"on 8 under top of deck {c}" for c in ["5", "4", "3"]]
    st.apply("on 8 under top of deck 5")
    assert st.move_texts() == ["give"] + [f"on 5 under top of deck {c}" for c in ["7", "6"]]


def test_the_prompt_and_the_log_show_the_filled_in_labels(tmp_path):
    path = tmp_path / "labels.rules"
    path.write_text(GAME, encoding="utf-8")
    code, out, _ = run("play", str(path), "--seed", "1", stdin="1\nquit\n")
    assert code == 0
    # (`give`, the only move, is played for alice)
    assert "   1. pass 1 of alice 8\n   2. pass 1 of alice 7\n   3. pass 1 of alice 6\n   4. keep 3\n" in out
    assert "  alice: pass 1 of alice 8\n" in out
    assert "   1. pass 2 of alice 7\n   2. pass 2 of alice 6\n   3. keep 2\n" in out


def test_a_save_mid_decision_and_a_replay_show_and_take_the_filled_in_labels(tmp_path):
    st = at_first_choose()
    st.apply("pass 1 of alice 8")
    restored = State.from_json(st.game, st.to_json())
    assert restored.move_texts() == st.move_texts() == ["pass 2 of alice 7", "pass 2 of alice 6", "keep 2"]
    restored.apply("pass 2 of alice 6")
    assert restored.chooser == 1
    assert restored.move_texts() == ["give"] + [f"on 6 under top of deck {c}" for c in ["5", "4", "3"]]

    path = tmp_path / "labels.rules"
    path.write_text(GAME, encoding="utf-8")
    moves = ["give", "pass 1 of alice 8", "pass 2 of alice 6", "give", "keep 3"]
    seen = [(s.move_texts(), m) for s, m in replay(Transcript(str(path), 2, {}, 1, moves))]
    assert seen[2] == (["pass 2 of alice 7", "pass 2 of alice 6", "keep 2"], "pass 2 of alice 6")
    assert seen[4][0][-1] == "keep 3" and seen[-1][1] is None


def write(tmp_path, label: str):
    path = tmp_path / "labels.rules"
    path.write_text(GAME.replace('"keep {count(me.hand)}"', label), encoding="utf-8")
    return path


def test_check_locates_a_name_a_label_cannot_fill_in(tmp_path):
    path = write(tmp_path, '"keep {nope} {c}"')
    code, _, err = run("check", str(path))
    assert code == 1
    line = next(i for i, t in enumerate(GAME.splitlines(), 1) if "keep {count" in t)
    col = GAME.splitlines()[line - 1].index('"keep') + 1
    assert f"{path}:{line}:{col + 7}: error: unknown name 'nope'" in err
    # the chosen name has no value yet when the question is asked
    assert f"{path}:{line}:{col + 14}: error: unknown name 'c'" in err


def test_check_warns_about_a_brace_that_is_no_value_and_lets_it_pass(tmp_path):
    path = write(tmp_path, '"keep {} {me"')
    code, out, err = run("check", str(path))
    assert code == 0 and "ok: Labels" in out
    line = next(i for i, t in enumerate(GAME.splitlines(), 1) if "keep {count" in t)
    col = GAME.splitlines()[line - 1].index('"keep') + 1
    assert f"{path}:{line}:{col + 6}: warning: an empty `{{}}`" in err
    assert f"{path}:{line}:{col + 9}: warning: a `{{` with no `}}`" in err
    assert "error" not in err
    st = load(str(path)).new_game(1)
    st.apply("give")
    assert st.move_texts()[-1] == "keep {} {me"  # shown as written


def test_check_shows_a_label_warning_alongside_the_errors(tmp_path):
    path = write(tmp_path, '"keep {me"')
    path.write_text(path.read_text(encoding="utf-8") + "\naction broken { nope = 1 }\n", encoding="utf-8")
    code, _, err = run("check", str(path))
    assert code == 1
    assert "warning: a `{` with no `}`" in err and "error:" in err
    assert err.index("warning:") < err.index("error:")  # in the file's order: the label comes first


def test_a_label_without_values_makes_no_function():
    g = load(str(GAMES / "tamalo.rules"), players=3)
    assert all(d.label_fn is None and d.pass_fn is None for d in g.decisions)
    assert all(a.lead_label_fn is None for a in g.actions)


def test_a_label_value_that_fails_is_a_runtime_error_at_the_label():
    g = load_text(GAME.replace('"keep {count(me.hand)}"', '"keep {10 / count(pile)}"'), path="labels.rules")
    st = g.new_game(1)
    st.apply("give")
    with pytest.raises(RulesRuntimeError, match="division by zero") as e:
        st.move_texts()
    line = next(i for i, t in enumerate(GAME.splitlines(), 1) if "keep {count" in t)
    assert (e.value.span.file, e.value.span.line) == ("labels.rules", line)



ZONE_LABEL = """\
game "Zone label"
players 2..2
card chip(n)
cards in pile { 1 chip(1) 1 chip(2) }
zone pile: stack, public
zone box: stack, hidden
action take {
    choose c in pile as "take from {pile}"
    move c to box
}
game ends when turn > 3
rank by lowest it.seat
"""


def test_a_zone_in_a_label_shows_its_cards_as_a_card_value_does():
    st = load_text(ZONE_LABEL, path="zone.rules").new_game(1)
    assert sorted(st.move_texts()) == ["take from chip 1, chip 2 chip 1", "take from chip 1, chip 2 chip 2"]
