"""Games on every core: any number of workers, and Ray, give the records of a single process."""

from __future__ import annotations

import json
import sys

import pytest

import rulesdsl
from rulesdsl import parallel
from rulesdsl.compare import compare_stats, run_comparison
from rulesdsl.simulate import SimulationError, simulate

from .conftest import GAMES
from .conftest import run_cli as run

TAMALO = str(GAMES / "tamalo.rules")
FRUIT_BOWL = str(GAMES / "examples" / "fruit_bowl.rules")
BROKEN = """
game "Runtime"
players 2
card n(v)
cards in deck { 3 n(1) }
zone deck: stack, hidden
zone pile: stack, public
var x = 0
action take {
  draw 1 from deck to pile
  x = top(deck).v + top(pile).v
}
game ends when empty(deck)
winners are players
"""


def without_time(stats) -> dict:
    d = stats.to_dict()
    del d["seconds"], d["moves_per_s"]
    return d


def test_split_keeps_every_seed_once_in_order():
    for n in (0, 1, 2, 7, 100):
        for workers in (1, 2, 3, 8):
            chunks = parallel.split(range(10, 10 + n), workers)
            assert [s for c in chunks for s in c] == list(range(10, 10 + n))
            assert all(len(c) > 0 for c in chunks)
            assert len(chunks) <= max(1, workers * parallel.CHUNKS_PER_WORKER)


@pytest.mark.parametrize("path, players", [(TAMALO, 4), (FRUIT_BOWL, 3)])
def test_simulate_gives_the_same_records_for_any_number_of_workers(path, players):
    game = rulesdsl.load(path, players=players)
    one = simulate(game, 23, seed=5)
    for workers in (2, 3):
        many = simulate(game, 23, seed=5, workers=workers)
        assert many.records == one.records
        assert without_time(many) == without_time(one)


def test_workers_load_the_game_from_its_spec():
    """A worker that did not inherit the parent's games (spawned, or on Ray) loads them itself."""
    game = rulesdsl.load(FRUIT_BOWL, players=3, target=50)
    spec = parallel.GameSpec.of(game)
    parallel._LOADED.pop(spec, None)
    again = spec.load()
    assert again is not game and again.params == game.params and again.names == game.names
    assert simulate(again, 5, seed=1).records == simulate(game, 5, seed=1).records


def test_games_from_text_are_told_apart():
    a = rulesdsl.load_text(BROKEN.replace("3 n(1)", "4 n(1)"))
    b = rulesdsl.load_text(BROKEN.replace("3 n(1)", "6 n(1)").replace("top(deck).v + ", ""))
    assert parallel.GameSpec.of(a) != parallel.GameSpec.of(b)


def test_compare_spreads_games_over_workers_with_the_same_results():
    files = [TAMALO, str(GAMES / "variants" / "tamalo-jokers.rules")]
    one = run_comparison(files, 15, 4, {}, 3, ["random"], 20_000, workers=1)
    two = run_comparison(files, 15, 4, {}, 3, ["random"], 20_000, workers=2)
    assert [s.records for s in one] == [s.records for s in two]
    assert compare_stats(one) == compare_stats(two)


def test_a_failing_game_in_a_worker_is_reported_as_in_one_process():
    game = rulesdsl.load_text(BROKEN)
    errors = []
    for workers in (1, 2):
        with pytest.raises(SimulationError) as e:
            simulate(game, 4, seed=0, workers=workers)
        errors.append((e.value.seed, e.value.moves, str(e.value)))
    assert errors[0] == errors[1]


def test_cli_simulate_workers_do_not_change_the_output():
    outs = []
    for workers in ("1", "2"):
        code, out, _ = run("simulate", TAMALO, "--games", "12", "--json", "--workers", workers)
        assert code == 0
        d = json.loads(out)
        del d["seconds"], d["moves_per_s"]
        outs.append(d)
    assert outs[0] == outs[1]


@pytest.mark.parametrize("command", [["simulate", TAMALO], ["compare", TAMALO, TAMALO]])
def test_workers_below_one_is_a_usage_error(command):
    code, _, err = run(*command, "--games", "2", "--workers", "0")
    assert code == 2 and "--workers must be at least 1" in err


def test_unknown_backend_is_a_usage_error():
    code, _, err = run("simulate", TAMALO, "--games", "2", "--backend", "mpi")
    assert code == 2 and "unknown backend 'mpi'" in err


def test_backend_ray_without_ray_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    code, _, err = run("simulate", TAMALO, "--games", "2", "--backend", "ray")
    assert code == 2 and "pip install 'rulesdsl[ray]'" in err


def test_ray_backend_gives_the_same_records():
    ray = pytest.importorskip("ray")
    game = rulesdsl.load(TAMALO, players=4)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = simulate(game, 10, seed=2, workers=2, backend="ray")
    finally:
        ray.shutdown()
    assert on_ray.records == simulate(game, 10, seed=2).records


def test_progress_counts_every_game_once_with_workers():
    game = rulesdsl.load(TAMALO, players=4)
    seen: list[int] = []
    simulate(game, 17, seed=0, progress=seen.append, workers=2)
    assert seen == sorted(seen) and seen[-1] == 17


def test_errors_come_back_from_a_worker_as_they_left():
    """A worker's errors are pickled on their way back: each keeps its text and location."""
    import pickle

    from rulesdsl.ast import Span
    from rulesdsl.errors import Diagnostic, RulesError, RulesRuntimeError

    span = Span("f.rules", 3, 4, 3, 9)
    runtime = pickle.loads(pickle.dumps(RulesRuntimeError("boom", span)))
    assert str(runtime) == "f.rules:3:4: runtime error: boom" and runtime.span == span
    rules = RulesError([Diagnostic(span, "bad")], {"f.rules": "a\nb\nccc dddddd\n"})
    assert str(pickle.loads(pickle.dumps(rules))) == str(rules)
