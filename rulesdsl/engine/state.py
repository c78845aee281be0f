"""A game in progress, as plain data: its fields, its public face (moves, copies, saves, readers).

Cards are ints, zones are lists of ints, what each seat knows of a card is an int bitmask, and the
pending decision is a decision id plus the frames of the code that asked it (code id, position,
locals). So a state mid-action is still data: `clone()` copies lists, `to_json()` writes them.

`State` is made of parts, one module each, since each works on the same fields and the hot ones
are called as the state's own methods: machine.py (the machine's loop and playouts),
primitives.py (what compiled rules do to cards), hidden.py (determinization); this module holds
the fields and what a caller does with a state.

The state and its parts are the engine's bottom layer but for constants.py, move.py, limits.py
and rng.py: they import no other engine module. view.py and saves.py read a State, and game.py
makes states, shows and loads them, so they import this module; the state reaches them the other
way, through its game (`State.view` is `Game.view_text`, `State.from_json` is
`Game.state_from_json`), and names the game's type by the protocol `CompiledGame` below.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from ..errors import IllegalMove
from .constants import GRID
from .hidden import HiddenCards
from .limits import LIMITS
from .machine import Machine
from .move import Move
from .primitives import CardPrimitives
from .rng import seed_state

# Passes of `while` loops, turns and rounds allowed between two decisions, by default (a game's
# own is `game.limits["steps"]`, see limits.py).
STEP_BUDGET = LIMITS["steps"][0]
JSON_FORMAT = 1


@runtime_checkable
class CompiledGame(Protocol):
    """The compiled game (engine/game.py's `Game`) as a State, its parts (machine.py,
    primitives.py, hidden.py) and its saves (saves.py) read it. game.py imports this module, so
    this one names the game by what it reads of it, not by its class; `isinstance(game,
    CompiledGame)` checks a game has it all.
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
    end_at: int
    write_straight: Callable[[CompiledGame, bool], Callable | None]

    def block(self, code_id: int, pc: int) -> Callable: ...

    def error_span(self, e: BaseException, code_id: int, pc: int, st: State | None = None): ...

    def turn_options(self, st: State) -> list: ...

    def choice_values(self, st: State, dec, env: list, chooser: int) -> list: ...

    def option_texts(self, st: State) -> list[str]: ...

    def option_card(self, dec, value) -> int | None: ...

    def known_note(self, st: State, c: int, viewer: int) -> str: ...

    def view_text(self, st: State, player: int, *, reveal: bool, events: int, hide: frozenset) -> str: ...

    def event_texts(self, st: State, player: int, start: int, level: int) -> list[str]: ...

    def state_from_json(self, text: str) -> State: ...

    def zone_index(self, name: str, player: int | None = None) -> int: ...

    def read_counter(self, st: State, name: str, player: int | None = None) -> int: ...

    def read_value(self, st: State, name: str): ...

    def arrange(self, st: State, zone: str, faces: list[str], player: int | None, *, top: bool) -> None: ...

    def force_turn(self, st: State, player: int) -> None: ...


class State(Machine, CardPrimitives, HiddenCards):
    """One game in progress. Read it through its properties and methods; change it with `apply`.
    Its machine, its primitives on cards and its determinization are its base classes (see the
    module's doc)."""

    __slots__ = (
        "game", "zones", "loc", "known", "group", "shuffles", "counters", "vars", "rng", "current", "direction",
        "next_player",
        "continue_from", "round", "turn", "moves", "stack", "pending", "chooser", "options", "over",
        "winners", "ranking", "log", "budget", "step_limit", "_texts", "pick", "stop", "counts",
        "draw", "free", "secrets", "where", "partial", "pools", "unpooled",
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
        # Per cell of `vars` holding a secret choose's answer: (the seats that know it, the options
        # it was chosen from). Empty in a game with no `secret` variable.
        self.secrets: dict[int, tuple[int, list]] = {}
        # Whereabouts: card -> the seats that knew it when its hand or grid was last shuffled (they
        # still know which zone holds it while its group stays there: hidden.py). Replaced, never
        # changed in place, so copies share it; empty in a game that never shuffles a hand or grid.
        self.where: dict[int, int] = {}
        # Partial knowledge: card -> per attribute of `game.partial_attrs` the seats that know its
        # value (`show CARDS.attr to P`). Empty in a game without such a `show`.
        self.partial: dict[int, tuple[int, ...]] = {}
        # Per card shuffled while some seat did not know it: the pool (shuffle group) each seat
        # knows it in, a group per seat or one for all (hidden.py). Replaced, never changed in place.
        self.pools: dict[int, int | tuple[int, ...]] = {}
        # The shuffles not yet worked into `pools` (hidden.py, `pooled`): None, or (the one
        # before, group, cards, who knew each, their groups before). Never changed in place.
        self.unpooled: tuple | None = None
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
        # While a playout runs: its pick and the move it stops at (see `playout`).
        self.pick: Callable[[int], int] | None = None
        self.stop = -1
        # While a straight run lasts, if the pick is a `random.Random`'s randrange: that generator's
        # getrandbits, which the run calls itself for the same numbers (see random_draw), and 1 if
        # a decision with one option is not asked (`forced=False`), else 0. (2 while a playout's
        # machine plays up to a turn's start, to go straight from there: a game without actions.)
        self.draw: Callable[[int], int] | None = None
        self.free = 0
        self._run()

    def at_rest(self) -> None:
        """The fields only a running playout sets, as they are between playouts (see __init__)."""
        self.pick, self.stop, self.counts, self.draw, self.free = None, -1, [], None, 0

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
        i = match_text(move, texts)
        if i is not None:
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

    def _log_choice(self, dec, value, index: int) -> None:
        """The chosen move as an event; its card shown as a card (`{}`) if the chooser knows it, so
        each seat's log shows the face only to those who know it."""
        hidden = dec.hidden_text() if dec.secret else None
        self.record_move(self.chooser, self.move_texts()[index], self.game.option_card(dec, value), hidden)

    def record_move(self, seat: int, text: str, card: int | None, hidden: str | None = None) -> None:
        """Seat's move `text` as an event; with `hidden`, to the seat alone (the others read
        `hidden`); its card shown as a card (`{}`) if the seat knows it."""
        g = self.game
        who = g.names[seat]
        if hidden is not None:
            self.event(0, f"{who}: \0", (), ((text, 1 << seat, hidden),))
            return
        if isinstance(card, list):  # a set: each card the seat knows shown per seat
            self._set_move(seat, text, card)
            return
        if card is not None and g.zone_shape[self.loc[card]] != GRID and self.known[card] >> seat & 1:
            face = g.card_text[card]
            if text.endswith(face):
                self.event(0, f"{who}: {text[: len(text) - len(face)]}{{}}", (card,))
                return
        note = g.known_note(self, card, seat) if card is not None and self.partial else ""
        if note and text.endswith(" " + note):
            # What the seat knew of the card, to it and to those who know the card's face: the
            # others read the move without it (they may not know what it was shown).
            self.event(0, f"{who}: {text[: len(text) - len(note) - 1]}\0", (),
                       ((" " + note, 1 << seat | self.known[card], ""),))
            return
        self.event(0, f"{who}: {text}")

    def _set_move(self, seat: int, text: str, cards: list[int]) -> None:
        """A set's move (its text ends with its cards as the seat read them): each card the seat
        knows a hole (`{}`) that each seat's log fills in as it knew the card."""
        g = self.game
        words = [g.card_option_text(self, seat, c) for c in cards]
        tail = " ".join(words)
        # (a text that does not end so, say one told apart by a number, shows the cards alone)
        head = text[:len(text) - len(tail)] if text.endswith(tail) and "{}" not in text else "played "
        holes = [c for c in cards if g.zone_shape[self.loc[c]] != GRID and self.known[c] >> seat & 1]
        shown = " ".join("{}" if c in holes else w for c, w in zip(cards, words, strict=True))
        self.event(0, f"{g.names[seat]}: {head}{shown}", tuple(holes))

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
        s.secrets = dict(self.secrets) if self.secrets else {}
        s.where = self.where
        s.partial = dict(self.partial) if self.partial else {}
        s.pools = self.pools
        s.unpooled = self.unpooled
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
        s.pick = None  # (at_rest's fields, set without a call: clone is hot)
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
            "log": [list(e[:3]) + [list(e[3]), list(e[4]) if e[4] is not None else None]
                    + ([[list(x) for x in e[5]]] if len(e) > 5 else []) for e in self.log]
            if self.log is not None else None,
        }
        if self.secrets:  # (only then: the saves of games without secrets stay as they were)
            data["secrets"] = [[k, m, list(opts)] for k, (m, opts) in sorted(self.secrets.items())]
        if self.where:
            data["where"] = sorted([c, m] for c, m in self.where.items())
        if self.partial:
            data["partial"] = sorted([c, list(m)] for c, m in self.partial.items())
        if self.pooled():
            data["pools"] = sorted([c, v if type(v) is int else list(v)] for c, v in self.pools.items())
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


def cardlist_cells(g: CompiledGame, counters: list, variables: list, stack: list) -> list[tuple[list, int]]:
    """(list, index) of every cell of these counters, variables and frames that may hold a list of
    cards (compiler.names_cards): the cells a copy, a save and a sampled world must treat as such."""
    cells = [(counters, k) for k in g.cardlist_counters] + [(variables, k) for k in g.cardlist_vars]
    cells += [(f[2], k) for f in stack for k in g.codes[f[0]].cardlist_slots]
    return cells


_NOTE = re.compile(r" \([^()]*\)$")


def normalize(text: str) -> str:
    return " ".join(str(text).lower().split())


def match_text(text: str, texts: list[str]) -> int | None:
    """The move a text names (`State.apply`, the prompt): the same words, or the words of one
    move in another order (a set's cards: `play 7♥ 7♠`), or a card named by place without the note
    of what is known of it (`(?r)`); None if no move, or more than one, fits."""
    want = normalize(text)
    norm = [normalize(t) for t in texts]
    if want in norm:
        return norm.index(want)
    words = sorted(want.split())
    for fits in (lambda t: sorted(t.split()) == words, lambda t: _NOTE.sub("", t) == want):
        found = [i for i, t in enumerate(norm) if fits(t)]
        if len(found) == 1:
            return found[0]
    return None
