"""Statements: what each one needs of its parts (a zone to move cards to, a number of cards, a
condition), the locals it binds, and what an assignment may change."""

from __future__ import annotations

from .. import ast
from ..errors import did_you_mean
from .base import CheckerBase, Scope, Unit
from .types import (
    ANY,
    BOOL,
    BUILTIN_FUNCS,
    BUILTIN_VALUES,
    CARD,
    DIRECTION,
    INT,
    NONE,
    PLAYER,
    SCALARS,
    ZONE,
    compatible,
    describe,
    elem,
    is_list,
)


class Statements(CheckerBase):
    """Checks one statement at a time (s_ + its node's class name), binding the locals it declares."""

    def block(self, stmts: tuple[ast.Stmt, ...], scope: Scope, unit: Unit) -> None:
        for s in stmts:
            self.stmt(s, scope, unit)

    def stmt(self, s: ast.Stmt, scope: Scope, unit: Unit) -> None:
        method = getattr(self, "s_" + type(s).__name__)
        method(s, scope, unit)

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

    def _known_name(self, name: str, scope: Scope) -> bool:
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

    def s_Let(self, s: ast.Let, scope: Scope, unit):
        t = self.expr(s.value, scope, unit)
        if s.type is not None:
            want = self._type_named(s.type, s.type_span)
            if want is None:
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
        self._reject_builtin(s.name, s.span)
        if s.name in scope.names:
            self.error(s.span, f"'{s.name}' is already a local name here", "assign it with `NAME = ...`")
        slot = unit.new_slot(t)
        self.slots[id(s)] = slot
        unit.bind(scope, s.name, slot, t)

    def s_Assign(self, s: ast.Assign, scope: Scope, unit):
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

    def _target(self, s: ast.Assign, scope: Scope, unit) -> str | None:
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
            self.block(body, Scope(scope), unit)
        if s.orelse is not None:
            self.block(s.orelse, Scope(scope), unit)

    def s_ForEach(self, s: ast.ForEach, scope, unit):
        self._reject_builtin(s.name, s.span)
        t = self.expr(s.seq, scope, unit)
        if not is_list(t) and t != ANY:
            self.error(s.seq.span, f"`for each` goes through a list, not {describe(t)}")
        inner = Scope(scope)
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
        self.block(s.body, Scope(scope), unit)
        unit.loops -= 1

    def s_Repeat(self, s: ast.Repeat, scope, unit):
        self.want(s.count, INT, scope, unit, "a repeat count")
        self.slots[id(s)] = unit.new_slot(INT)
        unit.loops += 1
        self.block(s.body, Scope(scope), unit)
        unit.loops -= 1

    def s_Choose(self, s: ast.Choose, scope: Scope, unit):
        self._reject_builtin(s.name, s.span)
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
        # The labels' values are worked out as the question is asked: before NAME has one.
        for text in (s.label_text, s.pass_text):
            if text is not None:
                self._template(text, scope, unit)
        self.warnings.extend(s.warnings)
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
        self._template(s.text, scope, unit)

    def _template(self, text: ast.Template, scope, unit) -> None:
        for part in text.parts:
            if isinstance(part, ast.Expr):
                self.expr(part, scope, unit)

    def s_Break(self, s, scope, unit):
        if not unit.loops:
            self.error(s.span, "`break` outside a loop")

    def s_Return(self, s, scope, unit):
        pass
