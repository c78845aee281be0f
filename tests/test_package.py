"""The package as a user gets it: `python -m build` makes an sdist and, from it, a wheel that hold
the grammar, the games, the docs and the `new` templates; the wheel, installed alone into a clean
environment outside the checkout, runs every command of the README's "What you can do with it"
block on the bundled games by name, and `rulesdsl new demo && rulesdsl test demo.rules`.

The install takes the dependencies from PyPI: without a network the slow tests are skipped, with
the reason. The build needs the dev extra (build, setuptools>=77: pip install -e '.[dev]').
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

import rulesdsl

from .conftest import GAMES, ROOT, run_cli

# One worker builds the package and its environment once (the fixtures are per module, and pytest
# runs on several workers: pyproject.toml's addopts).
pytestmark = pytest.mark.xdist_group("package")

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# Shorter runs of the README's commands: they test the same paths in seconds.
FEWER = {"--games": 2, "--workers": 2}
# ... and a shorter search for the README's ISMCTS bots: the same bot, 20 iterations a decision, not
# 200 (the arena's two games of Tamalo took 4 s of CPU alone).
BOTS = {"ismcts": "ismcts:20"}
# What a human types in the README's `play` commands: a move, another, then leave; with a fixed
# seed, as a random one (the default) can end a short game before the human leaves.
TYPED = "1\n1\nquit\n"
PLAY_SEED = ["--seed", "1"]


# ---------------------------------------------------------------- what pyproject.toml says (fast)


def test_the_version_is_written_once_and_shown_by_version():
    assert "version" not in PYPROJECT["project"] and "version" in PYPROJECT["project"]["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "rulesdsl.__version__"}
    code, out, _ = run_cli("--version")
    assert code == 0 and out.strip() == f"rulesdsl {rulesdsl.__version__}"
    assert f"## {rulesdsl.__version__} " in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_every_folder_of_the_package_and_of_games_is_listed_as_a_package():
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    code = {"rulesdsl." + ".".join(p.parent.relative_to(ROOT / "rulesdsl").parts)
            for p in (ROOT / "rulesdsl").rglob("*.py")} | {"rulesdsl.templates"}
    games = {".".join(("rulesdsl.games", *p.parent.relative_to(GAMES).parts)) for p in GAMES.rglob("*.rules")}
    assert {c.rstrip(".") for c in code} | games | {"rulesdsl.docs"} == listed


def test_what_every_documented_command_imports_is_a_dependency():
    needed = {re.split(r"[<>=]", d)[0] for d in PYPROJECT["project"]["dependencies"]}
    assert {"lark", "attrs", "rich", "hypothesis"} <= needed
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert "hypothesis" not in str(extras["dev"])
    assert {"plot", "ray", "openspiel"} <= set(extras)


# ---------------------------------------------------------------- the built package, installed (slow)


def network() -> str | None:
    """Why the wheel's dependencies cannot be installed here, or None."""
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
    except OSError as e:
        return f"no network (pypi.org: {e.strerror or e}): the wheel's dependencies cannot be installed"
    return None


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None, stdin: str = "",
        timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=timeout)


def _not_source(folder: str, names: list[str]) -> set[str]:
    """What a checkout holds beside its source: git's data, virtual environments, caches, builds."""
    top = Path(folder) == ROOT
    return {n for n in names if n in (".git", "__pycache__", ".hypothesis", ".pytest_cache", ".ruff_cache", ".rulesdsl")
            or n.endswith(".egg-info") or (top and (n.startswith(".venv") or n in ("build", "dist")))}


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The sdist and the wheel `python -m build` makes, the wheel built from the sdist."""
    out = tmp_path_factory.mktemp("dist")
    # Built from a copy: setuptools makes its sdist tree and egg-info in the source folder, where
    # tests running beside this one (pytest's workers) or a second run would meet them.
    src = tmp_path_factory.mktemp("src")
    shutil.copytree(ROOT, src, dirs_exist_ok=True, ignore=_not_source)
    r = run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(src)], src)
    assert r.returncode == 0, f"python -m build failed (the dev extra has what it needs):\n{r.stdout}\n{r.stderr}"
    return out


@pytest.fixture(scope="module")
def installed(dist, tmp_path_factory) -> dict[str, str]:
    """A clean environment, outside the checkout, with only the wheel and its dependencies: the
    environment variables that run its `rulesdsl`."""
    why = network()
    if why:
        pytest.skip(why)
    venv = tmp_path_factory.mktemp("venv")
    r = run([sys.executable, "-m", "venv", "--without-pip", str(venv)], venv)
    assert r.returncode == 0, r.stderr
    python = venv / "bin" / "python"
    (wheel,) = dist.glob("*.whl")
    r = run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", str(wheel)], venv)
    assert r.returncode == 0, f"pip install of the wheel failed:\n{r.stdout}\n{r.stderr}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    return env


@pytest.fixture
def outside(tmp_path) -> Path:
    """A user's folder: no checkout above it."""
    assert not tmp_path.resolve().is_relative_to(ROOT)
    return tmp_path


def test_the_wheel_holds_the_grammar_the_games_the_docs_and_the_templates(dist):
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    games = {f"rulesdsl/games/{p.relative_to(GAMES).as_posix()}" for p in GAMES.rglob("*.rules")}
    assert games <= names
    assert {"rulesdsl/grammar.lark", "rulesdsl/docs/language.md", "rulesdsl/docs/tutorial.md",
            "rulesdsl/templates/game.rules", "rulesdsl/templates/game.test.rules"} <= names
    assert not any(n.startswith(("tests/", "games/", "docs/")) for n in names)


def test_the_sdist_holds_the_whole_source(dist):
    (sdist,) = dist.glob("*.tar.gz")
    top = sdist.name.removesuffix(".tar.gz")
    with tarfile.open(sdist) as archive:
        names = {n.removeprefix(top + "/") for n in archive.getnames()}
    tracked = {"pyproject.toml", "README.md", "CHANGELOG.md", "MANIFEST.in", "rulesdsl/grammar.lark",
               "tests/conftest.py", "tests/data", "docs/language.md", "seeds/tamalo.md"}
    assert tracked <= names
    assert {f"games/{p.relative_to(GAMES).as_posix()}" for p in GAMES.rglob("*.rules")} <= names


def test_the_installed_package_is_the_wheel_not_the_checkout(installed, outside):
    r = run(["python", "-c", "import rulesdsl, rulesdsl.bundled as b; print(rulesdsl.__file__); print(b.GAMES)"],
            outside, installed)
    assert r.returncode == 0, r.stderr
    venv = Path(installed["VIRTUAL_ENV"])
    assert all(Path(line).is_relative_to(venv) for line in r.stdout.split()), r.stdout
    r = run(["rulesdsl", "--version"], outside, installed)
    assert r.stdout.strip() == f"rulesdsl {rulesdsl.__version__}"


def readme_commands() -> list[list[str]]:
    """The README's "What you can do with it" block, each command with bundled names for its files
    (a path such as `games/variants/tempurra-*.rules` -> every such variant's name) and shorter
    runs (FEWER)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## What you can do with it", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = []
    for line in block.splitlines():
        args = shlex.split(line.split(" #", 1)[0])
        assert args[0] == "rulesdsl", line
        out: list[str] = []
        for a in args[1:]:
            if a.endswith(".rules"):
                out += sorted(p.name.removesuffix(".rules") for p in ROOT.glob(a))
            elif out and out[-1] in FEWER:
                out.append(str(min(int(a), FEWER[out[-1]])))
            elif out and out[-1] == "--bots":
                out.append(",".join(BOTS.get(b, b) for b in a.split(",")))
            else:
                out.append(a)
        commands.append(out)
    return commands


def test_the_readme_block_is_read_whole():
    commands = readme_commands()
    assert {c[0] for c in commands} == {"list", "check", "play", "simulate", "test", "compare", "arena", "explain",
                                        "new"}
    assert ["compare", "tempurra", "tempurra-two-tokens", "tempurra-hot-plate", "--games", "2"] in commands
    assert ["simulate", "tempurra", "--games", "2", "--workers", "2"] in commands


@pytest.mark.parametrize("args", readme_commands(), ids=" ".join)
def test_each_readme_command_works_on_the_bundled_games_by_name(installed, outside, args):
    if args[0] == "test" and "--games" not in args:
        args = [*args, "--games", "2"]
    if args[0] == "play":
        args = [*args, *PLAY_SEED]
    r = run(["rulesdsl", *args], outside, installed, stdin=TYPED if args[0] == "play" else "")
    shown = r.stdout + r.stderr
    assert r.returncode == 0, shown
    assert "Traceback" not in shown
    if args[0] == "play":
        assert "You left the game." in shown


def test_new_demo_then_its_tests_pass_in_the_clean_environment(installed, outside):
    r = run(["sh", "-c", "rulesdsl new demo && rulesdsl test demo.rules && rulesdsl list"], outside, installed)
    shown = r.stdout + r.stderr
    assert r.returncode == 0 and "Traceback" not in shown, shown
    assert "scenarios: 2 passed, 0 failed" in shown and "no failure" in shown
    assert re.search(r"^  tamalo +2-6 players +Tamalo: ", shown, re.M)
    docs = Path(installed["VIRTUAL_ENV"])
    assert any(str(docs) in line and line.endswith("language.md) describes it.") for line in shown.splitlines())


@pytest.mark.parametrize("args", [
    ["compare", "tempurra", "tempurra-two-tokens", "--games", "2", "--plot", "p.png"],
    ["simulate", "tamalo", "--games", "2", "--backend", "ray"],
], ids=["plot", "ray"])
def test_an_option_whose_extra_is_not_installed_names_the_extra(installed, outside, args):
    r = run(["rulesdsl", *args], outside, installed)
    extra = "plot" if "--plot" in args else "ray"
    assert r.returncode == 2 and f"pip install 'rulesdsl[{extra}]'" in r.stderr, r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr
