"""Checked program to runnable game: every expression becomes a Python closure, every block a
list of ops with jumps, so play never walks the syntax tree.

An op is `op(state, locals) -> None | int`: None goes on to the next op, an int >= 0 jumps,
SUSPEND waits for a decision and HALT ends the game. The game's skeleton (setup, rounds, turns,
end checks, ranking) is itself compiled into code 0, so `end round` is a jump like any other.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

import attrs

from . import ast
from .checker import ANY, BOOL, CARD, DIRECTION, INT, NONE, PLAYER, STR, ZONE, Program, elem, is_list
from .codegen import NoSource, SourceCompiler, _grid_places, block_function, env_list, leaf_lines, leaf_run, unguard
from .counts import counted_zones
from .domains import DomainWriter, Plan, fuse
from .engine.game import DEFAULT_NAMES, ActionRt, Code, Decision, Game, ScenarioRt, ScenarioStep, distinct_plain
from .engine.limits import limits_of
from .engine.state import (
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
    State,
    rules_message,
    run_leaf,
)
from .errors import Diagnostic, RulesError, RulesRuntimeError
from .straight import straight_playout

SHAPE = {"stack": STACK, "hand": HAND, "grid": GRID}
MAX_RANGE = 10_000
VIS = {"hidden": HIDDEN, "private": PRIVATE, "public": PUBLIC}
Fn = Callable[[State, list], object]


# What a value of a type may name, for determinization (see `names_cards`).
NO_CARD, A_CARD, CARDS = 0, 1, 2
_NO_CARD_TYPES = frozenset((INT, BOOL, STR, PLAYER, DIRECTION, NONE, ANY))


def names_cards(t: str) -> int:
    """Whether a value of type `t` may name a card (A_CARD), hold cards (CARDS: a list of cards or
    a zone's list), or neither. A type no rule here knows stops the compiler: a new type must say
    whether it can name a card, or a sampled world could keep naming the real cards."""
    if t == CARD:
        return A_CARD
    if t == ZONE or (is_list(t) and elem(t) == CARD):
        return CARDS
    if t in _NO_CARD_TYPES or (is_list(t) and elem(t) in _NO_CARD_TYPES):
        return NO_CARD  # (ANY: the items of an empty list, which never hold anything)
    raise AssertionError(f"the compiler does not know whether a value of type {t!r} can name a card")


def _card_cells(group: list, layout: dict[str, tuple[int, bool]], players: int) -> tuple[tuple[int, ...], ...]:
    """The cells of a group of variables (or counters), one per player for those per player,
    that may hold a card, and those that may hold a list of cards."""
    found: tuple[list[int], list[int]] = ([], [])
    for v in group:
        kind = names_cards(v.type)
        if kind != NO_CARD:
            base, per_player = layout[v.name]
            found[kind - 1].extend(range(base, base + (players if per_player else 1)))
    return tuple(found[0]), tuple(found[1])


class _Loop:
    def __init__(self) -> None:
        self.breaks: list[list[int]] = []


class _Builder:
    def __init__(self, code: Code):
        self.code = code
        self.loops: list[_Loop] = []

    def emit(self, op: Callable, span: ast.Span | None, kind: int = CONTROL,
             src: Callable[[], list[str]] | None = None) -> int:
        """Add an op. `kind` says what it may return (a CONTROL op may return anything); `src`,
        called once all jump targets are known, gives its Python source for generated blocks."""
        self.code.ops.append(op)
        self.code.spans.append(span)
        self.code.kinds.append(kind)
        self.code.srcs.append(src)
        return len(self.code.ops) - 1

    @property
    def pc(self) -> int:
        return len(self.code.ops)


class Compiler:
    def __init__(self, prog: Program, names: list[str] | None = None, codegen: bool = True, shortcuts: bool = True,
                 limits: dict[str, int] | None = None):
        self.p = prog
        self.g = Game()
        self.g.limits = limits_of(limits)
        self.g.write_block, self.g.write_straight = block_function, straight_playout
        n = prog.players
        self.n = n
        self.g.names = list(names) if names else _seat_names(n)
        self.end_cells: list[tuple[str, list[int]]] = []
        self.turn_cell = [0, 0]
        self.choose_decisions: dict[int, Decision] = {}
        self.hand_free: dict[int, bool] = {}  # per decision: its domain holds no hand's cards
        self.unit = ""
        self.leaf = False  # compiling a leaf code (see Code.leaf)
        self.turn_option_lines: list[str] = []  # the generated turn-options function, by line
        # For the straight writer (straight.py): each statement's code and the range of its ops, the
        # compiled tests and arguments of statements it writes itself, and the hooks' codes.
        self.stmt_ops: dict[int, tuple[Code, int, int]] = {}
        self.parts: dict[int, Fn] = {}
        self.hook_codes: dict[str, int] = {}
        self.refused: list = []  # expressions whose generated source did not compile (they run as closures)
        self.hoist: dict[int, tuple[list, int]] = {}
        self.codegen = codegen
        self.shortcuts = shortcuts  # leaves and tails (see compile_program)
        self.source = SourceCompiler(self)

    # ------------------------------------------------------------ entry
    def build(self) -> Game:
        p, g = self.p, self.g
        g.name = p.name
        g.sources = p.files
        g.path = next(iter(p.files), "")
        g.players = self.n
        g.min_players, g.max_players = p.min_players, p.max_players
        g.params = {k: v.value for k, v in p.params.items()}
        g.param_ranges = {k: (v.default, v.low, v.high) for k, v in p.params.items()}
        g.all_mask = (1 << self.n) - 1
        self._cards()
        self._zones()
        g.prepare()
        if self.codegen and self.shortcuts:  # (read by straight runs alone)
            g.count_hands(counted_zones(self))
        self._vars()
        # Which cells of the state's variables and counters may hold a card or a list of cards:
        # determinization re-points every one of them (State._rename).
        g.card_vars, g.cardlist_vars = _card_cells(p.vars, g.var_layout, self.n)
        g.card_counters, g.cardlist_counters = _card_cells(p.counters, g.counter_layout, self.n)
        for name, info in p.defines.items():
            if not info.params:
                g.defines[name] = _no_locals(self._define_fn(name))
        g.statistics = [(info.name, _located_part(self.cond_fn(info), info.expr.span, True), info.type)
                        for info in p.statistics]
        g.shows = [(name, _located_part(_no_locals(self._show_fn(name)),
                                        p.defines[name].expr.span if name in p.defines else None),
                    self._show_type(name))
                   for name in p.shows]
        g.decisions.append(Decision(0, "", None, None, None, False, "action", None, "turn"))
        main = Code("game", 0)
        main.index = 0
        g.codes.append(main)
        self.codes_by_name: dict[str, int] = {}
        self.proc_codes: dict[str, int] = {}
        self.leaf_procs, self.ending_procs = _leaves(p.procedures) if self.shortcuts else (set(), set())
        self.recursive_procs = _recursive(p.procedures)
        g.tails = self.shortcuts
        for name in p.procedures:
            self.proc_codes[name] = self._new_code(f"procedure {name}", p.procedures[name])
        self.recursive_codes = frozenset(self.proc_codes[name] for name in self.recursive_procs)
        depth, recursive = g.limits["depth"], self.recursive_codes

        def depth_check(st: State) -> None:
            """Before a recursive procedure's call: its frame would be one too many."""
            if sum(1 for f in st.stack if f[0] in recursive) >= depth:
                too_deep(depth)

        self.depth_check = depth_check
        for name, info in p.procedures.items():
            self._compile_body(self.proc_codes[name], info.body, "procedure", name in self.leaf_procs)
        hook_codes = self.hook_codes
        for when, info in p.hooks.items():
            hook_codes[when] = self._new_code(when, info)
        for when, info in p.hooks.items():
            self._compile_body(hook_codes[when], info.body, when, self._is_leaf(info.body))
        for info in p.actions:
            ci = self._new_code(f"action {info.name}", info)
            # The leading choose is the turn's decision: the rest decides whether it is a leaf.
            first = info.body[0] if info.body else None
            rest = info.body[1:] if isinstance(first, ast.Choose) and first.by is None and not first.optional \
                else info.body
            self._compile_body(ci, info.body, "action", self._is_leaf(rest))
            cond = self.expr(info.cond) if info.cond is not None else None
            lead = None
            first = info.body[0] if info.body else None
            if isinstance(first, ast.Choose) and first.by is None and not first.optional:
                lead = self.choose_decisions[id(first)]
            g.actions.append(ActionRt(info.name, ci, info.nlocals, cond, lead,
                                      first.label if lead is not None else None))
        g.turn_options_fn = self._turn_options_fn()
        self._main(main, hook_codes)
        g.invariants = [(info.name, self.cond_fn(info), info.span, _source(p.files, info.expr.span))
                        for info in p.invariants]
        g.scenarios = [self._scenario(sc) for sc in p.scenarios]
        g.fingerprint = _fingerprint(p, g)
        g.namespace = self.source.names
        if self.codegen and self.shortcuts:  # (the others are the slow ways, kept to test against)
            g.make_straight = lambda: self
        g.const = self.source.const
        for code in g.codes:
            code.blocks = [None] * len(code.ops)
            code.ends = [0] * len(code.ops)
        g.decision_slot = [d.slot for d in g.decisions]
        g.holds_cardlists = bool(g.cardlist_vars or g.cardlist_counters or any(c.cardlist_slots for c in g.codes))
        g.code_blocks = [code.blocks for code in g.codes]
        g.action_entry = [(g.codes[a.code], a.nlocals, a.lead.slot if a.lead is not None else -1) for a in g.actions]
        return g

    def _scenario(self, sc) -> ScenarioRt:
        steps = []
        for step, info in sc.steps:
            kind = step.kind
            if kind in ("put", "put_top"):
                data = self._zone_no_locals(step.expr)
            elif kind == "turn":
                data = self.cond_fn(info)
            elif kind == "set":
                data = _no_locals(self._assign_op(self.p.refs[id(step)], "=", step.expr, step.target))
            elif kind == "expect":
                data = (self.cond_fn(info), self._explain(step.expr, info.nlocals))
            else:
                data = None
            steps.append(ScenarioStep(kind, step.texts, data, step.span,
                                      _source(self.p.files, step.expr.span) if step.expr is not None else ""))
        return ScenarioRt(sc.name, sc.span, sc.players, sc.seed, dict(sc.params), steps)

    def _zone_no_locals(self, e: ast.Expr) -> Callable[[State], int]:
        f = self.zone(e)
        return lambda st: f(st, [])

    def _explain(self, e: ast.Expr, nlocals: int) -> Callable[[State], str]:
        """For a failed `expect`: the values of the two sides of a comparison, in words."""
        if not (isinstance(e, ast.Binary) and e.op in ("==", "!=", "<", "<=", ">", ">=", "in")):
            return lambda st: ""
        sides = []
        for side in (e.left, e.right):
            if isinstance(side, (ast.IntLit, ast.StrLit, ast.BoolLit, ast.NoneLit)):
                continue
            fmt = self.formatter(self.expr(side), self.type(side))
            sides.append((_source(self.p.files, side.span), fmt))

        def explain(st):
            env = [None] * max(nlocals, 1)
            return "; ".join(f"{src} is {fmt(st, env)}" for src, fmt in sides)

        return explain

    def _is_leaf(self, body: tuple[ast.Stmt, ...]) -> bool:
        """No `choose` in the body, and it calls leaf procedures only."""
        return self.shortcuts and _never_decides(body, self.leaf_procs)

    def _new_code(self, name: str, info) -> int:
        code = Code(name, info.nlocals)
        code.index = len(self.g.codes)
        # Which locals may hold a card or a list of cards (a zone's is the zone's own list): a
        # pending frame's locals are part of the state, and determinization re-points them too.
        # Every local has a type (checker.py), and `names_cards` says what each type may hold.
        code.card_slots = tuple(sorted(s for s, t in info.slot_types.items() if names_cards(t) == A_CARD))
        code.cardlist_slots = tuple(sorted(s for s, t in info.slot_types.items() if names_cards(t) == CARDS))
        code.slot_types = dict(info.slot_types)  # (what a loaded save's locals must hold: engine/saves.py)
        self.g.codes.append(code)
        return len(self.g.codes) - 1

    # ------------------------------------------------------------ tables
    def _cards(self) -> None:
        p, g = self.p, self.g
        faces: dict[tuple, int] = {}
        kinds, face_ids, texts = [], [], []
        g.kind_names = [k.name for k in p.kinds]
        g.attrs = {a: [] for a in p.attr_types}
        by_zone: dict[int, list[int]] = {}
        for i, c in enumerate(p.cards):
            k = p.kinds[c.kind]
            key = (c.kind, tuple(c.values.get(a) for a in k.attrs))
            if key not in faces:
                faces[key] = len(g.face_text)
                g.face_text.append(self._face_text(k, c.values))
            kinds.append(c.kind)
            face_ids.append(faces[key])
            texts.append(g.face_text[faces[key]])
            for a in g.attrs:
                g.attrs[a].append(c.values.get(a))
            by_zone.setdefault(c.zone, []).append(i)
        g.ncards = len(p.cards)
        g.card_kind, g.card_face, g.card_text = tuple(kinds), tuple(face_ids), tuple(texts)
        g.attrs = {a: tuple(v) for a, v in g.attrs.items()}
        g.attrs["kind"] = tuple(p.kinds[k].name for k in kinds)
        self._start_zones = by_zone

    def _face_text(self, k, values: dict) -> str:
        if k.shown is None:
            return " ".join([k.name] + [str(_show_value(values[a])) for a in k.attrs])
        out = []
        for part in k.shown.parts:
            if isinstance(part, str):
                out.append(part)
            else:
                out.append(str(_show_value(k.name if part.id == "kind" else values.get(part.id))))
        return "".join(out)

    def _zones(self) -> None:
        p, g, n = self.p, self.g, self.n
        for z in p.zones:
            g.zone_base.append(g.nzones)
            g.zone_spec_names.append(z.name)
            g.zone_spec_per_player.append(z.per_player)
            owners = range(n) if z.per_player else [-1]
            for owner in owners:
                g.zone_names.append(f"{g.names[owner]}.{z.name}" if owner >= 0 else z.name)
                g.zone_spec.append(z.index)
                g.zone_shape.append(SHAPE[z.shape])
                g.zone_vis.append(VIS[z.visibility])
                g.zone_owner.append(owner)
                g.zone_keep.append(z.keep)
                g.zone_refill.append(-1)
                g.nzones += 1
        for z in p.zones:
            if z.refill is not None:
                g.zone_refill[g.zone_base[z.index]] = g.zone_base[z.refill]
        g.initial = [(g.zone_base[spec], cards) for spec, cards in self._start_zones.items()]

    def _vars(self) -> None:
        p, g, n = self.p, self.g, self.n
        for layout, init, types, group in ((g.counter_layout, g.counter_init, g.counter_types, p.counters),
                                           (g.var_layout, g.var_init, g.var_types, p.vars)):
            for v in group:
                value = self._const(v.init)
                layout[v.name] = (len(init), v.per_player)
                init.extend([value] * (n if v.per_player else 1))
                types.extend([v.type] * (n if v.per_player else 1))

    def _const(self, e: ast.Expr):
        f = self.expr(e)
        try:
            return f(None, [])
        except Exception:
            raise RulesError([Diagnostic(e.span, "an initial value must not depend on the game in progress")],
                             self.p.files) from None

    # ------------------------------------------------------------ the skeleton (code 0)
    def _main(self, main: Code, hooks: dict[str, int]) -> None:
        g, p = self.g, self.p
        b = _Builder(main)

        def call(code_id: int) -> Callable:
            nlocals = g.codes[code_id].nlocals

            def op(st, env):
                st.stack.append([code_id, 0, [None] * nlocals])
                return RELOAD

            return op

        def maybe(when: str) -> None:
            if when in hooks:
                code_id, nlocals = hooks[when], g.codes[hooks[when]].nlocals
                if g.codes[code_id].leaf:
                    self._leaf_call(b, code_id, [], None, self._ends(p.hooks[when].body))
                    return
                b.emit(call(code_id), None, CONTROL,
                       lambda: [f"st.stack.append([{code_id}, 0, {env_list([], nlocals)}])", f"return {RELOAD}"])

        labels: dict[str, int] = {}
        maybe("setup")
        labels["round"] = b.pc

        def round_begin(st, env):
            st.tick()
            st.round += 1
            if st.log is not None:
                st.event(0, f"== round {st.round} ==")

        const = self.source.const
        # Where a run of rounds or turns with no decision is reported (the step budget): the hook
        # that runs at each, or else the end that never came.
        ends = [info.expr.span for info in (*p.round_ends, *p.game_ends)]
        never = ends[0] if ends else None
        b.emit(round_begin, p.hooks["round start"].span if "round start" in p.hooks else never, PLAIN, lambda: [
            "st.budget -= 1", "if st.budget < 0: st.tick()", "st.round += 1",
            "if st.log is not None: st.event(0, f'== round {st.round} ==')"])
        maybe("round start")
        labels["turn"] = b.pc
        n = self.n
        names = g.names

        def next_turn(st, env):
            st.tick()
            if st.next_player >= 0:
                who = st.next_player
            elif st.continue_from >= 0:
                who = (st.continue_from + st.direction) % n
            elif st.turn == 0:
                who = st.current
            else:
                who = (st.current + st.direction) % n
            st.next_player = st.continue_from = -1
            st.current = who
            st.turn += 1
            if st.log is not None:
                st.event(0, f"-- turn {st.turn}: {names[who]} --")

        game_never = p.game_ends[0].expr.span if p.game_ends else never
        b.emit(next_turn, p.hooks["turn start"].span if "turn start" in p.hooks else game_never, PLAIN, lambda: [
            "st.budget -= 1",
            "if st.budget < 0: st.tick()",
            "if st.next_player >= 0: _w = st.next_player",
            f"elif st.continue_from >= 0: _w = (st.continue_from + st.direction) % {n}",
            "elif st.turn == 0: _w = st.current",
            f"else: _w = (st.current + st.direction) % {n}",
            "st.next_player = st.continue_from = -1",
            "st.current = _w",
            "st.turn += 1",
            f"if st.log is not None: st.event(0, f'-- turn {{st.turn}}: {{{const(names)}[_w]}} --')",
        ])
        maybe("turn start")
        turn_options = g.turn_options_fn or g.turn_options

        def decide(st, env):
            opts = turn_options(st)
            if not opts:
                if st.log is not None:
                    st.event(0, f"{names[st.current]} cannot act: the turn passes")
                return None
            st.pending = 0
            st.chooser = st.current
            st.options = tuple(opts)
            st._texts = None
            return SUSPEND

        def decide_src() -> list[str]:
            body = self.turn_option_lines
            if any("return" in line for line in body[1:-1]):
                body = []  # it returns early: keep it a function
            # The turn-options function's body written in place (one call less a turn): the last
            # op of its block, so the names it binds (env included) are not read after it.
            get = [line[4:] for line in body[1:-1]] + ["_v = opts"] if body else [f"_v = {const(turn_options)}(st)"]
            return get + [
                "if not _v:",
                f"    if st.log is not None: st.event(0, {const(names)}[st.current] + ' cannot act: the turn passes')",
                "    return @NEXT@",
                "st.pending = 0; st.chooser = st.current; st.options = tuple(_v); st._texts = None",
                f"return {SUSPEND}",
            ]

        main.parts[b.emit(decide, None, CONTROL, decide_src)] = self._action_parts()
        labels["after action"] = b.pc
        g.turn_resume = b.pc  # where code 0 stands while a turn's action is asked (a save is checked by it)
        self.turn_region = (labels["turn"] + 1, labels["after action"])
        maybe("turn end")
        game_ends = [self.cond_fn(x) for x in p.game_ends]
        round_ends = [self.cond_fn(x) for x in p.round_ends]
        over_cell, round_over_cell, mid_cell = [0], [0], [0]

        def checks(infos, cell) -> Callable[[], list[str]]:
            return lambda: [f"if {self.fresh(info)}: return {cell[0]}" for info in infos]

        def check_game_in_round(st, env):
            # A game that ends after a turn ends its round too: `round end` runs, then `game end`.
            for f in game_ends:
                if f(st):
                    return mid_cell[0]
            return None

        def check_game(st, env):
            for f in game_ends:
                if f(st):
                    return over_cell[0]
            return None

        def check_round(st, env):
            for f in round_ends:
                if f(st):
                    return round_over_cell[0]
            return None

        def parts(infos, fns) -> list:
            return [(f, info.expr.span) for info, f in zip(infos, fns, strict=True)]

        if game_ends:
            at = b.emit(check_game_in_round, None, TEST, checks(p.game_ends, mid_cell))
            main.parts[at] = parts(p.game_ends, game_ends)
        if round_ends:
            at = b.emit(check_round, None, TEST, checks(p.round_ends, round_over_cell))
            main.parts[at] = parts(p.round_ends, round_ends)
        turn_label = labels["turn"]
        b.emit(lambda st, env: turn_label, None, JUMP, lambda: [f"return {turn_label}"])
        labels["round over"] = round_over_cell[0] = b.pc
        maybe("round end")
        if game_ends:
            main.parts[b.emit(check_game, None, TEST, checks(p.game_ends, over_cell))] = parts(p.game_ends, game_ends)
        round_label = labels["round"]
        b.emit(lambda st, env: round_label, None, JUMP, lambda: [f"return {round_label}"])
        labels["game over in a round"] = mid_cell[0] = b.pc
        maybe("round end")
        labels["over"] = over_cell[0] = b.pc
        maybe("game end")
        finish, finish_src = self._finish()
        rank_parts = [(_every_seat(self.rank_fn(info), n), info.expr.span) for _, info in p.rank]
        if p.winners is not None:
            rank_parts.append((self.cond_fn(p.winners), p.winners.expr.span))
        main.parts[b.emit(finish, None, CONTROL, finish_src)] = rank_parts
        self.labels = labels
        # Now that labels are known, fill in the cells `end turn/round/game` jump to.
        for what, cell in self.end_cells:
            cell[0] = labels[what]
        self.turn_cell[0], self.turn_cell[1] = self.turn_region

    def _action_parts(self) -> list:
        """Each action's `when` and the list of its leading `choose`, to locate an error in the
        turn's options (Code.parts)."""
        out = []
        for a, info in zip(self.g.actions, self.p.actions, strict=True):
            def part(st, f, nlocals=a.nlocals):
                return f(st, [None] * nlocals)

            if a.cond is not None:
                out.append((lambda st, f=a.cond, part=part: part(st, f), info.cond.span))
            if a.lead is not None:
                out.append((lambda st, f=a.lead.domain, part=part: part(st, f), info.body[0].domain.span))
        return out

    def _turn_options_fn(self) -> Callable[[State], list] | None:
        """`Game.turn_options` as one generated function: each action's condition and leading
        choose's domain inlined, so a turn's options cost no closure calls beyond the rules'."""
        g = self.g
        inline = self.source.inline
        lines = ["def turn_options(st):", "    opts = []", "    me = st.current"]
        run: list[Plan] = []  # actions in a row whose loops over a zone may run as one (domains.fuse)
        for ai, (a, info) in enumerate(zip(g.actions, self.p.actions, strict=True)):
            plan = self._option_plan(ai, a, info)
            if plan is not None:
                run.append(plan)
                continue
            lines.extend("    " + line for line in fuse(run, "_wo{i}"))
            run = []
            ind = ""
            body = []
            if a.cond is not None:
                body.append(f"if {inline(a.cond)}:")
                ind = "    "
            if a.lead is None:
                body.append(f"{ind}opts.append(({ai}, None))")
            else:
                body += [ind + line for line in self.lead_options(a, info, "opts", f"({ai}, {{v}})")]
            if any("env" in line for line in body):
                lines.append(f"    env = {env_list([], a.nlocals)}")
            lines.extend("    " + line for line in body)
        lines.extend("    " + line for line in fuse(run, "_wo{i}"))
        lines.append("    return opts")
        scope: dict[str, object] = {}
        try:
            code = compile("\n".join(lines) + "\n", f"<rules {g.name} turn options>", "exec")
        except SyntaxError:  # an expression Python does not take here: the loop in Game.turn_options
            return None
        exec(code, self.source.names, scope)
        self.turn_option_lines = lines
        return scope["turn_options"]

    def lead_options(self, a: ActionRt, info, target: str, item: str) -> list[str]:
        """Lines appending to list `target` the options of an action's leading choose, each as
        `item` (a format with {v}) makes it, in the turn's order (for the turn's options, and the
        straight writer's picked action)."""
        fn = self.distinct_fn(a.lead)
        try:  # loops that filter, merge and append as they go
            return self.domains.options(info.body[0].domain, fn, "me", target, item)
        except NoSource:
            # An empty domain has no options: no call to sort out duplicates.
            each = f"[{item.format(v='_v')} for _v in " + (
                "dict.fromkeys(_d) if _v is not None]" if fn is distinct_plain
                else f"{self.source.const(fn)}(st, _d, me)]")
            return [f"_d = {self.source.inline(a.lead.domain)}", f"if _d: {target}.extend({each})"]

    def _option_plan(self, ai: int, a: ActionRt, info) -> Plan | None:
        """An action's options as a Plan, if it has no condition: its scans cannot fail, so they may
        run with other actions' (its other lines stay in its turn)."""
        if a.cond is not None or not self.codegen:
            return None
        if a.lead is None:
            return Plan(post=[f"opts.append(({ai}, None))"])
        try:
            plan = self.domains.plan(info.body[0].domain, self.distinct_fn(a.lead), "me", f"({ai}, {{v}})")
        except NoSource:
            return None
        if any("env" in line for line in plan.lines("opts")):
            return None  # it reads the action's locals
        return plan

    def _finish(self) -> tuple[Callable, Callable[[], list[str]]]:
        """The end of a game (ranking, winners, the state's last fields) as an op, and its source:
        each seat's rank keys and the winners written out, the expressions in place."""
        g, p, n = self.g, self.p, self.n
        keys = [(order, self.rank_fn(info)) for order, info in p.rank]
        winners_fn = self.cond_fn(p.winners) if p.winners is not None else None

        def log(st, winners):
            st.event(0, "game over: " + (", ".join(g.names[w] for w in winners) or "nobody") + " "
                     + ("win" if len(winners) > 1 else "wins"))

        def source() -> list[str]:
            inline = self.source.inline
            # Each expression gets locals of its own, as rank_fn's and cond_fn's calls do (the
            # block's own are not read again: the game ends here).
            lines = []
            if keys:
                fns = [(order, info, self.expr(info.expr)) for order, info in p.rank]
                for seat in range(n):
                    for k, (order, info, f) in enumerate(fns):
                        neg = "" if order == "lowest" else "-"
                        lines += [f"env = {env_list([], info.nlocals)}", f"env[{info.it_slot}] = {seat}",
                                  f"_v = {inline(f)}",
                                  f"_a{seat}_{k} = {neg}(int(_v) if _v is not None else 0)"]
                    parts = [f"_a{seat}_{k}" for k in range(len(fns))]
                    lines.append(f"_a{seat} = {parts[0]}" if len(parts) == 1 else f"_a{seat} = ({', '.join(parts)})")
                ranks = ["1" + "".join(f" + (_a{o} < _a{s})" for o in range(n) if o != s) for s in range(n)]
                lines.append(f"ranking = [{', '.join(ranks)}]")
            if p.winners is not None:
                lines += [f"env = {env_list([], p.winners.nlocals)}", f"_s = set({inline(self.expr(p.winners.expr))})",
                          "_s.discard(None)", "winners = sorted(_s)"]
                if not keys:
                    lines.append(f"ranking = [{', '.join(f'1 if {s} in winners else 2' for s in range(n))}]")
            elif keys:
                lines.append("winners = []")
                lines += [f"if ranking[{s}] == 1: winners.append({s})" for s in range(n)]
            else:
                lines += [f"ranking = {[1] * n}", f"winners = {list(range(n))}"]
            return lines + ["st.ranking = ranking", "st.winners = winners", "st.over = True", "st.pending = -1",
                            "st.chooser = -1", "st.options = ()", "st._texts = None",
                            f"if st.log is not None: {self.source.const(log)}(st, winners)",
                            # The frame's position as the machine records it after a HALT (this
                            # source may be written in place of a jump, in another block).
                            "st.stack[-1][1] = @NEXT@", f"return {SUSPENDED}"]

        def finish(st, env):
            ranking = [1] * n
            if keys:
                vals = []
                for seat in range(n):
                    k = []
                    for order, f in keys:
                        v = f(st, seat)
                        v = int(v) if v is not None else 0
                        k.append(v if order == "lowest" else -v)
                    vals.append(tuple(k))
                for seat in range(n):
                    ranking[seat] = 1 + sum(1 for other in range(n) if vals[other] < vals[seat])
            if winners_fn is not None:
                winners = sorted({w for w in winners_fn(st) if w is not None})
                if not keys:
                    ranking = [1 if s in winners else 2 for s in range(n)]
            else:
                winners = [s for s in range(n) if ranking[s] == 1]
            st.ranking = ranking
            st.winners = winners
            st.over = True
            st.pending = -1
            st.chooser = -1
            st.options = ()
            st._texts = None
            if st.log is not None:
                log(st, winners)
            return HALT

        return finish, source

    def fresh(self, info) -> str:
        """Python source of an ExprInfo's expression evaluated with locals of its own."""
        f = self.expr(info.expr)
        src = getattr(f, "src", None)
        if src is not None and "env" not in src:
            return f"({src})"  # it uses no locals: the block's own are as good
        return f"{self.source.const(f)}(st, {env_list([], info.nlocals)})"

    def cond_fn(self, info) -> Callable[[State], object]:
        f = self.expr(info.expr)
        nlocals = info.nlocals
        return lambda st: f(st, [None] * nlocals)

    def rank_fn(self, info) -> Callable[[State, int], object]:
        f = self.expr(info.expr)
        nlocals, slot = info.nlocals, info.it_slot

        def key(st, seat):
            env = [None] * nlocals
            env[slot] = seat
            return f(st, env)

        return key

    # ------------------------------------------------------------ statements
    def _compile_body(self, code_id: int, body: tuple[ast.Stmt, ...], unit: str, leaf: bool = False) -> None:
        b = _Builder(self.g.codes[code_id])
        self.unit = unit
        self.g.codes[code_id].leaf = self.leaf = leaf
        for s in body:
            self.stmt(s, b)
        self._return(b, None)

    def _return(self, b: _Builder, span) -> None:
        """The end of a code, or `return`: a leaf's runner stops; otherwise its frame goes."""
        if self.leaf:
            b.emit(lambda st, env: LEAF_DONE, span, CONTROL, lambda: [f"return {LEAF_DONE}"])
            return

        def ret(st, env):
            st.stack.pop()
            return RELOAD

        b.emit(ret, span, CONTROL, lambda: ["st.stack.pop()", f"return {RELOAD}"])

    def _ends(self, body: tuple[ast.Stmt, ...]) -> bool:
        """Whether running the body may reach an `end` (in it, or in a procedure it calls)."""
        return _may_end(body, self.ending_procs)

    def _leaf_call(self, b: _Builder, code_id: int, args: list, span, ends: bool) -> None:
        """A call of a leaf: its code runs to its end within this op. If it may reach an `end`,
        the caller's frame first records where it goes on (after this call), as a frame's call
        does, since an `end` outside a turn resumes there; the block stops if the stack changed."""
        code = self.g.codes[code_id]
        nlocals = code.nlocals
        k = len(args)
        pos = [0]

        def op(st, env):
            new = [None] * nlocals
            for i in range(k):
                new[i] = args[i](st, env)
            if ends:
                st.stack[-1][1] = pos[0]
            return run_leaf(st, code, new)

        def src() -> list[str]:
            new = env_list([self.source.inline(a) for a in args], nlocals)
            lines = ["st.stack[-1][1] = @NEXT@"] if ends else []
            if self.g.tails:
                inlined = leaf_lines(self.g, code.index, [self.source.inline(a) for a in args])
                if inlined is not None:
                    return lines + inlined
            return [*lines, f"_e = {new}", *leaf_run(self.g, code, 0, "_e")]

        pos[0] = b.emit(op, span, TEST, src) + 1

    def stmt(self, s: ast.Stmt, b: _Builder) -> None:
        start = b.pc
        getattr(self, "s_" + type(s).__name__)(s, b)
        self.stmt_ops[id(s)] = (b.code, start, b.pc)

    def part(self, e: ast.Expr) -> Fn:
        """A test or an argument of a statement, compiled, and kept for the straight writer."""
        f = self.parts[id(e)] = self.expr(e)
        return f

    def block(self, body, b: _Builder) -> None:
        for s in body:
            self.stmt(s, b)

    def _cards_fn(self, e: ast.Expr, f: Fn | None = None) -> Callable:
        """A function giving a list of cards (a copy) for a card, a zone or a list of cards."""
        t = self.type(e)
        if f is None:
            f = self.expr(e)
        if t == CARD:
            return lambda st, env: [] if (c := f(st, env)) is None else [c]
        return lambda st, env: [c for c in f(st, env) if c is not None]

    def _log_move(self, st, cards, src_names, dst) -> None:
        g = self.g
        if cards:
            srcs = ", ".join(dict.fromkeys(src_names))
            st.event(1, f"{len(cards)} card{'s' if len(cards) > 1 else ''} from {srcs} to {g.zone_names[dst]}: {{}}",
                     tuple(cards))

    def s_Move(self, s: ast.Move, b):
        cards = self._cards_fn(s.what)
        to = self.zone(s.to)
        at = self.expr(s.at) if s.at is not None else None
        names = self.g.zone_names
        log_move = self._log_move

        def op(st, env):
            dst = to(st, env)
            place = None
            if at is not None:
                place = at(st, env)
                if place is None or place < 1:
                    raise RulesRuntimeError(f"place {place} does not exist (places start at 1)")
                place -= 1
            moved = cards(st, env)
            srcs = [names[st.loc[c]] for c in moved] if st.log is not None else None
            for c in moved:
                st.move_card(c, dst, place)
                if place is not None:
                    place += 1
            if st.log is not None:
                log_move(st, moved, srcs, dst)

        b.emit(op, s.span, PLAIN, None if at is not None else lambda: self._move_src(s, op))

    def _move_src(self, s: ast.Move, op: Fn) -> list[str]:
        """`move X to Z` without logging, written out; with a log, the op itself runs."""
        zone = self.zone_src(s.to)
        what = self.source.inline(self.expr(s.what))
        put = zone.isdigit() and not self.g.zone_grid[int(zone)]  # written out: a pile or hand known here
        lines = [] if put else [f"_z = {zone}"]
        if self.type(s.what) == CARD:
            lines += self.source.found_lines(s.what, "_c") or [f"_c = {what}"]
            if put:
                put_c = [f"    {x}" for x in self._put_src("_c", int(zone))]
                return self._logged(op, [*lines, "if _c is not None:", *put_c])
            return self._logged(op, lines + ["if _c is not None: st.move_card(_c, _z)"])
        picked = self.source.picked_lines(s.what)
        if picked is not None:  # the cards of a `where` over a pile or hand: a new list, none in it
            test, cards = picked
            lines += test + [f"    for _c in {cards}:"]
            if put:
                return self._logged(op, lines + ["        " + line for line in self._put_src("_c", int(zone))])
            return self._logged(op, lines + ["        st.move_card(_c, _z)"])
        # (Not `for _c in [... for _x in WHAT ...]`: WHAT may hold a `:=`, not allowed there.)
        return self._logged(op, lines + [f"_l = {what}", f"for _c in [_x for _x in _l if _x is not None]: "
                                         f"st.move_card(_c, {zone if put else '_z'})"])

    def _put_src(self, c: str, zi: int) -> list[str]:
        """`st.move_card(c, zi)` written out, for a zone zi known here that is not a grid."""
        learn = self.g.zone_learn[zi]
        grid = any(self.g.zone_grid)  # (a game without grids needs no test for one)
        lines = [
            f"_s = st.loc[{c}]",
            "_l = st.zones[_s]",
            *([f"if {self.source.const(self.g.zone_grid)}[_s]: _l[_l.index({c})] = None"] if grid else []),
            f"{'elif' if grid else 'if'} _l[-1] == {c}: _l.pop()",
            f"else: _l.remove({c})",
            f"st.zones[{zi}].append({c})",
            f"st.loc[{c}] = {zi}",
        ]
        if learn < 0:
            lines.append(f"st.known[{c}] = {~learn}")
        elif learn:
            lines.append(f"st.known[{c}] |= {learn}")
        return [*lines, *self._count_src(c, "_s", "-"), *self._count_src(c, str(zi), "+")]

    def _count_src(self, c: str, z: str, sign: str, each: bool = False) -> list[str]:
        """Lines keeping a straight run's counts of a counted hand's cards (State.counts, see
        counts.py) as card c (or, with `each`, every card of list c) leaves (-) or enters (+)
        zone z (a number, or a name holding one); none for a zone known here not to be counted."""
        g = self.g
        if not g.count_size or (z.isdigit() and not g.zone_counted[int(z)]):
            return []
        face = self.source.const(g.card_face)
        change = f"for _c in {c}: _qh[{face}[_c]] {sign}= 1" if each else f"_qh[{face}[{c}]] {sign}= 1"
        return ["if st.counts:", f"    _qh = st.counts[{z}]", "    if _qh is not None:", f"        {change}"]

    def zone_src(self, e: ast.Expr) -> str:
        """Python source giving the zone instance an expression names."""
        if isinstance(e, ast.Name):
            ref = self.p.refs.get(id(e))
            if ref and ref[0] == "zone":
                return str(self.g.zone_base[ref[1]])
        if isinstance(e, ast.Attr):
            return self._owned_zone_src(e, self.expr(e.obj))
        return f"{self.source.const(self.zone(e))}(st, env)"

    def _owned_zone_src(self, e: ast.Attr, owner: Fn) -> str:
        """`p.square`: the owner's seat plus the zone's base, checked as zone() checks it."""
        base = self.g.zone_base[self.g.zone_spec_names.index(e.name)]
        seat = self.source.inline(owner)
        if not self.source.never_none(e.obj):
            seat = self.source.some(seat, f"the owner of '{e.name}' is none")
        return f"({base} + {seat})"

    def _logged(self, op: Fn, lines: list[str]) -> list[str]:
        """Source running `lines` without a log; with one, the op itself runs (its events are exact)."""
        return ["if st.log is not None:", f"    {self.source.const(op)}(st, env)", "else:",
                *(f"    {line}" for line in lines)]

    def _seat_src(self, e: ast.Expr, msg: str) -> str:
        """Source giving a player's seat, raising msg if it is none."""
        src = self.source.inline(self.expr(e))
        return src if self.source.never_none(e) else self.source.some(src, msg)

    def s_MoveAll(self, s: ast.MoveAll, b):
        src = self.zone(s.source)
        to = self.zone(s.to)
        names = self.g.zone_names
        log_move = self._log_move
        grid = self.g.zone_grid  # prepared with the zones, before any statement is compiled

        def move(st, zi, dst):
            if zi != dst and not grid[zi] and not grid[dst]:
                moved = st.move_all(zi, dst)
                if st.log is not None:
                    log_move(st, moved, [names[zi]], dst)
                return
            moved = [c for c in st.zones[zi] if c is not None]
            for c in moved:
                st.move_card(c, dst)
            if grid[zi]:
                st.zones[zi].clear()  # `move all` takes a grid's places away too
            if st.log is not None:
                log_move(st, moved, [names[zi]], dst)

        def op(st, env):
            move(st, src(st, env), to(st, env))

        def source() -> list[str]:
            a, d = self.zone_src(s.source), self.zone_src(s.to)
            seen = a.isdigit() and self.g.zone_vis[int(a)] == PUBLIC  # (from a public zone: see _arrive_src)
            if a.isdigit() and d.isdigit() and a != d and not grid[int(a)] and not grid[int(d)]:
                return self._logged(op, self._spill_src(a, d, seen))
            # A zone worked out as the game goes (`eater.hand`): the common case, two piles or
            # hands without a log, written out; the rest in `move`.
            table = self.source.const(grid)
            fast = ["st.log is None"]
            for var, z in (("_z", a), ("_d", d)):
                if not z.isdigit():
                    fast.append(f"not {table}[{var}]")
                elif grid[int(z)]:
                    fast = []
                    break
            call = f"{self.source.const(move)}(st, _z, _d)"
            lines = [f"_z = {a}", f"_d = {d}"]
            if not fast or (a.isdigit() and d.isdigit() and a == d):
                return lines + [call]
            return lines + [f"if _z != _d and {' and '.join(fast)}:",
                            *(f"    {line}" for line in self._spill_src(a if a.isdigit() else "_z",
                                                                      d if d.isdigit() else "_d", seen)),
                            f"else: {call}"]

        b.emit(op, s.span, PLAIN, source)

    def _spill_src(self, a: str, d: str, seen: bool = False) -> list[str]:
        """`st.move_all(a, d)` written out (two piles or hands, known to differ): a's cards go
        onto d in their order, and d teaches what it shows (known here if d is a number), unless
        they come from a public zone (`seen`): everyone knows them already."""
        each = [*self._arrive_src("_l", d, seen), *self._count_src("_l", a, "-", True),
                *self._count_src("_l", d, "+", True)]
        return [f"_l = st.zones[{a}]", "if _l:", *(f"    {line}" for line in each),
                f"    st.zones[{d}].extend(_l)", "    _l.clear()"]

    def s_Draw(self, s: ast.Draw, b):
        count = self.expr(s.count)
        src = self.zone(s.source)
        to = self.zone(s.to)
        names = self.g.zone_names
        log_move = self._log_move

        def op(st, env):
            zi = src(st, env)
            dst = to(st, env)
            moved = []
            k = count(st, env)
            if zi == dst and k > 1:
                k = 1  # the top card onto its own zone: once is as good as many times
            for _ in range(k):
                c = st.draw_one(zi, dst)
                if c is None:
                    break
                moved.append(c)
            if st.log is not None:
                log_move(st, moved, [names[zi]], dst)

        def draw_src() -> list[str]:
            g = self.g
            z, d = self.zone_src(s.source), self.zone_src(s.to)
            n = self.source.inline(count)
            if not z.isdigit() or g.zone_grid[int(z)]:
                return self._logged(op, [f"_z = {z}", f"_d = {d}", f"_n = {n}", "if _z == _d and _n > 1: _n = 1",
                                         "for _ in range(_n):", "    if st.draw_one(_z, _d) is None: break"])
            to = [] if d.isdigit() else [f"_d = {d}"]
            if not d.isdigit():
                d = "_d"
            more = self._refill_test(int(z))
            if n == "(1)":
                return self._logged(op, [*to, *self._pop_src(z, d),
                                         *([f"elif {more}: st.draw_one({z}, {d})"] if more else [])])
            stop = f"elif not {more} or st.draw_one({z}, {d}) is None: break" if more else "else: break"
            each = ["for _ in range(_n):", *(f"    {line}" for line in self._pop_src(z, d)), f"    {stop}"]
            if d == z:
                return self._logged(op, [*to, f"_n = {n}", "if _n > 1: _n = 1", *each])
            clamp = [f"if _d == {z} and _n > 1: _n = 1"] if d == "_d" else []
            # All from the pile when it holds enough (one slice, no refill), else card by card.
            bulk = ["_m = _l[len(_l) - _n:]", "del _l[len(_l) - _n:]", "_m.reverse()", f"st.zones[{d}].extend(_m)",
                    *self._arrive_src("_m", d), *self._count_src("_m", z, "-", True),
                    *self._count_src("_m", d, "+", True)]
            other = "" if d.isdigit() else f" and _d != {z}"
            return self._logged(op, [*to, f"_n = {n}", *clamp, f"_l = st.zones[{z}]",
                                     f"if _n > 0 and len(_l) >= _n{other}:",
                                     *(f"    {line}" for line in bulk), "else:", *(f"    {line}" for line in each)])

        b.emit(op, s.span, PLAIN, draw_src)

    def _refill_test(self, z: int) -> str | None:
        """When `draw_one` from the empty pile z can find cards: never (None), or when its refill
        source holds more cards than z keeps back (as `refill` tests it)."""
        source = self.g.zone_refill[z]
        return None if source < 0 else f"len(st.zones[{source}]) > {self.g.zone_keep[z]}"

    def _arrive_src(self, cards: str, d: str, seen: bool = False) -> list[str]:
        """Where the cards of list `cards` now are (zone d, a number or a name) and what d teaches:
        nothing if everyone knows them (`seen`: they were in a public zone, whose every card is
        known to all, as entering it, its shuffles and a swap into it make sure)."""
        if seen:
            return ["_o = st.loc", f"for _c in {cards}: _o[_c] = {d}"]
        if d.isdigit():
            m = self.g.zone_learn[int(d)]
            learn = [] if not m else [f"_k[_c] = {~m}" if m < 0 else f"_k[_c] |= {m}"]
            return ["_o = st.loc", *(["_k = st.known"] if learn else []), f"for _c in {cards}:", f"    _o[_c] = {d}",
                    *(f"    {line}" for line in learn)]
        return ["_o = st.loc", f"for _c in {cards}: _o[_c] = {d}", f"_t = {self.source.const(self.g.zone_learn)}[{d}]",
                "if _t:", "    _k = st.known", "    if _t < 0:", "        _t = ~_t",
                f"        for _c in {cards}: _k[_c] = _t", "    else:", f"        for _c in {cards}: _k[_c] |= _t"]

    def _pop_src(self, z: str, d: str) -> list[str]:
        """`draw_one(z, d)`'s common case written out: if pile z has a card, its top card onto
        zone d (a number, or a name holding one), which learns what the zone shows."""
        g = self.g
        if d.isdigit():
            m = g.zone_learn[int(d)]
            learn = [] if not m else [f"st.known[_c] = {~m}" if m < 0 else f"st.known[_c] |= {m}"]
        else:
            learn = [f"_t = {self.source.const(g.zone_learn)}[{d}]",
                     "if _t: st.known[_c] = ~_t if _t < 0 else st.known[_c] | _t"]
        counted = [*self._count_src("_c", z, "-"), *self._count_src("_c", d, "+")]
        return [f"_l = st.zones[{z}]", "if _l:", "    _c = _l.pop()", f"    st.zones[{d}].append(_c)",
                f"    st.loc[_c] = {d}", *(f"    {line}" for line in learn + counted)]

    def s_Deal(self, s: ast.Deal, b):
        count = self.expr(s.count)
        src = self.zone(s.source)
        spec = next(z for z in self.p.zones if z.name == s.zone)
        base = self.g.zone_base[spec.index]
        n = self.n
        names = self.g.zone_names

        # A deal stops when its pile has nothing more to give (cards that go round through a
        # refill count against the step budget there); it has at most as many rounds as there are
        # cards (more would only move a card from a hand to itself again).
        ncards = self.g.ncards

        def op(st, env):
            zi = src(st, env)
            k = count(st, env)
            for _ in range(min(k, ncards)):
                if any(st.draw_one(zi, base + seat) is None for seat in range(n)):
                    break
            if st.log is not None:
                st.event(1, f"{k} card{'s' if k != 1 else ''} from {names[zi]} dealt to each {s.zone}")

        def deal_src() -> list[str]:
            z, k = self.zone_src(s.source), self.source.inline(count)
            fixed = _literal(k)
            rounds = f"for _ in range({min(fixed, ncards)}):" if fixed is not None else \
                f"for _ in range(min({k}, {ncards})):"
            if not z.isdigit() or self.g.zone_grid[int(z)]:
                return self._logged(op, [f"_z = {z}", rounds,
                                         f"    for _s in range({base}, {base + n}):",
                                         "        if st.draw_one(_z, _s) is None: break",
                                         "    else: continue", "    break"])
            more = self._refill_test(int(z))
            stop = f"elif not {more} or st.draw_one({z}, _d) is None: break" if more else "else: break"
            return self._logged(op, [rounds, f"    for _d in range({base}, {base + n}):",
                                     *(f"        {line}" for line in self._pop_src(z, "_d")),
                                     f"        {stop}", "    else: continue", "    break"])

        b.emit(op, s.span, PLAIN, deal_src)

    def s_Shuffle(self, s: ast.Shuffle, b):
        z = self.zone(s.zone)
        names = self.g.zone_names

        def op(st, env):
            zi = z(st, env)
            st.shuffle_zone(zi)
            if st.log is not None:
                st.event(1, f"{names[zi]} is shuffled")

        b.emit(op, s.span, PLAIN, lambda: self._logged(op, [f"st.shuffle_zone({self.zone_src(s.zone)})"]))

    def s_Reveal(self, s: ast.Reveal, b):
        what = self.expr(s.what)
        cards = self._cards_fn(s.what, what)
        g = self.g

        def op(st, env):
            shown = cards(st, env)
            for c in shown:
                st.known[c] = g.all_mask
            if st.log is not None and shown:
                where = ", ".join(dict.fromkeys(g.zone_names[st.loc[c]] for c in shown))
                st.event(0, f"revealed in {where}: {{}}", tuple(shown))

        def reveal_src() -> list[str]:
            spec = self.source.zone_spec(s.what)  # (None for a card or a list)
            if spec is not None and g.zone_vis[g.zone_base[spec]] == PUBLIC:
                return self._logged(op, ["pass"])  # a public zone's cards are known to all already
            return self._logged(op, self._each_card_src(s.what, what, f"= {g.all_mask}"))

        b.emit(op, s.span, PLAIN, reveal_src)

    def _each_card_src(self, e: ast.Expr, f: Fn, update: str) -> list[str]:
        """`st.known[c] <update>` for each card of a card, a zone or a list of cards (none skipped)."""
        what = self.source.inline(f)
        if self.type(e) == CARD:
            return [f"_c = {what}", f"if _c is not None: st.known[_c] {update}"]
        spec = self.source.zone_spec(e)
        if spec is not None and not self.g.zone_grid[self.g.zone_base[spec]]:  # a pile or a hand: no none
            return ["_k = st.known", f"for _c in {what}: _k[_c] {update}"]
        inner = what[1:-1] if what.startswith("(") and what.endswith(")") else what
        places = _grid_places(inner)  # a grid's cards: go over its places (none is skipped anyway)
        return [f"for _c in {places if places != inner else what}:", f"    if _c is not None: st.known[_c] {update}"]

    def s_ShowTo(self, s: ast.ShowTo, b):
        what = self.expr(s.what)
        cards = self._cards_fn(s.what, what)
        who = self.expr(s.who)
        g = self.g

        def op(st, env):
            p = who(st, env)
            if p is None:
                return
            shown = cards(st, env)
            for c in shown:
                st.known[c] |= 1 << p
            if st.log is not None and shown:
                places = ", ".join(g.place_text(st, c) for c in shown)
                st.event(0, f"{g.names[p]} looks at {places}: {{}}", tuple(shown))

        def src() -> list[str]:
            each = self._each_card_src(s.what, what, "|= _b")
            return self._logged(op, [f"_w = {self.source.inline(who)}", "if _w is not None:", "    _b = 1 << _w",
                                     *(f"    {line}" for line in each)])

        b.emit(op, s.span, PLAIN, src)

    def s_Swap(self, s: ast.Swap, b):
        first, second = self.expr(s.first), self.expr(s.second)
        g = self.g

        def op(st, env):
            a, c = first(st, env), second(st, env)
            if a is None or c is None:
                return
            if st.log is not None:
                st.event(0, f"{g.place_text(st, a)} and {g.place_text(st, c)} are swapped")
            st.swap_cards(a, c)

        def src() -> list[str]:
            learn = self.source.const(g.zone_learn)
            # `st.swap_cards(_a, _b)` written out: each card takes the other's place and learns
            # what its new zone shows.
            return self._logged(op, [
                f"_a = {self.source.inline(first)}", f"_b = {self.source.inline(second)}",
                "if _a is not None and _b is not None and _a != _b:",
                "    _o = st.loc", "    _za = _o[_a]", "    _zb = _o[_b]", "    _la = st.zones[_za]",
                "    _lb = st.zones[_zb]", "    _ia = _la.index(_a)", "    _ib = _lb.index(_b)", "    _la[_ia] = _b",
                "    _lb[_ib] = _a", "    _o[_a] = _zb", "    _o[_b] = _za", f"    _t = {learn}[_zb]",
                "    if _t: st.known[_a] = ~_t if _t < 0 else st.known[_a] | _t", f"    _t = {learn}[_za]",
                "    if _t: st.known[_b] = ~_t if _t < 0 else st.known[_b] | _t",
                *(f"    {line}" for line in [*self._count_src("_a", "_za", "-"), *self._count_src("_a", "_zb", "+"),
                                             *self._count_src("_b", "_zb", "-"), *self._count_src("_b", "_za", "+")])])

        b.emit(op, s.span, PLAIN, src)

    def s_Let(self, s: ast.Let, b):
        f = self.expr(s.value)
        slot = self.p.slots[id(s)]
        guard = self._guard(s.value, "local")
        if guard is not None:
            def op(st, env):
                env[slot] = guard(st, f(st, env))
        else:
            def op(st, env):
                env[slot] = f(st, env)

        b.emit(op, s.span, PLAIN, lambda: self._set_src(f"env[{slot}]", s.value, f, guard))

    def _set_src(self, cell: str, e: ast.Expr, f: Fn, guard: Callable | None = None) -> list[str]:
        """`cell = e`: a search (`first(S where C)`) as a plain loop, anything else in place."""
        found = self.source.found_lines(e, "_c")
        value = "_c" if found else self.source.inline(f)
        if guard is not None:
            value = f"{self.source.const(guard)}(st, {value})"
        return [*(found or ()), f"{cell} = {value}"]

    # ------------------------------------------------------------ bounded values
    def _guard(self, e: ast.Expr, kind: str, op_text: str = "=", target_type: str | None = None) -> Callable | None:
        """A check of a value as it is stored, where it can fire: a number that may grow without
        bound (a product, `c + c`, a sum) past the digits limit; a list joined with `+` past the list
        limit; a number or yes/no counter or variable set to none (the attribute of an empty top).
        None if nothing stored here can go wrong so (most assignments: `x += 1`, `loser = me`)."""
        t = target_type or self.type(e)
        if t in (INT, BOOL):
            stored = kind not in ("local",)  # a counter or variable: a number or yes/no, never none
            grows = t == INT and (not _constant(e, self.p.refs) if op_text != "=" else self._grows(e, set()))
            grows = grows or self._too_long(e)
            none = stored and op_text == "=" and not isinstance(e, ast.NoneLit) and self._may_be_none(e, set())
            if not (grows or none):
                return None
            return _number_guard(self.g.limits["digits"], none)
        if is_list(t) and t != ZONE and self._joins(e, set()):
            return _list_guard(self.g.limits["list"])
        return None

    def _too_long(self, e: ast.Expr) -> bool:
        """A literal or parameter that has more digits than the limit already."""
        if isinstance(e, ast.Unary) and e.op == "-":
            return self._too_long(e.operand)
        ref = self.p.refs.get(id(e)) if isinstance(e, ast.Name) else None
        value = e.value if isinstance(e, ast.IntLit) else ref[1] if ref is not None and ref[0] == "const" else 0
        return isinstance(value, int) and abs(value) >= 10 ** self.g.limits["digits"]

    def _sub_defines(self, e: ast.Expr, seen: set) -> list[ast.Expr]:
        """The bodies of the defines `e` uses directly, each once."""
        name = e.id if isinstance(e, ast.Name) else e.func if isinstance(e, ast.Call) else None
        if name in self.p.defines and name not in seen:
            seen.add(name)
            return [self.p.defines[name].expr]
        return []

    def _somewhere(self, e: ast.Expr, test: Callable[[ast.Expr], bool], seen: set) -> bool:
        """Whether `test` holds for `e`, a part of it, or the body of a define it uses (each once)."""
        return test(e) or any(self._somewhere(x, test, seen) for x in (*_children(e), *self._sub_defines(e, seen)))

    def _grows(self, e: ast.Expr, seen: set) -> bool:
        """Arithmetic that may grow without bound once stored and read again: a product, a sum or
        difference of two values that are not constants (`c + c` doubles), a `sum`."""
        def here(x: ast.Expr) -> bool:
            if isinstance(x, ast.Binary):
                return x.op == "*" or (x.op in ("+", "-") and not _constant(x.left, self.p.refs)
                                       and not _constant(x.right, self.p.refs) and self.type(x) == INT)
            return isinstance(x, ast.Call) and x.func == "sum" and self._reads_numbers(x, set())

        return self._somewhere(e, here, seen)

    def _may_be_none(self, e: ast.Expr, seen: set) -> bool:
        """Whether a number or yes/no expression may be none (an attribute of a card that may be
        none, a variable or local that may hold none); arithmetic, comparisons, counts are not."""
        if isinstance(e, (ast.IntLit, ast.BoolLit, ast.Unary, ast.IsKind)):
            return False
        if isinstance(e, ast.Binary):
            return e.op in ("and", "or") and (self._may_be_none(e.left, seen) or self._may_be_none(e.right, seen))
        if isinstance(e, ast.Name):
            kind = (self.p.refs.get(id(e)) or ("",))[0]
            if kind in ("counter", "const"):
                return False
            if kind == "define":
                return any(self._may_be_none(x, seen) for x in self._sub_defines(e, seen))
            return True
        if isinstance(e, ast.Call):
            if e.func in ("sum", "count", "any", "all", "empty"):
                return False
            if e.func in self.p.defines:
                return any(self._may_be_none(x, seen) for x in self._sub_defines(e, seen))
            return True
        if isinstance(e, ast.IfExpr):
            return self._may_be_none(e.then, seen) or self._may_be_none(e.orelse, seen)
        return True

    def _reads_numbers(self, e: ast.Expr, seen: set) -> bool:
        """Whether `e` reads a counter, a variable or a local (which a rule may have made large),
        not only cards' attributes and constants (a `sum` of those is as small as the deck)."""
        def here(x: ast.Expr) -> bool:
            if self.type(x) not in (INT, "list[int]"):
                return False
            if isinstance(x, ast.Name):
                return (self.p.refs.get(id(x)) or ("",))[0] in ("counter", "var", "local")
            # a player's counter or variable (`p.score`, `players.score`)
            return isinstance(x, ast.Attr) and self.type(x.obj) in (PLAYER, "list[player]")

        return self._somewhere(e, here, seen)

    def _joins(self, e: ast.Expr, seen: set) -> bool:
        """Lists joined with `+` somewhere in `e` (the one way a list grows)."""
        return self._somewhere(
            e, lambda x: isinstance(x, ast.Binary) and x.op == "+" and is_list(self.type(x.left)), seen)

    def s_Assign(self, s: ast.Assign, b):
        op = self._assign_op(self.p.refs[id(s)], s.op, s.value, s.target)
        b.emit(op, s.span, PLAIN, getattr(op, "src", None))

    def _assign_op(self, ref: tuple, op_text: str, value: ast.Expr, target: tuple[str, ...]) -> Fn:
        f = self.expr(value)
        kind = ref[0]
        sign = {"=": 0, "+=": 1, "-=": -1}[op_text]
        g = self.g
        guard = self._guard(value, "local" if kind == "local" else "stored", op_text, self._target_type(ref))
        wrap = (lambda text: f"{self.source.const(guard)}(st, {text})") if guard is not None else (lambda text: text)
        if kind == "local":
            slot = ref[1]
            if sign:
                def op(st, env):
                    v = env[slot] + sign * f(st, env)
                    env[slot] = guard(st, v) if guard is not None else v
                op.src = lambda: [f"env[{slot}] += {sign} * {self.source.inline(f)}"] if guard is None else [
                    f"env[{slot}] = {wrap(f'env[{slot}] + {sign} * {self.source.inline(f)}')}"]
            else:
                def op(st, env):
                    v = f(st, env)
                    env[slot] = guard(st, v) if guard is not None else v
                op.src = lambda: self._set_src(f"env[{slot}]", value, f, guard)
        elif kind == "direction":
            def op(st, env):
                st.direction = f(st, env)
            op.src = lambda: [f"st.direction = {self.source.inline(f)}"]
        else:
            counter = kind in ("counter", "pcounter")
            group = self.p.counters if counter else self.p.vars
            info = group[ref[1]]
            base = (g.counter_layout if counter else g.var_layout)[info.name][0]
            owner = self.expr(ref[2]) if kind in ("pcounter", "pvar") else None
            attr = "counters" if counter else "vars"
            names = g.names

            def op(st, env):
                slot = base
                who = ""
                if owner is not None:
                    p = owner(st, env)
                    if p is None:
                        raise RulesRuntimeError(f"'{target[0]}' is none")
                    slot += p
                    who = names[p] + "."
                values = getattr(st, attr)
                old = values[slot]
                v = old + sign * f(st, env) if sign else f(st, env)
                values[slot] = guard(st, v) if guard is not None else v
                if counter and st.log is not None and values[slot] != old:
                    st.event(0, f"{who}{info.name}: {old} -> {values[slot]}")

            def src() -> list[str]:
                lines = []
                cell = f"st.{attr}[{base}]"
                if owner is not None:
                    msg = f"'{target[0]}' is none"
                    lines.append(f"_w = {self._seat_src(ref[2], msg)}")
                    cell = f"st.{attr}[{base} + _w]"
                value = self.source.inline(f)
                plus = "+" if sign > 0 else "-"
                lines.append(f"{cell} = {wrap(f'{cell} {plus} {value}')}" if sign else f"{cell} = {wrap(value)}")
                return self._logged(op, lines) if counter else lines

            op.src = src
        return op

    def _target_type(self, ref: tuple) -> str | None:
        """The declared type of an assignment's counter or variable (None for a local: its value's)."""
        if ref[0] in ("counter", "pcounter"):
            return INT
        if ref[0] in ("var", "pvar"):
            return self.p.vars[ref[1]].type
        return None

    def s_If(self, s: ast.If, b):
        end_jumps: list[list[int]] = []
        for cond, body in s.branches:
            f = self.part(cond)
            skip = [0]

            def test(st, env, f=f, skip=skip):
                if not f(st, env):
                    return skip[0]
                return None

            b.emit(test, cond.span, TEST,
                   lambda f=f, skip=skip: [f"if not {self.source.inline(f)}: return {skip[0]}"])
            self.block(body, b)
            cell = [0]
            end_jumps.append(cell)
            b.emit(lambda st, env, cell=cell: cell[0], None, JUMP, lambda cell=cell: [f"return {cell[0]}"])
            skip[0] = b.pc
        if s.orelse is not None:
            self.block(s.orelse, b)
        for cell in end_jumps:
            cell[0] = b.pc

    def _loop_end(self, b: _Builder, top: int, loop: _Loop, span, bounded: bool = False) -> None:
        """The jump back to a loop's test. A `while` may loop for ever without a decision, so its
        every round counts against the step budget (`tick`); a `for each` over a list or a
        `repeat N times` ends by itself, and its rounds are not counted."""
        if bounded:
            b.emit(lambda st, env: top, span, JUMP, lambda: [f"return {top}"])
        else:
            def back(st, env):
                st.tick()
                return top

            b.emit(back, span, JUMP, lambda: ["st.budget -= 1", "if st.budget < 0: st.tick()", f"return {top}"])
        for cell in loop.breaks:
            cell[0] = b.pc
        b.loops.pop()

    def s_ForEach(self, s: ast.ForEach, b):
        var_slot, list_slot, pos_slot = self.p.slots[id(s)]
        seq = self.expr(s.seq)

        # Its passes count against the step budget as it starts, as a `repeat`'s (loops in loops
        # over long ranges would run away otherwise); over the players, they are too few to count.
        players = isinstance(s.seq, ast.PlayersExpr)

        def init(st, env):
            items = env[list_slot] = [x for x in seq(st, env) if x is not None]
            env[pos_slot] = 0
            if not players:
                st.budget -= len(items)
                if st.budget < 0:
                    st.tick()

        def init_src() -> list[str]:
            items = self.source.inline(seq)
            if players and hasattr(seq, "src"):
                return [f"env[{list_slot}] = {items}", f"env[{pos_slot}] = 0"]  # a new list of seats
            # (The list first: a `:=` in it may not stand in a comprehension's iterable.)
            count = [] if players else ["st.budget -= len(_l)", "if st.budget < 0: st.tick()"]
            return [f"_l = {items}", f"env[{list_slot}] = _l = [_x for _x in _l if _x is not None]",
                    f"env[{pos_slot}] = 0", *count]

        b.emit(init, s.seq.span, PLAIN, init_src)
        loop = _Loop()
        b.loops.append(loop)
        end = [0]
        loop.breaks.append(end)

        def step(st, env):
            i = env[pos_slot]
            items = env[list_slot]
            if i >= len(items):
                return end[0]
            env[var_slot] = items[i]
            env[pos_slot] = i + 1
            return None

        top = b.emit(step, s.span, TEST, lambda: [
            f"_r = env[{pos_slot}]",
            f"if _r >= len(env[{list_slot}]): return {end[0]}",
            f"env[{var_slot}] = env[{list_slot}][_r]",
            f"env[{pos_slot}] = _r + 1",
        ])
        self.block(s.body, b)
        self._loop_end(b, top, loop, s.span, bounded=True)

    def s_While(self, s: ast.While, b):
        cond = self.part(s.cond)
        loop = _Loop()
        b.loops.append(loop)
        end = [0]
        loop.breaks.append(end)

        def test(st, env):
            if not cond(st, env):
                return end[0]
            return None

        top = b.emit(test, s.cond.span, TEST, lambda: [f"if not {self.source.inline(cond)}: return {end[0]}"])
        self.block(s.body, b)
        self._loop_end(b, top, loop, s.span)

    def s_Repeat(self, s: ast.Repeat, b):
        count = self.expr(s.count)
        slot = self.p.slots[id(s)]

        # Its passes count against the step budget all at once, as it starts: a count that runs
        # away stops here, at no cost a pass.
        def init(st, env):
            n = env[slot] = count(st, env)
            if n > 0:
                st.budget -= n
                if st.budget < 0:
                    st.tick()

        def init_src() -> list[str]:
            n = self.source.inline(count)
            fixed = _literal(n)
            if fixed is not None:  # (a count written in the rules: its passes known here)
                return [f"env[{slot}] = {fixed}", *([f"st.budget -= {fixed}", "if st.budget < 0: st.tick()"]
                                                    if fixed > 0 else [])]
            return [f"_n = env[{slot}] = {n}", "if _n > 0:", "    st.budget -= _n", "    if st.budget < 0: st.tick()"]

        b.emit(init, s.count.span, PLAIN, init_src)
        loop = _Loop()
        b.loops.append(loop)
        end = [0]
        loop.breaks.append(end)

        def test(st, env):
            if env[slot] <= 0:
                return end[0]
            env[slot] -= 1
            return None

        top = b.emit(test, s.span, TEST, lambda: [f"if env[{slot}] <= 0: return {end[0]}", f"env[{slot}] -= 1"])
        self.block(s.body, b)
        self._loop_end(b, top, loop, s.span, bounded=True)

    def s_Break(self, s: ast.Break, b):
        cell = [0]
        b.loops[-1].breaks.append(cell)
        b.emit(lambda st, env: cell[0], s.span, JUMP, lambda: [f"return {cell[0]}"])

    def s_Return(self, s: ast.Return, b):
        self._return(b, s.span)

    def s_Choose(self, s: ast.Choose, b):
        g = self.g
        slot = self.p.slots[id(s)]
        domain = self.expr(s.domain)
        t = self.type(s.domain)
        et = elem(t) if is_list(t) else "any"
        if et == "any":
            et = INT
        by = self.expr(s.by) if s.by is not None else None
        dec = Decision(len(g.decisions), s.label if s.label is not None else s.name, slot, domain, by,
                       s.optional, et, s.span, s.name, s.pass_label or "pass")
        g.decisions.append(dec)
        self.choose_decisions[id(s)] = dec
        values = g.choice_values
        optional = s.optional
        self.hand_free[dec.index] = self._hand_free(s.domain)
        distinct = self.distinct_fn(dec)

        def op(st, env):
            chooser = st.current if by is None else by(st, env)
            if chooser is None:
                raise RulesRuntimeError("the player who must choose is none")
            opts = values(st, dec, env, chooser)
            if optional:
                opts.append(None)
            if not opts:
                env[slot] = None
                return None
            st.pending = dec.index
            st.chooser = chooser
            st.options = tuple(opts)
            st._texts = None
            return SUSPEND

        def src() -> list[str]:
            inline, const = self.source.inline, self.source.const
            try:  # loops that filter, merge and append as they go
                options = ["_v = []", *self.domains.options(s.domain, distinct, "_p", "_v", "{v}")]
            except NoSource:
                options = [
                    f"_v = {inline(domain)}",
                    *(["_v = list(dict.fromkeys(_v))", "if None in _v: _v.remove(None)"]
                      if distinct is distinct_plain else [f"_v = {const(distinct)}(st, _v, _p) if _v else []"]),
                ]
            who = "st.current" if by is None else inline(by)
            if who.startswith("(") and who.endswith(")"):  # past the test below, the chooser is no none
                options = [unguard(line, who[1:-1]) for line in options]
            return [
                f"_p = {who}",
                "if _p is None: raise RulesRuntimeError('the player who must choose is none')",
                *options,
                *(["_v.append(None)"] if optional else []),
                f"if not _v: env[{slot}] = None; return @NEXT@",
                f"st.pending = {dec.index}; st.chooser = _p; st.options = tuple(_v); st._texts = None",
                f"return {SUSPEND}",
            ]

        b.emit(op, s.span, CONTROL, src)

    @property
    def domains(self) -> DomainWriter:
        """Writes decisions' domains as statements for generated functions."""
        if not hasattr(self, "_domains"):
            self._domains = DomainWriter(self.source)
        return self._domains

    def _hand_free(self, e: ast.Expr) -> bool:
        """Whether a domain's cards all come from one zone that is not a hand (so none merge)."""
        while isinstance(e, ast.Where):
            e = e.seq
        ref = self.p.refs.get(id(e)) if isinstance(e, ast.Name) else None
        if ref is not None and ref[0] == "zone":
            spec = ref[1]
        elif isinstance(e, ast.Attr) and self.type(e) == ZONE and e.name in self.g.zone_spec_names:
            spec = self.g.zone_spec_names.index(e.name)
        else:
            return False
        return self.g.zone_shape[self.g.zone_base[spec]] != HAND

    def distinct_fn(self, dec: Decision) -> Callable:
        return self.g.distinct_fn(dec, self.hand_free.get(dec.index, False))

    def s_CallStmt(self, s: ast.CallStmt, b):
        code_id = self.proc_codes[s.func]
        nlocals = self.g.codes[code_id].nlocals
        args = [self.part(a) for a in s.args]
        if s.func in self.leaf_procs:
            # Only a code with a frame records where it goes on: a leaf has none, and the framed
            # code that called it has recorded its own position already.
            self._leaf_call(b, code_id, args, s.span, s.func in self.ending_procs and not self.leaf)
            return
        k = len(args)
        # A call that may come back to itself checks how deep the recursion goes (the others cannot
        # nest deeper than the rules are long).
        deep = s.func in self.recursive_procs
        check = self.depth_check

        def op(st, env):
            new = [None] * nlocals
            for i in range(k):
                new[i] = args[i](st, env)
            if deep:
                check(st)
            st.stack.append([code_id, 0, new])
            return RELOAD

        def src() -> list[str]:
            new = env_list([self.source.inline(a) for a in args], nlocals)
            return [*([f"{self.source.const(check)}(st)"] if deep else []),
                    f"st.stack.append([{code_id}, 0, {new}])", f"return {RELOAD}"]

        b.emit(op, s.span, CONTROL, src)

    def s_End(self, s: ast.End, b):
        if self.unit == "game end" or (self.unit == "round end" and s.what != "game"):
            self._return(b, s.span)
            return
        cell = [0]
        over = [0]
        if s.what == "game" and self.unit != "round end":
            label = "game over in a round"  # the round ends with the game: `round end` runs first
            self.end_cells.append(("over", over))
        else:
            label = {"turn": "after action", "round": "round over", "game": "over"}[s.what]
        self.end_cells.append((label, cell))
        turn_cell = self.turn_cell
        only_in_turn = s.what == "turn"

        def op(st, env):
            stack = st.stack
            del stack[1:]
            main = stack[0]
            if only_in_turn and not turn_cell[0] <= main[1] <= turn_cell[1]:
                return STACKED  # not inside a turn: only the running hook ends
            main[1] = cell[0] if st.round > 0 or not over[0] else over[0]
            return STACKED

        b.emit(op, s.span)

    def s_ReverseDirection(self, s, b):
        def op(st, env):
            st.direction = -st.direction
            if st.log is not None:
                st.event(0, "the direction of play is now " + ("clockwise" if st.direction > 0 else "counterclockwise"))

        b.emit(op, s.span, PLAIN, lambda: self._logged(op, ["st.direction = -st.direction"]))

    def s_NextPlayer(self, s: ast.NextPlayer, b):
        f = self.expr(s.player)
        names = self.g.names

        def op(st, env):
            p = f(st, env)
            if p is None:
                raise RulesRuntimeError("the next player is none")
            st.next_player = p
            st.continue_from = -1
            if st.log is not None:
                st.event(0, f"{names[p]} plays next")

        b.emit(op, s.span, PLAIN, lambda: self._logged(op, [
            f"st.next_player = {self._seat_src(s.player, 'the next player is none')}", "st.continue_from = -1"]))

    def s_ContinueFrom(self, s: ast.ContinueFrom, b):
        f = self.expr(s.player)

        def op(st, env):
            p = f(st, env)
            if p is None:
                raise RulesRuntimeError("`continue from` a player who is none")
            st.continue_from = p
            st.next_player = -1

        b.emit(op, s.span, PLAIN, lambda: [
            f"st.continue_from = {self._seat_src(s.player, '`continue from` a player who is none')}",
            "st.next_player = -1"])

    def s_Say(self, s: ast.Say, b):
        # Cards in a message show only to the players who know them, like cards in any event.
        parts = []
        for part in s.text.parts:
            if isinstance(part, str):
                parts.append((lambda text: lambda st, env: (text, ()))(part))
            elif self.type(part) in (CARD, ZONE, "list[card]"):
                parts.append(_card_holes(self._cards_fn(part)))
            else:
                parts.append(_text_hole(self.formatter(self.expr(part), self.type(part))))

        def op(st, env):
            if st.log is not None:
                texts, cards = [], []
                for p in parts:
                    text, cs = p(st, env)
                    texts.append(text)
                    cards.extend(cs)
                st.event(0, "".join(texts), tuple(cards))

        b.emit(op, s.span, PLAIN, lambda: [f"if st.log is not None: {self.source.const(op)}(st, env)"])

    # ------------------------------------------------------------ expressions
    def type(self, e: ast.Expr) -> str:
        return self.p.types.get(id(e), "any")

    def template(self, t: ast.Template) -> Callable[[State, list], str]:
        parts = []
        for part in t.parts:
            if isinstance(part, str):
                parts.append((lambda text: lambda st, env: text)(part))
            else:
                parts.append(self.formatter(self.expr(part), self.type(part)))
        return lambda st, env: "".join(p(st, env) for p in parts)

    def formatter(self, f: Fn, t: str) -> Fn:
        g = self.g

        def one(v, et):
            if v is None:
                return "none"
            if et == PLAYER:
                return g.names[v]
            if et == CARD:
                return g.card_text[v]
            if et == BOOL:
                return "yes" if v else "no"
            if et == DIRECTION:
                return "clockwise" if v > 0 else "counterclockwise"
            return str(v)

        if is_list(t):
            et = elem(t)
            return lambda st, env: ", ".join(one(v, et) for v in f(st, env) if v is not None)
        return lambda st, env: one(f(st, env), t)

    def zone(self, e: ast.Expr) -> Fn:
        """A function giving the zone instance index an expression names."""
        g = self.g
        if isinstance(e, ast.Name):
            ref = self.p.refs.get(id(e))
            if ref and ref[0] == "zone":
                zi = g.zone_base[ref[1]]
                return lambda st, env: zi
        if isinstance(e, ast.Attr):
            spec = g.zone_spec_names.index(e.name)
            base = g.zone_base[spec]
            owner = self.expr(e.obj)
            if hasattr(owner, "src"):  # one function, the owner's expression written in it
                return eval(f"lambda st, env: {self._owned_zone_src(e, owner)}", self.source.names)

            def f(st, env):
                p = owner(st, env)
                if p is None:
                    raise RulesRuntimeError(f"the owner of '{e.name}' is none")
                return base + p

            return f
        raise RulesError([Diagnostic(e.span, "expected a zone")], self.p.files)

    def expr(self, e: ast.Expr) -> Fn:
        cached = self.hoist.get(id(e))
        if cached is not None:
            return self._cached_reader(e, *cached)
        if self.codegen and not self.hoist:
            try:
                return self.source.compile(e)
            except NoSource:
                pass  # this expression runs as closures
            except SyntaxError:
                self.refused.append(e.span)  # generated source Python refused: a bug to look into

        return getattr(self, "e_" + type(e).__name__)(e)

    def _cached_reader(self, e: ast.Expr, cache: list, i: int) -> Fn:
        del self.hoist[id(e)]
        compute = self.expr(e)
        self.hoist[id(e)] = (cache, i)

        def read(st, env):
            v = cache[i]
            if v is _UNSET:
                v = cache[i] = compute(st, env)
            return v

        return read

    def e_IntLit(self, e):
        v = e.value
        return lambda st, env: v

    e_StrLit = e_IntLit
    e_BoolLit = e_IntLit

    def e_NoneLit(self, e):
        return lambda st, env: None

    def e_Name(self, e: ast.Name):
        ref = self.p.refs[id(e)]
        kind = ref[0]
        g, n = self.g, self.n
        if kind == "local":
            slot = ref[1]
            return lambda st, env: env[slot]
        if kind == "const":
            v = ref[1]
            return lambda st, env: v
        if kind == "counter":
            slot = g.counter_layout[self.p.counters[ref[1]].name][0]
            return lambda st, env: st.counters[slot]
        if kind == "var":
            slot = g.var_layout[self.p.vars[ref[1]].name][0]
            return lambda st, env: st.vars[slot]
        if kind == "zone":
            zi = g.zone_base[ref[1]]
            if g.zone_shape[zi] == GRID:
                return lambda st, env: [c for c in st.zones[zi] if c is not None]
            return lambda st, env: st.zones[zi]
        if kind == "define":
            return self._define_fn(ref[1])
        if kind == "builtin":
            name = ref[1]
            if name == "me":
                return lambda st, env: st.current
            if name == "others":
                return lambda st, env: [(st.current + st.direction * k) % n for k in range(1, n)]
            if name == "round":
                return lambda st, env: st.round
            if name == "turn":
                return lambda st, env: st.turn
            if name == "direction":
                return lambda st, env: st.direction
            if name == "clockwise":
                return lambda st, env: 1
            if name == "counterclockwise":
                return lambda st, env: -1
            if name == "player_count":
                return lambda st, env: n
            if name == "winners":
                return lambda st, env: st.winners
            if name == "game_over":
                return lambda st, env: st.over
            if name == "decider":
                return lambda st, env: None if st.over or st.chooser < 0 else st.chooser
        raise AssertionError(ref)

    def _define_fn(self, name: str) -> Fn:
        cache = self.__dict__.setdefault("_define_cache", {})
        if name in cache:
            return cache[name]
        info = self.p.defines[name]
        nlocals = info.nlocals
        cell: list = [None]
        cache[name] = lambda st, env: cell[0](st, [None] * nlocals)
        body = self.expr(info.expr)
        cell[0] = body
        if nlocals == 0:
            cache[name] = lambda st, env: body(st, env)
        return cache[name]

    def _define_body(self, name: str) -> Fn:
        """A define's body, compiled once: f(state, locals) with its parameters in the first slots."""
        cache = self.__dict__.setdefault("_body_cache", {})
        if name not in cache:
            cache[name] = None  # defines are not recursive (the checker says so)
            cache[name] = self.expr(self.p.defines[name].expr)
        return cache[name]

    def _show_fn(self, name: str) -> Fn:
        if name in self.p.defines:
            return self._define_fn(name)
        if name in self.g.counter_layout:
            slot = self.g.counter_layout[name][0]
            return lambda st, env: st.counters[slot]
        slot = self.g.var_layout[name][0]
        return lambda st, env: st.vars[slot]

    def _show_type(self, name: str) -> str:
        if name in self.p.defines:
            return self.p.defines[name].type
        return next(v for v in self.p.vars + self.p.counters if v.name == name).type

    def e_PlayersExpr(self, e: ast.PlayersExpr):
        n = self.n
        if e.start is None:
            seats = list(range(n))
            return lambda st, env: seats
        start = self.expr(e.start)

        def f(st, env):
            s = start(st, env)
            if s is None:
                raise RulesRuntimeError("`players from` a player who is none")
            d = st.direction
            return [(s + d * k) % n for k in range(n)]

        return f

    def e_ListLit(self, e: ast.ListLit):
        items = [self.expr(x) for x in e.items]
        return lambda st, env: [f(st, env) for f in items]

    def e_Attr(self, e: ast.Attr):
        t = self.type(e.obj)
        obj = self.expr(e.obj)
        g = self.g
        if t in (CARD, ZONE, "list[card]"):
            table = g.attrs[e.name]
            if t == CARD:
                return lambda st, env: None if (c := obj(st, env)) is None else table[c]
            return lambda st, env: [table[c] for c in obj(st, env) if c is not None]
        # a player's attribute (or a list of players')
        name = e.name
        if name == "seat":
            one = lambda st, p: p + 1  # seats count from 1, as on the command line
        elif name in g.zone_spec_names and g.zone_spec_per_player[g.zone_spec_names.index(name)]:
            base = g.zone_base[g.zone_spec_names.index(name)]
            if g.zone_shape[base] == GRID:
                one = lambda st, p: [c for c in st.zones[base + p] if c is not None]
            else:
                one = lambda st, p: st.zones[base + p]
        elif name in g.counter_layout:
            base = g.counter_layout[name][0]
            one = lambda st, p: st.counters[base + p]
        else:
            base = g.var_layout[name][0]
            one = lambda st, p: st.vars[base + p]
        getter = one
        if t == "list[player]":
            if self.type(e) == "list[card]":
                return lambda st, env: [c for p in obj(st, env) if p is not None for c in getter(st, p)]
            return lambda st, env: [getter(st, p) for p in obj(st, env) if p is not None]

        def f(st, env):
            p = obj(st, env)
            if p is None:
                raise RulesRuntimeError(f"cannot read '{name}' of a player who is none")
            return getter(st, p)

        return f

    def e_Call(self, e: ast.Call):
        ref = self.p.refs.get(id(e))
        if ref is not None and ref[0] == "define":
            info = self.p.defines[e.func]
            body = self.expr(info.expr)
            args = [self.expr(a) for a in e.args]
            nlocals = info.nlocals
            k = len(args)
            spread = ref[2] if len(ref) > 2 else None

            def call(st, env):
                new = [None] * nlocals
                for i in range(k):
                    new[i] = args[i](st, env)
                return body(st, new)

            if spread is None:
                return call
            if self.codegen and k == 1 and hasattr(args[0], "src"):
                each_src = self._each_src(info.expr, spread, args[0])
                if each_src is not None:
                    return each_src

            def each(st, env):
                # One call per item of the list argument: `points(me.square)` is the list of points.
                new = [None] * nlocals
                for i in range(k):
                    new[i] = args[i](st, env)
                out = []
                for item in new[spread]:
                    if item is None:
                        continue
                    one = new[:]
                    one[spread] = item
                    out.append(body(st, one))
                return out

            return each
        args = [self.expr(a) for a in e.args]
        a = args[0]
        f = e.func
        n = self.n
        if f == "count":
            return lambda st, env: len(a(st, env))
        if f == "sum":
            return lambda st, env: sum([v for v in a(st, env) if v is not None])  # (a list: quicker than a generator)
        if f in ("min", "max"):
            pick = min if f == "min" else max
            if len(args) == 2:
                b = args[1]
                return lambda st, env: pick(a(st, env), b(st, env))
            return lambda st, env: pick([v for v in a(st, env) if v is not None], default=None)
        if f == "any":
            return lambda st, env: bool(a(st, env))
        if f == "empty":
            return lambda st, env: not a(st, env)
        if f in ("top", "last"):
            return lambda st, env: s[-1] if (s := a(st, env)) else None
        if f in ("bottom", "first"):
            return lambda st, env: s[0] if (s := a(st, env)) else None
        if f == "random":
            return lambda st, env: s[st.randbelow(len(s))] if (s := a(st, env)) else None
        if f in ("next", "previous"):
            sign = 1 if f == "next" else -1

            def step(st, env):
                p = a(st, env)
                if p is None:
                    raise RulesRuntimeError(f"{f}() of a player who is none")
                return (p + sign * st.direction) % n

            return step
        if f == "distinct":
            return lambda st, env: list(dict.fromkeys(a(st, env)))
        if f == "sorted":
            return lambda st, env: sorted(v for v in a(st, env) if v is not None)
        if f == "abs":
            return lambda st, env: abs(a(st, env))
        g = self.g
        if f == "knows":
            b = args[1]
            return lambda st, env: (p := a(st, env)) is not None and (c := b(st, env)) is not None \
                and bool(st.known[c] >> p & 1)
        if f == "owner":
            return lambda st, env: None if (c := a(st, env)) is None or g.zone_owner[st.loc[c]] < 0 \
                else g.zone_owner[st.loc[c]]
        if f == "place":
            return lambda st, env: None if (c := a(st, env)) is None else st.zones[st.loc[c]].index(c) + 1
        if f == "zone_of":
            return lambda st, env: None if (c := a(st, env)) is None else g.zone_spec_names[g.zone_spec[st.loc[c]]]
        raise AssertionError(f)

    def _each_src(self, body: ast.Expr, slot: int, arg: Fn) -> Fn | None:
        """A one-parameter define applied to each item of a list, as one comprehension: the
        body's source with the parameter read from the loop's variable."""
        var = f"_i{slot}"
        try:
            src = self.source.src(body, {slot: var})
            if "env[" in src:
                return None  # the body reads other locals of its own
            return eval(f"lambda st, env: [{src} for {var} in {self.source.inline(arg)} if {var} is not None]",
                        self.source.names)
        except (NoSource, SyntaxError):
            return None

    def e_Unary(self, e: ast.Unary):
        f = self.expr(e.operand)
        if e.op == "not":
            return lambda st, env: not f(st, env)
        return lambda st, env: -f(st, env)

    def e_Binary(self, e: ast.Binary):
        a, b = self.expr(e.left), self.expr(e.right)
        op = e.op
        if op == "and":
            return lambda st, env: a(st, env) and b(st, env)
        if op == "or":
            return lambda st, env: a(st, env) or b(st, env)
        if op == "+":
            if is_list(self.type(e.left)):
                return lambda st, env: list(a(st, env)) + list(b(st, env))
            return lambda st, env: a(st, env) + b(st, env)
        simple = {
            "-": lambda st, env: a(st, env) - b(st, env),
            "*": lambda st, env: a(st, env) * b(st, env),
            "/": lambda st, env: a(st, env) // b(st, env),
            "%": lambda st, env: a(st, env) % b(st, env),
            "==": lambda st, env: a(st, env) == b(st, env),
            "!=": lambda st, env: a(st, env) != b(st, env),
            "<": lambda st, env: a(st, env) < b(st, env),
            "<=": lambda st, env: a(st, env) <= b(st, env),
            ">": lambda st, env: a(st, env) > b(st, env),
            ">=": lambda st, env: a(st, env) >= b(st, env),
            "in": lambda st, env: a(st, env) in b(st, env),
        }
        return simple[op]

    def e_IsKind(self, e: ast.IsKind):
        f = self.expr(e.operand)
        k = self.g.kind_names.index(e.kind)
        kinds = self.g.card_kind
        if e.negate:
            return lambda st, env: (c := f(st, env)) is None or kinds[c] != k
        return lambda st, env: (c := f(st, env)) is not None and kinds[c] == k

    def e_Range(self, e: ast.Range):
        lo, hi = self.expr(e.low), self.expr(e.high)

        def f(st, env):
            a, b = lo(st, env), hi(st, env)
            if b - a > MAX_RANGE:
                raise RulesRuntimeError(f"the range {a}..{b} is too long (at most {MAX_RANGE} numbers)")
            return list(range(a, b + 1))

        return f

    def e_Where(self, e: ast.Where):
        seq, test = self._filter_parts(e)

        def f(st, env):
            out = []
            for x in seq(st, env):
                if x is not None and test(st, env, x):
                    out.append(x)
            return out

        return f

    def _filter_parts(self, e: ast.Where) -> tuple[Fn, Callable[[State, list, object], bool]]:
        """The list a `where` filters, and a test(state, locals, item).

        Parts of the condition that do not depend on the item (`current_number` in
        `it.number == current_number`) are hoisted: worked out at most once per filtering,
        lazily, so a value that is never needed is never computed (and cannot fail).
        """
        seq = self.expr(e.seq)
        slot = self.p.slots[id(e)]
        parts = self._invariant_parts(e.cond, slot)
        cache: list = [_UNSET] * len(parts)
        for i, node in enumerate(parts):
            self.hoist[id(node)] = (cache, i)
        cond = self.expr(e.cond)
        for node in parts:
            del self.hoist[id(node)]

        def test(st, env, x):
            env[slot] = x
            return cond(st, env)

        if not parts:
            return seq, test
        fresh = list(cache)

        def seq_reset(st, env):
            cache[:] = fresh
            return seq(st, env)

        return seq_reset, test

    def _invariant_parts(self, cond: ast.Expr, slot: int) -> list[ast.Expr]:
        """The largest sub-expressions of cond that do not depend on the item and are worth caching."""
        varying = {slot}

        def binders(node) -> None:
            if isinstance(node, ast.Where):
                varying.add(self.p.slots[id(node)])
            for k in _children(node):
                binders(k)

        binders(cond)
        out: list[ast.Expr] = []

        def walk(node) -> set[int]:
            """What node depends on: the item, inner binders it reads outside their own `where`
            (an inner `where` as a whole does not depend on its own binder: `min((players where
            it != me).score)` is the same for every item), or chance (-1). Empty: invariant."""
            kids = list(_children(node))
            deps = [walk(k) for k in kids]
            ref = self.p.refs.get(id(node)) if isinstance(node, ast.Name) else None
            free = set().union(*deps)
            if ref is not None and ref[0] == "local" and ref[1] in varying:
                free.add(ref[1])
            if isinstance(node, ast.Call) and node.func == "random":
                free.add(-1)
            if isinstance(node, ast.Where) and id(node) in self.p.slots:
                free.discard(self.p.slots[id(node)])
            if free:
                out.extend(k for k, d in zip(kids, deps, strict=True) if not d and _worth_caching(k, self.p.refs))
            return free

        if not walk(cond) and _worth_caching(cond, self.p.refs):
            out.append(cond)
        return out

    def e_Match(self, e: ast.Match):
        subject = self.expr(e.subject)
        table = {value: self.expr(result) for value, result in reversed(e.cases)}
        default = self.expr(e.default) if e.default is not None else (lambda st, env: None)

        def f(st, env):
            case = table.get(subject(st, env))
            return (case or default)(st, env)

        return f

    def e_IfExpr(self, e: ast.IfExpr):
        c, a, b = self.expr(e.cond), self.expr(e.then), self.expr(e.orelse)
        return lambda st, env: a(st, env) if c(st, env) else b(st, env)


_UNSET = object()


def _source(files: dict[str, str], span: ast.Span) -> str:
    """The text of the source between a span's ends (for messages that quote a rule)."""
    text = files.get(span.file)
    if text is None or span.line <= 0:
        return ""
    lines = text.splitlines()
    if span.end_line == span.line:
        return lines[span.line - 1][span.column - 1 : span.end_column - 1]
    first = lines[span.line - 1][span.column - 1 :]
    middle = lines[span.line : span.end_line - 1]
    last = lines[span.end_line - 1][: span.end_column - 1]
    return " ".join(x.strip() for x in [first, *middle, last])


def _card_holes(cards: Fn) -> Fn:
    def part(st, env):
        cs = cards(st, env)
        return ", ".join(["{}"] * len(cs)), cs

    return part


def _text_hole(fmt: Fn) -> Fn:
    return lambda st, env: (fmt(st, env), ())


def _located_part(f: Callable[[State], object], span, number: bool = False) -> Callable[[State], object]:
    """An expression worked out outside the machine (a `show`, a `statistic`): a failure is a
    runtime error at its line, as the machine's are; a `number` must also fit a float (a mean)."""
    def part(st):
        try:
            v = f(st)
            if number and v is not None:
                float(v)
            return v
        except RulesRuntimeError as e:
            if e.span is not None:
                raise
            raise RulesRuntimeError(rules_message(e), span) from None
        except OverflowError:
            raise RulesRuntimeError("a number too large to take a mean of", span) from None
        except Exception as e:
            raise RulesRuntimeError(rules_message(e), span) from None

    return part


def _every_seat(key: Callable[[State, int], object], n: int) -> Callable[[State], list]:
    return lambda st: [key(st, seat) for seat in range(n)]


def _no_locals(f: Fn) -> Callable[[State], object]:
    return lambda st: f(st, [])


def _statements(body: tuple[ast.Stmt, ...]):
    """Every statement of a body, those nested in ifs and loops included."""
    for s in body:
        yield s
        if isinstance(s, ast.If):
            for _, branch in s.branches:
                yield from _statements(branch)
            if s.orelse:
                yield from _statements(s.orelse)
        elif isinstance(s, (ast.ForEach, ast.While, ast.Repeat)):
            yield from _statements(s.body)


def _never_decides(body: tuple[ast.Stmt, ...], leaves: set[str]) -> bool:
    """No `choose` in the body, and every procedure it calls is one of `leaves`."""
    return all(not isinstance(s, ast.Choose) and (not isinstance(s, ast.CallStmt) or s.func in leaves)
               for s in _statements(body))


def _may_end(body: tuple[ast.Stmt, ...], ending: set[str]) -> bool:
    """An `end` in the body, or a call of one of `ending`."""
    return any(isinstance(s, ast.End) or (isinstance(s, ast.CallStmt) and s.func in ending) for s in _statements(body))


def _leaves(procedures: dict) -> tuple[set[str], set[str]]:
    """The procedures that never wait for a decision (no `choose`, and they call only such
    procedures; a recursive one is never a leaf), and those that may reach an `end`."""
    return _grow(procedures, _never_decides), _grow(procedures, _may_end)


def _recursive(procedures: dict) -> set[str]:
    """The procedures that may call themselves, through others or not: a cycle of the call graph."""
    calls = {name: {s.func for s in _statements(info.body) if isinstance(s, ast.CallStmt)}
             for name, info in procedures.items()}
    found = set()
    for name in procedures:
        seen, todo = set(), list(calls[name])
        while todo:
            f = todo.pop()
            if f == name:
                found.add(name)
                break
            if f not in seen and f in calls:
                seen.add(f)
                todo.extend(calls[f])
    return found


def too_deep(depth: int) -> None:
    """A recursive procedure's call past the depth limit: recursion that does not stop, most likely."""
    raise RulesRuntimeError(f"more than {depth} calls of procedures in progress at once (a recursion that never "
                            "stops?) (to allow more: --limit depth=N)")


def _literal(src: str) -> int | None:
    """The number a generated expression's source is, if it is one written out (`(5)`, `5`)."""
    text = src.strip("()")
    return int(text) if text.isascii() and text.isdigit() and len(text) < 20 else None


def _constant(e: ast.Expr, refs: dict) -> bool:
    """A literal or a parameter (or minus one): a value that never grows."""
    if isinstance(e, ast.Unary) and e.op == "-":
        return _constant(e.operand, refs)
    if isinstance(e, ast.Name):
        return (refs.get(id(e)) or ("",))[0] == "const"
    return isinstance(e, (ast.IntLit, ast.BoolLit))


def _number_guard(digits: int, no_none: bool) -> Callable[[State, object], object]:
    """A number as it is stored: at most `digits` digits, and (a counter's or variable's) not none."""
    top = 10 ** digits

    def number(st, v):
        if v is None:
            if no_none:
                raise RulesRuntimeError("the value stored here is none, but this counter or variable holds a number "
                                        "or yes/no (the attribute of the top of an empty zone?)")
            return v
        if -top < v < top:
            return v
        raise RulesRuntimeError(f"a number of more than {digits} digits (a value that grows without end?) "
                                "(to allow more: --limit digits=N)")

    return number


def _list_guard(size: int) -> Callable[[State, list], list]:
    """A list joined with `+` as it is stored: at most `size` items, and its items count against
    the step budget (a list joined again at every pass of a loop costs the square of its size)."""
    def joined(st, v):
        if v is not None:
            if len(v) > size:
                raise RulesRuntimeError(f"a list of {len(v)} items, more than the limit of {size} "
                                        "(a list that grows without end?) (to allow more: --limit list=N)")
            st.budget -= len(v)
            if st.budget < 0:
                st.tick()
        return v

    return joined


def _grow(procedures: dict, holds) -> set[str]:
    """The procedures whose body `holds(body, names)`, given the names found so far, until no more."""
    found: set[str] = set()
    grown = True
    while grown:
        grown = False
        for name, info in procedures.items():
            if name not in found and holds(info.body, found):
                found.add(name)
                grown = True
    return found


def _children(node):
    for field in attrs.fields(type(node)):
        v = getattr(node, field.name)
        if isinstance(v, ast.Expr):
            yield v
        elif isinstance(v, tuple):
            for x in v:
                if isinstance(x, ast.Expr):
                    yield x


def _worth_caching(node: ast.Expr, refs: dict) -> bool:
    if isinstance(node, (ast.IntLit, ast.StrLit, ast.BoolLit, ast.NoneLit)):
        return False
    if isinstance(node, ast.Name):
        return (refs.get(id(node)) or ("",))[0] == "define"
    return True


def _show_value(v) -> str:
    if v is True:
        return "yes"
    if v is False:
        return "no"
    return str(v)


def _seat_names(n: int) -> list[str]:
    return [DEFAULT_NAMES[i] if i < len(DEFAULT_NAMES) else f"p{i + 1}" for i in range(n)]


def _fingerprint(p: Program, g: Game) -> str:
    h = hashlib.sha256()
    for path in sorted(p.files):
        h.update(p.files[path].encode())
    h.update(json.dumps([g.players, sorted(g.params.items(), key=str), g.names], default=str).encode())
    return h.hexdigest()[:16]


def compile_program(prog: Program, names: list[str] | None = None, codegen: bool = True,
                    shortcuts: bool = True, limits: dict[str, int] | None = None) -> Game:
    """`codegen=False` keeps every expression as closures; `shortcuts=False` gives every call a
    frame and every early return a trip through the machine (no leaves, no tails). Both are slower,
    for tests that compare them with the fast forms. `limits` raises or lowers the limits of a
    run (limits.py); they are written into the generated code."""
    return Compiler(prog, names, codegen, shortcuts, limits).build()


__all__ = ["INT", "NONE", "STR", "Compiler", "compile_program"]
