"""Statements: what each one needs of its parts (a zone to move cards to, a number of cards, a
condition), the locals it binds, and what an assignment may change."""

from __future__ import annotations

from .. import ast
from ..errors import did_you_mean
from .base import CheckerBase, Scope, Unit
from .expressions import _nodes
from .program import VarInfo
from .types import (
    ANY,
    BOOL,
    BUILTIN_FUNCS,
    BUILTIN_VALUES,
    CARD,
    CARD_BUILTIN_ATTRS,
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

# What a secret block may hold: nothing that shows anything or changes the cards.
_IN_SECRET = (ast.Choose, ast.Let, ast.If, ast.ForEach, ast.Assign, ast.Break)
_WORDS = {"Move": "`move`", "MoveAll": "`move all`", "Draw": "`draw`", "Deal": "`deal`", "Shuffle": "`shuffle`",
          "Reveal": "`reveal`", "ShowTo": "`show ... to`", "Swap": "`swap`", "While": "`while`",
          "Repeat": "`repeat`", "CallStmt": "a procedure's call", "End": "`end`",
          "ReverseDirection": "`reverse direction`", "NextPlayer": "`next player is`",
          "ContinueFrom": "`continue from`", "Say": "`say`", "Return": "`return`",
          "Secretly": "a secret block (`secretly`, `simultaneously`)", "Race": "a race"}


def _chooser_key(s: ast.Choose) -> object:
    """Who a choose asks, as far as its text says: the turn's player (no `by`), a name, or an
    expression of its own (never the same as another's)."""
    if s.by is None:
        return "me"
    return ("name", s.by.id) if isinstance(s.by, ast.Name) else id(s)


class Statements(CheckerBase):
    """Checks one statement at a time (s_ + its node's class name), binding the locals it declares."""

    def block(self, stmts: tuple[ast.Stmt, ...], scope: Scope, unit: Unit) -> None:
        for s in stmts:
            self.stmt(s, scope, unit)

    def stmt(self, s: ast.Stmt, scope: Scope, unit: Unit) -> None:
        if self.secret_ctx is not None and not isinstance(s, _IN_SECRET):
            self._not_in_secret(s)
        method = getattr(self, "s_" + type(s).__name__)
        method(s, scope, unit)

    def _not_in_secret(self, s: ast.Stmt) -> None:
        what = _WORDS.get(type(s).__name__, "this statement")
        if isinstance(s, (ast.Secretly, ast.Race)):
            self.error(s.span, f"{what} cannot stand inside a secret block",
                       "one secret block at a time: put it after this one")
            return
        self.error(s.span, f"{what} cannot stand in a secret block",
                   "a secret block holds `choose`, `let`, `if`, `for each` and assignments of answers to `secret` "
                   "variables: anything else would show an answer, or let a later seat's options depend on it; "
                   "do it after the block")

    def s_Secretly(self, s: ast.Secretly, scope, unit):
        if self.in_race:
            self.error(s.span, "a secret block cannot stand in a race's statements",
                       "a race's own `may choose` is already secret")
        self._secret_block(s, s.body, s.seat, scope, unit)

    def _secret_block(self, s: ast.Stmt, body: tuple, seat: str | None, scope, unit) -> tuple[int, ...]:
        """Check a secret block's statements; returns (and records) the slots it binds, which are
        set to none as it ends, so no frame keeps an answer past its seat's turn."""
        outer = self.secret_ctx
        if outer is None:
            self.secret_ctx = (s.span, seat, unit.loops)
        first = unit.nslots
        self.block(body, Scope(scope), unit)
        self.secret_ctx = outer
        self.secret_clears[id(s)] = slots = tuple(range(first, unit.nslots))
        return slots

    def s_Race(self, s: ast.Race, scope, unit):
        if self.in_race:
            self.error(s.span, "a race cannot stand in another race's statements")
        t = self.expr(s.seq, scope, unit)
        if t not in ("list[player]", ANY):
            self.error(s.seq.span, f"a race goes through a list of players, not {describe(t)}")
        self._reject_builtin(s.name, s.span)
        inner = Scope(scope)
        seat = unit.new_slot(PLAYER)
        unit.bind(inner, s.name, seat, PLAYER)
        first = s.body[0] if s.body else None
        if not (isinstance(first, ast.Choose) and not isinstance(first, ast.ChooseSet) and first.optional
                and isinstance(first.by, ast.Name)
                and first.by.id == s.name):
            self.error(first.span if first is not None else s.span,
                       f"a race begins with `may choose NAME in ... by {s.name}`: each seat may act, or pass",
                       f"e.g. `race for each {s.name} in players {{ may choose c in {s.name}.hand as \"slap\" ...`")
            self.block(s.body, inner, unit)
            return
        # The leading choose is answered in secret (its own slots cleared in the first phase).
        outer = self.secret_ctx
        self.secret_ctx = (s.span, s.name, unit.loops)
        self.s_Choose(first, inner, unit)
        self.secret_ctx = outer
        answer = self.slots[id(first)]
        et = inner.lookup(first.name)[1]
        cell = et if et in (CARD, PLAYER) else ANY  # (none until a seat acts)
        hidden = VarInfo(0, f"(race at {s.span.line}:{s.span.column})", cell, True, False,
                         ast.NoneLit(span=s.span), s.span, True)
        self.race_vars.append(hidden)
        self.races[id(s)] = (hidden, seat, unit.new_slot("list[player]"), unit.new_slot(INT),
                             unit.new_slot("list[player]"), answer)
        self.in_race += 1
        unit.loops += 1  # (`break` ends the race)
        self.block(s.body[1:], inner, unit)
        unit.loops -= 1
        self.in_race -= 1

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
        if not self._show_attr(s, scope, unit):
            self._reveal(s, scope, unit, "revealed")

    def s_ShowTo(self, s: ast.ShowTo, scope, unit):
        if not self._show_attr(s, scope, unit):
            self._reveal(s, scope, unit, "shown")
        self.want(s.who, PLAYER, scope, unit, "who sees it")

    def _show_attr(self, s: ast.ShowTo | ast.Reveal, scope, unit) -> bool:
        """`show CARDS.attr to P` (partial knowledge): P learns one attribute of each card, not its
        face (`reveal CARDS.attr`: everyone does). False if `s.what` is not an attribute of a card
        or cards (a face or a secret value)."""
        e = s.what
        if not isinstance(e, ast.Attr):
            return False
        t = self.expr(e.obj, scope, unit)
        if t not in (CARD, ZONE, "list[card]"):
            return t == ANY  # (an error said already, or of no known type: nothing more to say)
        if e.name not in self.attr_types and e.name not in CARD_BUILTIN_ATTRS:
            have = [*self.attr_types, *CARD_BUILTIN_ATTRS]
            self.error(e.name_span, f"cards have no attribute '{e.name}' to show",
                       did_you_mean(e.name, have) or f"cards have: {', '.join(have)}")
        else:
            self.partial_shows[id(s)] = e.name
        return True

    def _reveal(self, s, scope, unit, what: str) -> None:
        """A card or cards (everyone, or one seat, learns them), or a `secret` variable's value."""
        t = self.expr(s.what, scope, unit)
        ref = self._secret_var(s.what)
        if ref is not None:
            self.secret_reveals[id(s)] = ref
        elif not self._public_value(s.what, t, what) and t not in (CARD, ZONE, "list[card]", ANY, NONE):
            self.error(s.what.span, f"what is {what} must be a card or cards, but this is {describe(t)}")

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
        if self.secret_ctx is not None and self._answers_read(s.value, unit):
            self.secret_taint[(id(unit), slot)] = self._answers_read(s.value, unit)

    def s_Assign(self, s: ast.Assign, scope: Scope, unit):
        t = self.expr(s.value, scope, unit)
        target_t = self._target(s, scope, unit)
        if target_t is None:
            return
        if self.secret_ctx is not None:
            self._secret_assign(s, unit)
        if s.op != "=":
            if not compatible(INT, target_t) or target_t == NONE:
                self.error(s.span, f"`{s.op}` changes a number, and '{'.'.join(s.target)}' holds {describe(target_t)}")
            elif not compatible(INT, t) or t == NONE:
                self.error(s.value.span, f"`{s.op}` needs a number, but this is {describe(t)}")
            return
        if not compatible(target_t, t):
            self.error(s.value.span, f"'{'.'.join(s.target)}' holds {describe(target_t)}, not {describe(t)}")

    def _secret_assign(self, s: ast.Assign, unit) -> None:
        """In a secret block, only a secret variable may be set, and only to a secret choose's
        answer as it is (its name): it is then known to that choose's chooser alone."""
        ref = self.refs[id(s)]
        name = ".".join(s.target)
        if ref[0] not in ("var", "pvar") or not self.vars[ref[1]].secret:
            hint = "declare the variable `secret`" if ref[0] in ("var", "pvar", "counter", "pcounter") \
                else "bind a new name with `let`"
            self.error(s.span, f"'{name}' cannot be set in a secret block: others would see it", hint)
            return
        value = self.refs.get(id(s.value), ("",)) if isinstance(s.value, ast.Name) else ("",)
        chosen = self.secret_names.get((id(unit), value[1])) if value[0] == "local" and s.op == "=" else None
        if chosen is None:
            self.error(s.span, f"in a secret block, '{name}' is given a secret choose's answer as it is",
                       f"write `{name} = NAME` for the name a `choose` in this block binds; work out other "
                       "values after the block")
            return
        self.secret_assigns[id(s)] = chosen

    def _secret_var(self, e: ast.Expr) -> tuple | None:
        """The reference of a `secret` variable `e` names as a whole (`bid`, `p.bid`), else None."""
        if isinstance(e, ast.Name):
            ref = self.refs.get(id(e), ("",))
            if ref[0] == "var" and self.vars[ref[1]].secret:
                return ref
        elif isinstance(e, ast.Attr) and self.types.get(id(e.obj)) in (PLAYER, NONE):
            v = self.var_by_name.get(e.name)
            if v is not None and not v.counter and v.per_player and v.secret:
                return ("pvar", v.index, e.obj)
        return None

    def _public_value(self, e: ast.Expr, t: str, what: str) -> bool:
        """`reveal`/`show ... to` of a variable that is not secret: everyone knows it already."""
        if t in (CARD, ZONE, "list[card]", ANY, NONE):
            return False
        name = e.id if isinstance(e, ast.Name) else e.name if isinstance(e, ast.Attr) else None
        v = self.var_by_name.get(name) if name is not None else None
        if v is None:
            return False
        if v.secret:
            self.error(e.span, f"one secret value is {what} at a time",
                       f"write `for each p in players {{ reveal p.{name} }}`")
            return True
        self.error(e.span, f"'{name}' is not secret: everyone knows its value already, so it cannot be {what}",
                   f"declare it `var {name}: ... secret` to keep what a secret choose stores in it hidden")
        return True

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
            self._asked_anyway(cond, (body, s.orelse, *(b for _, b in s.branches)), unit)
            self.block(body, Scope(scope), unit)
        if s.orelse is not None:
            self.block(s.orelse, Scope(scope), unit)

    def _answers_read(self, e: ast.Expr, unit) -> frozenset:
        """Whose secret answers (their choosers' keys, see _chooser_key) expression `e` reads,
        through the names secret chooses bind and the `let`s made of them."""
        keys: frozenset = frozenset()
        if not self.secret_taint:
            return keys
        for node in _nodes(e):
            if isinstance(node, ast.Name):
                ref = self.refs.get(id(node), ("",))
                if ref[0] == "local":
                    keys |= self.secret_taint.get((id(unit), ref[1]), frozenset())
        return keys

    def _asked_anyway(self, test: ast.Expr, bodies: tuple, unit) -> None:
        """In a secret block, whether a question is asked (and of whom) must not depend on a secret
        answer: the others would learn it from who is asked."""
        if self.secret_ctx is None or not self._answers_read(test, unit):
            return
        if any(isinstance(x, ast.Choose) for x in _nodes(tuple(body for body in bodies if body))):
            self.error(test.span, "whether a question is asked here depends on a secret answer",
                       "the others would learn the answer from who is asked: ask every question always (a "
                       "`may choose` may pass), and use the answers after the block")

    def s_ForEach(self, s: ast.ForEach, scope, unit):
        self._reject_builtin(s.name, s.span)
        t = self.expr(s.seq, scope, unit)
        if not is_list(t) and t != ANY:
            self.error(s.seq.span, f"`for each` goes through a list, not {describe(t)}")
        elif s.body and isinstance(s.body[0], ast.Secretly) and s.body[0].seat == s.name and t not in (
                "list[player]", ANY):
            self.error(s.seq.span, f"`simultaneously` goes through a list of players, not {describe(t)}")
        self._asked_anyway(s.seq, (s.body,), unit)
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
        self._asker(s, scope, unit)
        unit.bind(scope, s.name, slot, et)
        if self.secret_ctx is not None:
            self._secret_choose(s, slot, et, unit)

    def s_ChooseSet(self, s: ast.ChooseSet, scope: Scope, unit):
        """`choose set`: cards from a list of cards; a size that can be met; a yes/no test of the
        whole set that changes nothing (it is tried on many sets before anyone answers)."""
        self._reject_builtin(s.name, s.span)
        if self.secret_ctx is not None or self.in_race:
            self.error(s.span, "`choose set` cannot stand in a secret block or a race",
                       "choose the set after the block, or choose its cards one by one")
        slot = unit.new_slot("list[card]")
        self.slots[id(s)] = slot
        t = self.expr(s.domain, scope, unit)
        if t not in (ZONE, "list[card]", ANY):
            self.error(s.domain.span, f"`choose set` picks cards from a zone or a list of cards, not {describe(t)}")
        known = []
        for x in s.size or ():
            self.want(x, INT, scope, unit, "a set's size")
            known.append(ast.whole_number(x))
        if any(k is not None and k < 1 for k in known):
            bad = next(x for x, k in zip(s.size, known, strict=True) if k is not None and k < 1)
            self.error(bad.span, f"a set's size is at least 1, not {ast.whole_number(bad)}",
                       "a set that may be empty is a `may choose set` (a pass gives [])")
        elif len(known) == 2 and None not in known and known[0] > known[1]:
            self.error(s.size[0].span, f"the size range {known[0]}..{known[1]} cannot be met",
                       f"write the smaller size first: {known[1]}..{known[0]}")
        if s.cond is not None:
            inner = Scope(scope)
            unit.bind(inner, s.name, slot, "list[card]")
            self.want(s.cond, BOOL, inner, unit, "a set's condition (`with`)")
            for x in _nodes((s.cond,)):
                if isinstance(x, ast.Call) and x.func == "random" and x.func not in self.defines:
                    self.error(x.span, "a set's condition cannot draw at random",
                               "it is tried on many sets before anyone answers; draw before the `choose set`")
        self._asker(s, scope, unit)
        unit.bind(scope, s.name, slot, "list[card]")

    def _asker(self, s: ast.Choose, scope: Scope, unit) -> None:
        """Who a choose asks, and its labels, whose values are worked out as the question is
        asked: before NAME has one."""
        if s.by is not None:
            self.want(s.by, PLAYER, scope, unit, "who chooses (`by`)")
        for text in (s.label_text, s.pass_text):
            if text is not None:
                self._template(text, scope, unit)
        self.warnings.extend(s.warnings)

    def _secret_choose(self, s: ast.Choose, slot: int, et: str, unit) -> None:
        """A choose in a secret block: by the block's seat, if it has one; asked of a seat that no
        secret answer decides, among options that only its own earlier answers may shape."""
        _, seat, _ = self.secret_ctx
        if seat is not None and not (isinstance(s.by, ast.Name) and s.by.id == seat):
            self.error(s.by.span if s.by is not None else s.span, f"each `choose` here is {seat}'s",
                       f"leave out `by` (or write `by {seat}`): each seat answers its own question")
        key = _chooser_key(s)
        if s.by is not None and self._answers_read(s.by, unit):
            self.error(s.by.span, "who is asked here depends on a secret answer",
                       "the others would learn the answer from who is asked; decide it after the block")
        parts = [s.domain, *(p for t in (s.label_text, s.pass_text) if t is not None for p in t.parts
                             if isinstance(p, ast.Expr))]
        if any(self._answers_read(e, unit) - {key} for e in parts):
            self.error(s.domain.span, "these options would show another seat's secret answer",
                       "a question's options may depend on its own seat's earlier answers only")
        # Who chose, and among what: the assignment of the answer to a secret variable records them.
        self.secret_chooses[id(s)] = (unit.new_slot(PLAYER), unit.new_slot("list[card]" if et == CARD else ANY))
        self.secret_names[(id(unit), slot)] = id(s)
        self.secret_taint[(id(unit), slot)] = frozenset((key,))

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
                ref = self._secret_var(part)
                if ref is not None:  # (its words to those who know it)
                    self.secret_parts[id(part)] = ref
                read = self.secret_vars_read(part)
                if read:  # (shown as `?` to the seats that do not know them: Program.secret_reads)
                    self.secret_reads[id(part)] = tuple(sorted(read))

    def s_Break(self, s, scope, unit):
        if not unit.loops:
            self.error(s.span, "`break` outside a loop")
        elif self.secret_ctx is not None and unit.loops <= self.secret_ctx[2]:
            self.error(s.span, "`break` cannot leave a secret block", "end the block, then `break` after it")

    def s_Return(self, s, scope, unit):
        pass
