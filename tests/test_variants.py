"""House-rule variants: extends, replace and remove, the variant files of both seed games,
`rulesdsl compare` and `rulesdsl explain`."""

from __future__ import annotations

import importlib.util
import json
import shutil
import textwrap

import pytest

import rulesdsl
from rulesdsl.compare import proportions_p, welch_p, wilson
from rulesdsl.simulate import simulate
from rulesdsl.testing import check_properties
from tests.conftest import GAMES
from tests.conftest import run_cli as run

VARIANTS = sorted((GAMES / "variants").glob("*.rules"))


def variant(tmp_path, body: str, base: str = "tempurra.rules", name: str = "v.rules"):
    # A variant extends a copy of the game beside it: imports do not read outside a file's project.
    shutil.copytree(GAMES, tmp_path, dirs_exist_ok=True)
    path = tmp_path / name
    path.write_text(f'extends "{base}"\n' + textwrap.dedent(body), encoding="utf-8")
    return path


def errors(path) -> list:
    with pytest.raises(rulesdsl.RulesError) as e:
        rulesdsl.load(path)
    return e.value.diagnostics


# ---------------------------------------------------------------- the variant files


def test_each_seed_game_has_at_least_four_variants_with_a_header_comment():
    for base in ("tempurra", "tamalo"):
        files = [p for p in VARIANTS if p.name.startswith(base + "-")]
        assert len(files) >= 4, files
        for p in files:
            head = p.read_text(encoding="utf-8").splitlines()[0]
            assert head.startswith("# "), p
            assert "Why people play it" in p.read_text(encoding="utf-8"), p


@pytest.mark.parametrize("path", VARIANTS, ids=lambda p: p.name)
def test_every_variant_checks_plays_and_tests(path):
    game = rulesdsl.load(path)
    assert game.name != rulesdsl.load(GAMES / path.name.split("-")[0].replace(".rules", "")
                                      .__add__(".rules")).name
    stats = simulate(game, 20, seed=1)
    assert stats.capped == 0
    res = check_properties(path, games=5)
    assert res.ok, res.failure


def test_two_tokens_ends_at_two():
    game = rulesdsl.load(GAMES / "variants" / "tempurra-two-tokens.rules")
    assert game.params["tokens_to_lose"] == 2
    assert game.param_ranges["tokens_to_lose"][1:] == (1, 10), "a replaced default keeps the base's range"
    s = simulate(game, 30, seed=2)
    assert all(max(r.counters["tokens"]) == 2 for r in s.records)


def test_choose_yourself_offers_yourself():
    game = rulesdsl.load(GAMES / "variants" / "tempurra-choose-yourself.rules")
    st = game.new_game(1104)
    st.apply("begin 2")
    st.set_cards("hand", ["choose"], player=1)
    st.apply("play choose")
    assert "choose bob" in st.move_texts()


def test_no_plus_one_has_no_plus_one():
    game = rulesdsl.load(GAMES / "variants" / "tempurra-no-plus-one.rules")
    assert game.ncards == 88 and "+1" not in game.card_text


def test_jokers_add_two_cards_worth_nothing():
    game = rulesdsl.load(GAMES / "variants" / "tamalo-jokers.rules")
    assert game.ncards == 54 and game.card_text.count("Jk") == 2


def test_snapping_another_players_card_gives_them_one_of_yours():
    game = rulesdsl.load(GAMES / "variants" / "tamalo-snap-others.rules")
    st = game.new_game(1)
    st.set_turn(0)
    st.set_cards("square", ["2♠", "A♠", "5♠", "8♠"], player=0)
    st.set_cards("square", ["5♥", "3♣", "Q♠", "K♠"], player=2)
    st.apply("take 3")  # a 5 goes face up; bob decides first
    assert "snap carol 1" in st.move_texts()
    st.apply("snap carol 1")
    assert st.move_texts()[0].startswith("give ")
    st.apply("give 1")
    assert st.zone("square", 2)[0] is not None  # carol's place 1 holds bob's card now
    assert st.zone("square", 1)[0] is None


def test_a_match_plays_several_deals():
    game = rulesdsl.load(GAMES / "variants" / "tamalo-match.rules", match_points=60)
    s = simulate(game, 20, seed=3)
    assert s.capped == 0
    assert s.mean(lambda r: r.rounds) > 1
    assert all(max(r.counters["total"]) >= 60 for r in s.records)


# ---------------------------------------------------------------- the language of variants


def test_replace_remove_and_add(tmp_path):
    path = variant(tmp_path, '''
        game "Short"
        replace param tokens_to_lose = 1
        remove action skip
        action wait { say "waiting" }
    ''')
    game = rulesdsl.load(path)
    assert game.name == "Short" and game.params["tokens_to_lose"] == 1
    names = [a.name for a in game.actions]
    assert "skip" not in names and names[-1] == "wait"


def test_replacing_what_the_base_lacks_is_a_located_error(tmp_path):
    path = variant(tmp_path, '''
        replace action skipp {
            end turn
        }
        remove procedure nothing_here
    ''')
    ds = errors(path)
    assert [(d.span.line, d.span.column) for d in ds] == [(3, 1), (6, 1)]
    assert "cannot replace action skipp" in ds[0].message and ds[0].hint == "did you mean 'skip'?"
    assert "cannot remove procedure nothing_here" in ds[1].message


def test_declaring_again_without_replace_says_how(tmp_path):
    path = variant(tmp_path, "action eat { end turn }\n")
    (d,) = errors(path)
    assert d.span.line == 2 and "action eat is already in" in d.message
    assert "write `replace`" in d.hint


def test_replace_without_extends(tmp_path):
    path = tmp_path / "x.rules"
    path.write_text('game "x"\nreplace action a { end turn }\n', encoding="utf-8")
    (d,) = errors(path)
    assert "extends none" in d.message


def test_extending_a_missing_file(tmp_path):
    path = tmp_path / "x.rules"
    path.write_text('extends "nowhere.rules"\n', encoding="utf-8")
    (d,) = errors(path)
    assert "cannot extend 'nowhere.rules'" in d.message and d.span.line == 1


def test_a_variant_of_a_variant(tmp_path):
    first = variant(tmp_path, "replace param tokens_to_lose = 2\n", name="first.rules")
    second = tmp_path / "second.rules"
    second.write_text(f'extends "{first.name}"\nremove action skip\n', encoding="utf-8")
    game = rulesdsl.load(second)
    assert game.params["tokens_to_lose"] == 2 and "skip" not in [a.name for a in game.actions]


def test_a_type_error_in_a_variant_points_into_the_variant(tmp_path):
    path = variant(tmp_path, "replace define plate_sum = count(plate) + me\n")
    (d,) = errors(path)
    assert d.span.file == str(path) and d.span.line == 2


def test_set_works_on_every_command_and_is_checked():
    v = str(GAMES / "variants" / "tempurra-two-tokens.rules")
    assert run("check", v, "--set", "hand_size=4")[0] == 0
    assert run("test", v, "--set", "hand_size=4", "--games", "2")[0] == 0
    assert run("compare", str(GAMES / "tempurra.rules"), v, "--set", "hand_size=4", "--games", "5",
               "--workers", "1")[0] == 0
    for cmd in (["check", v], ["test", v], ["simulate", v], ["compare", str(GAMES / "tempurra.rules"), v]):
        code, _, err = run(*cmd, "--set", "hand_size=99")
        assert code == 2 and "out of range 1..10" in err


# ---------------------------------------------------------------- compare and explain


def test_compare_json_shows_what_a_variant_changes():
    code, out, _ = run("compare", str(GAMES / "tempurra.rules"), str(GAMES / "variants" / "tempurra-two-tokens.rules"),
                       "--games", "150", "--json", "--workers", "2")
    assert code == 0
    data = json.loads(out)
    assert data["games"] == 150 and data["capped"] == [0, 0]
    rounds = next(m for m in data["metrics"] if m["name"] == "rounds per game")
    assert rounds["values"][1] < rounds["values"][0] and rounds["p"][1] < 0.001
    wins = [m for m in data["metrics"] if m["name"].startswith("win rate")]
    assert len(wins) == 4 and all(m["kind"] == "rate" and m["p"][0] is None for m in wins)


def test_compare_is_the_same_with_one_or_two_workers():
    args = ["compare", str(GAMES / "tamalo.rules"), str(GAMES / "variants" / "tamalo-jokers.rules"),
            "--games", "40", "--json"]
    one = json.loads(run(*args, "--workers", "1")[1])
    two = json.loads(run(*args, "--workers", "2")[1])
    one.pop("seconds"), two.pop("seconds")
    assert one == two


def test_compare_table_marks_significant_differences():
    code, out, _ = run("compare", str(GAMES / "tempurra.rules"), str(GAMES / "variants" / "tempurra-two-tokens.rules"),
                       "--games", "100", "--workers", "1")
    assert code == 0 and "base: Tempurra" in out and "Tempurra: two tokens" in out
    assert "**" in out and "p < 0.05" in out


def test_compare_plot(tmp_path):
    png = tmp_path / "p.png"
    code, _, err = run("compare", str(GAMES / "tamalo.rules"), str(GAMES / "variants" / "tamalo-jokers.rules"),
                         "--games", "20", "--plot", str(png), "--workers", "1")
    if importlib.util.find_spec("matplotlib") is None:
        assert code == 2 and "pip install 'rulesdsl[plot]'" in err
    else:
        assert code == 0 and png.stat().st_size > 1000


def test_explain_prints_the_resolved_game_and_the_diff():
    v = str(GAMES / "variants" / "tempurra-strict-skip.rules")
    code, out, _ = run("explain", v)
    assert code == 0 and "a variant of games/tempurra.rules" in out.replace(str(GAMES.parent) + "/", "")
    assert "it.number == current_number).number)" in out and "action serve" in out
    text = out[out.index("# ---- from"):]
    # The resolved game is itself a valid rules file.
    rulesdsl.load_text(text.replace("replace ", ""), path="explained.rules")
    code, out, _ = run("explain", v, "--diff")
    assert code == 0 and "replace action skip" in out and "action serve" not in out
    code, out, _ = run("explain", str(GAMES / "variants" / "tamalo-match.rules"), "--diff")
    assert "remove game end" in out and "round ends when" in out
    code, _, err = run("explain", str(GAMES / "tempurra.rules"), "--diff")
    assert code == 2 and "extends no other file" in err


def test_statistics_helpers():
    assert welch_p([1, 2, 3] * 30, [1, 2, 3] * 30) == pytest.approx(1.0)
    assert welch_p([1, 2, 3] * 30, [5, 6, 7] * 30) < 1e-6
    lo, hi = wilson(25, 100)
    assert lo < 0.25 < hi and hi - lo < 0.2
    assert proportions_p(50, 100, 50, 100) == pytest.approx(1.0)
    assert proportions_p(10, 100, 60, 100) < 1e-6
