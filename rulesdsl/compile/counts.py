"""A turn's options counted instead of listed, from each hand's cards counted by face.

A turn asks its player to pick among the options of all its actions, and then runs only the action
picked. Listing the options walks the player's hand for each action that chooses a card or a value
from it (three such actions: the hand once, with three tests a card). A straight playout
(straight.py) needs no list: only how many options each action has, and then the one picked.
So while a straight run lasts, the hands such a domain reads keep how many cards of each face they
hold (`State.counts`, changed by every move of a card into or out of them), each action's options
are counted from those numbers, and the picked option is looked for in the hand, in the order the
list would have had. Nothing changes for the machine: the same options in the same order, the same
picks. A `choose` statement over such a hand is counted the same way.

Two forms of domain are counted, over a hand or other `hand`-shaped zone Z whose cards the chooser
sees (a private zone of the chooser's, or a public one), where C reads the item only through its
kind and attributes (so identical cards pass alike):

- `Z where C` (or Z): the cards. The chooser knows them all, so identical cards are one option:
  the number of faces held that pass C;
- `distinct((Z where C).x) where count(Z where C and it.x == v) OP K` (the same Z and C, K not
  reading v): the values. The number of values x held whose cards' number compares.

Anything else is listed, as before.
"""

from __future__ import annotations

from .. import ast
from ..checker import ZONE
from ..engine.state import HAND, HIDDEN
from .domains import conj
from .source import ST, NoSource
from .tree import _children

_CMP = {">=", ">", "<=", "<", "==", "!="}
_SWAP = {">=": "<=", ">": "<", "<=": ">=", "<": ">", "==": "==", "!=": "!="}


def counted_zones(c) -> set[int]:
    """The zone specs that a turn's countable domain reads: their cards are counted by face."""
    specs = set()
    for a in c.p.actions:
        first = a.body[0] if a.body else None
        if isinstance(first, ast.Choose) and first.by is None and not first.optional:
            form = domain_form(c, first.domain)
            if form is not None:
                specs.add(form[1])
    return specs


def domain_form(c, e: ast.Expr) -> tuple[str, int, ast.Where | None, ast.Expr] | None:
    """("cards" or "values", the zone spec, the `where` over the zone (or None: all its cards),
    the zone expression) if domain `e` can be counted (see the module's docstring), else None."""
    if isinstance(e, ast.Where) and _is_values(c, e):
        inner = e.seq.args[0].obj
        return "values", c.source.zone_spec(inner.seq), inner, inner.seq
    zone, where = (e.seq, e) if isinstance(e, ast.Where) else (e, None)
    spec = _countable_zone(c, zone)
    if spec is None or (where is not None and not _face_only(c, where.cond, c.p.slots[id(where)])):
        return None
    return "cards", spec, where, zone


def _countable_zone(c, e: ast.Expr) -> int | None:
    """A `hand`-shaped zone that someone sees (cards of one face merge there), as a zone spec."""
    g = c.g
    if c.type(e) != ZONE:
        return None
    spec = c.source.zone_spec(e)
    if spec is None:
        return None
    base = g.zone_base[spec]
    return spec if g.zone_shape[base] == HAND and g.zone_vis[base] != HIDDEN else None


def _face_only(c, e: ast.Expr, slot: int) -> bool:
    """Does `e` read the item of `slot` only as `it is K` and `it.attr` (so all cards of a face
    give the same value)?"""

    def item(x: ast.Expr) -> bool:
        return isinstance(x, ast.Name) and c.p.refs.get(id(x)) == ("local", slot)

    def ok(x: ast.Expr) -> bool:
        if item(x):
            return False
        if isinstance(x, ast.IsKind) and item(x.operand):
            return True
        if isinstance(x, ast.Attr) and item(x.obj):
            return x.name in c.g.attrs
        return all(ok(k) for k in _children(x))

    return ok(e)


def _is_values(c, e: ast.Where) -> bool:
    """`distinct((Z where C).x) where count(Z where C and it.x == v) OP K`, C static (kind and
    attribute tests of the item and constants)?"""
    seq = e.seq
    if not (isinstance(seq, ast.Call) and seq.func == "distinct" and len(seq.args) == 1
            and c.p.refs.get(id(seq)) is None and isinstance(seq.args[0], ast.Attr)):
        return False
    attr = seq.args[0]
    inner = attr.obj
    if not (isinstance(inner, ast.Where) and attr.name in c.g.attrs and _countable_zone(c, inner.seq) is not None):
        return False
    return _count_test(c, e, inner, attr.name) is not None


def _count_test(c, e: ast.Where, inner: ast.Where, attr: str) -> tuple[str, ast.Expr] | None:
    """(OP, K) of a values domain's test `count(Z where C and it.x == v) OP K` (either way round)."""
    q = e.cond
    if not (isinstance(q, ast.Binary) and q.op in _CMP):
        return None
    v_slot = c.p.slots[id(e)]
    for count, k, op in ((q.left, q.right, q.op), (q.right, q.left, _SWAP[q.op])):
        if not (isinstance(count, ast.Call) and count.func == "count" and len(count.args) == 1
                and c.p.refs.get(id(count)) is None and isinstance(count.args[0], ast.Where)):
            continue
        w = count.args[0]
        if _reads(c, k, v_slot) or not _same_zone(c, w.seq, inner.seq):
            continue
        terms: list[ast.Expr] = []
        conj(w.cond, terms)
        w_slot = c.p.slots[id(w)]
        eqs = [t for t in terms if _is_eq(c, t, w_slot, attr, v_slot)]
        if len(eqs) != 1:
            continue
        rest = [t for t in terms if t is not eqs[0]]
        mine: list[ast.Expr] = []
        conj(inner.cond, mine)
        in_slot = c.p.slots[id(inner)]
        try:
            if sorted(_text(c, t, w_slot) for t in rest) != sorted(_text(c, t, in_slot) for t in mine):
                continue
        except NoSource:
            continue
        if not all(_face_only(c, t, in_slot) and not _reads_any_local(c, t, in_slot) for t in mine):
            continue
        return op, k
    return None


def _eq_side(c, t: ast.Expr, slot: int) -> tuple[str, ast.Expr] | None:
    """(attr, v) if t is `it.attr == v` (either way round), `it` the item of slot and v an
    expression that does not read it."""
    if not (isinstance(t, ast.Binary) and t.op == "=="):
        return None
    for a, b in ((t.left, t.right), (t.right, t.left)):
        if isinstance(a, ast.Attr) and a.name in c.g.attrs and isinstance(a.obj, ast.Name) \
                and c.p.refs.get(id(a.obj)) == ("local", slot) and not _reads(c, b, slot):
            return a.name, b
    return None


def _is_eq(c, t: ast.Expr, slot: int, attr: str, v_slot: int) -> bool:
    """`it.attr == v` (either way round), `it` the item of slot and v the local v_slot?"""
    side = _eq_side(c, t, slot)
    return side is not None and side[0] == attr and isinstance(side[1], ast.Name) \
        and c.p.refs.get(id(side[1])) == ("local", v_slot)


def _reads(c, e: ast.Expr, slot: int) -> bool:

    if isinstance(e, ast.Name):
        return c.p.refs.get(id(e)) == ("local", slot)
    return any(_reads(c, k, slot) for k in _children(e))


def _reads_any_local(c, e: ast.Expr, but: int) -> bool:
    """Does `e` read a local other than slot `but` (or a player-dependent name)?"""

    if isinstance(e, ast.Name):
        ref = c.p.refs.get(id(e))
        return ref is None or (ref[0] == "local" and ref[1] != but) or ref[0] == "builtin"
    return any(_reads_any_local(c, k, but) for k in _children(e))


def _same_zone(c, a: ast.Expr, b: ast.Expr) -> bool:
    try:
        (za, zb), reads = c.source.reading(lambda: (c.zone_src(a), c.zone_src(b)))
        return za == zb and not reads
    except NoSource:
        return False


def _text(c, t: ast.Expr, slot: int) -> str:
    """A term's source with the item of slot as one name: two terms alike read alike."""
    return c.source.src(t, {slot: "_i90002"})


class CountWriter:
    """Lines that count a domain's options from the counts, and that find the option picked,
    for a straight run (see the module's docstring)."""

    def __init__(self, c) -> None:
        self.c = c
        self.g = c.g
        self.n = 0
        first: dict[int, int] = {}
        for card, f in enumerate(c.g.card_face):
            first.setdefault(f, card)
        self.first = [first[f] for f in range(len(c.g.face_text))]  # a card of each face

    def fresh(self, stem: str) -> str:
        self.n += 1
        return f"_q{stem}{self.n}"

    def faces(self, tests: list[list]) -> list[int]:
        """The faces, in order, whose cards pass all `tests` (each a value per card, true or not)."""
        return [f for f, card in enumerate(self.first) if all(t[card] for t in tests)]

    def lines(self, e: ast.Expr, into: str, pick: str, env: bool = False) -> tuple[str, list[str], list[str]] | None:
        """(zone, count, find) for domain e, or None if it is not counted. `zone` is the source of
        the zone's index; `count` sets `into` to the number of options, read from `_qh`, the zone's
        counts; `find`, run after the pick, sets `_x` to the option `pick` (its place among the
        domain's own). Both are for a chooser who sees the zone's cards (the caller tests it).
        `env`: they may read the unit's locals (else such a domain is not counted)."""
        form = domain_form(self.c, e)
        if form is None:
            return None
        kind, spec, where, zone = form
        if spec not in self.g.counted_specs:  # (a zone that no turn counts is not counted at all)
            return None
        try:
            (zi, made), reads = self.c.source.reading(lambda: (
                self.c.zone_src(zone),
                self.cards(where, into, pick) if kind == "cards" else self.values(e, where, into, pick)))
        except NoSource:
            return None
        if made is None or (not env and reads):
            return None
        return zi, made[0], made[1]

    def terms(self, where: ast.Where | None, var: str) -> tuple[list[list], tuple[str, ast.Expr] | None, list[str]]:
        """Where's test of card `var`, split: the tests of the card alone that come before any other
        test (worked out now, a value for every card), then the first `it.attr == v` (v not read
        from the card), then the rest, in their order (their sources)."""
        sc = self.c.source
        static: list[list] = []
        eq: tuple[str, ast.Expr] | None = None
        dynamic: list[str] = []
        if where is not None:
            slot = self.c.p.slots[id(where)]
            terms: list[ast.Expr] = []
            conj(where.cond, terms)
            for t in terms:
                src = sc.src(t, {slot: var})
                table = None if dynamic or _reads_any_local(self.c, t, slot) else sc.card_values(src, var)
                if table is not None:  # (before any test that may fail: may be tested first)
                    static.append(table)
                    continue
                side = _eq_side(self.c, t, slot) if not dynamic and eq is None else None
                if side is not None:
                    eq = side
                    continue
                dynamic.append(src)
        return static, eq, dynamic

    def face_of(self, attr: str, faces: list[int], v: str, group: str, one: bool = True) -> tuple[list[str], bool]:
        """Lines setting `group` to the face among `faces` whose `attr` is value `v` (or None), if
        each value has one face and `one` allows it (True then), else to the tuple of those faces."""
        sc = self.c.source
        index: dict = {}
        for f in faces:
            index.setdefault(self.g.attrs[attr][self.first[f]], []).append(f)
        if one and all(len(fs) == 1 for fs in index.values()):  # (a value, one face: a look-up)
            table = sc.const(sc.shared(("face by", attr, tuple(faces)), lambda: {k: fs[0] for k, fs in index.items()}))
            return [f"try: {group} = {table}.get({v})", f"except TypeError: {group} = None"], True
        table = sc.const(sc.shared(("faces by", attr, tuple(faces)),
                                   lambda: {k: tuple(fs) for k, fs in index.items()}))
        return [f"try: {group} = {table}.get({v}, ())", f"except TypeError: {group} = ()"], False

    def cards(self, where: ast.Where | None, into: str, pick: str) -> tuple[list[str], list[str]] | None:
        """The faces held that pass the test, counted, and the card picked (see `find`)."""
        sc = self.c.source
        var = "_i90001"
        static, eq, dynamic = self.terms(where, var)
        faces = self.faces(static)
        test = " and ".join(f"({s})" for s in dynamic)
        count: list[str] = []
        if eq is not None:
            attr, value = eq
            group, v = self.fresh("f"), self.fresh("v")
            try:  # (a `top(...)` as a loop that stops at the first match, as a domain's values are)
                count += self.c.domains.scalar(v, value, {})
            except NoSource:
                count.append(f"{v} = {sc.src(value, {})}")
            look, one = self.face_of(attr, faces, v, group, not dynamic)
            count += look
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

    def face_test(self, where: ast.Where, var: str) -> tuple[list[str], str] | None:
        """Where's test of card `var` read by its face alone, for a test of the card's kind and
        attributes (worked out now) and one `it.attr == v`, v a local, constant or variable (a
        read that cannot fail, so it may be done before the walk): lines that find, once, the
        faces whose attr is v, and the test of var's face (one look-up a card, where the terms
        took one each). None for anything else (Source.found_lines then tests the terms)."""
        static, eq, dynamic = self.terms(where, var)
        # (tests of the card alone are tables already; v is read once, before the walk, so it must
        # be a read that cannot fail: a local, constant or variable, not a define's expression)
        if eq is None or dynamic or not isinstance(eq[1], ast.Name) \
                or (self.c.p.refs.get(id(eq[1])) or ("",))[0] not in ("local", "const", "var", "counter"):
            return None
        group, face = self.fresh("f"), self.c.source.const(self.g.card_face)
        look, one = self.face_of(eq[0], self.faces(static), self.c.source.src(eq[1], {}), group)
        return look, f"{face}[{var}] == {group}" if one else f"{face}[{var}] in {group}"

    def passes(self, held: str, op: str, k: int) -> str:
        """1 if a number of cards `held` (an expression) passes `op k`, else 0, looked up in a table
        by that number (at most the game's cards): ints summed at the interpreter's int speed,
        where `(held op k)` gives bools, which add up the slow way (a playout that counts six
        faces a turn: 4% faster)."""
        test = {">": int.__gt__, ">=": int.__ge__, "==": int.__eq__}[op]
        sc = self.c.source
        table = sc.shared(("passes", op, k), lambda: tuple(int(test(n, k)) for n in range(self.g.ncards + 1)))
        return f"{sc.const(table)}[{held}]"

    def find(self, passes: str, pick: str) -> list[str]:
        """Lines setting `_x` to the card picked: the first card, in the zone's order, of the
        pick-th face to come whose card `_c` (face `_qf`) `passes`, or a later one of its face that
        more players know (as the options list it: Game.distinct_cards). The walk stops at the last
        card of the picked face (`_qr`: how many are still to come, from the counts `_qh`)."""
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

    def values(self, e: ast.Where, inner: ast.Where, into: str, pick: str) -> tuple[list[str], list[str]] | None:
        """The values held whose number of cards passes the test, counted; the value picked: the
        pick-th such value to come in the zone's order (as `distinct` lists them)."""
        sc = self.c.source
        attr = e.seq.args[0].name
        test = _count_test(self.c, e, inner, attr)
        if test is None:
            return None
        op, k = test
        slot = self.c.p.slots[id(inner)]
        var = "_i90001"
        terms: list[ast.Expr] = []
        conj(inner.cond, terms)
        tests = [sc.card_values(sc.src(t, {slot: var}), var) for t in terms]
        if None in tests:
            return None
        values = self.g.attrs[attr]
        groups: dict = {}
        for f in self.faces(tests):
            x = values[self.first[f]]
            if x is not None:
                groups.setdefault(x, []).append(f)
        bound = self.fresh("k")
        held_of = [" + ".join(f"_qh[{f}]" for f in fs) for fs in groups.values()]
        if isinstance(k, ast.IntLit) and ((k.value >= 1 and op in (">=", "==")) or (k.value >= 0 and op == ">")):
            # (a number of cards that passes is not 0: each value's test alone, summed)
            bound = str(k.value)
            count = [f"{into} = " + (" + ".join(self.passes(h, op, k.value) for h in held_of) or "0")]
        else:
            count = [f"{bound} = {sc.src(k, {})}", f"{into} = 0"]
            for h in held_of:
                count += [f"_qm = {h}", f"if _qm and _qm {op} {bound}: {into} += 1"]
        # Per card: its value if it passes the test and has one, else a mark; per value, its faces.
        marker = sc.shared(("mark",), object)
        mark = sc.const(marker)
        keys = sc.const(tuple(values[c] if all(t[c] for t in tests) and values[c] is not None else marker
                              for c in range(self.g.ncards)))
        if all(len(fs) == 1 for fs in groups.values()):  # (one face a value: a look-up)
            held = f"_qh[{sc.const({x: fs[0] for x, fs in groups.items()})}[_qv]]"
        else:
            held = f"sum(map(_qh.__getitem__, {sc.const({x: tuple(fs) for x, fs in groups.items()})}[_qv]))"
        find = [
            "_x = None", "_qs = []", f"_qk = {pick}",
            f"for _c in {ST.zones}[_qz]:",
            f"    _qv = {keys}[_c]",
            f"    if _qv is not {mark} and _qv not in _qs:",
            "        _qs.append(_qv)",
            f"        _qm = {held}",
            f"        if _qm {op} {bound}:",
            "            if not _qk:",
            "                _x = _qv",
            "                break",
            "            _qk -= 1",
        ]
        return count, find
