"""Tempurra, rule by rule: every test names the rule (T1..T16 of seeds/tempurra.md) it checks.

Most tests set up a table on a stacked deck and look at what the engine does: the legal moves,
the zones, the counters, who plays next, what each seat saw. The usual table is four players
(alice, bob, carol, dave) with seed 5: alice starts, begins the plate, and it is bob's turn. The
helpers below then rewrite hands, plate, discard and the top of the draw pile, and check that the
deck still holds its 95 cards.
"""



from __future__ import annotations

import functools
import random
from collections import Counter

import pytest

import rulesdsl
from tests.conftest import tempurra

ALICE, BOB, CAROL, DAVE = range(4)
DISHES = ("2", "3", "4", "5", "6", "7")
DECK = Counter({
    "2": 14, "3": 14, "4": 12, "5": 12, "6": 10, "7": 10,   # T1
    "+1": 7, "reverse": 5, "choose": 5,                      # T2
    "indigestion": 6,                                        # T3
})
TABLE_ZONES = ("draw", "plate", "discard", "eaten", "sick", "box")
ADD = ["add indigestion yes", "add indigestion no"]


# ---------------------------------------------------------------- helpers

@functools.cache
def game_for(players: int = 4, **params) -> rulesdsl.Game:
    return tempurra(players, **params)


def all_faces(st: rulesdsl.State) -> Counter:
    faces: Counter = Counter()
    for z in TABLE_ZONES:
        faces.update(st.zone(z))
    for p in range(st.game.players):
        faces.update(st.zone("hand", player=p))
    return faces


def assert_conserved(st: rulesdsl.State) -> None:
    """Every card is somewhere, once: 95 cards of the right faces (T1-T3)."""
    faces = all_faces(st)
    assert faces == DECK, f"cards lost or made: {faces - DECK} extra, {DECK - faces} missing"
    seen = [c for zi in range(st.game.nzones) for c in st.zones[zi] if c is not None]
    assert sorted(seen) == list(range(st.game.ncards))


def hand(st: rulesdsl.State, p: int) -> list[str]:
    return sorted(st.zone("hand", player=p))


def in_deck(st: rulesdsl.State) -> int:
    """Indigestion cards in play: all those not kept apart in the box (T14, T16)."""
    return 6 - st.zone("box").count("indigestion")


def cards_of(st: rulesdsl.State, zone: str, player: int | None = None) -> list[int]:
    return list(st.zones[st.game.zone_index(zone, player)])


def revealed_in_hand(st: rulesdsl.State, p: int) -> list[str]:
    """The faces of p's hand that every seat knows."""
    g = st.game
    return sorted(g.card_text[c] for c in cards_of(st, "hand", p) if st.known[c] == g.all_mask)


def set_deck_indigestion(st: rulesdsl.State, k: int) -> None:
    """Make the draw pile hold exactly k indigestion cards, the others kept apart in the box."""
    n = st.zone("draw").count("indigestion")
    if k > n:
        st.set_cards("draw", st.zone("draw") + ["indigestion"] * (k - n))
    elif k < n:
        st.set_cards("box", ["indigestion"] * (st.zone("box").count("indigestion") + n - k))
    assert st.zone("draw").count("indigestion") == k


def stack_draw(st: rulesdsl.State, top: list[str]) -> None:
    """Put these faces on top of the draw pile, the last one on the very top, by rearranging the
    pile only (indigestion cards not asked for go to the bottom). The faces must be in the pile."""
    if top.count("indigestion") > st.zone("draw").count("indigestion"):
        set_deck_indigestion(st, top.count("indigestion"))
    rest = st.zone("draw")
    for f in top:
        assert f in rest, f"no '{f}' left in the draw pile to stack"
        rest.remove(f)
    rest = [f for f in rest if f == "indigestion"] + [f for f in rest if f != "indigestion"]
    st.set_cards("draw", rest + list(top))
    if top:
        assert st.zone("draw")[-len(top):] == list(top)


def arrange(st, *, hands=None, plate=None, discard=None, draw_top=None, deck_indigestion=None) -> None:
    if deck_indigestion is not None:
        set_deck_indigestion(st, deck_indigestion)
    for p, faces in (hands or {}).items():
        st.set_cards("hand", faces, player=p)
    if plate is not None:
        st.set_cards("plate", plate)
    if discard is not None:
        st.set_cards("discard", discard)
    if draw_top is not None:
        stack_draw(st, draw_top)
    for p, faces in (hands or {}).items():
        assert hand(st, p) == sorted(faces)
    if plate is not None:
        assert st.zone("plate") == list(plate)
    assert_conserved(st)


def table(turn: int = BOB, *, players: int = 4, seed: int = 5, **kw):
    """A game in its first turn: the starter has begun the plate; `turn` is to act."""
    params = {k: kw.pop(k) for k in list(kw) if k not in ("hands", "plate", "discard", "draw_top",
                                                          "deck_indigestion")}
    game = game_for(players, **params)
    st = game.new_game(seed=seed)
    st.apply(st.move_texts()[0])
    if st.turn_player != turn:
        st.set_turn(turn)
    arrange(st, **kw)
    assert st.current_player == turn
    return game, st


def new_events(st: rulesdsl.State, seat: int, since: int) -> list[str]:
    return st.events_for(seat)[since:]


def reveal_lines(lines: list[str]) -> list[str]:
    return [e.removeprefix("revealed in eaten: ") for e in lines if e.startswith("revealed in eaten: ")]


def drawn(top: list[str], n: int) -> list[str]:
    """The first n cards drawn from a pile stacked with `top` (last is the very top), in order."""
    return list(reversed(top))[:n]


def play_random(players: int, seed: int, check, max_moves: int = 2000, **params) -> rulesdsl.State:
    """A random game; check(before, after, move) is called after each move."""
    game = game_for(players, **params)
    st = game.new_game(seed=seed)
    rng = random.Random(seed * 31 + players)
    check(None, st, None)
    for _ in range(max_moves):
        if st.is_over:
            break
        before = st.clone(log=False)
        move = st.move_texts()[rng.randrange(st.num_moves())]
        st.apply(move)
        check(before, st, move)
    assert st.is_over
    return st


# ---------------------------------------------------------------- T1-T3: components

@pytest.mark.parametrize("players", [3, 4, 7])
def test_T1_dish_cards_are_fourteen_fourteen_twelve_twelve_ten_ten(players):
    for seed in range(3):
        st = game_for(players).new_game(seed=seed)
        faces = all_faces(st)
        assert {f: faces[f] for f in DISHES} == {"2": 14, "3": 14, "4": 12, "5": 12, "6": 10, "7": 10}
        assert sum(faces[f] for f in DISHES) == 72
        assert_conserved(st)


def test_T2_action_cards_seven_plus_one_five_reverse_five_choose(tempurra4):
    st = tempurra4.new_game(seed=1)
    faces = all_faces(st)
    assert (faces["+1"], faces["reverse"], faces["choose"]) == (7, 5, 5)
    assert sum(faces.values()) == 95


def test_T3_indigestion_kept_apart_tokens_zero_direction_clockwise():
    for players in (3, 5, 7):
        st = game_for(players).new_game(seed=players)
        assert all_faces(st)["indigestion"] == 6
        assert st.zone("box") == ["indigestion"] * 5      # kept apart, but for the one of T4
        assert st.zone("draw").count("indigestion") == 1
        assert all(st.counter("tokens", p) == 0 for p in range(players))
        assert st.direction == 1


def test_T3_fifteen_tokens_are_enough_for_seven_players():
    # The game ends at the third token (T15), so seven players never need more than 7*2+1 = 15.
    for seed in range(3):
        st = play_random(7, seed, lambda *a: None)
        assert sum(st.counter("tokens", p) for p in range(7)) <= 15
        assert max(st.counter("tokens", p) for p in range(7)) == 3


# ---------------------------------------------------------------- T4-T6: setup, beginning a plate

@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_T4_five_cards_each_and_one_indigestion_shuffled_into_the_draw(players):
    g = game_for(players)
    st = g.new_game(seed=11)
    for p in range(players):
        cards = cards_of(st, "hand", p)
        assert len(cards) == 5
        assert "indigestion" not in st.zone("hand", player=p)          # dealt before it goes in
        assert all(st.known[c] == 1 << p for c in cards)                # private to the owner
    draw = cards_of(st, "draw")
    assert len(draw) == 89 - 5 * players + 1
    assert st.zone("draw").count("indigestion") == 1
    assert all(st.known[c] == 0 for c in draw)                          # face down
    assert st.zone("plate") == [] and st.zone("discard") == []
    assert_conserved(st)


def test_T4_deal_and_indigestion_place_are_shuffled(tempurra4):
    hands, places = set(), set()
    for seed in range(12):
        st = tempurra4.new_game(seed=seed)
        hands.add(tuple(st.zone("hand", player=0)))
        places.add(st.zone("draw").index("indigestion"))
        for p in range(4):
            assert "indigestion" not in st.zone("hand", player=p)
    assert len(hands) >= 10 and len(places) >= 10


def test_T4_hand_size_parameter():
    st = game_for(4, hand_size=7).new_game(seed=3)
    assert [len(st.zone("hand", player=p)) for p in range(4)] == [7] * 4
    assert len(st.zone("draw")) == 89 - 28 + 1


def test_T4_hands_are_private_in_view_and_log(tempurra4):
    st = tempurra4.new_game(seed=5)
    starter = st.current_player

    def row(viewer: int, seat: int) -> str:
        name = st.game.names[seat]
        return next(line for line in st.view(viewer).splitlines() if line[2:].split()[:1] == [name])

    for viewer in range(4):
        for seat in range(4):
            if seat != viewer:
                assert row(viewer, seat).endswith(" 5 cards")
        assert not row(viewer, viewer).endswith(" 5 cards")           # one's own faces are shown
    move = st.move_texts()[0]
    st.apply(move)
    for p in range(4):
        assert f"{st.game.names[starter]}: {move}" in st.events_for(p)   # the plate is public
        if p != starter:
            assert row(p, starter).endswith(" 4 cards")


def test_T5_first_player_is_random_and_begins_the_plate(tempurra4):
    starters = set()
    for seed in range(30):
        st = tempurra4.new_game(seed=seed)
        s = st.value("starter")
        starters.add(s)
        assert st.round == 1 and st.turn == 0
        if not any(f in DISHES for f in st.zone("hand", player=s)):
            continue
        assert st.current_player == s
        texts = st.move_texts()
        assert sorted(texts) == sorted({f"begin {f}" for f in st.zone("hand", player=s) if f in DISHES})
        st.apply(texts[-1])
        assert st.zone("plate") == [texts[-1].split()[1]]
        assert len(st.zone("hand", player=s)) == 4
        assert st.direction == 1
        assert st.turn_player == (s + 1) % 4 and st.turn == 1            # play passes to the left
    assert starters == {0, 1, 2, 3}


def test_T6_begin_offers_only_dish_cards(tempurra4):
    st = tempurra4.new_game(seed=1104)
    assert st.current_player == ALICE
    st.set_cards("hand", ["+1", "choose", "reverse", "4", "6", "4"], player=ALICE)
    assert sorted(st.move_texts()) == ["begin 4", "begin 6"]
    with pytest.raises(rulesdsl.IllegalMove):
        st.apply("begin +1")
    st.apply("begin 6")
    assert st.zone("plate") == ["6"]
    assert st.value("current_number") == 6 and st.value("plate_sum") == 6


def test_T6_duty_passes_to_next_player_with_a_dish():
    _, st = table(hands={ALICE: ["6", "6"], BOB: ["+1"], CAROL: ["reverse", "choose"], DAVE: ["5", "4"]},
                  plate=["2"], draw_top=["choose", "+1"])
    st.apply("eat")
    assert hand(st, BOB) == ["+1", "+1", "choose"]                   # no dish: bob cannot begin
    assert st.zone("discard") == ["2"]
    assert st.current_player == DAVE                                  # carol has none either
    assert sorted(st.move_texts()) == ["begin 4", "begin 5"]
    st.apply("begin 4")
    assert st.zone("plate") == ["4"]
    assert st.turn_player == ALICE                                    # play goes on from dave
    assert st.counter("tokens", BOB) == 0


def test_T6_duty_passes_in_the_current_direction():
    _, st = table(hands={ALICE: ["+1"], BOB: ["reverse", "3"], CAROL: ["5", "6"], DAVE: ["choose", "+1"]},
                  plate=["2"], draw_top=["reverse", "choose"])
    st.apply("play reverse")
    assert st.turn_player == ALICE and st.direction == -1
    st.apply("eat")                                                   # draws choose, reverse: no dish
    assert hand(st, ALICE) == ["+1", "choose", "reverse"]
    # Counterclockwise from alice: dave (no dish), then carol; clockwise it would have been bob.
    assert st.current_player == CAROL
    assert sorted(st.move_texts()) == ["begin 5", "begin 6"]
    st.apply("begin 5")
    assert st.direction == -1
    assert st.turn_player == BOB                                      # carol's neighbour, counterclockwise


def test_T6_nobody_has_a_dish_duty_holder_draws_three_revealed():
    top = ["7", "reverse", "+1", "choose", "+1"]
    _, st = table(hands={ALICE: ["+1"], BOB: ["reverse"], CAROL: ["choose"], DAVE: ["+1"]},
                  plate=["2"], draw_top=top)
    since = [len(st.events_for(p)) for p in range(4)]
    st.apply("eat")
    # The eat draws 2 (+1, choose); then nobody holds a dish, so bob draws 3 (+1, reverse, 7).
    assert hand(st, BOB) == sorted(["reverse", "+1", "choose", "+1", "reverse", "7"])
    assert st.current_player == BOB and st.move_texts() == ["begin 7"]
    assert revealed_in_hand(st, BOB) == sorted(["+1", "choose", "+1", "reverse", "7"])
    for p in range(4):
        assert reveal_lines(new_events(st, p, since[p])) == ["+1 choose", "+1 reverse 7"]
    assert st.counter("tokens", BOB) == 0 and st.round == 1
    st.apply("begin 7")
    assert st.zone("plate") == ["7"] and st.turn_player == CAROL


def test_T6_nobody_has_a_dish_draws_again_until_a_dish_comes():
    top = ["6", "+1", "reverse", "choose", "reverse", "+1", "+1", "choose"]
    _, st = table(hands={ALICE: ["+1"], BOB: ["reverse"], CAROL: ["choose"], DAVE: ["+1"]},
                  plate=["2"], draw_top=top)
    since = len(st.events_for(CAROL))
    st.apply("eat")
    assert reveal_lines(new_events(st, CAROL, since)) == ["choose +1", "+1 reverse choose", "reverse +1 6"]
    assert st.current_player == BOB and st.move_texts() == ["begin 6"]
    assert len(st.zone("hand", player=BOB)) == 1 + 2 + 3 + 3


def test_T6_nobody_has_a_dish_and_the_draw_holds_indigestion_ends_the_round():
    top = ["4", "indigestion", "reverse", "choose", "+1"]
    _, st = table(hands={ALICE: ["+1"], BOB: ["reverse"], CAROL: ["choose"], DAVE: ["+1"]},
                  plate=["2"], draw_top=top)
    st.apply("eat")
    assert st.round == 2
    assert st.counter("tokens", BOB) == 1 and st.value("loser") == BOB
    assert hand(st, BOB) == sorted(["reverse", "+1", "choose", "reverse", "4"])
    assert st.current_player == BOB and st.move_texts() == ADD


# ---------------------------------------------------------------- T7: serve

def test_T7_serve_only_the_current_number_actions_on_top_do_not_change_it():
    _, st = table(hands={BOB: ["4", "5", "+1"]}, plate=["4", "+1", "reverse"])
    assert st.value("current_number") == 4
    assert "serve 4" in st.move_texts() and "serve 5" not in st.move_texts()
    saved = st.to_json()
    with pytest.raises(rulesdsl.IllegalMove):
        st.apply("serve 5")
    assert st.to_json() == saved
    st.apply("serve 4")
    assert st.zone("plate") == ["4", "+1", "reverse", "4"]
    assert hand(st, BOB) == ["+1", "5"]
    assert st.value("current_number") == 4 and st.value("plate_sum") == 9
    assert st.turn_player == CAROL


def test_T7_current_number_is_the_most_recent_dish():
    _, st = table(hands={BOB: ["3", "5", "7"]}, plate=["3", "+1", "5", "choose"])
    assert st.value("current_number") == 5
    assert [t for t in st.move_texts() if t.startswith("serve")] == ["serve 5"]


# ---------------------------------------------------------------- T8: eat

def test_T8_eat_draws_the_plate_sum_plus_one_per_plus_one():
    top = ["2", "3", "4", "5", "6", "7", "+1", "reverse", "choose"]
    _, st = table(hands={BOB: ["+1"]}, plate=["3", "+1", "reverse", "3", "choose", "+1"], draw_top=top)
    assert st.value("plate_sum") == 8                                 # 3 + 1 + 3 + 1
    assert "eat" in st.move_texts()
    st.apply("eat")
    assert hand(st, BOB) == sorted(["+1", *drawn(top, 8)])
    assert st.zone("draw")[-1] == "2"                                 # exactly 8 were taken


def test_T8_eaten_cards_are_revealed_to_everyone():
    top = ["6", "reverse", "5", "2", "7"]
    _, st = table(hands={BOB: ["+1", "3"]}, plate=["2", "3"], draw_top=top)
    since = [len(st.events_for(p)) for p in range(4)]
    st.apply("eat")
    assert revealed_in_hand(st, BOB) == sorted(top)                   # not the +1 and 3 he had
    for p in range(4):
        assert reveal_lines(new_events(st, p, since[p])) == ["7 2 5 reverse 6"]
    assert "7 cards; known: 2 5 6 7 reverse" in st.view(ALICE)   # not his +1 and 3


def test_T8a_one_token_however_many_indigestion_cards():
    top = ["5", "indigestion", "choose", "indigestion", "2", "indigestion"]
    _, st = table(hands={BOB: ["+1"]}, plate=["3", "3"], draw_top=top)
    assert in_deck(st) == 3
    st.apply("eat")
    assert [st.counter("tokens", p) for p in range(4)] == [0, 1, 0, 0]
    assert st.value("loser") == BOB and st.round == 2
    assert st.current_player == BOB and st.move_texts() == ADD
    assert in_deck(st) == 3 and st.zone("draw").count("indigestion") == 3


def test_T8a_all_cards_are_drawn_then_revealed_together():
    # The very first card drawn is an indigestion card: the five after it are still drawn.
    top = ["5", "4", "choose", "6", "2", "indigestion"]
    _, st = table(hands={BOB: ["+1"]}, plate=["3", "3"], draw_top=top)
    since = [len(st.events_for(p)) for p in range(4)]
    st.apply("eat")
    for p in range(4):
        lines = new_events(st, p, since[p])
        assert reveal_lines(lines) == ["indigestion 2 6 choose 4 5"]  # one reveal of all six
        assert lines.index("bob has indigestion") > lines.index("revealed in eaten: indigestion 2 6 choose 4 5")
    assert st.counter("tokens", BOB) == 1


def test_T8b_drawn_cards_go_to_hand_even_when_the_round_ends():
    top = ["5", "4", "indigestion", "choose", "6", "2"]
    _, st = table(hands={ALICE: ["2", "3"], BOB: ["+1"], CAROL: ["7"], DAVE: ["reverse", "4"]},
                  plate=["3", "3"], draw_top=top)
    others = {p: hand(st, p) for p in (ALICE, CAROL, DAVE)}
    st.apply("eat")
    assert st.round == 2
    assert hand(st, BOB) == sorted(["+1", "2", "6", "choose", "4", "5"])
    assert "indigestion" not in st.zone("hand", player=BOB)
    assert revealed_in_hand(st, BOB) == sorted(["2", "6", "choose", "4", "5"])
    assert {p: hand(st, p) for p in others} == others


def test_T8b_indigestion_never_reaches_a_hand_in_random_games():
    def check(before, st, move):
        for p in range(st.game.players):
            assert "indigestion" not in st.zone("hand", player=p)
        assert "indigestion" not in st.zone("plate") + st.zone("discard")

    for players in (3, 5):
        play_random(players, 7, check)


def test_T8c_draw_pile_runs_out_mid_eat_discard_is_shuffled_in():
    _, st = table(hands={BOB: ["+1"]}, plate=["5"], deck_indigestion=0)
    draw = st.zone("draw")
    for f in ("2", "3"):
        draw.remove(f)
    st.set_cards("discard", draw)                                     # all the draw pile but a 2 and a 3
    stack_draw(st, ["2", "3"])
    assert_conserved(st)
    assert st.zone("draw") == ["2", "3"]
    old_discard = Counter(st.zone("discard"))
    since = len(st.events_for(BOB, level=1))
    st.apply("eat")
    got = Counter(st.zone("hand", player=BOB)) - Counter(["+1", "2", "3"])
    assert sum(got.values()) == 3 and not got - old_discard           # the other 3 came from the discard
    assert len(st.zone("draw")) == sum(old_discard.values()) - 3
    assert st.zone("discard") == ["5"]                                # then the plate is discarded (T8d)
    assert "discard is shuffled to make a new draw" in st.events_for(BOB, level=1)[since:]
    assert revealed_in_hand(st, BOB) == sorted(["2", "3", *got.elements()])
    assert st.current_player == BOB and st.move_texts()[0].startswith("begin")
    assert_conserved(st)


def test_T8c_draw_and_discard_both_empty_eater_draws_what_there_was():
    _, st = table(hands={BOB: ["+1"]}, plate=["5"], deck_indigestion=0)
    draw = st.zone("draw")
    for f in ("2", "3"):
        draw.remove(f)
    st.set_cards("hand", st.zone("hand", player=DAVE) + draw, player=DAVE)   # dave holds the rest
    stack_draw(st, ["2", "3"])
    assert_conserved(st)
    assert st.zone("draw") == ["2", "3"] and st.zone("discard") == []
    st.apply("eat")                                                   # the plate's sum is 5
    assert hand(st, BOB) == ["+1", "2", "3"]
    assert st.zone("draw") == [] and st.zone("discard") == ["5"]
    assert st.round == 1 and st.counter("tokens", BOB) == 0
    assert sorted(st.move_texts()) == ["begin 2", "begin 3"]
    st.apply("begin 3")
    assert st.turn_player == CAROL
    assert_conserved(st)


def test_T8d_plate_is_discarded_and_the_eater_begins_a_new_plate():
    top = ["7", "reverse", "4", "+1", "choose", "6", "2"]
    _, st = table(hands={BOB: ["+1"]}, plate=["3", "+1", "3"], discard=["6", "6"], draw_top=top)
    st.apply("eat")
    assert st.round == 1 and st.counter("tokens", BOB) == 0
    assert st.zone("discard") == ["6", "6", "3", "+1", "3"]
    assert st.zone("plate") == []
    assert st.current_player == BOB and st.turn_player == BOB
    assert sorted(st.move_texts()) == ["begin 2", "begin 4", "begin 6", "begin 7"]
    st.apply("begin 7")
    assert st.zone("plate") == ["7"] and st.value("plate_sum") == 7
    assert st.turn_player == CAROL and st.turn == 2


# ---------------------------------------------------------------- T9: action cards

def test_T9_action_cards_can_be_played_whatever_is_on_the_plate():
    _, st = table(hands={BOB: ["+1", "reverse", "choose", "6"]}, plate=["3"])
    assert sorted(st.move_texts()) == ["eat", "play +1", "play choose", "play reverse"]
    st.set_cards("plate", ["5", "choose", "reverse"])
    assert sorted(st.move_texts()) == ["eat", "play +1", "play choose", "play reverse"]
    st.apply("play +1")
    assert st.zone("plate") == ["5", "choose", "reverse", "+1"]


def test_T9a_plus_one_adds_one_to_the_sum_and_keeps_the_number():
    top = ["2", "2", "3", "4", "5", "6"]
    _, st = table(hands={BOB: ["+1", "+1"], CAROL: ["3", "4"]}, plate=["3"], draw_top=top)
    st.apply("play +1")
    assert st.value("plate_sum") == 4 and st.value("current_number") == 3
    assert st.turn_player == CAROL
    assert "serve 3" in st.move_texts() and "serve 4" not in st.move_texts()
    st.apply("eat")
    assert hand(st, CAROL) == sorted(["3", "4", "6", "5", "4", "3"])  # 4 cards drawn


def test_T9b_reverse_flips_the_direction():
    _, st = table(hands={ALICE: ["reverse", "6"], BOB: ["reverse", "6"], CAROL: ["6"], DAVE: ["6"]}, plate=["6"])
    st.apply("play reverse")
    assert st.direction == -1 and st.turn_player == ALICE
    st.apply("serve 6")
    assert st.turn_player == DAVE
    st.set_cards("hand", ["reverse", "6"], player=DAVE)
    st.apply("play reverse")
    assert st.direction == 1 and st.turn_player == ALICE
    assert st.zone("plate") == ["6", "reverse", "6", "reverse"]


def test_T9c_choose_cannot_name_yourself():
    _, st = table(hands={BOB: ["choose", "5"]}, plate=["3"])
    st.apply("play choose")
    assert st.current_player == BOB and st.turn_player == BOB
    assert sorted(st.move_texts()) == ["choose alice", "choose carol", "choose dave"]
    with pytest.raises(rulesdsl.IllegalMove):
        st.apply("choose bob")
    assert st.zone("plate") == ["3", "choose"]


def test_T9c_named_player_plays_next_then_play_continues_from_them():
    _, st = table(hands={ALICE: ["3", "4"], BOB: ["choose", "5"], CAROL: ["3"], DAVE: ["3", "4"]}, plate=["3"])
    st.apply("play choose")
    saved = st.game.state_from_json(st.to_json())                     # the choice survives a save
    st.apply("choose dave")
    assert st.turn_player == DAVE and st.current_player == DAVE       # not carol
    saved.apply("choose dave")
    assert saved.turn_player == DAVE
    st.apply("serve 3")
    assert st.turn_player == ALICE                                    # from dave, clockwise
    st.apply("serve 3")
    assert st.turn_player == BOB


def test_T9c_named_player_then_current_direction_after_reverse():
    _, st = table(hands={ALICE: ["choose", "4"], BOB: ["reverse", "5"], CAROL: ["3", "4"], DAVE: ["4"]},
                  plate=["3"])
    st.apply("play reverse")
    assert st.turn_player == ALICE
    st.apply("play choose")
    assert sorted(st.move_texts()) == ["choose bob", "choose carol", "choose dave"]
    st.apply("choose carol")
    assert st.turn_player == CAROL
    st.apply("serve 3")
    assert st.turn_player == BOB                                      # counterclockwise from carol


def test_T9c_with_three_players():
    _, st = table(players=3, hands={BOB: ["choose"]}, plate=["3"])
    st.apply("play choose")
    assert sorted(st.move_texts()) == ["choose alice", "choose carol"]
    st.apply("choose alice")
    assert st.turn_player == ALICE


# ---------------------------------------------------------------- T10: skip

def test_T10_skip_any_pair_not_only_the_current_number():
    _, st = table(hands={BOB: ["5", "5", "6", "7", "3", "3"]}, plate=["3", "+1"])
    assert sorted(st.move_texts()) == ["eat", "serve 3", "skip 3", "skip 5"]
    st.apply("skip 5")
    assert st.zone("discard") == ["3", "+1", "5"]
    assert st.zone("plate") == ["5"]
    assert st.value("plate_sum") == 5 and st.value("current_number") == 5
    assert hand(st, BOB) == ["3", "3", "6", "7"]
    assert st.turn_player == CAROL


def test_T10_next_player_faces_a_plate_of_just_that_number():
    top = ["2", "2", "6", "6", "7", "+1", "reverse"]
    _, st = table(hands={BOB: ["4", "4", "4"], CAROL: ["4", "5"]}, plate=["6", "6", "+1"], draw_top=top)
    st.apply("skip 4")
    assert hand(st, BOB) == ["4"]                                     # a third 4 stays in hand
    assert sorted(st.move_texts()) == ["eat", "serve 4"]
    st.apply("eat")
    assert hand(st, CAROL) == sorted(["4", "5", *drawn(top, 4)])      # the sum is just 4


# ---------------------------------------------------------------- T11: next player

@pytest.mark.parametrize("players", [3, 4, 7])
def test_T11_next_player_is_the_neighbour_in_the_current_direction(players):
    hands = {p: ["4", "6"] for p in range(players)}
    _, st = table(players=players, hands=hands, plate=["4"])
    seen = []
    for _ in range(players + 1):
        seen.append(st.turn_player)
        st.apply("serve 4")
        st.set_cards("hand", ["4", "6"], player=st.turn_player)
    assert seen == [(BOB + k) % players for k in range(players + 1)]
    start = st.turn_player
    st.set_cards("hand", ["reverse", "6"], player=start)
    st.apply("play reverse")
    assert st.turn_player == (start - 1) % players


def test_T11_choose_overrides_the_neighbour():
    _, st = table(players=5, hands={BOB: ["choose"]}, plate=["4"])
    st.apply("play choose")
    st.apply("choose alice")
    assert st.turn_player == ALICE


# ---------------------------------------------------------------- T12: empty hand

def test_T12_empty_hand_at_turn_start_draws_three_revealed_then_plays():
    top = ["6", "reverse", "4"]
    _, st = table(hands={BOB: ["+1", "6"], CAROL: []}, plate=["4"], draw_top=top)
    since = [len(st.events_for(p)) for p in range(4)]
    st.apply("play +1")
    assert st.turn_player == CAROL and st.current_player == CAROL
    assert hand(st, CAROL) == ["4", "6", "reverse"]
    assert revealed_in_hand(st, CAROL) == ["4", "6", "reverse"]
    for p in range(4):
        assert reveal_lines(new_events(st, p, since[p])) == ["4 reverse 6"]
    assert sorted(st.move_texts()) == ["eat", "play reverse", "serve 4"]
    assert st.round == 1 and st.counter("tokens", CAROL) == 0


def test_T12_indigestion_in_the_three_ends_the_round_and_the_turn():
    top = ["2", "indigestion", "3"]
    _, st = table(hands={BOB: ["+1", "6"], CAROL: []}, plate=["4"], draw_top=top)
    since = len(st.events_for(ALICE))
    st.apply("play +1")
    assert st.round == 2
    assert st.counter("tokens", CAROL) == 1 and st.value("loser") == CAROL
    assert hand(st, CAROL) == ["2", "3"]
    assert st.current_player == CAROL and st.move_texts() == ADD      # no turn action for carol
    lines = new_events(st, ALICE, since)
    assert not any(line.startswith("carol: ") for line in lines)
    st.apply("add indigestion no")
    assert st.current_player == CAROL and sorted(st.move_texts()) == ["begin 2", "begin 3"]
    st.apply("begin 2")
    assert st.turn_player == DAVE


def test_T12_empty_hand_draw_parameter():
    top = ["7", "6", "5", "4"]
    _, st = table(empty_hand_draw=2, hands={BOB: ["+1"], CAROL: []}, plate=["4"], draw_top=top)
    st.apply("play +1")
    assert hand(st, CAROL) == ["4", "5"]


# ---------------------------------------------------------------- T13: round end

def test_T13_round_end_token_hands_kept_plate_discarded():
    top = ["indigestion", "2", "7"]
    _, st = table(hands={ALICE: ["2", "3", "+1"], BOB: ["5"], CAROL: ["7", "7"], DAVE: ["choose"]},
                  plate=["3"], discard=["6", "6"], draw_top=top)
    kept = {p: hand(st, p) for p in (ALICE, CAROL, DAVE)}
    plate_cards = cards_of(st, "plate")
    since = len(st.events_for(ALICE, level=1))
    st.apply("eat")
    assert st.round == 2 and st.counter("tokens", BOB) == 1 and st.value("loser") == BOB
    assert {p: hand(st, p) for p in kept} == kept
    assert hand(st, BOB) == ["2", "5", "7"]
    lines = st.events_for(ALICE, level=1)[since:]
    assert lines.index("1 card from plate to discard: 3") < lines.index("== round 2 ==")
    draw = cards_of(st, "draw")
    assert all(c in draw for c in plate_cards)
    assert st.zone("plate") == [] and st.zone("discard") == [] and st.zone("sick") == []


# ---------------------------------------------------------------- T14: a new round

def round_two(deck_indigestion: int = 1, **kw):
    """Bob eats an indigestion card with a 5 in hand: round 2 begins."""
    kw.setdefault("hands", {ALICE: ["2", "3"], BOB: ["5"], CAROL: ["7", "7"], DAVE: ["choose", "4"]})
    _, st = table(plate=["3"], discard=["6", "6"], draw_top=["indigestion", "2", "7"],
                  deck_indigestion=deck_indigestion, **kw)
    st.apply("eat")
    assert st.round == 2
    return st


def test_T14_loser_may_add_an_indigestion_card_yes():
    st = round_two()
    assert st.current_player == BOB and st.move_texts() == ADD
    assert st.game.state_from_json(st.to_json()).move_texts() == ADD
    st.apply("add indigestion yes")
    assert st.zone("box") == ["indigestion"] * 4
    assert st.zone("draw").count("indigestion") == 2 and in_deck(st) == 2
    assert st.current_player == BOB and sorted(st.move_texts()) == ["begin 2", "begin 5", "begin 7"]
    assert_conserved(st)


def test_T14_loser_may_decline_to_add():
    st = round_two()
    st.apply("add indigestion no")
    assert st.zone("box") == ["indigestion"] * 5 and in_deck(st) == 1
    assert st.current_player == BOB and st.move_texts()[0].startswith("begin")


def test_T14_add_indigestion_is_offered_only_while_some_remain_apart():
    st = round_two(deck_indigestion=5)
    assert st.move_texts() == ADD
    st.apply("add indigestion yes")
    assert st.zone("box") == [] and in_deck(st) == 6
    st = round_two(deck_indigestion=6)
    assert st.zone("box") == []
    assert st.current_player == BOB and sorted(st.move_texts()) == ["begin 2", "begin 5", "begin 7"]


def test_T14_everything_but_hands_shuffled_into_a_new_draw_pile():
    st = round_two()
    st.apply("add indigestion no")
    assert st.zone("plate") == [] and st.zone("discard") == [] and st.zone("sick") == []
    in_hands = sum(len(st.zone("hand", player=p)) for p in range(4))
    assert len(st.zone("draw")) == 95 - in_hands - len(st.zone("box"))
    assert all(st.known[c] == 0 for c in cards_of(st, "draw"))       # shuffled face down


def test_T14_direction_reset_next_turn_is_left_of_the_loser():
    hands = {ALICE: ["+1", "4"], BOB: ["reverse", "5"], CAROL: ["7"], DAVE: ["6"]}
    _, st = table(hands=hands, plate=["2"], draw_top=["indigestion", "choose"])
    st.apply("play reverse")
    assert st.turn_player == ALICE and st.direction == -1
    st.apply("eat")
    assert st.round == 2 and st.counter("tokens", ALICE) == 1
    st.apply("add indigestion no")
    assert st.direction == 1
    assert st.current_player == ALICE and st.move_texts() == ["begin 4"]
    st.apply("begin 4")
    assert st.turn_player == BOB                                      # left of alice, not dave


def test_T14_loser_without_a_dish_passes_the_duty_clockwise():
    hands = {ALICE: ["+1"], BOB: ["reverse", "5"], CAROL: ["7"], DAVE: ["6"]}
    _, st = table(hands=hands, plate=["2"], draw_top=["indigestion", "choose"])
    st.apply("play reverse")
    st.apply("eat")                                                   # alice: +1, choose; no dish
    st.apply("add indigestion no")
    assert st.direction == 1
    assert st.current_player == BOB and st.move_texts() == ["begin 5"]  # clockwise; dave otherwise
    st.apply("begin 5")
    assert st.turn_player == CAROL


# ---------------------------------------------------------------- T15: the end

def game_end(tokens: list[int], hands: dict, tokens_to_lose: int = 3, **params):
    """Bob eats one indigestion card (and a 2) with the tokens given before."""
    game, st = table(tokens_to_lose=tokens_to_lose, hands=hands, plate=["2"], draw_top=["indigestion", "2"],
                     **params)
    for p, t in enumerate(tokens):
        game.set_counter(st, "tokens", t, player=p)
    st.apply("eat")
    return st


def test_T15_game_ends_at_the_third_token():
    st = game_end([0, 2, 1, 1], {ALICE: ["2"], BOB: ["3"], CAROL: ["4"], DAVE: ["5"]})
    assert st.is_over and st.current_player is None and st.move_texts() == []
    assert st.counter("tokens", BOB) == 3
    with pytest.raises(rulesdsl.IllegalMove):
        st.apply("eat")


def test_T15_game_goes_on_below_the_third_token():
    st = game_end([2, 1, 2, 2], {ALICE: ["2"], BOB: ["3"], CAROL: ["4"], DAVE: ["5"]})
    assert not st.is_over and st.round == 2 and st.counter("tokens", BOB) == 2


def test_T15_fewest_tokens_wins_ties_broken_by_most_cards():
    hands = {ALICE: ["2", "3", "4"], BOB: ["3"], CAROL: ["4"], DAVE: ["5", "6"]}
    st = game_end([1, 2, 0, 1], hands)
    assert st.is_over
    assert st.winners == [CAROL]
    assert st.ranking == [2, 4, 1, 3]                                 # alice: 1 token, 3 cards; dave: 2


def test_T15_tie_on_tokens_goes_to_most_cards_in_hand():
    hands = {ALICE: ["2"], BOB: ["3"], CAROL: ["4", "5", "6", "7"], DAVE: ["5", "6", "7", "2", "3", "4"]}
    st = game_end([1, 2, 0, 0], hands)
    assert st.winners == [DAVE]
    assert st.ranking[DAVE] == 1 and st.ranking[CAROL] == 2


def test_T15_full_tie_is_shared():
    hands = {ALICE: ["2"], BOB: ["3"], CAROL: ["4", "5"], DAVE: ["6", "7"]}
    st = game_end([1, 2, 0, 0], hands)
    assert st.winners == [CAROL, DAVE]
    assert st.ranking[CAROL] == st.ranking[DAVE] == 1 and st.ranking[ALICE] == 3 and st.ranking[BOB] == 4


def test_T15_tokens_to_lose_parameter():
    hands = {ALICE: ["2"], BOB: ["3"], CAROL: ["4"], DAVE: ["5"]}
    st = game_end([0, 1, 0, 0], hands, tokens_to_lose=2)
    assert st.is_over and st.counter("tokens", BOB) == 2
    assert st.winners == [ALICE, CAROL, DAVE]                         # 0 tokens, one card each
    st = game_end([3, 3, 3, 2], hands, tokens_to_lose=5)
    assert not st.is_over
    st = game_end([3, 4, 3, 2], hands, tokens_to_lose=5)
    assert st.is_over and st.winners == [DAVE]


def test_T15_random_games_end_exactly_at_the_losing_token():
    for players, lose in ((3, 3), (4, 2), (6, 4)):
        st = play_random(players, 1, lambda *a: None, tokens_to_lose=lose)
        tokens = [st.counter("tokens", p) for p in range(players)]
        assert max(tokens) == lose and tokens.count(lose) == 1
        best = min(tokens)
        assert all(tokens[w] == best for w in st.winners)


# ---------------------------------------------------------------- T16: indigestion stays in

def test_T16_indigestion_in_play_never_decreases_in_random_games():
    def check(before, st, move):
        assert_conserved(st)
        if before is None:
            return
        assert in_deck(st) >= in_deck(before)
        assert in_deck(st) - in_deck(before) <= 1
        if in_deck(st) > in_deck(before):
            assert move == "add indigestion yes"
        if not st.is_over and "add indigestion yes" in st.move_texts():
            assert st.zone("box"), "T14: offered only while some remain apart"
        if st.round > before.round and not st.is_over and st.zone("box"):
            assert st.move_texts() == ADD                          # T14: offered when some remain

    for players in (3, 4, 5, 6, 7):
        for seed in (0, 1):
            play_random(players, seed, check)


def test_T16_added_indigestion_stays_for_later_rounds():
    st = round_two()
    st.apply("add indigestion yes")
    st.apply("begin 5")
    assert in_deck(st) == 2
    # Carol eats the plate (a 5) and finds both indigestion cards: still 2 in play afterwards.
    st.set_cards("hand", ["+1"], player=CAROL)
    stack_draw(st, ["2", "indigestion", "3", "indigestion", "4"])
    st.apply("eat")
    assert st.round == 3 and st.counter("tokens", CAROL) == 1
    assert st.zone("draw").count("indigestion") == 2 and in_deck(st) == 2
    assert st.move_texts() == ADD
    st.apply("add indigestion no")
    assert in_deck(st) == 2


# ---------------------------------------------------------------- the test API itself

def test_set_cards_on_top_of_the_draw_takes_cards_from_the_draw_pile(tempurra4):
    st = tempurra4.new_game(seed=5)
    hands = [st.zone("hand", player=p) for p in range(4)]
    st.set_cards("draw", ["2", "reverse"], top=True)
    assert st.zone("draw")[-2:] == ["2", "reverse"]
    assert [st.zone("hand", player=p) for p in range(4)] == hands


def test_set_cards_shrinking_the_draw_pile_keeps_every_card(tempurra4):
    """The cards the draw pile no longer holds go under the pile it refills from (T8c's discard)."""
    st = tempurra4.new_game(seed=5)
    before = len(st.zone("draw"))
    st.set_cards("draw", ["2", "reverse"])
    assert st.zone("draw") == ["2", "reverse"]
    assert len(st.zone("discard")) == before - 2
    assert sum(all_faces(st).values()) == 95
