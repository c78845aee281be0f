"""pytest plugin: `pytest games/` collects each rules file's scenarios and a run of generated
games as test items, so rule authors use the runner they know. Registered as a `pytest11` entry
point; options: `--rules-games N`, `--rules-profile ci|long`, `--rules-seed S`."""

from __future__ import annotations

from pathlib import Path

import pytest

from .errors import RulesError


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rulesdsl", "rules files (.rules)")
    group.addoption("--rules-games", type=int, default=None, help="generated games per rules file")
    group.addoption("--rules-profile", default="ci", help="ci (default) or long")
    group.addoption("--rules-seed", type=int, default=None, help="seed the generated games")


def pytest_collect_file(parent: pytest.Collector, file_path: Path):
    if file_path.suffix == ".rules":
        return RulesFile.from_parent(parent, path=file_path)
    return None


class RulesTestFailure(Exception):
    pass


class RulesFile(pytest.File):
    def collect(self):
        from .testing import _load

        try:
            # (Through the cache the scenarios and the generated games read: one load per worker.)
            game = _load(str(self.path), None, ())
        except RulesError as e:
            if "declares no game" in str(e):
                return  # a prelude: it is checked through the games that import it
            yield CheckItem.from_parent(self, name="check", error=e.format())
            return
        for i, sc in enumerate(game.scenarios):
            yield ScenarioItem.from_parent(self, name=f"scenario: {sc.name}", index=i, line=sc.span.line)
        # A game with a companion `NAME.test.rules` has its generated games run there (the
        # companion imports the game, so its invariants include the game's).
        if not self.path.with_name(self.path.name.removesuffix(".rules") + ".test.rules").exists():
            yield PropertiesItem.from_parent(self, name="generated games")


class _RulesItem(pytest.Item):
    line = 0

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, RulesTestFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, max(0, self.line - 1), f"{self.path.name}::{self.name}"


class CheckItem(_RulesItem):
    def __init__(self, *, error: str, **kw):
        super().__init__(**kw)
        self.error = error

    def runtest(self):
        raise RulesTestFailure(self.error)


class ScenarioItem(_RulesItem):
    def __init__(self, *, index: int, line: int, **kw):
        super().__init__(**kw)
        self.index = index
        self.line = line

    def runtest(self):
        from .testing import run_scenario

        result = run_scenario(self.path, self.index)
        if not result.ok:
            raise RulesTestFailure(f"scenario '{result.name}' failed\n{result.failure}")


class PropertiesItem(_RulesItem):
    def runtest(self):
        from .testing import PROFILES, check_properties

        cfg = self.config
        if cfg.getoption("rules_profile") not in PROFILES:
            raise pytest.UsageError(f"--rules-profile must be one of {', '.join(PROFILES)}")
        res = check_properties(self.path, games=cfg.getoption("rules_games"), seed=cfg.getoption("rules_seed"),
                               profile=cfg.getoption("rules_profile"))
        if not res.ok:
            t = res.transcript
            lines = [f"generated games failed after {res.games} good games", str(res.failure)]
            if t is not None:
                lines.append(f"shrunk to {len(t.moves)} moves: {t.players} players, parameters {t.params}, "
                             f"seed {t.seed}")
                lines.append("moves: " + ", ".join(t.moves))
                lines.append("transcript (save it to a file and run `rulesdsl replay FILE TRANSCRIPT`):")
                lines.append(t.to_json())
            raise RulesTestFailure("\n".join(lines))
