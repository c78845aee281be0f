"""A game in progress, as plain data, and the small machine that runs compiled rules on it.

Cards are ints, zones are lists of ints, what each seat knows of a card is an int bitmask, and the
pending decision is a decision id plus the frames of the code that asked it (code id, position,
locals). So a state mid-action is still data: `clone()` copies lists, `to_json()` writes them.

The state is the engine's bottom layer but for constants.py, move.py, limits.py and rng.py: it
imports no other engine module. view.py and saves.py read a State, and game.py makes states, shows
and loads them, so they import this module; the state reaches them the other way, through its game
(`State.view` is `Game.view_text`, `State.from_json` is `Game.state_from_json`), and names the
game's type by the protocol `CompiledGame` below.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from ..errors import IllegalMove, RulesRuntimeError

# The constants, named here too: the back-end and tests import them from this module.
from .constants import (  # noqa: F401
    CONTROL,
    GRID,
    HALT,
    HAND,
    HIDDEN,
    JUMP,
    LEAF_DONE,
    PLAIN,
    PRIVATE,
    PUBLIC,
    RELOAD,
    STACK,
    STACKED,
    SUSPEND,
    SUSPENDED,
    TEST,
)
from .limits import LIMITS
from .move import Move
from .rng import GOLDEN, MASK, next64, seed_state

_FAILED = object()  # recorded by a straight run where its pick raised (see State._straight)
_STRAIGHT_FROM = 200  # a playout's limit from which it runs the rules straight (see State.playout)

_PACKED_FROM = 8  # cards: from how many a shuffle draws its random numbers all at once
_LITTLE = sys.byteorder == "little"  # (the lanes are read back as native 64-bit numbers)
_packs: dict[int, tuple[int, int, int, tuple[tuple[int, int], ...]]] = {}


def _pack(n: int) -> tuple[int, int, int, tuple[tuple[int, int], ...]]:
    """For a shuffle of n cards: 1 in each of its n - 1 lanes, k * GOLDEN in lane k - 1, 64 ones
    in each lane, and per bit b of the lanes' multipliers (n - k in lane k), 64 ones in the lanes
    whose multiplier has bit b (see State.shuffle_zone). Made by operations on whole bytes and
    ints (a shuffle of a new size costs no loop over its lanes)."""
    k = max(n - 1, 0)
    ones, zero = b"\xff" * 8 + b"\x00" * 8, b"\x00" * 16
    lanes = int.from_bytes((b"\x01" + b"\x00" * 15) * k, "little")
    # (1 + B + B^2 + ...)^2 = 1 + 2B + 3B^2 + ...: lane k - 1 holds k, times GOLDEN in every lane.
    steps = GOLDEN * ((lanes * lanes) & ((1 << (128 * k)) - 1))
    bits = []
    for b in range(n.bit_length()):
        # Bit b of n, n - 1, n - 2, ...: a period of 2^b ones and 2^b zeros, begun where n stands in it.
        size = 1 << b
        period = ones * size + zero * size  # bit b of P - 1, P - 2, ..., 0 (P = 2 size)
        turn = 16 * (2 * size - 1 - n % (2 * size))
        period = period[turn:] + period[:turn]
        bits.append((b, int.from_bytes((period * (k // (2 * size) + 1))[: 16 * k], "little")))
    _packs[n] = p = (lanes, steps, MASK * lanes, tuple(bits))
    return p

# Passes of `while` loops, turns and rounds allowed between two decisions, by default (a game's
# own is `game.limits["steps"]`, see limits.py).
STEP_BUDGET = LIMITS["steps"][0]
JSON_FORMAT = 1


@runtime_checkable
class CompiledGame(Protocol):
    """The compiled game (engine/game.py's `Game`) as a State, its saves (saves.py) and the
    machine's helpers here read it. game.py imports this module, so this one names the game by
    what it reads of it, not by its class; `isinstance(game, CompiledGame)` checks a game has it all.
    """

    # What the rules file made, and for how many players.
    name: str
    fingerprint: str
    players: int
    names: list[str]
    params: dict[str, object]
    limits: dict[str, int]
    all_mask: int
    # Cards and zones.
    ncards: int
    card_text: tuple[str, ...]
    card_face: tuple[int, ...]
    card_rank: tuple[int, ...]
    nzones: int
    zone_names: list[str]
    zone_shape: list[int]
    zone_grid: list[bool]
    zone_learn: list[int]
    zone_refill: list[int]
    zone_keep: list[int]
    start: tuple[list[list[int]], list[int], list[int], list[int]]
    # Counters, variables and the cells of them that may hold a card or a list of cards.
    counter_init: list
    var_init: list
    counter_types: list[str]
    var_types: list[str]
    card_vars: tuple[int, ...]
    cardlist_vars: tuple[int, ...]
    card_counters: tuple[int, ...]
    cardlist_counters: tuple[int, ...]
    holds_cardlists: bool
    # Compiled code and decisions (lists of game.py's Code, Decision and ActionRt).
    codes: list
    code_blocks: list[list]
    decisions: list
    decision_slot: list[int]
    actions: list
    action_entry: list[tuple]
    turn_resume: int
    write_straight: Callable[[CompiledGame, bool], Callable | None]

    def block(self, code_id: int, pc: int) -> Callable: ...

    def error_span(self, e: BaseException, code_id: int, pc: int, st: State | None = None): ...

    def turn_options(self, st: State) -> list: ...

    def choice_values(self, st: State, dec, env: list, chooser: int) -> list: ...

    def option_texts(self, st: State) -> list[str]: ...

    def option_card(self, dec, value) -> int | None: ...

    def view_text(self, st: State, player: int, *, reveal: bool, events: int, hide: frozenset) -> str: ...

    def event_texts(self, st: State, player: int, start: int, level: int) -> list[str]: ...

    def state_from_json(self, text: str) -> State: ...

    def zone_index(self, name: str, player: int | None = None) -> int: ...

    def read_counter(self, st: State, name: str, player: int | None = None) -> int: ...

    def read_value(self, st: State, name: str): ...

    def arrange(self, st: State, zone: str, faces: list[str], player: int | None, *, top: bool) -> None: ...

    def force_turn(self, st: State, player: int) -> None: ...


class State:
    """One game in progress. Read it through its properties and methods; change it with `apply`."""

    __slots__ = (
        "game", "zones", "loc", "known", "group", "shuffles", "counters", "vars", "rng", "current", "direction",
        "next_player",
        "continue_from", "round", "turn", "moves", "stack", "pending", "chooser", "options", "over",
        "winners", "ranking", "log", "budget", "step_limit", "_texts", "pick", "stop", "counts",
        "draw", "free",
    )

    def __init__(self, game: CompiledGame, seed: int, log: bool = True):
        g = game
        self.game = g
        zones, loc, known, group = g.start
        self.zones = [z[:] for z in zones]
        self.loc = loc[:]
        self.known = known[:]
        # Which cards were last shuffled together: the sets a card's identity may be sampled from.
        self.group = group[:]
        self.shuffles = 0
        # While a straight run lasts, per zone its cards by face if it is counted, else None
        # (counts.py); outside one, empty.
        self.counts: list[list[int] | None] = []
        self.counters = list(g.counter_init)
        self.vars = list(g.var_init)
        self.rng = seed_state(seed)
        self.current = 0
        self.direction = 1
        self.next_player = -1
        self.continue_from = -1
        self.round = 0
        self.turn = 0
        self.moves = 0
        self.stack = [[0, 0, []]]
        self.pending = -1
        self.chooser = -1
        self.options: tuple = ()
        self.over = False
        self.winners: list[int] = []
        self.ranking: list[int] = []
        self.log: list | None = [] if log else None
        self._texts: list[str] | None = None
        # Loop steps or turns without a decision before the rules are called broken (tick); a search
        # may lower it on its copies, to give up on a world that cannot be played on sooner.
        self.step_limit = g.limits["steps"]
        # While a playout runs: its pick and the move it stops at (see `playout`); a block asking
        # a decision then answers it itself.
        self.pick: Callable[[int], int] | None = None
        self.stop = -1
        # While a straight run lasts, if the pick is a `random.Random`'s randrange: that generator's
        # getrandbits, which the run calls itself for the same numbers (see random_draw), and 1 if
        # a decision with one option is not asked (`forced=False`), else 0.
        self.draw: Callable[[int], int] | None = None
        self.free = 0
        self._run()

    # ------------------------------------------------------------ the public API
    @property
    def current_player(self) -> int | None:
        """The seat that must decide now; None when the game is over."""
        return None if self.over else self.chooser

    @property
    def turn_player(self) -> int:
        """The seat whose turn it is (it may differ from who decides, in a reaction)."""
        return self.current

    @property
    def is_over(self) -> bool:
        return self.over

    def num_moves(self) -> int:
        return len(self.options)

    def legal_moves(self) -> list[Move]:
        return [Move(text, self.chooser, i) for i, text in enumerate(self.move_texts())]

    def move_texts(self) -> list[str]:
        if self._texts is None:
            self._texts = self.game.option_texts(self)
        return list(self._texts)

    def apply(self, move: Move | str | int) -> None:
        """Play a move: a Move, its text, or its index in `legal_moves()`."""
        if self.over:
            raise IllegalMove("the game is over")
        if isinstance(move, int) and not isinstance(move, bool):
            return self.apply_index(move)
        texts = self.move_texts()
        if not isinstance(move, str):
            if move.player == self.chooser and 0 <= move.index < len(texts) and texts[move.index] == move.text:
                return self.apply_index(move.index)
            move = move.text
        want = normalize(move)
        for i, t in enumerate(texts):
            if normalize(t) == want:
                return self.apply_index(i)
        shown = ", ".join(texts[:12]) + (", ..." if len(texts) > 12 else "")
        who = self.game.names[self.chooser]
        raise IllegalMove(f"'{move}' is not a legal move for {who} now; legal: {shown}")

    def apply_index(self, i: int) -> None:
        """The fast path: play option i of the pending decision."""
        pending = self.pending
        opts = self.options
        if pending < 0 or not 0 <= i < len(opts):
            if pending < 0 or self.over:
                raise IllegalMove("the game is over")
            raise IllegalMove(f"move number {i} does not exist; there are {len(opts)}")
        if self.log is None:
            self._advance(i)
            return
        log_start = len(self.log)
        self._log_choice(self.game.decisions[pending], opts[i], i)
        self._run(log_start, i)

    def playout(self, pick: Callable[[int], int], limit: int | None = None, *, forced: bool = True) -> int:
        """Play moves chosen by `pick(n)` (an index below n, the number of options: a
        `random.Random`'s randrange, say) until the game ends or `limit` more moves were played;
        returns the moves played. The same moves as `apply_index(pick(num_moves()))` in a loop, but
        without a call into the state per move: random playouts (simulations, search bots) run
        here. `forced=False` plays a decision with a single option without asking `pick`. While
        `pick` runs, `self.chooser` is the seat that decides (a pick per seat can read it); the
        options are recorded only where the state stops, so `pick` gets their number alone.
        Without a log, and with no limit or a far one, the rules run compiled straight from the
        first turn's decision (straight.py): the same moves and states, faster."""
        if limit is not None and limit < 0:
            raise ValueError(f"a playout's limit must be at least 0 (got {limit})")
        start = self.moves
        stop = start + limit if limit is not None else -1
        if self.log is not None:
            while not self.over and self.moves != stop:
                n = len(self.options)
                self.apply_index(pick(n) if forced or n > 1 else 0)
        elif not self.over and self.moves != stop:
            # The machine's loop answers with `self.pick` where it stops at a decision, and so does
            # a block that asks one (see codegen._answered).
            self.pick = pick if forced else (lambda n: pick(n) if n > 1 else 0)
            # A limit far ahead (a cap that keeps a game from running for ever) lets the rules run
            # straight: a straight run that meets it stops, and the machine plays the game again to
            # it. A near one is the machine's from the start.
            g = self.game
            straight = g.write_straight(g, stop < 0) if stop < 0 or limit >= _STRAIGHT_FROM else None
            try:
                if straight is None:
                    self.stop = stop
                    self._advance(self._picked())
                else:
                    # The machine up to a turn's decision, a decision at a time; straight from there.
                    while not self.over and self.pending != 0 and self.moves != stop:
                        self.stop = self.moves + 1
                        self._advance(self._picked())
                    self.stop = stop
                    if not self.over and self.moves != stop:
                        self.draw, self.free = random_draw(pick), 0 if forced else 1
                        self._straight(straight)
            finally:
                self.pick = None
                self.stop = -1
                self.draw, self.free = None, 0
        return self.moves - start

    def _straight_alone(self, run: Callable, picks: list) -> None:
        """The straight run, which records its picks in `picks` and counts its moves by them: the
        playout's limit is a number of picks while it lasts, and the moves are added as it ends
        (but a pick that raised, marked _FAILED)."""
        stop = self.stop
        self.stop = stop - self.moves if stop >= 0 else -1
        try:
            run(self, picks)
        finally:
            self.stop = stop
            self.moves += len(picks) - (1 if picks and picks[-1] is _FAILED else 0)

    def _straight(self, run: Callable) -> None:
        """Play to the end with the rules compiled straight (straight.py) from a turn's decision.
        If the run stops on anything out of the ordinary, the state goes back to where it began
        and the machine plays the same game again with the picks the run was given, so the end
        (a state, an error and its line) is the machine's own."""
        snap, budget = self.clone(), self.budget
        picks: list = []
        try:
            self._straight_alone(run, picks)
            return
        except BaseException as e:  # (given back below, where the machine meets it)
            failure = e
        for name in _RESTORED:
            setattr(self, name, getattr(snap, name))
        self.budget = budget
        given = iter(picks)
        pick = self.pick

        def replay(n: int) -> int:
            for i in given:
                if i is _FAILED:
                    raise failure
                return i
            if not isinstance(failure, Exception):  # an interrupt: where the picks ran out
                raise failure
            return pick(n)

        self.pick = replay
        self._advance(self._picked())

    def _picked(self) -> int:
        """The playout's pick among the pending decision's options, checked."""
        i = self.pick(len(self.options))
        if i >= len(self.options) or i < 0:
            bad_pick(self, i)
        return i

    def clone(self, log: bool | None = None) -> State:
        """A copy that shares nothing mutable. `log=False` drops the event log (for search bots)."""
        s = State.__new__(State)
        s.game = self.game
        s.zones = [z[:] for z in self.zones]
        s.loc = self.loc[:]
        s.known = self.known[:]
        s.group = self.group[:]
        s.shuffles = self.shuffles
        s.counters = self.counters[:]
        s.vars = self.vars[:]
        s.rng = self.rng
        s.current = self.current
        s.direction = self.direction
        s.next_player = self.next_player
        s.continue_from = self.continue_from
        s.round = self.round
        s.turn = self.turn
        s.moves = self.moves
        s.stack = [[f[0], f[1], f[2][:]] for f in self.stack]
        s.pending = self.pending
        s.chooser = self.chooser
        s.options = self.options
        s.over = self.over
        s.winners = self.winners[:]
        s.ranking = self.ranking[:]
        keep = self.log is not None if log is None else log
        s.log = (self.log[:] if self.log is not None else []) if keep else None
        s.step_limit = self.step_limit
        s.budget = self.step_limit
        s._texts = self._texts
        s.pick = None
        s.stop = -1
        s.counts = []
        s.draw = None
        s.free = 0
        if self.game.holds_cardlists:
            s._realias(self.zones)
        return s

    def _realias(self, zones: list[list]) -> None:
        """A list of cards kept in a variable or local may be one of the zones' own lists (`let
        z = me.hand` follows the hand): a copy's must be its own zones, not the original's."""
        cells = cardlist_cells(self.game, self.counters, self.vars, self.stack)
        if cells:
            where = {id(z): i for i, z in enumerate(zones)}
            mine = self.zones
            for held, k in cells:
                i = where.get(id(held[k]))
                if i is not None:
                    held[k] = mine[i]

    def determinize(self, player: int, rng, *, log: bool | None = None) -> State:
        """A copy in which the cards `player` does not know are dealt again at random among the
        places that hold such cards: a world consistent with what the player knows (for bots that
        sample hidden cards). `log` as for `clone`; search bots pass False.

        Places keep their knowledge (who has seen the card there), so the player's view, legal
        moves and everything public are unchanged; only faces the player cannot see move. Every
        value that names a card (variables, counters and locals of every type that can hold one,
        lists, the pending options) is re-pointed to the card now in its place (`_rename`), so
        nothing in the world names the real cards. The deal starts from a canonical order (the
        hidden cards by face, dealt to the hidden places in table order), so two states the
        player cannot tell apart give the same world for the same random numbers: a bot's choice
        then depends only on what its seat knows. `rng` is a `random.Random`. The game's own
        generator is reseeded too, so the sampled world does not reveal the real future of the
        draw pile either.
        """
        s = self.clone(log=log)
        bit = 1 << player
        known, group = self.known, self.group
        hidden: dict[int, list[int]] = {}  # shuffle group -> its hidden cards, in table order
        for z in self.zones:
            for c in z:
                if c is not None and not known[c] & bit:
                    hidden.setdefault(group[c], []).append(c)
        # Only cards last shuffled together may trade places: a card dealt before another was
        # shuffled into the deck cannot be that card.
        r: dict[int, int] = {}
        rank = self.game.card_rank
        for cards in hidden.values():
            if len(cards) > 1:
                ids = sorted(cards, key=rank.__getitem__)
                rng.shuffle(ids)
                r.update(zip(cards, ids, strict=True))
        if r:
            s._rename(r, player)
        s.rng = rng.getrandbits(64)
        return s

    def _rename(self, r: dict[int, int], viewer: int) -> None:
        """Put card r[c] wherever card c was: its place and knowledge, and every value of the
        state that names c (the cells the compiler listed as able to hold a card or a list of
        cards, in variables, counters and the locals of every pending frame, and the options).
        A list that is a zone's own list stays that zone's. Logged events keep the cards `viewer`
        saw then: the log is what they remember."""
        g = self.game
        old_loc, old_known, old_group = self.loc[:], self.known[:], self.group[:]
        for c, d in r.items():
            self.loc[d] = old_loc[c]
            self.known[d] = old_known[c]
            self.group[d] = old_group[c]
        get = r.get
        for z in self.zones:  # in place: a value that is a zone's list still is
            z[:] = [get(c, c) for c in z]
        for cells, ones, lists in ((self.vars, g.card_vars, g.cardlist_vars),
                                   (self.counters, g.card_counters, g.cardlist_counters)):
            for k in ones:
                cells[k] = get(cells[k], cells[k])
            for k in lists:
                cells[k] = self._renamed(cells[k], r)
        for f in self.stack:
            code, env = g.codes[f[0]], f[2]
            for k in code.card_slots:
                env[k] = get(env[k], env[k])
            for k in code.cardlist_slots:
                env[k] = self._renamed(env[k], r)
        if self.pending >= 0:
            dec = g.decisions[self.pending]
            if dec.index == 0:
                self.options = tuple(
                    (a, get(v, v)) if v is not None and g.actions[a].lead is not None
                    and g.actions[a].lead.elem == "card" else (a, v)
                    for a, v in self.options
                )
            elif dec.elem == "card":
                self.options = tuple(get(v, v) for v in self.options)
        if self.log is not None:
            bit = 1 << viewer
            self.log = [
                ev[:3] + (tuple(c if m & bit else get(c, c)
                                for c, m in zip(ev[3], ev[4] or (0,) * len(ev[3]), strict=True)),) + ev[4:]
                for ev in self.log
            ]
        self._texts = None

    def _renamed(self, cards: list | None, r: dict[int, int]) -> list | None:
        """A list of cards with each card c as r[c]: the zone's own list (renamed in place) if it
        is one of this state's zones, else a new list (another state may share the old one)."""
        if cards is None:
            return None
        for z in self.zones:
            if z is cards:
                return z
        return [r.get(c, c) for c in cards]

    def view(self, player: int, *, reveal: bool = False, events: int = 8, hide=frozenset()) -> str:
        """What `player` may see: their known cards, others' as face down, and recent events.
        `reveal` shows everything (a spectator); cards in `hide` show as unknown."""
        return self.game.view_text(self, player, reveal=reveal, events=events, hide=frozenset(hide))

    def events_for(self, player: int, start: int = 0, level: int = 0) -> list[str]:
        """The log as `player` saw it, from event number `start` on."""
        return self.game.event_texts(self, player, start, level)

    def to_json(self) -> str:
        """The state as JSON. A value that is a zone's own list (`let z = me.hand`, a variable set
        to a zone) is written as {"zone": index}, so a loaded state's value follows that zone
        as the saved one did, and does not become a copy."""
        g = self.game
        counters, variables, stack = self.counters, self.vars, self.stack
        if g.holds_cardlists:
            counters, variables, stack = self._zone_refs()
        data = {
            "format": JSON_FORMAT,
            "game": g.name,
            "fingerprint": g.fingerprint,
            "players": g.players,
            "params": g.params,
            "zones": self.zones,
            "known": self.known,
            "group": [self.group, self.shuffles],
            "counters": counters,
            "vars": variables,
            "rng": self.rng,
            "turn_order": [self.current, self.direction, self.next_player, self.continue_from],
            "progress": [self.round, self.turn, self.moves],
            "stack": stack,
            "pending": [self.pending, self.chooser],
            "options": [list(o) if isinstance(o, tuple) else o for o in self.options],
            "over": self.over,
            "winners": self.winners,
            "ranking": self.ranking,
            "log": [list(e[:3]) + [list(e[3]), list(e[4]) if e[4] is not None else None] for e in self.log]
            if self.log is not None else None,
        }
        return json.dumps(data, separators=(",", ":"))

    def _zone_refs(self) -> tuple[list, list, list]:
        """Copies of the counters, variables and stack with each cell that holds a zone's own list
        written as {"zone": index}."""
        counters, variables = self.counters[:], self.vars[:]
        stack = [[f[0], f[1], f[2][:]] for f in self.stack]
        where = {id(z): i for i, z in enumerate(self.zones)}
        for held, k in cardlist_cells(self.game, counters, variables, stack):
            i = where.get(id(held[k]))
            if i is not None:
                held[k] = {"zone": i}
        return counters, variables, stack

    @classmethod
    def from_json(cls, game: CompiledGame, text: str) -> State:
        """The state a save holds, checked field by field against `game` (engine/saves.py): raises
        saves.BadSave (a ValueError) naming the field, for anything the engine could not have made."""
        return game.state_from_json(text)

    # Convenience readers, for tests, bots and the CLI.
    def counter(self, name: str, player: int | None = None) -> int:
        return self.game.read_counter(self, name, player)

    def zone(self, name: str, player: int | None = None) -> list[str]:
        """The faces of a zone's cards (bottom to top; None for an empty place of a grid)."""
        g = self.game
        zi = g.zone_index(name, player)
        return [None if c is None else g.card_text[c] for c in self.zones[zi]]

    def value(self, name: str):
        """The value of a `define` without parameters, or of a global variable or counter."""
        return self.game.read_value(self, name)

    def set_cards(self, zone: str, faces: list[str], player: int | None = None, *, top: bool = False) -> None:
        """Arrange cards for a test (a stacked deck): make `zone` hold cards with these faces.

        Without `top`, the zone's content becomes exactly `faces` (bottom to top), and its
        displaced cards take the places the new ones left. With `top`, cards of these faces end
        on top of the zone, the last face on top. A card is taken from the zone itself if it
        holds one of that face (so stacking a draw pile only reorders it), else from a face-down
        pile of the table, else from anywhere; one taken from a grid is replaced there by one of
        the zone's bottom cards, so no place is left empty. Displaced cards with no place left go
        under the pile the zone refills from (a draw pile's discard pile), else under the largest
        face-down pile of the table. Knowledge is reset by the zone's rules (a hidden zone: nobody
        knows the card; a private one: its owner). Raises ValueError, changing nothing, if
        displaced cards would have no place.
        """
        self.game.arrange(self, zone, faces, player, top=top)

    def set_turn(self, player: int) -> None:
        """For tests: make `player` the one whose turn it is, re-asking the pending decision."""
        self.game.force_turn(self, player)

    # ------------------------------------------------------------ the machine
    def _run(self, log_start: int | None = None, i: int = -1) -> None:
        """`_advance` with the log: then the log's events of this step told who saw their cards."""
        start = log_start if log_start is not None else len(self.log) if self.log is not None else 0
        try:
            self._advance(i)
        finally:
            if self.log is not None and len(self.log) > start:
                known = self.known
                for k in range(start, len(self.log)):
                    ev = self.log[k]
                    if ev[3]:
                        self.log[k] = ev[:4] + (tuple(m | known[c] for c, m in zip(ev[3], ev[4], strict=True)),)

    def _advance(self, i: int) -> None:
        """The machine: play option i of the pending decision (none if i < 0), then run the code on
        the stack up to the next decision or the end of the game. In a playout (`self.pick` set),
        go on with the pick's answer at each decision until the game ends or `self.stop` moves
        were played. Every way to a decision or to the end sets the options (and their texts) anew."""
        g = self.game
        codes = g.codes
        blocks_of = g.code_blocks
        stack = self.stack
        slots = g.decision_slot
        while True:
            frame = stack[-1]
            if i < 0:
                env = frame[2]
                pc = frame[1]
            else:
                pending = self.pending
                value = self.options[i]
                self.pending = -1
                self.moves += 1
                if pending:
                    env = frame[2]
                    env[slots[pending]] = value
                    pc = frame[1]
                else:
                    # The turn decision: (action, value of its leading choose); enter its code.
                    code, nlocals, slot = g.action_entry[value[0]]
                    env = [None] * nlocals
                    pc = 0
                    if slot >= 0:
                        env[slot] = value[1]
                        pc = 1
                    if code.leaf:
                        self.budget = self.step_limit
                        try:
                            run_leaf(self, code, env, pc)  # an `end` in it may move the frames on
                        except Exception as e:
                            raise self._located(e, code.index, pc) from None
                        frame = stack[-1]
                        env = frame[2]
                        pc = frame[1]
                    else:
                        frame = [code.index, pc, env]
                        stack.append(frame)
            self.budget = self.step_limit
            blocks = blocks_of[frame[0]]
            try:
                while True:
                    # A block runs the ops from pc up to a jump or a control op; it returns where
                    # to go on (>= 0) or, from its last op, one of the codes below (constants.py).
                    block = blocks[pc]
                    if block is None:
                        block = g.block(frame[0], pc)
                    r = block(self, env)
                    if r == -6:  # SUSPENDED: the block recorded its frame's position itself
                        break
                    if r >= 0:
                        pc = r
                        continue
                    if r != -4:  # not STACKED (an `end` set the frames and their positions)
                        frame[1] = codes[frame[0]].ends[pc]  # the frame goes on after the block's last op
                        if r != RELOAD:
                            break
                    frame = stack[-1]
                    blocks = blocks_of[frame[0]]
                    env = frame[2]
                    pc = frame[1]
            except Exception as e:
                raise self._located(e, frame[0], pc) from None
            if self.pick is None or not self.options or self.moves == self.stop:  # (no options: over)
                return
            i = self._picked()

    def _located(self, e: Exception, code_id: int, pc: int) -> Exception:
        """A runtime error of the rules, located at the line of the rules that raised it; the state
        waits for no decision any more. Errors of Python's that are not the rules' go through."""
        if isinstance(e, IllegalMove) or not _raised_by_rules(e):
            return e  # a playout's pick gave no option, or failed itself: the state still waits
        self.options = ()
        self._texts = None
        if isinstance(e, RulesRuntimeError) and e.span is not None:
            return e
        if isinstance(e, LOCATED):
            return RulesRuntimeError(rules_message(e), self.game.error_span(e, code_id, pc, self))
        return e

    def tick(self) -> None:
        """Called on every backward jump and new turn: a rule that loops with no decision stops here."""
        self.budget -= 1
        if self.budget < 0:
            raise RulesRuntimeError(
                f"the rules ran {self.step_limit} loop steps or turns without asking anyone to decide; "
                "is there a loop that never ends, or a turn in which nobody can act? "
                "(to allow more: --limit steps=N)"
            )

    # ------------------------------------------------------------ primitives used by compiled ops
    def randbelow(self, n: int) -> int:
        self.rng, bits = next64(self.rng)
        return (bits * n) >> 64

    def step(self, p: int, k: int = 1) -> int:
        return (p + self.direction * k) % self.game.players

    def move_card(self, c: int, zi: int, place: int | None = None) -> None:
        g = self.game
        src = self.loc[c]
        lst = self.zones[src]
        grid = g.zone_grid
        if grid[src]:
            lst[lst.index(c)] = None  # the place stays, empty
        elif lst and lst[-1] == c:
            lst.pop()
        else:
            lst.remove(c)
        dst = self.zones[zi]
        if grid[zi]:
            if place is None:
                if len(dst) >= g.limits["places"]:
                    too_many_places(g, zi, len(dst) + 1)
                dst.append(c)  # a new place
            else:
                if place >= len(dst):
                    if place >= g.limits["places"]:
                        too_many_places(g, zi, place + 1)
                    dst.extend([None] * (place + 1 - len(dst)))
                if dst[place] is not None:
                    raise RulesRuntimeError(f"place {place + 1} of {g.zone_names[zi]} is not empty")
                dst[place] = c
        elif place is not None:
            dst.insert(max(0, min(place, len(dst))), c)
        else:
            dst.append(c)
        self.loc[c] = zi
        if self.counts:
            self._recount(c, src, zi)
        m = g.zone_learn[zi]
        if m:
            if m < 0:
                self.known[c] = ~m  # a public zone: everyone
            else:
                self.known[c] |= m  # a private zone: its owner

    def _recount(self, c: int, src: int, dst: int) -> None:
        """Card c went from zone src to zone dst in a straight run: their counts, if counted."""
        counts, face = self.counts, self.game.card_face[c]
        if counts[src] is not None:
            counts[src][face] -= 1
        if counts[dst] is not None:
            counts[dst][face] += 1

    def move_all(self, src: int, zi: int) -> list[int]:
        """Move every card of a stack or hand to another such zone, keeping their order (what
        `move_card` for each card from the bottom up would do, in one step)."""
        lst = self.zones[src]
        moved = lst[:]
        lst.clear()
        self._count_all(moved, src, -1)
        self._arrive(moved, zi)
        return moved

    def _count_all(self, cards: list[int], zi: int, step: int) -> None:
        """Cards taken out of (-1) or put into (+1) zone zi: its counts, in a straight run."""
        held = self.counts[zi] if self.counts else None
        if held is not None:
            face = self.game.card_face
            for c in cards:
                held[face[c]] += step

    def _arrive(self, cards: list[int], zi: int) -> None:
        """Cards (from a pile or hand) put on top of zone zi, in order: where they are now and
        what zi teaches."""
        self.zones[zi].extend(cards)
        loc = self.loc
        for c in cards:
            loc[c] = zi
        self._count_all(cards, zi, 1)
        m = self.game.zone_learn[zi]
        if m:
            known = self.known
            if m < 0:
                for c in cards:
                    known[c] = ~m
            else:
                for c in cards:
                    known[c] |= m

    def top_card(self, zi: int) -> int | None:
        lst = self.zones[zi]
        if self.game.zone_grid[zi]:
            for c in reversed(lst):
                if c is not None:
                    return c
            return None
        return lst[-1] if lst else None

    def draw_one(self, src: int, dst: int) -> int | None:
        """Move the top card of src to dst, refilling src first if it is empty and says how."""
        lst = self.zones[src]
        g = self.game
        if not g.zone_grid[src]:
            if not lst:
                self.refill(src)
                lst = self.zones[src]
                if not lst:
                    return None
            # `move_card` written out: the top of a pile onto a pile or a new place.
            c = lst.pop()
            self.zones[dst].append(c)
            self.loc[c] = dst
            if self.counts:
                self._recount(c, src, dst)
            m = g.zone_learn[dst]
            if m:
                if m < 0:
                    self.known[c] = ~m
                else:
                    self.known[c] |= m
            return c
        c = self.top_card(src)
        if c is None:
            self.refill(src)
            c = self.top_card(src)
            if c is None:
                return None
        self.move_card(c, dst)
        return c

    def refill(self, zi: int) -> None:
        g = self.game
        source = g.zone_refill[zi]
        if source < 0:
            return
        keep = g.zone_keep[zi]
        if len(self.zones[source]) <= keep:
            return  # (not more cards than it keeps: nothing to move)
        # Cards may go round for ever (a draw of many from a pile that refills from where they go):
        # the cards a refill moves count against the step budget.
        self.budget -= len(self.zones[source]) - keep
        if self.budget < 0:
            self.tick()
        lst = self.zones[source]
        if g.zone_grid[source]:
            cards = [c for c in lst if c is not None]
            moving = cards[: len(cards) - keep] if keep else cards
            if not moving:
                return
            for c in moving:
                self.move_card(c, zi)
        else:
            # `move_card` for each card from the bottom up, in one step: a pile or hand holds no none.
            moving = lst[: len(lst) - keep]
            del lst[: len(lst) - keep]
            self._count_all(moving, source, -1)
            self._arrive(moving, zi)
        self.shuffle_zone(zi)
        if self.log is not None:
            self.event(1, f"{g.zone_names[source]} is shuffled to make a new {g.zone_names[zi]}")

    def shuffle_zone(self, zi: int) -> None:
        g = self.game
        lst = self.zones[zi]
        if g.zone_grid[zi]:
            cards = [c for c in lst if c is not None]
        else:
            cards = lst
        # Fisher-Yates with `randbelow` (SplitMix64): a shuffle is most of the random draws.
        rng = self.rng
        n = len(cards)
        if n > _PACKED_FROM and _LITTLE:
            # Every draw's 64 bits at once: the states rng + k * GOLDEN side by side in one big
            # int, 128 bits apart (a product of two 64-bit numbers fits, so no lane spills into
            # the next), mixed by a few operations on the whole int. The same bits as one by one.
            lanes, steps, low, bits = _packs.get(n) or _pack(n)
            x = (rng * lanes + steps) & low
            x = (((x ^ (x >> 30)) & low) * 0xBF58476D1CE4E5B9) & low
            x = (((x ^ (x >> 27)) & low) * 0x94D049BB133111EB) & low
            x ^= x >> 31
            if n <= 256:
                # Each lane's draw z times its multiplier m, for all lanes at once (m bit by bit:
                # z * m < 2 ** 72 stays in its lane); j = z * m >> 64 is then byte 8 of the lane.
                p = 0
                for b, lanes_with_b in bits:
                    p += (x & lanes_with_b) << b
                i = n - 1
                for j in p.to_bytes(16 * (n - 1), "little")[8::16]:
                    cards[i], cards[j] = cards[j], cards[i]
                    i -= 1
            else:
                i = n
                for z in memoryview(x.to_bytes(16 * (n - 1), "little")).cast("Q")[::2].tolist():
                    j = (z * i) >> 64
                    i -= 1
                    cards[i], cards[j] = cards[j], cards[i]
            rng = (rng + (n - 1) * GOLDEN) & MASK
        else:
            for i in range(n - 1, 0, -1):
                rng = (rng + GOLDEN) & MASK
                z = ((rng ^ (rng >> 30)) * 0xBF58476D1CE4E5B9) & MASK
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
                j = ((z ^ (z >> 31)) * (i + 1)) >> 64
                cards[i], cards[j] = cards[j], cards[i]
        self.rng = rng
        if cards is not lst:
            it = iter(cards)
            for k, c in enumerate(lst):
                if c is not None:
                    lst[k] = next(it)
        learn = g.zone_learn[zi]
        mask = ~learn if learn < 0 else learn  # only what the zone itself shows: everyone else forgets
        known = self.known
        group = self.group
        gid = g.nzones + self.shuffles
        self.shuffles += 1
        for c in cards:
            known[c] = mask
            group[c] = gid

    def swap_cards(self, a: int, b: int) -> None:
        if a == b:
            return
        za, zb = self.loc[a], self.loc[b]
        la, lb = self.zones[za], self.zones[zb]
        ia, ib = la.index(a), lb.index(b)
        la[ia], lb[ib] = b, a
        self.loc[a], self.loc[b] = zb, za
        if self.counts and za != zb:
            self._recount(a, za, zb)
            self._recount(b, zb, za)
        learn = self.game.zone_learn  # what each zone shows: ~mask (everyone), its owner's bit, or 0
        known = self.known
        m = learn[zb]
        if m:
            known[a] = ~m if m < 0 else known[a] | m
        m = learn[za]
        if m:
            known[b] = ~m if m < 0 else known[b] | m

    def event(self, level: int, text: str, cards: tuple = ()) -> None:
        """Log an event; `{}` in text stands for `cards`, each shown to those who know it then or
        by the end of the step (a card served face up was seen, even if shuffled away later)."""
        known = self.known
        self.log.append((self.turn, level, text, tuple(cards), tuple(known[c] for c in cards)))

    def _log_choice(self, dec, value, index: int) -> None:
        g = self.game
        who = g.names[self.chooser]
        text = self.move_texts()[index]
        card = g.option_card(dec, value)
        if card is not None and g.zone_shape[self.loc[card]] != GRID and self.known[card] >> self.chooser & 1:
            face = g.card_text[card]
            if text.endswith(face):
                self.event(0, f"{who}: {text[: len(text) - len(face)]}{{}}", (card,))
                return
        self.event(0, f"{who}: {text}")


# The errors of running rules the machine locates in the rules file (a none where a card or a
# player must be, a division by zero, an error of a rule's own).


# What a straight run's failure puts back from the copy taken where it began (not the game, the
# playout's pick and stop, and the step budget, which a copy does not keep).
_RESTORED = tuple(n for n in State.__slots__ if n not in ("game", "pick", "stop", "budget", "draw", "free"))


def random_draw(pick: Callable) -> Callable[[int], int] | None:
    """`pick`'s generator's getrandbits if `pick` is the randrange of a `random.Random` (not a
    subclass, which may draw otherwise), else None. randrange(n) is then getrandbits(k) for k the
    bits of n, drawn again while it is n or more; a straight run draws so itself and saves two
    Python calls a decision. Checked once against this Python's randrange: if they differ, None."""
    owner = getattr(pick, "__self__", None)
    if type(owner) is not random.Random or getattr(pick, "__func__", None) is not random.Random.randrange:
        return None
    global _DRAWS_AS_RANDRANGE
    if _DRAWS_AS_RANDRANGE is None:
        a, b = random.Random(2026), random.Random(2026)

        def drawn(n: int) -> int:
            i = b.getrandbits(n.bit_length())
            while i >= n:
                i = b.getrandbits(n.bit_length())
            return i

        _DRAWS_AS_RANDRANGE = all(a.randrange(n) == drawn(n) for n in (*range(1, 70), 1000, 4097) * 3)
    return owner.getrandbits if _DRAWS_AS_RANDRANGE else None


_DRAWS_AS_RANDRANGE: bool | None = None


def cardlist_cells(g: CompiledGame, counters: list, variables: list, stack: list) -> list[tuple[list, int]]:
    """(list, index) of every cell of these counters, variables and frames that may hold a list of
    cards (compiler.names_cards): the cells a copy, a save and a sampled world must treat as such."""
    cells = [(counters, k) for k in g.cardlist_counters] + [(variables, k) for k in g.cardlist_vars]
    cells += [(f[2], k) for f in stack for k in g.codes[f[0]].cardlist_slots]
    return cells


LOCATED = (RulesRuntimeError, TypeError, ValueError, IndexError, ZeroDivisionError, KeyError, OverflowError)


_PACKAGE = __file__.rsplit("engine", 1)[0]  # this package's directory


def _raised_by_rules(e: BaseException) -> bool:
    """Did `e` come from running the rules (generated code, the engine, Python's own operations
    on them), not from a function a caller gave (a playout's pick)?"""
    tb = e.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return last is None or last.startswith(("<rules", _PACKAGE))


def too_many_places(g: CompiledGame, zi: int, n: int) -> None:
    """A grid would grow past its limit (a place far away, or cards moved within it for ever)."""
    raise RulesRuntimeError(f"{g.zone_names[zi]} would have {n} places, more than the limit of "
                            f"{g.limits['places']} (to allow more: --limit places=N)")


def bad_pick(st: State, i: int) -> None:
    """A playout's pick gave a number that is no option (the block has recorded its position)."""
    raise IllegalMove(f"move number {i} does not exist; there are {len(st.options)}")


def rules_message(e: BaseException) -> str:
    """What a runtime error of the rules says, in the words of the rules, not of Python."""
    if isinstance(e, RulesRuntimeError):
        return str(e).removeprefix("runtime error: ")
    msg = str(e)
    if "NoneType" in msg:
        return "a value here is none (the top of an empty zone, or a variable never set?)"
    if isinstance(e, ZeroDivisionError):
        return "division by zero"
    return msg


def run_leaf(st: State, code, env: list, pc: int = 0) -> int | None:
    """Run a leaf's code (one that never waits for a decision) to its end, as a call within the
    running block: None, or STACKED if an `end` in it set the stack's frames (the caller's block
    must then stop and the machine reload the top frame)."""
    blocks = code.blocks
    while True:
        block = blocks[pc]
        if block is None:
            block = st.game.block(code.index, pc)
        r = block(st, env)
        if r >= 0:
            pc = r
            continue
        return None if r == LEAF_DONE else STACKED


def normalize(text: str) -> str:
    return " ".join(str(text).lower().split())
