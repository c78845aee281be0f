"""Syntax tree to a checked program: names resolved, types inferred, parameters bound.

The checker turns "a file that parsed" into "a game that makes sense", and collects every error
it finds (with did-you-mean hints) instead of stopping at the first. Its output, `Program`, is
what the compiler reads: the declarations plus side tables keyed by node identity (the type of
each expression, what each name refers to, the local slot of each binder).
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from . import ast
from .errors import MAX_ERRORS, Diagnostic, RulesError, did_you_mean

# ---------------------------------------------------------------- types
# Types are short strings: int bool str player card zone direction none any, and list[T].
INT, BOOL, STR, PLAYER, CARD, ZONE, DIRECTION, NONE, ANY = (
    "int", "bool", "str", "player", "card", "zone", "direction", "none", "any",
)
SCALARS = (INT, BOOL, STR, PLAYER, CARD)
TYPE_NAMES = {
    "int": INT, "number": INT, "bool": BOOL, "text": STR, "player": PLAYER, "card": CARD, "zone": ZONE,
    "cards": "list[card]", "players": "list[player]", "numbers": "list[int]",
}


def list_of(t: str) -> str:
    return f"list[{t}]"


def is_list(t: str) -> bool:
    return t.startswith("list[") or t == ZONE


def elem(t: str) -> str:
    if t == ZONE:
        return CARD
    return t[5:-1] if t.startswith("list[") else ANY


def describe(t: str) -> str:
    names = {
        INT: "a number", BOOL: "yes or no", STR: "a text", PLAYER: "a player", CARD: "a card",
        ZONE: "a zone", DIRECTION: "a direction", NONE: "none", ANY: "a value",
        "list[card]": "a list of cards", "list[player]": "a list of players", "list[int]": "a list of numbers",
        "list[str]": "a list of texts", "list[bool]": "a list of yes/no values", "list[any]": "an empty list",
    }
    return names.get(t, t)


def compatible(want: str, got: str) -> bool:
    """Can a value of type `got` be used where `want` is expected?"""
    if want == got or ANY in (want, got):
        return True
    if got == NONE and want in (PLAYER, CARD, INT, STR, ANY):
        return True
    if want == "list[card]" and got == ZONE:
        return True
    if is_list(want) and is_list(got):
        return compatible(elem(want), elem(got)) and NONE not in (elem(got),)
    return False


def unify(a: str, b: str) -> str | None:
    if a == b:
        return a
    if a in (ANY, NONE):
        return b
    if b in (ANY, NONE):
        return a
    if {a, b} == {ZONE, "list[card]"}:
        return "list[card]"
    if is_list(a) and is_list(b):
        e = unify(elem(a), elem(b))
        return list_of(e) if e else None
    return None


BUILTIN_VALUES = {
    "me": PLAYER,
    "others": "list[player]",
    "round": INT,
    "turn": INT,
    "direction": DIRECTION,
    "clockwise": DIRECTION,
    "counterclockwise": DIRECTION,
    "player_count": INT,
    "winners": "list[player]",
    "game_over": BOOL,
    "decider": PLAYER,
}
# name -> (minimum args, maximum args); result types are worked out in _call.
BUILTIN_FUNCS = {
    "count": (1, 1), "sum": (1, 1), "min": (1, 2), "max": (1, 2), "any": (1, 1), "empty": (1, 1),
    "top": (1, 1), "bottom": (1, 1), "first": (1, 1), "last": (1, 1), "random": (1, 1),
    "next": (1, 1), "previous": (1, 1), "distinct": (1, 1), "abs": (1, 1), "owner": (1, 1),
    "place": (1, 1), "zone_of": (1, 1), "sorted": (1, 1), "knows": (2, 2),
}
PLAYER_BUILTIN_ATTRS = {"seat": INT}
CARD_BUILTIN_ATTRS = {"kind": STR}
SHAPES = ("stack", "hand", "grid")
MAX_CARDS = 10_000
# Expressions checked one inside another, counted through the defines they use: the parser bounds
# each rule's depth (parser.MAX_DEPTH), and this bounds a chain of defines, each using the next.
MAX_NESTING = 150
VISIBILITIES = ("public", "hidden", "private")
HOOKS = ("setup", "round start", "round end", "turn start", "turn end", "game end")


# ---------------------------------------------------------------- the checked program


@attrs.define
class ParamInfo:
    name: str
    default: int | bool | str
    low: int | None
    high: int | None
    value: int | bool | str
    span: ast.Span


@attrs.define
class KindInfo:
    index: int
    name: str
    attrs: tuple[str, ...]
    shown: ast.Template | None
    span: ast.Span


@attrs.define
class CardInfo:
    kind: int
    values: dict[str, int | bool | str]
    zone: int


@attrs.define
class ZoneInfo:
    index: int
    name: str
    per_player: bool
    shape: str
    visibility: str
    refill: int | None
    keep: int
    span: ast.Span


@attrs.define
class VarInfo:
    index: int
    name: str
    type: str
    per_player: bool
    counter: bool
    init: ast.Expr
    span: ast.Span


@attrs.define
class CodeInfo:
    """A block of statements that runs with its own locals: a procedure, action or hook."""

    name: str
    body: tuple[ast.Stmt, ...]
    params: tuple[tuple[str, str], ...] = ()
    nlocals: int = 0
    cond: ast.Expr | None = None
    span: ast.Span | None = None
    slot_types: dict[int, str] = attrs.Factory(dict)


@attrs.define
class ExprInfo:
    """An expression evaluated with its own locals (a define, an end condition, a rank key)."""

    name: str
    expr: ast.Expr
    type: str = ANY
    params: tuple[tuple[str, str], ...] = ()
    nlocals: int = 0
    it_slot: int | None = None
    span: ast.Span | None = None


@attrs.define
class ScenarioInfo:
    """A scenario, checked: its setting (players, seed, parameters) and its steps, whose
    expressions are checked with the player names (alice, bob, ...) as values."""

    name: str
    span: ast.Span
    players: int
    seed: int
    params: dict[str, object]
    steps: list[tuple[ast.Step, ExprInfo | None]]


@attrs.define
class Program:
    name: str
    files: dict[str, str]
    players: int
    min_players: int
    max_players: int
    params: dict[str, ParamInfo]
    kinds: list[KindInfo]
    attr_types: dict[str, str]
    cards: list[CardInfo]
    zones: list[ZoneInfo]
    counters: list[VarInfo]
    vars: list[VarInfo]
    defines: dict[str, ExprInfo]
    shows: list[str]
    procedures: dict[str, CodeInfo]
    actions: list[CodeInfo]
    hooks: dict[str, CodeInfo]
    round_ends: list[ExprInfo]
    game_ends: list[ExprInfo]
    rank: list[tuple[str, ExprInfo]]
    winners: ExprInfo | None
    statistics: list[ExprInfo]
    invariants: list[ExprInfo]
    scenarios: list[ScenarioInfo]
    types: dict[int, str]
    refs: dict[int, tuple]
    slots: dict[int, int | tuple[int, int, int]]
    has_end_game: bool


# ---------------------------------------------------------------- the checker


class _Scope:
    def __init__(self, parent: _Scope | None = None):
        self.parent = parent
        self.names: dict[str, tuple[int, str]] = {}

    def lookup(self, name: str) -> tuple[int, str] | None:
        s: _Scope | None = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None

    def all_names(self) -> list[str]:
        out: list[str] = []
        s: _Scope | None = self
        while s is not None:
            out.extend(s.names)
            s = s.parent
        return out


class _Unit:
    """Slot allocation for one code unit."""

    def __init__(self, name: str, kind: str):
        self.name = name
        self.kind = kind  # action, procedure, hook name, define, expr
        self.nslots = 0
        self.loops = 0
        self.slot_types: dict[int, str] = {}

    def new_slot(self, t: str = ANY) -> int:
        self.nslots += 1
        self.slot_types[self.nslots - 1] = t
        return self.nslots - 1

    def bind(self, scope: _Scope, name: str, slot: int, t: str) -> None:
        scope.names[name] = (slot, t)
        if self.slot_types.get(slot, ANY) in (ANY, NONE):
            self.slot_types[slot] = t


class Checker:
    def __init__(self, files: list[ast.RulesFile], players: int | None, params: dict[str, object] | None):
        self.files = files
        self.sources = {f.path: f.source for f in files}
        self.want_players = players
        self.overrides = dict(params or {})
        self.diags: list[Diagnostic] = []
        self.types: dict[int, str] = {}
        self.refs: dict[int, tuple] = {}
        self.slots: dict[int, int | tuple[int, int, int]] = {}
        self.has_end_game = False
        self.scenario_players: dict[str, int] = {}
        self.reported: set[tuple] = set()
        self.depth = 0  # expressions being checked, one in another (through defines too)

    # -- reporting
    def error(self, span: ast.Span | None, message: str, hint: str | None = None) -> None:
        key = (span, message)
        if key in self.reported:
            return
        self.reported.add(key)
        self.diags.append(Diagnostic(span, message, hint))
        if len(self.diags) > MAX_ERRORS:  # (hints cost a look through every name: stop, as the parser does)
            raise _TooMany

    def fail(self, span, message, hint=None) -> str:
        self.error(span, message, hint)
        return ANY

    # -- entry
    def run(self) -> Program:
        decls = [d for f in self.files for d in f.decls]
        by_type: dict[type, list] = {}
        for d in decls:
            by_type.setdefault(type(d), []).append(d)

        if not any(by_type.get(t) for t in (ast.GameName, ast.Players, ast.Action, ast.EndsWhen, ast.Rank)):
            first = self.files[0]
            raise RulesError([Diagnostic(
                ast.Span(first.path, 1, 1, 1, 2), "this file declares no game (no `game`, `players` or actions)",
                "a file of shared declarations (a prelude) is used by a game with `import \"FILE\"`",
            )], self.sources)
        self.name = self._game_name(by_type.get(ast.GameName, []))
        self._players(by_type.get(ast.Players, []))
        self._params(by_type.get(ast.Param, []))
        self._kinds(by_type.get(ast.CardKind, []))
        self._zones(by_type.get(ast.Zone, []))
        self._cards(by_type.get(ast.Cards, []))
        self.global_names: dict[str, ast.Span] = {}
        for group in (self.params, self.zone_by_name):
            for name, info in group.items():
                self.global_names.setdefault(name, info.span)
        self._vars(by_type.get(ast.Counter, []) + by_type.get(ast.Var, []))
        self._collect_defines(by_type.get(ast.Define, []))
        self._collect_procedures(by_type.get(ast.Procedure, []))

        # Bodies, now that every name is known.
        for d in self.defines.values():
            self._check_define(d)
        for v in self.counters + self.vars:
            self._check_var_init(v)
        self.shows = self._shows(by_type.get(ast.Show, []))
        for p in self.procedures.values():
            self._check_code(p, "procedure")
        self.actions = self._actions(by_type.get(ast.Action, []))
        self.hooks = self._hooks(by_type.get(ast.Hook, []))
        self.round_ends = [self._cond_expr("round ends when", e.cond) for e in by_type.get(ast.EndsWhen, [])
                           if e.what == "round"]
        self.game_ends = [self._cond_expr("game ends when", e.cond) for e in by_type.get(ast.EndsWhen, [])
                          if e.what == "game"]
        self.rank = self._rank(by_type.get(ast.Rank, []))
        self.winners = self._winners(by_type.get(ast.Winners, []))
        self.statistics = self._statistics(by_type.get(ast.Statistic, []))
        self.invariants = self._invariants(by_type.get(ast.Invariant, []))
        self.scenarios = self._scenarios(by_type.get(ast.Scenario, []))
        self._whole_game(decls)
        if self.diags:
            raise RulesError(self.diags, self.sources)
        return Program(
            name=self.name, files=self.sources, players=self.n_players, min_players=self.min_players,
            max_players=self.max_players, params=self.params, kinds=self.kinds, attr_types=self.attr_types,
            cards=self.cards, zones=self.zones, counters=self.counters, vars=self.vars, defines=self.defines,
            shows=self.shows, procedures=self.procedures, actions=self.actions, hooks=self.hooks,
            round_ends=self.round_ends, game_ends=self.game_ends, rank=self.rank, winners=self.winners,
            statistics=self.statistics, invariants=self.invariants, scenarios=self.scenarios,
            types=self.types, refs=self.refs, slots=self.slots, has_end_game=self.has_end_game,
        )

    # -- header
    def _game_name(self, decls: list[ast.GameName]) -> str:
        for extra in decls[1:]:
            self.error(extra.span, "the game is named twice")
        if decls:
            return decls[0].name
        return self.files[0].path.rsplit("/", 1)[-1].removesuffix(".rules") if self.files else "game"

    def _players(self, decls: list[ast.Players]) -> None:
        self.min_players, self.max_players, default = 2, 2, 2
        if not decls:
            first = self.files[0].path if self.files else None
            self.error(ast.Span(first, 1, 1, 1, 2) if first else None, "the file does not say how many players play",
                       "add a line such as `players 2..4`")
        for extra in decls[1:]:
            self.error(extra.span, "the number of players is given twice")
        if decls:
            d = decls[0]
            self.min_players, self.max_players = d.low, d.high
            default = d.default if d.default is not None else d.low
            bad = True
            if d.low < 1 or d.high < d.low:
                self.error(d.span, f"bad player range {d.low}..{d.high}")
            elif d.high > 60:
                self.error(d.span, "at most 60 players")
            elif not d.low <= default <= d.high:
                self.error(d.span, f"the default of {default} players is outside {d.low}..{d.high}")
            else:
                bad = False
            if bad:  # one error for one mistake: go on checking with something sane
                self.min_players, self.max_players = 1, 60
                default = max(1, min(default, 60))
        self.default_players = default
        n = self.want_players if self.want_players is not None else default
        if isinstance(n, bool) or not isinstance(n, int):
            self.error(None, f"the number of players must be a whole number, not {n!r}")
            n = default
        elif not self.min_players <= n <= self.max_players:
            self.error(None, f"this game is for {self.min_players} to {self.max_players} players, not {n}")
            n = max(self.min_players, 1)
        self.n_players = n

    def _params(self, decls: list[ast.Param]) -> None:
        self.params: dict[str, ParamInfo] = {}
        for d in decls:
            if d.name in self.params:
                self.error(d.span, f"parameter '{d.name}' is declared twice")
                continue
            if self._builtin_name(d.name, d.span):
                continue
            if d.low is not None and (not isinstance(d.value, int) or isinstance(d.value, bool)):
                self.error(d.span, "only a number parameter can have a range")
            elif d.low is not None and not d.low <= d.value <= d.high:
                self.error(d.span, f"the default {d.value} of '{d.name}' is outside its range {d.low}..{d.high}")
            self.params[d.name] = ParamInfo(d.name, d.value, d.low, d.high, d.value, d.span)
        for name, raw in self.overrides.items():
            info = self.params.get(name)
            if info is None:
                self.error(None, f"parameter '{name}': the game has no such parameter",
                           did_you_mean(name, self.params) or
                           (f"its parameters: {', '.join(self.params)}" if self.params else "it has no parameters"))
                continue
            value = coerce_param(raw, info.default)
            if value is None:
                self.error(None, f"parameter {name}={raw}: expected {_kind_of(info.default)}")
                continue
            if info.low is not None and not info.low <= value <= info.high:
                self.error(None, f"parameter {name}={raw}: out of range {info.low}..{info.high}")
                continue
            info.value = value

    def _kinds(self, decls: list[ast.CardKind]) -> None:
        self.kinds: list[KindInfo] = []
        self.kind_by_name: dict[str, KindInfo] = {}
        for d in decls:
            if d.name in self.kind_by_name:
                self.error(d.span, f"card kind '{d.name}' is declared twice")
                continue
            if len(set(d.attrs)) != len(d.attrs):
                self.error(d.span, f"card kind '{d.name}' names an attribute twice")
            for a in d.attrs:
                if a in CARD_BUILTIN_ATTRS:
                    self.error(d.span, f"'{a}' is built in for every card and cannot be declared")
            k = KindInfo(len(self.kinds), d.name, d.attrs, d.shown, d.span)
            self.kinds.append(k)
            self.kind_by_name[d.name] = k
            if d.shown is not None:
                for part in d.shown.parts:
                    if isinstance(part, ast.Expr):
                        self._check_shown_hole(k, part)
        self.attr_types: dict[str, str] = {a: ANY for k in self.kinds for a in k.attrs}

    def _check_shown_hole(self, k: KindInfo, e: ast.Expr) -> None:
        if not isinstance(e, ast.Name):
            self.error(e.span, "a card's shown text can only name its attributes, as in \"{number}\"")
        elif e.id not in k.attrs and e.id != "kind":
            self.error(e.span, f"card kind '{k.name}' has no attribute '{e.id}'", did_you_mean(e.id, k.attrs))

    def _zones(self, decls: list[ast.Zone]) -> None:
        self.zones: list[ZoneInfo] = []
        self.zone_by_name: dict[str, ZoneInfo] = {}
        pending_refill = []
        for d in decls:
            if d.name in self.zone_by_name:
                self.error(d.span, f"zone '{d.name}' is declared twice")
                continue
            if self._builtin_name(d.name, d.span) or d.name in self.params:
                if d.name in self.params:
                    self.error(d.span, f"'{d.name}' is already a parameter")
                continue
            shape = vis = None
            refill = None
            keep = 0
            for opt in d.options:
                if opt.word == "refill":
                    refill = opt
                    keep = opt.keep
                elif opt.word in SHAPES:
                    if shape:
                        self.error(opt.span, f"zone '{d.name}' has two shapes ({shape}, {opt.word})")
                    shape = opt.word
                elif opt.word in VISIBILITIES:
                    if vis:
                        self.error(opt.span, f"zone '{d.name}' is given two visibilities ({vis}, {opt.word})")
                    vis = opt.word
                else:
                    self.error(opt.span, f"unknown zone option '{opt.word}'",
                               did_you_mean(opt.word, SHAPES + VISIBILITIES)
                               or "a zone is a stack, hand or grid; public, hidden or private")
            shape = shape or "stack"
            if vis is None:
                vis = "private" if d.per_player and shape == "hand" else "hidden"
            if vis == "private" and not d.per_player:
                self.error(d.span, f"zone '{d.name}' is private but has no owner", "write `zone NAME per player: ...`")
            z = ZoneInfo(len(self.zones), d.name, d.per_player, shape, vis, None, keep, d.span)
            self.zones.append(z)
            self.zone_by_name[d.name] = z
            if refill is not None:
                pending_refill.append((z, refill))
        for z, opt in pending_refill:
            src = self.zone_by_name.get(opt.source)
            if src is None:
                self.error(opt.span, f"unknown zone '{opt.source}'", did_you_mean(opt.source, self.zone_by_name))
            elif src.per_player or z.per_player:
                self.error(opt.span, "a refill links two zones that belong to no player")
            elif src is z:
                self.error(opt.span, f"zone '{z.name}' cannot refill from itself")
            else:
                z.refill = src.index

    def _cards(self, decls: list[ast.Cards]) -> None:
        self.cards: list[CardInfo] = []
        seen_types: dict[str, tuple[str, ast.Span]] = {}
        for d in decls:
            zone = self.zone_by_name.get(d.zone)
            if zone is None:
                self.error(d.zone_span, f"unknown zone '{d.zone}'", did_you_mean(d.zone, self.zone_by_name))
            elif zone.per_player:
                self.error(d.zone_span, f"cards start in a zone of the table, not in each player's '{d.zone}'",
                           "deal them in `setup`")
                zone = None
            for cc in d.counts:
                k = self.kind_by_name.get(cc.kind)
                if k is None:
                    self.error(cc.span, f"unknown card kind '{cc.kind}'", did_you_mean(cc.kind, self.kind_by_name))
                    continue
                if len(cc.values) != len(k.attrs):
                    self.error(cc.span, f"card kind '{k.name}' takes {len(k.attrs)} value(s) "
                               f"({', '.join(k.attrs) or 'none'}), not {len(cc.values)}")
                    continue
                if cc.count < 1:
                    self.error(cc.span, "a card count must be at least 1")
                    continue
                if cc.count > MAX_CARDS or len(self.cards) + cc.count > MAX_CARDS:
                    self.error(cc.span, f"too many cards: a game has at most {MAX_CARDS}")
                    continue
                values = dict(zip(k.attrs, cc.values, strict=True))
                for a, v in values.items():
                    t = _kind_of_value(v)
                    prev = seen_types.get(a)
                    if prev and prev[0] != t:
                        self.error(cc.span, f"attribute '{a}' is {describe(prev[0])} elsewhere but {describe(t)} here")
                    else:
                        seen_types[a] = (t, cc.span)
                        self.attr_types[a] = t
                for _ in range(cc.count):
                    self.cards.append(CardInfo(k.index, values, zone.index if zone else -1))
        if not self.cards:
            self.error(self.files[0].decls[0].span if self.files and self.files[0].decls else None,
                       "the game has no cards", "add `cards in ZONE { 4 some_kind, ... }`")

    def _vars(self, decls: list) -> None:
        self.counters: list[VarInfo] = []
        self.vars: list[VarInfo] = []
        self.var_by_name: dict[str, VarInfo] = {}
        for d in decls:
            if self._taken(d.name, d.span):
                continue
            counter = isinstance(d, ast.Counter)
            if counter:
                typ = INT
            elif d.type is not None:
                typ = TYPE_NAMES.get(d.type)
                if typ is None:
                    self.error(d.type_span, f"unknown type '{d.type}'", did_you_mean(d.type, TYPE_NAMES)
                               or f"types: {', '.join(TYPE_NAMES)}")
                    typ = ANY
            else:
                typ = None  # inferred from the initial value
            group = self.counters if counter else self.vars
            v = VarInfo(len(group), d.name, typ or ANY, d.per_player, counter, d.init, d.span)
            if typ is None:
                v.type = "?"
            group.append(v)
            self.var_by_name[d.name] = v
            self.global_names[d.name] = d.span

    def _builtin_name(self, name: str, span: ast.Span) -> bool:
        if name in BUILTIN_VALUES or name in BUILTIN_FUNCS or name in ("it", "players"):
            self.error(span, f"'{name}' is a built-in name", "choose another name")
            return True
        return False

    def _taken(self, name: str, span: ast.Span) -> bool:
        if self._builtin_name(name, span):
            return True
        if name in self.global_names:
            prev = self.global_names[name]
            self.error(span, f"'{name}' is already declared", f"first declared at {prev}" if prev.line else None)
            return True
        return False

    def _check_var_init(self, v: VarInfo) -> None:
        unit = _Unit(v.name, "init")
        t = self.expr(v.init, _Scope(), unit, in_game=False)
        if v.type == "?":
            if t in (NONE, ANY, "list[any]"):
                self.error(v.span, f"cannot tell the type of '{v.name}' from its value",
                           f"write `var {v.name}: cards = []` (or players, numbers)" if t == "list[any]"
                           else f"write `var {v.name}: player = none` (or card, int, bool)")
                v.type = ANY
            else:
                v.type = t
        elif not compatible(v.type, t):
            self.error(v.init.span, f"'{v.name}' holds {describe(v.type)}, but its initial value is {describe(t)}")
        if unit.nslots:
            self.error(v.init.span, "an initial value must be simple")

    def _collect_defines(self, decls: list[ast.Define]) -> None:
        self.defines: dict[str, ExprInfo] = {}
        self._define_decls: dict[str, ast.Define] = {}
        for d in decls:
            if self._taken(d.name, d.span):
                continue
            params = self._typed_params(d.params or ())
            self.defines[d.name] = ExprInfo(d.name, d.body, "?", params)
            self._define_decls[d.name] = d
            self.global_names[d.name] = d.span

    def _typed_params(self, params: Iterable[ast.TypedParam]) -> tuple[tuple[str, str], ...]:
        out = []
        for p in params:
            self._binder_name(p.name, p.span)
            t = TYPE_NAMES.get(p.type)
            if t is None:
                self.error(p.span, f"unknown type '{p.type}'", did_you_mean(p.type, TYPE_NAMES)
                           or f"types: {', '.join(TYPE_NAMES)}")
                t = ANY
            out.append((p.name, t))
        return tuple(out)

    def _check_define(self, info: ExprInfo, stack: tuple[str, ...] = ()) -> str:
        if info.type == "checking":
            self.error(self._define_decls[info.name].span, f"'{info.name}' is defined in terms of itself")
            info.type = ANY
            return ANY
        if info.type != "?":
            return info.type
        info.type = "checking"
        unit = _Unit(info.name, "define")
        scope = _Scope()
        for name, t in info.params:
            unit.bind(scope, name, unit.new_slot(t), t)
        t = self.expr(info.expr, scope, unit)
        info.type = t
        info.nlocals = unit.nslots
        return t

    def _collect_procedures(self, decls: list[ast.Procedure]) -> None:
        self.procedures: dict[str, CodeInfo] = {}
        for d in decls:
            if self._taken(d.name, d.span):
                continue
            self.procedures[d.name] = CodeInfo(d.name, d.body, self._typed_params(d.params), span=d.span)
            self.global_names[d.name] = d.span

    def _shows(self, decls: list[ast.Show]) -> list[str]:
        out = []
        for d in decls:
            for n in d.names:
                plain_define = n.id in self.defines and not self.defines[n.id].params
                if plain_define or (n.id in self.var_by_name and not self.var_by_name[n.id].per_player):
                    out.append(n.id)
                else:
                    self.error(n.span, f"`show` lists values without parameters; '{n.id}' is not one",
                               did_you_mean(n.id, list(self.defines) + list(self.var_by_name)))
        return out

    def _actions(self, decls: list[ast.Action]) -> list[CodeInfo]:
        out: list[CodeInfo] = []
        seen: set[str] = set()
        for d in decls:
            if d.name in seen:
                self.error(d.span, f"action '{d.name}' is declared twice")
                continue
            seen.add(d.name)
            info = CodeInfo(d.name, d.body, cond=d.cond, span=d.span)
            self._check_code(info, "action")
            out.append(info)
        return out

    def _hooks(self, decls: list[ast.Hook]) -> dict[str, CodeInfo]:
        out: dict[str, CodeInfo] = {}
        for d in decls:
            if d.when in out:
                self.error(d.span, f"`{d.when}` is declared twice")
                continue
            info = CodeInfo(d.when, d.body, span=d.span)
            self._check_code(info, d.when)
            out[d.when] = info
        return out

    def _check_code(self, info: CodeInfo, kind: str) -> None:
        unit = _Unit(info.name, kind)
        scope = _Scope()
        for name, t in info.params:
            unit.bind(scope, name, unit.new_slot(t), t)
        if info.cond is not None:
            self.want(info.cond, BOOL, scope, unit, "an action's `when` condition")
        self.block(info.body, _Scope(scope), unit)
        info.nlocals = unit.nslots
        info.slot_types = dict(unit.slot_types)

    def _cond_expr(self, name: str, e: ast.Expr) -> ExprInfo:
        unit = _Unit(name, "expr")
        self.want(e, BOOL, _Scope(), unit, f"`{name}`")
        return ExprInfo(name, e, BOOL, nlocals=unit.nslots)

    def _rank(self, decls: list[ast.Rank]) -> list[tuple[str, ExprInfo]]:
        for extra in decls[1:]:
            self.error(extra.span, "the ranking is given twice")
        out = []
        for key in decls[0].keys if decls else ():
            unit = _Unit("rank", "expr")
            scope = _Scope()
            slot = unit.new_slot()
            scope.names["it"] = (slot, PLAYER)
            t = self.expr(key.key, scope, unit)
            if not compatible(INT, t) and not compatible(BOOL, t):
                self.error(key.key.span, f"a ranking key must be a number or a condition, not {describe(t)}")
            out.append((key.order, ExprInfo("rank", key.key, t, nlocals=unit.nslots, it_slot=slot)))
        return out

    def _winners(self, decls: list[ast.Winners]) -> ExprInfo | None:
        for extra in decls[1:]:
            self.error(extra.span, "`winners are` is given twice")
        if not decls:
            return None
        unit = _Unit("winners", "expr")
        self.want(decls[0].expr, "list[player]", _Scope(), unit, "`winners are`")
        return ExprInfo("winners", decls[0].expr, "list[player]", nlocals=unit.nslots)

    def _statistics(self, decls: list[ast.Statistic]) -> list[ExprInfo]:
        return self._named_exprs(decls, "statistic", "a number or yes/no", (INT, BOOL))

    def _invariants(self, decls: list[ast.Invariant]) -> list[ExprInfo]:
        return self._named_exprs(decls, "invariant", "yes or no", (BOOL,))

    def _named_exprs(self, decls: list, what: str, want: str, types: tuple[str, ...]) -> list[ExprInfo]:
        """`statistic NAME = EXPR` and `invariant NAME: EXPR`: named values of the whole table."""
        out = []
        seen: set[str] = set()
        for d in decls:
            if d.name in seen:
                self.error(d.span, f"{what} '{d.name}' is declared twice")
                continue
            seen.add(d.name)
            unit = _Unit(d.name, "expr")
            t = self.expr(d.expr, _Scope(), unit)
            if not any(compatible(x, t) for x in types):
                self.error(d.expr.span, f"an {what} must be {want}, not {describe(t)}" if what[0] in "aeiou"
                           else f"a {what} must be {want}, not {describe(t)}")
            info = ExprInfo(d.name, d.expr, t if t in types else types[0], nlocals=unit.nslots)
            info.span = d.span
            out.append(info)
        return out

    def _scenarios(self, decls: list[ast.Scenario]) -> list[ScenarioInfo]:
        from .engine.game import DEFAULT_NAMES

        out = []
        seen: set[str] = set()
        for d in decls:
            if d.name in seen:
                self.error(d.span, f"scenario '{d.name}' is declared twice")
            seen.add(d.name)
            info = ScenarioInfo(d.name, d.span, self.default_players, 1, {}, [])
            started = False
            for step in d.steps:
                if step.kind in ("players", "seed", "param"):
                    if started:
                        self.error(step.span, f"`{step.kind}` sets up the scenario: put it before the first move "
                                   "or check")
                    if step.kind == "players":
                        if not self.min_players <= step.value <= self.max_players:
                            self.error(step.span, f"this game is for {self.min_players} to {self.max_players} "
                                       f"players, not {step.value}")
                        else:
                            info.players = step.value
                    elif step.kind == "seed":
                        info.seed = step.value
                    else:
                        self._scenario_param(step, info)
                    continue
                started = True
            names = [n for n in DEFAULT_NAMES[: info.players]]
            self.scenario_players = {n: i for i, n in enumerate(names)}
            for step in d.steps:
                if step.kind in ("players", "seed", "param"):
                    continue
                info.steps.append((step, self._scenario_step(step)))
            self.scenario_players = {}
            out.append(info)
        return out

    def _scenario_param(self, step: ast.Step, info: ScenarioInfo) -> None:
        p = self.params.get(step.name)
        if p is None:
            self.error(step.span, f"unknown parameter '{step.name}'", did_you_mean(step.name, self.params))
            return
        value = coerce_param(step.value, p.default)
        if value is None or _kind_of_value(value) != _kind_of_value(p.default):
            self.error(step.span, f"parameter '{step.name}' takes {_kind_of(p.default)}")
        elif p.low is not None and not p.low <= value <= p.high:
            self.error(step.span, f"parameter '{step.name}' must be in {p.low}..{p.high}")
        else:
            info.params[step.name] = value

    def _scenario_step(self, step: ast.Step) -> ExprInfo | None:
        unit = _Unit("scenario", "expr")
        scope = _Scope()
        if step.kind in ("put", "put_top"):
            self.zone_target(step.expr, scope, unit, "where the cards are put")
        elif step.kind == "turn":
            self.want(step.expr, PLAYER, scope, unit, "`turn`")
        elif step.kind == "expect":
            self.want(step.expr, BOOL, scope, unit, "what is expected")
        elif step.kind == "set":
            fake = ast.Assign(step.target, "=", step.expr, span=step.span)
            t = self.expr(step.expr, scope, unit)
            target = self._target(fake, scope, unit)
            if target is not None and not compatible(target, t):
                self.error(step.expr.span, f"'{'.'.join(step.target)}' holds {describe(target)}, not {describe(t)}")
            self.refs[id(step)] = self.refs.get(id(fake))
            self._keep = getattr(self, "_keep", []) + [fake]
        else:
            return None
        return ExprInfo(step.kind, step.expr, BOOL, nlocals=unit.nslots)

    def _whole_game(self, decls: list[ast.Decl]) -> None:
        where = decls[0].span if decls else None
        if not self.actions:
            self.error(where, "the game has no actions", "declare what a player can do: `action NAME { ... }`")
        if not self.game_ends and not self.has_end_game:
            self.error(where, "the game never ends",
                       "add `game ends when CONDITION`, or an `end game` statement")
        if not self.rank and self.winners is None:
            self.error(where, "the game says nothing about who wins",
                       "add `rank by lowest SCORE` or `winners are PLAYERS`")

    # ------------------------------------------------------------ statements
    def block(self, stmts: tuple[ast.Stmt, ...], scope: _Scope, unit: _Unit) -> None:
        for s in stmts:
            self.stmt(s, scope, unit)

    def stmt(self, s: ast.Stmt, scope: _Scope, unit: _Unit) -> None:
        method = getattr(self, "s_" + type(s).__name__)
        method(s, scope, unit)

    def want(self, e: ast.Expr, t: str, scope: _Scope, unit: _Unit, what: str) -> str:
        got = self.expr(e, scope, unit)
        if not compatible(t, got):
            self.error(e.span, f"{what} must be {describe(t)}, but this is {describe(got)}")
        return got

    def zone_target(self, e: ast.Expr, scope, unit, what="this") -> None:
        if isinstance(e, ast.Name) and not self._known_name(e.id, scope):
            self.error(e.span, f"unknown zone '{e.id}'", did_you_mean(e.id, self.zone_by_name))
            self.types[id(e)] = ANY
            return
        got = self.expr(e, scope, unit)
        if got not in (ZONE, ANY):
            hint = None
            if isinstance(e, ast.Name) and e.id in self.zone_by_name:
                hint = None
            elif got == "list[card]":
                hint = "only a zone can receive cards; a filtered list cannot"
            self.error(e.span, f"{what} must be a zone, but this is {describe(got)}", hint)

    def cards_arg(self, e, scope, unit, what) -> None:
        got = self.expr(e, scope, unit)
        if got not in (CARD, ZONE, "list[card]", ANY, NONE):
            self.error(e.span, f"{what} must be a card or cards, but this is {describe(got)}")

    def _known_name(self, name: str, scope: _Scope) -> bool:
        return (scope.lookup(name) is not None or name in BUILTIN_VALUES or name in self.params
                or name in self.var_by_name or name in self.zone_by_name or name in self.defines
                or name in self.scenario_players or name == "it")

    def s_Move(self, s: ast.Move, scope, unit):
        self.cards_arg(s.what, scope, unit, "what is moved")
        self.zone_target(s.to, scope, unit, "where cards move to")
        if s.at is not None:
            self.want(s.at, INT, scope, unit, "a place (`at`)")

    def s_MoveAll(self, s: ast.MoveAll, scope, unit):
        self.zone_target(s.source, scope, unit, "where cards come from")
        self.zone_target(s.to, scope, unit, "where cards move to")

    def s_Draw(self, s: ast.Draw, scope, unit):
        self.want(s.count, INT, scope, unit, "the number of cards")
        self.zone_target(s.source, scope, unit, "where cards are drawn from")
        self.zone_target(s.to, scope, unit, "where drawn cards go")

    def s_Deal(self, s: ast.Deal, scope, unit):
        self.want(s.count, INT, scope, unit, "the number of cards")
        self.zone_target(s.source, scope, unit, "where cards are dealt from")
        z = self.zone_by_name.get(s.zone)
        if z is None:
            self.error(s.zone_span, f"unknown zone '{s.zone}'", did_you_mean(s.zone, self.zone_by_name))
        elif not z.per_player:
            self.error(s.zone_span, f"`deal ... to each` needs a zone of each player; '{s.zone}' is on the table")

    def s_Shuffle(self, s: ast.Shuffle, scope, unit):
        self.zone_target(s.zone, scope, unit, "what is shuffled")

    def s_Reveal(self, s: ast.Reveal, scope, unit):
        self.cards_arg(s.what, scope, unit, "what is revealed")

    def s_ShowTo(self, s: ast.ShowTo, scope, unit):
        self.cards_arg(s.what, scope, unit, "what is shown")
        self.want(s.who, PLAYER, scope, unit, "who sees it")

    def s_Swap(self, s: ast.Swap, scope, unit):
        self.want(s.first, CARD, scope, unit, "what is swapped")
        self.want(s.second, CARD, scope, unit, "what is swapped")

    def s_Let(self, s: ast.Let, scope: _Scope, unit):
        t = self.expr(s.value, scope, unit)
        if s.type is not None:
            want = TYPE_NAMES.get(s.type)
            if want is None:
                self.error(s.type_span, f"unknown type '{s.type}'", did_you_mean(s.type, TYPE_NAMES)
                           or f"types: {', '.join(TYPE_NAMES)}")
                want = ANY
            elif not compatible(want, t):
                self.error(s.value.span, f"'{s.name}' holds {describe(want)}, not {describe(t)}")
            t = want
        elif t in (NONE, "list[any]"):
            # (an empty list's items are of no type: cards in it would be beyond determinization's reach)
            self.error(s.span, f"cannot tell what '{s.name}' will hold",
                       f"say it: `let {s.name}: cards = []` (or players, numbers)" if t != NONE
                       else f"say it: `let {s.name}: player = none` (or card, int, bool)")
            t = ANY
        if s.name in ("it", "players") or s.name in BUILTIN_VALUES or s.name in BUILTIN_FUNCS:
            self.error(s.span, f"'{s.name}' is a built-in name", "choose another name")
        if s.name in scope.names:
            self.error(s.span, f"'{s.name}' is already a local name here", "assign it with `NAME = ...`")
        slot = unit.new_slot(t)
        self.slots[id(s)] = slot
        unit.bind(scope, s.name, slot, t)

    def s_Assign(self, s: ast.Assign, scope: _Scope, unit):
        t = self.expr(s.value, scope, unit)
        target_t = self._target(s, scope, unit)
        if target_t is None:
            return
        if s.op != "=":
            if not compatible(INT, target_t) or target_t == NONE:
                self.error(s.span, f"`{s.op}` changes a number, and '{'.'.join(s.target)}' holds {describe(target_t)}")
            elif not compatible(INT, t) or t == NONE:
                self.error(s.value.span, f"`{s.op}` needs a number, but this is {describe(t)}")
            return
        if not compatible(target_t, t):
            self.error(s.value.span, f"'{'.'.join(s.target)}' holds {describe(target_t)}, not {describe(t)}")

    def _target(self, s: ast.Assign, scope: _Scope, unit) -> str | None:
        path = s.target
        if len(path) == 1:
            name = path[0]
            local = scope.lookup(name)
            if local is not None:
                self.refs[id(s)] = ("local", local[0])
                return local[1]
            if name == "direction":
                self.refs[id(s)] = ("direction",)
                return DIRECTION
            v = self.var_by_name.get(name)
            if v is not None:
                if v.per_player:
                    self.error(s.span, f"'{name}' belongs to each player", f"write `me.{name}` or `p.{name}`")
                    return None
                self.refs[id(s)] = ("counter" if v.counter else "var", v.index)
                return v.type
            if name in self.params:
                self.error(s.span, f"'{name}' is a parameter and cannot change during a game")
                return None
            self.error(s.span, f"cannot assign to '{name}': it is not a variable",
                       did_you_mean(name, scope.all_names() + list(self.var_by_name)))
            return None
        if len(path) == 2:
            owner, field = path
            obj = ast.Name(owner, span=s.span)
            ot = self.expr(obj, scope, unit)
            s_obj = obj
            v = self.var_by_name.get(field)
            if ot not in (PLAYER, ANY):
                self.error(s.span, f"only a player has fields to assign, and '{owner}' is {describe(ot)}")
                return None
            if v is None or not v.per_player:
                self.error(s.span, f"players have no counter or variable '{field}'",
                           did_you_mean(field, [x.name for x in self.counters + self.vars if x.per_player]))
                return None
            self.refs[id(s)] = ("pcounter" if v.counter else "pvar", v.index, s_obj)
            return v.type
        self.error(s.span, "only a name or a player's field can be assigned")
        return None

    def s_If(self, s: ast.If, scope, unit):
        for cond, body in s.branches:
            self.want(cond, BOOL, scope, unit, "a condition")
            self.block(body, _Scope(scope), unit)
        if s.orelse is not None:
            self.block(s.orelse, _Scope(scope), unit)

    def _binder_name(self, name: str, span: ast.Span) -> None:
        """A local name (choose, for each, a parameter) may not hide a built-in."""
        if name in ("it", "players") or name in BUILTIN_VALUES or name in BUILTIN_FUNCS:
            self.error(span, f"'{name}' is a built-in name", "choose another name")

    def s_ForEach(self, s: ast.ForEach, scope, unit):
        self._binder_name(s.name, s.span)
        t = self.expr(s.seq, scope, unit)
        if not is_list(t) and t != ANY:
            self.error(s.seq.span, f"`for each` goes through a list, not {describe(t)}")
        inner = _Scope(scope)
        slot = unit.new_slot()
        # The loop variable, the list being walked and the position in it.
        self.slots[id(s)] = (slot, unit.new_slot("list[card]" if t == ZONE else t), unit.new_slot(INT))
        unit.bind(inner, s.name, slot, elem(t) if t != ANY else ANY)
        unit.loops += 1
        self.block(s.body, inner, unit)
        unit.loops -= 1

    def s_While(self, s: ast.While, scope, unit):
        self.want(s.cond, BOOL, scope, unit, "a `while` condition")
        unit.loops += 1
        self.block(s.body, _Scope(scope), unit)
        unit.loops -= 1

    def s_Repeat(self, s: ast.Repeat, scope, unit):
        self.want(s.count, INT, scope, unit, "a repeat count")
        self.slots[id(s)] = unit.new_slot(INT)
        unit.loops += 1
        self.block(s.body, _Scope(scope), unit)
        unit.loops -= 1

    def s_Choose(self, s: ast.Choose, scope: _Scope, unit):
        self._binder_name(s.name, s.span)
        slot = unit.new_slot()
        self.slots[id(s)] = slot
        if isinstance(s.domain, ast.Where):
            t = self.where(s.domain, scope, unit, alias=(s.name, slot))
        else:
            t = self.expr(s.domain, scope, unit)
        if not is_list(t) and t != ANY:
            self.error(s.domain.span, f"`choose` picks from a list, a zone or a range, not {describe(t)}")
            t = ANY
        et = elem(t) if t != ANY else ANY
        if et not in SCALARS and et != ANY:
            self.error(s.domain.span, f"`choose` cannot pick {describe(et)}")
        if s.by is not None:
            self.want(s.by, PLAYER, scope, unit, "who chooses (`by`)")
        unit.bind(scope, s.name, slot, et)

    def s_CallStmt(self, s: ast.CallStmt, scope, unit):
        proc = self.procedures.get(s.func)
        if proc is None:
            if s.func in self.defines or s.func in BUILTIN_FUNCS:
                self.error(s.span, f"'{s.func}' gives a value; it is not a procedure to run")
            else:
                self.error(s.span, f"unknown procedure '{s.func}'", did_you_mean(s.func, self.procedures))
            for a in s.args:
                self.expr(a, scope, unit)
            return
        self._args(s, proc.params, s.args, scope, unit, f"procedure '{s.func}'")

    def _args(self, node, params, args, scope, unit, what, broadcast: bool = False) -> int | None:
        """Check arguments; with `broadcast`, one list argument for a parameter of its element type
        makes the call apply to each element. Returns the index of that argument, if any."""
        if len(args) != len(params):
            self.error(node.span, f"{what} takes {len(params)} argument(s), not {len(args)}")
        spread = None
        for i, ((pname, ptype), a) in enumerate(zip(params, args, strict=False)):
            got = self.expr(a, scope, unit)
            if compatible(ptype, got):
                continue
            if broadcast and spread is None and is_list(got) and compatible(ptype, elem(got)) and not is_list(ptype):
                spread = i
                continue
            self.error(a.span, f"argument '{pname}' of {what} must be {describe(ptype)}, but this is {describe(got)}")
        for a in args[len(params):]:
            self.expr(a, scope, unit)
        return spread

    def s_End(self, s: ast.End, scope, unit):
        if s.what not in ("turn", "round", "game"):
            self.error(s.span, f"`end {s.what}`: say `end turn`, `end round` or `end game`")
        if s.what == "game":
            self.has_end_game = True
        if unit.kind in ("round end", "game end") and s.what != "game":
            self.error(s.span, f"`end {s.what}` cannot be used in `{unit.kind}`")

    def s_ReverseDirection(self, s, scope, unit):
        pass

    def s_NextPlayer(self, s: ast.NextPlayer, scope, unit):
        self.want(s.player, PLAYER, scope, unit, "the next player")

    def s_ContinueFrom(self, s: ast.ContinueFrom, scope, unit):
        self.want(s.player, PLAYER, scope, unit, "`continue from`")

    def s_Say(self, s: ast.Say, scope, unit):
        for part in s.text.parts:
            if isinstance(part, ast.Expr):
                self.expr(part, scope, unit)

    def s_Break(self, s, scope, unit):
        if not unit.loops:
            self.error(s.span, "`break` outside a loop")

    def s_Return(self, s, scope, unit):
        pass

    # ------------------------------------------------------------ expressions
    def expr(self, e: ast.Expr, scope: _Scope, unit: _Unit, in_game: bool = True) -> str:
        if self.depth >= MAX_NESTING:  # (the parser bounds one rule; defines chain rules together)
            self.types[id(e)] = ANY
            return self.fail(e.span, f"this nests too deeply through defines (more than {MAX_NESTING} levels)",
                             "a define used here is defined through a long chain of others: shorten it")
        self.depth += 1
        try:
            t = getattr(self, "e_" + type(e).__name__)(e, scope, unit)
        finally:
            self.depth -= 1
        self.types[id(e)] = t
        return t

    def e_IntLit(self, e, scope, unit):
        return INT

    def e_StrLit(self, e, scope, unit):
        return STR

    def e_BoolLit(self, e, scope, unit):
        return BOOL

    def e_NoneLit(self, e, scope, unit):
        return NONE

    def e_Name(self, e: ast.Name, scope: _Scope, unit):
        name = e.id
        local = scope.lookup(name)
        if local is not None:
            self.refs[id(e)] = ("local", local[0])
            return local[1]
        if name in self.scenario_players:
            self.refs[id(e)] = ("const", self.scenario_players[name])
            return PLAYER
        if name == "it":
            return self.fail(e.span, "`it` is only defined inside `where` (and in `rank by`)")
        if name in BUILTIN_VALUES:
            self.refs[id(e)] = ("builtin", name)
            return BUILTIN_VALUES[name]
        if name in self.params:
            value = self.params[name].value
            self.refs[id(e)] = ("const", value)
            return _kind_of_value(value)
        v = self.var_by_name.get(name)
        z = self.zone_by_name.get(name)
        if unit.kind == "init" and (v is not None or z is not None):  # (the compiler has no state to read)
            return self.fail(e.span, "an initial value must not depend on the game in progress",
                             "start with a plain value and set it in `setup`")
        if v is not None:
            if v.per_player:
                return self.fail(e.span, f"'{name}' belongs to each player", f"write `me.{name}` or `p.{name}`")
            self.refs[id(e)] = ("counter" if v.counter else "var", v.index)
            return v.type if v.type != "?" else ANY
        if z is not None:
            if z.per_player:
                return self.fail(e.span, f"each player has a '{name}'", f"write `me.{name}` or `p.{name}`")
            self.refs[id(e)] = ("zone", z.index)
            return ZONE
        d = self.defines.get(name)
        if d is not None:
            if d.params:
                return self.fail(e.span, f"'{name}' takes arguments", f"write `{name}(...)`")
            self.refs[id(e)] = ("define", name)
            return self._check_define(d)
        if name in self.procedures:
            return self.fail(e.span, f"procedure '{name}' is not a value", f"run it as a statement: `{name}(...)`")
        if name in self.kind_by_name:
            return self.fail(e.span, f"'{name}' is a kind of card, not a value", f"test a card with `c is {name}`")
        if name in self.attr_types:
            return self.fail(e.span, f"'{name}' is a card attribute", f"write `it.{name}` or `c.{name}`")
        candidates = scope.all_names() + list(BUILTIN_VALUES) + list(self.params) + list(self.var_by_name) + list(
            self.zone_by_name) + list(self.defines)
        return self.fail(e.span, f"unknown name '{name}'", did_you_mean(name, candidates))

    def e_PlayersExpr(self, e: ast.PlayersExpr, scope, unit):
        if e.start is not None:
            self.want(e.start, PLAYER, scope, unit, "`players from`")
        return "list[player]"

    def e_ListLit(self, e: ast.ListLit, scope, unit):
        t = ANY
        for item in e.items:
            it = self.expr(item, scope, unit)
            u = unify(t, it)
            if u is None:
                self.error(item.span, f"a list mixes {describe(t)} and {describe(it)}")
            else:
                t = u
        if is_list(t) or t == ZONE:
            return self.fail(e.span, "lists of lists are not supported")
        return list_of(t)

    def e_Attr(self, e: ast.Attr, scope, unit):
        t = self.expr(e.obj, scope, unit)
        if t == ANY:
            return ANY
        if t in (PLAYER, NONE):
            return self._player_attr(e)
        if t == CARD:
            return self._card_attr(e)
        if t in (ZONE, "list[card]"):
            at = self._card_attr(e)
            return list_of(at) if at != ANY else ANY
        if t == "list[player]":
            at = self._player_attr(e)
            if at == ZONE:
                return "list[card]"  # the cards of all their zones of that name
            if is_list(at):
                return self.fail(e.name_span, f"'{e.name}' of several players at once is not supported")
            return list_of(at) if at != ANY else ANY
        return self.fail(e.name_span, f"{describe(t)} has no attribute '{e.name}'")

    def _player_attr(self, e: ast.Attr) -> str:
        if e.name in PLAYER_BUILTIN_ATTRS:
            return PLAYER_BUILTIN_ATTRS[e.name]
        z = self.zone_by_name.get(e.name)
        if z is not None and z.per_player:
            return ZONE
        v = self.var_by_name.get(e.name)
        if v is not None and v.per_player:
            return v.type if v.type != "?" else ANY
        fields = [z.name for z in self.zones if z.per_player] + [
            v.name for v in self.counters + self.vars if v.per_player] + list(PLAYER_BUILTIN_ATTRS)
        return self.fail(e.name_span, f"players have no zone, counter or variable '{e.name}'",
                         did_you_mean(e.name, fields) or (f"a player has: {', '.join(fields)}" if fields else None))

    def _card_attr(self, e: ast.Attr) -> str:
        if e.name in CARD_BUILTIN_ATTRS:
            return CARD_BUILTIN_ATTRS[e.name]
        if e.name in self.attr_types:
            return self.attr_types[e.name]
        known = list(self.attr_types) + list(CARD_BUILTIN_ATTRS)
        return self.fail(e.name_span, f"unknown attribute '{e.name}' of a card",
                         did_you_mean(e.name, known) or f"cards have: {', '.join(known)}")

    def e_Call(self, e: ast.Call, scope, unit):
        d = self.defines.get(e.func)
        if d is not None:
            if not d.params and e.args:
                return self.fail(e.span, f"'{e.func}' takes no arguments")
            spread = self._args(e, d.params, e.args, scope, unit, f"'{e.func}'", broadcast=True)
            self.refs[id(e)] = ("define", e.func, spread)
            t = self._check_define(d)
            if spread is not None:
                return list_of(t) if t not in (ANY,) and not is_list(t) else ANY
            return t
        if e.func in self.procedures:
            return self.fail(e.span, f"procedure '{e.func}' does not give a value", "run it as a statement")
        if e.func not in BUILTIN_FUNCS:
            return self.fail(e.span, f"unknown function '{e.func}'",
                             did_you_mean(e.func, list(BUILTIN_FUNCS) + list(self.defines)))
        lo, hi = BUILTIN_FUNCS[e.func]
        if not lo <= len(e.args) <= hi:
            n = f"{lo}" if lo == hi else f"{lo} or {hi}"
            return self.fail(e.span, f"{e.func}() takes {n} argument(s), not {len(e.args)}")
        args = [self.expr(a, scope, unit) for a in e.args]
        return self._builtin(e, args)

    def _builtin(self, e: ast.Call, args: list[str]) -> str:
        f = e.func
        a = args[0]

        def need_list(what="a list"):
            if not is_list(a) and a != ANY:
                self.error(e.args[0].span, f"{f}() needs {what}, not {describe(a)}")
                return False
            return True

        if f in ("count", "any", "empty"):
            need_list()
            return INT if f == "count" else BOOL
        if f == "sum":
            if need_list("a list of numbers") and a != ANY and elem(a) not in (INT, ANY):
                self.error(e.args[0].span, f"sum() adds numbers, not {describe(elem(a))}")
            return INT
        if f in ("min", "max"):
            if len(args) == 2:
                for x, arg in zip(args, e.args, strict=True):
                    if not compatible(INT, x):
                        self.error(arg.span, f"{f}() compares numbers, not {describe(x)}")
                return INT
            if need_list("a list of numbers") and a != ANY and elem(a) not in (INT, ANY):
                self.error(e.args[0].span, f"{f}() needs numbers, not {describe(elem(a))}")
            return INT
        if f in ("top", "bottom", "first", "last", "random"):
            return elem(a) if need_list() else ANY
        if f in ("distinct", "sorted"):
            return (list_of(elem(a)) if a != ANY else ANY) if need_list() else ANY
        if f in ("next", "previous"):
            if not compatible(PLAYER, a):
                self.error(e.args[0].span, f"{f}() needs a player, not {describe(a)}")
            return PLAYER
        if f == "abs":
            if not compatible(INT, a):
                self.error(e.args[0].span, f"abs() needs a number, not {describe(a)}")
            return INT
        if f == "knows":
            if not compatible(PLAYER, a):
                self.error(e.args[0].span, f"knows() needs a player first, not {describe(a)}")
            if not compatible(CARD, args[1]):
                self.error(e.args[1].span, f"knows() needs a card second, not {describe(args[1])}")
            return BOOL
        if f in ("owner", "place", "zone_of"):
            if not compatible(CARD, a):
                self.error(e.args[0].span, f"{f}() needs a card, not {describe(a)}")
            return {"owner": PLAYER, "place": INT, "zone_of": STR}[f]
        raise AssertionError(f)

    def e_Unary(self, e: ast.Unary, scope, unit):
        if e.op == "not":
            self.want(e.operand, BOOL, scope, unit, "the operand of `not`")
            return BOOL
        self.want(e.operand, INT, scope, unit, "the operand of '-'")
        return INT

    def e_Binary(self, e: ast.Binary, scope, unit):
        op = e.op
        if op in ("and", "or"):
            self.want(e.left, BOOL, scope, unit, f"each side of `{op}`")
            self.want(e.right, BOOL, scope, unit, f"each side of `{op}`")
            return BOOL
        lt = self.expr(e.left, scope, unit)
        rt = self.expr(e.right, scope, unit)
        if op == "in":
            if not is_list(rt) and rt != ANY:
                return self.fail(e.right.span, f"`in` looks in a list, not in {describe(rt)}")
            if rt != ANY and not compatible(elem(rt), lt) and lt != NONE:
                return self.fail(e.span, f"looking for {describe(lt)} in {describe(rt)}")
            return BOOL
        if op in ("==", "!="):
            if unify(lt, rt) is None:
                return self.fail(e.span, f"cannot compare {describe(lt)} with {describe(rt)}")
            return BOOL
        if op in ("<", "<=", ">", ">="):
            if not (compatible(INT, lt) and compatible(INT, rt)) and not (lt == rt == STR):
                return self.fail(e.span, f"`{op}` compares numbers, not {describe(lt)} and {describe(rt)}")
            return BOOL
        if op == "+" and is_list(lt) and is_list(rt):
            u = unify(lt, rt)
            if u is None:
                return self.fail(e.span, f"cannot join {describe(lt)} and {describe(rt)}")
            return "list[card]" if u == ZONE else u
        for side, t in ((e.left, lt), (e.right, rt)):
            if not compatible(INT, t) or t == NONE:
                self.error(side.span, f"'{op}' works on numbers, but this is {describe(t)}")
        return INT

    def e_IsKind(self, e: ast.IsKind, scope, unit):
        t = self.expr(e.operand, scope, unit)
        if not compatible(CARD, t):
            self.error(e.operand.span, f"`is` tests the kind of a card, and this is {describe(t)}")
        if e.kind not in self.kind_by_name:
            self.error(e.kind_span, f"unknown card kind '{e.kind}'", did_you_mean(e.kind, self.kind_by_name))
        return BOOL

    def e_Range(self, e: ast.Range, scope, unit):
        self.want(e.low, INT, scope, unit, "the start of a range")
        self.want(e.high, INT, scope, unit, "the end of a range")
        return "list[int]"

    def e_Where(self, e: ast.Where, scope, unit):
        return self.where(e, scope, unit)

    def where(self, e: ast.Where, scope: _Scope, unit: _Unit, alias: tuple[str, int] | None = None) -> str:
        t = self.expr(e.seq, scope, unit)
        if not is_list(t) and t != ANY:
            self.error(e.seq.span, f"`where` filters a list or a zone, not {describe(t)}")
            t = ANY
        slot = alias[1] if alias else unit.new_slot()
        self.slots[id(e)] = slot
        inner = _Scope(scope)
        et = elem(t) if t != ANY else ANY
        unit.bind(inner, "it", slot, et)
        if alias:
            unit.bind(inner, alias[0], slot, et)
        self.want(e.cond, BOOL, inner, unit, "a `where` condition")
        out = "list[card]" if t == ZONE else t
        self.types[id(e)] = out
        return out

    def e_Match(self, e: ast.Match, scope, unit):
        t = self.expr(e.subject, scope, unit)
        out = ANY
        seen = set()
        for value, result in e.cases:
            vt = _kind_of_value(value)
            if unify(t, vt) is None:
                self.error(result.span, f"`match` compares {describe(t)} with {describe(vt)} ({value!r})")
            if value in seen:
                self.error(result.span, f"`match` has the case {value!r} twice")
            seen.add(value)
            out = self._unify_branch(out, self.expr(result, scope, unit), result)
        if e.default is not None:
            out = self._unify_branch(out, self.expr(e.default, scope, unit), e.default)
        return out

    def _unify_branch(self, acc: str, t: str, node: ast.Expr) -> str:
        u = unify(acc, t)
        if u is None:
            self.error(node.span, f"the cases of `match` give {describe(acc)} and {describe(t)}")
            return acc
        return u

    def e_IfExpr(self, e: ast.IfExpr, scope, unit):
        self.want(e.cond, BOOL, scope, unit, "the condition of `if`")
        a = self.expr(e.then, scope, unit)
        b = self.expr(e.orelse, scope, unit)
        u = unify(a, b)
        if u is None:
            return self.fail(e.span, f"the two branches give {describe(a)} and {describe(b)}")
        return u


def _kind_of_value(v: object) -> str:
    if isinstance(v, bool):
        return BOOL
    if isinstance(v, int):
        return INT
    return STR


def _kind_of(v: object) -> str:
    return {BOOL: "yes or no", INT: "a whole number", STR: "a text"}[_kind_of_value(v)]


def coerce_param(raw: object, default: object) -> int | bool | str | None:
    """A --set value (text or Python value) as the parameter's type, or None if it cannot be."""
    if isinstance(default, bool):
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        return {"yes": True, "true": True, "1": True, "no": False, "false": False, "0": False}.get(text)
    if isinstance(default, int):
        if isinstance(raw, bool):
            return None
        if isinstance(raw, int):
            return raw
        try:
            return int(str(raw).strip())
        except ValueError:
            return None
    return str(raw)


class _TooMany(Exception):
    """More errors than RulesError shows: checking stops."""


def check(files: list[ast.RulesFile], players: int | None = None, params: dict[str, object] | None = None) -> Program:
    """Check parsed files (a game and what it imports). Raises RulesError with every error (up to
    errors.MAX_ERRORS, then a note)."""
    checker = Checker(files, players, params)
    try:
        return checker.run()
    except _TooMany:
        raise RulesError(checker.diags, checker.sources) from None
