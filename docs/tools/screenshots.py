"""Screenshots of `rulesdsl play` as a terminal shows it, at 80 and at 160 columns: the text of a
tmux window (tmux capture-pane), kept in docs/screens/GAME-COLUMNS.txt.

    python docs/tools/screenshots.py [GAME ...]

Run it from the repository root, with tmux installed, after a change to what the play screen
shows. Each game is played from a seed by a simple strategy (below) until the screen shows what
it is there to show (a regular expression), and the window is captured at that prompt: the end of
the events, the table, the moves. tests/test_terminal.py checks that no captured line is wider
than its window.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path.cwd()
OUT = ROOT / "docs" / "screens"
ROWS = 60
WIDTHS = (80, 160)

# game: (seed, the moment to capture (a regex on the last table and moves), moves in order of
# preference: the first listed move that one of them starts is typed, else "1").
SHOTS = {
    "tamalo": (4, r"\d+-\d+\. for \w+ \d", ["give 1", "play", "draw", "pass", "skip"]),
    "tempurra": (0, r"round 2", ["serve", "skip", "play", "eat"]),
    "crazy_eights": (0, r"\. name ♣", ["play 8", "play", "draw", "pass"]),
    "go_fish": (0, r"laid: \d+ cards", ["ask"]),
}


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def last_moves(pane: str) -> list[str]:
    block = pane.rsplit("Your moves:", 1)[-1]
    return re.findall(r"^\s+\d+(?:-\d+)?\. (.+?)\s*$", block, re.M)


def shoot(game: str, width: int) -> str:
    seed, moment, prefer = SHOTS[game]
    name = f"shot-{game}-{width}"
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True, check=False)
    tmux("new-session", "-d", "-s", name, "-x", str(width), "-y", str(ROWS),
         f"{sys.executable} -m rulesdsl.cli play games/{game}.rules --seed {seed}; sleep 600")
    try:
        pane = ""
        for _ in range(400):
            before = pane
            for _ in range(200):  # wait for the next prompt (not the one just answered)
                time.sleep(0.05)
                pane = tmux("capture-pane", "-p", "-t", name).rstrip()
                if pane != before and re.search(r"[a-z]+>$", pane):
                    break
            else:
                raise SystemExit(f"{game} at {width} columns: no prompt\n{pane}")
            screen = pane[pane.rfind("\n", 0, max(0, pane.rfind(" players · round "))) + 1:]  # the last table on
            if re.search(moment, screen):
                return "\n".join(line.rstrip() for line in pane.splitlines()) + "\n"
            moves = last_moves(pane)
            typed = next((m for p in prefer for m in moves if m.startswith(p)), "1")
            tmux("send-keys", "-t", name, typed, "Enter")
        raise SystemExit(f"{game} at {width} columns: the moment {moment!r} never came")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True, check=False)


def main(games: list[str]) -> None:
    if shutil.which("tmux") is None:
        raise SystemExit("screenshots.py needs tmux")
    OUT.mkdir(exist_ok=True)
    for game in games or SHOTS:
        for width in WIDTHS:
            (OUT / f"{game}-{width}.txt").write_text(shoot(game, width), encoding="utf-8")
            print(f"docs/screens/{game}-{width}.txt")


if __name__ == "__main__":
    main(sys.argv[1:])
