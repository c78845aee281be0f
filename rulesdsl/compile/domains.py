"""The options of a decision as Python statements, for generated functions.

An expression gives a `choose` its options as a list, then a second pass drops repeats and merges
identical cards of a hand (`Game.distinct_cards`). In a generated function a domain can instead be
plain `for` loops that filter and merge as they go, and append each option where it belongs: no
comprehension (each one is a call in Python 3.11), no second pass. Values a condition needs that do
not depend on the item are worked out before the loop, as the expression form does, and a
`top(S where C)` among them is a loop that stops at the first match. A test of a card that reads
only the card's own tables (kind, attributes) is worked out for every card when the rules load,
and `it.x == v` for a v known before the loop is a look-up in the set of cards whose x is v.
Forms not handled here raise `NoSource`, and the caller keeps the expression form.
"""

from __future__ import annotations

import ast as pyast
import re

from .. import ast
from ..checker import CARD, ZONE
from ..engine.game import distinct_plain
from ..engine.state import GRID, HAND
from .source import ST, NoSource, naming


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
        if any(_sets(first, line) for _, body in scans for line in body):
            first = "_wz"  # a body sets that name: the item goes in a name of its own
        out.append(f"for {first} in {src}:")
        for var, body in scans:
            if var != first and not any(_sets(var, line) for line in body):
                body = [re.sub(rf"\b{var}\b", first, line) for line in body]  # the item by the loop's name
            elif var != first:
                out.append(f"    {var} = {first}")
            out += ["    " + line for line in body]
    for p, t in zip(plans, targets, strict=True):
        out += [line.replace(TARGET, t) for line in p.post]
        if t != "opts":
            out.append(f"opts += {t}")
    return out


def _sets(name: str, line: str) -> bool:
    """Does this line of Python set `name`?"""
    return re.search(rf"(^|[^\w.]){name}\s*([-+*/%&|^@]|//|\*\*|<<|>>)?(=|:=)[^=]|\bfor\b[^:]*\b{name}\b[^:]*\bin\b",
                     line) is not None


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
        self.values: dict[str, list | None] = {}  # see card_values

    def fresh(self, stem: str) -> str:
        self.n += 1
        return f"_w{stem}{self.n}"

    # -- a decision's options
    def options(self, e: ast.Expr, distinct, chooser: str, target: str, item: str) -> list[str]:
        """Lines appending to `target` each option of domain `e`, as `item` (a format with {v})
        makes it: the options `distinct(st, values, chooser)` would give, in the same order."""
        return self.plan(e, distinct, chooser, item).lines(target)

    def plan(self, e: ast.Expr, distinct, chooser: str, item: str) -> Plan:

        if not self.c.shortcuts:
            raise NoSource("the plain way: options listed by the domain's value")
        if isinstance(e, ast.ListLit) and distinct is distinct_plain:
            try:  # a list of constants (`[true, false]`): its options are known now
                values = pyast.literal_eval(self.sc.src(e, {}))
                options = tuple(pyast.literal_eval(item.format(v=repr(x)))
                                for x in dict.fromkeys(values) if x is not None)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
            else:
                return Plan(post=[f"{TARGET} += {self.sc.const(options)}"])
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
            k = self.fresh("k")
            kept = self.fresh("p")
            lp.pre += [f"{first} = {{}}", f"{kn} = {ST.known}"]
            # The first card of a face takes a place without a look at what is known: alone on its
            # face, it is an option either way. A second one sorts it out: a card the chooser does
            # not know is an option of its own; one it knows takes the face's place if the card
            # there is unknown (a place of its own), else if more players know it (a rare case:
            # the place is looked for; the options hold that card once). Most often both are
            # known alike (a hand's cards, all seen by their holder alone): one test settles it.
            kk = self.fresh("kk")
            body = [
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
                f"        {target}[{target}.index({item.format(v=kept)})] = {got}",
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
            src, safe = self.zone_src(e, spec, items)  # (a zone of a player who may be none fails)
            if self.g.zone_shape[self.g.zone_base[spec]] == GRID:
                return Loop([], [f"for {v} in {src}:", f"    if {v} is not None:"], 2, v, True, True, spec, src, safe)
            return Loop([], [f"for {v} in {src}:"], 1, v, True, True, spec, src, safe)
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
                and not self.sc.reading(lambda: self.sc.src(e, items))[1]:
            return self.each(self.c.p.defines[ref[1]].expr, {}, var)  # a define's list, written in place
        src = self.sc.src(e, items)
        if isinstance(e, ast.ListLit):
            src = f"({src})"
        elif isinstance(e, ast.PlayersExpr) and e.start is not None:
            src = src.removesuffix("[:]")  # only iterated: no copy
        elif ref == ("builtin", "others"):
            src = f"{self.sc.rounds()}[st.direction][{ST.current}][1:]"
        v = var or self.fresh("x")
        plain = isinstance(e, ast.PlayersExpr) or ref == ("builtin", "others")
        return Loop([], [f"for {v} in {src}:"], 1, v, plain, plain, None)

    def each_where(self, e: ast.Where, items: dict[int, str]) -> Loop:
        sc = self.sc
        var, _, cond, hoisted = sc.loop(e, items)
        pre: list[str] = []
        scans = []
        ready = set()  # hoisted values worked out before the loop (not tables filled in a scan)
        for name, value in hoisted:
            lines, scan = self.value(name, value)
            pre += lines
            if scan is not None:
                scans.append(scan)
            else:
                ready.add(name)
        counted = self.counted(e.seq, [name for name, _ in hoisted], items)
        if counted is not None:  # `distinct(S.x) where count(S and it.x == v) ...`: the counts' keys
            table, nonnone = counted
            n = self.fresh("n")
            if f"{table}.get({var}, 0)" in cond:  # each key's count comes with it
                cond = cond.replace(f"{table}.get({var}, 0)", n)
                cond = self.pairs(cond, n, table, scans)
                return Loop(pre, [f"for {var}, {n} in {table}.items():", f"    if {cond}:"], 2, var, True, nonnone,
                            None, scans=scans)
            return Loop(pre, [f"for {var} in {table}:", f"    if {cond}:"], 2, var, True, nonnone, None, scans=scans)
        inner = self.each(e.seq, items, var)
        pre += inner.pre
        lines = list(inner.lines)
        if inner.var != var:
            lines.append(f"{inner.at()}{var} = {inner.var}")
        if inner.nonnone and self.c.type(e.seq) in (ZONE, "list[card]"):  # var holds a card
            cond, more = self.card_test(cond, var, ready)
            pre += more
        lines.append(f"{inner.at()}if {cond}:")
        safe = inner.safe and sc.safe(e.cond, frozenset([self.c.p.slots[id(e)]]))
        return Loop(pre, lines, inner.depth + 1, var, inner.unique, inner.nonnone, inner.zone, inner.src, safe,
                    scans + inner.scans)

    @staticmethod
    def pairs(cond: str, n: str, table: str, scans: list) -> str:
        """A count read only as "at least two" (`count(...) >= 2`, pairs, as card games ask):
        the scan that fills the table marks a key seen again (`t[k] = k in t`) instead of
        counting it, one step a card instead of two; the test reads the mark."""
        if cond not in (f"({n} >= 2)", f"({n} > 1)", f"(2 <= {n})", f"(1 < {n})"):
            return cond
        for i, (src, var, body) in enumerate(scans):
            for j in range(len(body) - 1):
                m = re.fullmatch(rf"(\s*)if (\w+) in {re.escape(table)}: {re.escape(table)}\[\2\] \+= 1", body[j])
                if m and body[j + 1] == f"{m[1]}else: {table}[{m[2]}] = 1":
                    body = [*body[:j], f"{m[1]}{table}[{m[2]}] = {m[2]} in {table}", *body[j + 2:]]
                    scans[i] = (src, var, body)
                    return n
        return cond

    def counted(self, e: ast.Expr, names: list[str], items: dict[int, str]) -> tuple[str, bool] | None:
        """A joined count's table whose keys are the values of `e` in order, if `e` is
        `distinct((S where C).x)` and the table counts `it.x` over `S where C` (a zone): the keys
        of a dict keep the order in which they first came. With it: whether no key can be none."""
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
                values = self.g.attrs[attr.name]
                if None not in values:
                    return name, True
                # none among the values, but maybe not among those of the cards that pass C
                passing = self.card_table(mine[2], var)
                return name, passing is not None and None not in [v for v, ok in zip(values, passing, strict=True)
                                                                    if ok]
        return None

    # -- tests of a card
    def card_test(self, cond: str, var: str, ready: set[str]) -> tuple[str, list[str]]:
        """`cond`, a test of card `var`, with its parts that read only the card's own tables (kind,
        attributes, face) looked up in one table of truth values worked out now, for every card;
        and a part `T[card] == v` among them, v a value worked out before the loop (`ready`), as
        one look-up in a set of cards (the one for v, found before the loop: the other lines).
        Consecutive parts only, in their order: nothing that could fail runs more or less often."""
        text = cond.strip()
        try:
            tree = pyast.parse(text, mode="eval").body
        except SyntaxError:
            return cond, []
        _Source(text).mark(tree)
        terms: list[pyast.expr] = []
        _bool_terms(tree, pyast.And, terms)
        pieces: list[str] = []
        pre: list[str] = []
        run: list[pyast.expr] = []  # parts that read only the card's tables
        eq: tuple[pyast.expr, str] | None = None  # and one `T[card] == v`, v ready

        tabled = False

        def flush() -> None:
            nonlocal eq, run, tabled
            if run or eq is not None:
                pieces.append(self.run_test(run, eq, var, pre))
                tabled = True
            run, eq = [], None

        for t in terms:
            if self.card_table(_src(t), var) is not None:
                run.append(t)
                continue
            more: list[str] = []
            either = self.or_test(t, var, ready, more)
            if either is not None:
                flush()
                pieces.append(either)
                pre += more
                tabled = True
                continue
            side = self.eq_ready(t, var, ready)
            if side is not None and eq is None:
                eq = side
                continue
            flush()
            if side is not None:
                eq = side
                continue
            pieces.append(_src(t))
        flush()
        if not tabled:
            return cond, []
        pieces = [p for p in pieces if p != "True"]
        return " and ".join(f"({p})" for p in pieces) or "True", pre

    def run_test(self, run: list[pyast.expr], eq, var: str, pre: list[str]) -> str:
        """One piece of card_test: a look-up in a table of truth values or in a set of cards."""
        src = " and ".join(f"({_src(t)})" for t in run) or "True"
        ok = self.card_table(src, var)
        assert ok is not None
        if eq is None:
            if all(ok):
                return "True"
            if not any(ok):
                return "False"
            return f"{self.sc.const(self.sc.shared(('truth', tuple(ok)), lambda: tuple(ok)))}[{var}]"
        return self.in_set(eq, ok, var, pre)

    def or_test(self, t: pyast.expr, var: str, ready: set[str], pre: list[str]) -> str | None:
        """A piece of card_test for `A or B or ...`, each part a test of the card's tables or a
        `T[card] == v` (see card_test): a look-up per part (those of the card alone as one), in
        any order since none can fail. None if it is not of that form."""
        if not (isinstance(t, pyast.BoolOp) and isinstance(t.op, pyast.Or)):
            return None
        parts: list[pyast.expr] = []
        _bool_terms(t, pyast.Or, parts)
        alone, eqs = [], []
        for part in parts:
            if self.card_table(_src(part), var) is not None:
                alone.append(part)
                continue
            side = self.eq_ready(part, var, ready)
            if side is None:
                return None
            eqs.append(side)
        out = []
        if alone:
            ok = self.card_table(" or ".join(f"({_src(part)})" for part in alone), var)
            assert ok is not None
            if all(ok):
                return "True"
            if any(ok):
                out.append(f"{self.sc.const(self.sc.shared(('truth', tuple(ok)), lambda: tuple(ok)))}[{var}]")
        every = [True] * self.g.ncards
        return " or ".join(out + [self.in_set(side, every, var, pre) for side in eqs])

    def in_set(self, eq: tuple[pyast.expr, str], ok: list[bool], var: str, pre: list[str]) -> str:
        """`T[card] == v` for the cards that pass `ok`, as a look-up in the set of those cards
        whose T is v, found before the loop (lines added to `pre`)."""
        node, value = eq
        keys = self.card_values(_src(node), var)
        assert keys is not None
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

    def card_values(self, src: str, var: str) -> list | None:
        """The value of expression `src` for each card as `var` (SourceCompiler.card_values), when
        every value may be a key (of a set or a dict); else None. Remembered per expression."""
        key = _rename(src, var)
        if key not in self.values:
            out = self.sc.card_values(src, var)
            try:
                for v in out or ():
                    hash(v)
            except TypeError:  # a value that is no key: left as it is
                out = None
            self.values[key] = out
        return self.values[key]

    def card_table(self, src: str, var: str) -> list[bool] | None:
        """Whether test `src` holds for each card as `var` (see card_values), or None."""
        values = self.card_values(src, var)
        if values is None:
            return None
        try:
            return [bool(v) for v in values]
        except Exception:
            return None

    def eq_ready(self, t: pyast.expr, var: str, ready: set[str]) -> tuple[pyast.expr, str] | None:
        """(T, v) if `t` is `T == v` or `v == T`, T a value of the card alone, v a name in `ready`."""
        if not (isinstance(t, pyast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], pyast.Eq)):
            return None
        for node, other in ((t.left, t.comparators[0]), (t.comparators[0], t.left)):
            if self.ready(other, var, ready) and self.card_values(_src(node), var) is not None:
                return node, _src(other)
        return None

    def ready(self, e: pyast.expr, var: str, ready: set[str]) -> bool:
        """Is `e` a value worked out before the loop (a name in `ready`), or a variable of the game
        (`st.vars[i]`: never changed while options are listed, it cannot fail)?"""
        if isinstance(e, pyast.Name):
            return e.id in ready and e.id != var
        return isinstance(e, pyast.Subscript) and pyast.unparse(e.value) == naming().name("vars") \
            and isinstance(e.slice, pyast.Constant) and type(e.slice.value) is int \
            and 0 <= e.slice.value < len(self.g.var_init)

    # -- values worked out before a loop
    def value(self, name: str, src: str) -> tuple[list[str], tuple[str, str, list[str]] | None]:
        """Lines setting `name` to a hoisted value, and for a join's table of counts the loop
        (a Plan's scan) that fills it; a `top(...)` is a loop that stops at the first match."""
        sc = self.sc
        join = sc.join_parts.get(name)
        if join is not None:
            key_var, seq, test, key = join
            k = self.fresh("k")
            m = re.fullmatch(r"(?:st\.|_S)zones\[(\d+)( \+ .+)?\]", seq)
            if m is not None and self.g.zone_shape[int(m[1])] != GRID:  # the items are cards
                keys = self.card_values(key, key_var)
                passing = self.card_table(test, key_var) if test else [True] * self.g.ncards
                if keys is not None and passing is not None:
                    # One look-up per card: its key, or a mark that it does not count.
                    out = self.sc.shared(("mark",), object)
                    table = tuple(v if ok else out for v, ok in zip(keys, passing, strict=True))
                    t = self.sc.const(self.sc.shared(("keys", _rename(key, key_var), _rename(test, key_var)),
                                                     lambda: table))
                    mark = self.sc.const(out)
                    return [f"{name} = {{}}"], (seq, key_var, [
                        f"{k} = {t}[{key_var}]", f"if {k} is not {mark}:",
                        f"    if {k} in {name}: {name}[{k}] += 1", f"    else: {name}[{k}] = 1"])
                test, more = self.card_test(test, key_var, set()) if test else (test, [])
            else:
                more = []
            body = [f"if {test}:"] if test else []
            at = "    " if test else ""
            body += [f"{at}{k} = {key}", f"{at}if {k} in {name}: {name}[{k}] += 1", f"{at}else: {name}[{k}] = 1"]
            return [f"{name} = {{}}", *more], (seq, key_var, body)
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
            if info.params or self.sc.reading(lambda: self.sc.src(info.expr, {}))[1]:
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
            end = "-1" if e.func in ("top", "last") else "0"
            if end == "-1":
                lp.lines[0] = lp.lines[0].replace(" in ", " in reversed(", 1)[:-1] + "):"
            found = [f"{lp.at()}{name} = {lp.var}", f"{lp.at()}break"]
            if len(lp.lines) == 2 and lp.src is not None and lp.lines[0].startswith(f"for {lp.var} in ") \
                    and lp.lines[1].startswith("    if "):
                # The end of the zone first: often the one (no loop to start then).
                z, v = self.fresh("z"), lp.var
                loop = [lp.lines[0].replace(f" in reversed({lp.src}):", f" in reversed({z}):", 1)
                        .replace(f" in {lp.src}:", f" in {z}:", 1), lp.lines[1], *found]
                return [f"{name} = None", *lp.pre, f"{z} = {lp.src}", f"if {z}:", f"    {v} = {z}[{end}]",
                        f"    {lp.lines[1].strip()}", f"        {name} = {v}", "    else:",
                        *("        " + line for line in loop)]
            return [f"{name} = None"] + lp.pre + lp.lines + found
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


def conj(node: ast.Expr, out: list[ast.Expr]) -> None:
    """The terms of `a and b and ...`."""
    if isinstance(node, ast.Binary) and node.op == "and":
        conj(node.left, out)
        conj(node.right, out)
    else:
        out.append(node)


class _Source:
    """The text of each node of a parsed one-line expression, kept on the node (cheaper than
    ast.unparse, which this falls back to; offsets are in bytes of UTF-8)."""

    def __init__(self, text: str):
        self.data = text.encode()
        self.one_line = "\n" not in text

    def mark(self, tree: pyast.AST) -> None:
        for node in pyast.walk(tree):
            if isinstance(node, pyast.expr):
                node.text = self.data[node.col_offset:node.end_col_offset].decode() if self.one_line else None


def _src(node: pyast.expr) -> str:
    text = getattr(node, "text", None)
    return text if text is not None else pyast.unparse(node)


def _bool_terms(node: pyast.expr, op: type, out: list[pyast.expr]) -> None:
    """The terms of a Python `a and b and ...` (op And) or `a or b or ...` (op Or)."""
    if isinstance(node, pyast.BoolOp) and isinstance(node.op, op):
        for v in node.values:
            _bool_terms(v, op, out)
    else:
        out.append(node)


def _rename(src: str, var: str) -> str:
    return re.sub(rf"\b{var}\b", "@", src)
