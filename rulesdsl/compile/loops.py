"""`where` loops written as Python: comprehensions, scans (count, any, first...), the values worked
out before a loop, counts joined into one table before the loop, and the same loops as statements
for the block writers (found_lines, picked_lines)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

from .. import ast
from ..checker import BOOL, CARD, INT, PLAYER, STR
from ..engine.constants import GRID
from .source import Lookup, NoSource, Src, naming, pure
from .tree import _children, _descendants_nodes, locals_read, split


class Join(NamedTuple):
    """A count joined into one table before its loop (see join_candidates): the table counts the
    values of `key` (written `key_src`) of `seq`'s items `var` that pass `test`, `rest`'s terms."""

    where: ast.Where  # the count's
    var: str
    seq: str
    test: str
    key_src: str
    key: ast.Expr
    rest: list[ast.Expr]


MAX_WRITTEN = 8  # players: up to this many, a scan over them (`first(players where ...)`) is written seat by seat


class LoopWriter:
    """A part of SourceCompiler (a mixin: a loop's test is written by the compiler's `src`, which
    comes back here for every inner `where`)."""

    def s_Where(self, e: ast.Where, items):
        first = self.first_places(e)
        if first is not None:  # `Z where place(it) <= k`: one slice, no search for each card's place
            var = f"_i{self.c.p.slots[id(e)]}"
            zone = self.src(e.seq, items)
            places = zone.places or zone  # a grid's places, empty ones too
            return self.over(places, lambda s: f"[{var} for {var} in {s}[:{first}] if {var} is not None]")
        var, seq, cond, hoisted = self.loop(e, items)
        return self.over(seq, lambda s, first="": f"[{var} for {first}{var} in {s} if {cond}]", hoisted)

    def first_places(self, e: ast.Where) -> int | None:
        """k if `e` is `Z where place(it) <= k` (or `< k + 1`), Z a zone and k a number known now."""
        c, refs = e.cond, self.c.p.refs
        if not (self.fast and self.zone_spec(e.seq) is not None and isinstance(c, ast.Binary) and c.op in ("<=", "<")
                and isinstance(c.left, ast.Call) and c.left.func == "place" and len(c.left.args) == 1
                and refs.get(id(c.left)) is None and refs.get(id(c.left.args[0])) == ("local", self.c.p.slots[id(e)])):
            return None
        value = self.known_int(c.right)
        return None if value is None else max(value - (c.op == "<"), 0)

    def scan(self, f: str, w: ast.Where, items) -> str:
        var, seq, cond, hoisted = self.loop(w, items)
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
        lookup = cond.lookup
        if f in ("count", "any", "empty") and not hoisted and self.fast and self.zone_spec(w.seq) is not None \
                and lookup is not None and lookup.item == var and not lookup.reads_item \
                and (lookup.settled or pure(lookup.value)):
            return self.matching(f, lookup, seq)
        return self.over(seq, lambda s, first="": self.scan_body(f, var, s, cond, first, eager), hoisted)

    def scan_body(self, f: str, var: str, seq: str, cond: str, first: str, eager: bool) -> str:
        """A count, a test or a search over a `where` (`first`: see over). On a short list with a
        cheap test (`eager`), a list comprehension beats a generator that stops early."""
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
        """`target = first(Z where C)` (or top, last, bottom), Z a zone, as statements: the loop
        that stops at the match, as a value worked out before an option loop is found
        (domains.scalar). None for anything else."""
        if not isinstance(e, ast.Call) or e.func not in ("top", "last", "first", "bottom") \
                or id(e) in self.hoisted or id(e) in self.joins or any(id(a) in self.hoisted for a in e.args):
            return None
        try:
            return self.c.domains.scalar(target, e)
        except NoSource:
            return None

    def picked_lines(self, w: ast.Expr) -> tuple[list[str], str] | None:
        """`S where C` over a pile or a hand as lines (the values worked out first; a test in C that
        any card matches, where C is a lookup) and the comprehension, made only then; else None."""
        g = self.c.g
        spec = self.zone_spec(w.seq) if isinstance(w, ast.Where) and id(w) not in self.hoisted else None
        if spec is None or g.zone_shape[g.zone_base[spec]] == GRID:
            return None
        var, seq, cond, hoisted = self.loop(w, {})
        lookup = cond.lookup
        some = pure(seq) and lookup is not None and lookup.item == var and (lookup.settled or lookup.value.read)
        lines = [*(f"{n} = ({v})" for n, v in hoisted), f"if {self.matching('any', lookup, seq) if some else True}:"]
        return lines, self.over(seq, lambda s: f"[{var} for {var} in {s} if {cond}]")

    def matching(self, f: str, lookup: Lookup, seq: str) -> str:
        """`any`, `empty` or `count` of a zone's cards whose entry in a table is a value (`lookup`),
        in C. A value known now: one set operation with the cards that have it (three times
        quicker than `map`; a zone holds a card once, so the common cards are the count)."""
        table, value, want = naming().bound_consts(self.names)[lookup.table], lookup.value, lookup.known
        if want is not None and isinstance(table, (list, tuple)) and len(table) == self.c.g.ncards:
            cards = self.const(self.shared(("cards", id(table), want),
                                           lambda: frozenset(c for c, v in enumerate(table) if v == want)))
            return {"any": f"(not {cards}.isdisjoint({seq}))", "empty": f"{cards}.isdisjoint({seq})",
                    "count": f"len({cards}.intersection({seq}))"}[f]
        values = f"map({lookup.table}.__getitem__, {seq})"
        return {"any": f"({value} in {values})", "empty": f"({value} not in {values})",
                "count": f"list({values}).count({value})"}[f]

    def shared(self, key, make):
        """One object per key, so equal tables are one constant of the generated code."""
        if key not in self.tables:
            self.tables[key] = make()
        return self.tables[key]

    def unrolled(self, f: str, w: ast.Where, items: dict[int, str], seats: list[str]) -> str:
        """A scan over every player, its test written once per seat (`seats`, in the loop's order)
        with the seat as the item: no loop. The tests stop where the loop would (`or`, `if else`)."""
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
        """(item's name, seq, test, hoisted): the test is C's source, or what `test(inner, hoisted)`
        gives, called while the values worked out before the loop stand in C (domains.py)."""
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
        """`count(S where A and it.x == v)` inside a loop, with v varying and S, A, it.x not: count
        the values of it.x once, before the loop, and look v up. Only for parts that cannot fail."""
        slots = self.c.p.slots
        bound = {slots[id(e)]} | {slots[id(n)] for n in _descendants_nodes(e.cond) if isinstance(n, ast.Where)}
        found = []

        def visit(node) -> None:
            if id(node) in skip:
                return
            if isinstance(node, ast.Call) and node.func == "count" and len(node.args) == 1 \
                    and isinstance(node.args[0], ast.Where) and self.c.p.refs.get(id(node)) is None:
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
            if not (isinstance(t, ast.Binary) and t.op == "=="):
                continue
            for key, value in ((t.left, t.right), (t.right, t.left)):
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
                return hist, value, Join(w, var, seq, test, key_src, key, rest)
        return None
