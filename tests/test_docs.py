"""The documentation stays true: the tutorial's game runs, and the rules examples in docs/ parse.

Markers in the Markdown, on the line before a ```rules block:
  <!-- from: games/x.rules -->  the block quotes that file: each line must appear in it.
  <!-- game -->                 the block is a complete game: it is checked and played.
Any other ```rules block must parse as declarations, as statements, or as one expression a line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rulesdsl
from rulesdsl.cli import main
from rulesdsl.errors import RulesError
from rulesdsl.parser import parse_expr, parse_text
from rulesdsl.simulate import simulate

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TUTORIAL_GAME = ROOT / "games" / "examples" / "fruit_bowl.rules"

BLOCK = re.compile(r"(?:<!-- (?P<marker>[^>]*?) -->\n)?```rules\n(?P<body>.*?)```", re.S)


def rules_blocks(doc: str) -> list[tuple[str, str, int]]:
    """(marker, body, line) of each ```rules block of a document in docs/."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    return [(m["marker"] or "", m["body"], text.count("\n", 0, m.start("body")) + 1) for m in BLOCK.finditer(text)]


def blocks_of(*docs: str) -> list:
    return [pytest.param(marker, body, id=f"{doc}:{line}") for doc in docs for marker, body, line in rules_blocks(doc)]


def code(line: str) -> str:
    """A line without its comment and surrounding spaces (no quoted block has '#' in a string)."""
    return line.split("#", 1)[0].strip()


def test_tutorial_game_checks():
    assert main(["check", str(TUTORIAL_GAME)]) == 0


@pytest.mark.parametrize(("players", "games"), [(None, 50), (2, 10), (5, 10)])
def test_tutorial_game_finishes(players, games):
    game = rulesdsl.load(TUTORIAL_GAME, players=players)
    stats = simulate(game, games)
    assert stats.capped == 0
    assert sum(stats.wins_by_seat()) == pytest.approx(stats.games)


def test_tutorial_typo_gives_the_error_it_shows():
    text = TUTORIAL_GAME.read_text(encoding="utf-8").replace("move c to bowl", "move c to bwol")
    with pytest.raises(RulesError) as e:
        rulesdsl.load_text(text, path="fruit_bowl.rules")
    assert "unknown name 'bwol'" in str(e.value) and "did you mean 'bowl'?" in str(e.value)
    assert "unknown name 'bwol'" in (DOCS / "tutorial.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("marker", "body"), blocks_of("language.md", "tutorial.md"))
def test_rules_block(marker, body):
    if marker.startswith("from:"):
        source = (ROOT / marker.removeprefix("from:").strip()).read_text(encoding="utf-8")
        lines = {code(line) for line in source.splitlines()}
        missing = [line for line in body.splitlines() if code(line) not in lines and code(line) != "..."]
        assert not missing, f"not in {marker}: {missing}"
    elif marker == "game":
        game = rulesdsl.load_text(body, path="<docs>")
        assert simulate(game, 20).capped == 0
    else:
        assert parses(body), f"this example does not parse:\n{body}"


def parses(body: str) -> bool:
    for attempt in (lambda: parse_text(body), lambda: parse_text("action example {\n" + body + "\n}")):
        try:
            attempt()
            return True
        except RulesError:
            pass
    try:
        for line in body.splitlines():
            if code(line):
                parse_expr(code(line))
        return True
    except RulesError:
        return False


def test_simulate_json_keys_are_documented():
    game = rulesdsl.load(TUTORIAL_GAME)
    keys = set(simulate(game, 1).to_dict())
    section = (DOCS / "cli.md").read_text(encoding="utf-8").split("### `--json`")[1].split("\n## ")[0]
    documented = set(re.findall(r"^\| `(\w+)` \|", section, re.M))
    assert documented == keys
