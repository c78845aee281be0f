"""Checked program to runnable game: every expression and every statement becomes generated
Python source, each op of a code written by one writer, so play never walks the syntax tree.

An op has a kind (PLAIN goes on, TEST may branch, JUMP jumps, CONTROL may stop the block: a
decision, a call, a return, an `end`) and a writer of its lines and its way out (blocks.py). The
game's skeleton (setup, rounds, turns, end checks, ranking) is itself compiled into code 0, so
`end round` is a jump like any other. `build` runs the stages in order, the game's tables first
(with what each type of cell may hold, `names_cards`, for determinization).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from .. import ast
from ..checker import ANY, BOOL, CARD, DIRECTION, INT, NONE, PLAYER, STR, ZONE, Program, elem, is_list
from ..engine.constants import GRID, HAND, HIDDEN, OTHERS, PRIVATE, PUBLIC, STACK
from ..engine.game import DEFAULT_NAMES, ActionRt, Code, Decision, Game, ScenarioRt, ScenarioStep
from ..engine.limits import limits_of
from ..engine.state import State
from ..errors import Diagnostic, RulesError
from .blocks import block_function, defined, op_lines
from .domains import DomainWriter
from .exprs import SourceCompiler
from .lower import lead_of, lower
from .runtime import Fn, _located_part, depth_check
from .sets import SetChooses
from .skeleton import Skeleton
from .source import env_list, paren
from .statements import Statements
from .straight import straight_playout
from .tree import _source

SHAPE = {"stack": STACK, "hand": HAND, "grid": GRID}
VIS = {"hidden": HIDDEN, "private": PRIVATE, "public": PUBLIC, "others": OTHERS}
NO_CARD, A_CARD, CARDS = 0, 1, 2  # what a value of a type may name (see `names_cards`)
_NO_CARD_TYPES = frozenset((INT, BOOL, STR, PLAYER, DIRECTION, NONE, ANY))


def names_cards(t: str) -> int:
    """Whether a value of type `t` may name a card (A_CARD), hold cards (CARDS), or neither. A new
    type must say, or a sampled world could keep naming the real cards: an unknown one stops here."""
    if t == CARD:
        return A_CARD
    if t == ZONE or (is_list(t) and elem(t) == CARD):
        return CARDS
    if t in _NO_CARD_TYPES or (is_list(t) and elem(t) in _NO_CARD_TYPES):
        return NO_CARD  # (ANY: the items of an empty list, which never hold anything)
    raise AssertionError(f"the compiler does not know whether a value of type {t!r} can name a card")


def _card_cells(group: list, layout: dict[str, tuple[int, bool]], players: int) -> tuple[tuple[int, ...], ...]:
    """The cells of a group of variables (or counters) that may hold a card, and a list of cards."""
    found: tuple[list[int], list[int]] = ([], [])
    for v in group:
        kind = names_cards(v.type)
        if kind != NO_CARD:
            base, per_player = layout[v.name]
            found[kind - 1].extend(range(base, base + (players if per_player else 1)))
    return tuple(found[0]), tuple(found[1])


class Compiler(Skeleton, Statements, SetChooses):
    def __init__(self, prog: Program, names: list[str] | None = None, shortcuts: bool = True,
                 limits: dict[str, int] | None = None):
        self.p = prog
        self.g = Game()
        self.g.limits = limits_of(limits)
        self.g.write_block, self.g.write_straight = block_function, straight_playout
        self.n = n = prog.players
        self.g.names = list(names) if names else [DEFAULT_NAMES[i] if i < len(DEFAULT_NAMES) else f"p{i + 1}"
                                                  for i in range(n)]
        self.end_cells: list[tuple[str, list[int]]] = []
        self.turn_cell = [0, 0]
        self.choose_decisions: dict[int, Decision] = {}
        self.choose_options: dict[int, Callable[[], list[str]]] = {}  # per choose: its options' writer
        self.set_ways: dict[int, list[tuple]] = {}  # per `choose set`: the ways its test can be met (sets.py)
        self.hand_free: dict[int, bool] = {}  # per decision: its domain holds no hand's cards
        self.race_ops: dict[int, dict[str, int]] = {}  # per race: its plain ops by role (straight.py)
        self.unit = ""
        self.leaf = False  # compiling a leaf code (see Code.leaf)
        self.turn_option_lines: list[str] = []  # the generated turn-options function, by line
        # For the straight writer (straight.py): each statement's code and the range of its ops, the
        # compiled tests and arguments of statements it writes itself, and the hooks' codes.
        self.stmt_ops: dict[int, tuple[Code, int, int]] = {}
        self.parts: dict[int, Fn] = {}
        self.hook_codes: dict[str, int] = {}
        self.shortcuts = shortcuts  # leaves, tails, option loops, counted options (see compile_program)
        self.source = SourceCompiler(self)
        self.domains = DomainWriter(self.source)  # decisions' domains as statements

    # ------------------------------------------------------------ entry
    def build(self) -> Game:
        """The stages in order: the tables, the values read outside play, the codes (procedures,
        hooks, actions, the skeleton), then the tables a run reads."""
        self._header()
        self._cards()
        self._zones()
        self.g.prepare()
        self._vars()
        self.plan = lower(self)  # (once every table is made: what is safe to work out first reads them)
        self.g.count_hands(self.plan.counted_specs)  # (read by straight runs alone)
        self._initial_values()
        self._readers()
        main = self._codes()
        self._main(main, self.hook_codes)
        self._checks()
        self._run_tables()
        return self.g

    def _header(self) -> None:
        p, g = self.p, self.g
        g.name = p.name
        g.sources = p.files
        g.warnings = p.warnings
        g.about = list(p.about)
        g.display_names = dict(p.display_names)
        g.path = next(iter(p.files), "")
        g.players = self.n
        g.min_players, g.max_players = p.min_players, p.max_players
        g.params = {k: v.value for k, v in p.params.items()}
        g.param_ranges = {k: (v.default, v.low, v.high) for k, v in p.params.items()}
        g.all_mask = (1 << self.n) - 1
        g.may_end_without_winner = p.winners is not None

    def _readers(self) -> None:
        """What is read of a state outside play: the cells that may hold cards (determinization
        re-points every one of them, State._rename), defines' values, statistics and shows."""
        p, g = self.p, self.g
        g.card_vars, g.cardlist_vars = _card_cells(p.vars, g.var_layout, self.n)
        g.card_counters, g.cardlist_counters = _card_cells(p.counters, g.counter_layout, self.n)
        for v in p.vars:
            if v.secret:
                g.secret_cells.update(dict.fromkeys(self.secret_cells((v.name,)), v.type))
        for name, info in p.defines.items():
            if not info.params:
                g.defines[name] = self.value_of(name)
        g.statistics = [(info.name, _located_part(self.cond_fn(info), info.expr.span, True), info.type)
                        for info in p.statistics]
        g.shows = [(name, _located_part(self.value_of(name),
                                        p.defines[name].expr.span if name in p.defines else None),
                    p.defines[name].type if name in p.defines
                    else next(v for v in p.vars + p.counters if v.name == name).type)
                   for name in p.shows]
        g.show_secrets = {name: self.secret_cells(read) for name, read in p.show_secrets.items()}

    def _codes(self) -> Code:
        """Every procedure's, hook's and action's code (the skeleton's, code 0, is returned empty:
        it is written last, once the hooks' codes are known)."""
        p, g = self.p, self.g
        g.decisions.append(Decision(0, "", None, None, None, False, "action", None, "turn"))
        main = Code("game", 0)
        main.index = 0
        g.codes.append(main)
        self.proc_codes: dict[str, int] = {}
        plan = self.plan
        g.tails = self.shortcuts
        for name in p.procedures:
            self.proc_codes[name] = self._new_code(f"procedure {name}", p.procedures[name])
        self.recursive_codes = frozenset(self.proc_codes[name] for name in plan.recursive)
        self.depth_check = depth_check(g.limits["depth"], self.recursive_codes)
        for name, info in p.procedures.items():
            self._compile_body(self.proc_codes[name], info.body, "procedure", name in plan.leaves)
        for when, info in p.hooks.items():
            self.hook_codes[when] = self._new_code(when, info)
            self._compile_body(self.hook_codes[when], info.body, when, plan.leaf_units[id(info)])
        for info in p.actions:
            self._action(info)
        g.turn_options_fn = self._turn_options_fn()
        return main

    def _action(self, info) -> None:
        ci = self._new_code(f"action {info.name}", info)
        self._compile_body(ci, info.body, "action", self.plan.leaf_units[id(info)])
        cond = self.expr(info.cond) if info.cond is not None else None
        first = lead_of(info)  # (the turn's decision: the rest decides whether the action is a leaf)
        lead = self.choose_decisions[id(first)] if first is not None else None
        # A lead's label is asked with the turn's options, before the action has locals of its own.
        lead_fn = self.label_fn(first.label_text, "st", info.nlocals) if first is not None else None
        self.g.actions.append(ActionRt(info.name, ci, info.nlocals, cond, lead,
                                       first.label if first is not None else None, lead_fn))

    def _checks(self) -> None:
        """Invariants and scenarios (rulesdsl test), and the game's fingerprint for saves."""
        p, g = self.p, self.g
        g.invariants = [(info.name, self.cond_fn(info), info.span, _source(p.files, info.expr.span))
                        for info in p.invariants]
        g.scenarios = [self._scenario(sc) for sc in p.scenarios]
        g.fingerprint = _fingerprint(p, g)

    def _run_tables(self) -> None:
        """What a run reads: the generated code's names, the blocks (built as positions first run)
        and the tables the machine reads on every decision."""
        g = self.g
        g.namespace = self.source.names
        if self.shortcuts:  # (without, the slow way, kept to test against)
            g.make_straight = lambda: self
        g.const = self.source.const
        for code in g.codes:
            code.blocks = [None] * len(code.ops)
            code.ends = [0] * len(code.ops)
        g.decision_slot = [d.slot for d in g.decisions]
        g.holds_cardlists = bool(g.cardlist_vars or g.cardlist_counters or any(c.cardlist_slots for c in g.codes))
        g.code_blocks = [code.blocks for code in g.codes]
        g.action_entry = [(g.codes[a.code], a.nlocals, a.lead.slot if a.lead is not None else -1) for a in g.actions]

    # ------------------------------------------------------------ expressions
    def type(self, e: ast.Expr) -> str:
        return self.p.types.get(id(e), "any")

    def expr(self, e: ast.Expr) -> Fn:
        """The expression as one function of (state, locals), written once as source (exprs.py)."""
        return self.source.compile(e)

    def value_of(self, name: str) -> Callable[[State], object]:
        """The value of a define without parameters, a counter or a variable (for a `show`, and
        the game's defines), f(state)."""
        if name in self.p.defines:
            info = self.p.defines[name]
            return self.source.function(self.source.standalone(info.expr), "st", info.nlocals)
        layout = self.g.counter_layout if name in self.g.counter_layout else self.g.var_layout
        kind = "counters" if name in self.g.counter_layout else "vars"
        return self.source.function(f"st.{kind}[{layout[name][0]}]", "st")

    def _scenario(self, sc) -> ScenarioRt:
        steps = []
        for step, info in sc.steps:
            kind = step.kind
            if kind in ("put", "put_top"):
                data = self.source.function(self.zone_src(step.expr), "st", 0)
            elif kind == "turn":
                data = self.cond_fn(info)
            elif kind == "set":
                assign = self._assign_src(self.p.refs[id(step)], "=", step.expr, step.target)
                # (its op run alone, with no locals, as a machine block would run it: outside the machine)
                data = defined("def op(st):", ["env = []", *op_lines(assign)], f"{self.g.name} statement",
                               self.source.names)
            elif kind == "expect":
                data = (self.cond_fn(info), self._explain(step.expr, info.nlocals))
            else:
                data = None
            steps.append(ScenarioStep(kind, step.texts, data, step.span,
                                      _source(self.p.files, step.expr.span) if step.expr is not None else ""))
        return ScenarioRt(sc.name, sc.span, sc.players, sc.seed, dict(sc.params), steps)

    def _explain(self, e: ast.Expr, nlocals: int) -> Callable[[State], str]:
        """For a failed `expect`: the values of the two sides of a comparison, in words."""
        if not (isinstance(e, ast.Binary) and e.op in ("==", "!=", "<", "<=", ">", ">=", "in")):
            return lambda st: ""
        sides = []
        for side in (e.left, e.right):
            if isinstance(side, (ast.IntLit, ast.StrLit, ast.BoolLit, ast.NoneLit)):
                continue
            x = self.expr_src(side)  # (its words, as messages show the value)
            sides.append((_source(self.p.files, side.span),
                          self.source.function(f"(lambda _x: {self.text_src('_x', self.type(side))})({x})")))

        def explain(st):
            env = [None] * max(nlocals, 1)
            return "; ".join(f"{src} is {fmt(st, env)}" for src, fmt in sides)

        return explain

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
        faces: dict[tuple, int] = {}  # (kind, values) -> the face's number
        by_zone: dict[int, list[int]] = {}
        face_ids = []
        for i, c in enumerate(p.cards):
            k = p.kinds[c.kind]
            face = faces.setdefault((c.kind, tuple(c.values.get(a) for a in k.attrs)), len(faces))
            if face == len(g.face_text):
                g.face_text.append(self._face_text(k, c.values))
            face_ids.append(face)
            by_zone.setdefault(c.zone, []).append(i)
        g.ncards = len(p.cards)
        g.kind_names = [k.name for k in p.kinds]
        g.card_kind = tuple(c.kind for c in p.cards)
        g.card_face = tuple(face_ids)
        g.card_text = tuple(g.face_text[f] for f in g.card_face)
        g.attrs = {a: tuple(c.values.get(a) for c in p.cards) for a in p.attr_types}
        g.attrs["kind"] = tuple(p.kinds[k].name for k in g.card_kind)
        g.partial_attrs = tuple(sorted(set(p.partial_shows.values())))
        if g.partial_attrs:
            g.kind_text = [self._kind_text(k) for k in p.kinds]
            g.attr_words = {a: tuple(_show_value(v) for v in vs) for a, vs in g.attrs.items()}
        self._start_zones = by_zone

    @staticmethod
    def _kind_text(k) -> tuple[tuple[str, bool], ...]:
        """How a face of kind k is written: (text, False) or (attribute, True), in order."""
        if k.shown is None:
            return (("kind", True), *[part for a in k.attrs for part in ((" ", False), (a, True))])
        return tuple((part, False) if isinstance(part, str) else (part.id, True) for part in k.shown.parts)

    def _face_text(self, k, values: dict) -> str:
        return "".join(str(_show_value(k.name if x == "kind" else values.get(x))) if attr else x
                       for x, attr in self._kind_text(k))

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
                layout[v.name] = (len(init), v.per_player)
                init.extend([None] * (n if v.per_player else 1))
                types.extend([v.type] * (n if v.per_player else 1))

    def _initial_values(self) -> None:
        """Each counter's and variable's first value (an expression, written once the plan is made)."""
        g = self.g
        for layout, init, group in ((g.counter_layout, g.counter_init, self.p.counters),
                                    (g.var_layout, g.var_init, self.p.vars)):
            for v in group:
                base, per_player, f = *layout[v.name], self.expr(v.init)
                try:
                    value = f(None, [])
                except Exception:
                    raise RulesError([Diagnostic(v.init.span, "an initial value must not depend on the game in "
                                                 "progress")], self.p.files) from None
                init[base:base + (self.n if per_player else 1)] = [value] * (self.n if per_player else 1)

    def fresh(self, info) -> str:
        """Python source of an ExprInfo's expression evaluated with locals of its own."""
        f = self.expr(info.expr)
        if not f.reads_locals:
            return paren(self.source.named_src(f))  # it uses no locals: the block's own are as good
        return f"{self.source.const(f)}(st, {env_list([], info.nlocals)})"

    def cond_fn(self, info) -> Callable[[State], object]:
        """An ExprInfo's expression as f(state), with locals of its own."""
        return self.source.function(self.source.src(info.expr, {}), "st", info.nlocals)

    def rank_fn(self, info) -> Callable[[State, int], object]:
        """A rank key as f(state, seat), the seat its `it`."""
        return self.source.function(self.source.src(info.expr, {}), "st, seat", info.nlocals, {info.it_slot: "seat"})


def _show_value(v) -> str:
    if v is True:
        return "yes"
    if v is False:
        return "no"
    return str(v)


def _fingerprint(p: Program, g: Game) -> str:
    h = hashlib.sha256()
    for path in sorted(p.files):
        h.update(p.files[path].encode())
    h.update(json.dumps([g.players, sorted(g.params.items(), key=str), g.names], default=str).encode())
    return h.hexdigest()[:16]


def compile_program(prog: Program, names: list[str] | None = None, shortcuts: bool = True,
                    limits: dict[str, int] | None = None) -> Game:
    """`shortcuts=False` gives every call a frame and every early return a trip through the
    machine (no leaves, no tails), lists a decision's options by its domain's value (no option
    loops, no counted options) and writes each expression the plain way (nothing worked out
    before a loop, no tables of each card's value, a define called, not written in place):
    slower, the reference the tests compare the fast forms with. `limits` raises or lowers the
    limits of a run (limits.py); they are written into the generated code."""
    return Compiler(prog, names, shortcuts, limits).build()
