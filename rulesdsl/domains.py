"""The options of a decision as Python statements, for generated functions.

An expression gives a `choose` its options as a list, then a second pass drops repeats and merges
identical cards of a hand (`Game.distinct_cards`). In a generated function a domain can instead be
plain `for` loops that filter and merge as they go, and append each option where it belongs: no
comprehension (each one is a call in Python 3.11), no second pass. Values a condition needs that do
not depend on the item are worked out before the loop, as the expression form does, and a
`top(S where C)` among them is a loop that stops at the first match. Forms not handled here raise
`NoSource`, and the caller keeps the expression form.
"""

from __future__ import annotations

import re

from . import ast
from .checker import CARD, ZONE
from .codegen import NoSource
from .engine.state import GRID, HAND


class Loop:
    """How generated statements go over a list's values: `pre` lines and `scans` (loops over
    zones, see Plan) run once first, then `lines` (each opening one more level when it ends with
    ':'), inside which `var` holds each value in order. `unique`: no value twice; `nonnone`: never
    none; `zone`: the zone spec all the values (cards) are in, or None; `src`: the zone the outer
    loop goes over (its first line), or None; `safe`: nothing in it can fail."""

    def __init__(self, pre, lines, depth, var, unique, nonnone, zone, src=None, safe=False, scans=None):
        self.pre, self.lines, self.depth, self.var = pre, lines, depth, var
        self.unique, self.nonnone, self.zone = unique, nonnone, zone
        self.src, self.safe, self.scans = src, safe, scans or []
        self.fors = sum(1 for line in lines if line.lstrip().startswith("for "))

    def at(self) -> str:
        return "    " * self.depth


class Plan:
    """A domain's statements in three parts: `pre` lines (values worked out first), `scans`
    (src, var, body): loops `for var in src:` over zones that cannot fail, so loops over the same
    zone may run as one, then `post` lines. `TARGET` in them is the list the options go to."""

    def __init__(self, pre=None, scans=None, post=None):
        self.pre: list[str] = pre or []
        self.scans: list[tuple[str, str, list[str]]] = scans or []
        self.post: list[str] = post or []

    def lines(self, target: str) -> list[str]:
        out = list(self.pre)
        for src, var, body in self.scans:
            out += [f"for {var} in {src}:", *("    " + line for line in body)]
        return [line.replace(TARGET, target) for line in out + self.post]

    def appends_in_scan(self) -> bool:
        return any(TARGET in line for _, _, body in self.scans for line in body)


TARGET = "@TARGET@"


def fuse(plans: list[Plan], own: str) -> list[str]:
    """The lines of consecutive plans (of actions, in order), loops over the same zone run as
    one. Each plan's options still come in its turn: a plan that appends inside a shared loop,
    but the first, appends to a list of its own (`own`, a format with {i}) added after its turn."""
    if all(len(v) < 2 for v in _by_src(plans, []).values()):
        return [line for p in plans for line in p.lines("opts")]
    targets = ["opts" if i == 0 or not p.appends_in_scan() else own.format(i=i) for i, p in enumerate(plans)]
    out = [line.replace(TARGET, t) for p, t in zip(plans, targets, strict=True) for line in p.pre]
    out += [f"{t} = []" for t in targets if t != "opts"]
    for src, scans in _by_src(plans, targets).items():
        if len(scans) == 1:
            var, body = scans[0]
            out += [f"for {var} in {src}:", *("    " + line for line in body)]
            continue
        first = scans[0][0]
        if any(re.search(rf"(^|[^\w.]){first}\s*(=|:=)[^=]|for {first}\b", line) for _, body in scans for line in body):
            first = "_wz"  # a body sets that name: the item goes in a name of its own
        out.append(f"for {first} in {src}:")
        for var, body in scans:
            if var != first:
                out.append(f"    {var} = {first}")
            out += ["    " + line for line in body]
    for p, t in zip(plans, targets, strict=True):
        out += [line.replace(TARGET, t) for line in p.post]
        if t != "opts":
            out.append(f"opts += {t}")
    return out


def _by_src(plans: list[Plan], targets: list[str]) -> dict[str, list[tuple[str, list[str]]]]:
    """The plans' scans by the zone they go over, in order, their bodies appending to their target."""
    out: dict[str, list[tuple[str, list[str]]]] = {}
    for i, p in enumerate(plans):
        t = targets[i] if targets else "opts"
        for src, var, body in p.scans:
            out.setdefault(src, []).append((var, [line.replace(TARGET, t) for line in body]))
    return out


class DomainWriter:
    """Statements for domains, using the source compiler `sc` for the expressions in them."""

    def __init__(self, sc):
        self.sc = sc
        self.c = sc.c
        self.g = sc.c.g
        self.n = 0

    def fresh(self, stem: str) -> str:
        self.n += 1
        return f"_w{stem}{self.n}"

    # -- a decision's options
    def options(self, e: ast.Expr, distinct, chooser: str, target: str, item: str) -> list[str]:
        """Lines appending to `target` each option of domain `e`, as `item` (a format with {v})
        makes it: the options `distinct(st, values, chooser)` would give, in the same order."""
        return self.plan(e, distinct, chooser, item).lines(target)

    def plan(self, e: ast.Expr, distinct, chooser: str, item: str) -> Plan:
        from .engine.game import distinct_plain

        if not self.c.codegen:
            raise NoSource("closures only")
        lp = self.each(e, {}, None)
        v = lp.var
        target = TARGET
        add = f"{target}.append({item.format(v=v)})"
        body: list[str]
        if distinct is distinct_plain or (lp.unique and lp.nonnone and lp.zone is not None
                                          and self.g.zone_shape[self.g.zone_base[lp.zone]] != HAND):
            if lp.unique and lp.nonnone:
                body = [add]
            elif lp.unique:
                body = [f"if {v} is not None: {add}"]
            else:
                seen = self.fresh("u")
                lp.pre.append(f"{seen} = {{}}")
                body = [f"if {v} is not None and {v} not in {seen}:", f"    {seen}[{v}] = None", f"    {add}"]
        elif lp.unique and lp.nonnone and lp.zone is not None:
            # Identical cards of a hand the chooser knows: one option per face, the first place
            # kept, the card more players know preferred (as Game.distinct_cards does).
            first, kn, face = self.fresh("f"), self.fresh("kn"), self.fresh("fc")
            faces = self.sc.const(self.g.card_face)
            got = item.format(v=v)
            kept = f"{target}[{first}[{face}]]" if item == "{v}" else f"{target}[{first}[{face}]][1]"
            lp.pre += [f"{first} = {{}}", f"{kn} = st.known"]
            body = [
                f"if {kn}[{v}] >> {chooser} & 1:",
                f"    {face} = {faces}[{v}]",
                f"    if {face} not in {first}:",
                f"        {first}[{face}] = len({target})",
                f"        {add}",
                f"    elif {kn}[{v}].bit_count() > {kn}[{kept}].bit_count():",
                f"        {target}[{first}[{face}]] = {got}",
                "else:",
                f"    {add}",
            ]
        else:
            raise NoSource("options that need Game.distinct_cards")
        inside = lp.lines + [lp.at() + line for line in body]
        if lp.src is not None and lp.safe and not lp.scans:  # (a loop reading a table waits for it)
            var = lp.lines[0][4:].split(" in ", 1)[0]
            return Plan(lp.pre, [*lp.scans, (lp.src, var, [line[4:] for line in inside[1:]])])
        return Plan(lp.pre, lp.scans, inside)

    # -- going over a list
    def each(self, e: ast.Expr, items: dict[int, str], var: str | None) -> Loop:
        spec = self.sc.zone_spec(e)
        if spec is not None:
            v = var or self.fresh("c")
            src = self.zone_src(e, spec, items)
            safe = "_player(" not in src  # a zone of a player who may be none fails
            if self.g.zone_shape[self.g.zone_base[spec]] == GRID:
                return Loop([], [f"for {v} in {src}:", f"    if {v} is not None:"], 2, v, True, True, spec, src, safe)
            return Loop([], [f"for {v} in {src}:"], 1, v, True, True, spec, src, safe)
        if isinstance(e, ast.Attr) and self.c.type(e.obj) == "list[player]" and self.c.type(e) == "list[card]" \
                and e.name in self.g.zone_spec_names:
            # `(others where ...).square`: each player's zone in turn
            spec = self.g.zone_spec_names.index(e.name)
            base = self.g.zone_base[spec]
            inner = self.each(e.obj, items, None)
            p, v = inner.var, var or self.fresh("c")
            at = inner.at()
            lines = list(inner.lines)
            if not inner.nonnone:
                lines.append(f"{at}if {p} is not None:")
                at += "    "
            lines += [f"{at}for {v} in st.zones[{base} + {p}]:", f"{at}    if {v} is not None:"]
            hand = self.g.zone_shape[base] == HAND  # identical cards merge within one hand only
            return Loop(inner.pre, lines, len(at) // 4 + 2, v, inner.unique, True, None if hand else spec,
                        inner.src, inner.safe, inner.scans)
        if isinstance(e, ast.Where):
            return self.each_where(e, items)
        if isinstance(e, ast.Call) and e.func == "distinct" and len(e.args) == 1 \
                and self.c.p.refs.get(id(e)) is None:
            inner = self.each(e.args[0], items, None)
            seen = self.fresh("s")
            at = inner.at()
            lines = inner.lines + [f"{at}if {inner.var} not in {seen}:", f"{at}    {seen}[{inner.var}] = None"]
            return Loop(inner.pre + [f"{seen} = {{}}"], lines, inner.depth + 1, inner.var, True, inner.nonnone,
                        inner.zone, inner.src, inner.safe, inner.scans)
        if isinstance(e, ast.Attr) and self.c.type(e.obj) in (ZONE, "list[card]") and e.name in self.g.attrs:
            inner = self.each(e.obj, items, None)
            if not inner.nonnone:
                raise NoSource("attribute of a list that may hold none")
            table = self.g.attrs[e.name]
            v = self.fresh("a")
            lines = inner.lines + [f"{inner.at()}{v} = {self.sc.const(table)}[{inner.var}]"]
            return Loop(inner.pre, lines, inner.depth, v, False, None not in table, None, inner.src, inner.safe,
                        inner.scans)
        ref = self.c.p.refs.get(id(e)) if isinstance(e, ast.Name) else None
        if ref is not None and ref[0] == "define" and not self.c.p.defines[ref[1]].params \
                and "env" not in self.sc.src(e, items):
            return self.each(self.c.p.defines[ref[1]].expr, {}, var)  # a define's list, written in place
        src = self.sc.src(e, items)
        if isinstance(e, ast.ListLit):
            src = f"({src})"
        elif isinstance(e, ast.PlayersExpr) and e.start is not None:
            src = src.removesuffix("[:]")  # only iterated: no copy
        elif ref == ("builtin", "others"):
            src = f"{self.sc.rounds()}[st.direction][st.current][1:]"
        v = var or self.fresh("x")
        plain = isinstance(e, ast.PlayersExpr) or ref == ("builtin", "others")
        return Loop([], [f"for {v} in {src}:"], 1, v, plain, plain, None)

    def each_where(self, e: ast.Where, items: dict[int, str]) -> Loop:
        sc = self.sc
        var, _, cond, hoisted = sc.loop(e, items)
        pre: list[str] = []
        scans = []
        for name, value in hoisted:
            lines, scan = self.value(name, value)
            pre += lines
            if scan is not None:
                scans.append(scan)
        table = self.counted(e.seq, [name for name, _ in hoisted], items)
        if table is not None:  # `distinct(S.x) where count(S and it.x == v) ...`: the counts' keys
            nonnone = None not in self.g.attrs[e.seq.args[0].name]
            return Loop(pre, [f"for {var} in {table}:", f"    if {cond}:"], 2, var, True, nonnone, None, scans=scans)
        inner = self.each(e.seq, items, var)
        pre += inner.pre
        lines = list(inner.lines)
        if inner.var != var:
            lines.append(f"{inner.at()}{var} = {inner.var}")
        lines.append(f"{inner.at()}if {cond}:")
        safe = inner.safe and sc.safe(e.cond, frozenset([self.c.p.slots[id(e)]]))
        return Loop(pre, lines, inner.depth + 1, var, inner.unique, inner.nonnone, inner.zone, inner.src, safe,
                    scans + inner.scans)

    def counted(self, e: ast.Expr, names: list[str], items: dict[int, str]) -> str | None:
        """A joined count's table whose keys are the values of `e` in order, if `e` is
        `distinct((S where C).x)` and the table counts `it.x` over `S where C` (a zone): the keys
        of a dict keep the order in which they first came."""
        if not (isinstance(e, ast.Call) and e.func == "distinct" and len(e.args) == 1
                and self.c.p.refs.get(id(e)) is None and isinstance(e.args[0], ast.Attr)):
            return None
        attr = e.args[0]
        w = attr.obj
        if not (isinstance(w, ast.Where) and self.c.type(w) == "list[card]" and attr.name in self.g.attrs
                and self.sc.zone_spec(w.seq) is not None):
            return None
        sc = self.sc
        var = f"_i{self.c.p.slots[id(w)]}"
        inner = dict(items)
        inner[self.c.p.slots[id(w)]] = var
        terms: list[ast.Expr] = []
        conj(w.cond, terms)
        mine = (var, sc.loop_seq(w, items), " and ".join(f"({sc.src(t, inner)})" for t in terms),
                f"{sc.const(self.g.attrs[attr.name])}[{var}]")
        for name in names:
            parts = sc.join_parts.get(name)
            if parts is not None and parts[1] == mine[1] \
                    and [_rename(x, parts[0]) for x in parts[2:]] == [_rename(x, var) for x in mine[2:]]:
                return name
        return None

    # -- values worked out before a loop
    def value(self, name: str, src: str) -> tuple[list[str], tuple[str, str, list[str]] | None]:
        """Lines setting `name` to a hoisted value, and for a join's table of counts the loop
        (a Plan's scan) that fills it; a `top(...)` is a loop that stops at the first match."""
        sc = self.sc
        join = sc.join_parts.get(name)
        if join is not None:
            key_var, seq, test, key = join
            k = self.fresh("k")
            body = [f"if {test}:"] if test else []
            at = "    " if test else ""
            body += [f"{at}{k} = {key}", f"{at}if {k} in {name}: {name}[{k}] += 1", f"{at}else: {name}[{k}] = 1"]
            return [f"{name} = {{}}"], (seq, key_var, body)
        node = sc.hoist_nodes.get(name)
        if node is not None:
            try:
                return self.scalar(name, node, {}), None
            except NoSource:
                pass
        return [f"{name} = {src}"], None

    def scalar(self, name: str, e: ast.Expr, items: dict[int, str]) -> list[str]:
        """Lines setting `name` to the value of `e`, with a scan over a zone as a loop that stops early."""
        ref = self.c.p.refs.get(id(e)) if isinstance(e, ast.Name) else None
        if ref is not None and ref[0] == "define":
            info = self.c.p.defines[ref[1]]
            if info.params or "env" in self.sc.src(info.expr, {}):
                raise NoSource("define with locals")
            return self.scalar(name, info.expr, {})
        if isinstance(e, ast.Attr) and self.c.type(e.obj) == CARD and e.name in self.g.attrs:
            table = self.sc.const(self.g.attrs[e.name])
            return self.scalar(name, e.obj, items) + [f"if {name} is not None: {name} = {table}[{name}]"]
        if isinstance(e, ast.Call) and e.func in ("top", "last", "first", "bottom") and len(e.args) == 1 \
                and isinstance(e.args[0], ast.Where) and self.c.p.refs.get(id(e)) is None \
                and self.sc.zone_spec(e.args[0].seq) is not None:
            lp = self.each_where(e.args[0], items)
            if lp.fors != 1 or lp.scans:
                raise NoSource("scan of nested loops")
            if e.func in ("top", "last"):
                lp.lines[0] = lp.lines[0].replace(" in ", " in reversed(", 1)[:-1] + "):"
            return [f"{name} = None"] + lp.pre + lp.lines + [f"{lp.at()}{name} = {lp.var}", f"{lp.at()}break"]
        raise NoSource("not a scan")

    # -- zones
    def zone_src(self, e: ast.Expr, spec: int, items: dict[int, str]) -> str:
        base = self.g.zone_base[spec]
        if isinstance(e, ast.Name):
            return f"st.zones[{base}]"
        p = self.sc.player(e.obj, self.sc.src(e.obj, items), e.name)
        return f"st.zones[{base} + {p}]"


def conj(node: ast.Expr, out: list[ast.Expr]) -> None:
    """The terms of `a and b and ...`."""
    if isinstance(node, ast.Binary) and node.op == "and":
        conj(node.left, out)
        conj(node.right, out)
    else:
        out.append(node)


def _rename(src: str, var: str) -> str:
    return re.sub(rf"\b{var}\b", "@", src)
