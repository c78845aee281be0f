"""No peeking (issue 18): a bot's choice never depends on the cards its seat does not know.

The check builds, for a state and a seat, a twin the seat cannot tell apart: the same state (same
card numbers in the same places, same variables, locals and options) in a copy of the game whose
cards the seat does not know have traded faces, within the groups last shuffled together. It is
made without determinization's help (the faces move, not the cards), so it does not share a blind
spot with it: a value the world forgets to re-point names a card with one face in the state and
another in its twin. Then the worlds sampled from both for the same random numbers must be the same
(same faces in the same places, and the same futures for the same moves), and the search bots must
choose the same move in both.

Sized by the hypothesis profile: `ci` (the default) checks a few hundred states in seconds,
`HYPOTHESIS_PROFILE=long` more than 10,000 (docs/testing.md).
"""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.bots import GreedyBot, ISMCTSBot
from rulesdsl.checker import check
from rulesdsl.compile import compile_program
from rulesdsl.engine.saves import BadSave
from rulesdsl.errors import RulesRuntimeError
from rulesdsl.parser import parse_text

from .conftest import GAMES, ROOT

DATA = ROOT / "tests" / "data"
RULES = sorted(p for p in [*GAMES.glob("*.rules"), *(GAMES / "variants").glob("*.rules"),
                           *(GAMES / "examples").glob("*.rules")] if not p.name.endswith(".test.rules"))
# States looked at per hypothesis example: with `long`'s 1,000 examples, 10,000 states of
# generated games, and 14 x 76 x 10 of the shipped ones.
STATES = 10 if settings().max_examples >= 1000 else 4


@functools.cache
def program(path: Path, players: int | None = None):
    return check(rulesdsl.parse_files(path), players, {})


@functools.cache
def game_of(path: Path) -> rulesdsl.Game:
    """The file's game, compiled once for all the examples of a test (a game is not changed by
    playing it: only its states are)."""
    return compile_program(program(path))


def random_state(game: rulesdsl.Game, seed: int, moves: int) -> rulesdsl.State:
    s = game.new_game(seed, log=False)
    rng = random.Random(seed)
    for _ in range(moves):
        if s.is_over:
            break
        s.apply_index(rng.randrange(s.num_moves()))
    return s


def hidden_groups(s: rulesdsl.State, seat: int) -> list[list[int]]:
    """The cards `seat` does not know, by the group they were last shuffled in and the pool the
    seat knows them in (a card it knew when it was shuffled, or not), and apart from them those
    whose zone it knows (whereabouts: a twin may not put another face in their place)."""
    groups: dict[tuple, list[int]] = {}
    for z in s.zones:
        for c in z:
            if c is not None and not s.known[c] >> seat & 1:
                pool = s.pooled().get(c)
                pool = pool[seat] if type(pool) is tuple else pool
                key = (s.group[c], pool, bool(s.knows_where(c) >> seat & 1), *told(s, c, seat))
                groups.setdefault(key, []).append(c)
    return list(groups.values())


def told(s: rulesdsl.State, c: int, seat: int) -> list:
    """The attributes of card c that `seat` was shown (partial knowledge), with their values."""
    masks = s.partial.get(c)
    if masks is None:
        return []
    return [(a, s.game.attrs[a][c]) for a, m in zip(s.game.partial_attrs, masks, strict=True) if m >> seat & 1]


def twin(prog, s: rulesdsl.State, sigma: dict[int, int]) -> rulesdsl.State:
    """State `s` in a copy of its game in which card c has the face of card sigma[c]."""
    cards = [attrs.evolve(info, kind=prog.cards[sigma.get(c, c)].kind, values=prog.cards[sigma.get(c, c)].values)
             for c, info in enumerate(prog.cards)]
    t = s.clone(log=False)
    t.game = compile_program(attrs.evolve(prog, cards=cards), s.game.names)
    t._texts = None
    return t


def shuffled_faces(s: rulesdsl.State, seat: int, rng: random.Random) -> dict[int, int]:
    sigma: dict[int, int] = {}
    for cards in hidden_groups(s, seat):
        other = cards[:]
        rng.shuffle(other)
        sigma.update(zip(cards, other, strict=True))
    return sigma


def table(w: rulesdsl.State) -> list:
    """Each place's face and who knows it (not the cards' numbers: two cards of one face are alike)."""
    text = w.game.card_text
    return [[None if c is None else (text[c], w.known[c]) for c in z] for z in w.zones]


def outcome(w: rulesdsl.State, seed: int) -> tuple:
    """What a world is, in faces and places, and what becomes of it: each of its first moves played,
    then random moves (the same numbers for the same seed)."""
    seen = [table(w), w.move_texts()]
    for i in range(min(w.num_moves(), 4)):
        d = w.clone(log=False)
        try:
            d.apply_index(i)
            d.playout(random.Random(seed).randrange, 12)
        except RulesRuntimeError as e:
            seen.append(str(e))
        seen.append((table(d), d.move_texts(), d.counters, d.winners, d.over))
    return tuple(seen)


def assert_no_peeking(prog, s: rulesdsl.State, seat: int, seed: int, bots: bool = True) -> None:
    """`seat` cannot tell `s` from a twin whose hidden cards traded faces: same worlds, same bot choices."""
    t = twin(prog, s, shuffled_faces(s, seat, random.Random(seed)))
    for k in range(2):
        w1 = s.determinize(seat, random.Random(seed + k), log=False)
        w2 = t.determinize(seat, random.Random(seed + k), log=False)
        assert outcome(w1, seed + k) == outcome(w2, seed + k)
    if bots and seat == s.chooser and s.num_moves() > 1:
        assert t.move_texts() == s.move_texts()
        for bot in (GreedyBot(seed, samples=2, playout_limit=20), ISMCTSBot(seed, iterations=8, playout_limit=20)):
            assert bot.choose(s) == type(bot)(seed, **_budget(bot)).choose(t)


def _budget(bot) -> dict:
    if isinstance(bot, GreedyBot):
        return {"samples": bot.samples, "playout_limit": bot.playout_limit}
    return {"iterations": bot.iterations, "playout_limit": bot.playout_limit}


def states_along(game: rulesdsl.Game, seed: int, count: int):
    """`count` states of one random game (a new game when one ends)."""
    rng = random.Random(seed)
    s = game.new_game(seed, log=False)
    for _ in range(count):
        for _ in range(rng.randrange(6)):
            if s.is_over:
                break
            s.apply_index(rng.randrange(s.num_moves()))
        if s.is_over:
            seed += 1
            s = game.new_game(seed, log=False)
        yield s, rng


# ---------------------------------------------------------------- the repro of issue 18


def guess_state(game: rulesdsl.Game, seed: int) -> rulesdsl.State:
    """Past the forced moves, at the guess."""
    s = game.new_game(seed, log=False)
    while s.num_moves() < 2:
        s.apply_index(0)
    return s


@pytest.mark.parametrize("name", ["peek_list.rules", "peek_locals.rules"])
def test_a_bots_guess_is_the_same_whatever_the_hidden_card(name):
    """The rules put the next player's hidden card in a list (a variable, or the locals of the action
    that waits for the guess), then ask for its value. For every card it could be, the bots guess
    the same: they guessed it 60 times out of 60 before (issue 18)."""
    path = DATA / name
    prog = program(path)
    game = compile_program(prog)
    for seed in range(3):
        s = guess_state(game, seed)
        me = s.chooser
        theirs = [c for c in range(game.ncards) if not s.known[c] >> me & 1 and s.game.zone_owner[s.loc[c]] >= 0]
        assert theirs, "the next player holds a card the guesser does not know"
        for bot in (GreedyBot(seed, samples=3, playout_limit=20), ISMCTSBot(seed, iterations=30, playout_limit=20)):
            picks = set()
            for c in theirs:
                for d in range(game.ncards):
                    if not s.known[d] >> me & 1 and s.group[d] == s.group[c]:
                        picks.add(type(bot)(seed, **_budget(bot)).choose(twin(prog, s, {c: d, d: c})))
            assert len(picks) == 1, f"{bot.name} guesses differently for different hidden cards"


def test_the_guess_is_right_about_as_often_as_chance():
    """Over 60 games the guesses are right about 1 time in 8, not 60 times (a bound that a guess
    independent of the card breaks with probability below 1e-9)."""
    game = rulesdsl.load(DATA / "peek_list.rules")
    for make in (lambda k: GreedyBot(k, samples=3, playout_limit=20), lambda k: ISMCTSBot(k, iterations=30)):
        right = 0
        for seed in range(60):
            s = guess_state(game, seed)
            s.apply_index(make(seed).choose(s))
            right += s.counter("right", 0)
        assert right <= 25


# ---------------------------------------------------------------- every shipped game


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.name)
@settings(max_examples=max(3, settings().max_examples // 13))
@given(seed=st.integers(0, 2**32 - 1), seat=st.integers(0, 7))
def test_no_bot_peeks_in_any_game(path, seed, seat):
    prog = program(path)
    game = game_of(path)
    for s, rng in states_along(game, seed, STATES):
        if s.is_over:
            continue
        who = s.chooser if rng.random() < 0.75 else seat % game.players
        assert_no_peeking(prog, s, who, rng.randrange(1000), bots=rng.random() < 0.3)


@pytest.mark.parametrize("name", ["sealed_bids.rules", "slap_race.rules"])
@settings(max_examples=max(3, settings().max_examples // 6))
@given(seed=st.integers(0, 2**32 - 1))
def test_no_bot_peeks_at_hidden_cards_among_secret_answers(name, seed):
    """Secret answers that are cards (a bid, a race's slap) are kept with the options they were
    chosen from: a twin whose hidden cards traded faces gives the same worlds and bot choices
    (tests/test_secrets.py checks the answers themselves)."""
    prog = program(DATA / name)
    game = game_of(DATA / name)
    for s, rng in states_along(game, seed, STATES):
        if not s.is_over:
            assert_no_peeking(prog, s, s.chooser, rng.randrange(1000), bots=rng.random() < 0.3)


# ---------------------------------------------------------------- whereabouts (issue 21)


def test_a_passed_card_is_known_to_be_in_the_shuffled_hand():
    """Alice passes a card to Bob, whose hand is then shuffled: Alice's view says Bob holds it
    somewhere; once Bob buries a card face down, it may be that one, and the view says nothing."""
    game = rulesdsl.load(DATA / "passed_cards.rules")
    s = game.new_game(5)
    assert s.chooser == 0
    s.apply(next(t for t in s.move_texts() if t.startswith("pass")))
    (passed,) = [c for c in range(game.ncards) if s.knows_where(c) & 1]
    assert s.loc[passed] == game.zone_index("hand", 1)
    assert f"holds {game.card_text[passed]} somewhere" in s.view(0)
    assert "somewhere" not in s.view(1)
    s.apply(next(t for t in s.move_texts() if t.startswith("bury")))
    assert not s.knows_where(passed) & 1 and "somewhere" not in s.view(0)


def test_a_colour_shown_is_known_to_that_seat_alone():
    """`show (...).color to P`: P's view and log read the colours (`?r`), the others' `?`."""
    game = rulesdsl.load(DATA / "colour_hints.rules", players=2)
    s = game.new_game(3)
    red = [c for c in s.zones[game.zone_index("hand", 1)] if game.attrs["color"][c] == "r"]
    s.apply("colour r")
    assert red and "known: " + " ".join(["?r"] * len(red)).replace("?r ?r", "?r×2") in s.view(1)
    (theirs,) = [e for e in s.events_for(0) if " is shown the color of " in e]
    (mine,) = [e for e in s.events_for(1) if " is shown the color of " in e]
    assert "known" not in s.view(0) and theirs.endswith(": ?")
    assert mine.endswith(": " + " ".join(["r"] * len(red)))


def test_a_colour_revealed_is_known_to_every_seat_and_kept_in_their_worlds():
    """`reveal c.color`: every seat (the owner too, whose hand is hidden from them) learns the
    colour, not the face; each seat's log reads it, and each seat's worlds keep it."""
    game = rulesdsl.load(DATA / "told_colours.rules", players=3)
    s = game.new_game(3)
    card = s.zones[game.zone_index("hand", 0)][-2]      # alice.hand #2, as moves number them
    colour = game.attrs["color"][card]
    s.apply("announce alice.hand #2")
    assert not s.known[card]                           # its face stays unknown to all
    for p in range(3):
        assert told(s, card, p) == [("color", colour)]
        (line,) = [e for e in s.events_for(p) if " is shown the color of " in e]
        assert line == f"everyone is shown the color of alice.hand #2: {colour}"
        for seed in range(5):
            w = s.determinize(p, random.Random(seed), log=False)
            assert game.attrs["color"][w.zones[game.zone_index("hand", 0)][-2]] == colour


def assert_world_keeps_what_the_seat_knows(s: rulesdsl.State, w: rulesdsl.State, p: int) -> None:
    """World `w`, sampled for seat p from `s`, keeps everything p knows: each card whose face it
    knows in its place, each card whose zone it knows in that zone, a card of each attribute it
    was shown in each place it was shown of, its view, and its moves when it decides."""
    game = s.game
    assert w.view(p) == s.view(p)
    if p == s.chooser:
        assert w.move_texts() == s.move_texts()
    assert (w.counters, w.round, w.turn, w.current, w.over) == (s.counters, s.round, s.turn, s.current, s.over)
    assert sorted(c for z in w.zones for c in z if c is not None) == list(range(game.ncards))
    for c in range(game.ncards):
        if s.known[c] >> p & 1:
            assert w.loc[c] == s.loc[c] and w.known[c] == s.known[c]
            assert w.zones[w.loc[c]].index(c) == s.zones[s.loc[c]].index(c)
        elif s.knows_where(c) >> p & 1:
            assert w.loc[c] == s.loc[c] and w.knows_where(c) >> p & 1
    for zi, z in enumerate(s.zones):
        for i, c in enumerate(z):
            if c is not None and told(s, c, p):
                assert told(w, w.zones[zi][i], p) == told(s, c, p)


@pytest.mark.parametrize("name", ["passed_cards.rules", "colour_hints.rules", "told_colours.rules"])
@settings(max_examples=max(3, settings().max_examples // 6))
@given(seed=st.integers(0, 2**32 - 1))
def test_worlds_keep_every_known_whereabouts_and_attribute(name, seed):
    """Every world sampled for a seat keeps each card whose zone it knows in that zone, a card of
    each shown colour or rank in each place it was shown of, and the seat's view and moves; a twin
    whose other hidden cards traded faces gives the same worlds and choices."""
    prog = program(DATA / name)
    game = game_of(DATA / name)
    for s, rng in states_along(game, seed, 3 * STATES):
        if s.is_over:
            continue
        for p in range(game.players):
            for k in range(3):
                assert_world_keeps_what_the_seat_knows(s, s.determinize(p, random.Random(seed + k), log=False), p)
        assert_no_peeking(prog, s, s.chooser, rng.randrange(1000), bots=rng.random() < 0.3)


# Every game shipped, and the two of tests/data that use partial knowledge and whereabouts.
KNOWING = [*RULES, DATA / "passed_cards.rules", DATA / "colour_hints.rules"]


@pytest.mark.parametrize("path", KNOWING, ids=lambda p: p.name)
@settings(max_examples=max(3, settings().max_examples // 10))
@given(seed=st.integers(0, 2**32 - 1))
def test_every_world_keeps_what_its_seat_knows_in_every_game(path, seed):
    """Issue 21's guarantee, for every game: a world sampled for any seat (not only the one who
    decides) keeps that seat's view and moves, and never contradicts a face, a colour or a
    whereabouts it knows. `ci` looks at 3 x 4 states of each game, every seat (about 250 states
    in all); `long` at 100 x 10 (up to 21,000 over the 21 files)."""
    game = compile_program(program(path))
    for s, rng in states_along(game, seed, STATES):
        if s.is_over:
            continue
        for p in range(game.players):
            world = s.determinize(p, random.Random(rng.randrange(1 << 30)), log=False)
            assert_world_keeps_what_the_seat_knows(s, world, p)


# ---------------------------------------------------------------- generated games


# Where a game keeps a card or cards it then asks about: (declaration, store, the name it is kept
# by, whether that is a list). The card kept is the next player's (which the guesser does not
# know), or the deck's top.
KEEPERS = {
    "var card": ("var held{k}: card = none", "held{k} = {one}", "held{k}", False),
    "var cards": ("var held{k}: cards = []", "held{k} = {many}", "held{k}", True),
    "player's card": ("var held{k}: card per player = none", "me.held{k} = {one}", "me.held{k}", False),
    "player's cards": ("var held{k}: cards per player = []", "me.held{k} = {many}", "me.held{k}", True),
    "let card": ("", "let held = {one}", "held", False),
    "let cards": ("", "let held = {many} where it.value >= 0", "held", True),
    "let zone": ("", "let held = {many}", "held", True),
    "list built": ("", "let held: cards = []\n    held = held + [{one}]", "held", True),
}
SOURCES = {"hand": ("top(next(me).hand)", "next(me).hand"), "deck": ("top(deck)", "deck")}


def _asks(name: str, many: bool, faces: int) -> str:
    read = f"top({name}).value" if many else f"{name}.value"
    return f"choose g in 1..{faces}\n    if g == {read} {{\n        me.right += 1\n    }}"


@st.composite
def peeking_games(draw) -> tuple[str, int]:
    players = draw(st.integers(2, 3))
    faces = draw(st.integers(2, 6))
    copies = draw(st.integers(1, 2))
    kinds = draw(st.lists(st.sampled_from(sorted(KEEPERS)), min_size=1, max_size=3, unique=True))
    decls, actions = [], []
    for k, kind in enumerate(kinds):
        one, many = SOURCES[draw(st.sampled_from(sorted(SOURCES)))]
        decl, store, name, is_list = KEEPERS[kind]
        decl, store, name = (part.format(k=k, one=one, many=many) for part in (decl, store, name))
        decls.append(decl)
        way = draw(st.sampled_from(["here", "later", "procedure"] if decl else ["here", "procedure"]))
        if way == "later":
            # Kept in one turn, asked about in a later one: the variable outlives the action.
            asks = _asks(name, is_list, faces)
            actions.append(f"action keep{k} {{\n    {store}\n}}\naction ask{k} {{\n    {asks}\n}}")
        elif way == "procedure":
            # Asked inside a procedure, the kept value passed in: the procedure's frame holds it.
            kind_name = "cards" if is_list else "card"
            actions.append(f"procedure ask{k}(h: {kind_name}) {{\n    {_asks('h', is_list, faces)}\n}}\n"
                           f"action guess{k} {{\n    {store}\n    ask{k}({name})\n}}")
        else:
            actions.append(f"action guess{k} {{\n    {store}\n    {_asks(name, is_list, faces)}\n}}")
    if draw(st.booleans()):
        # A loop asking about each card of a list: the loop's own locals wait with the decision.
        actions.append(f"""action each {{
    for each c in next(me).hand {{
        choose g in 1..{faces}
        if g == c.value {{
            me.right += 1
        }}
    }}
}}""")
    deck = ", ".join(f"{copies} number({v})" for v in range(1, faces + 1))
    text = f"""game "Peeking"
players {players}
card number(value) shown "{{value}}"
cards in deck {{ {deck}, 4 number(0) }}
zone deck: stack, hidden
zone hand per player: hand, private
zone pile: stack, public
{chr(10).join(d for d in decls if d)}
counter right per player = 0
setup {{
    shuffle deck
    deal 2 from deck to each hand
}}
{chr(10).join(actions)}
action play {{
    choose c in me.hand as "play"
    move c to pile
    draw 1 from deck to me.hand
}}
game ends when turn >= {draw(st.integers(4, 12))}
rank by highest it.right
"""
    return text, players


@given(peeking_games(), st.integers(0, 2**32 - 1))
def test_no_bot_peeks_in_generated_games_that_keep_cards(made, seed):
    text, players = made
    prog = check([parse_text(text, "<peeking>")], players, {})
    game = compile_program(prog)
    for s, rng in states_along(game, seed, STATES):
        if not s.is_over:
            assert_no_peeking(prog, s, s.chooser, rng.randrange(1000), bots=rng.random() < 0.5)


# ---------------------------------------------------------------- what the compiler records


def test_every_type_says_whether_it_can_name_a_card():
    """The checker's types (and lists of them) each have a rule; a type without one stops the compiler."""
    from rulesdsl.checker import ANY, NONE, SCALARS, TYPE_NAMES, ZONE, list_of
    from rulesdsl.compile import A_CARD, CARDS, NO_CARD, names_cards

    for t in [*TYPE_NAMES.values(), *map(list_of, (*SCALARS, ANY)), NONE, ANY]:
        assert names_cards(t) in (NO_CARD, A_CARD, CARDS)
    assert names_cards("card") == A_CARD
    assert names_cards("list[card]") == names_cards(ZONE) == CARDS
    with pytest.raises(AssertionError, match="does not know"):
        names_cards("hand of cards")


def test_the_compiler_lists_every_cell_that_can_hold_cards():
    text = (DATA / "peek_list.rules").read_text().replace(
        "var picks: cards = []",
        "var picks: cards = []\nvar one: card = none\nvar mine: cards per player = []\nvar n: int per player = 0")
    game = rulesdsl.load_text(text)
    base = {name: slot for name, (slot, _) in game.var_layout.items()}
    assert game.card_vars == (base["one"],)
    assert game.cardlist_vars == (base["picks"], base["mine"], base["mine"] + 1)
    assert game.holds_cardlists


def test_an_empty_list_of_no_said_type_is_refused():
    """Its items could be cards or numbers: nothing could tell a sampled world what to re-point."""
    text = (DATA / "peek_list.rules").read_text()
    for old, new, hint in [("var picks: cards = []", "var picks = []", "var picks: cards = []"),
                           ("    picks = next(me).hand", "    let mine = []\n    picks = next(me).hand",
                            "let mine: cards = []")]:
        with pytest.raises(rulesdsl.RulesError) as e:
            rulesdsl.load_text(text.replace(old, new))
        assert hint in str(e.value) and "<string>:" in str(e.value)


def test_a_local_that_is_a_zone_follows_the_zone_in_copies_and_worlds():
    """`let zone = next(me).hand` is the hand itself: in a copy, and in a sampled world, the copy's."""
    game = rulesdsl.load(DATA / "peek_locals.rules")
    s = guess_state(game, 1)
    frame = next(f for f in s.stack if f[0] == game.actions[0].code)
    code = game.codes[frame[0]]
    held = [frame[2][k] for k in code.cardlist_slots]
    assert any(any(v is z for z in s.zones) for v in held)
    for copy in (s.clone(), s.determinize(s.chooser, random.Random(3))):
        frame = next(f for f in copy.stack if f[0] == game.actions[0].code)
        for k in code.cardlist_slots:
            v = frame[2][k]
            assert not any(v is z for z in s.zones), "a copy's local must not be the original's zone"
        assert any(any(frame[2][k] is z for z in copy.zones) for k in code.cardlist_slots)


# ---------------------------------------------------------------- a shuffle tells only who knew


def passed_and_shuffled(seed: int):
    """Three players of passed_cards.rules, after alice passed a card to bob, whose hand was then
    shuffled: alice knows bob holds that card; carol knows nothing of bob's hand."""
    prog = program(DATA / "passed_cards.rules", 3)
    game = compile_program(prog)
    s = game.new_game(seed, log=False)
    s.apply(next(t for t in s.move_texts() if t.startswith("pass")))
    return prog, game, s


@pytest.mark.parametrize("seed", range(4))
def test_a_shuffled_hand_keeps_its_cards_only_for_the_seats_that_knew_them(seed):
    """The shuffle of bob's hand mixes its places; it does not tell a seat which cards it holds.
    Carol, who knew none of them, may imagine any of the cards she does not know there; alice keeps
    the card she passed there, and may imagine any other there. A twin in which a card of bob's
    hand and one of alice's traded faces (carol cannot tell them apart) gives carol the same worlds."""
    prog, game, s = passed_and_shuffled(seed)
    alice, carol = 0, 2
    bob_hand = game.zone_index("hand", 1)
    (passed,) = [c for c in range(game.ncards) if s.knows_where(c) & 1]
    hands = {p: set() for p in (alice, carol)}
    for k in range(40):
        for p in (alice, carol):
            w = s.determinize(p, random.Random(k), log=False)
            assert w.view(p) == s.view(p)
            hands[p].add(frozenset(w.game.card_text[c] for c in w.zones[bob_hand]))
            if p == alice:
                assert w.loc[passed] == bob_hand
    assert len(hands[carol]) > 5 and len(hands[alice]) > 3, "a world keeps bob's real hand"
    assert all(game.card_text[passed] in h for h in hands[alice])
    theirs = next(c for c in s.zones[bob_hand] if c != passed)
    mine = s.zones[game.zone_index("hand", alice)][0]
    t = twin(prog, s, {theirs: mine, mine: theirs})
    assert t.view(carol) == s.view(carol)
    for k in range(3):
        w1 = s.determinize(carol, random.Random(k), log=False)
        w2 = t.determinize(carol, random.Random(k), log=False)
        assert outcome(w1, k) == outcome(w2, k)


RESHUFFLED = """game "Reshuffled"
players 2
card n(value) shown "{value}"
cards in deck { 1 n(1), 1 n(2), 1 n(3), 1 n(4), 1 n(5), 1 n(6), 1 n(7), 1 n(8) }
zone deck: stack, hidden
zone pile: stack, public
zone hand per player: hand, private
setup {
    shuffle deck
    deal 2 from deck to each hand
    draw 2 from deck to pile
    move all from pile to deck
    shuffle deck
}
action play {
    choose c in me.hand
    move c to pile
}
game ends when empty(players.hand)
rank by highest it.seat
"""


def test_a_reshuffled_deck_keeps_only_the_cards_everyone_saw_go_into_it():
    """Two cards face up go back into a deck that still holds two cards nobody saw, and the deck
    is shuffled: every world keeps the two seen cards in the deck, but the two unseen ones may be
    any of the cards alice does not know, bob's included (before, bob's hand kept its real cards)."""
    game = rulesdsl.load_text(RESHUFFLED)
    unshuffled = rulesdsl.load_text(RESHUFFLED.replace("    shuffle deck\n}", "}"))
    for seed in range(4):
        s = game.new_game(seed, log=False)
        deck, bob = game.zone_index("deck"), game.zone_index("hand", 1)
        seen = unshuffled.new_game(seed, log=False).zones[deck][-2:]    # the two from the pile
        assert sorted(s.zones[deck]) == sorted(unshuffled.new_game(seed, log=False).zones[deck])
        hands = set()
        for k in range(30):
            w = s.determinize(0, random.Random(k), log=False)
            assert_world_keeps_what_the_seat_knows(s, w, 0)
            assert all(w.loc[c] == deck for c in seen)
            hands.add(frozenset(w.zones[bob]))
        assert len(hands) > 3


def test_a_save_keeps_what_each_seat_knows_of_a_shuffle():
    """`pools` goes into a save and comes back; a pool that names no group is refused."""
    _, game, s = passed_and_shuffled(2)
    back = rulesdsl.State.from_json(game, s.to_json())
    assert back.pooled() == s.pooled() and back.pools
    for p in range(3):
        a, b = s.determinize(p, random.Random(4), log=False), back.determinize(p, random.Random(4), log=False)
        assert a.zones == b.zones
    bad = json.loads(s.to_json())
    bad["pools"][0][1] = 10_000
    with pytest.raises(BadSave, match=r"pools\[0\]\[1\]"):
        rulesdsl.State.from_json(game, json.dumps(bad))


def notes(s: rulesdsl.State) -> int:
    """The shuffles noted since the pools were last worked out (hidden.py, `unpooled`)."""
    n, node = 0, s.unpooled
    while node is not None and len(node) > 2:
        n, node = n + 1, node[0]
    return n


@pytest.mark.parametrize("path", [GAMES / "tempurra.rules", GAMES / "slapjack.rules"], ids=lambda p: p.name)
def test_the_pools_worked_out_late_give_the_worlds_worked_out_at_every_move(path):
    """The shuffles noted since the pools were last worked out are replayed from the groups noted
    at the first of them (hidden.py, `pooled`): worked out once after several shuffles (cards
    shuffled again and again, their group changed by each), they give the same worlds, for every
    seat, as worked out after every move."""
    game = compile_program(program(path, 3))
    for seed in range(3):
        rng = random.Random(seed)
        late, often = game.new_game(seed, log=False), game.new_game(seed, log=False)
        while not late.is_over and notes(late) < 5:
            i = rng.randrange(late.num_moves())
            late.apply_index(i)
            often.apply_index(i)
            often.pooled()
        assert notes(late) >= 3 and notes(often) <= 1
        for p in range(game.players):
            for k in range(3):
                a = late.determinize(p, random.Random(k), log=False)
                b = often.determinize(p, random.Random(k), log=False)
                assert (a.zones, a.group) == (b.zones, b.group)
        assert late.pooled() == often.pooled()


def test_a_new_decks_first_shuffle_notes_nothing():
    """Random play never reads the pools, so a shuffle that leaves no seat a pool apart notes
    nothing (hidden.py, `_nothing_apart`): a new deck shuffled before anything moved, with other
    cards set apart face up; a deck of its own cards shuffled after others were dealt from
    elsewhere (Goofspiel's prizes). A deck that holds cards seen and unseen is noted when it is
    reshuffled (the test above: its leak)."""
    apart = RESHUFFLED.replace("zone pile: stack, public", "zone pile: stack, public\nzone box: stack, public")
    apart = apart.replace("cards in deck {", "cards in box { 2 n(9) }\ncards in deck {")
    setup = apart[apart.index("setup {"):apart.index("action play")]
    first = apart.replace(setup, "setup {\n    shuffle deck\n}\n")
    for game in (rulesdsl.load_text(first), rulesdsl.load(GAMES / "goofspiel.rules", players=4)):
        s = game.new_game(1, log=False)
        assert s.shuffles == 1 and s.unpooled is None and not s.pools
    s = rulesdsl.load_text(apart).new_game(1, log=False)
    assert s.shuffles == 2 and s.unpooled is not None and s.pooled()


@pytest.mark.parametrize("size", [5, 9, 40])
def test_a_shuffle_notes_what_was_known_before_it_writes_what_is_known_after(size):
    """shuffle_zone notes the seats' knowledge of the cards before it mixes them (the note reads no
    order), then writes each card's new knowledge and group as the mixing loop places it (from 9
    cards) or after it (fewer): the same note and the same writes either way."""
    game = rulesdsl.load(GAMES / "tempurra.rules", players=4)
    s = game.new_game(7, log=False)
    rng = random.Random(7)
    while s.unpooled is None or len(s.zones[0]) < size + 2:
        s.apply_index(rng.randrange(s.num_moves()))
    draw, discard = game.zone_index("draw"), game.zone_index("discard")
    for c in s.zones[draw][size:]:  # (the draw pile cut to `size` cards, the rest face up aside)
        s.loc[c] = discard
        s.known[c] = game.all_mask
    s.zones[discard] += s.zones[draw][size:]
    del s.zones[draw][size:]
    s.known[s.zones[draw][0]] = 1  # (a card seat 0 alone knows: the note must keep it)
    node, known, group, gid = s.unpooled, s.known[:], s.group[:], game.nzones + s.shuffles
    cards = sorted(s.zones[draw])
    s.shuffle_zone(draw)
    back, noted_gid, noted_cards, knew = s.unpooled
    assert back is node and noted_gid == gid and sorted(noted_cards) == cards and list(knew) == known
    assert sorted(s.zones[draw]) == cards
    for c in range(game.ncards):
        assert (s.known[c], s.group[c]) == ((0, gid) if c in cards else (known[c], group[c]))
