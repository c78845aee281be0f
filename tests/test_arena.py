"""The arena's ladder: pairwise comparisons from a game's seats, Bradley-Terry ratings by maximum
likelihood with bootstrap intervals, the round robin, and `rulesdsl arena --ladder`."""

from __future__ import annotations

import json
import math
import random
import re

import pytest

from rulesdsl.arena import ELO, ArenaGame, Pairing, bradley_terry, comparisons, ratings, run_ladder

from .conftest import GAMES, ROOT
from .conftest import run_cli as run

GOOFSPIEL = str(GAMES / "goofspiel.rules")


def game(bots, winners, ranking, index=0):
    n = len(bots)
    return ArenaGame(index, 0, bots, winners, not winners and not ranking, 10, [1] * n, [0.0] * n, [0.0] * n,
                     {}, ranking)


def test_a_games_pairs_of_seats_held_by_two_bots_are_compared_by_win_then_rank():
    index = {"a": 0, "b": 1}
    g = game(["a", "b", "a", "b"], [2], [3, 2, 1, 4])
    # a's seats 0 and 2 against b's seats 1 and 3; a-a and b-b pairs are not compared.
    assert comparisons(g, index) == [(0, 1, 0.0), (0, 1, 1.0), (1, 0, 0.0), (0, 1, 1.0)]
    shared = game(["a", "b"], [0, 1], [1, 1])
    assert comparisons(shared, index) == [(0, 1, 0.5)]
    capped = game(["a", "b"], [], [])
    assert comparisons(capped, index) == [(0, 1, 0.5)]


def test_bradley_terry_finds_the_strengths_that_made_the_results():
    # b beats a 3 times in 4, c beats b 3 times in 4: 400*log10(3) = 191 Elo a step.
    comps = [(1, 0, 1.0)] * 300 + [(1, 0, 0.0)] * 100 + [(2, 1, 1.0)] * 300 + [(2, 1, 0.0)] * 100
    theta = bradley_terry(3, comps, prior=0.0)
    assert sum(theta) == pytest.approx(0, abs=1e-9)
    assert ELO * (theta[1] - theta[0]) == pytest.approx(400 * math.log10(3), rel=1e-6)
    assert ELO * (theta[2] - theta[1]) == pytest.approx(400 * math.log10(3), rel=1e-6)
    # A player who never lost has a finite strength with the prior, above the others.
    unbeaten = bradley_terry(2, [(1, 0, 1.0)] * 10)
    assert math.isfinite(unbeaten[1]) and unbeaten[1] > unbeaten[0]
    # Ties count half: all ties, all equal.
    assert bradley_terry(2, [(0, 1, 0.5)] * 8) == pytest.approx([0.0, 0.0], abs=1e-9)


def test_ratings_anchor_the_first_bot_and_give_intervals_that_hold_the_estimate():
    rng = random.Random(4)
    records = []
    for i in range(60):  # "b" wins 3 games in 4 against "a", two seats each
        w = 1 if rng.random() < 0.75 else 0
        records.append(game(["a", "b"], [w], [2 - (w == 0), 2 - (w == 1)], i))
    rows = ratings(["a", "b"], [Pairing(("a", "b"), ["a", "b"], records)], resamples=100)
    by = {r.bot: r for r in rows}
    assert [r.bot for r in rows] == ["b", "a"], "best first"
    assert by["a"].elo == 0 and by["a"].interval == (0.0, 0.0)
    lo, hi = by["b"].interval
    assert 0 < lo < by["b"].elo < hi
    assert by["b"].score == pytest.approx(1 - by["a"].score) and by["b"].comparisons == 60


def test_the_round_robin_plays_every_pairing_on_the_same_deals():
    g, pairings = run_ladder(GOOFSPIEL, ["random", "greedy:1", "ismcts:2"], 2, seed=5)
    assert [p.bots for p in pairings] == [("random", "greedy:1"), ("random", "ismcts:2"), ("greedy:1", "ismcts:2")]
    assert all([r.seed for r in p.records] == [5, 5] for p in pairings)
    assert all(p.lineup == list(p.bots) for p in pairings) and g.players == 2
    with pytest.raises(ValueError, match="two different bots"):
        run_ladder(GOOFSPIEL, ["random", "random"], 2)


def test_arena_ladder_prints_ratings_with_intervals():
    code, out, err = run("arena", GOOFSPIEL, "--ladder", "random,greedy:1", "--games", "4", "--workers", "1")
    assert code == 0, err
    assert re.search(r"^random +0 +\(anchor\) +[\d.]+% +4$", out, re.M)
    assert re.search(r"^greedy:1 +-?\d+ +\[-?\d+, -?\d+\] +[\d.]+% +4$", out, re.M)
    assert re.search(r"^greedy:1: \d+ decisions, [\d.]+ seconds a decision", out, re.M)
    code, out, err = run("arena", GOOFSPIEL, "--ladder", "random,greedy:1", "--games", "2", "--workers", "1",
                         "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["anchor"] == "random" and {r["bot"] for r in data["ladder"]} == {"random", "greedy:1"}
    assert data["pairings"] == [{"bots": ["random", "greedy:1"], "lineup": ["random", "greedy:1"], "capped": 0}]


@pytest.mark.parametrize(("args", "message"), [
    (["--ladder", "random,random"], "at least two different bots"),
    (["--ladder", "random"], "at least two different bots"),
    (["--ladder", "random,wizard"], "unknown bot 'wizard'"),
    (["--ladder", "random,ismcts", "--bots", "random"], "either --bots"),
    ([], "either --bots"),
])
def test_arena_ladder_mistakes_exit_2(args, message):
    code, _, err = run("arena", GOOFSPIEL, *args)
    assert code == 2 and message in err


def test_arena_ladder_json_keys_are_documented():
    code, out, _ = run("arena", GOOFSPIEL, "--ladder", "random,greedy:1", "--games", "1", "--workers", "1", "--json")
    assert code == 0
    data = json.loads(out)
    section = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("### A ladder: `--ladder`")[1]
    documented = set(re.findall(r"`(\w+)`", section.split("With `--json`:")[1].split("\n## ")[0]))
    assert set(data) | set(data["ladder"][0]) | set(data["pairings"][0]) <= documented
