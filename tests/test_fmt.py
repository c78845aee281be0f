"""`rulesdsl fmt`: the games of games/ are already in its layout (a new game is covered as soon as
it is added), it only changes whitespace, keeps every comment, and formatting twice changes
nothing; a messy copy of a game comes back to the game as written."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest

from rulesdsl.cli import main
from rulesdsl.errors import RulesError
from rulesdsl.fmt import TOKEN, _starts, format_text
from rulesdsl.parser import parse_text

from .test_fuzz_rules import mutate

ROOT = Path(__file__).resolve().parent.parent
GAME_FILES = sorted((ROOT / "games").rglob("*.rules"))


def comments(text: str) -> list[str]:
    return [t for t in TOKEN.findall(text) if t.startswith("#")]


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: str(p.relative_to(ROOT / "games")))
def test_the_games_are_already_formatted(path):
    text = path.read_text(encoding="utf-8")
    assert format_text(text, str(path)) == text


def messy(text: str, rng: random.Random) -> str:
    """The same rules laid out carelessly: spaces added between tokens (not where they mean
    something to the layout: before `(`, after `,`, on a line with a comment, whose column is the
    author's), blank lines doubled, trailing spaces, and the lines whose place the layout decides
    (a declaration's or statement's first line, a closing brace) indented anyhow, unless a line
    continuing them follows (that one keeps its place relative to them)."""
    lines = text.split("\n")
    starts = {line for line, _ in _starts(parse_text(text))}
    fixed = [k + 1 in starts or ln.strip().startswith("}") for k, ln in enumerate(lines)]
    out = []
    for k, line in enumerate(lines):
        if "#" not in line and line.strip():
            found = list(TOKEN.finditer(line))
            rebuilt = ""
            for j, m in enumerate(found):
                if j:
                    prev = found[j - 1]
                    gap = line[prev.end() : m.start()]
                    keep = m.group(0) == "(" or prev.group(0) == ","
                    rebuilt += gap if keep or rng.random() < 0.7 else gap + " " * rng.randrange(1, 3)
                rebuilt += m.group(0)
            nxt = next((n for n in range(k + 1, len(lines)) if lines[n].split("#")[0].strip()), None)
            followed = nxt is not None and not fixed[nxt] and not line.rstrip().endswith(("{", "(", "["))
            indent = " " * rng.randrange(0, 13) if fixed[k] and not followed else line[: found[0].start()]
            line = indent + rebuilt
        out.append(line + " " * rng.randrange(0, 3))
        if not line.strip() and rng.random() < 0.5:
            out.append("")
    return "\n".join(out)


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: str(p.relative_to(ROOT / "games")))
def test_a_messy_copy_of_a_game_comes_back_as_written(path):
    text = path.read_text(encoding="utf-8")
    for seed in range(3):
        assert format_text(messy(text, random.Random(seed)), str(path)) == text


def test_the_layout_rules():
    got = format_text('game  "G"\nzone deck : stack,hidden\n\n\n\ndefine f( x : int ) = [ 1,2 ] + x*2\n'
                      'action a when me.score>0 and count ( deck )>1 {\n\t  if yes {say "{ me }"}\n'
                      '      end turn # bye\n  }   \n')
    assert got == ('game "G"\nzone deck: stack, hidden\n\ndefine f(x: int) = [1, 2] + x*2\n'
                   'action a when me.score>0 and count (deck)>1 {\n    if yes { say "{ me }" }\n'
                   '    end turn   # bye\n}\n')  # (the comment stays in its column)


def test_a_continued_line_keeps_its_place_under_the_line_above():
    text = ("winners are if game_over\n        and yes\n    then players\n    else []\n"
            "action a {\n  let x = 1 +\n      2\n  end turn\n}\n")
    assert format_text(text) == ("winners are if game_over\n        and yes\n    then players\n    else []\n"
                                 "action a {\n    let x = 1 +\n        2\n    end turn\n}\n")


def test_comments_stay_in_their_column_when_there_is_room():
    text = "param a = 1    # one\nparam  bb = 2  # two\nparam ccc=3 # three\n"
    assert format_text(text) == "param a = 1    # one\nparam bb = 2   # two\nparam ccc=3 # three\n"


def test_a_comment_line_under_an_end_of_line_comment_goes_on_with_it():
    text = ("param a = 1       # one, which goes\n                  #   on here\n                  #   and here\n"
            "\n      # but one after a blank line is laid out\nparam b = 2\n")
    assert format_text(text) == ("param a = 1       # one, which goes\n                  #   on here\n"
                                 "                  #   and here\n\n"
                                 "# but one after a blank line is laid out\nparam b = 2\n")


@pytest.mark.fuzz
@pytest.mark.parametrize("seed", range(4))
def test_the_fuzzing_inputs_format_idempotently_keeping_comments_or_are_refused(seed):
    rng = random.Random(seed)
    formatted = refused = 0
    for _ in range(40):
        text = mutate(rng.choice(GAME_FILES).read_text(encoding="utf-8"), rng)
        try:
            once = format_text(text)
        except RulesError as e:
            assert all(d.span is not None and d.span.line > 0 for d in e.diagnostics)
            assert not any("internal error" in d.message for d in e.diagnostics), e.format()
            refused += 1
            continue
        formatted += 1
        assert format_text(once) == once
        assert comments(once) == [c.rstrip() for c in comments(text)]
    assert formatted and refused


def test_fmt_command_rewrites_checks_and_reads_stdin(tmp_path):
    path = tmp_path / "g.rules"
    path.write_text('game  "G"\n', encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["fmt", "--check", str(path)], stdout=out, stderr=err) == 1
    assert out.getvalue() == f"{path}: would be reformatted\n" and path.read_text() == 'game  "G"\n'
    out = io.StringIO()
    assert main(["fmt", str(path)], stdout=out, stderr=err) == 0
    assert out.getvalue() == f"{path}: formatted\n" and path.read_text() == 'game "G"\n'
    assert main(["fmt", "--check", str(path)], stdout=io.StringIO(), stderr=err) == 0
    out = io.StringIO()
    assert main(["fmt", "-"], stdin=io.StringIO("players  2\n"), stdout=out, stderr=err) == 0
    assert out.getvalue() == "players 2\n" and err.getvalue() == ""


def test_fmt_leaves_a_file_that_does_not_parse_and_says_where(tmp_path):
    path = tmp_path / "g.rules"
    path.write_text('game "G\n', encoding="utf-8")
    err = io.StringIO()
    assert main(["fmt", str(path)], stdout=io.StringIO(), stderr=err) == 1
    assert err.getvalue().startswith(f"{path}:1:6: error: unterminated string")
    assert path.read_text() == 'game "G\n'
    err = io.StringIO()
    assert main(["fmt", str(tmp_path / "none.rules")], stdout=io.StringIO(), stderr=err) == 1
    assert re.match(r".*: error: no such file", err.getvalue())
