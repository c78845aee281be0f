"""The documentation stays true: the tutorial's game runs, and the rules examples in docs/ parse.

Markers in the Markdown, on the line before a ```rules block:
  <!-- from: games/x.rules -->  the block quotes that file: each line must appear in it.
  <!-- game -->                 the block is a complete game: it is checked and played.
Any other ```rules block must parse as declarations, as statements, or as one expression a line.

A ```text block that shows `$ rulesdsl ...` (or `$ printf '...' | rulesdsl play ...`) on files of
this repository is run (the tutorial's from games/examples/, where its game is): its lines must
appear in the real output, in order. `...` stands for lines left out, `NAME> MOVE` lines are the
input, and times are not compared; runs of more than 200 games are left out for speed; a `*` in
a path is expanded as the shell would. A ```python block followed by a ```text block must print it.

testing.md's commands write transcripts, and variants.md's use made-up variants, so they run in a
scratch directory that sees games/ and tests/, where their made-up files (a ```rules block after
`<!-- file: NAME -->`) are written too; a `rulesdsl replay` of a transcript first runs the shown
`rulesdsl test` that wrote it. What depends
on hypothesis's luck or on time is not compared: the moves counted by passing generated games, and
what follows `did not end within` (the game a time-limited shrink ends with).
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

import rulesdsl
from rulesdsl import testing
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


def first_lines(text: str, last: str) -> str:
    """The text up to and including the line `last`: the tutorial's game while it is being written."""
    lines = text.splitlines(keepends=True)
    return "".join(lines[: next(i for i, line in enumerate(lines) if line.startswith(last)) + 1])


# The errors the docs show, made by editing the tutorial's game: (doc, file name shown, edit).
BROKEN = [
    ("tutorial.md", "fruit_bowl.rules", [("move c to bowl", "move c to bwol")]),
    ("language.md", "fruit_bowl.rules", [("move c to bowl", "move c to bwol")]),
    ("tutorial.md", "fruit_bowl.rules", [("if count(me.hand) == 1 {", "if count(me.hand) = 1 {")]),
    ("tutorial.md", "fruit_bowl.rules", [('in sorts as "name"\n        named = sort',
                                          'in sorts as "name"\n        named = c')]),
    ("cli.md", "broken.rules", [("draw 1 from deck to me.hand", "draw 1 from deck to hand"),
                                ("p.points += hand_points(p)", "p.point += hand_points(p)")]),
    ("tutorial.md", "fruit_bowl.rules", "zone hand per player"),
]


@pytest.mark.parametrize(("doc", "name", "edit"), BROKEN)
def test_error_examples_are_what_check_prints(doc, name, edit):
    text = TUTORIAL_GAME.read_text(encoding="utf-8")
    if isinstance(edit, str):
        text = first_lines(text, edit)
    for old, new in edit if not isinstance(edit, str) else []:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    with pytest.raises(RulesError) as e:
        rulesdsl.load_text(text, path=name)
    assert e.value.format() in (DOCS / doc).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("marker", "body"), blocks_of("language.md", "tutorial.md", "cli.md", "testing.md", "variants.md")
)
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


# ---------------------------------------------------------------- shown sessions and programs

TEXT = re.compile(r"```text\n(.*?)```", re.S)
COMMAND = re.compile(r"\$ (?:printf '(?P<input>[^']*)' \| )?rulesdsl (?P<args>[^<>|]*)")
TIMES = ("seconds", "moves/s", "moves_per_s")
MADE_UP = re.compile(r"<!-- file: (?P<name>\S+) -->\n```rules\n(?P<body>.*?)```", re.S)
SCRATCH = ("testing.md", "variants.md")  # docs whose commands run in a scratch directory


def shown_commands(doc: str, cwd: Path = ROOT, *, drafts: bool = False) -> list:
    """(cwd, args, input, expected lines, exit code or None, scratch) of each runnable `$ rulesdsl` line.
    `drafts`: the doc shows errors of its file while it is being written (BROKEN checks those).
    `scratch`: None, or for a doc of SCRATCH the made-up files to write and the commands to run first."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    files = {m["name"]: m["body"] for m in MADE_UP.finditer(text)} if doc in SCRATCH else None
    writers: dict[str, list[str]] = {}  # transcript -> the shown `rulesdsl test` that writes it
    out = []
    for block in TEXT.findall(text):
        chunks = re.split(r"^(?=\$ )", block, flags=re.M)
        for chunk, after in zip(chunks, chunks[1:] + [""], strict=True):
            first, *rest = chunk.splitlines() or [""]
            m = COMMAND.fullmatch(first)
            if not m:
                continue
            args = [x for a in shlex.split(m["args"]) for x in expand(a, cwd)]
            if not all((cwd / a).exists() or a in (files or {}) for a in args if a.endswith(".rules")):
                continue  # a file made up for the example (broken.rules, a variant of the game)
            if "--games" in args and int(args[args.index("--games") + 1]) > 200:
                continue
            if drafts and re.search(r"^\S+:\d+:\d+: error:", chunk, re.M):
                continue
            code = int(after.splitlines()[1]) if after.startswith("$ echo $?") else None
            typed = "".join(t + "\n" for t in re.findall(r"^[a-z]+> (.+)$", "\n".join(rest), re.M))
            stdin = m["input"].replace("\\n", "\n") if m["input"] is not None else typed
            scratch = None
            if files is not None:
                for saved in re.findall(r"^  transcript: (\S+)$", chunk, re.M):
                    writers[saved] = args
                before = [writers[a] for a in args[2:3] if args[0] == "replay" and a in writers]
                scratch = {"files": files, "before": before}
            out.append(pytest.param(cwd, args, stdin, rest, code, scratch, id=f"{doc}:{first[2:]}"))
    return out


def expand(arg: str, cwd: Path) -> list[str]:
    """A shown argument as the shell gives it: a path with `*` becomes the files it matches, in order."""
    if "*" not in arg:
        return [arg]
    return sorted(str(p.relative_to(cwd)) for p in cwd.glob(arg)) or [arg]


def in_scratch(path: Path, files: dict[str, str]) -> Path:
    """A directory with copies of the repository's games/ and tests/data/, and the made-up files
    written. (Copies, not links: a rules file reads only inside its project, links resolved.)"""
    shutil.copytree(ROOT / "games", path / "games")
    shutil.copytree(ROOT / "tests" / "data", path / "tests" / "data")
    (path / "pyproject.toml").write_text("", encoding="utf-8")  # (a project, as the repository is)
    for name, body in files.items():
        (path / name).write_text(body, encoding="utf-8")
    return path


# (files, commands run before) -> a copy of the scratch directory as those commands left it
_PREPARED: dict[tuple, Path] = {}


def prepared_scratch(path: Path, scratch: dict, monkeypatch, tmp_path_factory) -> Path:
    """`in_scratch`, then the commands shown before this one (`rulesdsl test` writing the transcript
    a `replay` reads) run in it. They run once per worker for the same files: the next test gets a
    copy of the directory they left (the same files, as their runs are seeded and derandomized)."""
    key = (tuple(sorted(scratch["files"].items())), tuple(map(tuple, scratch["before"])))
    made = _PREPARED.get(key)
    if made is not None:
        shutil.copytree(made, path, dirs_exist_ok=True, symlinks=True)
        return path
    in_scratch(path, scratch["files"])
    monkeypatch.chdir(path)
    for before in scratch["before"]:
        main(before, stdout=io.StringIO(), stderr=io.StringIO())
    if scratch["before"]:
        made = tmp_path_factory.mktemp("prepared")
        shutil.copytree(path, made, dirs_exist_ok=True, symlinks=True)
        _PREPARED[key] = made
    return path


def comparable(line: str) -> str:
    """A line as compared: a passing run of generated games without its count of moves."""
    return re.sub(r"^(generated games: \d+ games), \d+ moves, no failure$", r"\1, (moves), no failure", line)


@pytest.mark.parametrize(
    ("cwd", "args", "stdin", "expected", "code", "scratch"),
    shown_commands("cli.md") + shown_commands("language.md")
    + shown_commands("tutorial.md", TUTORIAL_GAME.parent, drafts=True) + shown_commands("testing.md")
    + shown_commands("variants.md") + shown_commands("games.md"),
)
def test_shown_command_output(cwd, args, stdin, expected, code, scratch, monkeypatch, tmp_path,
                              tmp_path_factory):
    if scratch is not None:
        cwd = prepared_scratch(tmp_path, scratch, monkeypatch, tmp_path_factory)
    monkeypatch.chdir(cwd)
    if any("did not end within" in line for line in expected):
        # A game that never ends cannot shrink: the shrink runs out of its time, and what it ends
        # with depends on the time. Only the lines up to the failure are compared, so a short shrink does.
        expected = expected[: next(i for i, line in enumerate(expected) if "did not end within" in line) + 1]
        monkeypatch.setattr(testing, "check_properties", functools.partial(testing.check_properties, shrink_seconds=1))
    out, err = io.StringIO(), io.StringIO()
    status = main(args, stdin=io.StringIO(stdin), stdout=out, stderr=err)
    real = [comparable(line.rstrip()) for line in (out.getvalue() + err.getvalue()).splitlines()]
    if code is not None:
        assert status == code
    at = 0
    for line in expected:
        line = comparable(line.rstrip())
        if line == "..." or (any(word in line for word in TIMES) and not line.startswith("{")):
            continue
        if line.startswith("{"):  # a JSON object: compared without its times
            want = {k: v for k, v in json.loads(line).items() if k not in TIMES}
            got = [{k: v for k, v in json.loads(r).items() if k not in TIMES} for r in real if r.startswith("{")]
            assert want in got
            continue
        assert line in real[at:], f"not in the output (after line {at}): {line!r}"
        at = real.index(line, at) + 1


def test_compare_json_keys_are_documented():
    out = io.StringIO()
    assert main(["compare", str(TUTORIAL_GAME), str(TUTORIAL_GAME), "--games", "2", "--workers", "1", "--json"],
                stdout=out, stderr=io.StringIO()) == 0
    data = json.loads(out.getvalue())
    section = (DOCS / "cli.md").read_text(encoding="utf-8").split("### `compare --json`")[1].split("\n## ")[0]
    documented = set(re.findall(r"^\| `(\w+)` \|", section, re.M))
    assert documented == set(data) | set(data["metrics"][0])


def test_every_variant_is_listed_once():
    listed = re.findall(r"^\| \[`([\w.-]+)`\]\(\.\./games/variants/\1\) \|",
                        (DOCS / "variants.md").read_text(encoding="utf-8"), re.M)
    assert listed == sorted(p.name for p in (ROOT / "games" / "variants").glob("*.rules"))


def test_shown_transcript_is_the_one_test_writes(tmp_path, monkeypatch):
    text = (DOCS / "testing.md").read_text(encoding="utf-8")
    shown = json.loads(re.search(r"```json\n(.*?)```", text, re.S)[1])
    monkeypatch.chdir(in_scratch(tmp_path, {}))
    assert main(["test", shown["file"]], stdout=io.StringIO(), stderr=io.StringIO()) == 1
    saved = tmp_path / ".rulesdsl" / "failures" / f"loses_a_card-{shown['seed']}.json"
    assert json.loads(saved.read_text(encoding="utf-8")) == shown


def python_examples(doc: str) -> list:
    text = (DOCS / doc).read_text(encoding="utf-8")
    pairs = re.findall(r"```python\n(.*?)```\s*```text\n(.*?)```", text, re.S)
    return [pytest.param(code, shown, id=f"{doc}:python{i}") for i, (code, shown) in enumerate(pairs)]


@pytest.mark.parametrize(("code", "shown"), python_examples("language.md"))
def test_python_example_prints_what_is_shown(code, shown, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<docs>", "exec"), {})
    assert [line.rstrip() for line in out.getvalue().splitlines()] == [line.rstrip() for line in shown.splitlines()]
