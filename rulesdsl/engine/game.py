"""A compiled game: tables of cards and zones, compiled code and decisions; it makes new states.

The compiler fills a `Game`; the engine reads it. Nothing here walks a syntax tree: expressions
and statements are already Python source, compiled into functions (rulesdsl/compile/).
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from ..errors import IllegalMove
from .constants import GRID, HAND, OTHERS, PRIVATE, PUBLIC
from .limits import limits_of
from .move import Decision as Decision  # (the compiler builds them; named here for it)
from .move import Move as Move  # (rulesdsl.Move, named here since the game API began)
from .state import State
from .texts import MoveTexts

DEFAULT_NAMES = (
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj",
    "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter", "xavier",
)


class Code:
    """A compiled procedure, hook, action or the game's skeleton: its ops, by position.

    Each op has a kind (PLAIN, TEST, JUMP or CONTROL, engine/constants.py), a source span and the
    writer of its Python source (`srcs`); `ops` keeps one entry per op, so positions (which frames
    and saved games hold) are counted the same way everywhere. From the writers, the compiler's
    block writer makes the straight stretch of ops from a position one generated function
    (`blocks[pc]`, built the first time that position runs).
    """

    __slots__ = ("name", "ops", "spans", "nlocals", "card_slots", "cardlist_slots", "kinds", "srcs", "blocks",
                 "ends", "index", "leaf", "slot_types", "parts")

    def __init__(self, name: str, nlocals: int):
        self.name = name
        self.index = 0  # its place in Game.codes
        # A leaf never waits for a decision (no `choose` in it or in what it calls), so a call runs it
        # to its end at once, in the caller's Python call, without a frame on the state's stack.
        self.leaf = False
        self.ops: list[None] = []  # one entry per op: positions are counted by it
        self.spans: list = []
        self.kinds: list[int] = []
        # Per op, its writer: `write(variant)` -> its lines and its way out (compile/blocks.py)
        self.srcs: list[Callable[[object], list]] = []
        # For an op that works out several expressions of the rules (the game's end conditions, the
        # actions' `when`, the ranking): the expressions and their spans, worked out again one by
        # one when the op fails, to locate the error at the one that fails.
        self.parts: dict[int, list[tuple[Callable, object]]] = {}
        self.blocks: list[Callable | None] = []
        self.ends: list[int] = []  # per start position: the position after its block's last op
        self.nlocals = nlocals
        self.card_slots: tuple[int, ...] = ()
        self.cardlist_slots: tuple[int, ...] = ()
        self.slot_types: dict[int, str] = {}  # local slot -> the checker's type (a loaded save is checked by it)


@attrs.define
class ScenarioStep:
    kind: str  # put, put_top, turn, set, play, expect, expect_illegal, expect_moves
    texts: tuple[str, ...]
    data: object  # a compiled function (or pair of them) for the steps that evaluate something
    span: object
    source: str  # the step's expression as written, for messages


@attrs.define
class ScenarioRt:
    name: str
    span: object
    players: int
    seed: int
    params: dict[str, object]
    steps: list[ScenarioStep]


class ActionRt:
    __slots__ = ("name", "code", "nlocals", "cond", "lead", "lead_label", "lead_label_fn")

    def __init__(self, name, code, nlocals, cond, lead, lead_label=None, lead_label_fn=None):
        self.name = name
        self.code = code
        self.nlocals = nlocals
        self.cond = cond
        self.lead = lead  # the action's first `choose`, merged into the turn decision, or None
        # Its moves read "LABEL OPTION": the action's name, or the choose's `as` ("" gives the option alone).
        self.lead_label = name if lead_label is None else lead_label
        self.lead_label_fn = lead_label_fn  # f(state) for a lead's label with values, asked before the action runs


class Game(MoveTexts):
    """A rules file compiled for a number of players and parameter values."""

    def __init__(self) -> None:
        # Filled by the compiler; listed here, a group of fields by method, so readers know what a
        # game holds.
        self._init_rules_file()
        self._init_cards_and_zones()
        self._init_values()
        self._init_code()
        self._init_run_tables()

    def _init_rules_file(self) -> None:
        """What the rules file made, for how many players and which parameter values, within which limits."""
        self.name = ""
        self.path = ""
        self.sources: dict[str, str] = {}
        self.warnings: list = []  # the checker's Diagnostics that let the rules run (`check` shows them)
        # The game in player language: per `about "..."` of the rules, (kind, name, text, (file,
        # first line, last line)), in file order (`rulesdsl rules`, `help MOVE`); and the words the
        # table shows for a zone, counter, variable or define (declared name -> display name).
        self.about: list[tuple[str, str, str, tuple[str, int, int]]] = []
        self.display_names: dict[str, str] = {}
        self.players = 0
        self.min_players = self.max_players = 0
        self.names: list[str] = []
        self.params: dict[str, object] = {}
        self.param_ranges: dict[str, tuple] = {}
        # The limits of a run (limits.py): steps, call depth, grid places, list sizes, digits.
        self.limits: dict[str, int] = limits_of()
        # The folders its imports were allowed to read besides its project and the preludes
        # (`allow_paths` of rulesdsl.load, resolved): a worker that loads it again needs them too.
        self.allow_paths: tuple[str, ...] = ()
        self.all_mask = 0

    def _init_cards_and_zones(self) -> None:
        """The cards (ints, with their kinds, faces and attributes by card) and the zones."""
        # cards
        self.ncards = 0
        self.kind_names: list[str] = []
        self.card_kind: tuple[int, ...] = ()
        self.card_face: tuple[int, ...] = ()
        self.set_order: tuple[int, ...] | None = None  # a set's cards' order (engine/sets.py), made when first read
        self.card_text: tuple[str, ...] = ()
        self.face_text: list[str] = []
        self.attrs: dict[str, tuple] = {}
        # Partial knowledge: the attributes some `show CARDS.attr to P` shows (State.partial holds
        # per card one mask of seats per attribute, in this order), and per kind how its face is
        # written (texts, and attribute names where a value goes), for a face half known.
        self.partial_attrs: tuple[str, ...] = ()
        self.kind_text: list[tuple[tuple[str, bool], ...]] = []
        self.attr_words: dict[str, tuple[str, ...]] = {}  # per attribute, each card's value as written
        # zones: one instance per global zone, one per player for the others
        self.nzones = 0
        self.zone_names: list[str] = []
        self.zone_spec: list[int] = []
        self.zone_spec_names: list[str] = []
        self.zone_spec_per_player: list[bool] = []
        self.zone_base: list[int] = []
        self.zone_shape: list[int] = []
        self.zone_vis: list[int] = []
        self.zone_owner: list[int] = []
        self.zone_refill: list[int] = []
        self.zone_keep: list[int] = []
        self.initial: list[tuple[int, list[int]]] = []

    def _init_values(self) -> None:
        """Counters and variables, the `define`s, and what a game shows and checks of itself."""
        # counters and variables: name -> (slot or base, per_player)
        self.counter_layout: dict[str, tuple[int, bool]] = {}
        self.var_layout: dict[str, tuple[int, bool]] = {}
        self.counter_init: list = []
        self.var_init: list = []
        # Per slot of counters and vars: the checker's type ("int", "card", "list[player]", ...).
        self.counter_types: list[str] = []
        self.var_types: list[str] = []
        self.defines: dict[str, Callable] = {}
        self.shows: list[tuple[str, Callable, str]] = []
        self.show_secrets: dict[str, tuple[int, ...]] = {}  # a show line's secret cells: `?` to who knows not all
        self.statistics: list[tuple[str, Callable, str]] = []
        self.may_end_without_winner = False  # `winners are` may name nobody (a cooperative game lost)
        self.invariants: list[tuple[str, Callable, object, str]] = []  # name, test, span, source
        self.scenarios: list[ScenarioRt] = []

    def _init_code(self) -> None:
        """The compiled code, its decisions and actions, and what determinization needs of them."""
        self.codes: list[Code] = []
        self.decisions: list[Decision] = []
        self.actions: list[ActionRt] = []
        self.fingerprint = ""
        # The cells of `State.vars` and `State.counters` that may hold a card, and those that may
        # hold a list of cards (compiler.names_cards): determinization re-points them all.
        self.card_vars: tuple[int, ...] = ()
        self.cardlist_vars: tuple[int, ...] = ()
        self.card_counters: tuple[int, ...] = ()
        self.cardlist_counters: tuple[int, ...] = ()
        self.holds_cardlists = False  # any of these, or a local of a code, may hold a list of cards
        # The cells of `State.vars` of `secret` variables (State.secrets keeps who knows them), and
        # per such cell its type (a save's recorded options are checked by it).
        self.secret_cells: dict[int, str] = {}
        # Per card, its place in an order of the cards by face (kind, then attribute values), then
        # number: determinization deals the hidden cards from that order (`prepare()`).
        self.card_rank: tuple[int, ...] = ()
        self.turn_resume = 0  # code 0's position while the turn decision is pending
        self.end_at = -1  # code 0's position where the game's end begins (`State.end_now`)

    def _init_run_tables(self) -> None:
        """What running the game reads: tables derived for the hot paths, generated code and its
        writers, and the machine's look-ups."""
        # Derived by `prepare()` for the engine's hot paths.
        self.zone_grid: list[bool] = []
        self.zone_hand: list[bool] = []
        self.zone_learn: list[int] = []  # what entering a zone teaches: ~mask (everyone), a bit (owner), 0
        # Generated code: the names its source refers to, and for each generated function's code
        # object, (code id, the op of each source line), to locate a runtime error.
        self.namespace: dict[str, object] = {}
        self.turn_options_fn: Callable[[State], list] | None = None
        # Playouts to the end compiled straight (straight.py): made the first time one runs; False
        # if the rules cannot run that way. `make_straight` gives what the writer needs.
        self.straight: Callable | bool | None = None
        self.make_straight: Callable | None = None
        # The compiler's two writers of Python source, handed over so that the engine imports no
        # compiler: (game, code id, pc) -> (block function, end, lines), see compile/blocks.py, block_function;
        # (game, unlimited) -> the straight playout function or None, see straight.straight_playout.
        self.write_block: Callable | None = None
        self.write_straight: Callable[[Game, bool], Callable | None] = lambda game, unlimited: None
        self.block_lines: dict[object, tuple[int, list[int]]] = {}
        self.start: tuple[list[list[int]], list[int], list[int], list[int]] = ([], [], [], [])
        # Hands whose cards a straight run counts by face (counts.py): the zone specs, whether each
        # zone is counted, how many are, per zone the seats that see a card arriving there, and
        # the counted zones with theirs (for count_cards).
        self.counted_specs: set[int] = set()
        self.zone_counted: list[bool] = []
        self.count_size = 0
        self.zone_seen_by: list[int] = []
        self._counted: list[tuple[int, int]] = []
        self.tails = True  # blocks write short tails in place (compile/blocks.py)
        # The name generated code reads a value by (the source compiler's), and this game's block
        # maker as one bound method (so generated code names it once).
        self.const: Callable[[object], str] | None = None
        self.block_of = self.block
        # Per action: its code, its number of locals, the slot of its leading choose (or -1).
        self.action_entry: list[tuple[Code, int, int]] = []
        self.decision_slot: list[int] = []  # per decision: the local its chosen value goes into
        self.code_blocks: list[list] = []  # per code: its `blocks` list (the machine's look-up)

    def prepare(self) -> None:
        """Derive the per-zone tables the engine's hot paths read (after the compiler filled the game)."""
        self.zone_grid = [shape == GRID for shape in self.zone_shape]
        self.zone_hand = [shape == HAND for shape in self.zone_shape]
        # Who learns a card that arrives: everyone (as ~mask: they know it, whoever knew it
        # before), the owner, every seat but the owner (a hand held facing out), or nobody.
        self.zone_learn = [
            ~self.all_mask if vis == PUBLIC else 1 << owner if vis == PRIVATE
            else self.all_mask & ~(1 << owner) if vis == OTHERS else 0
            for vis, owner in zip(self.zone_vis, self.zone_owner, strict=True)
        ]
        self.zone_seen_by = [~m & self.all_mask if m < 0 else m for m in self.zone_learn]
        self.count_hands(self.counted_specs)
        faces = sorted(range(self.ncards), key=lambda c: (self.attrs["kind"][c], _face_key(self, c), c))
        rank = [0] * self.ncards
        for i, c in enumerate(faces):
            rank[c] = i
        self.card_rank = tuple(rank)
        # Where every card starts, and who knows it: each new state copies these lists.
        zones: list[list[int]] = [[] for _ in range(self.nzones)]
        loc, known, group = [0] * self.ncards, [0] * self.ncards, [0] * self.ncards
        for zi, cards in self.initial:
            zones[zi] = list(cards)
            learn = self.zone_learn[zi]
            for c in cards:
                loc[c] = zi
                known[c] = ~learn if learn < 0 else 0  # a public zone's cards are known; no one owns a card yet
                group[c] = zi
        self.start = (zones, loc, known, group)

    def __repr__(self) -> str:
        return f"<Game {self.name!r} for {self.players} players>"

    def count_hands(self, specs: set[int]) -> None:
        """Count the cards of these zone specs by face in straight runs (see counts.py)."""
        self.counted_specs = set(specs)
        self.zone_counted = [spec in self.counted_specs for spec in self.zone_spec]
        self.count_size = sum(self.zone_counted)
        self._counted = [(zi, self.zone_seen_by[zi]) for zi, counted in enumerate(self.zone_counted) if counted]

    def count_cards(self, st: State) -> list[list[int] | None]:
        """Per zone, how many cards of each face it holds if it is counted, else None (see
        State.counts), worked out anew. A zone holding a card that one of those who see its
        cards does not know (not so in a game the engine played, but a state can be loaded) is
        not counted: its options are listed."""
        counts: list[list[int] | None] = [None] * len(self.zone_counted)
        face, nfaces, known, zones = self.card_face, len(self.face_text), st.known, st.zones
        for zi, seen in self._counted:
            held = [0] * nfaces
            for c in zones[zi]:
                if c is not None:
                    if known[c] & seen != seen:
                        break
                    held[face[c]] += 1
            else:
                counts[zi] = held
        return counts

    # ------------------------------------------------------------ making states
    def new_game(self, seed: int, *, log: bool = True) -> State:
        """A new game, set up and advanced to its first decision."""
        return State(self, seed, log)

    def state_from_json(self, text: str) -> State:
        """The state a save holds (`State.from_json`), checked against this game by saves.py.
        (saves.py and view.py are imported where they are first used: `rulesdsl check` needs neither.)"""
        from .saves import load_state

        return load_state(self, text)

    # ------------------------------------------------------------ showing a state
    def view_text(self, st: State, player: int, *, reveal: bool, events: int, hide: frozenset) -> str:
        """`State.view`, written by view.py (which the state does not import: view.py imports it)."""
        from .view import render_view

        return render_view(st, player, reveal=reveal, events=events, hide=hide)

    def event_texts(self, st: State, player: int, start: int, level: int) -> list[str]:
        """`State.events_for`: the log as `player` saw it, from event number `start` on."""
        from .view import render_event

        if st.log is None:
            return []
        return [render_event(st, ev, player) for ev in st.log[start:] if ev[1] <= level]

    # ------------------------------------------------------------ generated code
    def block(self, code_id: int, pc: int) -> Callable:
        """The function running code `code_id` from `pc`, generated the first time it is needed."""
        code = self.codes[code_id]
        if len(code.blocks) < len(code.ops):
            code.blocks.extend([None] * (len(code.ops) - len(code.blocks)))
            code.ends.extend([0] * (len(code.ops) - len(code.ends)))
        fn, end, lines = self.write_block(self, code_id, pc)
        self.block_lines[fn.__code__] = (code_id, lines)
        code.blocks[pc] = fn
        code.ends[pc] = end
        return fn

    def error_span(self, e: BaseException, code_id: int, pc: int, st: State | None = None):
        """The span of the op that raised `e`, found from the line of the generated block it ran;
        for an op of several expressions (`Code.parts`), the span of the first that fails again
        in `st` (they change nothing, so they fail again as they did)."""
        op = pc
        tb = e.__traceback__
        while tb is not None:
            found = self.block_lines.get(tb.tb_frame.f_code)
            if found is not None:
                code_id, lines = found
                op = lines[tb.tb_lineno - 2] if 0 <= tb.tb_lineno - 2 < len(lines) else pc
            tb = tb.tb_next
        code = self.codes[code_id]
        span = code.spans[op] if 0 <= op < len(code.spans) else None
        if span is None and st is not None:
            for part, where in code.parts.get(op, ()):
                try:
                    part(st)
                except Exception:
                    return where
        return span

    # ------------------------------------------------------------ decisions
    def turn_options(self, st: State) -> list:
        """The options of the turn decision: (action, value of its leading choose or None)."""
        if self.turn_options_fn is not None:
            return self.turn_options_fn(st)  # the same loop, generated for this game's actions
        opts = []
        me = st.current
        for ai, a in enumerate(self.actions):
            env = [None] * a.nlocals
            if a.cond is not None and not a.cond(st, env):
                continue
            if a.lead is None:
                opts.append((ai, None))
            elif a.lead.sets is not None:
                opts.extend([(ai, v) for v in a.lead.sets.options(st, env, a.lead.domain(st, env), me)])
            else:
                opts.extend([(ai, v) for v in self.distinct_values(st, a.lead, a.lead.domain(st, env), me)])
        return opts

    def choice_values(self, st: State, dec: Decision, env: list, chooser: int) -> list:
        """The distinct options of a `choose`: equal values once; identical cards of a hand once."""
        if dec.sets is not None:
            return dec.sets.options(st, env, dec.domain(st, env), chooser)
        return self.distinct_values(st, dec, dec.domain(st, env), chooser)

    def distinct_values(self, st: State, dec: Decision, values: list, chooser: int) -> list:
        if dec.elem != "card":
            return distinct_plain(st, values, chooser)
        return self.distinct_cards(st, values, chooser)

    def distinct_fn(self, dec: Decision, hand_free: bool = False) -> Callable[[State, list, int], list]:
        """`distinct_values` for one decision, as simple as it can be: identical cards merge only
        in a hand, so options that are not cards, or cards of a domain that holds no hand's cards
        (`hand_free`, known from the rules), only lose repeats and none."""
        if dec.elem != "card" or hand_free or not any(self.zone_hand):
            return distinct_plain
        return self.distinct_cards

    def distinct_cards(self, st: State, values: list, chooser: int) -> list:
        n = len(values)
        if n <= 1:
            return [c for c in values if c is not None]
        # A plain loop: quicker than any test for the common cases on a hand's worth of options.
        face = self.card_face
        out = []
        first: dict[int, int] = {}
        loc, known, hand, nfaces = st.loc, st.known, self.zone_hand, len(self.face_text)
        for c in values:
            if c is None:
                continue
            zi = loc[c]
            k = known[c]
            if hand[zi] and k >> chooser & 1:
                key = zi * nfaces + face[c]
                j = first.get(key)
                if j is None:
                    first[key] = len(out)
                    out.append(c)
                elif k.bit_count() > known[out[j]].bit_count():
                    # Play the card that more players know about: it is the one they saw.
                    out[j] = c
                continue
            if c not in out:
                out.append(c)
        return out

    def refresh_pending(self, st: State) -> None:
        """Recompute the pending decision's options after a test rearranged the cards."""
        st._texts = None
        if st.pending < 0:
            return
        if st.pending == 0:
            st.options = tuple(self.turn_options(st))
            return
        dec = self.decisions[st.pending]
        env = st.stack[-1][2]
        opts = self.choice_values(st, dec, env, st.chooser)
        if dec.optional:
            opts.append(None if dec.sets is None else [])
        st.options = tuple(opts)

    # ------------------------------------------------------------ reading a state
    def zone_index(self, name: str, player: int | None = None) -> int:
        if name in self.zone_names and player is None:
            return self.zone_names.index(name)
        if "." in name and player is None:
            owner, _, zname = name.partition(".")
            if owner in self.names:
                return self.zone_index(zname, self.names.index(owner))
        try:
            spec = self.zone_spec_names.index(name)
        except ValueError:
            raise KeyError(f"no zone '{name}'; zones: {', '.join(self.zone_spec_names)}") from None
        if self.zone_spec_per_player[spec]:
            if player is None:
                raise KeyError(f"zone '{name}' belongs to each player: give a player")
            return self.zone_base[spec] + player
        return self.zone_base[spec]

    def read_counter(self, st: State, name: str, player: int | None = None) -> int:
        layout = self.counter_layout.get(name)
        if layout is None:
            raise KeyError(f"no counter '{name}'")
        base, per = layout
        return st.counters[base + (player if per else 0)]

    def read_value(self, st: State, name: str):
        if name in self.defines:
            return self.defines[name](st)
        if name in self.var_layout and not self.var_layout[name][1]:
            return st.vars[self.var_layout[name][0]]
        if name in self.counter_layout and not self.counter_layout[name][1]:
            return st.counters[self.counter_layout[name][0]]
        raise KeyError(f"no value '{name}' without a player")

    def set_counter(self, st: State, name: str, value: int, player: int | None = None) -> None:
        base, per = self.counter_layout[name]
        st.counters[base + (player if per else 0)] = value
        self.refresh_pending(st)

    def set_var(self, st: State, name: str, value, player: int | None = None) -> None:
        base, per = self.var_layout[name]
        st.vars[base + (player if per else 0)] = value
        st.secrets.pop(base + (player if per else 0), None)  # (a value set from outside: known to all)
        self.refresh_pending(st)

    # ------------------------------------------------------------ arranging a state (tests)
    def face_ids(self, faces: list[str]) -> list[int]:
        out = []
        for f in faces:
            try:
                out.append(self.face_text.index(str(f)))
            except ValueError:
                raise KeyError(f"no card shown as '{f}'; cards: {', '.join(sorted(set(self.face_text)))}") from None
        return out

    def arrange(self, st: State, zone: str, faces: list[str], player: int | None, *, top: bool) -> None:
        zi = self.zone_index(zone, player)
        # By the face's text: kinds may share one (a "7" of each seat's hand), and the zone's own
        # card of that text is the one to take, whichever kind it is.
        wanted = [self.face_text[f] for f in self.face_ids(faces)]

        def preference(c: int) -> tuple:
            z = st.loc[c]
            # The zone itself first, then face-down piles of the table (a draw pile), then the rest.
            return (z != zi, not (self.zone_vis[z] == 0 and self.zone_owner[z] < 0), z, c)

        order = sorted(range(self.ncards), key=preference)
        chosen: list[int] = []
        taken: set[int] = set()
        for f in wanted:
            c = next((c for c in order if self.card_text[c] == f and c not in taken), None)
            if c is None:
                raise KeyError(f"not enough cards shown as '{f}'")
            chosen.append(c)
            taken.add(c)
        target = st.zones[zi]
        moving_in = sum(1 for c in chosen if st.loc[c] != zi)
        spare = [c for c in target if c is not None and c not in taken]
        # On top: a card brought in from a grid trades places with one of the zone's bottom cards,
        # so no place of a grid is left empty; one from a pile or a hand just leaves it.
        from_grids = sum(1 for c in chosen if st.loc[c] != zi and self.zone_shape[st.loc[c]] == GRID)
        displaced = spare[:from_grids] if top else spare
        # Where cards the zone no longer holds go: the pile it refills from (a draw pile's
        # discard pile), else the largest face-down pile of the table.
        if self.zone_refill[zi] >= 0:
            homes = [self.zone_refill[zi]]
        else:
            homes = [z for z in range(self.nzones) if z != zi and self.zone_vis[z] == 0
                     and self.zone_owner[z] < 0 and self.zone_shape[z] != GRID]
        if len(displaced) > moving_in and not homes:
            raise ValueError(f"set_cards: {len(displaced) - moving_in} card(s) of {self.zone_names[zi]} would have "
                             "no place; move them elsewhere first")
        # Free the places the chosen cards leave elsewhere; displaced cards fill them in order.
        holes: list[tuple[int, int]] = []
        for c in chosen:
            z = st.loc[c]
            if z != zi:
                k = st.zones[z].index(c)
                st.zones[z][k] = None
                holes.append((z, k))
        if top:
            holes = [h for h in holes if self.zone_shape[h[0]] == GRID]
        for c in displaced:
            if not holes:
                break
            z, k = holes.pop(0)
            st.zones[z][k] = c
            st.loc[c] = z
            self._reset_knowledge(st, c, z)
        leftovers = [c for c in displaced if st.loc[c] == zi]
        for z in {z for z, _ in holes} | {st.loc[c] for c in chosen if st.loc[c] != zi}:
            if self.zone_shape[z] != GRID:
                st.zones[z][:] = [c for c in st.zones[z] if c is not None]
        if leftovers:
            home = max(homes, key=lambda z: len(st.zones[z]))
            for c in leftovers:
                st.zones[home].insert(0, c)  # under what is there
                st.loc[c] = home
                self._reset_knowledge(st, c, home)
        if top:
            target[:] = [c for c in target if c is not None and c not in taken and st.loc[c] == zi] + chosen
        else:
            target[:] = chosen
        for c in chosen:
            st.loc[c] = zi
            self._reset_knowledge(st, c, zi)
        self.refresh_pending(st)

    def _reset_knowledge(self, st: State, c: int, zi: int) -> None:
        st.known[c] = self.zone_seen_by[zi]

    def force_turn(self, st: State, player: int) -> None:
        if st.pending != 0:
            raise IllegalMove("set_turn works only when a turn's action is being decided")
        st.current = player
        st.chooser = player
        self.refresh_pending(st)


def _face_key(g: Game, c: int) -> tuple:
    """Card c's attribute values, comparable whatever their types (numbers, texts, yes/no, none)."""
    return tuple((type(v[c]).__name__, v[c]) if v[c] is not None else ("", 0)
                 for a, v in sorted(g.attrs.items()) if a != "kind")


def distinct_plain(st: State, values: list, chooser: int) -> list:
    """Options without repeats and without none, in their order."""
    out = list(dict.fromkeys(values))
    if None in out:
        out.remove(None)
    return out
