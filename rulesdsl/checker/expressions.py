"""Expressions: the type of each, what each name refers to, and the defines they use, each checked
on first use (so a define may use one declared after it, and a loop of defines is found)."""

from __future__ import annotations

import attrs

from .. import ast
from ..errors import did_you_mean
from .base import CheckerBase, Scope, Unit
from .program import ExprInfo
from .types import (
    ANY,
    BOOL,
    BUILTIN_FUNCS,
    BUILTIN_VALUES,
    CARD,
    CARD_BUILTIN_ATTRS,
    INT,
    NONE,
    PLAYER,
    PLAYER_BUILTIN_ATTRS,
    STR,
    ZONE,
    compatible,
    describe,
    elem,
    is_list,
    list_of,
    type_of_value,
    unify,
)

# Expressions checked one inside another, counted through the defines they use: the parser bounds
# each rule's depth (parser.MAX_DEPTH), and this bounds a chain of defines, each using the next.
MAX_NESTING = 150


class Expressions(CheckerBase):
    """Works out the type of an expression (e_ + its node's class name), recorded in self.types,
    and what each name in it refers to, recorded in self.refs."""

    def _check_define(self, info: ExprInfo, stack: tuple[str, ...] = ()) -> str:
        if info.type == "checking":
            self.error(self._define_decls[info.name].span, f"'{info.name}' is defined in terms of itself")
            info.type = ANY
            return ANY
        if info.type != "?":
            return info.type
        info.type = "checking"
        unit = Unit(info.name, "define")
        scope = Scope()
        for name, t in info.params:
            unit.bind(scope, name, unit.new_slot(t), t)
        t = self.expr(info.expr, scope, unit)
        info.type = t
        info.nlocals = unit.nslots
        return t

    def expr(self, e: ast.Expr, scope: Scope, unit: Unit, in_game: bool = True) -> str:
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

    def want(self, e: ast.Expr, t: str, scope: Scope, unit: Unit, what: str) -> str:
        """The type of e, reported unless it fits where `what` needs a t."""
        got = self.expr(e, scope, unit)
        if not compatible(t, got):
            self.error(e.span, f"{what} must be {describe(t)}, but this is {describe(got)}")
        return got

    def e_IntLit(self, e, scope, unit):
        return INT

    def e_StrLit(self, e, scope, unit):
        return STR

    def e_BoolLit(self, e, scope, unit):
        return BOOL

    def e_NoneLit(self, e, scope, unit):
        return NONE

    def e_Name(self, e: ast.Name, scope: Scope, unit):
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
            return type_of_value(value)
        v = self.var_by_name.get(name)
        z = self.zone_by_name.get(name)
        if unit.kind == "init" and (v is not None or z is not None):  # (the compiler has no state to read)
            return self.fail(e.span, "an initial value must not depend on the game in progress",
                             "start with a plain value and set it in `setup`")
        if v is not None:
            if v.per_player:
                return self.fail(e.span, f"'{name}' belongs to each player", f"write `me.{name}` or `p.{name}`")
            self.refs[id(e)] = ("counter" if v.counter else "var", v.index)
            if v.secret:
                self._secret_read(e.span, name)
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
            self._define_read(e.span, name)
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
                return self.fail(e.name_span, f"'{e.name}' of several players at once is not supported",
                                 f"it would be a list of lists; read each player's in turn: `for each p in ... "
                                 f"{{ ... p.{e.name} ... }}`")
            return list_of(at) if at != ANY else ANY
        return self.fail(e.name_span, f"{describe(t)} has no attribute '{e.name}'")

    def _secret_read(self, span: ast.Span, name: str) -> None:
        """No expression in a secret block reads a secret variable: a later seat's options, or
        what it sees, could then depend on an earlier seat's answer."""
        if self.secret_ctx is not None:
            self.error(span, f"'{name}' is secret and cannot be read in a secret block",
                       "a later seat's options could then depend on an earlier seat's answer; read it after "
                       "the block")

    def _define_read(self, span: ast.Span, name: str) -> None:
        """A define used in a secret block must not read a secret variable (see _secret_read)."""
        if self.secret_ctx is None:
            return
        read = self.secret_vars_read(self._define_decls[name].body)
        if read:
            self._secret_read(span, f"{name}' reads '{min(read)}")

    def secret_vars_read(self, e) -> frozenset[str]:
        """The `secret` variables e may read, directly or through defines (any depth). A word
        naming one counts, wherever it stands: an over-estimate, so what it guards never leaks."""
        secret = {v.name for v in self.vars if v.secret}
        if not secret:
            return frozenset()
        found: set[str] = set()
        seen: set[str] = set()
        todo = [e]
        while todo:
            for node in _nodes(todo.pop()):
                word = node.id if isinstance(node, ast.Name) else node.name if isinstance(node, ast.Attr) else \
                    node.func if isinstance(node, ast.Call) else None
                if word in secret:
                    found.add(word)
                elif word in self._define_decls and word not in seen:
                    seen.add(word)
                    todo.append(self._define_decls[word].body)
        return frozenset(found)

    def _player_attr(self, e: ast.Attr) -> str:
        if e.name in PLAYER_BUILTIN_ATTRS:
            return PLAYER_BUILTIN_ATTRS[e.name]
        z = self.zone_by_name.get(e.name)
        if z is not None and z.per_player:
            return ZONE
        v = self.var_by_name.get(e.name)
        if v is not None and v.per_player:
            if v.secret:
                self._secret_read(e.span, e.name)
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
            self._define_read(e.span, e.func)
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
        if f == "consecutive":
            if need_list("a list of numbers") and a != ANY and elem(a) not in (INT, ANY):
                self.error(e.args[0].span, f"consecutive() needs numbers, not {describe(elem(a))}")
            return BOOL
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

    def where(self, e: ast.Where, scope: Scope, unit: Unit, alias: tuple[str, int] | None = None) -> str:
        t = self.expr(e.seq, scope, unit)
        if not is_list(t) and t != ANY:
            self.error(e.seq.span, f"`where` filters a list or a zone, not {describe(t)}")
            t = ANY
        slot = alias[1] if alias else unit.new_slot()
        self.slots[id(e)] = slot
        inner = Scope(scope)
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
            vt = type_of_value(value)
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


def _nodes(e):
    """Every expression node in e (e included)."""
    todo = [e]
    while todo:
        x = todo.pop()
        if isinstance(x, tuple):
            todo.extend(x)
        elif isinstance(x, ast.Node):
            yield x
            todo.extend(getattr(x, f.name) for f in attrs.fields(type(x)) if f.name not in ("span", "name_span"))
