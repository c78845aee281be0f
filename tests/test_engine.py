"""The engine's promises, checked by random play over many seeds and player counts.

Card conservation, a pending decision until the end, termination, winners are seats, replay of a
seed and moves, JSON round trips and clones mid-game, and a hypothesis state machine that applies
legal moves. These hold for any game; Tempurra is the game at hand.
"""

from __future__ import annotations

import itertools
import json
import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import rulesdsl
from rulesdsl.compile.straight import straight_playout
from rulesdsl.engine.constants import GRID
from tests.conftest import GAMES, ROOT, tempurra

MAX_MOVES = 5000


def fingerprint(s: rulesdsl.State) -> tuple:
    """Everything that defines a state's future, for comparing two states."""
    return (
        [list(z) for z in s.zones], list(s.known), list(s.group), s.shuffles, list(s.counters), list(s.vars), s.rng,
        s.current, s.direction,
        s.next_player, s.continue_from, s.round, s.turn, s.moves, json.dumps(s.stack), s.pending, s.chooser,
        s.options, s.over, list(s.winners),
    )


def check_invariants(s: rulesdsl.State) -> None:
    g = s.game
    cards = [c for z in s.zones for c in z if c is not None]
    assert sorted(cards) == list(range(g.ncards)), "every card is in exactly one zone"
    for zi, z in enumerate(s.zones):
        for c in z:
            if c is not None:
                assert s.loc[c] == zi
    if s.is_over:
        assert s.current_player is None and s.num_moves() == 0
        assert s.winners and all(0 <= w < g.players for w in s.winners)
    else:
        assert s.current_player is not None and 0 <= s.current_player < g.players
        assert s.num_moves() >= 1, "a decision is pending until the game ends"
        texts = s.move_texts()
        assert len(set(texts)) == len(texts), "move texts are distinct"


def play_random(game: rulesdsl.Game, seed: int, check_every: int = 1, log: bool = False):
    s = game.new_game(seed, log=log)
    rng = random.Random(seed)
    moves = []
    while not s.is_over and s.moves < MAX_MOVES:
        if s.moves % check_every == 0:
            check_invariants(s)
        i = rng.randrange(s.num_moves())
        moves.append(i)
        s.apply_index(i)
    return s, moves


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_random_games_end_with_cards_conserved_and_winners(players):
    game = tempurra(players)
    for seed in range(6):
        s, _ = play_random(game, seed * 31 + players)
        assert s.is_over, "the game ends within the move bound"
        check_invariants(s)
        tokens = [s.counter("tokens", p) for p in range(players)]
        assert max(tokens) >= 3
        best = min(tokens)
        assert all(tokens[w] == best for w in s.winners)


def test_same_seed_and_moves_replay_to_the_same_state(tempurra4):
    s1, moves = play_random(tempurra4, 11, check_every=50)
    s2 = tempurra4.new_game(11, log=False)
    for i in moves:
        s2.apply_index(i)
    assert fingerprint(s1) == fingerprint(s2)


@pytest.mark.parametrize("size", [0, 1, 2, 7, 8, 9, 52, 95, 255, 256, 257, 300])
def test_a_shuffle_draws_as_randbelow_one_card_at_a_time(tempurra4, size):
    # shuffle_zone draws every random number at once (from 8 cards): the same permutation and
    # the same generator state as Fisher-Yates with one randbelow per card.
    s = tempurra4.new_game(3, log=False)
    ref = s.clone()
    s.zones[0][:] = list(range(size))
    s.known, s.group = [0] * max(size, len(s.known)), [0] * max(size, len(s.group))  # (more cards than the game's)
    s.shuffle_zone(0)
    cards = list(range(size))
    for i in range(size - 1, 0, -1):
        j = ref.randbelow(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    assert s.zones[0][:size] == cards
    assert s.rng == ref.rng


def test_replay_by_move_text_matches_replay_by_index(tempurra4):
    s1 = tempurra4.new_game(4)
    s2 = tempurra4.new_game(4)
    rng = random.Random(4)
    for _ in range(60):
        if s1.is_over:
            break
        moves = s1.legal_moves()
        m = moves[rng.randrange(len(moves))]
        s1.apply(m)
        s2.apply(m.text)
    assert fingerprint(s1) == fingerprint(s2)


def test_json_round_trip_mid_game_then_both_continue_identically(tempurra4):
    s = tempurra4.new_game(21)
    rng = random.Random(21)
    for step in range(200):
        if s.is_over:
            break
        if step % 17 == 0:
            text = s.to_json()
            back = tempurra4.state_from_json(text)
            assert fingerprint(back) == fingerprint(s)
            assert back.move_texts() == s.move_texts()
            assert back.view(1) == s.view(1)
            assert back.to_json() == text
            # Both copies have the same future.
            i = rng.randrange(s.num_moves())
            a, b = s.clone(), back
            for _ in range(30):
                if a.is_over:
                    break
                a.apply_index(i % a.num_moves())
                b.apply_index(i % b.num_moves())
            assert fingerprint(a) == fingerprint(b)
        s.apply_index(rng.randrange(s.num_moves()))


def test_json_of_another_game_or_setting_is_refused(tempurra4):
    text = tempurra4.new_game(1).to_json()
    other = tempurra(4, tokens_to_lose=2)
    with pytest.raises(ValueError, match="does not match"):
        other.state_from_json(text)
    with pytest.raises(ValueError):
        tempurra4.state_from_json("{not json")


def test_clone_is_independent(tempurra4):
    s = tempurra4.new_game(8)
    before = fingerprint(s)
    c = s.clone()
    while not c.is_over:
        c.apply_index(0)
    assert fingerprint(s) == before
    assert c.is_over


def test_clone_without_log_plays_the_same(tempurra4):
    s = tempurra4.new_game(9)
    c = s.clone(log=False)
    assert c.log is None
    for _ in range(40):
        if s.is_over:
            break
        s.apply_index(0)
        c.apply_index(0)
    assert fingerprint(s) == fingerprint(c)


def test_illegal_move_raises_and_changes_nothing(tempurra4):
    s = tempurra4.new_game(3)
    before = fingerprint(s)
    with pytest.raises(rulesdsl.IllegalMove, match="not a legal move"):
        s.apply("fly away")
    with pytest.raises(rulesdsl.IllegalMove):
        s.apply_index(999)
    assert fingerprint(s) == before


def test_moves_apply_by_object_text_and_case(tempurra4):
    s = tempurra4.new_game(3)
    texts = s.move_texts()
    s.clone().apply(texts[-1].upper())
    m = s.legal_moves()[-1]
    assert str(m) == texts[-1]
    s.apply(m)


def test_no_move_after_the_game_is_over(tempurra4):
    s, _ = play_random(tempurra4, 2)
    with pytest.raises(rulesdsl.IllegalMove, match="over"):
        s.apply_index(0)
    assert s.legal_moves() == []


def test_options_are_distinct_outcomes(tempurra4):
    """Two identical cards in a hand give one move, so random play does not weigh them twice."""
    s = tempurra4.new_game(5)
    s.set_cards("hand", ["4", "4", "4", "5"], player=s.chooser)
    assert sorted(s.move_texts()) == ["begin 4", "begin 5"]


SHARED_FACES = """game "faces"
players 2
card token(value, seat) shown "{value}"
cards in box { 1 token(7, 1), 1 token(7, 2), 1 token(8, 1), 1 token(8, 2), 1 token(9, 1) }
zone box: stack, hidden
zone pile: stack, public
zone hand per player: hand, private
setup {
    move box where it.seat == 1 and it.value == 7 to first(players).hand
    move box where it.seat == 2 to pile
}
action pass { say "pass" }
game ends when turn > 2
winners are players
"""


def test_set_cards_on_top_takes_the_zones_own_card_of_a_face_kinds_share():
    """Two kinds show "7" (one in alice's hand, one in the pile): stacking the pile's top takes the
    pile's own 7, as the docstring says, not the first kind's from the hand."""
    s = rulesdsl.load_text(SHARED_FACES).new_game(1)
    hand = s.zone("hand", player=0)
    s.set_cards("pile", ["7"], top=True)
    assert s.zone("hand", player=0) == hand == ["7"]
    assert s.zone("pile")[-1] == "7" and sorted(s.zone("pile")) == ["7", "8"]
    s.set_cards("pile", ["9", "7"])  # (exactly these: the 9 from the box, the pile's own 7)
    assert s.zone("pile") == ["9", "7"] and s.zone("hand", player=0) == ["7"]


HOOKS_ONLY = """game "hooks only"
players 3
card chip(value) shown "{value}"
cards in pot { 3 chip(1) }
zone pot: stack, public
counter score per player = 0
counter asked per player = 0
turn start {
    for each p in players {
        choose k in 1..3 by p as "pick"
        p.score += k
    }
}
turn end {
    me.asked += 1
}
game ends when turn == 4
rank by highest me.score
"""


def test_a_game_without_actions_plays_each_turn_as_its_hooks():
    """No turn decision: each turn goes round the seats (`me`) and asks only its hooks' questions;
    the playouts run straight from a turn's start and play the machine's games."""
    game = rulesdsl.load_text(HOOKS_ONLY)
    s = game.new_game(1)
    assert s.turn == 1 and s.chooser == 0 and s.move_texts() == ["pick 1", "pick 2", "pick 3"]
    for _ in range(12):
        s.apply("pick 2")
    assert s.is_over and s.moves == 12 and s.turn == 4
    assert [s.counter("asked", p) for p in range(3)] == [2, 1, 1] and s.counter("score", 0) == 8
    assert straight_playout(game) is not None
    slow = rulesdsl.load_text(HOOKS_ONLY)
    slow.straight = False
    for seed in range(4):
        a, b = game.new_game(seed, log=False), slow.new_game(seed, log=False)
        a.playout(random.Random(seed).randrange)
        b.playout(random.Random(seed).randrange)
        assert (a.moves, a.counters, a.winners) == (b.moves, b.counters, b.winners)
    mid = game.new_game(2)
    mid.apply("pick 3")  # (a save in the middle of a turn's hook resumes there)
    back = rulesdsl.State.from_json(game, mid.to_json())
    assert back.chooser == 1 and back.move_texts() == mid.move_texts()


def test_views_hide_what_a_seat_does_not_know(tempurra4):
    s = tempurra4.new_game(12)
    me = 0
    view = s.view(me)
    others = [p for p in range(4) if p != me]
    # Dealt cards are private: another player's hand shows as a count.
    for p in others:
        hand = s.zone("hand", p)
        assert f"{len(hand)} cards" in view
    mine = sorted(s.zone("hand", me))
    for face in set(mine):
        assert face in view
    spectator = s.view(me, reveal=True)
    assert "SPECTATOR" in spectator


def test_event_log_masks_cards_per_seat():
    game = tempurra(4)
    s = game.new_game(30)
    # Deal a known hand, then check the log hides the drawn face-down card from the others.
    for _ in range(200):
        if s.is_over:
            break
        s.apply_index(0)
    for seat in range(4):
        for line in s.events_for(seat, level=1):
            assert "{}" not in line
    log = s.log
    assert log and all(len(ev) == 5 for ev in log)


def _setup_error(tmp_path, setup: str) -> str:
    """The runtime error of a two-player game whose setup (from line 7 on) is `setup`."""
    path = tmp_path / "err.rules"
    path.write_text(
        'game "Err"\nplayers 2..2\ncard token(n)\ncards in pile { 2 token(1) }\nzone pile: stack\n'
        f"var total = 0\nsetup {{\n{setup}}}\n"
        "action wait { say \"waiting\" }\ngame ends when turn > 3\nrank by lowest it.seat\n"
    )
    game = rulesdsl.load(path)
    with pytest.raises(rulesdsl.RulesRuntimeError) as e:
        game.new_game(1)
    return str(e.value)


def test_a_loop_without_decisions_is_a_located_runtime_error(tmp_path):
    message = _setup_error(tmp_path, "    while yes {\n        shuffle pile\n    }\n")
    assert "err.rules:8" in message and "without asking anyone" in message


def test_grid_places_stay_when_a_card_leaves():
    game = rulesdsl.load_text(
        'game "Grid"\nplayers 2..2\ncard c(n)\ncards in deck { 2 c(1), 2 c(2), 2 c(3), 2 c(4) }\n'
        "zone deck: stack\nzone square per player: grid, hidden\nzone pile: stack, public\n"
        "setup { deal 2 from deck to each square }\n"
        "action toss { choose x in me.square\n move x to pile }\n"
        "game ends when count(pile) >= 3\nrank by lowest count(it.square)\n"
    )
    s = game.new_game(1)
    assert s.move_texts() == ["toss 1", "toss 2"]
    s.apply("toss 1")
    zi = game.zone_index("square", 0)
    assert game.zone_shape[zi] == GRID
    assert s.zones[zi][0] is None and s.zones[zi][1] is not None
    s.apply_index(0)
    assert s.move_texts() == ["toss 2"], "the empty place is not an option, and place numbers do not shift"


def random_midgame(game: rulesdsl.Game, seed: int) -> rulesdsl.State:
    s = game.new_game(seed)
    rng = random.Random(seed)
    for _ in range(rng.randrange(120)):
        if s.is_over:
            break
        s.apply_index(rng.randrange(s.num_moves()))
    return s


@pytest.mark.parametrize("name", ["tempurra.rules", "tamalo.rules"])
@given(seed=st.integers(0, 10_000), resample=st.integers(0, 10_000))
def test_a_seat_cannot_tell_apart_states_that_differ_in_cards_it_does_not_know(name, seed, resample):
    """Resample every card seat p does not know: p's view and p's legal moves stay the same."""
    game = rulesdsl.load(GAMES / name) if name != "tempurra.rules" else tempurra(4)
    s = random_midgame(game, seed)
    for p in range(game.players):
        other = s.determinize(p, random.Random(resample))
        assert other.view(p) == s.view(p)
        if s.current_player == p:
            assert other.move_texts() == s.move_texts()
        check_invariants(other)
        for c in range(game.ncards):
            if s.known[c] >> p & 1:
                assert other.loc[c] == s.loc[c] and other.known[c] == s.known[c]


@pytest.mark.parametrize("name", ["tempurra.rules", "tamalo.rules"])
def test_determinized_states_play_on_to_the_end(name):
    game = rulesdsl.load(GAMES / name)
    for seed in range(4):
        s = random_midgame(game, seed)
        if s.is_over:
            continue
        d = s.determinize(s.chooser, random.Random(seed))
        rng = random.Random(seed)
        while not d.is_over and d.moves < MAX_MOVES:
            d.apply_index(rng.randrange(d.num_moves()))
            check_invariants(d) if d.moves % 25 == 0 else None
        assert d.is_over


def test_determinize_moves_hidden_cards():
    game = rulesdsl.load(GAMES / "tamalo.rules")
    s = game.new_game(2)
    changed = 0
    for k in range(10):
        d = s.determinize(0, random.Random(k))
        changed += d.zones != s.zones
    assert changed >= 9


class TempurraMachine(RuleBasedStateMachine):
    """Hypothesis drives games: any sequence of legal moves keeps the engine's invariants."""

    @initialize(seed=st.integers(0, 10_000), players=st.integers(3, 7))
    def start(self, seed, players):
        self.game = tempurra(players)
        self.state = self.game.new_game(seed, log=False)

    @precondition(lambda self: not self.state.is_over)
    @rule(data=st.data())
    def play(self, data):
        i = data.draw(st.integers(0, self.state.num_moves() - 1))
        self.state.apply_index(i)

    @precondition(lambda self: not self.state.is_over)
    @rule(text=st.text(max_size=8))
    def illegal_text_changes_nothing(self, text):
        if " ".join(text.lower().split()) in [t.lower() for t in self.state.move_texts()]:
            return
        before = fingerprint(self.state)
        with pytest.raises(rulesdsl.IllegalMove):
            self.state.apply(text)
        assert fingerprint(self.state) == before

    @rule()
    def json_round_trip(self):
        back = self.game.state_from_json(self.state.to_json())
        assert fingerprint(back) == fingerprint(self.state)

    @invariant()
    def invariants(self):
        if hasattr(self, "state"):
            check_invariants(self.state)


TempurraMachine.TestCase.settings = TempurraMachine.TestCase.settings  # profile from conftest
test_tempurra_state_machine = TempurraMachine.TestCase


@given(seed=st.integers(0, 2**32), players=st.integers(3, 7))
def test_any_seed_reaches_a_first_decision(seed, players):
    s = tempurra(players).new_game(seed, log=False)
    check_invariants(s)


def test_every_game_file_loads():
    for path in sorted(GAMES.rglob("*.rules")):
        if "prelude" not in path.parts:
            rulesdsl.load(path)


def test_a_prelude_alone_is_not_a_game():
    with pytest.raises(rulesdsl.RulesError, match="declares no game"):
        rulesdsl.load(GAMES / "prelude" / "standard52.rules")


def test_a_runtime_error_inside_a_generated_block_names_its_own_line(tmp_path):
    # Straight stretches of statements run as one generated function; an error still points at
    # the statement that failed, not at the start of the stretch.
    message = _setup_error(tmp_path, "    shuffle pile\n    total = 1\n    if total == 1 {\n"
                                     "        total = total / (total - 1)\n    }\n")
    assert "err.rules:11" in message and "division by zero" in message


def test_a_runtime_error_in_the_other_way_of_an_if_names_its_line(tmp_path):
    # The target of an early return (an `else`) is written in place under its `if`; an error there
    # still points at its own statement.
    message = _setup_error(tmp_path, "    total = 1\n    if total == 0 {\n        total = 2\n    } else {\n"
                                     "        total = total / (total - 1)\n    }\n")
    assert "err.rules:12" in message and "division by zero" in message


def json_but_log(s) -> str:
    """The state's JSON without its log. Tests that compare two games at every move compare the
    logs as they are (and in full, as JSON, at the end): a log grows with the game, and writing it
    at every move made them quadratic."""
    log, s.log = s.log, None
    try:
        return s.to_json()
    finally:
        s.log = log


def _plain(path, players):
    from rulesdsl.checker import check
    from rulesdsl.compile import compile_program

    return compile_program(check(rulesdsl.parse_files(path), players, {}), shortcuts=False)


@pytest.mark.parametrize("path", sorted(p.name for p in (ROOT / "games").glob("*.rules") if ".test." not in p.name))
def test_generated_source_plays_as_the_plain_forms_do(path):
    # The fast forms (the turn's options as loops, counts looked up in a table built before a
    # loop, leaves and tails) must give the very states the plain forms give (shortcuts=False),
    # seed for seed. (Only the locals differ: a frame's locals are left as they are.)
    def data(s):
        d = json.loads(json_but_log(s))
        d["stack"] = [f[:2] for f in d["stack"]]
        d["log"] = s.log
        return d

    bounds = rulesdsl.load(ROOT / "games" / path)      # four players, or the nearest count the game allows
    n = min(max(4, bounds.min_players), bounds.max_players)
    fast = rulesdsl.load(ROOT / "games" / path, players=n)
    slow = _plain(ROOT / "games" / path, n)
    assert fast.turn_options_fn is not None  # the generated one, not the fallback loop
    for seed in range(3):
        a, b = fast.new_game(seed), slow.new_game(seed)
        rng = random.Random(seed)
        while not a.is_over and a.moves < 400:
            assert data(a) == data(b) and a.move_texts() == b.move_texts()
            i = rng.randrange(a.num_moves())
            a.apply_index(i)
            b.apply_index(i)
        assert data(a) == data(b)
        assert json.loads(a.to_json())["log"] == json.loads(b.to_json())["log"]


@pytest.mark.parametrize("players", [2, 3])
def test_a_card_found_by_its_face_is_the_card_its_terms_find(players):
    # `first(hand where [it is K and] it.rank == r)` without a log tests each card against the set
    # of cards whose rank is r, found once (DomainWriter.card_test); with a log, the statement's
    # closure tests each term of each card. Ranks that two kinds share, that two faces of a kind
    # share, of one face, of none: the same games follow, on the machine and in straight runs.
    g = rulesdsl.load(ROOT / "tests" / "data" / "faces.rules", players=players)
    for seed in range(30):
        a, b, c = g.new_game(seed, log=False), g.new_game(seed), g.new_game(seed, log=False)
        rng = random.Random(seed)
        while not a.is_over:
            i = rng.randrange(a.num_moves())
            a.apply_index(i)
            b.apply_index(i)
            assert a.zones == b.zones, (seed, a.moves)
        c.playout(random.Random(seed).randrange)
        assert c.zones == a.zones


NONE_PLAYER = (
    'game "Nobody"\nplayers 3..3\ncard c(n, s)\ncards in deck { 3 c(1, "a"), 3 c(2, "b"), 3 c(3, "a") }\n'
    "zone deck: stack, hidden\nzone square per player: grid, hidden\nzone pile: stack, public\n"
    "var who: player = none\nvar k = 0\ncounter pts per player = 0\n"
    'define val(x: card) = match x.s { "a": 1, else: x.n }\n'
    "setup {\n    deal 1 from deck to each square\n    k = sum(val(me.square))\n    STATEMENT\n}\n"
    "action go { k += 1 }\ngame ends when k > 3\nrank by lowest it.seat\n"
)


@pytest.mark.parametrize("statement, message", [
    ("draw 1 from deck to who.square", "the owner of 'square' is none"),
    ("next player is who", "the next player is none"),
    ("continue from who", "`continue from` a player who is none"),
    ("who.pts += 2", "'who' is none"),
    ("k = count(who.square)", "cannot read 'square' of a player who is none"),
])
def test_a_player_who_is_none_is_the_same_error_in_generated_source_and_the_plain_forms(statement, message):
    # Generated statements test for none in place (no helper call), with the plain forms' words and
    # line (and with a log, where the statements' own functions run).
    from rulesdsl.checker import check
    from rulesdsl.compile import compile_program
    from rulesdsl.parser import parse_text

    text = NONE_PLAYER.replace("STATEMENT", statement)
    for shortcuts in (True, False):
        game = compile_program(check([parse_text(text, "nobody.rules")], None, {}), shortcuts=shortcuts)
        for log in (True, False):
            with pytest.raises(rulesdsl.RulesRuntimeError) as e:
                game.new_game(1, log=log)
            assert str(e.value) == f"nobody.rules:15:5: runtime error: {message}"


def test_a_count_matched_against_a_loop_item_is_counted_once_per_loop():
    # `count(hand where it.n == x)` inside a loop over x is worked out as one table of counts.
    game = rulesdsl.load_text(
        'game "Pairs"\nplayers 2..2\ncard c(n)\ncards in deck { 3 c(1), 2 c(2), 1 c(3), 2 c(4) }\n'
        "zone deck: stack\nzone hand per player: hand, private\nzone pile: stack, public\n"
        "setup { deal 4 from deck to each hand }\n"
        "action pair { choose x in distinct(me.hand.n) where count(me.hand where it.n == x) >= 2\n"
        "    move first(me.hand where it.n == x) to pile }\n"
        "action toss { choose y in me.hand\n move y to pile }\n"
        "game ends when count(pile) >= 4\nrank by lowest count(it.hand)\n"
    )
    for seed in range(20):
        s = game.new_game(seed)
        hand = [game.attrs["n"][c] for c in s.zones[game.zone_index("hand", s.current_player)]]
        pairs = sorted({n for n in hand if hand.count(n) >= 2})
        assert sorted(int(t.split()[1]) for t in s.move_texts() if t.startswith("pair")) == pairs


def test_a_define_of_a_card_alone_applied_to_a_zone_is_a_table_and_fails_where_it_failed():
    # `sum(worth(me.hand))`, worth reading only the card, looks each card up in a table worked out
    # at load time; a define that fails for some card (no `n` on a joker) stays a loop and fails
    # in play, not when the file loads.
    text = ('game "Sums"\nplayers 2..2\ncard c(n)\ncard joker\ncards in deck { 3 c(1), 2 c(2), 1 c(3), 2 c(12) }\n'
            "JOKERS\nzone deck: stack\nzone hand per player: hand, private\nzone pile: stack, public\n"
            "counter total per player = 0\n"
            "define worth(x: card) = match x.n { 12: 10, else: x.n * 2 }\n"
            "setup { deal 3 from deck to each hand }\n"
            "action add { choose y in me.hand\n me.total = sum(worth(me.hand))\n move y to pile }\n"
            "game ends when count(pile) >= 4\nrank by lowest it.total\n")
    game = rulesdsl.load_text(text.replace("JOKERS", ""), path="sums.rules")
    for seed in range(10):
        s = game.new_game(seed, log=False)
        me = s.current_player
        hand = [game.attrs["n"][c] for c in s.zones[game.zone_index("hand", me)]]
        s.apply_index(0)
        assert s.counter("total", me) == sum(10 if n == 12 else 2 * n for n in hand)
    assert [2, 2, 2, 4, 4, 6, 10, 10] in game.namespace.values()  # the table
    jokers = rulesdsl.load_text(text.replace("JOKERS", "cards in deck { 4 joker }"), path="sums.rules")
    with pytest.raises(rulesdsl.RulesRuntimeError) as e:
        for seed in range(30):
            jokers.new_game(seed, log=False).playout(random.Random(seed).randrange)
    assert e.value.span is not None and e.value.span.line == 14  # the statement that sums


def test_an_expression_python_refuses_inside_a_loop_header_still_runs():
    # `top(pile) is token` is worked out with `:=`, which Python does not allow in the list a
    # comprehension walks: the generated code must say it another way or call the closures.
    text = (
        'game "Walrus"\nplayers 2..2\ncard token(n)\ncard other\n'
        "cards in pile { 3 token(1), 2 other }\n"
        "zone pile: stack\nzone hand per player: hand, private\n"
        "setup { shuffle pile }\n"
        "action take { move pile where top(pile) is token to me.hand }\n"
        "action pass { say \"pass\" }\n"
        "game ends when turn > 4\nrank by highest count(it.hand)\n"
    )
    game = rulesdsl.load_text(text)
    s = game.new_game(3)
    while not s.is_over:
        s.apply_index(0)
    assert sum(len(s.zone("hand", p)) for p in range(2)) + len(s.zone("pile")) == 5
    assert game.turn_options_fn is not None


def test_identical_cards_merge_in_a_hand_but_not_on_the_table():
    # Options are sorted out as the domain needs: two identical cards in a hand are one move, two
    # on a pile are two (where each lies is part of the outcome), and the cheaper sorting of a
    # domain that holds no hand's cards gives the same moves as the general one.
    game = rulesdsl.load_text(
        'game "Same"\nplayers 2..2\ncard c(n)\ncards in deck { 4 c(1), 4 c(2) }\n'
        "zone deck: stack\nzone hand per player: hand, private\nzone pile: stack, public\n"
        "setup { deal 2 from deck to each hand\n move top(deck) to pile\n move top(deck) to pile\n"
        " move top(deck) to pile }\n"
        "action keep { choose x in me.hand\n move x to pile }\n"
        "action take { choose y in pile\n move y to me.hand }\n"
        "game ends when turn > 6\nrank by lowest count(it.hand)\n"
    )
    for seed in range(10):
        s = game.new_game(seed)
        hand = s.zone("hand", s.current_player)
        texts = s.move_texts()
        assert sum(t.startswith("keep") for t in texts) == len(set(hand))
        assert sum(t.startswith("take") for t in texts) == len(s.zone("pile"))
        take = game.actions[1].lead
        cards = s.zones[game.zone_index("pile")]
        assert game.distinct_fn(take, hand_free=True)(s, cards, 0) == game.distinct_values(s, take, cards, 0)


def test_engine_sources_name_no_game():
    """The engine is generic: no game's name, nor a card kind only one game has, in rulesdsl/."""
    root = ROOT
    words = {"tamalou", "indigestion", "dish", "plus_one"}
    for f in (root / "games").rglob("*.rules"):
        for name in re.findall(r'^game "([^":]+)', f.read_text(encoding="utf-8"), re.M):
            words.add(name.lower())
            words.add(name.lower().replace(" ", "_"))
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, words))) + r")\b", re.I)
    found = [f"{f.relative_to(root)}:{i}: {m[0]}"
             for f in sorted((root / "rulesdsl").rglob("*")) if f.suffix in (".py", ".lark")
             for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
             for m in [pattern.search(line)] if m]
    assert not found


def test_step_limit_is_per_state_and_copied_by_clone(tmp_path):
    path = tmp_path / "spin.rules"
    path.write_text(
        'game "Spin"\nplayers 2\ncard token(n)\ncards in pile { 2 token(1) }\nzone pile: stack\n'
        "var total = 0\naction spin { while total % 1000 < 999 { total += 1 }\n total += 1 }\n"
        "action count { repeat 1000 times { total += 1 } }\n"
        "game ends when total >= 3000\nrank by lowest it.seat\n"
    )
    real = rulesdsl.load(path).new_game(1)
    search = real.clone(log=False)
    search.step_limit = 100
    copy = search.clone()
    assert copy.step_limit == 100
    with pytest.raises(rulesdsl.RulesRuntimeError, match="ran 100 loop steps"):
        copy.apply("spin")
    # A `repeat` counts its passes as it starts (as a `for each` over a list does).
    with pytest.raises(rulesdsl.RulesRuntimeError, match="ran 100 loop steps"):
        search.clone().apply("count")
    again = real.clone()
    again.apply("count")
    assert again.value("total") == 1000
    real.apply("spin")  # the state searched from keeps the engine's limit
    assert real.value("total") == 1000


LEAVES = '''game "Leaves"
players 2..2
card token(n)
cards in pile { 8 token(1) }
zone pile: stack
zone hand per player: hand, private
var started = 0
var after = 0
var ended_rounds = 0
procedure stop_hook() { end turn }
procedure outer() { stop_hook() }
procedure stop_round() { end round }
procedure give(p: player) {
    draw 1 from pile to p.hand
    if count(p.hand) >= 2 { return }
    after += 1
}
procedure deep(n: int) { if n > 0 { deep(n - 1) } }
round start {
    started += 1
    outer()
    after += 100
}
turn start {
    give(me)
    deep(3)
    if turn == 3 { stop_round() }
}
round end { ended_rounds += 1 }
action wait { say "wait" }
game ends when round > 2
rank by lowest it.seat
'''


def test_procedures_without_decisions_end_hooks_rounds_and_return_as_frames_do():
    # A procedure with no `choose` runs to its end inside the caller's call (a leaf, no frame):
    # `end turn` outside a turn still ends only the hook that ran it, `end round` still ends the
    # round from a turn's hook, `return` still leaves only the procedure; a recursive one keeps frames.
    # (`end turn` is two leaves deep here: only the framed code records where it goes on.)
    game = rulesdsl.load_text(LEAVES, path="leaves.rules")
    codes = {c.name: c.leaf for c in game.codes}
    assert codes["procedure give"] and codes["procedure stop_round"] and codes["round start"]
    assert not codes["procedure deep"]
    s = game.new_game(1)
    assert s.value("started") == 1 and s.value("after") == 1  # round start stopped; give ran once
    s.apply("wait")  # turn 2: seat 2 gets its first card
    assert s.value("after") == 2 and s.value("ended_rounds") == 0
    s.apply("wait")  # turn 3 ends the round; round 2 starts, turn 4 begins
    assert s.value("ended_rounds") == 1 and s.value("started") == 2 and s.round == 2
    assert s.value("after") == 2  # seat 1's second card: give returned before counting


def test_a_runtime_error_inside_a_leaf_procedure_names_its_line():
    text = LEAVES.replace("    after += 1\n", "    after += 1 / (after - after)\n")
    game = rulesdsl.load_text(text, path="leaves.rules")
    with pytest.raises(rulesdsl.RulesRuntimeError) as e:
        game.new_game(1)
    assert "leaves.rules:16" in str(e.value) and "division by zero" in str(e.value)


WRITTEN_IN_PLACE = '''game "Inline"
players 2..2
card c(n)
cards in deck { 4 c(1) }
zone deck: stack
zone pile: stack, public
zone hand per player: hand, private
var who: player = none
var k = 0
procedure inner(p: player) {
    k += 1
    INNER
}
procedure outer(p: player) {
    k += 1
    if k > 0 { inner(p) } else { k += 2 }
    OUTER
}
setup { SETUP }
turn start { HOOK }
action go { k += 1 }
game ends when k > 30
rank by lowest it.seat
'''


@pytest.mark.parametrize("inner, outer, setup, hook", [
    ("draw 1 from deck to p.hand", "", "outer(who)", "k += 1"),
    ("k = k / (k - k)", "", "outer(who)", "k += 1"),
    ("k += 1", "move top(pile) to who.hand", "outer(who)", "k += 1"),
    ("k += 1", "next player is who", "k = 0", "if k > 3 { outer(me) }"),
    ("k = k / (k - k)", "k += 1", "k = 0", "if k > 3 { outer(me) }"),
])
def test_an_error_in_a_leaf_written_in_its_caller_is_located_in_the_leaf(inner, outer, setup, hook):
    # Short leaves are written inside their callers' blocks (two deep here); an error in them names
    # the leaf's line and words, as the framed code without shortcuts does.
    from rulesdsl.checker import check
    from rulesdsl.compile import compile_program
    from rulesdsl.parser import parse_text

    text = WRITTEN_IN_PLACE.replace("INNER", inner).replace("OUTER", outer).replace("SETUP", setup) \
        .replace("HOOK", hook)
    errors = set()
    for shortcuts in (True, False):
        game = compile_program(check([parse_text(text, "inline.rules")], None, {}), shortcuts=shortcuts)
        for log in (True, False):
            with pytest.raises(rulesdsl.RulesRuntimeError) as e:
                s = game.new_game(1, log=log)
                while not s.is_over:
                    s.apply_index(0)
            errors.add(str(e.value))
    assert len(errors) == 1 and "inline.rules:1" in errors.pop()


@pytest.mark.parametrize("path", sorted(str(p.relative_to(ROOT)) for p in (ROOT / "games").rglob("*.rules")
                                        if ".test." not in p.name and "prelude" not in p.parts))
def test_every_expression_of_every_game_compiles_to_python(path):
    # Every expression runs as the Python source written for it (there is no other way to run
    # one): each expression of every game, on its own, compiles to a function carrying its
    # source, and the game builds. (Python once refused the source written for
    # `first(players from duty where ...)`: two code generators meeting.)
    import attrs

    from rulesdsl import ast
    from rulesdsl.checker import check
    from rulesdsl.compile import Compiler

    def nodes(x):
        if attrs.has(type(x)):
            yield x
            for field in attrs.fields(type(x)):
                yield from nodes(getattr(x, field.name))
        elif isinstance(x, (list, tuple)):
            for y in x:
                yield from nodes(y)

    for players in (2, 4, 7):
        files = rulesdsl.parse_files(ROOT / path)
        try:
            compiler = Compiler(check(files, players, {}))
        except rulesdsl.RulesError:
            continue  # not a player count of this game
        compiler.build()
        expressions = [e for e in nodes(files) if isinstance(e, ast.Expr) and id(e) in compiler.p.types]
        assert expressions and all(compiler.expr(e).src for e in expressions)


MIXED = """game "Mixed"
players 3..3
card c(n, s)
cards in deck { 3 c(1, "a"), 3 c(2, "b"), 3 c(3, "a"), 3 c(4, "b"), 3 c(5, "a") }
zone deck: stack, hidden, refill from pile keeping 1
zone hand per player: hand, private
zone square per player: grid, hidden
zone pile: stack, public
var who: player = none
var k = 0
counter pts per player = 0
define val(x: card) = match x.s { "a": x.n, else: 10 - x.n }
setup {
    shuffle deck
    deal 2 from deck to each hand
    deal 3 from deck to each square
    for each p in players { show p.square where place(it) <= 2 to p }
    next player is random(players)
}
action play {
    choose x in me.hand where x.n != 5 or any(players where knows(it, x))
    move x to pile
    k = count(pile where owner(it) == none and it.n == x.n)
}
action swap when any(me.square) {
    choose y in me.square where place(y) >= 2 or knows(next(me), y)
    draw 1 from deck to me.hand
    who = first(players from next(me) where any(it.hand where it.s == "a"))
}
action give when who != none {
    move all from who.hand to me.hand
    who = none
}
action dump {
    move all from me.square to pile
    me.pts += sum(val(me.hand))
}
game ends when count(pile) >= 9 or turn > 40
winners are players where it.pts == max(players.pts)
rank by highest it.pts, then lowest count(it.hand)
"""


def test_a_game_of_loops_over_items_plays_as_the_plain_forms_do():
    # place, owner and knows of a loop's item, a define applied to each card of a hand, a search
    # over the players from a seat, `move all` from a zone worked out as the game goes, and the
    # end (ranking ties, winners) as generated source: the same states as the plain forms, with and
    # without a log.
    from rulesdsl.checker import check
    from rulesdsl.compile import compile_program
    from rulesdsl.parser import parse_text

    fast, slow = (compile_program(check([parse_text(MIXED, "mixed.rules")], None, {}), shortcuts=shortcuts)
                  for shortcuts in (True, False))
    ended = 0
    for seed in range(30):
        for log in (False, True):
            a, b = fast.new_game(seed, log=log), slow.new_game(seed, log=log)
            rng = random.Random(seed)
            while not a.is_over:
                assert a.to_json() == b.to_json() and a.move_texts() == b.move_texts()
                i = rng.randrange(a.num_moves())
                a.apply_index(i)
                b.apply_index(i)
            assert a.to_json() == b.to_json()
            ended += len(a.winners) > 1 or len(set(a.ranking)) < 3
    assert ended > 0  # some games ended in a tie


FORMS = """game "Forms"
players 3..3
card a(n)
card b(n)
cards in deck { 4 a(1), 4 a(2), 4 b(1), 4 b(3) }
zone deck: stack, hidden
zone hand per player: hand, private
zone pile: stack, public
var who: player = none
define both(x: card, k: int) = x.n + k
define tops = (players where top(it.hand) is a).seat
define seen = count(players where knows(it, top(pile)))
define plus = both(me.hand, 10)
define whose = players where owner(top(it.hand)) == it and place(top(it.hand)) == count(it.hand)
define nested = count((players where top(it.hand) is not a) where it != me)
define label = match who { else: 5 }
setup {
    shuffle deck
    deal 3 from deck to each hand
}
action play {
    choose x in me.hand
    move x to pile
    who = next(me)
}
action draw { draw 1 from deck to me.hand }
game ends when count(deck) == 0 or count(pile) > 8
rank by highest count(it.hand)
"""


@pytest.mark.parametrize("shortcuts", [True, False])
def test_forms_once_left_to_closures_give_the_values_python_gives(shortcuts):
    # A kind test, knows, owner and place of a value read twice inside a loop (a name bound by
    # `:=` each), such a loop as the list another comprehension walks (Python takes no `:=` there),
    # and a two-parameter define applied to each card of a hand: worked out here in Python.
    from rulesdsl.checker import check
    from rulesdsl.compile import compile_program
    from rulesdsl.parser import parse_text

    game = compile_program(check([parse_text(FORMS, "forms.rules")], None, {}), shortcuts=shortcuts)
    kind, n = game.card_kind, game.attrs["n"]
    for seed in range(10):
        s = game.new_game(seed)
        rng = random.Random(seed)
        while not s.is_over:
            hands = [s.zones[game.zone_index("hand", p)] for p in range(3)]
            pile = s.zones[game.zone_index("pile")]
            tops = [p for p in range(3) if hands[p] and kind[hands[p][-1]] == 0]
            assert game.defines["tops"](s) == [p + 1 for p in tops]
            assert game.defines["seen"](s) == (sum(s.known[pile[-1]] >> p & 1 for p in range(3)) if pile else 0)
            assert game.defines["plus"](s) == [n[c] + 10 for c in hands[s.current]]
            assert game.defines["whose"](s) == [p for p in range(3) if hands[p]]
            assert game.defines["nested"](s) == sum(1 for p in range(3) if p not in tops and p != s.current)
            assert game.defines["label"](s) == 5
            s.apply_index(rng.randrange(s.num_moves()))


@pytest.mark.parametrize("name", ["nested_ends.rules", "tails.rules", "../../games/tempurra.rules",
                                  "../../games/tamalo.rules"])
def test_leaves_and_tails_play_as_frames_and_trips_through_the_machine_do(name):
    # Leaves (calls with no frame) and tails (an early return's target written in place) are
    # shortcuts: with them off, every call has a frame and every early return a trip through the
    # machine. Both must give the very same states. The two small games put `end game`, `end round`
    # and `end turn` (outside a turn too) in leaves called by leaves, and decisions and calls in tails.
    from rulesdsl.checker import check
    from rulesdsl.compile import compile_program

    path = ROOT / "tests" / "data" / name
    for players in (2, 3):
        try:
            prog = check(rulesdsl.parse_files(path), players, {})
        except rulesdsl.RulesError:
            continue  # not a player count of this game
        fast, plain = compile_program(prog), compile_program(check(rulesdsl.parse_files(path), players, {}),
                                                               shortcuts=False)
        assert any(c.leaf for c in fast.codes) and not any(c.leaf for c in plain.codes)
        for seed in range(40):
            a, b = fast.new_game(seed, log=seed % 2 == 0), plain.new_game(seed, log=seed % 2 == 0)
            rng = random.Random(seed)
            while not a.is_over and a.moves < 300:
                assert json_but_log(a) == json_but_log(b) and a.log == b.log and a.options == b.options
                i = rng.randrange(a.num_moves())
                a.apply_index(i)
                b.apply_index(i)
            assert a.to_json() == b.to_json()


@pytest.mark.parametrize("path", [*sorted(f"games/{p.name}" for p in (ROOT / "games").glob("*.rules")
                                           if ".test." not in p.name),
                                   "tests/data/nested_ends.rules", "tests/data/tails.rules"])
def test_playout_plays_the_moves_of_an_apply_index_loop(path):
    # `playout` runs the machine's loop without a call into the state per move, and a block that
    # asks a decision answers it itself; it must reach the very states a loop of apply_index
    # reaches with the same picks, stopped at a limit or not, with the log or without. (The
    # games of tests/data end rounds and turns in nested procedures and decide in tails.)
    game = rulesdsl.load(ROOT / path, players=2 if "data" in path else None)
    for seed in range(6):
        log = seed % 2 == 1
        a, b = game.new_game(seed, log=log), game.new_game(seed, log=log)
        ra, rb = random.Random(seed), random.Random(seed)
        first = a.playout(ra.randrange, 7)
        assert first == 7 or (first < 7 and a.is_over)
        for _ in range(first):
            b.apply_index(rb.randrange(b.num_moves()))
        assert fingerprint(a) == fingerprint(b) and a.log == b.log
        cap = 300 if "data" in path else None  # (the stress games need not end)
        played = a.playout(ra.randrange, cap)
        while not b.is_over and (cap is None or b.moves < first + cap):   # as far as `a` went
            b.apply_index(rb.randrange(b.num_moves()))
        assert played == a.moves - first and (a.is_over or cap)
        assert fingerprint(a) == fingerprint(b) and a.log == b.log
        if a.is_over:
            assert a.playout(ra.randrange) == 0
    with pytest.raises(ValueError, match="at least 0"):
        game.new_game(0).playout(random.Random(0).randrange, -1)
    assert game.new_game(0).playout(random.Random(0).randrange, 0) == 0


def test_playout_without_forced_picks_asks_only_real_decisions(tempurra4):
    asked = []

    def pick(n: int) -> int:
        asked.append(n)
        return 0

    s = tempurra4.new_game(3, log=False)
    s.playout(pick, 200, forced=False)
    assert (s.is_over or s.moves == 200) and asked and min(asked) >= 2 and len(asked) < s.moves


def test_playout_with_a_bad_pick_raises_and_keeps_the_state_playable(tempurra4):
    s = tempurra4.new_game(2, log=False)
    s.playout(random.Random(2).randrange, 30)
    before = fingerprint(s)
    with pytest.raises(rulesdsl.IllegalMove, match="does not exist"):
        s.playout(lambda n: n)
    assert fingerprint(s) == before
    calls = []
    with pytest.raises(rulesdsl.IllegalMove):
        s.playout(lambda n: calls.append(n) or (0 if len(calls) < 5 else -1))
    assert s.moves == 30 + 4 and s.num_moves() >= 1
    waiting = fingerprint(s)
    other = s.clone()
    other.apply_index(0)

    def broken(n: int) -> int:
        if len(calls) > 12:
            raise KeyError("the pick's own error")
        calls.append(n)
        return 0

    # An error of the pick's own is not the rules': it goes through as it is, the state waits.
    with pytest.raises(KeyError, match="pick's own"):
        s.playout(broken)
    assert s.moves == 34 + 8 and s.num_moves() >= 1 and s.pick is None
    assert fingerprint(s) != waiting and other.moves == 35
    s.playout(random.Random(0).randrange)
    assert s.is_over


ACTING = '''game "Acting"
players 2..2
card token(n)
cards in pile { 6 token(1), 6 token(2) }
zone pile: stack
zone hand per player: hand, private
var total = 0
setup { deal 3 from pile to each hand }
action count_up {
    total += 1
    total = 1 / (total - total)
}
action pass_on {
    choose card in me.hand
    choose who in others
    total = 1 / (total - total)
}
game ends when turn > 40
rank by lowest it.seat
'''


@pytest.mark.parametrize("leaf", [True, False])
def test_an_action_entered_by_a_playout_names_its_own_line_when_it_fails(leaf):
    # In a playout the turn's block enters the chosen action itself (a leaf runs there, any other
    # action gets its frame); a runtime error in the action still names the action's statement,
    # as the machine's own way does, and the state waits for nothing after it.
    game = rulesdsl.load_text(ACTING, path="acting.rules")
    assert game.action_entry[0][0].leaf and not game.action_entry[1][0].leaf
    line = "acting.rules:11" if leaf else "acting.rules:16"
    for way in ("playout", "apply"):
        s = game.new_game(1, log=False)
        with pytest.raises(rulesdsl.RulesRuntimeError) as e:
            if way == "playout":
                s.playout(lambda n: 0 if leaf else n - 1)
            while True:
                s.apply_index(0 if leaf else s.num_moves() - 1)
        assert line in str(e.value) and "division by zero" in str(e.value), way
        assert s.num_moves() == 0


HOISTED = '''game "Hoisted"
players 4..4
card token(n)
cards in pile { 8 token(1) }
zone pile: stack
counter score per player = 0
var lows = 0
var near = 0
var leaders = 0
define beaten(p: player) = count(players where it.score > p.score)
action add {
    choose k in 0..3 as "add"
    me.score += k
    lows = count(players where it != me and it.score == min((players where it != me).score))
    near = count(players where count(players where it.score == 0) > 1
                 and it.score <= max((players where it.score < 3).score))
    leaders = count(players where beaten(it) == 0)
}
action level {
    choose v in 0..6 where count(players where it.score > v) >= 1 as "level"
    me.score += 0
}
action other {
    choose p in players where count(players where it != p and it != me) == 2 as "other"
    me.score += 0
}
game ends when turn > 30
rank by lowest it.score
'''


def test_an_inner_where_that_reads_no_outer_item_is_worked_out_once_with_the_same_values():
    # `min((players where it != me).score)` inside `players where ...` does not depend on the outer
    # item (its own `it` is its own): it is worked out before the loop. `beaten(it)` and the inner
    # `where`s of `level` and `other` (they read their choose's own `v`, `p`) do depend on it. Every value is
    # checked against plain Python over the state's counters.
    game = rulesdsl.load_text(HOISTED, path="hoisted.rules")
    add, level, other = (next(i for i, a in enumerate(game.actions) if a.name == n) for n in ("add", "level", "other"))
    for seed in range(20):
        s = game.new_game(seed, log=False)
        rng = random.Random(seed)
        while not s.is_over:
            me = s.current
            scores = [game.read_counter(s, "score", p) for p in range(4)]
            assert [v for ai, v in s.options if ai == level] == [v for v in range(7) if max(scores) > v]
            assert [p for ai, p in s.options if ai == other] == [p for p in range(4) if p != me]
            i = rng.randrange(s.num_moves())
            played = s.options[i][0]
            s.apply_index(i)
            if played != add:  # (`add 2` is one move: its `choose` is the turn's decision)
                continue
            scores = [game.read_counter(s, "score", p) for p in range(4)]
            low = min(scores[p] for p in range(4) if p != me)
            assert s.value("lows") == sum(1 for p in range(4) if p != me and scores[p] == low)
            small = [v for v in scores if v < 3]
            expected = sum(1 for v in scores if v <= max(small)) if scores.count(0) > 1 else 0
            assert s.value("near") == expected
            assert s.value("leaders") == scores.count(max(scores))


@pytest.mark.parametrize("name", ["tempurra", "tamalo", "crazy_eights", "go_fish"])
def test_consecutive_seeds_deal_as_differently_as_independent_ones(name):
    """Simulations play seeds 0, 1, 2, ...: games s and s + 1 must be as unrelated as two far-apart
    seeds' games. Measured by how many cards start in the same zone: for consecutive seeds and for
    seeds N/2 apart, over N seeds, the means may differ by sampling error only (|z| < 4). The first
    generator (seed s's state one draw behind seed s + 1's) gave z from 40 to 94 in these games."""
    game = rulesdsl.load(GAMES / f"{name}.rules")
    n = 2000
    locs = [game.new_game(seed).loc for seed in range(n + 1)]

    def same(a: list[int], b: list[int]) -> float:
        return sum(x == y for x, y in zip(a, b, strict=True)) / len(a)

    near = [same(locs[s], locs[s + 1]) for s in range(n)]
    far = [same(locs[s], locs[(s + n // 2) % (n + 1)]) for s in range(n)]
    mean = lambda xs: sum(xs) / len(xs)
    var = lambda xs: sum((x - mean(xs)) ** 2 for x in xs) / len(xs)
    z = (mean(near) - mean(far)) / ((var(near) + var(far)) / n) ** 0.5
    assert abs(z) < 4, f"consecutive seeds share {mean(near):.3f} of places, far ones {mean(far):.3f} (z = {z:.1f})"


def test_any_int_is_a_seed_and_close_seeds_start_far_apart():
    """Negative and huge seeds are seeds too (bits past 64 count), and no two of the first
    thousand seeds' generator states lie within a thousand draws of each other on one stream."""
    from rulesdsl.engine.rng import GOLDEN, MASK, seed_state

    assert len({seed_state(s) for s in (-1, 2**64 - 1, 2**64, 2**128, -(2**64))}) == 5
    inverse = pow(GOLDEN, -1, 1 << 64)
    offsets = sorted((seed_state(s) * inverse) & MASK for s in range(1000))  # a state's place on the stream
    assert min(b - a for a, b in itertools.pairwise(offsets)) > 1000


def test_the_engine_imports_only_itself_and_errors_and_in_no_loop():
    """engine/ is layered (constants and move at the bottom, then the state, then its views and
    saves, then the game): every import, function-level or for typing only, goes down, and none
    leaves engine/ but for rulesdsl/errors.py. A loop would tie the modules back together."""
    import ast
    from graphlib import CycleError, TopologicalSorter

    folder = ROOT / "rulesdsl" / "engine"
    graph: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("rulesdsl") for a in node.names), f"{path.name}: {ast.unparse(node)}"
            elif isinstance(node, ast.ImportFrom) and node.level:
                where = ast.unparse(node)
                if node.level == 1:
                    deps |= {node.module} if node.module else {a.name for a in node.names}
                else:
                    assert node.level == 2 and node.module == "errors", f"{path.name} reaches outside: {where}"
            elif isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("rulesdsl"), f"{path.name}: {ast.unparse(node)}"
        graph[path.stem] = deps - {"__init__"}
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as e:
        raise AssertionError(f"an import loop in rulesdsl/engine/: {e.args[1]}") from None
    assert order.index("state") < order.index("game")


def test_a_compiled_game_has_everything_the_state_reads_of_it(tempurra4):
    """state.py names the game by the protocol CompiledGame (it cannot import game.py, which
    imports it): the Game the compiler fills must have every member the protocol lists."""
    from rulesdsl.engine.state import CompiledGame

    assert isinstance(tempurra4, CompiledGame)
    assert isinstance(tempurra4.new_game(1).game, CompiledGame)


def test_the_parts_of_a_state_keep_it_slotted_and_below_it():
    """State is made of parts (machine.py, primitives.py, hidden.py), each a base class with no
    slots of its own: a part without `__slots__ = ()` would give every state a __dict__ (a bigger
    clone, a slower field). The parts import no engine module that imports the state."""
    import ast

    from rulesdsl.engine import hidden, machine, primitives
    from rulesdsl.engine.state import State

    st = tempurra(4).new_game(1)
    assert not hasattr(st, "__dict__")
    parts = {hidden.HiddenCards, machine.Machine, primitives.CardPrimitives}
    assert parts <= set(State.__mro__)
    assert all(cls.__dict__.get("__slots__") == () for cls in parts)
    folder = ROOT / "rulesdsl" / "engine"
    for module in ("hidden", "machine", "primitives"):
        tree = ast.parse((folder / f"{module}.py").read_text())
        used = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 1}
        assert used <= {"constants", "rng", "limits", "move"}, f"{module}.py imports {used}"


def test_every_name_the_back_end_takes_from_the_state_module_is_there():
    """The back-end imports the machine's helpers and the constants from engine.state, wherever
    they are written (machine.py, primitives.py, constants.py): each must still be named there."""
    import ast

    from rulesdsl.engine import state

    names = set()
    for path in (ROOT / "rulesdsl").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("engine.state"):
                names |= {a.name for a in node.names}
    assert names, "the back-end imports from engine.state"
    assert [n for n in sorted(names) if not hasattr(state, n)] == []


def test_a_list_of_players_reads_each_players_value_of_any_per_player_declaration():
    # `players.pick` of a variable (a card, a number, a text, a player, secret or not) is the list
    # of each player's value, none included; of a counter the same; of a zone, all their cards.
    game = rulesdsl.load(ROOT / "tests" / "data" / "players_values.rules")
    n = game.players
    for seed in range(10):
        s = game.new_game(seed, log=False)
        rng = random.Random(seed)
        while not s.is_over:
            for name in ("pick", "bet", "word", "who", "hidden", "stake"):
                base = game.var_layout[name][0]
                mine = [s.vars[base + p] for p in range(n)]
                assert s.value(name + "s") == mine, (seed, name)
                if name == "pick":
                    me = s.current_player
                    assert s.value("other_picks") == [mine[(me + k) % n] for k in range(1, n)]
            assert s.value("scores") == [s.counter("score", p) for p in range(n)]
            assert s.value("hands") == [c for p in range(n) for c in s.zones[game.zone_index("hand", p)]]
            s.apply_index(rng.randrange(s.num_moves()))
        assert any(s.vars[game.var_layout["pick"][0] + p] is not None for p in range(n))


def test_values_read_from_secret_variables_through_a_list_of_players_print_as_unknown():
    # `say "{players.stake}"` reads a secret variable of every player: a seat that does not know
    # each of them reads `?`; a seat that knows them all (alice, before anyone else chose) the values.
    game = rulesdsl.load(ROOT / "tests" / "data" / "players_values.rules")
    s = game.new_game(1)
    rng = random.Random(1)
    while not s.is_over:
        s.apply_index(rng.randrange(s.num_moves()))
    seen = [[e for e in s.events_for(p) if e.startswith("stakes ")] for p in range(3)]
    assert seen[0][0].startswith("stakes 1 1 1, 0, 0 0, 0 ")
    assert all(e.startswith("stakes ? ") for p in (1, 2) for e in seen[p])
    assert all(e.startswith("stakes ? ") for e in seen[0][1:])
