"""The bundled games and decks by name (`rulesdsl play tamalo`, `rulesdsl list`, `import prelude
"standard52"`), and the messages of a command whose optional library is missing."""

from __future__ import annotations

import sys

import pytest

import rulesdsl
from rulesdsl import bundled, catalog, loader
from rulesdsl.errors import RulesError

from .conftest import GAMES, run_cli

DECKLESS = ('game "Pairs"\nplayers 2\nzone deck: stack, hidden\nzone pile: stack, public\n'
            "action take when count(deck) > 0 { draw 1 from deck to pile }\n"
            "game ends when count(deck) == 0\nrank by highest count(pile)\n")


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """A folder outside the checkout, as the current folder: nothing in it but what a test writes."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_checkout_bundles_its_own_games_folder():
    assert bundled.GAMES == GAMES
    assert GAMES in loader.LIBRARY_ROOTS


def test_every_game_file_in_games_is_bundled_by_its_name():
    files = bundled.game_files()
    expected = {p.name.removesuffix(".rules") for p in GAMES.rglob("*.rules")
                if p.parent.name != "prelude" and not p.name.endswith(".test.rules")}
    assert set(files) == expected
    assert files["tamalo"] == GAMES / "tamalo.rules"
    assert files["tamalo-match"] == GAMES / "variants" / "tamalo-match.rules"


def test_a_bare_name_finds_the_bundled_game_from_any_folder(elsewhere):
    code, out, err = run_cli("check", "tamalo", "tempurra-two-tokens", "fruit_bowl")
    assert code == 0, err
    assert "ok: Tamalo," in out and "ok: Tempurra: two tokens" in out and "ok: Fruit Bowl" in out


def test_a_file_of_that_name_wins_over_the_bundled_game(elsewhere):
    (elsewhere / "tamalo").write_text(DECKLESS, encoding="utf-8")
    code, _, err = run_cli("check", "tamalo")
    assert code == 1 and "only .rules files are read" in err  # the file was read, not the bundled game


def test_a_path_is_never_taken_for_a_bundled_name(elsewhere):
    code, _, err = run_cli("check", "tamalo.rules")
    assert code == 1 and "no such file: tamalo.rules" in err


def test_an_unknown_bare_name_says_what_it_may_have_meant(elsewhere):
    code, _, err = run_cli("play", "tamlo")
    assert code == 2
    assert "no file 'tamlo' and no bundled game of that name (did you mean 'tamalo'?)" in err
    assert "rulesdsl list" in err


def test_bare_names_work_wherever_a_command_takes_rules_files(elsewhere):
    code, out, _ = run_cli("compare", "tempurra", "tempurra-two-tokens", "--games", "4", "--workers", "1", "--json")
    assert code == 0 and "Tempurra: two tokens" in out
    code, out, _ = run_cli("explain", "tamalo-match", "--diff")
    assert code == 0 and "match_points" in out
    code, out, _ = run_cli("test", "tamalo", "--games", "2")
    assert code == 0 and "scenarios:" in out  # the bundled tamalo.test.rules was found beside it


def test_list_shows_every_bundled_game_with_its_players_and_one_line():
    code, out, _ = run_cli("list")
    assert code == 0
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert set(lines) == set(bundled.game_files()) | {"standard52"}
    assert "2-6 players" in lines["tamalo"] and "Tamalo: a game of memory" in lines["tamalo"]
    assert "3-7 players" in lines["tempurra-two-tokens"]
    assert 'import prelude "NAME"' in out


def test_summary_is_the_first_sentence_of_the_opening_comment():
    text = "# Snap: shout first. Then more\n# of the same.\n\ngame \"Snap\"\n"
    assert catalog.summary(text) == "Snap: shout first."
    assert catalog.summary("# " + "word, " * 40, width=20) == "word, word, word..."
    assert catalog.summary('game "X"\n') == ""


# ---------------------------------------------------------------- import prelude "NAME"


def test_a_game_anywhere_imports_the_standard_deck_by_name(elsewhere):
    p = elsewhere / "mine.rules"
    p.write_text('import prelude "standard52"\n' + DECKLESS, encoding="utf-8")
    game = rulesdsl.load(p)
    assert game.ncards == 52
    assert any(f.endswith("standard52.rules") for f in game.sources)


def check_error(p, line: str):
    p.write_text(line + "\n" + DECKLESS, encoding="utf-8")
    with pytest.raises(RulesError) as e:
        rulesdsl.load(p)
    (d,) = e.value.diagnostics
    assert (d.span.line, d.span.column) == (1, 1)
    return d


def test_an_unknown_prelude_is_a_located_error_with_a_suggestion(tmp_path):
    d = check_error(tmp_path / "g.rules", 'import prelude "standard53"')
    assert d.message == "there is no prelude named 'standard53'"
    assert "did you mean 'standard52'?" in d.hint and "the preludes are: standard52" in d.hint


def test_a_path_in_a_prelude_import_is_refused_with_the_name_to_write(tmp_path):
    d = check_error(tmp_path / "g.rules", 'import prelude "prelude/standard52.rules"')
    assert "a prelude is imported by its name, not a path" in d.message
    assert 'import prelude "standard52"' in d.hint
    d = check_error(tmp_path / "g.rules", 'import prelude "../../etc/passwd"')
    assert "not a path" in d.message and "passwd" not in d.hint


def test_a_prelude_import_reads_only_the_libraries(tmp_path, monkeypatch):
    lib = tmp_path / "lib"
    (lib / "prelude").mkdir(parents=True)
    (lib / "prelude" / "tiny.rules").write_text('card blank\ncards in deck { 3 blank }\n', encoding="utf-8")
    monkeypatch.setattr(loader, "LIBRARY_ROOTS", [lib])
    p = tmp_path / "game" / "g.rules"
    p.parent.mkdir()
    p.write_text('import prelude "tiny"\n' + DECKLESS, encoding="utf-8")
    assert rulesdsl.load(p).ncards == 3
    (p.parent / "prelude").mkdir()  # a prelude folder beside the game is not a library
    (p.parent / "prelude" / "near.rules").write_text('card blank\n', encoding="utf-8")
    d = check_error(p, 'import prelude "near"')
    assert d.message == "there is no prelude named 'near'" and "the preludes are: tiny" in d.hint


def test_prelude_is_still_a_name_elsewhere_in_the_rules():
    game = rulesdsl.load_text("card blank\ncards in deck { 3 blank }\n" + DECKLESS.replace("pile", "prelude"))
    assert "prelude" in game.zone_names


# ---------------------------------------------------------------- a missing optional library


def test_test_without_hypothesis_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # as if it were not installed
    code, _, err = run_cli("test", str(GAMES / "tamalo.rules"), "--games", "1")
    assert code == 2 and "rulesdsl test needs hypothesis" in err and "pip install" in err


def test_compare_plot_without_matplotlib_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, _, err = run_cli("compare", "tempurra", "tempurra-two-tokens", "--games", "2", "--workers", "1",
                           "--plot", str(tmp_path / "p.png"))
    assert code == 2 and "--plot needs matplotlib: pip install 'rulesdsl[plot]'" in err
    assert not (tmp_path / "p.png").exists()


def test_language_md_shows_what_check_prints_for_an_unknown_prelude(elsewhere):
    (elsewhere / "g.rules").write_text('import prelude "standard53"\n' + DECKLESS, encoding="utf-8")
    with pytest.raises(RulesError) as e:
        rulesdsl.load("g.rules")
    assert e.value.format() in (GAMES.parent / "docs" / "language.md").read_text(encoding="utf-8")
