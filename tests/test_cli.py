"""The `rulesdsl` command: check, play (piped input), simulate; messages and exit codes, never a traceback.

Everything goes through `rulesdsl.cli.main(argv, stdin=, stdout=, stderr=)`, except one test that
runs the installed console script to prove the entry point works.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys

import pytest

from rulesdsl.cli import main

from .conftest import GAMES, ROOT
from .conftest import run_cli as run

TEMPURRA = str(GAMES / "tempurra.rules")
WINNER_LINE = re.compile(r"^(Winner: .+\.|You win!|You share the win!)$")
# Enough "1"s to finish any Tempurra game: bots make most moves, and a human's only moves are played for them.
ONES = "1\n" * 3000


def play(*extra: str, stdin: str, seed: int = 3) -> tuple[int, str, str]:
    return run("play", TEMPURRA, "--seed", str(seed), *extra, stdin=stdin)


def first_moves(out: str) -> list[str]:
    """The move texts of the first `Your moves:` list in a transcript."""
    block = out.split("Your moves:\n", 1)[1]
    moves = []
    for line in block.splitlines():
        m = re.match(r"^\s+(\d+)\. (.+)$", line)
        if not m:
            break
        assert int(m.group(1)) == len(moves) + 1
        moves.append(m.group(2))
    return moves


def prompts(out: str) -> int:
    return out.count("alice> ")


# ---------------------------------------------------------------- check


def test_check_a_good_file():
    code, out, err = run("check", TEMPURRA)
    assert code == 0
    assert err == ""
    assert out.startswith(f"{TEMPURRA}: ok: Tempurra, 3-7 players")
    assert "4 actions" in out


def test_check_a_bad_file_prints_located_errors(tmp_path):
    bad = tmp_path / "bad.rules"
    text = (GAMES / "tempurra.rules").read_text(encoding="utf-8")
    text = text.replace("zone plate: stack, public", "zone plate: stak, public", 1)
    bad.write_text(text, encoding="utf-8")
    line = text[: text.index("zone plate: stak")].count("\n") + 1
    code, out, err = run("check", str(bad))
    assert code == 1
    assert out == ""
    assert err.startswith(f"{bad}:{line}:13: error: unknown zone option 'stak'\n")
    assert "  zone plate: stak, public" in err
    assert "\n              ^^^^\n" in err
    assert "hint: did you mean 'stack'?" in err


def test_check_reports_every_error_of_a_file(tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text('game "x"\nplayers 2..4\naction a {\n  move x to dicsard\n}\n', encoding="utf-8")
    code, _, err = run("check", str(bad))
    assert code == 1
    assert f"{bad}:4:8: error: unknown name 'x'" in err
    assert f"{bad}:4:13: error: unknown zone 'dicsard'" in err
    assert re.search(r"\n\d+ errors\n?$", err)


def test_check_a_syntax_error(tmp_path):
    bad = tmp_path / "syntax.rules"
    bad.write_text('game "x"\naction a when 1 = 2 { }\n', encoding="utf-8")
    code, _, err = run("check", str(bad))
    assert code == 1
    assert err.startswith(f"{bad}:2:17: error: unexpected '='")
    assert "hint: to compare, write '=='" in err


def test_check_several_files_reports_each(tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text("zone z stack\n", encoding="utf-8")
    code, out, err = run("check", TEMPURRA, str(bad), TEMPURRA)
    assert code == 1
    assert out.count(": ok: Tempurra") == 2
    assert f"{bad}:1:8: error:" in err


def test_check_a_missing_file():
    code, _, err = run("check", "no/such/file.rules")
    assert code == 1
    assert "no such file" in err and "no/such/file.rules" in err


def test_check_with_players_and_set():
    assert run("check", TEMPURRA, "--players", "7", "--set", "tokens_to_lose=1")[0] == 0
    code, _, err = run("check", TEMPURRA, "--players", "8")
    assert code == 1 and "3 to 7 players, not 8" in err
    code, _, err = run("check", TEMPURRA, "--set", "tokens_to_loose=2")
    assert code == 2 and "parameter 'tokens_to_loose': the game has no such parameter" in err
    assert "did you mean 'tokens_to_lose'?" in err


def test_no_command_prints_help():
    code, out, _ = run()
    assert code == 2
    assert "check" in out and "play" in out and "simulate" in out


# ---------------------------------------------------------------- play


def test_play_shows_the_table_and_quits():
    code, out, err = play(stdin="quit\n")
    assert code == 0
    assert err == ""
    assert out.startswith("Tempurra: 4 players, seed 3. You are alice (seat 1)")
    assert "Parameters: hand_size=5, tokens_to_lose=3" in out
    assert "Your moves:" in out
    assert "You left the game." in out
    assert "replay it with --seed 3" in out


def test_play_commands_help_view_moves_log():
    _, first, _ = play(stdin="quit\n")
    moves = first_moves(first)
    code, out, _ = play(stdin="help\nview\nmoves\nlog\nquit\n")
    assert code == 0
    assert prompts(out) == 5
    assert "Type the number of a move, or its text" in out
    assert f"(for example: {moves[0]})" in out
    # `view` shows the table again, `moves` the list again.
    assert out.count("you are alice") == first.count("you are alice") + 1
    assert out.count("Your moves:") == first.count("Your moves:") + 1
    # `log` shows what alice has seen so far.
    log_part = out.split("alice> log\n", 1)[1].split("alice> ", 1)[0]
    assert "== round 1 ==" in log_part


def test_play_bad_entries_reprompt_without_losing_the_game():
    _, first, _ = play(stdin="quit\n")
    n = len(first_moves(first))
    code, out, _ = play(stdin=f"xyzzy\n{n + 1}\n0\n\n   \nquit\n")
    assert code == 0
    assert "'xyzzy' is not one of your moves" in out
    assert f"There is no move {n + 1}: type a number from 1 to {n}" in out
    assert "There is no move 0" in out
    assert prompts(out) == 6  # blank lines simply prompt again
    assert "You left the game." in out
    # After bad entries, a good one is still played.
    moves = first_moves(first)
    code, out, _ = play(stdin=f"xyzzy\n{n + 1}\n1\nquit\n")
    assert code == 0
    assert f"  alice: {moves[0]}" in out


def test_play_by_number_by_text_and_by_unique_prefix():
    _, first, _ = play(stdin="quit\n")
    moves = first_moves(first)
    assert len(moves) >= 2
    target = moves[-1]
    # The shortest start of the text that no other move shares.
    prefix = next(target[:k] for k in range(1, len(target) + 1)
                  if sum(m.lower().startswith(target[:k].lower()) for m in moves) == 1)
    expected = f"  alice: {target}"
    for entry in (str(len(moves)), target, target.upper(), prefix):
        code, out, _ = play(stdin=f"{entry}\nquit\n")
        assert code == 0
        assert expected in out, entry
        assert prompts(out) >= 2  # the game went on after the move


def test_play_an_ambiguous_prefix_is_explained():
    _, first, _ = play(stdin="quit\n")
    moves = first_moves(first)
    words = [m.split()[0] for m in moves]
    shared = next((w for w in words if words.count(w) > 1), None)
    if shared is None:
        pytest.skip("no two moves start with the same word at this seed")
    code, out, _ = play(stdin=f"{shared}\nquit\n")
    assert code == 0
    assert f"'{shared}' could be: " in out
    assert "Type more, or a number." in out


def test_play_end_of_input_stops_with_a_message():
    code, out, err = play(stdin="")
    assert code == 1
    assert "End of input: the game stops here, unfinished." in out
    assert "replay it with --seed 3" in out
    assert err == ""


def test_play_end_of_input_after_some_moves():
    code, out, _ = play(stdin="1\n1\n")
    assert code == 1
    assert "End of input" in out


def test_play_a_whole_game_to_the_end():
    code, out, err = play(stdin=ONES, seed=1)
    assert code == 0, err
    assert err == ""
    last = out.rstrip().splitlines()[-1]
    assert WINNER_LINE.match(last), last
    assert "End of input" not in out


@pytest.mark.parametrize("seed", [0, 2, 4])
def test_play_whole_games_at_other_seeds(seed):
    code, out, _ = play(stdin=ONES, seed=seed)
    assert code == 0
    assert WINNER_LINE.match(out.rstrip().splitlines()[-1])


def test_play_same_seed_and_input_give_the_same_transcript():
    a = play(stdin=ONES, seed=11)
    b = play(stdin=ONES, seed=11)
    assert a == b
    c = play(stdin=ONES, seed=12)
    assert c[1] != a[1]


def test_play_from_another_seat():
    code, out, _ = play("--seat", "3", stdin="quit\n")
    assert code == 0
    assert "You are carol (seat 3)" in out
    assert "carol> " in out


def test_play_with_set_and_players():
    code, out, _ = play("--set", "tokens_to_lose=1", "--players", "3", stdin=ONES)
    assert code == 0
    assert out.startswith("Tempurra: 3 players")
    assert "tokens_to_lose=1" in out
    assert WINNER_LINE.match(out.rstrip().splitlines()[-1])
    # With one token to lose, the game is over at the end of the first round.
    assert "== round 2 ==" not in out


def test_play_seven_players():
    code, out, _ = play("--players", "7", stdin=ONES)
    assert code == 0
    assert out.startswith("Tempurra: 7 players")


def test_play_reveal_shows_every_hand():
    _, hidden, _ = play(stdin="quit\n")
    code, out, _ = play("--reveal", stdin="quit\n")
    assert code == 0
    assert "Spectator view" in out
    assert re.search(r"^  bob +0  5 cards$", hidden, re.M)
    assert not re.search(r"^  bob +\d+  \d+ cards", out, re.M)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--set", "tokens_to_lose"], 2, "--set expects NAME=VALUE, not 'tokens_to_lose'"),
        (["--set", "=3"], 2, "--set expects NAME=VALUE"),
        (["--set", "tokens_to_lose=abc"], 2, "parameter tokens_to_lose=abc: expected a whole number"),
        (["--set", "tokens_to_lose=99"], 2, "parameter tokens_to_lose=99: out of range 1..10"),
        (["--set", "nope=1"], 2, "parameter 'nope': the game has no such parameter"),
        (["--seat", "9"], 2, "--seat must be between 1 and 4 (the game has 4 players)"),
        (["--seat", "0"], 2, "--seat must be between 1 and 4"),
        (["--bots", "smart"], 2, "unknown bot 'smart'; bots: random"),
        (["--bots", "random:3"], 2, "bot 'random' takes no setting"),
        (["--players", "2"], 1, "this game is for 3 to 7 players, not 2"),
    ],
)
def test_play_bad_options_give_a_message_and_an_exit_code(args, code, message):
    got, out, err = play(*args, stdin="1\n")
    assert got == code
    assert message in err
    assert "alice> " not in out  # the game did not start


def test_play_a_file_with_errors(tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text('game "x"\nplayers 2..4\naction a {\n    move x\n}\n', encoding="utf-8")
    code, out, err = run("play", str(bad), stdin="1\n")
    assert code == 1
    assert err.startswith(f"{bad}:5:1: error: unexpected '}}'")
    assert out == ""


class _Interrupted(io.StringIO):
    def readline(self, *args):
        raise KeyboardInterrupt


def test_play_interrupted_at_the_prompt():
    out, err = io.StringIO(), io.StringIO()
    code = main(["play", TEMPURRA, "--seed", "3"], stdin=_Interrupted(), stdout=out, stderr=err)
    assert code == 130
    assert "interrupted" in err.getvalue()
    assert "Traceback" not in out.getvalue() + err.getvalue()


def test_play_a_missing_file():
    code, _, err = run("play", "missing.rules", stdin="1\n")
    assert code == 1
    assert "no such file" in err


def test_argparse_errors_go_to_the_given_stderr(capsys):
    code, _, err = play("--seat", "x", stdin="")
    assert code == 2
    assert "--seat" in err and "invalid int value" in err
    assert capsys.readouterr().err == ""


def test_argparse_errors_exit_2_without_a_traceback():
    code, _, err = play("--seat", "x", stdin="")
    assert code == 2
    assert "invalid int value: 'x'" in err and "Traceback" not in err
    code, _, err = run("frobnicate")
    assert code == 2
    assert "invalid choice" in err


# ---------------------------------------------------------------- simulate


SIM_KEYS = {"games", "players", "moves", "seconds", "moves_per_s", "wins_by_seat", "mean_moves_per_game", "capped"}


def simulate_json(*extra: str, games: int = 20) -> dict:
    code, out, err = run("simulate", TEMPURRA, "--games", str(games), "--json", *extra)
    assert code == 0, err
    assert err == ""
    lines = out.strip().splitlines()
    assert len(lines) == 1, "one JSON object on one line"
    data = json.loads(lines[0])
    assert isinstance(data, dict)
    return data


def test_simulate_json():
    d = simulate_json()
    assert set(d) >= SIM_KEYS
    assert d["games"] == 20
    assert d["players"] == 4
    assert d["capped"] == 0
    assert len(d["wins_by_seat"]) == 4
    assert sum(d["wins_by_seat"]) == pytest.approx(20)
    assert d["moves"] > 0
    assert d["mean_moves_per_game"] == pytest.approx(d["moves"] / 20, abs=0.01)
    assert d["seconds"] >= 0
    assert d["moves_per_s"] is None or d["moves_per_s"] > 0


def test_simulate_is_reproducible_by_seed():
    a, b = simulate_json("--seed", "5", games=5), simulate_json("--seed", "5", games=5)
    for d in (a, b):
        del d["seconds"], d["moves_per_s"]
    assert a == b


@pytest.mark.parametrize("players", [3, 7])
def test_simulate_player_counts(players):
    d = simulate_json("--players", str(players), games=10)
    assert d["players"] == players
    assert len(d["wins_by_seat"]) == players
    assert d["capped"] == 0
    assert sum(d["wins_by_seat"]) == pytest.approx(10)


def test_simulate_with_set():
    d = simulate_json("--set", "tokens_to_lose=1", games=10)
    assert d["capped"] == 0
    assert d["mean_rounds_per_game"] == pytest.approx(1.0)


def test_simulate_table():
    code, out, err = run("simulate", TEMPURRA, "--games", "20")
    assert code == 0, err
    assert "Tempurra: 20 games, 4 players" in out
    for row in ("games", "moves/s", "mean moves per game", "capped games", "wins: alice", "wins: dave"):
        assert row in out
    assert re.search(r"capped games\s*│\s*0\s*│", out)


def test_simulate_capped_games_are_counted():
    code, out, _ = run("simulate", TEMPURRA, "--games", "3", "--json", "--max-moves", "5")
    assert code == 0
    d = json.loads(out)
    assert d["capped"] == 3
    assert sum(d["wins_by_seat"]) == 0


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--games", "0"], 2, "--games must be at least 1"),
        (["--bots", "smart"], 2, "unknown bot 'smart'"),
        (["--set", "hand_size=0"], 2, "parameter hand_size=0: out of range 1..10"),
        (["--players", "8"], 1, "3 to 7 players, not 8"),
    ],
)
def test_simulate_bad_options(args, code, message):
    got, out, err = run("simulate", TEMPURRA, "--json", *args)
    assert got in (1, 2), "a usage error (2) or an error (1)"
    assert message in err
    assert out == ""


# ---------------------------------------------------------------- the installed command


def test_console_script_checks_tempurra():
    exe = shutil.which("rulesdsl")
    if exe is None:
        pytest.skip("the rulesdsl console script is not installed (pip install -e .)")
    proc = subprocess.run([exe, "check", "games/tempurra.rules"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("games/tempurra.rules: ok: Tempurra")


def test_python_dash_m_cli_runs():
    proc = subprocess.run([sys.executable, "-m", "rulesdsl.cli", "check", "games/nope.rules"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 1
    assert "no such file" in proc.stderr
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------- Tamalo at the terminal

TAMALO = str(GAMES / "tamalo.rules")


@pytest.mark.parametrize("extra", [[], ["--memory"], ["--reveal"]])
def test_a_whole_game_of_tamalo_with_piped_moves(extra):
    """Out-of-turn decisions (snaps) come to the human too; the screen shows only the seat's view."""
    code, out, err = run("play", TAMALO, "--players", "4", "--seed", "7", *extra, stdin="2\n" * 400)
    assert code == 0, err
    assert any(WINNER_LINE.match(line) for line in out.splitlines())
    assert "snap" in out
    if not extra:
        # Before the end, the others' squares show only face-down places and cards alice saw.
        first_view = out.split("Your moves:")[0]
        for seat in ("bob", "carol", "dave"):
            row = next(line for line in first_view.splitlines() if line.strip().startswith(seat))
            assert row.count("?") >= 2


def test_tamalo_memory_hides_what_was_seen_earlier():
    code, out, _ = run("play", TAMALO, "--seed", "5", "--memory", stdin="1\n" * 6)
    assert code == 1  # the input ends before the game does
    assert "Memory mode" in out
    seen = re.search(r"alice looks at alice\.square 1, alice\.square 2: (\S+) (\S+)", out)
    row = f"1:{seen[1]}  2:{seen[2]}"
    views = out.split("Your moves:")
    assert row in views[0]  # the near row, just seen
    assert row not in views[-1]  # hidden again in a later turn


def test_memory_fades_a_colour_shown_as_it_fades_a_face():
    """Partial knowledge (issue 21) under --memory: the colours bob showed alice are in her next
    view, and `?` again in the one after; without --memory they stay."""
    hints = str(ROOT / "tests" / "data" / "colour_hints.rules")
    views = {}
    for extra in ([], ["--memory"]):
        _, out, _ = run("play", hints, "--players", "2", "--seed", "3", *extra, stdin="2\n" * 4)
        views[bool(extra)] = [v for v in out.split("Your moves:") if "you are alice" in v]
    assert "alice (you)  3 cards; known: ?r×2" in views[True][1]
    assert "known" not in views[True][2].split("Recent events")[0]
    assert "alice (you)  3 cards; known: ?r×2" in views[False][2]
