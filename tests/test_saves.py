"""Saved games, transcripts and the play prompt are untrusted input: each impossible or malformed
one is refused with one clear message naming the field (issue 18's examples, one test each), and
`play` stops a game in which nobody has a real choice."""

from __future__ import annotations

import io
import json
import random

import pytest

from rulesdsl import load, load_text
from rulesdsl.cli import FORCED_SHOWN, STALL_MOVES, main, match_move
from rulesdsl.engine.constants import CONTROL
from rulesdsl.engine.rng import GENERATOR_VERSION
from rulesdsl.engine.saves import BadSave
from rulesdsl.testing import Transcript, TranscriptError

from .conftest import GAMES, ROOT, tempurra

TEMPURRA = str(GAMES / "tempurra.rules")


def saved(pending_choose: bool = False, over: bool = False, players: int = 4) -> dict:
    """A real save of Tempurra, mid-game: at a turn's decision, at a `choose` inside an action, or over."""
    g = tempurra(players)
    st = g.new_game(11)
    rng = random.Random(11)
    while not st.is_over:
        if st.moves > 6 and not over and (st.pending > 0) == pending_choose:
            break
        st.apply_index(rng.randrange(st.num_moves()))
    return json.loads(st.to_json())


def refused(data: dict | str, field: str, players: int = 4) -> BadSave:
    text = data if isinstance(data, (str, bytes)) else json.dumps(data)
    with pytest.raises(BadSave) as e:
        tempurra(players).state_from_json(text)
    assert e.value.field.startswith(field), str(e.value)
    assert isinstance(e.value, ValueError) and "\n" not in str(e.value)
    return e.value


def a_card(data: dict) -> tuple[int, int]:
    """(zone, place) of some card in the save."""
    zi = next(zi for zi, z in enumerate(data["zones"]) if z)
    return zi, 0


# ---------------------------------------------------------------- cards


def test_save_with_a_card_twice_is_refused_naming_the_field():
    data = saved()
    zi, k = a_card(data)
    data["zones"][zi].append(data["zones"][zi][k])
    e = refused(data, "zones[")
    assert "is also at" in str(e)


def test_save_with_a_card_missing_is_refused_naming_the_field():
    data = saved()
    zi, k = a_card(data)
    del data["zones"][zi][k]
    assert "is in no zone" in str(refused(data, "zones"))


@pytest.mark.parametrize("card", [-1, 10_000, True, 1.0, "3", None, [1]])
def test_save_with_a_card_id_out_of_range_or_of_the_wrong_type_is_refused(card):
    data = saved()
    zi, k = a_card(data)
    data["zones"][zi][k] = card
    refused(data, f"zones[{zi}]")


def test_save_with_zones_of_the_wrong_number_or_type_is_refused():
    data = saved()
    data["zones"].append([])
    refused(data, "zones")
    data = saved()
    data["zones"] = {"draw": []}
    refused(data, "zones")


def test_save_whose_known_masks_are_out_of_range_or_miscounted_is_refused():
    data = saved()
    data["known"][0] = 1 << 4  # a fifth seat, in a game of four
    refused(data, "known[0]")
    data = saved()
    data["known"].pop()
    refused(data, "known")
    data = saved()
    data["group"][0][0] = -1
    refused(data, "group[0][0]")


def test_save_whose_card_in_a_public_zone_is_not_known_to_all_is_refused():
    data = saved()
    g = tempurra(4)
    public = next(zi for zi in range(g.nzones) if g.zone_learn[zi] < 0 and data["zones"][zi])
    data["known"][data["zones"][public][0]] = 0
    refused(data, "known[")


# ---------------------------------------------------------------- seats, decisions, code


@pytest.mark.parametrize("pending", [-1, -5, 10_000])
def test_save_with_a_negative_or_unknown_pending_decision_is_refused(pending):
    data = saved()
    data["pending"][0] = pending
    refused(data, "pending[0]")


@pytest.mark.parametrize(("field", "index", "value"), [
    ("turn_order", 0, 4), ("turn_order", 0, -1), ("turn_order", 1, 2), ("turn_order", 2, 9),
    ("turn_order", 3, -2), ("pending", 1, 4), ("pending", 1, 2.0),
])
def test_save_with_a_seat_out_of_range_is_refused(field, index, value):
    data = saved()
    data[field][index] = value
    refused(data, field)


def test_save_whose_chooser_is_not_the_one_the_rules_ask_is_refused():
    data = saved()
    data["pending"][1] = (data["pending"][1] + 1) % 4
    refused(data, "pending[1]")


def test_save_with_options_that_the_rules_do_not_give_is_refused():
    for pending_choose in (False, True):
        data = saved(pending_choose)
        data["options"] = data["options"][:-1] if len(data["options"]) > 1 else data["options"] * 2
        assert "the rules give" in str(refused(data, "options"))


def test_save_with_a_frame_out_of_range_is_refused():
    data = saved(pending_choose=True)
    top = data["stack"][-1]
    for k, bad in ((0, 10_000), (0, -1), (1, 0), (1, 10**6), (2, top[2] + [None])):
        copy = json.loads(json.dumps(data))
        copy["stack"][-1][k] = bad
        refused(copy, f"stack[{len(data['stack']) - 1}]")
    copy = json.loads(json.dumps(data))
    copy["stack"] = []
    refused(copy, "stack")


def test_save_whose_variable_holds_a_value_of_the_wrong_type_is_refused():
    g = tempurra(4)
    data = saved()
    for k, t in enumerate(g.var_types):
        copy = json.loads(json.dumps(data))
        copy["vars"][k] = {"player": 4, "int": "3", "bool": 1, "str": 5, "card": g.ncards}.get(t, [[1]])
        refused(copy, f"vars[{k}]")
    copy = json.loads(json.dumps(data))
    copy["counters"][0] = True
    refused(copy, "counters[0]")


@pytest.mark.parametrize("value", [True, 1.5, "7", None, -1, 1 << 64])
def test_save_whose_rng_is_not_a_64_bit_number_is_refused(value):
    data = saved()
    data["rng"] = value
    refused(data, "rng")


@pytest.mark.parametrize("field", ["progress", "turn_order", "group", "log"])
def test_save_with_a_number_of_the_wrong_type_in_a_list_is_refused(field):
    data = saved()
    data[field][0] = "0" if field != "log" else ["1", 0, "x", [], None]
    refused(data, field)


def test_save_over_without_winners_or_with_winners_while_playing_is_refused():
    data = saved(over=True)
    data["winners"] = []
    refused(data, "winners")
    data = saved(over=True)
    data["ranking"] = [2] * 4
    refused(data, "ranking[0]")
    data = saved()
    data["winners"] = [0]
    refused(data, "winners")
    data = saved()
    data["over"] = 1
    refused(data, "over")


def test_save_nested_too_deeply_is_refused():
    text = json.dumps(saved()).replace('"vars": [', '"vars": [' + "[" * 100_000 + "]" * 100_000 + ",", 1)
    refused(text, "(the save)")
    text = json.dumps(saved()).replace('"vars": [', '"vars": [' + "[" * 10 + "]" * 10 + ",", 1)
    refused(text, "vars")


def test_save_with_a_huge_number_is_refused():
    data = saved()
    data["rng"] = "@"
    refused(json.dumps(data).replace('"@"', "9" * 5_000), "(the save)")
    data["rng"] = 10**400
    e = refused(data, "rng")
    assert "401 digits" in str(e) and len(str(e)) < 300


def test_save_with_an_unknown_or_a_missing_field_is_refused():
    data = saved()
    data["cheat"] = 1
    refused(data, "'cheat'")
    data = saved()
    del data["known"]
    refused(data, "known")


def test_save_that_is_not_a_json_object_is_refused():
    for text in ("{not json", "[]", "null", "", "\udcff", b"\xff\xfe{"):
        refused(text, "(the save)")


# ---------------------------------------------------------------- the fingerprint


def test_save_from_another_player_count_with_the_fingerprint_pasted_in_is_refused():
    mine = saved(players=4)
    other = saved(players=3)
    other["fingerprint"] = mine["fingerprint"]
    refused(other, "players")
    other["players"] = 4
    refused(other, "zones")


def test_save_with_other_parameters_is_refused_though_its_fingerprint_is_pasted_in():
    data = saved()
    data["params"] = dict(data["params"], tokens_to_lose=2)
    assert "does not match" in str(refused(data, "params"))
    data = saved()
    data["params"] = {k: (1 if v is True else v) for k, v in data["params"].items()} | {"x": 1}
    refused(data, "params")


def test_save_of_other_rules_is_refused_by_its_fingerprint():
    data = saved()
    data["fingerprint"] = "0" * 16
    assert "does not match" in str(refused(data, "fingerprint"))


# ---------------------------------------------------------------- transcripts


def replay(data: dict | str, tmp_path) -> tuple[int, str]:
    path = tmp_path / "t.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main(["replay", TEMPURRA, str(path), "--quiet"], stdin=io.StringIO(), stdout=out, stderr=err)
    assert "Traceback" not in out.getvalue() + err.getvalue()
    return code, err.getvalue()


def transcript() -> dict:
    return json.loads(Transcript(TEMPURRA, 4, {}, 5, [], max_moves=10).to_json())


def test_transcript_records_the_generator_version():
    t = Transcript.from_json(Transcript(TEMPURRA, 4, {}, 5, ["x"]).to_json())
    assert t.generator == GENERATOR_VERSION == json.loads(t.to_json())["generator"]


def test_transcript_of_an_old_generator_is_refused_with_a_clear_message(tmp_path):
    data = transcript()
    data["generator"] = 1
    code, err = replay(data, tmp_path)
    assert code == 2
    assert "this transcript was made by generator version 1; its seed replays a different game now" in err


def test_transcript_without_a_generator_version_is_taken_as_version_1_and_refused(tmp_path):
    data = transcript()
    del data["generator"]
    code, err = replay(data, tmp_path)
    assert code == 2 and "generator version 1" in err


@pytest.mark.parametrize("seed", [1.5, None, [1], "5", True])
def test_transcript_with_a_float_null_or_list_seed_is_refused_naming_the_field(seed, tmp_path):
    data = transcript()
    data["seed"] = seed
    code, err = replay(data, tmp_path)
    assert code == 2 and "seed: must be a whole number" in err


@pytest.mark.parametrize("params", [[["hand_size", 2]], {"players": 3}, {"path": "x"}, {"hand_size": [2]},
                                    {"hand_size": None}])
def test_transcript_with_params_as_a_list_or_holding_players_is_refused(params, tmp_path):
    data = transcript()
    data["params"] = params
    code, err = replay(data, tmp_path)
    assert code == 2 and "params" in err


@pytest.mark.parametrize("max_moves", [None, "10", 1.0, -1])
def test_transcript_with_max_moves_null_or_text_is_refused(max_moves, tmp_path):
    data = transcript()
    data["max_moves"] = max_moves
    code, err = replay(data, tmp_path)
    assert code == 2 and "max_moves" in err


def test_transcript_without_max_moves_takes_the_default():
    data = transcript()
    del data["max_moves"]
    assert Transcript.from_json(json.dumps(data)).max_moves == 10_000


@pytest.mark.parametrize("moves", ["begin 2", [1], [None], {"0": "x"}])
def test_transcript_whose_moves_are_not_a_list_of_texts_is_refused(moves, tmp_path):
    data = transcript()
    data["moves"] = moves
    code, err = replay(data, tmp_path)
    assert code == 2 and "moves" in err


def test_transcript_nested_too_deeply_is_refused(tmp_path):
    code, err = replay('{"seed": ' + "[" * 100_000 + "]" * 100_000 + "}", tmp_path)
    assert code == 2 and "nested too deeply" in err
    with pytest.raises(TranscriptError):
        Transcript.from_json("[" * 100_000)


def test_transcript_that_cannot_be_read_is_refused(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    assert main(["replay", TEMPURRA, str(tmp_path)], stdout=out, stderr=err) == 2
    assert "cannot read the transcript" in err.getvalue()
    err = io.StringIO()
    assert main(["replay", TEMPURRA, "/dev/zero"], stdout=out, stderr=err) == 2  # endless: refused unread
    assert "not a regular file" in err.getvalue()
    (tmp_path / "b.json").write_bytes(b"\xff\xfe\x00garbage")
    assert main(["replay", TEMPURRA, str(tmp_path / "b.json")], stdout=out, stderr=err) == 2
    assert "Traceback" not in err.getvalue()


# ---------------------------------------------------------------- the prompt


def play(stdin: bytes, *args: str, path: str = TEMPURRA) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    inp = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")  # strict, as a UTF-8 terminal's stdin
    code = main(["play", path, "--seed", "3", *args], stdin=inp, stdout=out, stderr=err)
    assert "Traceback" not in out.getvalue() + err.getvalue()
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("entry", ["²", "①", "٣", "𝟗"])
def test_prompt_superscript_and_circled_digits_are_not_move_numbers(entry):
    assert match_move(entry, ["a", "b"]) == f"'{entry}' is not one of your moves. Type a number from 1 to 2, or 'help'."


def test_prompt_a_number_of_4301_digits_is_just_no_such_move():
    message = match_move("9" * 4301, ["a", "b"])
    assert message.startswith("There is no move 999") and len(message) < 200
    code, out, _ = play(b"9" * 4301 + b"\nquit\n")
    assert code == 0 and "There is no move" in out and "You left the game." in out


def test_prompt_undecodable_bytes_are_said_and_the_game_goes_on():
    code, out, err = play(b"\xff\xfe\x80\n1\nquit\n")
    assert code == 0 and not err
    assert "not UTF-8 text" in out and "You left the game." in out


def test_prompt_control_characters_are_shown_back_as_question_marks():
    code, out, _ = play(b"\x1b[2J\x07\nquit\n")
    assert code == 0 and "\x1b" not in out and "'?[2J?' is not one of your moves" in out


def test_prompt_a_typo_never_loses_the_game():
    code, out, _ = play("sreve 9\n²\n\x00\n\nhelp\nquit\n".encode())
    assert code == 0 and out.count("alice> ") == 6 and "You left the game." in out


# ---------------------------------------------------------------- a game of forced moves

TREADMILL = """
game "Treadmill"
players 2
card bean
cards in pile { 1 bean }
zone pile: stack, hidden
action wait {
    shuffle pile
}
game ends when count(pile) > 1
winners are players
"""


def test_play_stops_a_game_of_only_forced_moves_with_a_clear_message(tmp_path):
    path = tmp_path / "treadmill.rules"
    path.write_text(TREADMILL, encoding="utf-8")
    assert load_text(TREADMILL).players == 2
    code, out, err = play(b"", path=str(path))
    assert code == 1
    assert f"nobody has had a real choice for {STALL_MOVES} moves" in err
    # The only moves are told a few at a time, then summed up: the output stays short.
    assert out.count("Your only move") == FORCED_SHOWN and "More only moves follow" in out
    assert len(out) < 5_000


def test_play_sums_up_a_long_run_of_only_moves_when_a_real_choice_comes(tmp_path):
    rules = TREADMILL.replace("action wait {", "counter waits = 0\naction wait {\n    waits = waits + 1") \
        .replace("winners are players", "action go when waits >= 30 {\n    waits = 0\n}\nwinners are players")
    path = tmp_path / "later.rules"
    path.write_text(rules, encoding="utf-8")
    code, out, err = play(b"quit\n", path=str(path))
    assert code == 0, err
    assert "more only moves were played for you" in out and "You left the game." in out


def test_save_whose_action_frame_is_not_above_the_turns_decision_is_refused():
    g = tempurra(4)
    st = g.new_game(11)
    rng = random.Random(11)
    while not (st.pending > 0 and st.stack[0][1] == g.turn_resume):  # a choose inside an action
        st.apply_index(rng.randrange(st.num_moves()))
    data = json.loads(st.to_json())
    main_code = g.codes[0]
    other = next(pc for pc in range(1, len(main_code.ops) + 1)
                 if main_code.kinds[pc - 1] == CONTROL and pc != g.turn_resume)
    data["stack"][0][1] = other
    assert "cannot run here" in str(refused(data, "stack[1][0]"))


def test_save_keeps_a_value_that_is_a_zone_following_that_zone():
    """`picks = me.hand` and `let mine = me.hand` hold the hand itself: a save written while the
    choice after them is pending refers to the zone ({"zone": index}), so the loaded game counts
    the card drawn after the choice, as the game never saved does (a copy would count 1, not 2)."""
    game = load(ROOT / "tests" / "data" / "zone_alias.rules")
    st = game.new_game(1)
    st.apply("grab")
    text = st.to_json()
    assert '{"zone":' in text
    loaded = game.state_from_json(text)
    assert loaded.to_json() == text
    for s in (st, loaded):
        s.apply(0)
    assert st.counters == loaded.counters and st.counter("seen", 0) == 22
    with pytest.raises(BadSave, match="zone"):
        game.state_from_json(text.replace('{"zone":', '{"zone":99,"x":'))


def test_save_keeps_whereabouts_and_refuses_a_card_listed_twice():
    """Who knows which hand holds a card (issue 21) is saved; a card listed twice is refused."""
    game = load(ROOT / "tests" / "data" / "passed_cards.rules", players=2)
    s = game.new_game(5)
    s.apply(next(t for t in s.move_texts() if t.startswith("pass")))
    assert s.where
    t = type(s).from_json(game, s.to_json())
    assert t.where == s.where and t.view(0) == s.view(0)
    data = json.loads(s.to_json())
    data["where"] = data["where"] * 2
    with pytest.raises(BadSave, match=r"where\[1\]\[0\]"):
        type(s).from_json(game, json.dumps(data))


def test_save_keeps_partial_knowledge_and_refuses_masks_of_the_wrong_number():
    """The colours a seat was shown (issue 21) are saved; masks not one per attribute are refused."""
    game = load(ROOT / "tests" / "data" / "colour_hints.rules", players=2)
    s = game.new_game(3)
    s.apply("colour r")
    assert s.partial
    t = type(s).from_json(game, s.to_json())
    assert t.partial == s.partial and t.view(1) == s.view(1)
    data = json.loads(s.to_json())
    data["partial"][0][1].append(0)
    with pytest.raises(BadSave, match=r"partial\[0\]\[1\]"):
        type(s).from_json(game, json.dumps(data))
