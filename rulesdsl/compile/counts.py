"""A turn's options counted, not listed, from each hand's cards counted by face.

A straight playout (straight.py) needs only how many options each action has, then the one picked.
While it runs, the hands a counted domain reads keep how many cards of each face they hold
(`State.counts`): the options are counted from those and the one picked found in the hand, in the
order the list would have had. Counted, over a `hand`-shaped zone Z the chooser sees, C reading
the item only by kind and attributes: `Z where C` (or Z), and the values of a ValueCount.
"""

from __future__ import annotations

from typing import NamedTuple

from .. import ast
from ..checker import ZONE
from ..engine.constants import HAND, HIDDEN
from .domains import builtin, is_local, terms
from .source import ST
from .tree import _children, locals_read, reads_any_local, sides, split


class ValueCount(NamedTuple):
    """`distinct((Z where C).x) where count(Z where C and it.x == v) OP K`: the values held whose
    cards' number compares. Counted from the hands' counts by face in a straight run; elsewhere its
    loop goes over the keys of the count's joined table (domains.where_loop)."""

    attr: str  # x
    inner: ast.Where  # Z where C
    count: ast.Call
    op: str
    k: ast.Expr


def domain_form(c, e: ast.Expr) -> tuple[int, ast.Where | None, ast.Expr, ValueCount | None] | None:
    """(the zone spec, the `where` over the zone or None, the zone, the ValueCount if the options
    are its values) if domain `e`'s options can be counted, else None."""
    vc = c.plan.value_counts.get(id(e))  # (lower.py)
    spec = _countable_zone(c, vc.inner.seq) if vc is not None else None
    if spec is not None:  # (C of the item's face)
        slot = c.p.slots[id(vc.inner)]
        if all(_face_only(c, t, slot) and not reads_any_local(c.p.refs, t, slot) for t in split(vc.inner.cond)):
            return spec, vc.inner, vc.inner.seq, vc
    zone, where = (e.seq, e) if isinstance(e, ast.Where) else (e, None)
    spec = _countable_zone(c, zone)
    if spec is None or (where is not None and not _face_only(c, where.cond, c.p.slots[id(where)])):
        return None
    return spec, where, zone, None


def _countable_zone(c, e: ast.Expr) -> int | None:
    """A `hand`-shaped zone that someone sees (cards of one face merge there), as a zone spec."""
    spec = c.source.zone_spec(e) if c.type(e) == ZONE else None
    base = c.g.zone_base[spec] if spec is not None else None
    return spec if base is not None and c.g.zone_shape[base] == HAND and c.g.zone_vis[base] != HIDDEN else None


def _face_only(c, e: ast.Expr, slot: int) -> bool:
    """Does `e` read the item of `slot` only as `it is K` and `it.attr` (alike for a face's cards)?"""

    def ok(x: ast.Expr) -> bool:
        if is_local(c, x, slot):
            return False
        if isinstance(x, ast.IsKind) and is_local(c, x.operand, slot):
            return True
        if isinstance(x, ast.Attr) and is_local(c, x.obj, slot):
            return x.name in c.g.attrs
        return all(ok(k) for k in _children(x))

    return ok(e)


def value_count(c, e: ast.Where) -> ValueCount | None:
    """`e` as a ValueCount (the count either way round, C's terms in any order), Z a zone read
    without locals; else None."""
    x = e.seq.args[0] if builtin(c, e.seq, "distinct") else None
    if not (isinstance(x, ast.Attr) and isinstance(x.obj, ast.Where) and x.name in c.g.attrs
            and c.source.zone_spec(x.obj.seq) is not None):
        return None
    attr, inner = x.name, x.obj
    v_slot = c.p.slots[id(e)]
    for count, op, k in sides(e.cond):
        w = count.args[0] if builtin(c, count, "count") else None
        if not isinstance(w, ast.Where) or v_slot in locals_read(c.p.refs, k) or not _same_zone(c, w.seq, inner.seq):
            continue
        ts = split(w.cond)
        w_slot = c.p.slots[id(w)]
        eqs = [t for t in ts if any(  # (`it.attr == v`, v the value's local)
            isinstance(a, ast.Attr) and a.name == attr and is_local(c, a.obj, w_slot) and is_local(c, b, v_slot)
            for a, _, b in sides(t, ("==",)))]
        if len(eqs) != 1:
            continue
        rest = [t for t in ts if t is not eqs[0]]
        mine = split(inner.cond)
        in_slot = c.p.slots[id(inner)]
        # (the item as one name: two terms alike read alike)
        if sorted(c.source.src(t, {w_slot: "_i90002"}) for t in rest) \
                != sorted(c.source.src(t, {in_slot: "_i90002"}) for t in mine):
            continue
        return ValueCount(attr, inner, count, op, k)
    return None


def _same_zone(c, a: ast.Expr, b: ast.Expr) -> bool:
    """Are zones `a` and `b` one zone, read without locals? (`a` may be a list of cards: not.)"""
    if c.source.zone_spec(a) is None:
        return False
    (za, zb), reads = c.source.reading(lambda: (c.zone_src(a), c.zone_src(b)))
    return za == zb and not reads


class CountWriter:
    """Lines that count a domain's options from the counts, and that find the option picked."""

    def __init__(self, c) -> None:
        self.c, self.g, self.fresh = c, c.g, c.domains.fresh  # (fresh names: one counter for all)
        first: dict[int, int] = {}
        for card, f in enumerate(c.g.card_face):
            first.setdefault(f, card)
        self.first = [first[f] for f in range(len(c.g.face_text))]  # a card of each face

    def faces(self, tests: list[list]) -> list[int]:
        """The faces, in order, whose cards pass all `tests` (each a value per card, true or not)."""
        return [f for f, card in enumerate(self.first) if all(t[card] for t in tests)]

    def lines(self, e: ast.Expr, into: str, pick: str, env: bool = False) -> tuple[str, list[str], list[str]] | None:
        """(zone, count, find) for domain e, or None: the zone index's source; lines setting `into`
        to the number of options, from the zone's counts `_qh`; lines setting `_x` to the option
        `pick` (its place among them). For a chooser who sees the zone's cards (the caller tests
        it); `env`: they may read the unit's locals."""
        form = self.c.plan.counted.get(id(e))  # (lower.py: which domains are counted)
        if form is None or form[0] not in self.g.counted_specs:  # (a zone no turn counts is not counted at all)
            return None
        _, where, zone, vc = form
        (zi, made), local = self.c.source.reading(lambda: (
            self.c.zone_src(zone), self.cards(where, into, pick) if vc is None else self.values(vc, into, pick)))
        if made is None or (not env and local):
            return None
        return zi, made[0], made[1]

    def terms(self, where: ast.Where | None) -> tuple[str, list[str], list[list], tuple | None, list[str]]:
        """Where's test split as an option loop splits it (domains.where_loop), each value not
        reading the card worked out first: (the card's name, those lines, the card's own tests
        before any other (a value per card), the first `T == v` as (T per card, v), the rest's sources)."""
        if where is None:
            return "_i90001", [], [], None, []
        sc, dw = self.c.source, self.c.domains

        def split_test(inner: dict[int, str], hoisted) -> tuple:
            pre, _, ready = dw.worked_out(hoisted, whole=True)
            var = inner[self.c.p.slots[id(where)]]
            static: list[list] = []
            eq, dynamic = None, []
            for t in terms(sc, split(where.cond, "and", sc.hoisted), inner, var):
                side = dw.eq_ready(t, ready) if not dynamic and t.values is None and eq is None else None
                if not dynamic and t.values is not None:
                    static.append(t.values)  # (before any test that may fail: may be tested first)
                elif side is not None:
                    eq = side
                else:
                    dynamic.append(t.src)
            return var, pre, static, eq, dynamic

        return sc.loop(where, {}, split_test)[2]

    def by_value(self, keys: list, faces: list[int], one: bool) -> tuple[str, bool, list[list[int]]]:
        """A table from each key (a value per card) among `faces` to its face if each has one and
        `one` allows it (then True), else to the tuple of its faces; and the faces of each key."""
        sc = self.c.source
        index: dict = {}
        for f in faces:
            index.setdefault(keys[self.first[f]], []).append(f)
        one = one and all(len(fs) == 1 for fs in index.values())
        table = sc.shared(("face by" if one else "faces by", tuple(keys), tuple(faces)),
                          lambda: {k: fs[0] if one else tuple(fs) for k, fs in index.items()})
        return sc.const(table), one, list(index.values())

    def cards(self, where: ast.Where | None, into: str, pick: str) -> tuple[list[str], list[str]] | None:
        """The faces held that pass the test, counted, and the card picked (see `find`)."""
        sc = self.c.source
        var, count, static, eq, dynamic = self.terms(where)
        faces = self.faces(static)
        test = " and ".join(f"({s})" for s in dynamic)
        if eq is not None:
            keys, v = eq
            group = self.fresh("f")
            table, one, _ = self.by_value(keys, faces, not dynamic)
            miss = "None" if one else "()"
            count += [f"try: {group} = {table}.get({v}{'' if one else ', ()'})", f"except TypeError: {group} = {miss}"]
            if one:  # (no loop over the faces)
                return [*count, f"{into} = 0 if {group} is None or not _qh[{group}] else 1"], \
                    self.find(f"_qf == {group}", pick)
            source, member = group, f"_qf in {group}"
        else:
            source = sc.const(tuple(faces))
            member = f"{sc.const(tuple(f in faces for f in range(len(self.first))))}[_qf]"
        if eq is None and not dynamic:
            count.append(f"{into} = " + (" + ".join(self.passes(f"_qh[{f}]", ">", 0) for f in faces) or "0"))
        elif not dynamic:
            count += [f"{into} = 0", f"for _qf in {source}:", f"    if _qh[_qf]: {into} += 1"]
        else:
            count += [f"{into} = 0", f"for _qf in {source}:", "    if _qh[_qf]:",
                      f"        {var} = {sc.const(tuple(self.first))}[_qf]", f"        if {test}: {into} += 1"]
        return count, self.find(member if not dynamic else f"{member} and ({var} := _c) is not None and {test}", pick)

    def passes(self, held: str, op: str, k: int) -> str:
        """1 if the number `held` passes `op k`, else 0, from a table: ints add up quicker than bools
        (4% on a playout counting six faces a turn)."""
        test = {">": int.__gt__, ">=": int.__ge__, "==": int.__eq__}[op]
        sc = self.c.source
        table = sc.shared(("passes", op, k), lambda: tuple(int(test(n, k)) for n in range(self.g.ncards + 1)))
        return f"{sc.const(table)}[{held}]"

    def find(self, passes: str, pick: str) -> list[str]:
        """Lines setting `_x` to the first card of the pick-th face to come whose card `_c` (face
        `_qf`) `passes`, or a later one of its face more players know (Game.distinct_cards); the
        walk stops at that face's last card (`_qr` still to come)."""
        face, known = self.c.source.const(self.g.card_face), "_qn"
        return [
            "_x = None", "_qs = []", f"{known} = {ST.known}",
            f"for _c in {ST.zones}[_qz]:",
            f"    _qf = {face}[_c]",
            "    if _x is None:",
            f"        if _qf not in _qs and {passes}:",
            f"            if len(_qs) == {pick}:",
            f"                _x, _qp, _qk = _c, _qf, {known}[_c]",
            "                _qr = _qh[_qf] - 1",
            "                if not _qr: break",
            "            else: _qs.append(_qf)",
            "    elif _qf == _qp:",
            f"        _qj = {known}[_c]",
            "        if _qj != _qk and _qj.bit_count() > _qk.bit_count(): _x, _qk = _c, _qj",
            "        _qr -= 1",
            "        if not _qr: break",
        ]

    def values(self, vc: ValueCount, into: str, pick: str) -> tuple[list, list] | None:
        """The values held whose number of cards passes the test, counted; the pick-th to come is picked."""
        sc, op, k = self.c.source, vc.op, vc.k
        _, pre, static, eq, dynamic = self.terms(vc.inner)
        if pre or eq is not None or dynamic:
            return None
        values = self.g.attrs[vc.attr]
        table, one, groups = self.by_value(values, [f for f in self.faces(static)
                                                     if values[self.first[f]] is not None], True)
        held_of = [" + ".join(f"_qh[{f}]" for f in fs) for fs in groups]
        bound = self.fresh("k")
        if isinstance(k, ast.IntLit) and ((k.value >= 1 and op in (">=", "==")) or (k.value >= 0 and op == ">")):
            # (a number of cards that passes is not 0: each value's test alone, summed)
            bound = str(k.value)
            count = [f"{into} = " + (" + ".join(self.passes(h, op, k.value) for h in held_of) or "0")]
        else:
            count = [f"{bound} = {sc.src(k, {})}", f"{into} = 0"]
            for h in held_of:
                count += [f"_qm = {h}", f"if _qm and _qm {op} {bound}: {into} += 1"]
        keys, mark = self.c.domains.marked(values, [values[c] is not None and all(t[c] for t in static)
                                                    for c in range(self.g.ncards)])
        find = [
            "_x = None", "_qs = []", f"_qk = {pick}",
            f"for _c in {ST.zones}[_qz]:",
            f"    _qv = {keys}[_c]",
            f"    if _qv is not {mark} and _qv not in _qs:",
            "        _qs.append(_qv)",
            f"        _qm = {f'_qh[{table}[_qv]]' if one else f'sum(map(_qh.__getitem__, {table}[_qv]))'}",
            f"        if _qm {op} {bound}:",
            "            if not _qk:",
            "                _x = _qv",
            "                break",
            "            _qk -= 1",
        ]
        return count, find
