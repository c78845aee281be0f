"""The statements that move cards and change who knows them (move, move all, draw, deal, shuffle,
reveal, show, swap): each op's source written once, in the form a run asks for."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import ast
from ..checker import CARD
from ..engine.constants import PLAIN, PUBLIC
from ..errors import Diagnostic, RulesError
from .runtime import log_moved
from .source import ST, Variant, grid_places
from .tree import _literal

Writer = Callable[[Variant], list[str]]


def _indented(lines: list[str], by: str = "    ") -> list[str]:
    return [by + line for line in lines]


_text = repr  # an event's text in generated source: literals joined with `+`, never f-strings


class CardMoves:
    """The cards' statements of the Compiler (a part of it, with Statements)."""

    def _cards_src(self, e: ast.Expr, target: str) -> list[str]:
        """Lines setting `target` to a new list of the cards of a card, a zone or a list (no none)."""
        what = self.expr_src(e)
        if self.type(e) == CARD:
            return [f"_c = {what}", f"{target} = [] if _c is None else [_c]"]
        # (Not `[... for _x in WHAT ...]`: WHAT may hold a `:=`, not allowed there.)
        return [f"_l = {what}", f"{target} = [_x for _x in _l if _x is not None]"]

    def _moved_log(self, cards: str, sources: str, to: str) -> str:
        """The event of `cards` moved from `sources` (a string's source) to zone `to` (a number or a name)."""
        return f"{self.source.const(log_moved)}(st, {cards}, {sources}, {self._zone_name(to)})"

    def _zone_name(self, z: str) -> str:
        """Source of the name of zone z (a number, or a name holding one)."""
        names = self.g.zone_names
        return _text(names[int(z)]) if z.isdigit() else f"{self.source.const(names)}[{z}]"

    def _card_op(self, s: ast.Stmt, b, write: Callable[[Any, Variant], list[str]], zones=(), parts=()) -> None:
        """A card statement's op, written by `write(s, v)`; its zones and parts compiled now (errors now)."""
        for z in zones:
            self.zone_src(z)
        for e in parts:
            self.part(e)
        b.emit(s.span, PLAIN, lambda v: write(s, v))

    def s_Move(self, s: ast.Move, b):
        self._card_op(s, b, self._move_src, [s.to], [] if s.at is None else [s.at])

    def _move_src(self, s: ast.Move, v: Variant) -> list[str]:
        """`move X to Z [at P]`: with a log or to a place, card by card by `move_card`, the event after."""
        zone = self.zone_src(s.to)
        head = [f"_z = {zone}"]
        if s.at is not None:
            head += [f"_p = {self.expr_src(s.at)}",
                     "if _p is None or _p < 1: raise RulesRuntimeError("
                     "'place ' + str(_p) + ' does not exist (places start at 1)')", "_p -= 1"]
        head += self._cards_src(s.what, "_m")
        where = f"_f = [{self.source.const(self.g.zone_names)}[{ST.loc}[_c]] for _c in _m]"
        event = self._moved_log("_m", "', '.join(dict.fromkeys(_f))", "_z")
        if s.at is not None:
            moves = ["for _c in _m:", "    st.move_card(_c, _z, _p)", "    _p += 1"]
            return [*head, *v.logged([where, *moves, event], moves)]
        plain, shared = self._put_all_src(s, zone, v)
        return [*plain[:shared], *v.logged([*head[shared:], where, "for _c in _m: st.move_card(_c, _z)", event],
                                           plain[shared:])]

    def _put_all_src(self, s: ast.Move, zone: str, v: Variant) -> tuple[list[str], int]:
        """`move X to Z` without a log: to a pile or hand known here, each card's move written out; and
        how many first lines it shares with a logged run's (`_z`, then the value read)."""
        what = self.expr_src(s.what)
        put = zone.isdigit() and not self.g.zone_grid[int(zone)]  # written out: a pile or hand known here
        lines = [] if put else [f"_z = {zone}"]
        if self.type(s.what) == CARD:
            found = self.source.found_lines(s.what, "_c")
            lines += found or [f"_c = {what}"]
            if put:
                return [*lines, "if _c is not None:", *_indented(self._put_src("_c", int(zone), v))], 0
            return lines + ["if _c is not None: st.move_card(_c, _z)"], 1 if found else 2
        picked = self.source.picked_lines(s.what)
        if picked is not None:  # the cards of a `where` over a pile or hand: a new list, none in it
            each = self._put_src("_c", int(zone), v) if put else ["st.move_card(_c, _z)"]
            return [*lines, *picked[0], f"    for _c in {picked[1]}:", *_indented(each, "        ")], 0 if put else 1
        # (Not `for _c in [... for _x in WHAT ...]`: WHAT may hold a `:=`, not allowed there.)
        return lines + [f"_l = {what}", f"for _c in [_x for _x in _l if _x is not None]: "
                                        f"st.move_card(_c, {zone if put else '_z'})"], 0 if put else 2

    def _put_src(self, c: str, zi: int, v: Variant) -> list[str]:
        """`st.move_card(c, zi)` written out, for a zone zi known here that is not a grid."""
        grid = any(self.g.zone_grid)  # (a game without grids needs no test for one)
        return [
            f"_s = {ST.loc}[{c}]",
            f"_l = {ST.zones}[_s]",
            *([f"if {self.source.const(self.g.zone_grid)}[_s]: _l[_l.index({c})] = None"] if grid else []),
            f"{'elif' if grid else 'if'} _l[-1] == {c}: _l.pop()",
            f"else: _l.remove({c})",
            f"{ST.zones}[{zi}].append({c})",
            f"{ST.loc}[{c}] = {zi}",
            *self._learn_src(c, str(zi)),
            *self._count_src(v, c, "_s", str(zi)),
        ]

    def _learn_src(self, c: str, d: str, known: str | None = None) -> list[str]:
        """What card c learns as it enters zone d (a number, or a name holding one): what d shows."""
        known = known or ST.known
        if not d.isdigit():
            return [f"_t = {self.source.const(self.g.zone_learn)}[{d}]",
                    f"if _t: {known}[{c}] = ~_t if _t < 0 else {known}[{c}] | _t"]
        m = self.g.zone_learn[int(d)]
        return [] if not m else [f"{known}[{c}] = {~m}" if m < 0 else f"{known}[{c}] |= {m}"]

    def _count_src(self, v: Variant, c: str, source: str, dest: str, each: bool = False) -> list[str]:
        """Lines keeping a straight run's counts of hands by face (counts.py) as card c (`each`: the
        cards of list c) goes from zone `source` to `dest`; none unless `v.counting`."""
        g = self.g
        lines = []
        for z, sign in ((source, "-"), (dest, "+")):
            if v.counting and g.count_size and not (z.isdigit() and not g.zone_counted[int(z)]):
                face = self.source.const(g.card_face)
                change = f"for _c in {c}: _qh[{face}[_c]] {sign}= 1" if each else f"_qh[{face}[{c}]] {sign}= 1"
                lines += [f"_qh = {ST.counts}[{z}]", "if _qh is not None:", f"    {change}"]
        return lines

    def zone_src(self, e: ast.Expr) -> str:
        """Python source giving the zone instance an expression names (`p.hand`: its owner checked for none)."""
        spec = self.source.zone_spec(e)
        if spec is None:
            raise RulesError([Diagnostic(e.span, "expected a zone")], self.p.files)
        base = self.g.zone_base[spec]
        return str(base) if isinstance(e, ast.Name) else \
            f"({base} + {self._seat_src(e.obj, f'the owner of {e.name!r} is none')})"

    def _seat_src(self, e: ast.Expr, msg: str) -> str:
        """Source giving a player's seat, raising msg if it is none."""
        src = self.expr_src(e)
        return src if self.source.never_none(e) else self.source.some(src, msg)

    def s_MoveAll(self, s: ast.MoveAll, b):
        self._card_op(s, b, self._move_all_src, [s.source, s.to])

    def _move_all_src(self, s: ast.MoveAll, v: Variant) -> list[str]:
        """`move all A to D`: piles and hands spill one onto the other; a grid's cards go one by one."""
        grid = self.g.zone_grid  # prepared with the zones, before any statement is compiled
        a, d = self.zone_src(s.source), self.zone_src(s.to)
        seen = a.isdigit() and self.g.zone_vis[int(a)] == PUBLIC  # (from a public zone: see _arrive_src)
        both = a.isdigit() and d.isdigit()
        event = self._moved_log("_m", self._zone_name("_z"), "_d")
        zones = [f"_z = {a}", f"_d = {d}"]
        if both and a != d and not grid[int(a)] and not grid[int(d)]:
            return v.logged([*zones, "_m = st.move_all(_z, _d)", event], self._spill_src(a, d, v, seen))
        table = self.source.const(grid)
        tests = [] if both else ["_z != _d"]
        spill = not (both and a == d)
        for var, z in (("_z", a), ("_d", d)):
            if not z.isdigit():
                tests.append(f"not {table}[{var}]")
            elif grid[int(z)]:
                spill = False
        slow = [f"_m = [_c for _c in {ST.zones}[_z] if _c is not None]", "for _c in _m: st.move_card(_c, _d)",
                *(([f"{ST.zones}[_z].clear()"] if grid[int(a)] else []) if a.isdigit()
                  else [f"if {table}[_z]: {ST.zones}[_z].clear()"])]  # `move all` takes a grid's places away too
        if not spill:
            return [*zones, *slow, *v.logged(event)]
        fast = self._spill_src(a if a.isdigit() else "_z", d if d.isdigit() else "_d", v, seen)

        def body(fast: list[str]) -> list[str]:
            return [*zones, f"if {' and '.join(tests)}:", *_indented(fast), "else:", *_indented(slow)]

        return v.logged([*body(["_m = st.move_all(_z, _d)"]), event], body(fast))

    def _spill_src(self, a: str, d: str, v: Variant, seen: bool = False) -> list[str]:
        """`st.move_all(a, d)` written out (piles or hands known to differ; `seen`: from a public zone)."""
        each = [*self._arrive_src("_l", d, seen), *self._count_src(v, "_l", a, d, True)]
        return [f"_l = {ST.zones}[{a}]", "if _l:", *_indented(each), f"    {ST.zones}[{d}].extend(_l)",
                "    _l.clear()"]

    def s_Draw(self, s: ast.Draw, b):
        self._card_op(s, b, self._draw_src, [s.source, s.to], [s.count])

    def _draw_src(self, s: ast.Draw, v: Variant) -> list[str]:
        """`draw N from Z to D` (onto Z itself once only); from a pile known here, popped and pushed in place."""
        g = self.g
        z, d = self.zone_src(s.source), self.zone_src(s.to)
        n = self.expr_src(s.count)
        head = [f"_z = {z}", f"_d = {d}", f"_n = {n}", "if _z == _d and _n > 1: _n = 1"]
        each = ["for _ in range(_n):", "    if st.draw_one(_z, _d) is None: break"]
        logged = [*head, "_m = []", "for _ in range(_n):", "    _c = st.draw_one(_z, _d)", "    if _c is None: break",
                  "    _m.append(_c)", self._moved_log("_m", self._zone_name("_z"), "_d")]
        if not z.isdigit() or g.zone_grid[int(z)] or (d.isdigit() and g.zone_grid[int(d)]):
            # (onto a grid, draw_one itself: each card a new place, counted against the limit)
            return [*head, *v.logged(logged[len(head):], each)]
        if d.isdigit() or not any(g.zone_grid):
            return v.logged(logged, self._popped_src(z, d, n, v))
        # A destination worked out in play may be a grid (in a game that has grids): tested there.
        return v.logged(logged, [f"_d = {d}", f"if {self.source.const(g.zone_grid)}[_d]:",
                                 *_indented([f"_z = {z}", f"_n = {n}", "if _z == _d and _n > 1: _n = 1", *each]),
                                 "else:", *_indented(self._popped_src(z, "_d", n, v))])

    def _popped_src(self, z: str, d: str, n: str, v: Variant) -> list[str]:
        """`draw N from Z to D` from a pile known here, without a log: all at once when it holds enough."""
        to = [] if d.isdigit() or d == "_d" else [f"_d = {d}"]
        if not d.isdigit():
            d = "_d"
        if n == "(1)":
            return [*to, *self._pop_src(z, d, v, loop=False)]
        each = ["for _ in range(_n):", *_indented(self._pop_src(z, d, v))]
        clamp = [f"if _d == {z} and _n > 1: _n = 1"] if d == "_d" else ["if _n > 1: _n = 1"] if d == z else []
        # All from the pile when it holds enough (one slice, no refill), else card by card.
        bulk = ["_m = _l[len(_l) - _n:]", "del _l[len(_l) - _n:]", "_m.reverse()", f"{ST.zones}[{d}].extend(_m)",
                *self._arrive_src("_m", d), *self._count_src(v, "_m", z, d, True)]
        other = "" if d.isdigit() else f" and _d != {z}"
        return [*to, f"_n = {n}", *clamp, f"_l = {ST.zones}[{z}]", f"if _n > 0 and len(_l) >= _n{other}:",
                *_indented(bulk), "else:", *_indented(each)]

    def _arrive_src(self, cards: str, d: str, seen: bool = False) -> list[str]:
        """The cards of list `cards` are in zone d (a number or a name) and learn what it shows, unless
        `seen` (from a public zone: known to all already)."""
        if seen:
            return [f"_o = {ST.loc}", f"for _c in {cards}: _o[_c] = {d}"]
        learn = self._learn_src("_c", d, "_k")
        return [f"_o = {ST.loc}", *([f"_k = {ST.known}"] if learn else []), f"for _c in {cards}:",
                f"    _o[_c] = {d}", *_indented(learn)]

    def _pop_src(self, z: str, d: str, v: Variant, loop: bool = True) -> list[str]:
        """`draw_one(z, d)`'s common case written out: pile z's top card, if any, onto zone d; else
        draw_one itself if a refill may find cards (as `refill` tests it), and in a `loop`, a stop."""
        source = self.g.zone_refill[int(z)]
        more = None if source < 0 else f"len({ST.zones}[{source}]) > {self.g.zone_keep[int(z)]}"
        if loop:
            tail = [f"elif not {more} or st.draw_one({z}, {d}) is None: break" if more else "else: break"]
        else:
            tail = [f"elif {more}: st.draw_one({z}, {d})"] if more else []
        return [f"_l = {ST.zones}[{z}]", "if _l:", "    _c = _l.pop()", f"    {ST.zones}[{d}].append(_c)",
                f"    {ST.loc}[_c] = {d}", *_indented([*self._learn_src("_c", d), *self._count_src(v, "_c", z, d)]),
                *tail]

    def s_Deal(self, s: ast.Deal, b):
        self._card_op(s, b, self._deal_src, [s.source], [s.count])

    def _deal_src(self, s: ast.Deal, v: Variant) -> list[str]:
        """`deal N from Z to each H`: N rounds of a card to each seat's H, until the pile runs out; at
        most as many rounds as there are cards (more would only move cards round again)."""
        spec = next(z for z in self.p.zones if z.name == s.zone)
        base, n, ncards = self.g.zone_base[spec.index], self.n, self.g.ncards
        z, k = self.zone_src(s.source), self.expr_src(s.count)
        fixed = _literal(k)

        def dealt(k: str) -> list[str]:
            rounds = min(fixed, ncards) if fixed is not None else f"min({k}, {ncards})"
            return [f"for _ in range({rounds}):", f"    for _s in range({base}, {base + n}):",
                    "        if st.draw_one(_z, _s) is None: break", "    else: continue", "    break"]

        event = (f"st.event(1, str(_k) + (' card' if _k == 1 else ' cards') + ' from ' + "
                 f"{self._zone_name('_z')} + {_text(' dealt to each ' + s.zone)})")
        return [f"_z = {z}", *v.logged([f"_k = {k}", *dealt("_k"), event], dealt(k))]

    def s_Shuffle(self, s: ast.Shuffle, b):
        self._card_op(s, b, self._shuffle_src, [s.zone])

    def _shuffle_src(self, s: ast.Shuffle, v: Variant) -> list[str]:
        z = self.zone_src(s.zone)
        event = "st.event(0, st.game.zone_words(_z) + ' is shuffled')"  # (the table's words for it)
        return v.logged([f"_z = {z}", "st.shuffle_zone(_z)", event], [f"st.shuffle_zone({z})"])

    def s_Reveal(self, s: ast.Reveal | ast.ShowTo, b):
        """`reveal X` or `show X to P` (with `show CARDS.attr to P`, partial knowledge: State.show_attr;
        `reveal CARDS.attr`, every seat learns it)."""
        who = s.who if isinstance(s, ast.ShowTo) else None  # (None: a `reveal`, to every seat)
        attr = self.p.partial_shows.get(id(s))
        if attr is None:
            self._card_op(s, b, self._told_src, parts=[s.what, *([who] if who is not None else [])])
            return
        index = self.g.partial_attrs.index(attr)

        def write(s, v: Variant) -> list[str]:
            cards = self._cards_src(s.what.obj, "_m")
            if who is None:
                return [*cards, f"st.show_attr(_m, {index}, None)"]
            return [*cards, f"_w = {self.expr_src(who)}", f"if _w is not None: st.show_attr(_m, {index}, _w)"]
        self._card_op(s, b, write, parts=[s.what.obj, *([who] if who is not None else [])])

    s_ShowTo = s_Reveal

    def _told_src(self, s: ast.Reveal | ast.ShowTo, v: Variant) -> list[str]:
        """`reveal X` (to all) or `show X to P`: X's cards become known; the event says from where (a
        reveal) or which places (a show)."""
        g, reveal = self.g, isinstance(s, ast.Reveal)
        zones = self.source.const(g.zone_names) if reveal else ""  # (the constants in the order they are read)
        head = [] if reveal else [f"_w = {self.expr_src(s.who)}", "if _w is not None:", "    _b = 1 << _w"]
        update, ind = (f"= {g.all_mask}", "") if reveal else ("|= _b", "    ")
        cards = self._cards_src(s.what, "_m")
        event = f"'revealed in ' + ', '.join(dict.fromkeys([{zones}[{ST.loc}[_c]] for _c in _m]))" if reveal else \
            f"{self.source.const(g.names)}[_w] + ' looks at ' + ', '.join([st.game.place_text(st, _c) for _c in _m])"
        logged = _indented([*cards, f"for _c in _m: {ST.known}[_c] {update}",
                            f"if _m: st.event(0, {event} + ': {{}}', tuple(_m))"], ind)
        spec = self.source.zone_spec(s.what)  # (None for a card or a list)
        if not head and spec is not None and g.zone_vis[g.zone_base[spec]] == PUBLIC:
            return v.logged(logged)  # a public zone's cards are known to all already
        plain = _indented(self._each_card_src(s.what, update), ind)
        read = 1 if self.type(s.what) == CARD else 0  # a card read as _cards_src reads it: `_c = ...`
        return [*head, *plain[:read], *v.logged(logged[read:], plain[read:], ind=ind)]

    def _each_card_src(self, e: ast.Expr, update: str) -> list[str]:
        """`st.known[c] <update>` for each card of a card, a zone or a list of cards (none skipped)."""
        what = self.expr_src(e)
        if self.type(e) == CARD:
            return [f"_c = {what}", f"if _c is not None: {ST.known}[_c] {update}"]
        spec = self.source.zone_spec(e)
        if spec is not None and not self.g.zone_grid[self.g.zone_base[spec]]:  # a pile or a hand: no none
            return [f"_k = {ST.known}", f"for _c in {what}: _k[_c] {update}"]
        inner = getattr(what, "inner", None) or what
        places = grid_places(inner)  # a grid's cards: go over its places (none is skipped anyway)
        return [f"for _c in {places if places != inner else what}:", f"    if _c is not None: {ST.known}[_c] {update}"]

    def s_Swap(self, s: ast.Swap, b):
        self._card_op(s, b, self._swap_src, parts=[s.first, s.second])

    def _swap_src(self, s: ast.Swap, v: Variant) -> list[str]:
        both = [f"_a = {self.expr_src(s.first)}", f"_b = {self.expr_src(s.second)}"]
        logged = ["if _a is not None and _b is not None:",
                  "    st.event(0, st.game.place_text(st, _a) + ' and ' + st.game.place_text(st, _b) + "
                  "' are swapped')", "    st.swap_cards(_a, _b)"]
        # `st.swap_cards(_a, _b)` written out: each card takes the other's place and learns what
        # its new zone shows.
        learned = [*self._learn_src("_a", "_zb"), *self._learn_src("_b", "_za")]
        counted = [*self._count_src(v, "_a", "_za", "_zb"), *self._count_src(v, "_b", "_zb", "_za")]
        return [*both, *v.logged(logged, ["if _a is not None and _b is not None and _a != _b:", *_indented([
            f"_o = {ST.loc}", "_za = _o[_a]", "_zb = _o[_b]", f"_la = {ST.zones}[_za]", f"_lb = {ST.zones}[_zb]",
            "_ia = _la.index(_a)", "_ib = _lb.index(_b)", "_la[_ia] = _b", "_lb[_ib] = _a", "_o[_a] = _zb",
            "_o[_b] = _za", *learned, *counted])])]
