"""Shared test setup: hypothesis profiles, the `long` and `fuzz` markers and the games under test.

`ci` (the default) keeps the suite fast; `long` tries many more examples, and runs the tests
marked `long` (more seeds of a fuzz test whose first seed already checks its promise):
    HYPOTHESIS_PROFILE=long pytest
Plain `pytest` leaves out the tests marked `fuzz` (a fuzz test's fixed cases); CI runs them too:
    pytest -m fuzz
"""

from __future__ import annotations

import functools
import io
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import rulesdsl

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"

settings.register_profile("ci", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
# Texts drawn from the grammar by the property tests that parse them (test_testing, test_lsp): the
# same ones every run where derandomized. ci: 100 (were 200 on every run), long: 1,000.
GRAMMAR_TEXTS = 1000 if LONG else 100


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "long: more of what another test already checks on every run (more seeds "
                                       "of a fuzz test); run by HYPOTHESIS_PROFILE=long, skipped otherwise")
    config.addinivalue_line("markers", "fuzz: a fuzz test's fixed cases (inputs nobody would write, never a "
                                       "traceback); left out of plain `pytest`, run by `pytest -m fuzz` (CI runs "
                                       "both), by naming the test's file, and by HYPOTHESIS_PROFILE=long")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if LONG:
        return
    # Plain `pytest` (the testpaths, no -m) leaves the fuzz tests to `pytest -m fuzz`: a quarter
    # of its processor time less, so that a newcomer waits two minutes, not three.
    if config.args_source == pytest.Config.ArgsSource.TESTPATHS and not config.getoption("markexpr"):
        fuzz = [item for item in items if item.get_closest_marker("fuzz") is not None]
        if fuzz:
            config.hook.pytest_deselected(items=fuzz)
            items[:] = [item for item in items if item.get_closest_marker("fuzz") is None]
    skip = pytest.mark.skip(reason="a long run: HYPOTHESIS_PROFILE=long pytest")
    for item in items:
        if item.get_closest_marker("long") is not None:
            item.add_marker(skip)


# Test modules whose tests share an expensive module fixture, run on one worker: their
# `pytestmark = pytest.mark.xdist_group(NAME)`, known here too because pytest-xdist 3.8 on pytest
# 9.2 ignores the mark (it writes the group into a node id pytest no longer reads: pytest-xdist
# issue 1386), and the package's build and install then ran once on each worker.
XDIST_GROUPS = {"tests/test_package.py": "package"}


@pytest.hookimpl(optionalhook=True)  # (a hook of pytest-xdist: no error where it is absent)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadgroup` that keeps XDIST_GROUPS together whichever pytest runs it."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class GroupScheduling(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            group = XDIST_GROUPS.get(nodeid.split("::", 1)[0])
            return group if group is not None else super()._split_scope(nodeid)

    return GroupScheduling(config, log)


def run_cli(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    """`rulesdsl ARGV` run in-process: its exit code, output and errors (never a traceback)."""
    from rulesdsl.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    assert "Traceback" not in out.getvalue() + err.getvalue()
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="session")
def tempurra4() -> rulesdsl.Game:
    return rulesdsl.load(GAMES / "tempurra.rules", players=4)


def tempurra(players: int = 4, **params) -> rulesdsl.Game:
    """Tempurra for `players` (loaded once per setting: games are immutable, states are not)."""
    return _load("tempurra.rules", players, tuple(sorted(params.items())))


@functools.cache
def _load(name: str, players: int, params: tuple) -> rulesdsl.Game:
    return rulesdsl.load(GAMES / name, players=players, **dict(params))
pytest_plugins = ["pytester"]
# Deliberately broken rules files that tests run on purpose; pytest must not collect them.
collect_ignore = ["data"]
