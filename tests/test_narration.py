"""The table tells the story (issue 22): the rules in player language (`about "..."`, display
names, `rulesdsl rules`, `rules` and `help MOVE` at the prompt), the events that explain (the
seed games' narration, the engine's own announcements), and that no narration shows a seat a
card it never saw.

Tamalo's tests cite M numbers and Tempurra's T numbers (../shared/RULINGS.md).
"""

from __future__ import annotations

import io
import random

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.cli import main, table_command
from rulesdsl.compile import compile_program
from rulesdsl.rulebook import rules_text

from . import test_tamalo as tamalo
from . import test_tempurra as tempurra
from .conftest import GAMES
from .test_peeking import RULES, program

ALICE, BOB, CAROL, DAVE = range(4)
SHIPPED = [p for p in RULES if p.parent.name != "variants"]


def run(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def since(st_: rulesdsl.State, seat: int, start: int) -> list[str]:
    return st_.events_for(seat)[start:]


# ---------------------------------------------------------------- the rules at the table

@pytest.mark.parametrize("path", RULES, ids=lambda p: p.name)
def test_every_game_describes_itself_and_each_of_its_actions(path):
    game = rulesdsl.load(path)
    assert not game.warnings, [w.message for w in game.warnings]       # nothing left undescribed
    text = rules_text(game)
    assert any(kind == "game" for kind, *_ in game.about)
    for a in game.actions:
        assert any(kind == "action" and name == a.name for kind, name, *_ in game.about), a.name
        assert f"    {a.lead_label}: " in text
    assert all(len(line) <= 80 for line in text.splitlines())


def test_the_rules_command_prints_the_rules_with_the_parameters_set():
    code, out, err = run("rules", str(GAMES / "tamalo.rules"), "--set", "winning_total=7")
    assert code == 0 and not err
    assert out.startswith("TAMALO: for 2 to 6 players\n")
    assert "call \"Tamalo\" when you think your cards add up to 7 points or less" in out.replace("\n", " ")
    assert "draw pile [deck]:" in out and "  winning_total = 7 (0..50): the most points" in out
    assert "    take: take the top card of the discard pile" in out


def test_the_rules_command_of_an_undescribed_game_says_so(tmp_path):
    path = tmp_path / "bare.rules"
    path.write_text('game "Bare"\nplayers 2\ncard c\ncards in deck { 2 c }\nzone deck: stack\naction go { end game }\n'
                    'rank by lowest 0\n')
    code, out, _ = run("rules", str(path))
    assert code == 0 and "describes nothing of itself" in out and "    go\n" in out


def test_the_rules_command_refuses_a_bad_file_with_its_place(tmp_path):
    path = tmp_path / "bad.rules"
    path.write_text('game "B"\nplayers 2\ncard c\nabout "x" cards in deck { 2 c }\n'
                    'zone deck: stack\naction go { end game }\nrank by lowest 0\n')
    code, _, err = run("rules", str(path))
    assert code == 1 and "bad.rules:4:7: error: a description cannot stand before `cards in`" in err


def test_rules_and_help_at_the_prompt():
    code, out, _ = run("play", str(GAMES / "tamalo.rules"), "--seed", "3", "--players", "3",
                       stdin="rules\nhelp 1\nhelp draw\nhelp nothing\nquit\n")
    assert code == 0
    assert "On your turn, do one of these:" in out                            # `rules`
    assert "snap 1: Snaps. A card of your square of the same rank" in out    # a move of a procedure
    assert "draw: draw the top card of the draw pile" in out and "(Not one of your moves now.)" in out
    assert "'nothing' is not one of your moves" in out


def test_M5c_help_names_the_power_moves_in_the_rules_words():
    _, s = tamalo.table(ALICE, squares=tamalo.QUIET, discard=["5♣"], deck_top=["J♥"])
    assert table_command(s, "help take 2").startswith("take 2: take the top card of the discard pile")
    s.apply("draw")
    assert table_command(s, "help swap 1").startswith("swap 1: draw the top card")   # the action's words
    s.apply("play")
    assert table_command(s, "help give 1").startswith("give 1: Powers, of a card drawn and played")
    s.apply("give 1")
    assert s.move_texts()[0] == "for bob 1"                # the J/Q exchange no longer says `take`
    assert table_command(s, "help 1").startswith("for bob 1: Powers")
    assert table_command(s, "view") is None and table_command(s, "help") is None


def test_display_names_are_the_rulebooks_words():
    assert tamalo.game_for(4).display_names == {
        "deck": "draw pile", "discard": "discard pile", "drawn": "drawn card", "caller": "Tamalo called by",
        "score": "points"}
    names = tempurra.game_for(4).display_names
    assert names["draw"] == "draw pile" and names["tokens"] == "indigestion tokens"
    assert names["current_number"] == "current number" and names["eaten"] == "mouthful"
    assert rulesdsl.load_text('game "G"\nplayers 2\ncard c\ncards in z { 2 c }\nzone z: stack\naction a { end game }\n'
                              'rank by lowest 0\n', path="g.rules").display_names == {}


def test_a_variant_keeps_the_display_names_and_words_of_what_it_replaces():
    game = rulesdsl.load(GAMES / "variants" / "tempurra-two-tokens.rules")
    assert game.display_names["tokens"] == "indigestion tokens"
    assert ("param", "tokens_to_lose", "indigestion tokens that end the game") in [a[:3] for a in game.about]
    assert "the game ends at two indigestion tokens" in rules_text(game)


# ---------------------------------------------------------------- Tamalo's events

def test_M8_a_wrong_snap_says_why_and_names_its_penalty():
    _, s = tamalo.table(ALICE, squares=tamalo.QUIET, discard=["5♣"])
    s.apply("take 1")                                   # the 2♠ goes on the pile: bob's window first
    start = [len(s.events_for(p)) for p in range(4)]
    s.apply("snap 4")                                   # bob's 6♥ is no 2
    for p in range(4):
        lines = since(s, p, start[p])
        assert lines[:3] == ["bob: snap 4", "revealed in bob.square: 6♥",
                             "bob snaps 6♥ on 2♠: not the same rank. It goes back, and bob takes a penalty card"]
    assert len(s.zone("square", player=BOB)) == 5


def test_M7_a_right_snap_says_which_place_it_leaves_empty():
    _, s = tamalo.table(ALICE, squares={**tamalo.QUIET, BOB: ["2♥", "3♥", "4♥", "2♣"],
                                        DAVE: ["6♣", "3♣", "4♣", "7♣"]}, discard=["5♣"])
    s.apply("take 1")
    start = len(s.events_for(CAROL))
    s.apply("snap 4")
    assert "bob snaps 2♣ on 2♠: the same rank, and place 4 stays empty" in since(s, CAROL, start)


def test_M6_the_call_and_each_last_turn_are_told():
    _, s = tamalo.table(BOB, squares=tamalo.QUIET, discard=["5♣"])
    start = len(s.events_for(ALICE))
    s.apply("call")
    lines = since(s, ALICE, start)
    assert "bob calls Tamalo! Everyone else has one last turn; no power can reach bob's cards now" in lines
    assert "last turn for carol: bob called Tamalo" in lines
    assert "caller" in [name for name, *_ in s.game.shows]          # the table shows who called


def _called_and_counted(alice: list[str], bob: list[str]) -> list[str]:
    """Alice calls; bob draws a 4♣ and plays it (no power); both pass the window: the count."""
    _, s = tamalo.table(ALICE, players=2, squares={ALICE: alice, BOB: bob}, discard=["5♣"], deck_top=["4♣"])
    for move in ("call", "draw", "play", "pass", "pass"):
        s.apply(move)
    assert s.is_over
    return s.events_for(BOB)


def test_M10_the_end_says_why_the_caller_won():
    lines = _called_and_counted(["A♠", "2♠", "K♥", "K♦"], ["9♥", "9♦", "9♣", "8♥"])
    assert "alice called Tamalo with 3 points: 5 or less and the lowest, so alice wins" in lines


def test_M10_the_end_says_why_a_caller_over_the_limit_lost():
    lines = _called_and_counted(["A♠", "2♠", "3♠", "K♦"], ["9♥", "9♦", "9♣", "8♥"])
    assert ("alice called Tamalo with 6 points, more than 5: the caller loses, and the lowest total of the "
            "others wins") in lines


def test_M10_the_end_says_a_tie_goes_against_the_caller():
    lines = _called_and_counted(["A♠", "2♠", "K♥"], ["A♥", "2♥", "K♦"])
    assert ("alice called Tamalo with 3 points, but bob has 3: a tie or less beats the caller, and the lowest "
            "total of the others wins") in lines


def test_M11_the_refill_is_told_in_the_tables_words():
    _, s = tamalo.table(ALICE, squares=tamalo.QUIET, discard=["5♣"])
    tamalo.deck_to_discard(s)
    start = len(s.events_for(BOB))
    s.apply("draw")
    lines = since(s, BOB, start)
    assert "the draw pile is empty: the discard pile but its top card is shuffled to make a new one" in lines
    assert "discard is shuffled to make a new deck" in s.events_for(BOB, level=1)   # the detailed log keeps it


# ---------------------------------------------------------------- Tempurra's events

def test_T12_the_empty_hand_draw_says_why():
    top = ["6", "reverse", "4"]
    _, s = tempurra.table(hands={BOB: ["+1", "6"], CAROL: []}, plate=["4"], draw_top=top)
    start = len(s.events_for(DAVE))
    s.apply("play +1")
    lines = since(s, DAVE, start)
    told = lines.index("carol has no cards in hand: carol eats 3 cards first")
    assert lines[told + 1] == "revealed in eaten: 4 reverse 6"


def test_T8a_indigestion_tells_the_token_and_the_end_of_the_round():
    top = ["5", "4", "choose", "6", "2", "indigestion"]
    _, s = tempurra.table(hands={BOB: ["+1"]}, plate=["3", "3"], draw_top=top)
    start = len(s.events_for(ALICE))
    s.apply("eat")
    lines = since(s, ALICE, start)
    assert lines.index("bob eats a mouthful of 6 cards") < lines.index("bob has indigestion")
    assert "bob takes an indigestion token (1 of 3), and the round ends" in lines
    assert "a new round: bob took the last token and begins the plate" in lines


def test_T6_a_duty_passed_on_is_told():
    _, s = tempurra.table(hands={ALICE: ["+1"], BOB: ["reverse"], CAROL: ["5"]}, plate=["2"],
                          draw_top=["choose", "+1"])
    start = len(s.events_for(DAVE))
    s.apply("eat")                                      # bob eats 2 and holds no dish: carol begins
    lines = since(s, DAVE, start)
    assert lines.index("bob clears the plate and begins a new one") \
        < lines.index("bob holds no dish card: carol begins the plate instead")


def test_T15_the_end_says_who_lost_and_how_the_winner_is_found():
    game = tempurra.game_for(4, tokens_to_lose=1)
    s = game.new_game(7)
    rng = random.Random(7)
    while not s.is_over:
        s.apply_index(rng.randrange(s.num_moves()))
    loser = s.value("loser")
    assert (f"{game.names[loser]} has 1 indigestion tokens: the game is over. The fewest tokens win; a tie goes "
            "to the most cards in hand") in s.events_for(ALICE)
    assert "the game is over" not in "".join(tempurra.game_for(4).new_game(7).events_for(ALICE))


# ---------------------------------------------------------------- the engine's own announcements

def test_a_shuffle_is_told_by_the_tables_name_of_the_zone():
    s = tempurra.game_for(4).new_game(3)
    assert s.events_for(ALICE)[:2] == ["the draw pile is shuffled", "the draw pile is shuffled"]
    plain = rulesdsl.load_text('game "G"\nplayers 2\ncard c(n)\ncards in deck { 4 c(1) }\nzone deck: stack\n'
                               'zone hand per player: hand\nsetup { deal 1 from deck to each hand\n'
                               'shuffle deck\nshuffle me.hand }\naction a { end game }\nrank by lowest 0\n',
                               path="g.rules").new_game(1)
    assert plain.events_for(0)[:2] == ["the deck is shuffled", "alice's hand is shuffled"]


def test_a_decision_out_of_turn_is_told_once_to_everyone():
    _, s = tamalo.table(ALICE, squares=tamalo.QUIET, discard=["5♣"])
    start = [len(s.events_for(p)) for p in range(4)]
    s.apply("take 1")
    for p in range(4):
        assert since(s, p, start[p])[-1] == "bob to decide in alice's turn"
    s.apply("snap 4")                                   # bob's 6♥, a wrong snap: carol is next
    s.apply("pass")                                     # carol passes: dave is next
    lines = since(s, ALICE, start[ALICE])
    assert lines.count("carol to decide in alice's turn") == 1 and lines.count("dave to decide in alice's turn") == 1
    assert "alice to decide in alice's turn" not in lines     # the turn's own player is not out of turn


def test_a_secret_decision_is_not_announced():
    game = rulesdsl.load(GAMES / "goofspiel.rules")
    s = game.new_game(1)
    assert not any(" to decide " in e for e in s.events_for(0) + s.events_for(1))


# ---------------------------------------------------------------- no narration shows an unseen card

def play(game: rulesdsl.Game, seed: int, picks: list[int]) -> tuple[rulesdsl.State, set[int]]:
    """A game with its log, played by move indices (as far as they go), and the cards some seat
    knew at some point: by face, by an event that showed it, by whereabouts or by an attribute."""
    s = game.new_game(seed)
    seen: set[int] = set()

    def look() -> None:
        seen.update(c for c in range(game.ncards) if s.known[c] & game.all_mask)
        seen.update(s.partial)
        seen.update(c for c in s.where if s.knows_where(c))

    look()
    for i in picks:
        if s.is_over:
            break
        s.apply_index(i)
        look()
    for ev in s.log:
        seen.update(c for c, m in zip(ev[3], ev[4], strict=True) if m & game.all_mask)
    return s, seen


def told(s: rulesdsl.State, seat: int) -> tuple:
    """The seat's log, and the words of its view (a hand is shown sorted by the order in which
    the file lists its faces, which a twin changes: the words are compared, not their order)."""
    return s.events_for(seat, level=1), sorted(s.view(seat, events=0).split())


_GAMES: dict[int, tuple] = {}


def _compiled(prog) -> rulesdsl.Game:
    """The program compiled once (programs are kept alive by test_peeking's cache, and here)."""
    if id(prog) not in _GAMES:
        _GAMES[id(prog)] = (prog, compile_program(prog))
    return _GAMES[id(prog)][1]


def assert_told_alike(prog, seed: int, picks: list[int], rng: random.Random) -> None:
    """Played again in a twin game whose cards nobody ever saw traded faces (among the cards that
    start in one zone), the same moves give every seat the same log and view: nothing the game
    tells (a move, a reveal, a `say`, an announcement) depends on a card no seat saw."""
    game = _compiled(prog)
    s, seen = play(game, seed, picks)
    unseen: dict[int, list[int]] = {}
    for c, info in enumerate(prog.cards):
        if c not in seen:
            unseen.setdefault(info.zone, []).append(c)
    sigma: dict[int, int] = {}
    for cards in unseen.values():
        other = cards[:]
        rng.shuffle(other)
        sigma.update(zip(cards, other, strict=True))
    cards = [attrs.evolve(info, kind=prog.cards[sigma.get(c, c)].kind, values=prog.cards[sigma.get(c, c)].values)
             for c, info in enumerate(prog.cards)]
    t, _ = play(compile_program(attrs.evolve(prog, cards=cards), game.names), seed, picks[: s.moves])
    for seat in range(game.players):
        assert told(t, seat) == told(s, seat)


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.name)
@settings(max_examples=max(2, settings().max_examples // 15), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), moves=st.integers(5, 200))
def test_no_narration_shows_a_seat_a_card_it_never_saw(path, seed, moves):
    """Every event of the log (moves, reveals, the rules' `say`, the engine's announcements) and
    the view read the same, to every seat, whatever the faces of the cards nobody saw."""
    prog = program(path)
    rng = random.Random(seed)
    picks: list[int] = []
    s = _compiled(prog).new_game(seed % 10_000, log=False)
    while len(picks) < moves and not s.is_over:
        picks.append(rng.randrange(s.num_moves()))
        s.apply_index(picks[-1])
    assert_told_alike(prog, seed % 10_000, picks, rng)


def test_the_twin_check_sees_a_say_that_tells_a_hidden_card():
    """The property above fails for a rule that says a hidden card's number in words."""
    from rulesdsl.checker import check
    from rulesdsl.parser import parse_text

    text = ('game "Leak"\nplayers 2\ncard c(n)\ncards in deck { 1 c(1), 1 c(2), 1 c(3), 1 c(4) }\n'
            'zone deck: stack, hidden\nsetup { shuffle deck\nsay "the top is {top(deck).n}" }\n'
            'action a { end game }\nrank by lowest 0\n')
    prog = check([parse_text(text, "leak.rules")])
    failed = 0
    for seed in range(6):
        try:
            assert_told_alike(prog, seed, [0], random.Random(seed))
        except AssertionError:
            failed += 1
    assert failed
