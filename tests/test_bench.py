"""The benchmarks keep working: the hand-written baselines play whole games of the same rules as
the engine, and bench/run.py runs (quickly) and keeps hand-written text in its results file.
Nothing here asserts a speed: speeds are measured by bench/run.py and reported, not tested."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def bench_module(name: str):
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["baseline_tempurra", "baseline_tamalo"])
@pytest.mark.parametrize("players", [2, 4, 6])
def test_baseline_plays_whole_games(name, players):
    module = bench_module(name)
    if name == "baseline_tempurra" and players == 2:
        players = 3  # Tempurra is for 3 to 7 players
    for seed in range(20):
        moves, winners = module.play_game(seed, players)
        assert moves > 0
        assert winners and all(0 <= w < players for w in winners)
        assert module.play_game(seed, players) == (moves, winners)  # a seed replays its game


def test_the_baselines_draws_are_randrange_and_shuffle():
    # bench/picks.py draws as the engine's playout does (getrandbits, again while too large):
    # the same numbers as randrange and random.shuffle, leaving the generator in the same state.
    import random

    picks = bench_module("picks")
    for seed in range(40):
        ours, theirs = random.Random(seed), random.Random(seed)
        shuffle, pick = picks.shuffler(ours.getrandbits), picks.picker(ours.getrandbits, picks.WIDTHS)
        for n in (95, 52, 2, 1, 0):
            a, b = list(range(n)), list(range(n))
            shuffle(a)
            theirs.shuffle(b)
            assert a == b
        assert [pick(k) for k in range(1, 60)] == [theirs.randrange(k) for k in range(1, 60)]
        assert ours.random() == theirs.random()


@pytest.mark.parametrize("name", ["baseline_tempurra", "baseline_tamalo"])
def test_validates_recorder_counts_the_games_a_baseline_plays_alone(name):
    # validate.py's Recorder is asked each decision's number of options (picks.OPTIONS) and answers
    # randrange of it: the games it counts must be those the baseline plays with its own draws.
    # (That the numbers of options are the engine's is the lockstep's and the model's to show.)
    from collections import Counter

    module, validate = bench_module(name), bench_module("validate")
    for seed in range(60):
        hist: Counter = Counter()
        assert module.simulate_game(seed, 4) == module.simulate_game(seed, 4, validate.Recorder(seed, hist))
        assert hist[4] >= 1 and sum(hist.values()) > 1


@pytest.mark.parametrize("players", [3, 4, 7])
def test_tempurra_on_the_engines_data_model_plays_the_baselines_very_games(players):
    # bench/model_tempurra.py measures how fast the engine's data model can be by hand; it means
    # something only if it plays the same games: every result equal, seed by seed.
    model, baseline = bench_module("model_tempurra"), bench_module("baseline_tempurra")
    for seed in range(60):
        played = baseline.simulate_game(seed, players)
        assert model.simulate_game(seed, players) == played
        assert model.simulate_game(seed, players, counted=True) == played  # hands counted by face


def test_the_data_model_bench_runs_and_refuses_bad_arguments(capsys):
    model = bench_module("model_tempurra")
    model.main(["--games", "3", "--repeats", "1"])
    out = capsys.readouterr().out
    assert "counted by face" in out and out.count("ratio") == 2
    with pytest.raises(SystemExit):
        model.main(["--games", "0"])


def test_tamalo_baseline_asks_the_engines_decisions_in_lockstep(capsys):
    validate = bench_module("validate")
    assert validate.lockstep_tamalo(games=30, players=4, seed=0) == 0


def test_validate_compares_both_games(capsys):
    validate = bench_module("validate")
    validate.main(["--games", "15"])
    out = capsys.readouterr().out
    assert "tempurra" in out and "tamalo" in out and "options per decision" in out


def test_run_quick_writes_between_its_markers_and_keeps_the_rest(tmp_path, capsys):
    run = bench_module("run")
    results = tmp_path / "RESULTS.md"
    results.write_text(f"# Results\n\n{run.BEGIN}\nold numbers\n{run.END}\n\n## Profile\n\nhand-written\n")
    assert run.main(["--quick", "--out", str(results)]) == 0
    text = results.read_text()
    assert "old numbers" not in text and "hand-written" in text
    assert "engine / baseline" in text and "clone()/s" in text and "rulesdsl check" in text
    assert text.index(run.BEGIN) < text.index("engine / baseline") < text.index(run.END) < text.index("## Profile")


def test_instruction_counts_refuse_too_few_games_and_count_an_empty_game_as_the_engine_plays_it(capsys):
    instructions = bench_module("instructions")
    with pytest.raises(SystemExit) as e:
        instructions.main(["--games", "2"])
    assert e.value.code == 2 and "at least 5" in capsys.readouterr().err
    # The empty game the script measures is a valid game that plays to its end.
    import random

    import rulesdsl

    game = rulesdsl.load_text(instructions.EMPTY.replace("TURNS", "50"), path="empty.rules")
    st = game.new_game(1, log=False)
    rng = random.Random(1)
    while not st.over:
        st.apply_index(rng.randrange(st.num_moves()))
    assert st.moves == 51  # the end is checked after each turn: turn 51 is played


def test_bytecode_counts_run_and_list_the_engines_blocks(capsys):
    opcodes = bench_module("opcodes")
    assert opcodes.main(["--games", "1", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "| tempurra |" in out and "| tamalo |" in out and "by bytecodes per move" in out
    for bad in (["--games", "0"], ["--top", "-1"]):
        with pytest.raises(SystemExit) as e:
            opcodes.main(bad)
        assert e.value.code == 2


def test_play_digest_is_the_same_for_the_same_games_and_differs_for_other_rules(tmp_path):
    digest = bench_module("play_digest")
    game = BENCH.parent / "games" / "goofspiel.rules"
    first = digest.digests([game], 1)
    assert first == digest.digests([game], 1) and len(first) >= 2
    hashes = {line.split()[-1] for line in first if "players=2 {} " in line}
    assert len(hashes) == 1  # with shortcuts and without: the same games
    other = tmp_path / "other.rules"
    other.write_text(game.read_text().replace("max(bid_value", "min(bid_value", 1))
    assert [line.split()[-1] for line in digest.digests([other], 1)] != [line.split()[-1] for line in first]
