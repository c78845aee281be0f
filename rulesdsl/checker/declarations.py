"""The game's names: its header (name, players, parameters), card kinds, zones, cards, counters and
variables, and the names of its defines and procedures, collected before any body is checked so
that a body may use a name declared after it."""

from __future__ import annotations

from collections.abc import Iterable

from .. import ast
from ..errors import did_you_mean
from .base import CheckerBase
from .program import CardInfo, CodeInfo, ExprInfo, KindInfo, ParamInfo, VarInfo, ZoneInfo
from .types import (
    ANY,
    CARD_BUILTIN_ATTRS,
    INT,
    coerce_param,
    describe,
    describe_param_type,
    type_of_value,
)

SHAPES = ("stack", "hand", "grid")
VISIBILITIES = ("public", "hidden", "private", "others")
MAX_CARDS = 10_000


class Declarations(CheckerBase):
    """Collects the game's names and checks each declaration on its own; fills the tables the
    other parts read (params, zones, kinds, variables, defines, procedures)."""

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
        for d in self._once_each(decls, "parameter"):
            if self._reject_builtin(d.name, d.span):
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
                self.error(None, f"parameter {name}={raw}: expected {describe_param_type(info.default)}")
                continue
            if info.low is not None and not info.low <= value <= info.high:
                self.error(None, f"parameter {name}={raw}: out of range {info.low}..{info.high}")
                continue
            info.value = value

    def _kinds(self, decls: list[ast.CardKind]) -> None:
        self.kinds: list[KindInfo] = []
        self.kind_by_name: dict[str, KindInfo] = {}
        for d in self._once_each(decls, "card kind"):
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
        for d in self._once_each(decls, "zone"):
            if self._reject_builtin(d.name, d.span) or d.name in self.params:
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
                               or "a zone is a stack, hand or grid; public, hidden, private or others")
            shape = shape or "stack"
            if vis is None:
                vis = "private" if d.per_player and shape == "hand" else "hidden"
            if vis in ("private", "others") and not d.per_player:
                self.error(d.span, f"zone '{d.name}' is {vis} but has no owner", "write `zone NAME per player: ...`")
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
                    t = type_of_value(v)
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
                typ = self._type_named(d.type, d.type_span) or ANY
            else:
                typ = None  # inferred from the initial value
            group = self.counters if counter else self.vars
            v = VarInfo(len(group), d.name, typ or ANY, d.per_player, counter, d.init, d.span,
                        not counter and d.secret)
            if typ is None:
                v.type = "?"
            group.append(v)
            self.var_by_name[d.name] = v
            self.global_names[d.name] = d.span

    def _taken(self, name: str, span: ast.Span) -> bool:
        if self._reject_builtin(name, span):
            return True
        if name in self.global_names:
            prev = self.global_names[name]
            self.error(span, f"'{name}' is already declared", f"first declared at {prev}" if prev.line else None)
            return True
        return False

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
            self._reject_builtin(p.name, p.span)
            out.append((p.name, self._type_named(p.type, p.span) or ANY))
        return tuple(out)

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
                    shown = self._define_decls[n.id].body if plain_define else ast.Name(n.id, span=n.span)
                    read = self.secret_vars_read(shown)
                    if read:
                        self.show_secrets[n.id] = tuple(sorted(read))
                else:
                    self.error(n.span, f"`show` lists values without parameters; '{n.id}' is not one",
                               did_you_mean(n.id, list(self.defines) + list(self.var_by_name)))
        return out
