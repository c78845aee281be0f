"""A decision's options as plain `for` loops that filter, merge identical cards and append as they
go: no comprehension (a call each in Python 3.11), no second pass (Game.distinct_cards). Values
not depending on the item are worked out first; a card's terms reading only its tables are tables
made at load, `T[card] == v` (v known first) a look-up in the set of cards whose T is v.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import NamedTuple

from .. import ast
from ..checker import CARD, ZONE
from ..engine.constants import GRID, HAND
from ..engine.game import distinct_plain
from .source import ST, UNKNOWN, NoSource, Src
from .tree import locals_read, sides, split

TARGET = "@TARGET@"  # the list a plan's options go to, named when its lines are placed


# -- a `where`'s terms, one analysis for option loops and counted options (counts.py)
class Term(NamedTuple):
    node: ast.Expr
    src: str  # as the expression writer writes it, the item under a given name
    values: list | None  # its value for every card as the item, if it reads nothing else (see card_values)
    items: dict[int, str]  # the locals' names in the node's scope (a define written in place has its own)
    slots: frozenset[int]  # those holding the item


def terms(sc, nodes: list[ast.Expr], items: dict[int, str], var: str, inlined=None, op: str = "and") -> list[Term]:
    """The terms `nodes` of a loop's test, `var` its item; with `inlined` (see DomainWriter.inlined),
    a define written in place stands for its body's terms (of `op`)."""
    out = []
    for t in nodes:
        body = inlined(t, items) if inlined is not None else None
        if body is not None:
            out += terms(sc, split(body[0], op, sc.hoisted), body[1], var, inlined, op)
            continue
        src = sc.src(t, items)
        out.append(Term(t, src, card_values(sc, src, var), items, frozenset(k for k, x in items.items() if x == var)))
    return out


def card_values(sc, src: str, var: str) -> list | None:
    """The value of `src` for each card as `var`, if each may be a key (worked out once per source)."""
    return sc.shared(("card values", src, var), lambda: _keys(sc.card_values(src, var)))


def _keys(values: list | None) -> list | None:
    try:
        hash(tuple(values or ()))
    except TypeError:
        return None
    return values


def builtin(c, e: ast.Expr, *names: str) -> bool:
    """Is `e` a call of one argument of a built-in function of these names (not a define)?"""
    return isinstance(e, ast.Call) and e.func in names and len(e.args) == 1 and c.p.refs.get(id(e)) is None


def is_local(c, e: ast.Expr, slot: int) -> bool:
    return isinstance(e, ast.Name) and c.p.refs.get(id(e)) == ("local", slot)


# -- plans: a domain's lines, loops over one zone shared between actions
class Scan(NamedTuple):
    """`for var in src:` over a zone that cannot fail; `write(name)` is its body for the item
    under that name, so loops over one zone may run as one; `binds`: names the body sets."""

    src: str
    var: str
    write: Callable[[str], list[str]]
    binds: frozenset = frozenset()


def _fixed(var: str, body: list[str]) -> Callable[[str], list[str]]:
    return lambda name: body if name == var else [f"{var} = {name}", *body]


class Plan(NamedTuple):
    """A domain's lines: `pre` (values worked out first), `scans`, then `post`."""

    pre: Sequence[str] = ()
    scans: Sequence[Scan] = ()
    post: Sequence[str] = ()

    def lines(self, target: str) -> list[str]:
        out = list(self.pre)
        for s in self.scans:
            out += [f"for {s.var} in {s.src}:", *("    " + line for line in s.write(s.var))]
        return [line.replace(TARGET, target) for line in (*out, *self.post)]


def fuse(plans: list[Plan], own: str) -> list[str]:
    """The lines of consecutive plans (of actions), loops over one zone run as one. Options keep
    their order: a plan appending in a shared loop, but the first, appends to its own list (`own`)."""
    by_src: dict[str, list[tuple[int, Scan]]] = {}
    for i, p in enumerate(plans):
        for s in p.scans:
            by_src.setdefault(s.src, []).append((i, s))
    if all(len(v) < 2 for v in by_src.values()):
        return [line for p in plans for line in p.lines("opts")]
    targets = ["opts" if i == 0 or not any(TARGET in line for s in p.scans for line in s.write(s.var))
               else own.format(i=i) for i, p in enumerate(plans)]
    out = [line.replace(TARGET, t) for p, t in zip(plans, targets, strict=True) for line in p.pre]
    out += [f"{t} = []" for t in targets if t != "opts"]
    for src, scans in by_src.items():
        first = scans[0][1].var
        if len(scans) > 1 and any(first in s.binds for _, s in scans):
            first = "_wz"  # a body sets that name: the item goes in a name of its own
        out.append(f"for {first} in {src}:")
        out += ["    " + line.replace(TARGET, targets[i]) for i, s in scans for line in s.write(first)]
    for p, t in zip(plans, targets, strict=True):
        out += [line.replace(TARGET, t) for line in p.post]
        if t != "opts":
            out.append(f"opts += {t}")
    return out


class Loop:
    """`pre` lines and `scans`, then `lines` (nested), inside which `var` holds each value: `unique`,
    `nonnone`, all in zone spec `zone` (or None); the outer loop goes over zone `src` (or None) as
    `head`; `safe`: nothing in it can fail; `binds`: the names its lines set."""

    def __init__(self, pre, lines, depth, var, unique, nonnone, zone, src=None, safe=False, scans=None,
                 head=None, binds=frozenset()):
        self.pre, self.lines, self.depth, self.var = pre, lines, depth, var
        self.unique, self.nonnone, self.zone = unique, nonnone, zone
        self.src, self.safe, self.scans, self.head, self.binds = src, safe, scans or [], head, binds

    def at(self) -> str:
        return "    " * self.depth

    def inside(self, lines: list[str], depth: int, **changed) -> Loop:
        """This loop with `lines` (their inside at `depth`), and what else `changed`."""
        return Loop(**{**vars(self), "lines": lines, "depth": depth, **changed})


class DomainWriter:
    """Statements for domains, using the source compiler `sc` for the expressions in them."""

    def __init__(self, sc):
        self.sc, self.c, self.g, self.n = sc, sc.c, sc.c.g, 0

    def fresh(self, stem: str) -> str:
        self.n += 1
        return f"_w{stem}{self.n}"

    # -- a decision's options
    def plan(self, e: ast.Expr, distinct, chooser: str, item: str) -> Plan:
        """The lines appending each option of domain `e`, as `item` (a format with {v}) makes it: the
        options `distinct(st, values, chooser)` would give, in the same order."""
        if not self.c.shortcuts:
            raise NoSource("the plain way: options listed by the domain's value")
        if isinstance(e, ast.ListLit) and distinct is distinct_plain:
            values = [self.sc.fixed_value(x) for x in e.items]
            if UNKNOWN not in values:  # a list of constants (`[true, false]`): its options are known now
                make = self.sc.function(item.format(v="_v"), "_v")
                options = tuple(make(x) for x in dict.fromkeys(values) if x is not None)
                return Plan(post=[f"{TARGET} += {self.sc.const(options)}"])
        lp = self.each(e, {}, None)
        plain = distinct is distinct_plain or (lp.unique and lp.nonnone and lp.zone is not None
                                               and self.g.zone_shape[self.g.zone_base[lp.zone]] != HAND)
        lp = self.distinct(lp) if plain and not lp.unique else lp
        v = lp.var
        add = f"{TARGET}.append({item.format(v=v)})"
        if plain:
            body = [add] if lp.nonnone else [f"if {v} is not None: {add}"]
        elif lp.unique and lp.nonnone and lp.zone is not None:
            body = self.merged(lp, chooser, item, add)
        else:
            raise NoSource("options that need Game.distinct_cards")
        inside = lp.lines + [lp.at() + line for line in body]
        if lp.src is not None and lp.safe and not lp.scans:  # (a loop reading a table waits for it)
            return Plan(lp.pre, [Scan(lp.src, lp.head, _fixed(lp.head, [line[4:] for line in inside[1:]]), lp.binds)])
        return Plan(lp.pre, lp.scans, inside)

    def merged(self, lp: Loop, chooser: str, item: str, add: str) -> list[str]:
        """Identical cards the chooser knows: one option per face, the first place kept, the card more
        players know preferred (Game.distinct_cards); most often one test (all known alike)."""
        v, faces = lp.var, self.sc.const(self.g.card_face)
        first, kn, face, k, kept, kk = (self.fresh(stem) for stem in ("f", "kn", "fc", "k", "p", "kk"))
        lp.pre += [f"{first} = {{}}", f"{kn} = {ST.known}"]
        return [
            f"{face} = {faces}[{v}]",
            f"if {face} not in {first}:",
            f"    {first}[{face}] = {v}",
            f"    {add}",
            "else:",
            f"    {k} = {kn}[{v}]",
            f"    {kept} = {first}[{face}]",
            f"    {kk} = {kn}[{kept}]",
            f"    if {k} == {kk}:",
            f"        if not {k} >> {chooser} & 1: {add}",
            f"    elif not {k} >> {chooser} & 1:",
            f"        {add}",
            f"    elif not {kk} >> {chooser} & 1:",
            f"        {first}[{face}] = {v}",
            f"        {add}",
            f"    elif {k}.bit_count() > {kk}.bit_count():",
            f"        {first}[{face}] = {v}",
            f"        {TARGET}[{TARGET}.index({item.format(v=kept)})] = {item.format(v=v)}",
        ]

    # -- going over a list
    def each(self, e: ast.Expr, items: dict[int, str], var: str | None) -> Loop:
        spec = self.sc.zone_spec(e)
        if spec is not None:
            v = var or self.fresh("c")
            src, safe = self.zone_src(e, spec, items)  # (a zone of a player who may be none fails)
            grid = self.g.zone_shape[self.g.zone_base[spec]] == GRID
            lines = [f"for {v} in {src}:", *([f"    if {v} is not None:"] if grid else [])]
            return Loop([], lines, len(lines), v, True, True, spec, src, safe, head=v)
        if isinstance(e, ast.Attr) and self.c.type(e.obj) == "list[player]" and self.c.type(e) == "list[card]" \
                and e.name in self.g.zone_spec_names:
            # `(others where ...).row`: each player's zone in turn
            spec = self.g.zone_spec_names.index(e.name)
            base = self.g.zone_base[spec]
            inner = self.each(e.obj, items, None)
            p, v = inner.var, var or self.fresh("c")
            at = inner.at()
            lines = list(inner.lines)
            if not inner.nonnone:
                lines.append(f"{at}if {p} is not None:")
                at += "    "
            lines += [f"{at}for {v} in {ST.zones}[{base} + {p}]:", f"{at}    if {v} is not None:"]
            hand = self.g.zone_shape[base] == HAND  # identical cards merge within one hand only
            return inner.inside(lines, len(at) // 4 + 2, var=v, nonnone=True, zone=None if hand else spec)
        if isinstance(e, ast.Where):
            return self.each_where(e, items)
        if builtin(self.c, e, "distinct"):
            return self.distinct(self.each(e.args[0], items, None))
        if isinstance(e, ast.Attr) and self.c.type(e.obj) in (ZONE, "list[card]") and e.name in self.g.attrs:
            inner = self.each(e.obj, items, None)
            if not inner.nonnone:
                raise NoSource("attribute of a list that may hold none")
            table = self.g.attrs[e.name]
            v = self.fresh("a")
            lines = inner.lines + [f"{inner.at()}{v} = {self.sc.const(table)}[{inner.var}]"]
            return inner.inside(lines, inner.depth, var=v, unique=False, nonnone=None not in table, zone=None,
                                binds=inner.binds | {v})
        ref = self.c.p.refs.get(id(e)) if isinstance(e, ast.Name) else None
        if ref is not None and ref[0] == "define" and not self.c.p.defines[ref[1]].params \
                and not self.sc.reading(lambda: self.sc.src(e, items))[1]:
            return self.each(self.c.p.defines[ref[1]].expr, {}, var)  # a define's list, written in place
        src = self.sc.src(e, items)
        if isinstance(e, ast.ListLit):
            src = f"({src})"
        elif isinstance(e, ast.PlayersExpr) and e.start is not None:
            src = src.iterated or src  # (only iterated: no copy)
        v = var or self.fresh("x")
        plain = isinstance(e, ast.PlayersExpr) or ref == ("builtin", "others")
        return Loop([], [f"for {v} in {src}:"], 1, v, plain, plain, None)

    def distinct(self, inner: Loop) -> Loop:
        """The loop without values seen already."""
        seen, at = self.fresh("s"), inner.at()
        lines = inner.lines + [f"{at}if {inner.var} not in {seen}:", f"{at}    {seen}[{inner.var}] = None"]
        return inner.inside(lines, inner.depth + 1, pre=[*inner.pre, f"{seen} = {{}}"], unique=True)

    def each_where(self, e: ast.Where, items: dict[int, str]) -> Loop:
        """The loop of `S where C`, written while the values worked out before it stand in C: over a
        joined count's keys when they are the values (`distinct(S.x) where count(S and it.x == v)
        ...`), else over S with C's card terms as look-ups."""
        return self.sc.loop(e, items, lambda inner, hoisted: self.where_loop(e, items, inner, hoisted))[2]

    def where_loop(self, e: ast.Where, items: dict[int, str], inner: dict[int, str], hoisted) -> Loop:
        sc = self.sc
        slot = self.c.p.slots[id(e)]
        var = inner[slot]
        vc = self.c.plan.value_counts.get(id(e))  # (lower.py)
        table = sc.joins.get(id(vc.count), ("",))[0] if vc is not None else ""  # its count joined, if it is
        # Pairs, as card games ask (count >= 2): the table marks a key seen again (`t[k] = k in t`).
        pairs = bool(table) and vc.op in (">=", ">") and sc.known_int(vc.k) == (2 if vc.op == ">=" else 1)
        cond = None if table else sc.src(e.cond, inner)
        pre, scans, ready = self.worked_out(hoisted, table if pairs else None)
        if table:  # the counts' keys, each key's count with it, a local (read twice, never fails)
            n = self.fresh("n")
            with sc.scope({**sc.hoisted, id(vc.count): Src(n, reads=True)}, sc.joins):
                cond = n if pairs else sc.src(e.cond, inner)
            return Loop(pre, [f"for {var}, {n} in {table}.items():", f"    if {cond}:"], 2, var, True,
                        self.keys_nonnone(vc.attr, table), None, scans=scans)
        seq = self.each(e.seq, items, var)
        pre += seq.pre
        lines = list(seq.lines)
        binds = seq.binds
        if seq.var != var:
            lines.append(f"{seq.at()}{var} = {seq.var}")
            binds = binds | {var}
        if seq.nonnone and self.c.type(e.seq) in (ZONE, "list[card]"):  # var holds a card
            ts = terms(sc, split(e.cond, "and", sc.hoisted), inner, var, self.inlined)
            cond = self.card_test(ts, var, ready, pre) or cond
        lines.append(f"{seq.at()}if {cond}:")
        safe = seq.safe and sc.safe(e.cond, frozenset([slot]))
        return seq.inside(lines, seq.depth + 1, pre=pre, var=var, safe=safe, scans=scans + seq.scans, binds=binds)

    def worked_out(self, hoisted, pairs: str | None = None, whole: bool = False):
        """(lines, scans, ready): the lines setting the values a loop's test reads worked out before
        it, the scans filling its joined counts' tables (table `pairs` marking keys seen again; with
        `whole`, none: each table filled in one go), the names the lines set."""
        pre: list[str] = []
        scans: list[Scan] = []
        ready = set()
        for name, src in hoisted:
            lines, scan = self.value(name, src, name == pairs, whole)
            pre += lines
            if scan is not None:
                scans.append(scan)
            else:
                ready.add(name)
        return pre, scans, ready

    def keys_nonnone(self, attr: str, table: str) -> bool:
        """Can no key of a joined count's table of `attr` be none? (None may be among the values,
        but not among those of the cards that pass its test.)"""
        values = self.g.attrs[attr]
        join = self.sc.join_parts[table]
        passing = self.truths(join.test, join.var) if None in values else [True] * len(values)
        return passing is not None and None not in [v for v, ok in zip(values, passing, strict=True) if ok]

    # -- tests of a card
    def card_test(self, ts: list[Term], var: str, ready: set[str], pre: list[str]) -> str | None:
        """Card `var`'s test, consecutive terms of its tables one look-up in a table of truths, with one
        `T[card] == v` (v `ready`) a look-up in a set of cards (found in `pre`); None if no term is.
        In order: nothing that could fail runs more or less often."""
        pieces: list[str] = []
        run: list[Term] = []
        eq = None
        plain = 0

        def flush() -> None:
            nonlocal eq, run
            if run or eq is not None:
                ok = [all(t.values[c] for t in run) for c in range(self.g.ncards)]
                pieces.append(f"({self.truth(ok, var) if eq is None else self.in_set(eq, ok, var, pre)})")
            run, eq = [], None

        for t in ts:
            if t.values is not None:
                run.append(t)
                continue
            side = self.eq_ready(t, ready)
            if side is None or eq is not None:
                flush()  # (before an `or`'s sets: their lines go after those of the terms before it)
            if side is not None:
                eq = side
                continue
            either = self.or_test(t, var, ready, pre)
            pieces.append(t.src if either is None else f"({either})")
            plain += either is None
        flush()
        return " and ".join(p for p in pieces if p != "(True)") or "True" if plain < len(pieces) else None

    def truth(self, ok: list[bool], var: str) -> str:
        if all(ok) or not any(ok):
            return str(all(ok))
        return f"{self.sc.const(self.sc.shared(('truth', tuple(ok)), lambda: tuple(ok)))}[{var}]"

    def or_test(self, t: Term, var: str, ready: set[str], pre: list[str]) -> str | None:
        """`A or B ...`, each part of the card's tables or `T[card] == v`: a look-up a part (those of the
        card alone as one), in any order since none can fail; else None."""
        if not (isinstance(t.node, ast.Binary) and t.node.op == "or") or id(t.node) in self.sc.hoisted:
            return None
        alone, eqs = [], []
        for part in terms(self.sc, split(t.node, "or", self.sc.hoisted), t.items, var, self.inlined, "or"):
            side = None if part.values is not None else self.eq_ready(part, ready)
            if part.values is None and side is None:
                return None
            (alone if side is None else eqs).append(part.values if side is None else side)
        ok = [any(values[c] for values in alone) for c in range(self.g.ncards)]
        if alone and all(ok):
            return "True"
        out = [self.truth(ok, var)] if any(ok) else []
        return " or ".join(out + [self.in_set(side, [True] * self.g.ncards, var, pre) for side in eqs])

    def in_set(self, eq: tuple[list, str], ok: list[bool], var: str, pre: list[str]) -> str:
        """`T[card] == v` for the cards passing `ok`: the set of those whose T is v, found in `pre`."""
        keys, value = eq
        sets: dict = {}
        for c, (k, passes) in enumerate(zip(keys, ok, strict=True)):
            if passes:
                sets.setdefault(k, []).append(c)
        table = self.sc.shared(("sets", tuple((k, tuple(v)) for k, v in sets.items())),
                               lambda: {k: frozenset(v) for k, v in sets.items()})
        empty = self.sc.const(self.sc.shared(("empty",), frozenset))
        name = self.fresh("s")
        # (a value that cannot be a key, a list, equals none of them)
        pre += [f"try: {name} = {self.sc.const(table)}.get({value}, {empty})", f"except TypeError: {name} = {empty}"]
        return f"{var} in {name}"

    def truths(self, src: str, var: str) -> list[bool] | None:
        values = card_values(self.sc, src, var)
        return None if values is None else [bool(v) for v in values]

    def eq_ready(self, term: Term, ready: set[str]) -> tuple[list, str] | None:
        """(T's value for each card, v's source) if the term is `T == v` or `v == T`, T a value of the
        card alone and v worked out before the loop."""
        x = term.node
        if id(x) in self.sc.hoisted or (isinstance(x, ast.Binary) and isinstance(x.right, ast.NoneLit)):
            return None
        for t, _, v in sides(x, ("==",)):
            if self.ready(v, ready, term.items) and term.slots & locals_read(self.c.p.refs, t):
                keys = card_values(self.sc, self.sc.src(t, term.items), term.items[next(iter(term.slots))])
                if keys is not None:
                    return keys, self.sc.src(v, term.items)
        return None

    def inlined(self, t: ast.Expr, items: dict[int, str]) -> tuple[ast.Expr, dict[int, str]] | None:
        """(body, its locals' names) if `t` is a define applied to loop items, written in place."""
        ref = self.c.p.refs.get(id(t)) if isinstance(t, ast.Call) else None
        if ref is None or ref[0] != "define" or id(t) in self.sc.hoisted or (len(ref) > 2 and ref[2] is not None):
            return None
        args = [self.sc.src(a, items) for a in t.args]
        info = self.c.p.defines[t.func]
        if self.sc.inline_define(info, args, all(self.sc.item(a, items) for a in t.args)) is None:
            return None
        return info.expr, dict(enumerate(args))

    def ready(self, v: ast.Expr, ready: set[str], items: dict[int, str]) -> bool:
        """Is `v` worked out before the loop, or a variable of the game or a local that is no
        loop's item (never changed while the loop runs, and its read cannot fail)?"""
        name = self.sc.hoisted.get(id(v))
        if name is not None:
            return name in ready
        ref = self.c.p.refs.get(id(v)) if isinstance(v, ast.Name) else None
        if ref is not None and ref[0] == "define" and not self.c.p.defines[ref[1]].params:
            return self.ready(self.c.p.defines[ref[1]].expr, ready, {})  # (written in place)
        return ref is not None and (ref[0] == "var" or (ref[0] == "local" and ref[1] not in items))

    # -- values worked out before a loop
    def value(self, name: str, src: str, pairs: bool, whole: bool = False) -> tuple[list[str], Scan | None]:
        """Lines setting `name` to a hoisted value; a joined count's table filled by a scan (`pairs`:
        marking keys seen again) where each card's key and test are its own, unless filled in one go
        (`whole`: no scan written to be dropped); else by the expression writer's count (no game has
        another: speed work for none)."""
        j = self.sc.join_parts.get(name)
        if j is None:
            node = self.sc.hoist_nodes.get(name)
            with suppress(NoSource):  # (not a scan: as the expression writer writes it)
                if node is not None:
                    return self.scalar(name, node), None
            return [f"{name} = {src}"], None
        spec = self.sc.zone_spec(j.where.seq)
        cards = not whole and spec is not None and self.g.zone_shape[self.g.zone_base[spec]] != GRID
        keys = card_values(self.sc, j.key_src, j.var) if cards else None
        passing = None if keys is None else self.truths(j.test, j.var) if j.test else [True] * self.g.ncards
        if passing is None:
            marks = [f"{name} = {{_k: _n > 1 for _k, _n in {name}.items()}}"] if pairs else []
            return [f"{name} = {src}", *marks], None
        k = self.fresh("k")
        add = [f"{name}[{k}] = {k} in {name}"] if pairs else \
            [f"if {k} in {name}: {name}[{k}] += 1", f"else: {name}[{k}] = 1"]
        t, m = self.marked(keys, passing)
        return [f"{name} = {{}}"], Scan(j.seq, j.var, lambda i: [
            f"{k} = {t}[{i}]", f"if {k} is not {m}:", *("    " + line for line in add)])

    def marked(self, keys: list, passing: list[bool]) -> tuple[str, str]:
        """A table of each card's key, or a mark where it does not pass (one look-up a card), and the mark."""
        mark = self.sc.shared(("mark",), object)
        table = tuple(x if ok else mark for x, ok in zip(keys, passing, strict=True))
        return self.sc.const(self.sc.shared(("keys", table), lambda: table)), self.sc.const(mark)

    def scalar(self, name: str, e: ast.Expr) -> list[str]:
        """Lines setting `name` to the value of `e` (outside any loop), with a scan over a zone as a loop
        that stops early."""
        ref = self.c.p.refs.get(id(e)) if isinstance(e, ast.Name) else None
        if ref is not None and ref[0] == "define":
            info = self.c.p.defines[ref[1]]
            if info.params or self.sc.reading(lambda: self.sc.src(info.expr, {}))[1]:
                raise NoSource("define with locals")
            return self.scalar(name, info.expr)
        if isinstance(e, ast.Attr) and self.c.type(e.obj) == CARD and e.name in self.g.attrs:
            table = self.sc.const(self.g.attrs[e.name])
            return self.scalar(name, e.obj) + [f"if {name} is not None: {name} = {table}[{name}]"]
        if builtin(self.c, e, "top", "last", "first", "bottom") and isinstance(e.args[0], ast.Where) \
                and self.sc.zone_spec(e.args[0].seq) is not None:
            lp = self.each_where(e.args[0], {})
            if lp.scans:
                raise NoSource("a scan filling a joined count's table")
            v, top = lp.var, e.func in ("top", "last")
            found = [f"{lp.at()}{name} = {v}", f"{lp.at()}break"]
            if top and len(lp.lines) == 2 and lp.head == v:
                # The top first: often the one (a card just put there), and no loop to start then.
                z = self.fresh("z")
                return [f"{name} = None", *lp.pre, f"{z} = {lp.src}", f"if {z}:", f"    {v} = {z}[-1]",
                        f"    {lp.lines[1][4:]}", f"        {name} = {v}", "    else:",
                        f"        for {v} in reversed({z}):", *("        " + line for line in [lp.lines[1], *found])]
            src = f"reversed({lp.src})" if top else lp.src
            return [f"{name} = None", *lp.pre, f"for {lp.head} in {src}:", *lp.lines[1:], *found]
        raise NoSource("not a scan")

    # -- zones
    def zone_src(self, e: ast.Expr, spec: int, items: dict[int, str]) -> tuple[str, bool]:
        """The zone's source, and whether reading it cannot fail (its owner is never none)."""
        base = self.g.zone_base[spec]
        if isinstance(e, ast.Name):
            return f"{ST.zones}[{base}]", True
        owner = self.sc.src(e.obj, items)
        p = self.sc.player(e.obj, owner, e.name)
        return f"{ST.zones}[{base} + {p}]", p == owner
