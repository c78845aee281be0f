"""`where` loops written as Python: comprehensions, scans (count, any, first...), the values worked
out before a loop (decided off the syntax tree and its types, never off source), counts joined into
one table before the loop, tables of each card's value made when the rules load, and the same loops
as statements for the block writers (found_lines, picked_lines).

card_values is partial evaluation: it evaluates written source for every card, reading its Python
syntax tree only to learn that it reads nothing but the card and constants (the card's value alone)."""

from __future__ import annotations

import ast as pyast
from collections.abc import Callable
from functools import partial
from typing import NamedTuple

from .. import ast
from ..checker import BOOL, CARD, INT, PLAYER, STR, ZONE
from ..engine.constants import GRID, STACK
from .domains import builtin, is_local
from .source import NoSource, Src, env_list, grid_places, naming, paren, pure
from .tree import _children, _descendants_nodes, _worth_caching, locals_read, sides, split


class LookUp(NamedTuple):
    """A loop's test `it.x == v` or `it is K` read as a look-up of the item in a card's table."""

    table: list | tuple  # the card's table (an attribute's values, or the cards' kinds)
    value: str  # v's source
    known: object  # v's value if known when the rules load, else None
    settled: bool  # v known, or worked out before the loop: nothing to read per item


class Join(NamedTuple):
    """A count joined into one table before its loop: the values of `key` of `seq`'s items that pass `test`."""

    where: ast.Where  # the count's
    var: str
    seq: str
    test: str
    key_src: str


MAX_WRITTEN = 8  # players: up to this many, a scan over them (`first(players where ...)`) is written seat by seat
CHEAP_CALLS = {"abs", "min", "max", "any", "empty", "count", "top", "last", "first", "bottom"}  # (no loop of their own)
SAFE_CALLS = {"count", "any", "empty", "top", "bottom", "first", "last", "distinct", "owner", "place", "zone_of",
              "knows"}  # (never raise: a part using only them may be worked out first)
_VALUE_NODES = (pyast.Expression, pyast.BoolOp, pyast.Compare, pyast.Subscript, pyast.Name, pyast.Constant,
                pyast.Tuple, pyast.UnaryOp, pyast.BinOp, pyast.IfExp, pyast.NamedExpr, pyast.expr_context,
                pyast.boolop, pyast.cmpop, pyast.unaryop, pyast.operator)
_SCALARS = (int, str, float, type(None))


def _unchanging(value, table: bool) -> bool:
    """A value no rule changes: a scalar, a tuple or frozenset of them, or (`table`) a constant table."""
    if isinstance(value, _SCALARS):
        return True
    if isinstance(value, (tuple, frozenset)) and all(isinstance(v, _SCALARS) for v in value):
        return True
    return table and isinstance(value, (list, tuple, dict))


class LoopWriter:
    """A part of SourceCompiler (a mixin: a loop's test is written by the compiler's `src`, which
    comes back here for every inner `where`)."""

    def s_Where(self, e: ast.Where, items):
        first = self.first_places(e)
        if first is not None:  # `Z where place(it) <= k`: one slice, no search for each card's place
            var = f"_i{self.c.p.slots[id(e)]}"
            places = grid_places(self.src(e.seq, items))  # a grid's places, empty ones too
            return self.over(places, lambda s: f"[{var} for {var} in {s}[:{first}] if {var} is not None]")
        var, seq, cond, hoisted = self.loop(e, items)
        return self.over(seq, lambda s, first="": f"[{var} for {first}{var} in {s} if {cond}]", hoisted)

    def first_places(self, e: ast.Where) -> int | None:
        """k if `e` is `Z where place(it) <= k` (or `< k + 1`), Z a zone and k a number known now."""
        c = e.cond
        if not (self.fast and self.zone_spec(e.seq) is not None and isinstance(c, ast.Binary) and c.op in ("<=", "<")
                and builtin(self.c, c.left, "place") and is_local(self.c, c.left.args[0], self.c.p.slots[id(e)])):
            return None
        value = self.known_int(c.right)
        return None if value is None else max(value - (c.op == "<"), 0)

    def scan(self, f: str, w: ast.Where, items) -> str:
        var, seq, (cond, found), hoisted = self.loop(w, items, partial(self.look_up, w))
        eager = self.short(w)
        n = self.c.g.players
        if not hoisted and self.fast and isinstance(w.seq, ast.PlayersExpr) \
                and n <= MAX_WRITTEN and len(cond) * n <= 4000:
            if w.seq.start is None:
                return self.unrolled(f, w, items, [str(p) for p in range(n)])
            start = self.src(w.seq.start, items)
            if pure(start):  # `players from p`: p read again for each seat, checked first as the list is
                scan = self.unrolled(f, w, items, [start] + [f"(({start} + st.direction * {k}) % {n})"
                                                             for k in range(1, n)])
                if self.player(w.seq.start, start, "players from") is start:
                    return scan
                return f"(_fail(\"cannot read 'players from' of a player who is none\") if {start} is None else {scan})"
        if f in ("count", "any", "empty") and not hoisted and self.fast and self.zone_spec(w.seq) is not None \
                and found is not None and (found.settled or pure(found.value)):
            return self.matching(f, found, seq)
        return self.over(seq, lambda s, first="": self.scan_body(f, var, s, cond, first, eager), hoisted)

    def scan_body(self, f: str, var: str, seq: str, cond: str, first: str, eager: bool) -> str:
        """A count, a test or a search over a `where`; on a short list with a cheap test (`eager`), a
        list comprehension beats a generator that stops early."""
        loop = f"{first}{var} in {seq} if {cond}"
        if f == "count":
            return f"len([1 for {loop}])"
        if f in ("any", "empty"):
            held = f"[{var} for {loop}]" if eager else f"any(True for {loop})"
            return f"(not {held})" if f == "empty" else f"(not not {held})" if eager else held
        if eager:
            return self.end_of(f, f"[{var} for {loop}]")
        rest = f"in reversed({seq}) if {cond}" if f in ("top", "last") else f"in {seq} if {cond}"
        # (a search card_attr may read an attribute in)
        return Src(f"next(({var} for {first}{var} {rest}), None)", search=None if first else (var, rest))

    def found_lines(self, e: ast.Expr, target: str) -> list[str] | None:
        """`target = first(Z where C)` (or top, last, bottom) as statements that stop at the match
        (domains.scalar), else None."""
        if not isinstance(e, ast.Call) or e.func not in ("top", "last", "first", "bottom") \
                or id(e) in self.hoisted or id(e) in self.joins or any(id(a) in self.hoisted for a in e.args):
            return None
        try:
            return self.c.domains.scalar(target, e)
        except NoSource:
            return None

    def picked_lines(self, w: ast.Expr) -> tuple[list[str], str] | None:
        """`S where C` over a pile or a hand as lines (the values worked out first, a test that any
        card matches) and the comprehension, made only then; else None."""
        g = self.c.g
        spec = self.zone_spec(w.seq) if isinstance(w, ast.Where) and id(w) not in self.hoisted else None
        if spec is None or g.zone_shape[g.zone_base[spec]] == GRID:
            return None
        var, seq, (cond, found), hoisted = self.loop(w, {}, partial(self.look_up, w))
        some = pure(seq) and found is not None and (found.settled or found.value.read)
        lines = [*(f"{n} = ({v})" for n, v in hoisted), f"if {self.matching('any', found, seq) if some else True}:"]
        return lines, self.over(seq, lambda s: f"[{var} for {var} in {s} if {cond}]")

    def look_up(self, w: ast.Where, inner: dict[int, str], hoisted=()) -> tuple[str, LookUp | None]:
        """C's source, and if C is `it.x == v` or `it is K` (v not reading the item), C as a look-up of
        the item in a card's table."""
        c, slot, g = w.cond, self.c.p.slots[id(w)], self.c.g
        cond = self.src(c, inner)
        if isinstance(c, ast.IsKind) and not c.negate and is_local(self.c, c.operand, slot):
            k = g.kind_names.index(c.kind)
            return cond, LookUp(g.card_kind, str(k), k, True)
        if not (isinstance(c, ast.Binary) and c.op == "==" and isinstance(c.left, ast.Attr) and c.left.name in g.attrs
                and is_local(self.c, c.left.obj, slot) and self.type(c.left.obj) == CARD
                and not isinstance(c.right, ast.NoneLit) and slot not in locals_read(self.c.p.refs, c.right)):
            return cond, None
        known = self.known_value(c.right)
        return cond, LookUp(g.attrs[c.left.name], self.src(c.right, inner), known,
                            known is not None or id(c.right) in self.hoisted)

    def matching(self, f: str, found: LookUp, seq: str) -> str:
        """`any`, `empty` or `count` of a zone's cards whose entry in a table is a value (look_up); for
        a value known now, one set operation with the cards that have it (three times quicker than `map`)."""
        table, value, want = found.table, found.value, found.known
        if want is not None and len(table) == self.c.g.ncards:
            cards = self.const(self.shared(("cards", id(table), want),
                                           lambda: frozenset(c for c, v in enumerate(table) if v == want)))
            return {"any": f"(not {cards}.isdisjoint({seq}))", "empty": f"{cards}.isdisjoint({seq})",
                    "count": f"len({cards}.intersection({seq}))"}[f]
        values = f"map({self.const(table)}.__getitem__, {seq})"
        return {"any": f"({value} in {values})", "empty": f"({value} not in {values})",
                "count": f"list({values}).count({value})"}[f]

    def shared(self, key, make):
        """One object per key, so equal tables are one constant of the generated code."""
        if key not in self.tables:
            self.tables[key] = make()
        return self.tables[key]

    def unrolled(self, f: str, w: ast.Where, items: dict[int, str], seats: list[str]) -> str:
        """A scan over every player, its test written once per seat (in the loop's order): no loop."""
        slot = self.c.p.slots[id(w)]
        tests = [f"({self.src(w.cond, {**items, slot: Src(p, reads=True, item=True)})})" for p in seats]
        if f == "count":
            return "(" + " + ".join(f"(1 if {t} else 0)" for t in tests) + ")"
        if f in ("any", "empty"):
            yes, no = ("True", "False") if f == "any" else ("False", "True")
            return Src(f"({yes} if {' or '.join(tests)} else {no})", truth=' or '.join(tests) if f == "any" else None)
        order = range(len(tests))[::-1] if f in ("top", "last") else range(len(tests))
        return "(" + " else ".join(f"{seats[p]} if {tests[p]}" for p in order) + " else None)"

    def loop_seq(self, e: ast.Where, items: dict[int, str]) -> str:
        """The values a `where` goes over, as its loop reads them (only iterated: no list made)."""
        if isinstance(e.seq, ast.PlayersExpr) and e.seq.start is None:
            return f"range({self.c.g.players})"
        seq = self.src(e.seq, items)
        seq = seq.iterated or seq
        if isinstance(e.seq, ast.ListLit):
            seq = self.over(seq, lambda s: f"[_x for _x in {s} if _x is not None]")
        return seq

    def loop(self, e: ast.Where, items: dict[int, str], test: Callable | None = None):
        """(item's name, seq, test, hoisted): the test is C's source, or `test(inner, hoisted)`'s
        (domains.py), written while the values worked out before the loop stand in C."""
        slot = self.c.p.slots[id(e)]
        var = f"_i{slot}"
        seq = self.loop_seq(e, items)
        inner = {**items, slot: var}
        hoisted: list[tuple[str, str]] = []
        parts = [*self.c.plan.hoisted.get(id(e), ()), *self.define_parts(e.cond, inner)]  # (lower.py)
        joins = {}
        inside: set[int] = set()  # nodes of the joined counts: never compiled in place
        for node, name, hist, key, pieces in (self.join_candidates(e, {id(p) for p in parts}, items)
                                              if self.fast else ()):
            hoisted.append((name, hist))
            joins[id(node)] = (name, key)
            self.join_parts[name] = pieces
            inside |= {id(x) for x in _descendants_nodes(node)}
        saved = {}
        for p in parts:
            if id(p) in inside or id(p) in saved:
                continue
            name = Src(f"_h{id(p)}", reads=True)
            hoisted.append((name, self.src(p, items)))
            saved[id(p)] = name
            self.hoist_nodes[name] = p
        with self.scope({**self.hoisted, **saved}, {**self.joins, **joins}):
            cond = self.src(e.cond, inner) if test is None else test(inner, hoisted)
        return var, seq, cond, hoisted

    def join_candidates(self, e: ast.Where, skip: set[int], items: dict[int, str]):
        """`count(S where A and it.x == v)` in a loop, only v varying: count the values of it.x once,
        before the loop, and look v up (for parts that cannot fail)."""
        slots = self.c.p.slots
        bound = {slots[id(e)]} | {slots[id(n)] for n in _descendants_nodes(e.cond) if isinstance(n, ast.Where)}
        found = []

        def visit(node) -> None:
            if id(node) in skip:
                return
            if builtin(self.c, node, "count") and isinstance(node.args[0], ast.Where):
                hit = self.join_of(node.args[0], bound, items)
                if hit is not None:
                    found.append((node, f"_j{id(node)}", *hit))
                    return
            for k in _children(node):
                visit(k)

        visit(e.cond)
        return found

    def join_of(self, w: ast.Where, bound: set[int], items: dict[int, str]):
        slot = self.c.p.slots[id(w)]
        terms = split(w.cond)
        others, used = bound - {slot}, partial(locals_read, self.c.p.refs)
        for i, t in enumerate(terms):
            for key, _, value in sides(t, ("==",)):
                rest = terms[:i] + terms[i + 1:]
                if slot in used(value) or not used(value) & others or used(key) & others \
                        or any(used(r) & others for r in rest) or used(w.seq) & bound \
                        or self.type(key) not in (INT, STR, BOOL, CARD, PLAYER) \
                        or not (self.safe(key) and self.safe(w.seq) and all(self.safe(r) for r in rest)):
                    continue  # (a dict key must be a plain value)
                var = f"_i{slot}"
                inner = {**items, slot: var}
                test = " and ".join(f"({self.src(r, inner)})" for r in rest)
                key_src, seq = self.src(key, inner), self.loop_seq(w, items)
                tail = f" if {test}])" if test else "])"
                hist = self.over(seq, lambda s, head=f"_hist([{key_src} for {var} in ", tail=tail: head + s + tail)
                return hist, value, Join(w, var, seq, test, key_src)
        return None

    def short(self, w: ast.Where) -> bool:
        """Does `w` go over a short list (a hand, a grid, the players) with a cheap test that cannot
        fail? Then testing every item costs less than stopping at the first match."""
        g, refs, spec = self.c.g, self.c.p.refs, self.zone_spec(w.seq)
        if spec is not None:
            short = g.zone_shape[g.zone_base[spec]] != STACK
        else:
            short = isinstance(w.seq, ast.PlayersExpr) or refs.get(id(w.seq)) == ("builtin", "others")
        if not (self.fast and short and self.safe(w.cond, frozenset([self.c.p.slots[id(w)]]))):
            return False
        return not any(isinstance(n, ast.Where) or (isinstance(n, ast.Call) and n.func not in CHEAP_CALLS)
                       or (isinstance(n, ast.Name) and (refs.get(id(n)) or ("",))[0] == "define")
                       for n in _descendants_nodes(w.cond))

    def zone_spec(self, e: ast.Expr) -> int | None:
        """The zone spec of an expression that is a zone itself (`pile`, `me.hand`), else None."""
        g = self.c.g
        if isinstance(e, ast.Name):
            ref = self.c.p.refs.get(id(e))
            return ref[1] if ref is not None and ref[0] == "zone" else None
        if isinstance(e, ast.Attr) and e.name in g.zone_spec_names and self.type(e) == ZONE \
                and self.type(e.obj) == PLAYER:
            spec = g.zone_spec_names.index(e.name)
            return spec if g.zone_spec_per_player[spec] else None
        return None

    def invariant_parts(self, cond: ast.Expr, slot: int) -> list[ast.Expr]:
        """The largest parts of a loop's test that do not depend on its item (`wanted` in `it.number == wanted`)."""
        refs, slots = self.c.p.refs, self.c.p.slots
        varying = {slot} | {slots[id(n)] for n in _descendants_nodes(cond) if isinstance(n, ast.Where)}
        out: list[ast.Expr] = []

        def walk(node) -> set[int]:
            """What node depends on: the item, inner items outside their `where`, chance (-1)."""
            kids = list(_children(node))
            deps = [walk(k) for k in kids]
            ref = refs.get(id(node)) if isinstance(node, ast.Name) else None
            free = set().union(*deps)
            if ref is not None and ref[0] == "local" and ref[1] in varying:
                free.add(ref[1])
            if isinstance(node, ast.Call) and node.func == "random":
                free.add(-1)
            if isinstance(node, ast.Where) and id(node) in slots:
                free.discard(slots[id(node)])
            if free:
                out.extend(k for k, d in zip(kids, deps, strict=True) if not d and _worth_caching(k, refs))
            return free

        if not walk(cond) and _worth_caching(cond, refs):
            out.append(cond)
        return out

    def define_parts(self, cond: ast.Expr, inner: dict[int, str]) -> list[ast.Expr]:
        """The plan's parts worked out first of the defines applied to items in `cond` (written in place)."""
        hoisted = self.c.plan.define_hoisted
        out: list[ast.Expr] = []

        def visit(node) -> None:
            if isinstance(node, ast.Where):
                return  # its own loop hoists its own
            ref = self.c.p.refs.get(id(node)) if isinstance(node, ast.Call) else None
            if ref is not None and ref[0] == "define" and (len(ref) < 3 or ref[2] is None):
                info = self.c.p.defines[node.func]
                if len(info.params) == 1 and len(node.args) == 1 and self.item(node.args[0], inner):
                    out.extend(hoisted.get(node.func, ()))
            for k in _children(node):
                visit(k)

        visit(cond)
        return out

    def safe(self, e: ast.Expr, items: frozenset[int] = frozenset()) -> bool:
        """Can this part be worked out before the loop with no risk of failing? (`items`: never none)"""
        if isinstance(e, (ast.IntLit, ast.StrLit, ast.BoolLit, ast.NoneLit, ast.Name, ast.PlayersExpr)):
            return True
        if isinstance(e, ast.Attr):
            if self.type(e.obj) in (CARD, ZONE, "list[card]"):
                return self.safe(e.obj, items)
            if self.type(e.obj) == "list[player]" and e.name in self.c.g.counter_layout:
                return self.safe(e.obj, items)  # `(players where ...).score`: none are skipped
            # `me.hand`, `me.tokens`: the current player is never none; nor is an item
            return self.some_player(e.obj, items)
        if isinstance(e, ast.Call):
            ref = self.c.p.refs.get(id(e))
            if ref is not None and ref[0] == "define":
                return False
            if e.func in ("min", "max") and len(e.args) == 1:  # of a list: none skipped, none if empty
                return self.safe(e.args[0], items)
            return e.func in SAFE_CALLS and all(self.safe(a, items) for a in e.args)
        if isinstance(e, ast.Where):
            return self.safe(e.seq, items) and self.safe(e.cond, items)
        if isinstance(e, ast.IsKind):
            return self.safe(e.operand, items)
        if isinstance(e, ast.Binary):
            if e.op in ("<", "<=", ">", ">=", "+", "-", "*"):  # on numbers that are never none
                return self.number(e.left, items) and self.number(e.right, items)
            return e.op in ("==", "!=", "and", "or", "in") and self.safe(e.left, items) and self.safe(e.right, items)
        if isinstance(e, ast.Unary):
            return e.op == "not" and self.safe(e.operand, items)
        return False

    def some_player(self, e: ast.Expr, items: frozenset[int]) -> bool:
        """Is `e` a player that is never none: `me`, or an item of a loop over players?"""
        ref = self.c.p.refs.get(id(e)) if isinstance(e, ast.Name) else None
        return ref == ("builtin", "me") or (ref is not None and ref[0] == "local" and ref[1] in items)

    def number(self, e: ast.Expr, items: frozenset[int]) -> bool:
        """Is `e` an int that is never none and cannot fail (a literal, a counter, a count, a sum)?"""
        if self.type(e) != INT:
            return False
        if isinstance(e, ast.IntLit):
            return True
        if isinstance(e, ast.Name):
            ref = self.c.p.refs.get(id(e)) or ("",)
            return ref[0] == "counter" or (ref[0] == "const" and isinstance(ref[1], int)) \
                or ref in (("builtin", "round"), ("builtin", "turn"), ("builtin", "player_count"))
        if isinstance(e, ast.Attr):
            return e.name in self.c.g.counter_layout and self.some_player(e.obj, items)
        if isinstance(e, ast.Call):
            return e.func == "count" and self.c.p.refs.get(id(e)) is None and self.safe(e, items)
        if isinstance(e, ast.Binary):
            return e.op in ("+", "-", "*") and self.number(e.left, items) and self.number(e.right, items)
        if isinstance(e, ast.Unary):
            return e.op == "-" and self.number(e.operand, items)
        return False

    def card_table(self, w: ast.Where, items, value) -> list | None:
        """`value(card, C holds for it)` for every card, for a `where` whose C is the card's alone."""
        g = self.c.g
        spec = self.zone_spec(w.seq)
        if spec is None or g.zone_shape[g.zone_base[spec]] == GRID or id(w) in self.hoisted:
            return None
        slot = self.c.p.slots[id(w)]
        var = f"_i{slot}"
        held = self.card_values(self.src(w.cond, {**items, slot: var}), var)
        return None if held is None else [value(c, bool(h)) for c, h in enumerate(held)]

    def inline_define(self, info, args: list[str], of_items: bool) -> str | None:
        """A define applied to loop items (`fits(c)` in a `where`) written in place: no call, no list
        of locals (not where a loop inside it hides an item)."""
        hidden = {f"_i{self.c.p.slots[id(n)]}" for n in _descendants_nodes(info.expr) if isinstance(n, ast.Where)}
        if not args or not of_items or hidden & set(args):
            return None
        return self.in_place(info.expr, dict(enumerate(args)))

    def in_place(self, body: ast.Expr, items: dict[int, str]) -> str | None:
        """A define's body written where it is used, if it reads no locals and is not long: no call."""
        if not self.fast:
            return None  # (the plain reference calls the define's body)
        src, reads = self.reading(lambda: self.src(body, items))
        return paren(src) if not reads and len(src) < 2000 else None

    def each_define(self, info, e: ast.Call, spread: int, items) -> str:
        """A define applied to each item of a list (`value(p.row)`): written in place in one
        comprehension, else one call of its body per item (`_each`)."""
        args = [self.src(a, items) for a in e.args]
        self.spread_vars += 1
        var = f"_i{100000 + self.spread_vars}"  # a name no loop of the define nor around it uses
        body = self.inline_define(info, [var], True) if len(args) == 1 else None
        if body is None:
            return f"_each({self.const(self.define_body(e.func))}, st, {env_list(args, info.nlocals)}, {spread})"
        seq = grid_places(args[0])  # (the loop below skips empty places itself)
        table = self.card_values(body, var) if self.type(e.args[0]) in (ZONE, "list[card]") else None
        if table is not None:  # (about the card alone: its value for every card, worked out now)
            return self.over(seq, lambda s: f"[{self.const(table)}[{var}] for {var} in {s} if {var} is not None]")
        return self.over(seq, lambda s: f"[{body} for {var} in {s} if {var} is not None]")

    def card_values(self, src: str, var: str) -> list | None:
        """The value of `src` for every card as `var`, if it reads nothing but the card, constants
        and its own `:=` names (no call, no state) and fails for no card; else None."""
        if not self.fast:
            return None
        nodes = list(pyast.walk(pyast.parse(src, mode="eval")))
        names = naming().bound_consts(self.names)  # (`_K33` for `_k33` in a straight function)
        own = {n.target.id for n in nodes if isinstance(n, pyast.NamedExpr)}
        for n in nodes:
            if not isinstance(n, _VALUE_NODES):
                return None  # (a call, an attribute, a comprehension: not the card's alone)
            if isinstance(n, pyast.Name) and n.id != var and n.id not in own \
                    and not _unchanging(names.get(n.id, _unchanging), n.id.replace("_K", "_k", 1) in self.const_names):
                return None  # (a read of the state or of a local)
        try:
            f = eval(f"lambda {var}: ({src})", names)
            return [f(c) for c in range(self.c.g.ncards)]
        except Exception:  # (it fails for some card: left to the loop, which fails as it did)
            return None

    def sum_of(self, e: ast.Expr, items) -> str | None:
        """`e` as one pass over a zone adding up each card's share from a table (see shares)."""
        shares = self.shares(e, items)
        return None if shares is None else f"sum(map({self.const(tuple(shares[1]))}.__getitem__, {shares[0]}))"

    def shares(self, e: ast.Expr, items) -> tuple[str, list[int]] | None:
        """(zone, each card's share) if `e` adds up one zone's cards by what each is alone (sums of
        `(Z where C).x`, counts of `Z where C`, and sums and differences of them); else None."""
        if not self.fast or id(e) in self.hoisted:
            return None
        if isinstance(e, ast.Binary) and e.op in ("+", "-"):
            left, right = self.shares(e.left, items), self.shares(e.right, items)
            if left is None or right is None or left[0] != right[0]:
                return None
            sign = 1 if e.op == "+" else -1
            return left[0], [x + sign * y for x, y in zip(left[1], right[1], strict=True)]
        if not builtin(self.c, e, "count", "sum") or id(e) in self.joins:
            return None
        arg = e.args[0]
        if e.func == "count" and isinstance(arg, ast.Where):
            w, table = arg, self.card_table(arg, items, lambda c, keep: int(keep))
        elif e.func == "sum" and isinstance(arg, ast.Attr) and isinstance(arg.obj, ast.Where) \
                and self.type(arg.obj) in (ZONE, "list[card]") and id(arg) not in self.hoisted:
            values = self.c.g.attrs[arg.name]
            w, table = arg.obj, self.card_table(arg.obj, items, lambda c, keep: (values[c] or 0) if keep else 0)
        else:
            return None
        if table is None or not all(type(v) is int for v in table):
            return None
        return self.src(w.seq, items), table
