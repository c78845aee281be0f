"""Each game of games/ played at the prompt through a pseudo-terminal of 80 columns, as a person
would: `rulesdsl play` measures the terminal itself (no $COLUMNS), and no line it prints is wider.

One game each, to its end (the human types 1, the bots are random), a second or two a game: cheap
enough for the default suite. POSIX only (the pty module).
"""

from __future__ import annotations

import os
import re
import select
import struct
import subprocess
import sys
import time

import pytest

from .conftest import GAMES

pty = pytest.importorskip("pty")
fcntl = pytest.importorskip("fcntl")
termios = pytest.importorskip("termios")

COLUMNS = 80
PROMPT = re.compile(rb"[a-z]+> $")
# A game not over after this many answers is left (`quit`): the test is of the screen, not of endings.
MAX_ANSWERS = 1500
SECONDS = 240  # a game that takes longer has hung


def play_in_terminal(args: list[str], columns: int = COLUMNS, answers=None) -> tuple[int, str]:
    """Run `rulesdsl play ARGS` with a pseudo-terminal of `columns` columns as its input and output;
    answer each prompt with the next of `answers` (then `1`, then `quit`). Returns the exit code and
    everything the terminal showed (typed lines echoed), with \\r\\n as \\n."""
    main, sub = pty.openpty()
    fcntl.ioctl(sub, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))  # rows, columns
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    code = "import sys; from rulesdsl.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen([sys.executable, "-c", code, "play", *args], stdin=sub, stdout=sub, stderr=sub,
                            env=env, close_fds=True)
    os.close(sub)
    answers = list(answers or [])
    seen = bytearray()
    told = 0
    deadline = time.monotonic() + SECONDS
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(main, 65536)
            except OSError:  # (Linux: the other end closed)
                break
            if not chunk:
                break
            seen += chunk
            if PROMPT.search(bytes(seen[-40:])):
                told += 1
                line = answers.pop(0) if answers else ("1" if told < MAX_ANSWERS else "quit")
                os.write(main, line.encode() + b"\n")
        else:
            pytest.fail(f"rulesdsl play {' '.join(args)} did not end within {SECONDS} s")
    finally:
        os.close(main)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    return proc.returncode, seen.decode("utf-8", "replace").replace("\r\n", "\n")


def wide_lines(text: str, columns: int) -> list[str]:
    return [line for line in text.split("\n") if len(line) > columns]


GAME_FILES = sorted(p for p in GAMES.glob("*.rules") if not p.name.endswith(".test.rules"))


@pytest.mark.parametrize("path", GAME_FILES, ids=[p.stem for p in GAME_FILES])
def test_a_game_at_80_columns_fits_the_terminal(path):
    code, shown = play_in_terminal([str(path), "--seed", "3"], answers=["help", "view", "moves"])
    assert code == 0, shown[-2000:]
    assert "Traceback" not in shown
    assert "Your moves:" in shown and "alice> " in shown
    assert not wide_lines(shown, COLUMNS), wide_lines(shown, COLUMNS)[:5]
    assert re.search(r"^(Winner: .+\.|You win!|You share the win!|No winner: everyone loses\.)$", shown, re.M) \
        or "You left the game." in shown


def test_the_view_widens_with_the_terminal():
    """At 160 columns a long row stays on one line that an 80-column terminal wraps."""
    path = str(GAMES / "go_fish.rules")  # (at this seed, books laid make long rows)
    _, narrow = play_in_terminal([path, "--seed", "3"], 80)
    _, wide = play_in_terminal([path, "--seed", "3"], 160)
    assert not wide_lines(wide, 160)
    assert max(map(len, wide.split("\n"))) > 80 >= max(map(len, narrow.split("\n")))


SCREENS = sorted((GAMES.parent / "docs" / "screens").glob("*-*.txt"))


@pytest.mark.parametrize("screen", SCREENS, ids=[p.stem for p in SCREENS])
def test_the_screenshots_in_docs_fit_their_terminal(screen):
    """docs/screens/GAME-COLUMNS.txt (docs/tools/screenshots.py, from tmux): the text of a window
    that wide, which no line of the play screen passes."""
    columns = int(screen.stem.rsplit("-", 1)[1])
    text = screen.read_text(encoding="utf-8")
    assert "Your moves:" in text and not wide_lines(text, columns)


def test_screenshots_are_kept_for_the_games_the_docs_show():
    assert {p.stem for p in SCREENS} >= {f"{g}-{w}" for g in ("tamalo", "tempurra", "crazy_eights", "go_fish")
                                         for w in (80, 160)}
