"""Safe loading: what `import` and `extends` may read, and how each refusal is reported.

A rules file is untrusted: it reads only regular UTF-8 `*.rules` files, loader.MAX_BYTES in all,
inside its project, the library of preludes and the folders allowed by
--allow-path; every refusal is a located error that never quotes the refused file.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import attrs
import pytest

import rulesdsl
from rulesdsl import loader, parallel
from rulesdsl.cli import main
from rulesdsl.simulate import play_chunk
from rulesdsl.testing import Transcript
from tests.conftest import GAMES

MINI = 'game "G"\nplayers 2\naction a { end turn }\ngame ends when yes\nwinners are players\n'
DECK = "zone pile: stack\ncard c\ncards in pile { 2 c }\n"  # what MINI lacks to be a game
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX files (FIFOs, /dev, /proc, links)")


def errors(path, **kw) -> list:
    with pytest.raises(rulesdsl.RulesError) as e:
        rulesdsl.load(path, **kw)
    return e.value.diagnostics


def importing(tmp_path: Path, target: str, verb: str = "import", name: str = "g.rules") -> Path:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(f'# a game\n{verb} "{target}"\n' + MINI, encoding="utf-8")
    return p


def refusal(tmp_path: Path, target: str, verb: str = "import") -> tuple[object, str]:
    """The one error of a file whose line 2 imports `target`, located there, and its printed form."""
    p = importing(tmp_path, target, verb)
    with pytest.raises(rulesdsl.RulesError) as e:
        rulesdsl.load(p)
    (d,) = e.value.diagnostics
    assert (d.span.file, d.span.line, d.span.column) == (str(p), 2, 1)
    return d, e.value.format()


# ---------------------------------------------------------------- files outside, and not rules


@posix_only
@pytest.mark.parametrize("target", ["/etc/shadow", "/etc/passwd", "../../etc/passwd", "/proc/self/environ",
                                    "/proc/self/cmdline", "/dev/zero", "/dev/urandom", "/dev/stdin"])
def test_a_system_file_is_refused_without_being_read(tmp_path, target):
    d, shown = refusal(tmp_path, target)
    assert f"cannot import '{target}'" in d.message and "only .rules files" in d.message
    assert "root:" not in shown and os.environ.get("PATH", "@@") not in shown


def test_a_rules_file_outside_the_project_is_refused_and_its_existence_not_told(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "base.rules").write_text(MINI, encoding="utf-8")
    home = tmp_path / "home"
    d, _ = refusal(home, str(outside / "base.rules"))
    assert "outside the folders rules may be read from" in d.message and "--allow-path" in d.hint
    d2, _ = refusal(home, str(outside / "missing.rules"))
    assert "outside" in d2.message and "no such file" not in d2.message
    d3, _ = refusal(home, "../elsewhere/base.rules", "extends")
    assert d3.message.startswith("cannot extend '../elsewhere/base.rules'")


def test_allow_paths_and_the_cli_option_open_a_folder(tmp_path):
    outside = tmp_path / "shared"
    outside.mkdir()
    (outside / "deck.rules").write_text(DECK, encoding="utf-8")
    p = importing(tmp_path / "game", str(outside / "deck.rules"))
    errors(p)
    assert rulesdsl.load(p, allow_paths=[outside]).name == "G"
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", str(p)], stdout=out, stderr=err) == 1 and "outside" in err.getvalue()
    assert main(["check", str(p), "--allow-path", str(outside)], stdout=out, stderr=err) == 0
    assert f"{p}: ok" in out.getvalue()


def test_the_project_of_the_top_file_is_the_root(tmp_path):
    # games/variants/x.rules extends ../base.rules: allowed inside a project (a folder with .git or
    # pyproject.toml), not when the variant's own folder is all there is.
    (tmp_path / "games" / "variants").mkdir(parents=True)
    (tmp_path / "games" / "base.rules").write_text(MINI + DECK, encoding="utf-8")
    v = tmp_path / "games" / "variants" / "v.rules"
    v.write_text('extends "../base.rules"\ngame "V"\n', encoding="utf-8")
    (d,) = errors(v)
    assert "outside" in d.message
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    assert rulesdsl.load(v).name == "V"
    assert loader.project_root(v) == tmp_path.resolve()


def test_every_game_in_the_repository_still_loads():
    # (the variants extend ../base.rules, tests/data extends ../../games: the repository is a project)
    for p in sorted(GAMES.rglob("*.rules")) + sorted((GAMES.parent / "tests" / "data").glob("*.rules")):
        if p.parent.name != "prelude":
            assert rulesdsl.load(p).name


def test_the_library_of_preludes_is_searched_and_allowed(tmp_path, monkeypatch):
    lib = tmp_path / "lib"
    (lib / "prelude").mkdir(parents=True)
    (lib / "prelude" / "deck.rules").write_text(DECK, encoding="utf-8")
    p = importing(tmp_path / "mine", "prelude/deck.rules")
    errors(p)
    monkeypatch.setattr(loader, "LIBRARY_ROOTS", [lib])
    game = rulesdsl.load(p)
    assert any(f.endswith("deck.rules") for f in game.sources)


# ---------------------------------------------------------------- what is not a regular rules file


def test_an_empty_name_a_folder_and_a_name_without_rules_are_refused(tmp_path):
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir.rules").mkdir()
    d, _ = refusal(tmp_path, "")
    assert "empty file name" in d.message
    d, _ = refusal(tmp_path, "dir")
    assert "only .rules files" in d.message and "this is a folder" in d.hint
    d, _ = refusal(tmp_path, "dir.rules")
    assert "it is a folder" in d.message


def test_a_nul_byte_or_control_character_in_the_name_is_refused(tmp_path):
    for target in ("a\0b.rules", "a\x1b[31mb.rules"):
        p = tmp_path / "g.rules"
        p.write_text(f'import "{target}"\n' + MINI, encoding="utf-8")
        (d,) = errors(p)
        assert d.span.line == 1 and "control characters" in d.message
        assert "\x1b" not in d.message and "\0" not in d.message


@posix_only
def test_a_loop_of_symbolic_links_is_refused(tmp_path):
    (tmp_path / "loop.rules").symlink_to("loop.rules")
    d, _ = refusal(tmp_path, "loop.rules")
    assert "loop of symbolic links" in d.message


@posix_only
def test_links_are_resolved_before_the_checks(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("password = hunter2\n", encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    (home / "out.rules").symlink_to("/etc/hostname" if Path("/etc/hostname").exists() else secret)
    (home / "txt.rules").symlink_to(secret)
    d, _ = refusal(home, "out.rules")
    assert "outside" in d.message
    (home / "secret.txt").write_text("password = hunter2\n", encoding="utf-8")
    (home / "inside.rules").symlink_to(home / "secret.txt")
    d, shown = refusal(home, "inside.rules")
    assert "a link to 'secret.txt'" in d.message and "hunter2" not in shown


@posix_only
def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.rules")
    d, _ = refusal(tmp_path, "pipe.rules")
    assert "not a regular file" in d.message


def test_a_file_over_the_size_limit_is_refused(tmp_path):
    big = tmp_path / "big.rules"
    big.write_text("# padding\n" * 50, encoding="utf-8")
    p = importing(tmp_path, "big.rules")
    with pytest.raises(rulesdsl.RulesError) as e:
        loader.resolve(p, max_bytes=400)
    (d,) = e.value.diagnostics
    assert d.span.line == 2 and "too large (500 bytes; the files read before it leave" in d.message
    with pytest.raises(rulesdsl.RulesError) as e:
        loader.resolve(big, max_bytes=200)
    (d,) = e.value.diagnostics
    assert (d.span.line, d.span.column) == (1, 1) and "too large (500 bytes; the limit is 200)" in d.message
    assert loader.MAX_BYTES == 1 << 17


def test_the_size_limit_counts_every_file_of_a_load(tmp_path):
    # (many files, each under the limit, would otherwise read as much as they like)
    for i in range(3):
        (tmp_path / f"part{i}.rules").write_text("# padding\n" * 10, encoding="utf-8")
    p = tmp_path / "g.rules"
    p.write_text("".join(f'import "part{i}.rules"\n' for i in range(3)), encoding="utf-8")
    with pytest.raises(rulesdsl.RulesError) as e:
        loader.resolve(p, max_bytes=300)  # (g.rules is 63 bytes, each part 100)
    (d,) = e.value.diagnostics
    assert d.span.line == 3
    assert "too large (100 bytes; the files read before it leave 37 of the 300 one load may read)" in d.message


def test_a_file_not_in_utf8_is_located_and_not_quoted(tmp_path):
    (tmp_path / "latin.rules").write_bytes('game "Caf\xe9 secret"\n'.encode("latin-1"))
    d, shown = refusal(tmp_path, "latin.rules")
    assert "not UTF-8 text (byte 0xe9 at offset 9)" in d.message and "secret" not in shown
    (d,) = errors(tmp_path / "latin.rules")
    assert (d.span.line, d.span.column) == (1, 1) and "not UTF-8" in d.message


def test_the_top_file_must_be_a_rules_file_and_is_not_quoted(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("root:x:0:0\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", str(notes)], stdout=out, stderr=err) == 1
    assert f"{notes}:1:1: error: cannot read" in err.getvalue() and "root:x" not in err.getvalue()
    (d,) = errors(tmp_path / "nope.rules")
    assert "no such file" in d.message and d.span.line == 1


def test_a_diamond_of_imports_stops_at_the_file_limit(tmp_path):
    # Each file imports the next twice: without a limit, 2 ** 12 reads (and declarations).
    for i in range(12):
        (tmp_path / f"f{i}.rules").write_text(f'import "f{i + 1}.rules"\nimport "f{i + 1}.rules"\n',
                                             encoding="utf-8")
    (tmp_path / "f12.rules").write_text("", encoding="utf-8")
    with pytest.raises(rulesdsl.RulesError) as e:
        loader.resolve(tmp_path / "f0.rules")
    (d,) = e.value.diagnostics
    assert d.span.line > 0 and f"too many files ({loader.MAX_FILES})" in d.message


def test_a_refused_import_in_an_imported_file_quotes_the_importing_line(tmp_path):
    (tmp_path / "mid.rules").write_text('# shared\nimport "/etc/passwd"\n', encoding="utf-8")
    p = importing(tmp_path, "mid.rules")
    with pytest.raises(rulesdsl.RulesError) as e:
        rulesdsl.load(p)
    text = e.value.format()
    assert text.startswith(f"{tmp_path / 'mid.rules'}:2:1: error: cannot import '/etc/passwd'")
    assert '  import "/etc/passwd"' in text


# ---------------------------------------------------------------- --allow-path on every command

SHARED_DECK = "card n(v)\ncards in deck { 6 n(1) }\nzone deck: stack, hidden\nzone pile: stack, public\n"
DRAW = ('import "../shared/deck.rules"\ngame "Draw"\nplayers 2\naction take { draw 1 from deck to pile }\n'
        'game ends when empty(deck)\nwinners are players\nscenario "six cards" {\n    expect count(deck) == 6\n}\n')
REFUSED = "1:1: error: cannot import '../shared/deck.rules': it is outside the folders rules may be read from"


def split_project(tmp_path: Path) -> tuple[Path, Path]:
    """A game in a project (a folder with pyproject.toml) whose deck is imported from a folder
    beside the project, and a variant of it; the game's path and that folder."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "deck.rules").write_text(SHARED_DECK, encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("", encoding="utf-8")
    game = project / "draw.rules"
    game.write_text(DRAW, encoding="utf-8")
    # (Another default number of players: `compare` loads it again for the base's, with the folders.)
    (project / "house.rules").write_text('extends "draw.rules"\ngame "House draw"\nplayers 2..3 default 3\n',
                                         encoding="utf-8")
    return game, shared


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], stdin=io.StringIO(""), stdout=out, stderr=err)
    assert "Traceback" not in out.getvalue() + err.getvalue()
    return code, out.getvalue(), err.getvalue()


def transcript_of(game: Path, shared: Path, at: Path) -> Path:
    """A transcript of one whole game of the split project's game, saved at `at`."""
    st = rulesdsl.load(game, allow_paths=[shared]).new_game(0)
    moves = []
    while not st.is_over:
        moves.append(st.move_texts()[0])
        st.apply(moves[-1])
    return Transcript(str(game), 2, {}, 0, moves).save(at)


COMMANDS = {  # each command on the split project's game: (arguments, what its success prints)
    "check": (["check", "{game}"], "ok: Draw"),
    "play": (["play", "{game}", "--seed", "3"], "You share the win!"),
    "simulate": (["simulate", "{game}", "--games", "3", "--workers", "1", "--json"], '"games": 3'),
    "test": (["test", "{game}", "--games", "3", "--save-dir", "{tmp}/failures"], "scenarios: 1 passed"),
    "replay": (["replay", "{game}", "{tmp}/t.json", "--quiet"], "replays to its end with no failure"),
    "compare": (["compare", "{game}", "{house}", "--games", "3", "--workers", "1", "--json"],
                '"names": ["Draw", "House draw"]'),
    "arena": (["arena", "{game}", "--bots", "random", "--games", "2", "--workers", "1", "--json"], '"games": 2'),
    "explain": (["explain", "{house}"], "# ---- from"),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_reads_outside_the_project_only_with_allow_path(tmp_path, command):
    game, shared = split_project(tmp_path)
    transcript_of(game, shared, tmp_path / "t.json")
    argv, success = COMMANDS[command]
    argv = [a.format(game=game, house=game.with_name("house.rules"), tmp=tmp_path) for a in argv]
    code, out, err = run_cli(*argv)
    assert code == 1 and f"{game}:{REFUSED}" in err and "--allow-path DIR" in err
    code, out, err = run_cli(*argv, "--allow-path", shared)
    assert code == 0, err
    assert success in out and "outside" not in err


class _Forgetful(dict):
    """A cache of loaded games that keeps nothing: forked workers then load the game themselves,
    as spawned workers and Ray's do."""

    def __setitem__(self, key, value) -> None:
        pass


@pytest.mark.parametrize("command", [["simulate", "--games", "8"], ["arena", "--bots", "random", "--games", "8"]])
def test_parallel_workers_load_the_game_with_the_allowed_folders(tmp_path, monkeypatch, command):
    game, shared = split_project(tmp_path)
    monkeypatch.setattr(parallel, "_LOADED", _Forgetful())
    monkeypatch.chdir(shared)  # (a relative --allow-path: the workers get it made absolute)
    code, out, err = run_cli(command[0], game, *command[1:], "--workers", "2", "--json", "--allow-path", ".")
    assert code == 0, err
    many = json.loads(out)
    code, out, _ = run_cli(command[0], game, *command[1:], "--workers", "1", "--json", "--allow-path", ".")
    one = json.loads(out)
    for d in (many, one):
        d.pop("seconds")
        d.pop("moves_per_s", None)
    assert code == 0 and many == one
    spec = parallel.GameSpec.of(rulesdsl.load(game, allow_paths=["."]))
    assert spec.allow_paths == (str(shared.resolve()),)


def test_a_worker_that_cannot_load_the_game_reports_its_located_error(tmp_path, monkeypatch):
    # (A worker without the allowed folder is refused as the top file would be; the error comes
    # back from the worker's process whole.)
    game, shared = split_project(tmp_path)
    spec = attrs.evolve(parallel.GameSpec.of(rulesdsl.load(game, allow_paths=[shared])), allow_paths=())
    monkeypatch.setattr(parallel, "_LOADED", _Forgetful())
    with pytest.raises(rulesdsl.RulesError) as e:
        parallel.run(play_chunk, [(spec, [0], ["random"], 100)] * 2, workers=2)
    (d,) = e.value.diagnostics
    assert (d.span.file, d.span.line) == (str(game.resolve()), 1) and "outside" in d.message


def test_a_failing_test_tells_a_replay_command_with_its_allowed_folders(tmp_path):
    game, shared = split_project(tmp_path)
    with game.open("a", encoding="utf-8") as f:
        f.write("invariant small_pile: count(pile) < 3\n")
    code, out, _ = run_cli("test", game, "--games", "5", "--save-dir", tmp_path / "failures", "--allow-path", shared)
    assert code == 1 and "invariant 'small_pile' does not hold" in out
    command = next(line for line in out.splitlines() if "replay it:" in line).split("rulesdsl ", 1)[1]
    assert command.endswith(f" --allow-path {shared}")
    code, out, _ = run_cli(*command.split())
    assert code == 1 and "The failure is reproduced: " in out and "small_pile" in out
