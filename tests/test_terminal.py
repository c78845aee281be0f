"""Each game of games/ played at the prompt through a pseudo-terminal of 80 columns, as a person
would: `rulesdsl play` measures the terminal itself (no $COLUMNS), no line it prints is wider, and
the rules, a narrated event and the reason the game ended appear.

One game each, to its end (the human types 1, the bots are random), a second or two a game: cheap
enough for the default suite. POSIX only (the pty module).
"""

from __future__ import annotations

import io
import os
import re
import select
import struct
import subprocess
import sys
import time

import pytest

import rulesdsl
from rulesdsl import parallel
from rulesdsl.engine.view import render_view
from rulesdsl.screen import display_order, move_lines, terminal_width
from rulesdsl.simulate import simulate

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
    # (random bots, as piped play has by default: at a terminal play's default is a search that
    # takes up to a second a decision; these tests are of the screen, not of the bots)
    proc = subprocess.Popen([sys.executable, "-c", code, "play", "--bots", "random", *args], stdin=sub, stdout=sub,
                            stderr=sub,
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


# What each game tells at the table beyond its table (issue 22): an event in words (the rules'
# own `say`, or what the engine announces for every game), and why the game ended. A game not
# named here is held to what every game has.
NARRATED = {
    "tamalo": r"calls Tamalo!|a wrong snap|is shuffled",
    "tempurra": r"indigestion|is shuffled",
    "go_fish": r"says: go fish|lays down a book|hands over",
    "goofspiel": r"takes the prize|nobody takes the prize",
    "hearts": r"takes the trick",
    "slapjack": r"takes the pile|is out|slapped",
}
EVERY_GAME_TELLS = r"plays next|is shuffled|to decide in \w+'s turn"
END_REASON = {
    "tamalo": r"called Tamalo with \d+ points?",
    "tempurra": r"the game is over\. The fewest tokens win",
}
GAME_OVER = r"^  game over: "


@pytest.mark.parametrize("path", GAME_FILES, ids=[p.stem for p in GAME_FILES])
def test_a_game_at_80_columns_fits_the_terminal_and_explains_itself(path):
    """`rules` prints the game's own description; events narrate; the end says why (seed games) or
    at least that the game is over; and no line is wider than the terminal."""
    code, shown = play_in_terminal([str(path), "--seed", "3"], answers=["rules", "help", "view", "moves"])
    assert code == 0, shown[-2000:]
    assert "Traceback" not in shown
    assert "Your moves:" in shown and "alice> " in shown
    assert not wide_lines(shown, COLUMNS), wide_lines(shown, COLUMNS)[:5]
    about = next(text for kind, _, text, _ in rulesdsl.load(path).about if kind == "game")
    assert " ".join(about.split()[:8]) in " ".join(shown.split())  # (wrapped to the terminal)
    assert re.search(NARRATED.get(path.stem, EVERY_GAME_TELLS), shown, re.M)
    if "You left the game." not in shown:  # (a game still going after MAX_ANSWERS answers is left)
        assert re.search(END_REASON.get(path.stem, GAME_OVER), shown, re.M)
        assert re.search(r"^(Winner: .+\.|You win!|You share the win!|No winner: everyone loses\.)$", shown, re.M)


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


# ---------------------------------------------------------------- the moves as listed, the width, the progress


def test_moves_are_listed_by_action_then_value_and_numbers_map_back():
    """Tempurra's opening choice came unsorted (begin 3, begin 4, begin 2, ...); the prompt lists it
    sorted, and a typed number plays the move listed there, whatever the engine's index."""
    from rulesdsl.cli import Player

    game = rulesdsl.load(GAMES / "tempurra.rules")
    st = next(s for s in (game.new_game(seed) for seed in range(50))
              if [t.split()[0] for t in s.move_texts()] == ["begin"] * s.num_moves() and
              s.move_texts() != sorted(s.move_texts(), key=lambda t: int(t.split()[1])))
    texts = st.move_texts()
    player = Player(st, st.chooser, io.StringIO("1\n"), io.StringIO(), reveal=False, echo=True)
    shown, order = player.moves()
    assert shown == sorted(texts, key=lambda t: int(t.split()[1]))
    assert [texts[i] for i in order] == shown
    assert texts[player.decide()] == shown[0]  # "1": the first as listed, not the engine's first


def test_values_sort_as_numbers_seats_and_cards_and_other_words_keep_the_rules_order():
    game = rulesdsl.load(GAMES / "tamalo.rules")
    texts = ["look dave 2", "look bob 10", "look bob 9", "skip", "look alice 1", "look dave 1"]
    assert [texts[i] for i in display_order(texts, game)] == [
        "look alice 1", "look bob 9", "look bob 10", "look dave 1", "look dave 2", "skip"]
    hearts = rulesdsl.load(GAMES / "hearts.rules")
    hand = ["pass left 10♦", "pass left 2♦", "pass left 9♦"]
    assert [hand[i] for i in display_order(hand, hearts)] == ["pass left 2♦", "pass left 9♦", "pass left 10♦"]
    stack = ["pass 8", "pass 7", "pass 6"]  # (already in order, from the top of a pile down: kept)
    assert display_order(stack, game) == [0, 1, 2]
    crazy = rulesdsl.load(GAMES / "crazy_eights.rules")
    suits = ["name ♣", "name ♦", "name ♥", "name ♠"]
    assert [suits[i] for i in display_order(suits, crazy)] == suits


def test_a_long_list_of_places_is_one_line_and_says_how_numbers_count():
    shown = [f"take {p} {k}" for p, n in (("bob", 7), ("carol", 6)) for k in range(1, n + 1)] + ["call"]
    lines = move_lines(shown, 80)
    assert lines == ["  1-13. take bob 1..7, carol 1..6", "    14. call",
                     "(A number counts the moves as listed: 8 is take carol 1.)"]
    gaps = [f"take {k}" for k in (1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)] + ["draw"]
    assert move_lines(gaps, 80)[0] == "  1-13. take 1 2 4..14" and "3 is take 4" in move_lines(gaps, 80)[-1]
    plain = [f"take {k}" for k in range(1, 15)]
    assert move_lines(plain, 80) == ["  1-14. take 1..14"]  # numbers are the places: nothing to say
    few = ["take 2", "take 1", "draw"]
    assert move_lines(few, 80) == ["   1. take 2", "   2. take 1", "   3. draw"]  # (sorting is display_order's)


def test_a_long_list_of_cards_goes_in_columns_within_the_width():
    shown = [f"pass left {r}♥" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")]
    lines = move_lines(shown, 80)
    assert len(lines) < len(shown) and all(len(line) <= 80 for line in lines)
    numbered = re.findall(r"(\d+)\. (pass left \S+)", "\n".join(lines))
    assert [int(n) for n, _ in numbered] == list(range(1, 14)) and [t for _, t in numbered] == shown


def test_terminal_width_without_a_terminal(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    assert terminal_width(io.StringIO()) == 80
    monkeypatch.setenv("COLUMNS", "132")
    assert terminal_width(io.StringIO()) == 132


def test_a_view_from_python_keeps_each_row_whole_and_the_screen_wraps_it():
    game = rulesdsl.load(GAMES / "go_fish.rules")
    st = game.new_game(3)
    while not st.is_over:
        st.apply_index(0)
    whole, fitted = st.view(0, events=0), render_view(st, 0, events=0, width=60)
    assert max(map(len, whole.splitlines())) > 60 >= max(map(len, fitted.splitlines()))
    assert "".join(whole.split()) == "".join(fitted.split())  # the same words, only wrapped


@pytest.mark.parametrize("workers", [1, 2])
def test_simulate_tells_its_progress_up_to_the_last_game(workers):
    game = rulesdsl.load(GAMES / "tamalo.rules")
    told: list[int] = []
    simulate(game, 40, workers=workers, progress=told.append)
    assert told == sorted(told) and told[-1] == 40
    if workers == 1:
        assert told == list(range(1, 41))


def _ticks_then_waits(job: tuple[str, int]) -> bool:
    """A pool's job: a few games (ticks), then it waits until the parent has told them."""
    flag, games = job
    for _ in range(games):
        parallel.tick()
    deadline = time.monotonic() + 60  # (no hang if the parent never tells: the test fails instead)
    while not os.path.exists(flag) and time.monotonic() < deadline:
        time.sleep(0.01)
    return os.path.exists(flag)


def test_a_pool_tells_progress_game_by_game_before_its_jobs_end(tmp_path):
    """Not in chunks (a quarter of a run at a time, as jobs end): the jobs here cannot end before
    the parent has told the games they played."""
    flag = tmp_path / "told"
    told: list[int] = []

    def progress(n: int) -> None:
        told.append(n)
        flag.touch()

    assert parallel.run(_ticks_then_waits, [(str(flag), 3), (str(flag), 2)], 2, progress=progress) == [True, True]
    assert told == sorted(told) and told[-1] == 5
