"""The games and decks that ship with rulesdsl, found by name: `rulesdsl play NAME`, `rulesdsl
list`, `import prelude "standard52"`. A wheel carries them as rulesdsl/games (pyproject.toml maps
the checkout's games/ there), so they work wherever rulesdsl is installed, not only in a checkout.
"""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
SUFFIX = ".rules"
TEST_SUFFIX = ".test.rules"
PRELUDES = "prelude"
# Where a bare game name is looked for, in order: the seed games first, so a variant or example
# can never hide one.
GAME_FOLDERS = (".", "variants", "examples")
# A bare name: what `rulesdsl play NAME` and `import prelude "NAME"` take. No folder, no suffix,
# nothing a path could mean.
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")


def shipped(folder: str) -> Path | None:
    """rulesdsl/FOLDER in an installed package; in a checkout (an editable install, or run from
    the source tree) the top-level FOLDER that pyproject.toml maps there."""
    inside = PACKAGE / folder
    if inside.is_dir():
        return inside
    checkout = PACKAGE.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / folder).is_dir():
        return checkout / folder
    return None


GAMES = shipped("games")
DOCS = shipped("docs")  # (the `new` game's comments point into docs/language.md)
TEMPLATES = PACKAGE / "templates"


def is_name(text: str) -> bool:
    return NAME.fullmatch(text) is not None


def game_files() -> dict[str, Path]:
    """Every bundled game by its name (the file's name without .rules), seed games first."""
    found: dict[str, Path] = {}
    if GAMES is None:
        return found
    for folder in GAME_FOLDERS:
        for p in sorted((GAMES / folder).glob(f"*{SUFFIX}")):
            if not p.name.endswith(TEST_SUFFIX):
                found.setdefault(p.name.removesuffix(SUFFIX), p)
    return found


def prelude_files(roots: list[Path] | tuple[Path, ...] | None = None) -> dict[str, Path]:
    """Every prelude of the libraries (`roots`, default the bundled games) by name, first root first."""
    found: dict[str, Path] = {}
    for root in (roots if roots is not None else [GAMES] if GAMES else []):
        for p in sorted((root / PRELUDES).glob(f"*{SUFFIX}")):
            found.setdefault(p.name.removesuffix(SUFFIX), p)
    return found


def find_game(arg: str) -> str | None:
    """What a command's FILE argument names: itself if it is a path (or anything but a bare name),
    else the bundled game of that name; None for a bare name that names neither."""
    if not is_name(arg) or Path(arg).exists():
        return arg
    path = game_files().get(arg)
    return str(path) if path is not None else None


def new_game(name: str) -> dict[str, str]:
    """The files `rulesdsl new NAME` writes, by file name: a small game and its tests, from the
    templates, named after NAME ("my_game" -> "My game")."""
    title = name.replace("_", " ").replace("-", " ").strip().capitalize() or name
    return {f"{name}{suffix}": (TEMPLATES / f"game{suffix}").read_text(encoding="utf-8")
            .replace("{name}", name).replace("{title}", title) for suffix in (SUFFIX, TEST_SUFFIX)}
