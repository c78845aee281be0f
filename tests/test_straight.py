"""Straight playouts (rulesdsl/compile/straight.py): the same games as the machine, and its failures."""

from __future__ import annotations

import contextlib
import functools
import random
from pathlib import Path

import pytest

import rulesdsl
from rulesdsl.compile.straight import straight_playout
from rulesdsl.engine.machine import random_draw
from rulesdsl.engine.state import State

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(str(p.relative_to(ROOT)) for p in [*ROOT.glob("games/*.rules"), *ROOT.glob("games/variants/*.rules"),
                                                  *ROOT.glob("games/examples/*.rules")] if ".test." not in p.name)
ENDLESS = ["tests/data/nested_ends.rules", "tests/data/tails.rules", "tests/data/draws_forever.rules",
           "tests/data/loses_a_card.rules"]
# What a state is, but for where the machine keeps its frames and the decision it waits for (a
# straight run keeps neither while it runs) and the playout's own fields.
DATA = [n for n in State.__slots__ if n not in ("game", "pick", "stop", "budget", "log", "_texts", "stack",
                                                "pending", "options", "chooser")]
WHOLE = [*DATA, "stack", "pending", "options", "chooser"]


class Stop(Exception):
    """The pick's own way to stop a game that need not end."""


def picker(seed: int, stop: int | None = None, chooser_of: State | None = None):
    """A random pick that records what it was asked (and who decides), raising Stop at call `stop`."""
    rng, calls = random.Random(seed), []

    def pick(n: int) -> int:
        if stop is not None and len(calls) >= stop:
            raise Stop
        calls.append((n, chooser_of.chooser if chooser_of is not None else None))
        return rng.randrange(n)

    return pick, calls


def both(path: str, players: int | None = None):
    """The game twice: as it loads, and held to the machine."""
    fast = rulesdsl.load(ROOT / path, players=players)
    slow = rulesdsl.load(ROOT / path, players=players)
    slow.straight = False
    return fast, slow


@functools.cache
def shared(path: str, players: int | None = None):
    """`both`, loaded once per setting for the tests that only play them (a game is immutable;
    its straight code, written once on a fresh load as `both` would write it, is kept with it)."""
    return both(path, players)


@functools.cache
def player_counts(path: str) -> list[int]:
    g = rulesdsl.load(ROOT / path)
    return sorted({g.min_players, g.max_players})


@pytest.fixture
def unguarded(monkeypatch):
    # The straight run alone, without the machine to take over when it stops: what is compared
    # is the straight code's own doing, not the machine's replay of it.
    monkeypatch.setattr(State, "_straight", lambda self, run: self._straight_alone(run, []))


@pytest.mark.parametrize("path", GAMES + ENDLESS)
def test_every_game_of_the_repository_plays_straight(path):
    assert straight_playout(shared(path)[0]) is not None


def same_games(path: str, players: int, seeds: range, prepare=None) -> None:
    """Each seed's game played straight and on the machine: the same questions, of the same seats
    (each one's number of options, and who answers), and the same states at the end. `prepare`
    (state, seed) changes both new states alike first."""
    fast, slow = shared(path, players)
    for seed in seeds:
        a, b = fast.new_game(seed, log=False), slow.new_game(seed, log=False)
        if prepare is not None:
            prepare(a, seed)
            prepare(b, seed)
        pa, calls_a = picker(seed, chooser_of=a)
        pb, calls_b = picker(seed, chooser_of=b)
        a.playout(pa, forced=seed % 2 == 0)
        b.playout(pb, forced=seed % 2 == 0)
        assert a.is_over and b.is_over
        assert calls_a == calls_b
        assert [getattr(a, n) for n in WHOLE] == [getattr(b, n) for n in WHOLE], (path, players, seed)


@pytest.mark.parametrize("path", GAMES)
def test_a_straight_run_ends_where_the_machine_ends(path, unguarded):
    for players in player_counts(path):
        same_games(path, players, range(8))


@pytest.mark.parametrize("path", GAMES + ["tests/data/counted.rules"])
def test_a_generators_randrange_drawn_by_the_run_itself_plays_the_machines_game(path, unguarded):
    # A pick that is a random.Random's randrange: the straight run draws its numbers itself
    # (State.draw), forced or not; the machine asks randrange. The same games, and the generators
    # left in the same state.
    fast, slow = shared(path)
    for seed in range(6):
        a, b = fast.new_game(seed, log=False), slow.new_game(seed, log=False)
        ra, rb = random.Random(seed), random.Random(seed)
        a.playout(ra.randrange, forced=seed % 2 == 0)
        b.playout(rb.randrange, forced=seed % 2 == 0)
        assert [getattr(a, n) for n in WHOLE] == [getattr(b, n) for n in WHOLE], (path, seed)
        assert ra.getstate() == rb.getstate()
        assert a.draw is None and a.free == 0  # (only while the run lasts)


@pytest.mark.parametrize("players", [2, 3])
def test_values_read_through_a_list_of_players_play_the_machines_games(players, unguarded):
    # `players.pick` of a card variable is each player's card, not the cards of a zone: the run
    # writes it as the machine does (it failed, "'int' object is not iterable").
    same_games("tests/data/players_values.rules", players, range(12))


@pytest.mark.parametrize("players", [2, 3])
def test_a_games_end_tested_only_when_its_counters_change_ends_where_the_machine_ends(players, unguarded):
    # Tally's end reads counters alone, so a straight run tests it after a turn only if they
    # changed; it comes in the middle of a round. (The pick stops a run that would miss it.)
    fast, slow = both("tests/data/tally.rules", players)
    for seed in range(10):
        a, b = fast.new_game(seed, log=False), slow.new_game(seed, log=False)
        for st in (a, b):
            with contextlib.suppress(Stop):
                st.playout(picker(seed, stop=400)[0])
        assert b.is_over and a.is_over, seed
        assert [getattr(a, n) for n in WHOLE] == [getattr(b, n) for n in WHOLE], seed


def test_a_playout_without_a_limit_runs_a_copy_without_the_limits_test():
    from rulesdsl.compile.straight import StraightWriter

    g = rulesdsl.load(ROOT / "games" / "tempurra.rules")
    source = StraightWriter(g.make_straight()).write()
    free = StraightWriter(g.make_straight(), limited=False).write()
    assert "len(rec) ==" in source and "len(rec) ==" not in free
    assert straight_playout(g, unlimited=True) is not straight_playout(g)


def test_only_a_random_generators_own_randrange_is_drawn_in_place():
    rng = random.Random(1)

    class Other(random.Random):
        def getrandbits(self, k: int) -> int:
            return 0

    assert random_draw(rng.randrange) == rng.getrandbits
    for pick in (rng.randint, lambda n: rng.randrange(n), Other(1).randrange, len, 3):
        assert random_draw(pick) is None


@pytest.mark.parametrize("path", ENDLESS)
def test_a_straight_run_of_a_game_that_need_not_end_keeps_step_with_the_machine(path, unguarded):
    # These games end turns and rounds in nested procedures, decide in tails, draw for ever: the
    # pick stops them after a while, and up to there both ways have done the same.
    fast, slow = shared(path, player_counts(path)[0])
    for seed in range(6):
        a, b = fast.new_game(seed, log=False), slow.new_game(seed, log=False)
        pa, calls_a = picker(seed, stop=120, chooser_of=a)
        pb, calls_b = picker(seed, stop=120, chooser_of=b)
        for st, pick in ((a, pa), (b, pb)):
            with contextlib.suppress(Stop):
                st.playout(pick)
        assert calls_a == calls_b
        assert [getattr(a, n) for n in DATA] == [getattr(b, n) for n in DATA], (path, seed)


@pytest.mark.parametrize("path", ["games/tempurra.rules", "games/tamalo.rules", "tests/data/nested_ends.rules",
                                  "tests/data/counted.rules"])
@pytest.mark.parametrize("fault", ["raises", "bad index", "the pick's own error"])
def test_a_playout_that_stops_in_a_straight_run_stops_as_the_machine_does(path, fault):
    # The straight run stops; the state goes back and the machine plays the game again with the
    # picks already given, to the very decision where it stopped: the same error, the same state
    # waiting there, and from there the same game.
    fast, slow = shared(path, player_counts(path)[0] if "data" in path else None)
    stopped = 0
    for seed in range(4):
        ends = []
        for game in (fast, slow):
            st = game.new_game(seed, log=False)
            rng, calls = random.Random(seed), []
            at = 2 + seed % 2 if "data" in path else 25 + seed  # (the games of tests/data are short)

            def pick(n: int, rng=rng, calls=calls, at=at) -> int:
                calls.append(n)
                if len(calls) == at:
                    if fault == "raises":
                        raise Stop
                    if fault == "bad index":
                        return n
                    raise KeyError("the pick's own error")
                return rng.randrange(n)

            try:
                st.playout(pick)
                error = None  # (a short game may end first)
            except (Stop, KeyError, rulesdsl.IllegalMove) as e:
                error = (type(e), str(e))
                assert st.num_moves() >= 1 and st.pick is None
            ends.append((error, calls[:], [getattr(st, n) for n in WHOLE]))
            st.playout(random.Random(seed + 1).randrange, 300 if "data" in path else None)
            ends.append([getattr(st, n) for n in WHOLE])
        assert ends[0] == ends[2] and ends[1] == ends[3]
        stopped += ends[0][0] is not None
    assert stopped >= 3


def test_rules_that_loop_without_deciding_fail_in_a_playout_as_on_the_machine():
    # The game of the loops' test below, with one more action (the last option) that never ends.
    spin = "action spin when turn > 3 {\n    while steps >= 0 {\n        steps += 1\n    }\n}\n"
    looping = LOOPS.replace("game ends when", spin + "game ends when")
    line = looping.splitlines().index("    while steps >= 0 {") + 1
    ends = []
    for straight in (True, False):
        game = rulesdsl.load_text(looping, path="looping.rules")
        if not straight:
            game.straight = False
        st = game.new_game(1, log=False)
        with pytest.raises(rulesdsl.RulesRuntimeError) as e:
            st.playout(lambda n: n - 1)
        ends.append((str(e.value), [getattr(st, n) for n in DATA]))
        assert "without asking anyone to decide" in str(e.value) and f"looping.rules:{line}" in str(e.value)
    assert ends[0] == ends[1]


def test_a_playout_with_a_near_limit_or_a_log_runs_on_the_machine(monkeypatch):
    # A straight run keeps no log, and a limit it meets costs a replay: those playouts are the
    # machine's from the start.
    game = rulesdsl.load(ROOT / "games/tempurra.rules")
    monkeypatch.setattr(State, "_straight", lambda self, run: pytest.fail("a straight run"))
    game.new_game(1, log=False).playout(random.Random(1).randrange, 50)
    game.new_game(1).playout(random.Random(1).randrange)


@pytest.mark.parametrize("path", ["games/tempurra.rules", "tests/data/nested_ends.rules", "tests/data/tails.rules",
                                  "tests/data/draws_forever.rules"])
def test_a_playout_to_a_far_limit_runs_straight_and_stops_at_it(path, monkeypatch):
    # simulate's cap and the search bots' horizon are far limits: the rules run straight, and a
    # straight run that meets the limit is played again by the machine, which stops right there.
    fast, slow = both(path, player_counts(path)[0])
    runs = []
    real = State._straight
    monkeypatch.setattr(State, "_straight", lambda self, run: runs.append(1) or real(self, run))
    for seed in range(4):
        a, b = fast.new_game(seed, log=False), slow.new_game(seed, log=False)
        played = [st.playout(random.Random(seed).randrange, 230) for st in (a, b)]
        assert played[0] == played[1] and (a.is_over or played[0] == 230)
        assert [getattr(a, n) for n in WHOLE] == [getattr(b, n) for n in WHOLE]
        if not a.is_over:  # it waits at the limit, and goes on from there as the machine does
            for st in (a, b):
                st.playout(random.Random(seed + 9).randrange, 230)
            assert [getattr(a, n) for n in WHOLE] == [getattr(b, n) for n in WHOLE]
    assert runs


def test_rules_the_straight_writer_cannot_write_play_on_the_machine(monkeypatch):
    from rulesdsl.compile import straight

    def cannot(self, s, ind):
        raise straight.NoStraight("a statement of tomorrow")

    monkeypatch.setattr(straight.StraightWriter, "stmt", cannot)
    fast, slow = both("games/tamalo.rules")
    assert straight_playout(fast) is None and fast.straight is False
    a, b = fast.new_game(4, log=False), slow.new_game(4, log=False)
    a.playout(random.Random(4).randrange)
    b.playout(random.Random(4).randrange)
    assert [getattr(a, n) for n in WHOLE] == [getattr(b, n) for n in WHOLE]


LOOPS = '''game "Loops"
players 2..3
card token(n) shown "t{n}"
cards in pile { 5 token(1), 5 token(2), 5 token(3) }
zone pile: stack, hidden, refill from table
zone table: stack, public
zone hand per player: hand, private
counter score per player = 0
var steps = 0
procedure tally(n: int) {
    let k = n
    repeat 3 times {
        k += 1
        if k % 4 == 0 { break }
    }
    steps += k
    if steps % 9 == 0 { return }
    steps += 1
}
setup { shuffle pile  deal 2 from pile to each hand }
action play {
    choose card in me.hand
    move card to table
    repeat card.n times { tally(card.n) }
    for each p in others {
        if p.score > me.score { break }
        p.score += 1
    }
    say "{me} plays {card}"
}
action draw when any(pile) {
    draw 1 from pile to me.hand
    let left = 2
    while left > 0 {
        may choose c in me.hand where c.n == 3 as "show" else "keep"
        if c == none { break }
        move c to table
        left -= 1
    }
}
game ends when steps > 80 or turn > 60
rank by highest it.score
'''


def test_loops_and_returns_run_straight_as_on_the_machine(unguarded):
    # `repeat` with a `break`, `for each` with a `break`, a `while` that asks, an early `return`,
    # a `say` and a `let` in the turn's own code (the seed games repeat only in `setup`).
    fast = rulesdsl.load_text(LOOPS, path="loops.rules")
    slow = rulesdsl.load_text(LOOPS, path="loops.rules")
    slow.straight = False
    assert straight_playout(fast) is not None
    for seed in range(20):
        a, b = fast.new_game(seed, log=False), slow.new_game(seed, log=False)
        pa, calls_a = picker(seed, chooser_of=a)
        pb, calls_b = picker(seed, chooser_of=b)
        a.playout(pa)
        b.playout(pb)
        assert a.is_over and calls_a == calls_b
        assert [getattr(a, n) for n in WHOLE] == [getattr(b, n) for n in WHOLE], seed


SETS = '''game "Sets"
players 2..3
card token(n) shown "t{n}"
cards in pile { 6 token(1), 6 token(2), 6 token(3) }
zone pile: stack, hidden
zone table: stack, public
zone hand per player: hand, private
counter score per player = 0
setup {
    shuffle pile
    deal 3 from pile to each hand
}
action play {
    draw 1 from pile to me.hand
    may choose set s in me.hand size 1..2
    move s to table
    me.score += count(s)
}
action pair {
    draw 1 from pile to me.hand
    choose set s in me.hand size 2 with count(distinct(s.n)) == 1
    move s to table
}
game ends when count(pile) == 0 or turn > 40
rank by highest it.score
'''


def test_a_choose_set_after_other_statements_runs_straight_as_on_the_machine(unguarded, tmp_path):
    # Not the turn's own question: a straight run asks it in place, counting the sets that sizes
    # alone restrict (engine/sets.py count_options, nth_option) and listing the others.
    path = tmp_path / "sets.rules"
    path.write_text(SETS)
    assert straight_playout(shared(str(path))[0]) is not None
    for players in (2, 3):
        same_games(str(path), players, range(8))


# ---------------------------------------------------------------- hands counted by face (counts.py)

COUNTED = "tests/data/counted.rules"


def test_a_turn_counts_the_options_of_every_form_of_domain_it_can():
    from rulesdsl.compile.straight import StraightWriter

    g = rulesdsl.load(ROOT / COUNTED)
    source = StraightWriter(g.make_straight()).write()
    # play, show, pair, lone, big (the hand), trade (the player's cards face up), take (the pool):
    # each counted when its chooser sees the zone (else listed); draw has no leading choose.
    for a in range(7):
        assert f"    _o{a} = None" in source and f"if _o{a} is None:" in source
    assert sorted(g.zone_names[z] for z, counted in enumerate(g.zone_counted) if counted) == \
        sorted(["pool", *(f"{p}.{zone}" for zone in ("hand", "shown") for p in g.names)])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_counted_options_are_the_machines_options_and_the_same_game_follows(players, unguarded):
    # The straight run alone against the machine: the same questions, picks and states.
    same_games(COUNTED, players, range(40))


@pytest.mark.parametrize("path", [COUNTED, "games/tempurra.rules"])
def test_the_counts_are_right_at_every_decision_of_a_straight_run(path):
    # Every card that comes into or leaves a counted hand (a deal, a draw of one or of many, a
    # move, a move of all, a swap) changes its counts: at each pick they are what counting the
    # hands anew gives, and the run leaves none behind.
    for players in player_counts(path):
        g = rulesdsl.load(ROOT / path, players=players)
        assert g.count_size
        run = straight_playout(g)
        for seed in range(20):
            st = g.new_game(seed, log=False)
            rng, seen = random.Random(seed), []

            def pick(n: int, st=st, rng=rng, seen=seen, g=g) -> int:
                assert st.counts == g.count_cards(st)
                seen.append(n)
                return rng.randrange(n)

            st.pick = pick
            run(st, [])
            assert st.is_over and len(seen) > 3 and st.counts == []


def test_a_choose_over_a_hand_that_no_turn_counts_lists_its_options(unguarded, tmp_path):
    # Only a turn's domains make a hand counted: a `choose` elsewhere over a hand that no turn
    # counts lists its options (nothing to count them from), and the game is the machine's.
    path = tmp_path / "kept.rules"
    path.write_text("""game "Kept"
players 2..3
card gem(size)
cards in deck { 5 gem(1), 5 gem(2), 5 gem(3) }
zone deck: stack, hidden
zone hand per player: hand, private
zone out: stack, public
action draw {
    draw 2 from deck to me.hand
    choose card in me.hand where card.size > 1 as "drop"
    move card to out
}
action wait { }
game ends when empty(deck)
rank by highest count(it.hand)
""")
    g = rulesdsl.load(path)
    assert not g.count_size
    for players in (2, 3):
        same_games(str(path), players, range(20))


def test_a_hand_whose_owner_does_not_know_a_card_is_listed_not_counted(unguarded):
    # Not so in a game the engine played, but a loaded state may say it: the owner of a hand does
    # not know its cards. Each such card is then an option of its own, so that hand's options are
    # listed (counted, cards of a face would be one option): the same game as the machine's.
    def forget(st: State, seed: int) -> None:
        for c in st.zones[st.game.zone_index("hand", (seed + 1) % 4)]:
            st.known[c] = 0

    same_games("games/tempurra.rules", 4, range(12), forget)
