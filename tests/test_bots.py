"""Bots: legal moves on every game, no peeking at what the seat cannot know, the arena's seat
rotation and accounting, bot names on the command line, and `rulesdsl arena` / `play --bots`.

Budgets are tiny (a few iterations, short playouts): these tests check behaviour, not strength;
strength is measured by bench/bots.py and reported in docs/bots.md.
"""

from __future__ import annotations

import json
import random
import re

import pytest

import rulesdsl
from rulesdsl.arena import lineup_for, run_arena, seat_counts, seating, summarize
from rulesdsl.bots import BotSpecError, GreedyBot, ISMCTSBot, RandomBot, make_bot

from .conftest import GAMES, ROOT
from .conftest import run_cli as run
from .test_engine import fingerprint

RULES = sorted(p for p in [*GAMES.glob("*.rules"), *(GAMES / "variants").glob("*.rules"),
                           GAMES / "examples" / "fruit_bowl.rules"] if not p.name.endswith(".test.rules"))
TAMALO = str(GAMES / "tamalo.rules")


def midgame(game: rulesdsl.Game, seed: int, moves: int) -> rulesdsl.State:
    """A state after some random moves, at a decision with a real choice."""
    s = game.new_game(seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if s.is_over:
            break
        s.apply_index(rng.randrange(s.num_moves()))
    while not s.is_over and s.num_moves() < 2:
        s.apply_index(0)
    return s


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.name)
def test_every_bot_plays_only_legal_moves_on_every_game(path):
    game = rulesdsl.load(path)
    bots = [ISMCTSBot(1, iterations=3, playout_limit=40), GreedyBot(2, samples=1, playout_limit=40), RandomBot(3)]
    s = game.new_game(5, log=False)
    asked_out_of_turn = 0
    while not s.is_over and s.moves < 60:
        bot = bots[s.chooser % len(bots)]
        before = fingerprint(s)
        i = bot.choose(s)
        assert isinstance(i, int) and 0 <= i < s.num_moves()
        assert fingerprint(s) == before
        asked_out_of_turn += s.chooser != s.turn_player
        s.apply_index(i)
    if path.name.startswith("tamalo"):
        assert asked_out_of_turn, "snap windows ask seats other than the turn's"


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.name)
def test_sampled_worlds_keep_the_seats_view_and_moves(path):
    """What the search bots look ahead in: the deciding seat sees the same table and the same moves."""
    game = rulesdsl.load(path)
    s = midgame(game, 7, 25)
    if s.is_over:
        pytest.skip("the game ended early")
    me = s.chooser
    for k in range(3):
        for w in (s.determinize(me, random.Random(k), log=False), s.determinize(me, random.Random(k))):
            assert w.view(me, events=0) == s.view(me, events=0)
            assert w.move_texts() == s.move_texts()
            assert (w.counters, w.round, w.turn, w.current) == (s.counters, s.round, s.turn, s.current)
            assert sorted(c for z in w.zones for c in z if c is not None) == list(range(game.ncards))


@pytest.mark.parametrize("name", ["tamalo.rules", "tempurra.rules"])
def test_search_depends_only_on_what_the_seat_knows(name):
    """Two states the deciding seat cannot tell apart give the same sampled worlds and, with the
    same bot seed, the same choice."""
    game = rulesdsl.load(GAMES / name)
    differed = 0
    for seed in range(3):
        s = midgame(game, seed, 20 + 7 * seed)
        if s.is_over:
            continue
        me = s.chooser
        other = s.determinize(me, random.Random(100 + seed))
        differed += other.zones != s.zones
        assert s.determinize(me, random.Random(1)).zones == other.determinize(me, random.Random(1)).zones
        assert ISMCTSBot(9, iterations=25).choose(s) == ISMCTSBot(9, iterations=25).choose(other)
        assert GreedyBot(9, samples=2).choose(s) == GreedyBot(9, samples=2).choose(other)
    assert differed, "the pairs differ in cards the seat does not know"


def test_ismcts_does_not_change_the_state_it_is_given():
    game = rulesdsl.load(TAMALO)
    s = midgame(game, 4, 30)
    before, log, texts = fingerprint(s), list(s.log), s.move_texts()
    ISMCTSBot(0, iterations=20).choose(s)
    assert fingerprint(s) == before and s.log == log and s.move_texts() == texts


def test_ismcts_learns_from_its_iterations():
    """Even a small search wins more Tamalo games against random bots than chance (10 of 40) gives:
    18 or more wins happen by chance with probability under 0.005."""
    _, lineup, records = run_arena(TAMALO, ["ismcts:20", "random", "random", "random"], 40, players=4)
    assert summarize(records, lineup)[0].wins >= 18


def test_seats_rotate_so_each_bot_sits_in_each_seat_equally():
    lineup = lineup_for(["a", "b"], 4)
    assert lineup == ["a", "b", "a", "b"]
    seats = [seating(["x", "y", "y", "y"], g) for g in range(8)]
    assert [s.index("x") for s in seats] == [0, 1, 2, 3, 0, 1, 2, 3]
    with pytest.raises(ValueError, match="at most one bot per seat"):
        lineup_for(["a"] * 5, 4)


def test_arena_accounts_for_every_seat_and_win_and_workers_do_not_change_results():
    _, lineup, records = run_arena(TAMALO, ["ismcts:3", "random"], 8, players=4, seed=11, workers=1)
    assert lineup == ["ismcts:3", "random", "ismcts:3", "random"]
    assert [r.seed for r in records] == [11, 11, 11, 11, 12, 12, 12, 12], "each deal is played in every rotation"
    assert seat_counts(records, 4) == {"ismcts:3": [4, 4, 4, 4], "random": [4, 4, 4, 4]}
    rows = summarize(records, lineup)
    assert [(r.bot, r.seats, r.games) for r in rows] == [("ismcts:3", 2, 16), ("random", 2, 16)]
    assert sum(r.wins for r in rows) == pytest.approx(sum(1 for r in records if r.winners))
    for r in rows:
        assert r.interval[0] <= r.rate <= r.interval[1]
    _, _, parallel = run_arena(TAMALO, ["ismcts:3", "random"], 8, players=4, seed=11, workers=2)
    key = lambda rs: [(r.index, r.seed, r.bots, r.winners, r.moves, r.choices) for r in rs]
    assert key(parallel) == key(records)


@pytest.mark.parametrize(("spec", "message"), [
    ("minimax", "unknown bot 'minimax'"),
    ("random:3", "takes no setting"),
    ("ismcts:0", "at least 1"),
    ("ismcts:many", "at least 1"),
    ("ismcts:-2s", "seconds per move"),
    ("greedy:x", "at least 1"),
])
def test_bad_bot_names_say_what_is_wrong(spec, message):
    with pytest.raises(BotSpecError, match=message):
        make_bot(spec, 0)


def test_bot_names_that_work():
    assert make_bot("ismcts:50").iterations == 50
    timed = make_bot("ismcts:0.25s")
    assert (timed.seconds, timed.iterations) == (0.25, None)
    assert (make_bot("ismcts").iterations, make_bot("ismcts").seconds) == (200, 0.9)
    assert make_bot("greedy:3").samples == 3
    assert make_bot(" random ").name == "random"


def test_arena_command_prints_win_rates_with_intervals():
    code, out, err = run("arena", TAMALO, "--bots", "ismcts:4,random,random,random", "--games", "4", "--workers", "1")
    assert code == 0, err
    assert re.search(r"^ismcts:4 +1 +4 +[\d.]+ +[\d.]+% +\[[\d.]+%, [\d.]+%\]$", out, re.M)
    assert re.search(r"^random +3 +12 ", out, re.M)
    assert "seconds a decision" in out
    code, out, err = run("arena", TAMALO, "--bots", "ismcts:4,random", "--games", "4", "--workers", "1", "--json",
                         "--set", "winning_total=7")
    data = json.loads(out)
    assert data["params"]["winning_total"] == 7 and data["lineup"] == ["ismcts:4", "random", "ismcts:4", "random"]
    assert data["by_seat"] == {"ismcts:4": [2, 2, 2, 2], "random": [2, 2, 2, 2]}
    assert set(data["seconds"]) == {"per_decision", "slowest"}


@pytest.mark.parametrize(("args", "message"), [
    (["--bots", "ismcts:zero"], "must be a whole number"),
    (["--bots", "wizard"], "unknown bot 'wizard'"),
    (["--bots", "random,random,random,random,random"], "at most one bot per seat"),
    (["--bots", "random", "--games", "0"], "--games must be at least 1"),
    (["--bots", "random", "--workers", "0"], "--workers must be at least 1"),
    (["--bots", ","], "at least one bot"),
])
def test_arena_command_line_mistakes_exit_2(args, message):
    code, _, err = run("arena", TAMALO, *args)
    assert code == 2 and message in err


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_other_commands_take_the_new_bots(command):
    files = [TAMALO] if command == "simulate" else [TAMALO, TAMALO]
    code, out, err = run(command, *files, "--bots", "ismcts:2,greedy:1,random", "--games", "2", "--json",
                         *(["--workers", "1"] if command == "compare" else []))
    assert code == 0, err
    assert json.loads(out)["bots"] == ["ismcts:2", "greedy:1", "random"]
    code, out, err = run(command, *files, "--bots", "ismcts:x", "--games", "2")
    assert code == 2 and "ismcts:x" in err


def test_play_against_ismcts_with_piped_input_plays_to_the_end():
    code, out, err = run("play", TAMALO, "--bots", "ismcts:20", "--seed", "2", stdin="call\n1\n" * 200)
    assert code == 0, err
    assert "the others are ismcts:20 bots" in out
    assert re.search(r"^(Winner: .+\.|You win!|You share the win!)$", out, re.M)


def test_the_python_example_in_docs_bots_runs(monkeypatch, capsys):
    text = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    example = re.search(r"```python\n(.*?)```", text, re.S)[1]
    monkeypatch.chdir(ROOT)
    exec(compile(example, "docs/bots.md", "exec"), {})
    assert capsys.readouterr().out.strip()


def test_arena_json_keys_are_documented():
    code, out, _ = run("arena", TAMALO, "--bots", "random", "--games", "1", "--workers", "1", "--json")
    assert code == 0
    data = json.loads(out)
    section = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split("## `rulesdsl arena`")[1].split("\n## ")[0]
    documented = set(re.findall(r"`(\w+)`", section.split("With `--json`:")[1]))
    assert set(data) | set(data["bots"][0]) | set(data["seconds"]) <= documented
