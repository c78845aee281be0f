"""`rulesdsl new NAME`: a start for a new game that checks, plays, simulates and passes its own
tests, whose every part points to where docs/language.md describes it, and that never overwrites."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from .conftest import ROOT, run_cli


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A fresh current folder outside the checkout (as a user's would be)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_new_writes_a_game_and_its_tests_here(here):
    code, out, err = run_cli("new", "demo")
    assert code == 0, err
    assert sorted(p.name for p in here.iterdir()) == ["demo.rules", "demo.test.rules"]
    assert "rulesdsl test demo.rules" in out and "language.md" in out
    text = (here / "demo.rules").read_text(encoding="utf-8")
    assert 'game "Demo"' in text and 'import prelude "standard52"' in text
    assert 'import "demo.rules"' in (here / "demo.test.rules").read_text(encoding="utf-8")


def test_the_new_game_checks_plays_simulates_and_passes_its_own_tests(here):
    assert run_cli("new", "my_game")[0] == 0
    code, out, _ = run_cli("check", "my_game.rules", "my_game.test.rules")
    assert code == 0 and "ok: My game, 2-4 players, 52 cards, 2 actions" in out
    code, out, _ = run_cli("play", "my_game.rules", "--seed", "1", stdin="1\n" * 60)
    assert code == 0 and ("You win!" in out or "Winner:" in out or "share the win" in out)
    code, out, _ = run_cli("simulate", "my_game.rules", "--games", "100", "--players", "4", "--workers", "1", "--json")
    stats = json.loads(out)
    assert code == 0 and stats["capped"] == 0 and stats["games"] == 100
    code, out, _ = run_cli("test", "my_game.rules", "--games", "20")
    assert code == 0, out
    assert "scenarios: 2 passed, 0 failed" in out and "checking 3 invariants" in out and "no failure" in out


def test_the_new_games_tests_catch_a_broken_rule(here):
    assert run_cli("new", "demo")[0] == 0
    game = here / "demo.rules"
    text = game.read_text(encoding="utf-8")
    game.write_text(text.replace("c.value > top(pile).value", "c.value >= top(pile).value"), encoding="utf-8")
    code, out, _ = run_cli("test", "demo.rules", "--games", "30")
    assert code == 1 and "FAILED" in out and "the_pile_climbs" in out


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_each_part_of_the_new_files_points_to_where_the_language_reference_describes_it(here):
    assert run_cli("new", "demo")[0] == 0
    language = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    anchors = {slug(h) for h in re.findall(r"^#+ (.+)$", language, re.M)}
    for name in ("demo.rules", "demo.test.rules"):
        paragraphs = (here / name).read_text(encoding="utf-8").split("\n\n")
        kind = None
        for part in paragraphs[1:]:  # (the first is the file's own description)
            first = part.split()[0]
            if first != "#":  # a second declaration of the kind just described (two actions) shares its pointer
                assert first == kind, f"{name}: a part without its pointer to docs/language.md:\n{part}"
                continue
            kind = next(line for line in part.splitlines() if not line.startswith("#")).split()[0]
            pointer = [line for line in part.splitlines() if line.startswith("#") and "docs/language.md#" in line]
            assert len(pointer) == 1, f"{name}: a part without its pointer to docs/language.md:\n{part}"
            named = re.findall(r"#([a-z0-9-]+)", pointer[0].split("docs/language.md", 1)[1])
            assert named and set(named) <= anchors, f"{name}: no such section of docs/language.md: {named}"


def test_new_never_overwrites(here):
    (here / "demo.test.rules").write_text("mine\n", encoding="utf-8")
    code, _, err = run_cli("new", "demo")
    assert code == 2 and "demo.test.rules already exists: nothing was written" in err
    assert not (here / "demo.rules").exists()
    assert (here / "demo.test.rules").read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize(("name", "says"), [
    ("demo.rules", "without .rules: rulesdsl new demo"),
    ("demo.test.rules", "without .rules: rulesdsl new demo"),
    ("../demo", "cannot name a game"),
    ("sub/demo", "cannot name a game"),
    ("-demo", "cannot name a game"),
    ("my game", "cannot name a game"),
    ("démo\x1b", "cannot name a game"),
    ("x" * 65, "at most 64"),
])
def test_new_refuses_a_name_that_is_not_a_plain_name(here, name, says):
    code, _, err = run_cli("new", "--", name)
    assert code == 2 and says in err and "\x1b" not in err
    assert list(here.iterdir()) == []


# ---------------------------------------------------------------- the docs show what `new` writes and prints


def sessions(doc: str) -> list[tuple[list[str], list[str]]]:
    """(args, output lines) of each `$ rulesdsl ...` of the doc's ```console blocks, in order: the
    sessions that write files, which the docs tests (run in the checkout) leave to this module."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for chunk in re.split(r"^(?=\$ )", block, flags=re.M):
            if chunk.startswith("$ rulesdsl "):
                first, *rest = chunk.splitlines()
                out.append((shlex.split(first.removeprefix("$ rulesdsl ")), rest))
    return out


def normal(line: str) -> str:
    """A line as the docs show it: the docs' folder as `...`, a passing run without its move count."""
    line = re.sub(r"\(\S*/docs/language\.md\)", "(.../docs/language.md)", line.rstrip())
    return re.sub(r"^(generated games: \d+ games), \d+ moves, no failure$", r"\1, N moves, no failure", line)


@pytest.mark.parametrize("doc", ["cli.md", "tutorial.md"])
def test_the_sessions_the_docs_show_are_what_new_and_its_game_print(here, doc):
    shown = sessions(doc)
    assert shown and shown[0][0] == ["new", "demo"]
    for args, expected in shown:
        _, out, err = run_cli(*args)
        assert [normal(x) for x in (out + err).splitlines()] == [normal(x) for x in expected], args


def test_the_tutorial_quotes_the_game_new_writes(here):
    assert run_cli("new", "demo")[0] == 0
    lines = {line.strip() for line in (here / "demo.rules").read_text(encoding="utf-8").splitlines()}
    text = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    start = text.split("## 0. A start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```rules\n(.*?)```", start, re.S)
    assert len(blocks) == 2
    for block in blocks:
        missing = [line for line in block.splitlines() if line.strip() and line.strip() not in lines]
        assert not missing, f"not in the game `rulesdsl new demo` writes: {missing}"


def test_one_process_testing_the_same_name_in_two_folders_tests_each_folders_game(tmp_path, monkeypatch):
    for folder in ("good", "broken"):
        (tmp_path / folder).mkdir()
        monkeypatch.chdir(tmp_path / folder)
        assert run_cli("new", "demo")[0] == 0
    broken = tmp_path / "broken" / "demo.rules"
    broken.write_text(broken.read_text(encoding="utf-8").replace("> top(pile).value", ">= top(pile).value"),
                      encoding="utf-8")
    for folder, code in (("good", 0), ("broken", 1), ("good", 0)):
        monkeypatch.chdir(tmp_path / folder)
        assert run_cli("test", "demo.rules", "--games", "30")[0] == code, folder


def test_new_leaves_nothing_behind_when_it_cannot_write_both_files(here, monkeypatch):
    real_open = open

    def failing_open(file, mode="r", *args, **kwargs):
        if str(file).endswith(".test.rules") and "x" in mode:
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", failing_open)
    code, _, err = run_cli("new", "demo")
    assert code == 1 and "cannot write demo.test.rules: permission denied; nothing was written" in err
    assert list(here.iterdir()) == []
