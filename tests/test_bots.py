"""Bots: legal moves on every game, no peeking at what the seat cannot know, the arena's seat
rotation and accounting, bot names on the command line, and `rulesdsl arena` / `play --bots`.

Budgets are tiny (a few iterations, short playouts): these tests check behaviour, not strength;
strength is measured by bench/bots.py and reported in docs/bots.md.
"""

from __future__ import annotations

import io
import json
import random
import re
import time

import pytest

import rulesdsl
from rulesdsl.arena import lineup_for, run_arena, seat_counts, seating, summarize
from rulesdsl.bots import BotSpecError, GreedyBot, ISMCTSBot, RandomBot, make_bot
from rulesdsl.bots.screen import Screen, screen, tail
from rulesdsl.bots.worlds import sample_world, search_copy

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
    default = make_bot("ismcts2:8", 4)  # the bot `play` meets at a terminal: screen, MAST playouts
    default.playout_limit = 40
    bots = [ISMCTSBot(1, iterations=3, playout_limit=40), GreedyBot(2, samples=1, playout_limit=40), RandomBot(3),
            default]
    s = game.new_game(5, log=False)
    asked_out_of_turn = 0
    while not s.is_over and s.moves < 60:
        bot = bots[(s.chooser + s.moves) % len(bots)]  # (every bot in every seat, at any player count)
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
        screened = [make_bot("ismcts2:25", 9) for _ in range(2)]
        assert screened[0].choose(s) == screened[1].choose(other)
        assert screened[0].last_pruned == screened[1].last_pruned
        assert GreedyBot(9, samples=2).choose(s) == GreedyBot(9, samples=2).choose(other)
    assert differed, "the pairs differ in cards the seat does not know"


# ---------------------------------------------------------------- dominated moves (screen.py)


def test_the_sign_test_prunes_only_moves_clearly_behind_in_the_shared_worlds():
    """Rows are moves, columns the shared worlds; (share of the win, minus rank)."""
    win, second, last = (1.0, -1), (0.0, -2), (0.0, -4)
    equal = Screen([[win, last] * 12, [win, last] * 12], 4)
    assert equal.dominated == {}, "moves with the same outcomes in every world are never pruned"
    sure_cost = Screen([[win] * 12 + [second] * 12, [second] * 12 + [last] * 12], 4)
    assert sure_cost.dominated == {1: 0} and sure_cost.kept() == [0]
    unlucky = Screen([[second] * 24, [second] * 21 + [last] * 3], 4)
    assert unlucky.dominated == {}, "behind in 3 worlds of 24 and level elsewhere is bad luck, not dominance"
    gamble = Screen([[second] * 24, [last] * 18 + [win] * 6], 4)
    assert gamble.dominated == {}, "a gamble that pays in a quarter of the worlds is kept"
    mostly = Screen([[second] * 24, [last] * 20 + [second] * 2 + [win] * 2], 4)
    assert mostly.dominated == {}, "behind on rank in 20 worlds, but it wins in 2: a gamble, kept"
    worse = Screen([[second] * 24, [last] * 20 + [second] * 4], 4)
    assert worse.dominated == {1: 0}, "behind in 20 worlds, ahead in none: clearly worse"
    # A cycle (each move ahead of the next in most worlds) still keeps the move with the best mean.
    place = lambda ranks: [(0.0, -r) for r in ranks for _ in range(20)]  # three groups of 20 worlds
    cycle = Screen([place([1, 2, 3]), place([2, 3, 1]), place([3, 1, 2])], 4)
    assert cycle.beats(0, 1, 0.05) and cycle.beats(1, 2, 0.05) and cycle.beats(2, 0, 0.05)
    assert cycle.kept() == [0]
    assert tail(10, 0) == pytest.approx(1 / 1024) and tail(0, 0) == 1.0


def tamalo_snap_windows(seeds, having="wrong"):
    """Snap windows of random Tamalo games (after the tenth move) where the seat deciding knows one
    of its cards is of another rank than the discard pile's top ("wrong"), or of the same rank
    ("right"): each option's kind."""
    game = rulesdsl.load(TAMALO)
    discard = game.zone_index("discard")
    rank = lambda c: game.card_text[c][:-1]
    for seed in seeds:
        s = game.new_game(seed, log=False)
        rng = random.Random(seed)
        while not s.is_over:
            if "pass" in s.move_texts() and s.moves > 10:
                me, dec, top = s.chooser, game.decisions[s.pending], rank(s.zones[discard][-1])
                cards = [game.option_card(dec, v) for v in s.options]
                kinds = ["pass" if c is None else "unknown" if not s.known[c] >> me & 1
                         else "right" if rank(c) == top else "wrong" for c in cards]
                if having in kinds:
                    yield s, kinds
                    break
            s.apply_index(rng.randrange(s.num_moves()))


def test_M8_screen_prunes_snaps_of_cards_the_seat_knows_are_wrong():
    """Tamalo M8: a wrong snap costs a penalty card in every world. The screen prunes some of them
    (its power is limited by the noise of random playouts: see docs/bots.md), and never a pass or
    a snap of a card the seat knows is right."""
    found = {}
    for k, (s, kinds) in enumerate(tamalo_snap_windows(range(12))):
        result = screen(s, random.Random(k))
        assert result is not None and result.kept()
        for i, kind in enumerate(kinds):
            found.setdefault(kind, []).append(i in result.dominated)
    assert sum(found["wrong"]) >= 3, found
    assert not any(found["pass"]) and not any(found.get("right", []))


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.name)
def test_end_now_ends_a_copy_by_the_games_own_end_and_leaves_the_state(path):
    """`State.end_now`, the standing the screen reads: on every game, a copy ended mid-game is over
    with its winners and ranking worked out by the rules' own end (no file here asks a `choose` in
    its end hooks, so none says it cannot be), and the state it was copied from is untouched."""
    game = rulesdsl.load(path)
    s = midgame(game, 3, 20)
    before = fingerprint(s)
    d = s.clone(log=False)
    assert d.end_now()
    assert d.over and set(d.winners) <= set(range(game.players))
    assert not d.ranking or (len(d.ranking) == game.players and all(1 <= r <= game.players for r in d.ranking))
    assert fingerprint(s) == before


def test_the_standing_prunes_a_move_behind_in_every_world_unless_the_playouts_say_otherwise():
    """Rows are moves, columns the shared worlds. Playouts level (noise both ways), the standing
    right after the move ahead for move 0 in every world: move 1 is pruned. The same standing with
    move 1 clearly ahead on the playouts: kept (the standing is a guide, not the game's end)."""
    win, last = (1.0, -1), (0.0, -4)
    noise = [win, last] * 12
    ahead, behind = [(0.0, -2)] * 24, [(0.0, -3)] * 24
    level = Screen([noise, noise[1:] + noise[:1]], 4, standings=[ahead, behind])
    assert level.dominated == {1: 0}
    assert Screen([noise, noise[1:] + noise[:1]], 4).dominated == {}, "without the standing: noise"
    better = Screen([[last] * 24, [win] * 6 + [last] * 18], 4, standings=[ahead, behind])
    assert 1 not in better.dominated


def test_M7_the_standing_prunes_a_pass_where_the_seat_knows_its_card_matches():
    """Tamalo M7: a snap of a card the seat knows matches leaves it a card lighter in every world.
    Random playouts hide that (the pass is as often ahead as behind); the standing right after the
    move shows it, and prunes the pass in most such windows, never the right snap."""
    pruned = {}
    for k, (s, kinds) in enumerate(tamalo_snap_windows(range(40), "right")):
        result = screen(s, random.Random(k), standing=True)
        plain = screen(s, random.Random(k))
        for i, kind in enumerate(kinds):
            pruned.setdefault(kind, []).append((i in result.dominated, i in plain.dominated))
        if len(pruned["pass"]) == 8:
            break
    assert len(pruned["pass"]) == 8
    assert sum(with_ for with_, _ in pruned["pass"]) >= 6 > sum(without for _, without in pruned["pass"]), pruned
    assert not any(with_ for with_, _ in pruned["right"])


def test_the_standing_depends_only_on_what_the_seat_knows():
    """The standing is read in sampled worlds, never in the real deal: in Tamalo snap windows, a
    twin state that differs only in cards the seat does not know gets the same standings, the
    same prunes and the same move."""
    differed = 0
    for k, (s, _) in enumerate(tamalo_snap_windows(range(40), "right")):
        twin = s.determinize(s.chooser, random.Random(70 + k))
        differed += twin.zones != s.zones
        first, again = (screen(x, random.Random(k), worlds=16, standing=True) for x in (s, twin))
        assert (first.standings, first.dominated) == (again.standings, again.dominated)
        bots = [make_bot("ismcts2:40", 9) for _ in range(2)]
        assert bots[0].choose(s) == bots[1].choose(twin) and bots[0].last_pruned == bots[1].last_pruned
        if k == 3:
            break
    assert differed


def test_the_standing_judges_only_an_optional_decision():
    """ismcts2 reads the standing only for a `may choose` (an opportunity to take or pass, such as
    a snap); a turn's choice of action (Crazy Eights) or a sealed bid (Goofspiel) is left to the
    playouts, where what a move leaves for later counts (docs/bots.md). So there the bot chooses
    as it would without the standing, and in a snap window it prunes more."""
    for name, moves in [("crazy_eights.rules", 12), ("goofspiel.rules", 4)]:
        game = rulesdsl.load(str(GAMES / name))
        s = midgame(game, 5, moves)
        assert not game.decisions[s.pending].optional
        bots = [ISMCTSBot(3, iterations=40, screen_worlds=16, standing=on) for on in (True, False)]
        assert bots[0].choose(s) == bots[1].choose(s) and bots[0].last_pruned == bots[1].last_pruned
    more = 0
    for k, (s, _) in enumerate(tamalo_snap_windows(range(40), "right")):
        bots = [ISMCTSBot(k, iterations=40, screen_worlds=24, standing=on) for on in (True, False)]
        for bot in bots:
            bot.choose(s)
        more += len(bots[0].last_pruned) > len(bots[1].last_pruned)
        if k == 5:
            break
    assert more >= 3


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.name)
def test_screen_keeps_a_move_and_depends_only_on_the_seats_view(path):
    """On every game: a screen never prunes every move (the best mean is kept), and a twin state
    that differs only in cards the seat does not know is screened the same."""
    game = rulesdsl.load(path)
    s = midgame(game, 3, 20)
    if s.is_over:
        pytest.skip("the game ended early")
    twin = s.determinize(s.chooser, random.Random(50))
    first = screen(s, random.Random(1), worlds=8, playout_limit=40)
    if first is None:
        assert len(s.options) * 8 > 480
        return
    kept = first.kept()
    assert kept and max(range(len(first.means)), key=first.means.__getitem__) in kept
    assert all(b in kept or b in first.dominated for b in first.dominated.values())
    again = screen(twin, random.Random(1), worlds=8, playout_limit=40)
    assert again is not None and (again.outcomes, again.dominated) == (first.outcomes, first.dominated)


def test_a_screen_past_its_deadline_before_8_worlds_is_no_screen():
    s = midgame(rulesdsl.load(TAMALO), 4, 30)
    assert screen(s, random.Random(0), deadline=time.perf_counter()) is None
    bot = make_bot("ismcts2:1e-9s", 0)
    assert 0 <= bot.choose(s) < s.num_moves() and bot.last_pruned == []


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
    ("ismcts2:0s", "ismcts2:0.5s"),
    ("ismcts2:none", "at least 1"),
])
def test_bad_bot_names_say_what_is_wrong(spec, message):
    with pytest.raises(BotSpecError, match=message):
        make_bot(spec, 0)


def test_bot_names_that_work():
    assert make_bot("ismcts:50").iterations == 50
    timed = make_bot("ismcts:0.25s")
    assert (timed.seconds, timed.iterations) == (0.25, None)
    assert (make_bot("ismcts").iterations, make_bot("ismcts").seconds) == (200, 0.9)
    strong = make_bot("ismcts2")
    assert (strong.name, strong.iterations, strong.seconds, strong.screen_worlds) == ("ismcts2", 200, 0.9, 48)
    assert strong.rank_weight > 0 and make_bot("ismcts").screen_worlds == 0
    assert (make_bot("ismcts2:100").iterations, make_bot("ismcts2:100").screen_worlds) == (100, 25)
    assert make_bot("ismcts2:8").screen_worlds == 8 and make_bot("ismcts2:400").screen_worlds == 48
    assert make_bot("ismcts2:0.5s").seconds == 0.5 and make_bot("ismcts2:0.5s").screen_worlds == 48
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


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_play_at_a_terminal_meets_the_strongest_bot_and_piped_moves_random_ones():
    from rulesdsl.cli import PLAY_BOT, main

    assert PLAY_BOT == "ismcts2"
    out = io.StringIO()
    code = main(["play", TAMALO, "--players", "2", "--seed", "3"], stdin=Terminal("quit\n"), stdout=out,
                stderr=io.StringIO())
    assert code == 0 and "the others are ismcts2 bots" in out.getvalue()
    code, piped, _ = run("play", TAMALO, "--players", "2", "--seed", "3", stdin="quit\n")
    assert code == 0 and "the others are random bots" in piped


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


def test_a_screen_scores_each_end_as_the_search_does():
    """A playout cut at its move limit is a draw (1/n) for the screen's rewards as for the
    search's (`worlds.rewards`), whatever the weight of the ranking."""
    s = midgame(rulesdsl.load(TAMALO), 4, 30)
    cut = screen(s, random.Random(0), worlds=8, playout_limit=1, rank_weight=0.3)
    assert cut is not None
    assert all(cut.reward(i) == pytest.approx(8 / 4) for i in range(len(cut.outcomes)))
    whole = screen(s, random.Random(0), worlds=8, rank_weight=0.3)
    copied = screen(search_copy(s), random.Random(0), worlds=8, rank_weight=0.3, copy=False)
    assert (whole.outcomes, whole.scores) == (copied.outcomes, copied.scores), "one copy less, the same screen"
    for i, row in enumerate(whole.outcomes):
        for (share, rank), score in zip(row, whole.scores[i], strict=True):
            assert score == pytest.approx(0.7 * share + 0.3 * (4 + rank) / 3)


def test_the_early_stop_plays_the_move_the_whole_budget_would():
    """Stopping once the most visited move cannot be caught in the iterations left changes nothing
    but the time: the same move as the full budget, for the same seed, in fewer iterations."""
    saved = 0
    for name in ("tamalo.rules", "crazy_eights.rules", "goofspiel.rules"):
        game = rulesdsl.load(GAMES / name)
        for seed in range(3):
            s = midgame(game, seed, 12 + 5 * seed)
            if s.is_over:
                continue
            full, early = ISMCTSBot(seed, iterations=120), ISMCTSBot(seed, iterations=120, early_stop=True)
            assert early.choose(s) == full.choose(s)
            saved += full.last_iterations - early.last_iterations
    assert saved > 0


def go_fish_endgame() -> rulesdsl.State:
    """Late in a two-player Go Fish game, where many sampled worlds cannot end: a sampled hand may
    hold four of a rank, which the rules never leave in a hand (docs/bots.md)."""
    game = rulesdsl.load(GAMES / "go_fish.rules", players=2)
    s = game.new_game(0, log=False)
    rng = random.Random(1)
    while not (s.num_moves() > 1 and s.moves > 26):
        s.apply_index(rng.randrange(s.num_moves()))
    return s


def test_G8_worlds_the_rules_cannot_end_are_rejected_not_counted_as_draws():
    s = go_fish_endgame()
    bot = ISMCTSBot(3, iterations=60, reject_impossible=True)
    root_visits = []
    original = bot._iterate

    def spy(d, node, path, game):
        root_visits.append(node)
        return original(d, node, path, game)

    bot._iterate = spy
    i = bot.choose(s)
    assert 0 <= i < s.num_moves() and bot.last_rejected > 0
    root = root_visits[0]
    assert sum(c.visits for c in root.children.values()) == 60 - bot.last_rejected
    assert all(c.visits > 0 for c in root.children.values()), "a rejected world leaves no unvisited node"
    plain = ISMCTSBot(3, iterations=60)
    plain.choose(s)
    assert plain.last_rejected == 0


def test_G3_worlds_keep_the_games_invariants_when_asked():
    """A world that breaks an invariant of the game's file (Go Fish: no hand holds four of a rank)
    is not one the seat could be in: `sample_world` samples again, up to WORLD_TRIES times, and the
    searches of `ismcts2` then waste no playout on one that stalls. Plain sampling meets them."""
    s = go_fish_endgame()
    (_, test, _, _), = s.game.invariants
    broken = sum(not test(sample_world(s, s.chooser, random.Random(i))) for i in range(60))
    kept = sum(not test(sample_world(s, s.chooser, random.Random(i), keep_invariants=True)) for i in range(60))
    assert broken > 5 and kept == 0
    bot = ISMCTSBot(3, iterations=60, reject_impossible=True, keep_invariants=True)
    bot.choose(s)
    assert bot.last_rejected == 0 and make_bot("ismcts2").keep_invariants and not make_bot("ismcts").keep_invariants


def test_a_tree_walk_through_endless_forced_moves_stops_at_the_playout_limit():
    """Forced moves are played without a node, and each is a decision, so no step budget stops a
    world that offers them forever (a four-player Go Fish world whose seats all pass hung a game
    of the arena): the walk is cut at the playout limit and scored as a playout cut short."""
    game = rulesdsl.load(ROOT / "tests" / "data" / "endless_forced_moves.rules")
    s = game.new_game(1)
    for bot in (ISMCTSBot(1, iterations=3, playout_limit=500), make_bot("ismcts2:8", 1)):
        assert 0 <= bot.choose(s) < s.num_moves() == 2


def test_mast_playouts_learn_move_averages_and_keep_to_the_seats_view():
    """Playouts by move averages (mast.py): the table fills from the bot's own iterations, halves at
    the next decision, and two states the seat cannot tell apart still get the same choice."""
    game = rulesdsl.load(GAMES / "crazy_eights.rules", players=4)
    s = midgame(game, 2, 9)
    bot = ISMCTSBot(4, iterations=40, mast=0.4)
    assert 0 <= bot.choose(s) < s.num_moves()
    table = bot.mast.table
    assert table and all(0 <= total <= count for total, count in table.values())
    counts = {k: v[1] for k, v in table.items()}
    bot.mast.decay()
    assert all(table[k][1] == pytest.approx(c / 2) for k, c in counts.items())
    twin = s.determinize(s.chooser, random.Random(77))
    assert ISMCTSBot(5, iterations=40, mast=0.4).choose(s) == ISMCTSBot(5, iterations=40, mast=0.4).choose(twin)
    strong = make_bot("ismcts2")
    assert strong.mast is not None and strong.early_stop and strong.reject_impossible and strong.screen_extend == 48
    assert make_bot("ismcts").mast is None and not make_bot("ismcts").reject_impossible
    assert (strong.mast.epsilon, strong.mast.others) == (0.4, 0.4)


def test_mast_others_play_at_random_while_the_deciding_seat_follows_its_averages():
    """With `others` 1, only the deciding seat's playout moves follow the table: a table that
    prefers option 0 everywhere shows in that seat's moves and not in the others'."""
    from rulesdsl.bots.mast import Mast
    game = rulesdsl.load(GAMES / "crazy_eights.rules", players=4)
    s = midgame(game, 2, 9)
    mast = Mast(0.0, 1.0)
    picks = {True: [0, 0], False: [0, 0]}
    for seed in range(20):
        d = s.clone(log=False)
        steps: list = []
        mast.table = {}
        rng = random.Random(seed)
        for _ in range(30):
            if d.over:
                break
            opts, me = d.options, d.chooser
            for o in opts:
                mast.table[(d.pending, o)] = [1.0 if o == opts[0] else 0.0, 1.0]
            mast.play(d, rng, 1, steps, me=0)
            if len(opts) > 1:
                picks[me == 0][0] += steps[-1][0][1] == opts[0]
                picks[me == 0][1] += 1
    assert picks[True][0] == picks[True][1] > 0
    assert picks[False][0] < picks[False][1]


def test_M8_a_second_look_at_an_undecided_screen_prunes_more_known_wrong_snaps():
    """Tamalo M8 again: where the first 48 worlds leave a move behind another but not
    significantly, 48 more (each look at half the level) prune most of the snaps the seat knows
    are wrong (14 of 30 on these windows, against 5 in one look), still never a pass or a right
    snap."""
    found, worlds = {}, []
    for k, (s, kinds) in enumerate(tamalo_snap_windows(range(12))):
        result = screen(s, random.Random(k), extend=48)
        worlds.append(result.worlds)
        for i, kind in enumerate(kinds):
            found.setdefault(kind, []).append(i in result.dominated)
    assert max(worlds) == 96 and min(worlds) >= 48
    assert sum(found["wrong"]) >= 10, found
    assert not any(found["pass"]) and not any(found.get("right", []))


def test_last_values_are_the_roots_visits_and_mean_rewards():
    """`last_values`: each searched move's visits (one an iteration: they add up to the budget,
    the most visited is the move played) and mean reward; in Tamalo's first turn, calling with
    two of four cards unseen wins only if the unseen two are near nothing, so it scores lowest."""
    game = rulesdsl.load(TAMALO)
    s = game.new_game(3, log=False)
    assert "call" in s.move_texts()
    bot = ISMCTSBot(0, iterations=300)
    i = bot.choose(s)
    values = bot.last_values
    assert sum(v for v, _ in values.values()) == bot.last_iterations == 300
    assert max(values, key=lambda t: values[t][0]) == s.move_texts()[i]
    assert all(0.0 <= m <= 1.0 for _, m in values.values())
    assert values["call"][1] < min(m for t, (_, m) in values.items() if t != "call")
