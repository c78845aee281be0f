"""Statements to ops: each statement's op(s) for the machine, with their Python source."""

from __future__ import annotations

from collections.abc import Callable

from .. import ast
from ..checker import BOOL, CARD, INT, PLAYER, ZONE, elem, is_list
from ..engine.game import Code, Decision, distinct_plain
from ..engine.state import (
    CONTROL,
    HAND,
    JUMP,
    LEAF_DONE,
    PLAIN,
    PUBLIC,
    RELOAD,
    STACKED,
    SUSPEND,
    TEST,
    run_leaf,
)
from ..errors import RulesRuntimeError
from .blocks import env_list, leaf_lines, leaf_run
from .domains import DomainWriter
from .exprs import _grid_places, unguard
from .runtime import (
    Fn,
    _card_holes,
    _list_guard,
    _number_guard,
    _text_hole,
)
from .source import NoSource
from .tree import (
    _children,
    _constant,
    _literal,
    _may_end,
)


class _Loop:
    def __init__(self) -> None:
        self.breaks: list[list[int]] = []


class _Builder:
    def __init__(self, code: Code):
        self.code = code
        self.loops: list[_Loop] = []

    def emit(self, op: Callable, span: ast.Span | None, kind: int = CONTROL,
             src: Callable[[], list[str]] | None = None) -> int:
        """Add an op. `kind` says what it may return (a CONTROL op may return anything); `src`,
        called once all jump targets are known, gives its Python source for generated blocks."""
        self.code.ops.append(op)
        self.code.spans.append(span)
        self.code.kinds.append(kind)
        self.code.srcs.append(src)
        return len(self.code.ops) - 1

    @property
    def pc(self) -> int:
        return len(self.code.ops)



class Statements:
    """The statements of the Compiler (a part of it)."""

    # ------------------------------------------------------------ statements
    def _compile_body(self, code_id: int, body: tuple[ast.Stmt, ...], unit: str, leaf: bool = False) -> None:
        b = _Builder(self.g.codes[code_id])
        self.unit = unit
        self.g.codes[code_id].leaf = self.leaf = leaf
        for s in body:
            self.stmt(s, b)
        self._return(b, None)

    def _return(self, b: _Builder, span) -> None:
        """The end of a code, or `return`: a leaf's runner stops; otherwise its frame goes."""
        if self.leaf:
            b.emit(lambda st, env: LEAF_DONE, span, CONTROL, lambda: [f"return {LEAF_DONE}"])
            return

        def ret(st, env):
            st.stack.pop()
            return RELOAD

        b.emit(ret, span, CONTROL, lambda: ["st.stack.pop()", f"return {RELOAD}"])

    def _ends(self, body: tuple[ast.Stmt, ...]) -> bool:
        """Whether running the body may reach an `end` (in it, or in a procedure it calls)."""
        return _may_end(body, self.ending_procs)

    def _leaf_call(self, b: _Builder, code_id: int, args: list, span, ends: bool) -> None:
        """A call of a leaf: its code runs to its end within this op. If it may reach an `end`,
        the caller's frame first records where it goes on (after this call), as a frame's call
        does, since an `end` outside a turn resumes there; the block stops if the stack changed."""
        code = self.g.codes[code_id]
        nlocals = code.nlocals
        k = len(args)
        pos = [0]

        def op(st, env):
            new = [None] * nlocals
            for i in range(k):
                new[i] = args[i](st, env)
            if ends:
                st.stack[-1][1] = pos[0]
            return run_leaf(st, code, new)

        def src() -> list[str]:
            new = env_list([self.source.inline(a) for a in args], nlocals)
            lines = ["st.stack[-1][1] = @NEXT@"] if ends else []
            if self.g.tails:
                inlined = leaf_lines(self.g, code.index, [self.source.inline(a) for a in args])
                if inlined is not None:
                    return lines + inlined
            return [*lines, f"_e = {new}", *leaf_run(self.g, code, 0, "_e")]

        pos[0] = b.emit(op, span, TEST, src) + 1

    def stmt(self, s: ast.Stmt, b: _Builder) -> None:
        start = b.pc
        getattr(self, "s_" + type(s).__name__)(s, b)
        self.stmt_ops[id(s)] = (b.code, start, b.pc)

    def part(self, e: ast.Expr) -> Fn:
        """A test or an argument of a statement, compiled, and kept for the straight writer."""
        f = self.parts[id(e)] = self.expr(e)
        return f

    def block(self, body, b: _Builder) -> None:
        for s in body:
            self.stmt(s, b)

    def _cards_fn(self, e: ast.Expr, f: Fn | None = None) -> Callable:
        """A function giving a list of cards (a copy) for a card, a zone or a list of cards."""
        t = self.type(e)
        if f is None:
            f = self.expr(e)
        if t == CARD:
            return lambda st, env: [] if (c := f(st, env)) is None else [c]
        return lambda st, env: [c for c in f(st, env) if c is not None]

    def _log_move(self, st, cards, src_names, dst) -> None:
        g = self.g
        if cards:
            srcs = ", ".join(dict.fromkeys(src_names))
            st.event(1, f"{len(cards)} card{'s' if len(cards) > 1 else ''} from {srcs} to {g.zone_names[dst]}: {{}}",
                     tuple(cards))

    def s_Move(self, s: ast.Move, b):
        cards = self._cards_fn(s.what)
        to = self.zone(s.to)
        at = self.expr(s.at) if s.at is not None else None
        names = self.g.zone_names
        log_move = self._log_move

        def op(st, env):
            dst = to(st, env)
            place = None
            if at is not None:
                place = at(st, env)
                if place is None or place < 1:
                    raise RulesRuntimeError(f"place {place} does not exist (places start at 1)")
                place -= 1
            moved = cards(st, env)
            srcs = [names[st.loc[c]] for c in moved] if st.log is not None else None
            for c in moved:
                st.move_card(c, dst, place)
                if place is not None:
                    place += 1
            if st.log is not None:
                log_move(st, moved, srcs, dst)

        b.emit(op, s.span, PLAIN, None if at is not None else lambda: self._move_src(s, op))

    def _move_src(self, s: ast.Move, op: Fn) -> list[str]:
        """`move X to Z` without logging, written out; with a log, the op itself runs."""
        zone = self.zone_src(s.to)
        what = self.source.inline(self.expr(s.what))
        put = zone.isdigit() and not self.g.zone_grid[int(zone)]  # written out: a pile or hand known here
        lines = [] if put else [f"_z = {zone}"]
        if self.type(s.what) == CARD:
            lines += self.source.found_lines(s.what, "_c") or [f"_c = {what}"]
            if put:
                put_c = [f"    {x}" for x in self._put_src("_c", int(zone))]
                return self._logged(op, [*lines, "if _c is not None:", *put_c])
            return self._logged(op, lines + ["if _c is not None: st.move_card(_c, _z)"])
        picked = self.source.picked_lines(s.what)
        if picked is not None:  # the cards of a `where` over a pile or hand: a new list, none in it
            test, cards = picked
            lines += test + [f"    for _c in {cards}:"]
            if put:
                return self._logged(op, lines + ["        " + line for line in self._put_src("_c", int(zone))])
            return self._logged(op, lines + ["        st.move_card(_c, _z)"])
        # (Not `for _c in [... for _x in WHAT ...]`: WHAT may hold a `:=`, not allowed there.)
        return self._logged(op, lines + [f"_l = {what}", f"for _c in [_x for _x in _l if _x is not None]: "
                                         f"st.move_card(_c, {zone if put else '_z'})"])

    def _put_src(self, c: str, zi: int) -> list[str]:
        """`st.move_card(c, zi)` written out, for a zone zi known here that is not a grid."""
        learn = self.g.zone_learn[zi]
        grid = any(self.g.zone_grid)  # (a game without grids needs no test for one)
        lines = [
            f"_s = st.loc[{c}]",
            "_l = st.zones[_s]",
            *([f"if {self.source.const(self.g.zone_grid)}[_s]: _l[_l.index({c})] = None"] if grid else []),
            f"{'elif' if grid else 'if'} _l[-1] == {c}: _l.pop()",
            f"else: _l.remove({c})",
            f"st.zones[{zi}].append({c})",
            f"st.loc[{c}] = {zi}",
        ]
        if learn < 0:
            lines.append(f"st.known[{c}] = {~learn}")
        elif learn:
            lines.append(f"st.known[{c}] |= {learn}")
        return [*lines, *self._count_src(c, "_s", "-"), *self._count_src(c, str(zi), "+")]

    def _count_src(self, c: str, z: str, sign: str, each: bool = False) -> list[str]:
        """Lines keeping a straight run's counts of a counted hand's cards (State.counts, see
        counts.py) as card c (or, with `each`, every card of list c) leaves (-) or enters (+)
        zone z (a number, or a name holding one); none for a zone known here not to be counted."""
        g = self.g
        if not g.count_size or (z.isdigit() and not g.zone_counted[int(z)]):
            return []
        face = self.source.const(g.card_face)
        change = f"for _c in {c}: _qh[{face}[_c]] {sign}= 1" if each else f"_qh[{face}[{c}]] {sign}= 1"
        return ["if st.counts:", f"    _qh = st.counts[{z}]", "    if _qh is not None:", f"        {change}"]

    def zone_src(self, e: ast.Expr) -> str:
        """Python source giving the zone instance an expression names."""
        if isinstance(e, ast.Name):
            ref = self.p.refs.get(id(e))
            if ref and ref[0] == "zone":
                return str(self.g.zone_base[ref[1]])
        if isinstance(e, ast.Attr):
            return self._owned_zone_src(e, self.expr(e.obj))
        return f"{self.source.const(self.zone(e))}(st, env)"

    def _owned_zone_src(self, e: ast.Attr, owner: Fn) -> str:
        """`p.square`: the owner's seat plus the zone's base, checked as zone() checks it."""
        base = self.g.zone_base[self.g.zone_spec_names.index(e.name)]
        seat = self.source.inline(owner)
        if not self.source.never_none(e.obj):
            seat = self.source.some(seat, f"the owner of '{e.name}' is none")
        return f"({base} + {seat})"

    def _logged(self, op: Fn, lines: list[str]) -> list[str]:
        """Source running `lines` without a log; with one, the op itself runs (its events are exact)."""
        return ["if st.log is not None:", f"    {self.source.const(op)}(st, env)", "else:",
                *(f"    {line}" for line in lines)]

    def _seat_src(self, e: ast.Expr, msg: str) -> str:
        """Source giving a player's seat, raising msg if it is none."""
        src = self.source.inline(self.expr(e))
        return src if self.source.never_none(e) else self.source.some(src, msg)

    def s_MoveAll(self, s: ast.MoveAll, b):
        src = self.zone(s.source)
        to = self.zone(s.to)
        names = self.g.zone_names
        log_move = self._log_move
        grid = self.g.zone_grid  # prepared with the zones, before any statement is compiled

        def move(st, zi, dst):
            if zi != dst and not grid[zi] and not grid[dst]:
                moved = st.move_all(zi, dst)
                if st.log is not None:
                    log_move(st, moved, [names[zi]], dst)
                return
            moved = [c for c in st.zones[zi] if c is not None]
            for c in moved:
                st.move_card(c, dst)
            if grid[zi]:
                st.zones[zi].clear()  # `move all` takes a grid's places away too
            if st.log is not None:
                log_move(st, moved, [names[zi]], dst)

        def op(st, env):
            move(st, src(st, env), to(st, env))

        def source() -> list[str]:
            a, d = self.zone_src(s.source), self.zone_src(s.to)
            seen = a.isdigit() and self.g.zone_vis[int(a)] == PUBLIC  # (from a public zone: see _arrive_src)
            if a.isdigit() and d.isdigit() and a != d and not grid[int(a)] and not grid[int(d)]:
                return self._logged(op, self._spill_src(a, d, seen))
            # A zone worked out as the game goes (`eater.hand`): the common case, two piles or
            # hands without a log, written out; the rest in `move`.
            table = self.source.const(grid)
            fast = ["st.log is None"]
            for var, z in (("_z", a), ("_d", d)):
                if not z.isdigit():
                    fast.append(f"not {table}[{var}]")
                elif grid[int(z)]:
                    fast = []
                    break
            call = f"{self.source.const(move)}(st, _z, _d)"
            lines = [f"_z = {a}", f"_d = {d}"]
            if not fast or (a.isdigit() and d.isdigit() and a == d):
                return lines + [call]
            return lines + [f"if _z != _d and {' and '.join(fast)}:",
                            *(f"    {line}" for line in self._spill_src(a if a.isdigit() else "_z",
                                                                      d if d.isdigit() else "_d", seen)),
                            f"else: {call}"]

        b.emit(op, s.span, PLAIN, source)

    def _spill_src(self, a: str, d: str, seen: bool = False) -> list[str]:
        """`st.move_all(a, d)` written out (two piles or hands, known to differ): a's cards go
        onto d in their order, and d teaches what it shows (known here if d is a number), unless
        they come from a public zone (`seen`): everyone knows them already."""
        each = [*self._arrive_src("_l", d, seen), *self._count_src("_l", a, "-", True),
                *self._count_src("_l", d, "+", True)]
        return [f"_l = st.zones[{a}]", "if _l:", *(f"    {line}" for line in each),
                f"    st.zones[{d}].extend(_l)", "    _l.clear()"]

    def s_Draw(self, s: ast.Draw, b):
        count = self.expr(s.count)
        src = self.zone(s.source)
        to = self.zone(s.to)
        names = self.g.zone_names
        log_move = self._log_move

        def op(st, env):
            zi = src(st, env)
            dst = to(st, env)
            moved = []
            k = count(st, env)
            if zi == dst and k > 1:
                k = 1  # the top card onto its own zone: once is as good as many times
            for _ in range(k):
                c = st.draw_one(zi, dst)
                if c is None:
                    break
                moved.append(c)
            if st.log is not None:
                log_move(st, moved, [names[zi]], dst)

        def draw_src() -> list[str]:
            g = self.g
            z, d = self.zone_src(s.source), self.zone_src(s.to)
            n = self.source.inline(count)
            if not z.isdigit() or g.zone_grid[int(z)]:
                return self._logged(op, [f"_z = {z}", f"_d = {d}", f"_n = {n}", "if _z == _d and _n > 1: _n = 1",
                                         "for _ in range(_n):", "    if st.draw_one(_z, _d) is None: break"])
            to = [] if d.isdigit() else [f"_d = {d}"]
            if not d.isdigit():
                d = "_d"
            more = self._refill_test(int(z))
            if n == "(1)":
                return self._logged(op, [*to, *self._pop_src(z, d),
                                         *([f"elif {more}: st.draw_one({z}, {d})"] if more else [])])
            stop = f"elif not {more} or st.draw_one({z}, {d}) is None: break" if more else "else: break"
            each = ["for _ in range(_n):", *(f"    {line}" for line in self._pop_src(z, d)), f"    {stop}"]
            if d == z:
                return self._logged(op, [*to, f"_n = {n}", "if _n > 1: _n = 1", *each])
            clamp = [f"if _d == {z} and _n > 1: _n = 1"] if d == "_d" else []
            # All from the pile when it holds enough (one slice, no refill), else card by card.
            bulk = ["_m = _l[len(_l) - _n:]", "del _l[len(_l) - _n:]", "_m.reverse()", f"st.zones[{d}].extend(_m)",
                    *self._arrive_src("_m", d), *self._count_src("_m", z, "-", True),
                    *self._count_src("_m", d, "+", True)]
            other = "" if d.isdigit() else f" and _d != {z}"
            return self._logged(op, [*to, f"_n = {n}", *clamp, f"_l = st.zones[{z}]",
                                     f"if _n > 0 and len(_l) >= _n{other}:",
                                     *(f"    {line}" for line in bulk), "else:", *(f"    {line}" for line in each)])

        b.emit(op, s.span, PLAIN, draw_src)

    def _refill_test(self, z: int) -> str | None:
        """When `draw_one` from the empty pile z can find cards: never (None), or when its refill
        source holds more cards than z keeps back (as `refill` tests it)."""
        source = self.g.zone_refill[z]
        return None if source < 0 else f"len(st.zones[{source}]) > {self.g.zone_keep[z]}"

    def _arrive_src(self, cards: str, d: str, seen: bool = False) -> list[str]:
        """Where the cards of list `cards` now are (zone d, a number or a name) and what d teaches:
        nothing if everyone knows them (`seen`: they were in a public zone, whose every card is
        known to all, as entering it, its shuffles and a swap into it make sure)."""
        if seen:
            return ["_o = st.loc", f"for _c in {cards}: _o[_c] = {d}"]
        if d.isdigit():
            m = self.g.zone_learn[int(d)]
            learn = [] if not m else [f"_k[_c] = {~m}" if m < 0 else f"_k[_c] |= {m}"]
            return ["_o = st.loc", *(["_k = st.known"] if learn else []), f"for _c in {cards}:", f"    _o[_c] = {d}",
                    *(f"    {line}" for line in learn)]
        return ["_o = st.loc", f"for _c in {cards}: _o[_c] = {d}", f"_t = {self.source.const(self.g.zone_learn)}[{d}]",
                "if _t:", "    _k = st.known", "    if _t < 0:", "        _t = ~_t",
                f"        for _c in {cards}: _k[_c] = _t", "    else:", f"        for _c in {cards}: _k[_c] |= _t"]

    def _pop_src(self, z: str, d: str) -> list[str]:
        """`draw_one(z, d)`'s common case written out: if pile z has a card, its top card onto
        zone d (a number, or a name holding one), which learns what the zone shows."""
        g = self.g
        if d.isdigit():
            m = g.zone_learn[int(d)]
            learn = [] if not m else [f"st.known[_c] = {~m}" if m < 0 else f"st.known[_c] |= {m}"]
        else:
            learn = [f"_t = {self.source.const(g.zone_learn)}[{d}]",
                     "if _t: st.known[_c] = ~_t if _t < 0 else st.known[_c] | _t"]
        counted = [*self._count_src("_c", z, "-"), *self._count_src("_c", d, "+")]
        return [f"_l = st.zones[{z}]", "if _l:", "    _c = _l.pop()", f"    st.zones[{d}].append(_c)",
                f"    st.loc[_c] = {d}", *(f"    {line}" for line in learn + counted)]

    def s_Deal(self, s: ast.Deal, b):
        count = self.expr(s.count)
        src = self.zone(s.source)
        spec = next(z for z in self.p.zones if z.name == s.zone)
        base = self.g.zone_base[spec.index]
        n = self.n
        names = self.g.zone_names

        # A deal stops when its pile has nothing more to give (cards that go round through a
        # refill count against the step budget there); it has at most as many rounds as there are
        # cards (more would only move a card from a hand to itself again).
        ncards = self.g.ncards

        def op(st, env):
            zi = src(st, env)
            k = count(st, env)
            for _ in range(min(k, ncards)):
                if any(st.draw_one(zi, base + seat) is None for seat in range(n)):
                    break
            if st.log is not None:
                st.event(1, f"{k} card{'s' if k != 1 else ''} from {names[zi]} dealt to each {s.zone}")

        def deal_src() -> list[str]:
            z, k = self.zone_src(s.source), self.source.inline(count)
            fixed = _literal(k)
            rounds = f"for _ in range({min(fixed, ncards)}):" if fixed is not None else \
                f"for _ in range(min({k}, {ncards})):"
            if not z.isdigit() or self.g.zone_grid[int(z)]:
                return self._logged(op, [f"_z = {z}", rounds,
                                         f"    for _s in range({base}, {base + n}):",
                                         "        if st.draw_one(_z, _s) is None: break",
                                         "    else: continue", "    break"])
            more = self._refill_test(int(z))
            stop = f"elif not {more} or st.draw_one({z}, _d) is None: break" if more else "else: break"
            return self._logged(op, [rounds, f"    for _d in range({base}, {base + n}):",
                                     *(f"        {line}" for line in self._pop_src(z, "_d")),
                                     f"        {stop}", "    else: continue", "    break"])

        b.emit(op, s.span, PLAIN, deal_src)

    def s_Shuffle(self, s: ast.Shuffle, b):
        z = self.zone(s.zone)
        names = self.g.zone_names

        def op(st, env):
            zi = z(st, env)
            st.shuffle_zone(zi)
            if st.log is not None:
                st.event(1, f"{names[zi]} is shuffled")

        b.emit(op, s.span, PLAIN, lambda: self._logged(op, [f"st.shuffle_zone({self.zone_src(s.zone)})"]))

    def s_Reveal(self, s: ast.Reveal, b):
        what = self.expr(s.what)
        cards = self._cards_fn(s.what, what)
        g = self.g

        def op(st, env):
            shown = cards(st, env)
            for c in shown:
                st.known[c] = g.all_mask
            if st.log is not None and shown:
                where = ", ".join(dict.fromkeys(g.zone_names[st.loc[c]] for c in shown))
                st.event(0, f"revealed in {where}: {{}}", tuple(shown))

        def reveal_src() -> list[str]:
            spec = self.source.zone_spec(s.what)  # (None for a card or a list)
            if spec is not None and g.zone_vis[g.zone_base[spec]] == PUBLIC:
                return self._logged(op, ["pass"])  # a public zone's cards are known to all already
            return self._logged(op, self._each_card_src(s.what, what, f"= {g.all_mask}"))

        b.emit(op, s.span, PLAIN, reveal_src)

    def _each_card_src(self, e: ast.Expr, f: Fn, update: str) -> list[str]:
        """`st.known[c] <update>` for each card of a card, a zone or a list of cards (none skipped)."""
        what = self.source.inline(f)
        if self.type(e) == CARD:
            return [f"_c = {what}", f"if _c is not None: st.known[_c] {update}"]
        spec = self.source.zone_spec(e)
        if spec is not None and not self.g.zone_grid[self.g.zone_base[spec]]:  # a pile or a hand: no none
            return ["_k = st.known", f"for _c in {what}: _k[_c] {update}"]
        inner = what[1:-1] if what.startswith("(") and what.endswith(")") else what
        places = _grid_places(inner)  # a grid's cards: go over its places (none is skipped anyway)
        return [f"for _c in {places if places != inner else what}:", f"    if _c is not None: st.known[_c] {update}"]

    def s_ShowTo(self, s: ast.ShowTo, b):
        what = self.expr(s.what)
        cards = self._cards_fn(s.what, what)
        who = self.expr(s.who)
        g = self.g

        def op(st, env):
            p = who(st, env)
            if p is None:
                return
            shown = cards(st, env)
            for c in shown:
                st.known[c] |= 1 << p
            if st.log is not None and shown:
                places = ", ".join(g.place_text(st, c) for c in shown)
                st.event(0, f"{g.names[p]} looks at {places}: {{}}", tuple(shown))

        def src() -> list[str]:
            each = self._each_card_src(s.what, what, "|= _b")
            return self._logged(op, [f"_w = {self.source.inline(who)}", "if _w is not None:", "    _b = 1 << _w",
                                     *(f"    {line}" for line in each)])

        b.emit(op, s.span, PLAIN, src)

    def s_Swap(self, s: ast.Swap, b):
        first, second = self.expr(s.first), self.expr(s.second)
        g = self.g

        def op(st, env):
            a, c = first(st, env), second(st, env)
            if a is None or c is None:
                return
            if st.log is not None:
                st.event(0, f"{g.place_text(st, a)} and {g.place_text(st, c)} are swapped")
            st.swap_cards(a, c)

        def src() -> list[str]:
            learn = self.source.const(g.zone_learn)
            # `st.swap_cards(_a, _b)` written out: each card takes the other's place and learns
            # what its new zone shows.
            return self._logged(op, [
                f"_a = {self.source.inline(first)}", f"_b = {self.source.inline(second)}",
                "if _a is not None and _b is not None and _a != _b:",
                "    _o = st.loc", "    _za = _o[_a]", "    _zb = _o[_b]", "    _la = st.zones[_za]",
                "    _lb = st.zones[_zb]", "    _ia = _la.index(_a)", "    _ib = _lb.index(_b)", "    _la[_ia] = _b",
                "    _lb[_ib] = _a", "    _o[_a] = _zb", "    _o[_b] = _za", f"    _t = {learn}[_zb]",
                "    if _t: st.known[_a] = ~_t if _t < 0 else st.known[_a] | _t", f"    _t = {learn}[_za]",
                "    if _t: st.known[_b] = ~_t if _t < 0 else st.known[_b] | _t",
                *(f"    {line}" for line in [*self._count_src("_a", "_za", "-"), *self._count_src("_a", "_zb", "+"),
                                             *self._count_src("_b", "_zb", "-"), *self._count_src("_b", "_za", "+")])])

        b.emit(op, s.span, PLAIN, src)

    def s_Let(self, s: ast.Let, b):
        f = self.expr(s.value)
        slot = self.p.slots[id(s)]
        guard = self._guard(s.value, "local")
        if guard is not None:
            def op(st, env):
                env[slot] = guard(st, f(st, env))
        else:
            def op(st, env):
                env[slot] = f(st, env)

        b.emit(op, s.span, PLAIN, lambda: self._set_src(f"env[{slot}]", s.value, f, guard))

    def _set_src(self, cell: str, e: ast.Expr, f: Fn, guard: Callable | None = None) -> list[str]:
        """`cell = e`: a search (`first(S where C)`) as a plain loop, anything else in place."""
        found = self.source.found_lines(e, "_c")
        value = "_c" if found else self.source.inline(f)
        if guard is not None:
            value = f"{self.source.const(guard)}(st, {value})"
        return [*(found or ()), f"{cell} = {value}"]

    # ------------------------------------------------------------ bounded values
    def _guard(self, e: ast.Expr, kind: str, op_text: str = "=", target_type: str | None = None) -> Callable | None:
        """A check of a value as it is stored, where it can fire: a number that may grow without
        bound (a product, `c + c`, a sum) past the digits limit; a list joined with `+` past the list
        limit; a number or yes/no counter or variable set to none (the attribute of an empty top).
        None if nothing stored here can go wrong so (most assignments: `x += 1`, `loser = me`)."""
        t = target_type or self.type(e)
        if t in (INT, BOOL):
            stored = kind not in ("local",)  # a counter or variable: a number or yes/no, never none
            grows = t == INT and (not _constant(e, self.p.refs) if op_text != "=" else self._grows(e, set()))
            grows = grows or self._too_long(e)
            none = stored and op_text == "=" and not isinstance(e, ast.NoneLit) and self._may_be_none(e, set())
            if not (grows or none):
                return None
            return _number_guard(self.g.limits["digits"], none)
        if is_list(t) and t != ZONE and self._joins(e, set()):
            return _list_guard(self.g.limits["list"])
        return None

    def _too_long(self, e: ast.Expr) -> bool:
        """A literal or parameter that has more digits than the limit already."""
        if isinstance(e, ast.Unary) and e.op == "-":
            return self._too_long(e.operand)
        ref = self.p.refs.get(id(e)) if isinstance(e, ast.Name) else None
        value = e.value if isinstance(e, ast.IntLit) else ref[1] if ref is not None and ref[0] == "const" else 0
        return isinstance(value, int) and abs(value) >= 10 ** self.g.limits["digits"]

    def _sub_defines(self, e: ast.Expr, seen: set) -> list[ast.Expr]:
        """The bodies of the defines `e` uses directly, each once."""
        name = e.id if isinstance(e, ast.Name) else e.func if isinstance(e, ast.Call) else None
        if name in self.p.defines and name not in seen:
            seen.add(name)
            return [self.p.defines[name].expr]
        return []

    def _somewhere(self, e: ast.Expr, test: Callable[[ast.Expr], bool], seen: set) -> bool:
        """Whether `test` holds for `e`, a part of it, or the body of a define it uses (each once)."""
        return test(e) or any(self._somewhere(x, test, seen) for x in (*_children(e), *self._sub_defines(e, seen)))

    def _grows(self, e: ast.Expr, seen: set) -> bool:
        """Arithmetic that may grow without bound once stored and read again: a product, a sum or
        difference of two values that are not constants (`c + c` doubles), a `sum`."""
        def here(x: ast.Expr) -> bool:
            if isinstance(x, ast.Binary):
                return x.op == "*" or (x.op in ("+", "-") and not _constant(x.left, self.p.refs)
                                       and not _constant(x.right, self.p.refs) and self.type(x) == INT)
            return isinstance(x, ast.Call) and x.func == "sum" and self._reads_numbers(x, set())

        return self._somewhere(e, here, seen)

    def _may_be_none(self, e: ast.Expr, seen: set) -> bool:
        """Whether a number or yes/no expression may be none (an attribute of a card that may be
        none, a variable or local that may hold none); arithmetic, comparisons, counts are not."""
        if isinstance(e, (ast.IntLit, ast.BoolLit, ast.Unary, ast.IsKind)):
            return False
        if isinstance(e, ast.Binary):
            return e.op in ("and", "or") and (self._may_be_none(e.left, seen) or self._may_be_none(e.right, seen))
        if isinstance(e, ast.Name):
            kind = (self.p.refs.get(id(e)) or ("",))[0]
            if kind in ("counter", "const"):
                return False
            if kind == "define":
                return any(self._may_be_none(x, seen) for x in self._sub_defines(e, seen))
            return True
        if isinstance(e, ast.Call):
            if e.func in ("sum", "count", "any", "all", "empty"):
                return False
            if e.func in self.p.defines:
                return any(self._may_be_none(x, seen) for x in self._sub_defines(e, seen))
            return True
        if isinstance(e, ast.IfExpr):
            return self._may_be_none(e.then, seen) or self._may_be_none(e.orelse, seen)
        return True

    def _reads_numbers(self, e: ast.Expr, seen: set) -> bool:
        """Whether `e` reads a counter, a variable or a local (which a rule may have made large),
        not only cards' attributes and constants (a `sum` of those is as small as the deck)."""
        def here(x: ast.Expr) -> bool:
            if self.type(x) not in (INT, "list[int]"):
                return False
            if isinstance(x, ast.Name):
                return (self.p.refs.get(id(x)) or ("",))[0] in ("counter", "var", "local")
            # a player's counter or variable (`p.score`, `players.score`)
            return isinstance(x, ast.Attr) and self.type(x.obj) in (PLAYER, "list[player]")

        return self._somewhere(e, here, seen)

    def _joins(self, e: ast.Expr, seen: set) -> bool:
        """Lists joined with `+` somewhere in `e` (the one way a list grows)."""
        return self._somewhere(
            e, lambda x: isinstance(x, ast.Binary) and x.op == "+" and is_list(self.type(x.left)), seen)

    def s_Assign(self, s: ast.Assign, b):
        op = self._assign_op(self.p.refs[id(s)], s.op, s.value, s.target)
        b.emit(op, s.span, PLAIN, getattr(op, "src", None))

    def _assign_op(self, ref: tuple, op_text: str, value: ast.Expr, target: tuple[str, ...]) -> Fn:
        f = self.expr(value)
        kind = ref[0]
        sign = {"=": 0, "+=": 1, "-=": -1}[op_text]
        g = self.g
        guard = self._guard(value, "local" if kind == "local" else "stored", op_text, self._target_type(ref))
        wrap = (lambda text: f"{self.source.const(guard)}(st, {text})") if guard is not None else (lambda text: text)
        if kind == "local":
            slot = ref[1]
            if sign:
                def op(st, env):
                    v = env[slot] + sign * f(st, env)
                    env[slot] = guard(st, v) if guard is not None else v
                op.src = lambda: [f"env[{slot}] += {sign} * {self.source.inline(f)}"] if guard is None else [
                    f"env[{slot}] = {wrap(f'env[{slot}] + {sign} * {self.source.inline(f)}')}"]
            else:
                def op(st, env):
                    v = f(st, env)
                    env[slot] = guard(st, v) if guard is not None else v
                op.src = lambda: self._set_src(f"env[{slot}]", value, f, guard)
        elif kind == "direction":
            def op(st, env):
                st.direction = f(st, env)
            op.src = lambda: [f"st.direction = {self.source.inline(f)}"]
        else:
            counter = kind in ("counter", "pcounter")
            group = self.p.counters if counter else self.p.vars
            info = group[ref[1]]
            base = (g.counter_layout if counter else g.var_layout)[info.name][0]
            owner = self.expr(ref[2]) if kind in ("pcounter", "pvar") else None
            attr = "counters" if counter else "vars"
            names = g.names

            def op(st, env):
                slot = base
                who = ""
                if owner is not None:
                    p = owner(st, env)
                    if p is None:
                        raise RulesRuntimeError(f"'{target[0]}' is none")
                    slot += p
                    who = names[p] + "."
                values = getattr(st, attr)
                old = values[slot]
                v = old + sign * f(st, env) if sign else f(st, env)
                values[slot] = guard(st, v) if guard is not None else v
                if counter and st.log is not None and values[slot] != old:
                    st.event(0, f"{who}{info.name}: {old} -> {values[slot]}")

            def src() -> list[str]:
                lines = []
                cell = f"st.{attr}[{base}]"
                if owner is not None:
                    msg = f"'{target[0]}' is none"
                    lines.append(f"_w = {self._seat_src(ref[2], msg)}")
                    cell = f"st.{attr}[{base} + _w]"
                value = self.source.inline(f)
                plus = "+" if sign > 0 else "-"
                lines.append(f"{cell} = {wrap(f'{cell} {plus} {value}')}" if sign else f"{cell} = {wrap(value)}")
                return self._logged(op, lines) if counter else lines

            op.src = src
        return op

    def _target_type(self, ref: tuple) -> str | None:
        """The declared type of an assignment's counter or variable (None for a local: its value's)."""
        if ref[0] in ("counter", "pcounter"):
            return INT
        if ref[0] in ("var", "pvar"):
            return self.p.vars[ref[1]].type
        return None

    def s_If(self, s: ast.If, b):
        end_jumps: list[list[int]] = []
        for cond, body in s.branches:
            f = self.part(cond)
            skip = [0]

            def test(st, env, f=f, skip=skip):
                if not f(st, env):
                    return skip[0]
                return None

            b.emit(test, cond.span, TEST,
                   lambda f=f, skip=skip: [f"if not {self.source.inline(f)}: return {skip[0]}"])
            self.block(body, b)
            cell = [0]
            end_jumps.append(cell)
            b.emit(lambda st, env, cell=cell: cell[0], None, JUMP, lambda cell=cell: [f"return {cell[0]}"])
            skip[0] = b.pc
        if s.orelse is not None:
            self.block(s.orelse, b)
        for cell in end_jumps:
            cell[0] = b.pc

    def _loop_end(self, b: _Builder, top: int, loop: _Loop, span, bounded: bool = False) -> None:
        """The jump back to a loop's test. A `while` may loop for ever without a decision, so its
        every round counts against the step budget (`tick`); a `for each` over a list or a
        `repeat N times` ends by itself, and its rounds are not counted."""
        if bounded:
            b.emit(lambda st, env: top, span, JUMP, lambda: [f"return {top}"])
        else:
            def back(st, env):
                st.tick()
                return top

            b.emit(back, span, JUMP, lambda: ["st.budget -= 1", "if st.budget < 0: st.tick()", f"return {top}"])
        for cell in loop.breaks:
            cell[0] = b.pc
        b.loops.pop()

    def s_ForEach(self, s: ast.ForEach, b):
        var_slot, list_slot, pos_slot = self.p.slots[id(s)]
        seq = self.expr(s.seq)

        # Its passes count against the step budget as it starts, as a `repeat`'s (loops in loops
        # over long ranges would run away otherwise); over the players, they are too few to count.
        players = isinstance(s.seq, ast.PlayersExpr)

        def init(st, env):
            items = env[list_slot] = [x for x in seq(st, env) if x is not None]
            env[pos_slot] = 0
            if not players:
                st.budget -= len(items)
                if st.budget < 0:
                    st.tick()

        def init_src() -> list[str]:
            items = self.source.inline(seq)
            if players and hasattr(seq, "src"):
                return [f"env[{list_slot}] = {items}", f"env[{pos_slot}] = 0"]  # a new list of seats
            # (The list first: a `:=` in it may not stand in a comprehension's iterable.)
            count = [] if players else ["st.budget -= len(_l)", "if st.budget < 0: st.tick()"]
            return [f"_l = {items}", f"env[{list_slot}] = _l = [_x for _x in _l if _x is not None]",
                    f"env[{pos_slot}] = 0", *count]

        b.emit(init, s.seq.span, PLAIN, init_src)
        loop = _Loop()
        b.loops.append(loop)
        end = [0]
        loop.breaks.append(end)

        def step(st, env):
            i = env[pos_slot]
            items = env[list_slot]
            if i >= len(items):
                return end[0]
            env[var_slot] = items[i]
            env[pos_slot] = i + 1
            return None

        top = b.emit(step, s.span, TEST, lambda: [
            f"_r = env[{pos_slot}]",
            f"if _r >= len(env[{list_slot}]): return {end[0]}",
            f"env[{var_slot}] = env[{list_slot}][_r]",
            f"env[{pos_slot}] = _r + 1",
        ])
        self.block(s.body, b)
        self._loop_end(b, top, loop, s.span, bounded=True)

    def s_While(self, s: ast.While, b):
        cond = self.part(s.cond)
        loop = _Loop()
        b.loops.append(loop)
        end = [0]
        loop.breaks.append(end)

        def test(st, env):
            if not cond(st, env):
                return end[0]
            return None

        top = b.emit(test, s.cond.span, TEST, lambda: [f"if not {self.source.inline(cond)}: return {end[0]}"])
        self.block(s.body, b)
        self._loop_end(b, top, loop, s.span)

    def s_Repeat(self, s: ast.Repeat, b):
        count = self.expr(s.count)
        slot = self.p.slots[id(s)]

        # Its passes count against the step budget all at once, as it starts: a count that runs
        # away stops here, at no cost a pass.
        def init(st, env):
            n = env[slot] = count(st, env)
            if n > 0:
                st.budget -= n
                if st.budget < 0:
                    st.tick()

        def init_src() -> list[str]:
            n = self.source.inline(count)
            fixed = _literal(n)
            if fixed is not None:  # (a count written in the rules: its passes known here)
                return [f"env[{slot}] = {fixed}", *([f"st.budget -= {fixed}", "if st.budget < 0: st.tick()"]
                                                    if fixed > 0 else [])]
            return [f"_n = env[{slot}] = {n}", "if _n > 0:", "    st.budget -= _n", "    if st.budget < 0: st.tick()"]

        b.emit(init, s.count.span, PLAIN, init_src)
        loop = _Loop()
        b.loops.append(loop)
        end = [0]
        loop.breaks.append(end)

        def test(st, env):
            if env[slot] <= 0:
                return end[0]
            env[slot] -= 1
            return None

        top = b.emit(test, s.span, TEST, lambda: [f"if env[{slot}] <= 0: return {end[0]}", f"env[{slot}] -= 1"])
        self.block(s.body, b)
        self._loop_end(b, top, loop, s.span, bounded=True)

    def s_Break(self, s: ast.Break, b):
        cell = [0]
        b.loops[-1].breaks.append(cell)
        b.emit(lambda st, env: cell[0], s.span, JUMP, lambda: [f"return {cell[0]}"])

    def s_Return(self, s: ast.Return, b):
        self._return(b, s.span)

    def s_Choose(self, s: ast.Choose, b):
        g = self.g
        slot = self.p.slots[id(s)]
        domain = self.expr(s.domain)
        t = self.type(s.domain)
        et = elem(t) if is_list(t) else "any"
        if et == "any":
            et = INT
        by = self.expr(s.by) if s.by is not None else None
        dec = Decision(len(g.decisions), s.label if s.label is not None else s.name, slot, domain, by,
                       s.optional, et, s.span, s.name, s.pass_label or "pass")
        g.decisions.append(dec)
        self.choose_decisions[id(s)] = dec
        values = g.choice_values
        optional = s.optional
        self.hand_free[dec.index] = self._hand_free(s.domain)
        distinct = self.distinct_fn(dec)

        def op(st, env):
            chooser = st.current if by is None else by(st, env)
            if chooser is None:
                raise RulesRuntimeError("the player who must choose is none")
            opts = values(st, dec, env, chooser)
            if optional:
                opts.append(None)
            if not opts:
                env[slot] = None
                return None
            st.pending = dec.index
            st.chooser = chooser
            st.options = tuple(opts)
            st._texts = None
            return SUSPEND

        def src() -> list[str]:
            inline, const = self.source.inline, self.source.const
            try:  # loops that filter, merge and append as they go
                options = ["_v = []", *self.domains.options(s.domain, distinct, "_p", "_v", "{v}")]
            except NoSource:
                options = [
                    f"_v = {inline(domain)}",
                    *(["_v = list(dict.fromkeys(_v))", "if None in _v: _v.remove(None)"]
                      if distinct is distinct_plain else [f"_v = {const(distinct)}(st, _v, _p) if _v else []"]),
                ]
            who = "st.current" if by is None else inline(by)
            if who.startswith("(") and who.endswith(")"):  # past the test below, the chooser is no none
                options = [unguard(line, who[1:-1]) for line in options]
            return [
                f"_p = {who}",
                "if _p is None: raise RulesRuntimeError('the player who must choose is none')",
                *options,
                *(["_v.append(None)"] if optional else []),
                f"if not _v: env[{slot}] = None; return @NEXT@",
                f"st.pending = {dec.index}; st.chooser = _p; st.options = tuple(_v); st._texts = None",
                f"return {SUSPEND}",
            ]

        b.emit(op, s.span, CONTROL, src)

    @property
    def domains(self) -> DomainWriter:
        """Writes decisions' domains as statements for generated functions."""
        if not hasattr(self, "_domains"):
            self._domains = DomainWriter(self.source)
        return self._domains

    def _hand_free(self, e: ast.Expr) -> bool:
        """Whether a domain's cards all come from one zone that is not a hand (so none merge)."""
        while isinstance(e, ast.Where):
            e = e.seq
        ref = self.p.refs.get(id(e)) if isinstance(e, ast.Name) else None
        if ref is not None and ref[0] == "zone":
            spec = ref[1]
        elif isinstance(e, ast.Attr) and self.type(e) == ZONE and e.name in self.g.zone_spec_names:
            spec = self.g.zone_spec_names.index(e.name)
        else:
            return False
        return self.g.zone_shape[self.g.zone_base[spec]] != HAND

    def distinct_fn(self, dec: Decision) -> Callable:
        return self.g.distinct_fn(dec, self.hand_free.get(dec.index, False))

    def s_CallStmt(self, s: ast.CallStmt, b):
        code_id = self.proc_codes[s.func]
        nlocals = self.g.codes[code_id].nlocals
        args = [self.part(a) for a in s.args]
        if s.func in self.leaf_procs:
            # Only a code with a frame records where it goes on: a leaf has none, and the framed
            # code that called it has recorded its own position already.
            self._leaf_call(b, code_id, args, s.span, s.func in self.ending_procs and not self.leaf)
            return
        k = len(args)
        # A call that may come back to itself checks how deep the recursion goes (the others cannot
        # nest deeper than the rules are long).
        deep = s.func in self.recursive_procs
        check = self.depth_check

        def op(st, env):
            new = [None] * nlocals
            for i in range(k):
                new[i] = args[i](st, env)
            if deep:
                check(st)
            st.stack.append([code_id, 0, new])
            return RELOAD

        def src() -> list[str]:
            new = env_list([self.source.inline(a) for a in args], nlocals)
            return [*([f"{self.source.const(check)}(st)"] if deep else []),
                    f"st.stack.append([{code_id}, 0, {new}])", f"return {RELOAD}"]

        b.emit(op, s.span, CONTROL, src)

    def s_End(self, s: ast.End, b):
        if self.unit == "game end" or (self.unit == "round end" and s.what != "game"):
            self._return(b, s.span)
            return
        cell = [0]
        over = [0]
        if s.what == "game" and self.unit != "round end":
            label = "game over in a round"  # the round ends with the game: `round end` runs first
            self.end_cells.append(("over", over))
        else:
            label = {"turn": "after action", "round": "round over", "game": "over"}[s.what]
        self.end_cells.append((label, cell))
        turn_cell = self.turn_cell
        only_in_turn = s.what == "turn"

        def op(st, env):
            stack = st.stack
            del stack[1:]
            main = stack[0]
            if only_in_turn and not turn_cell[0] <= main[1] <= turn_cell[1]:
                return STACKED  # not inside a turn: only the running hook ends
            main[1] = cell[0] if st.round > 0 or not over[0] else over[0]
            return STACKED

        b.emit(op, s.span)

    def s_ReverseDirection(self, s, b):
        def op(st, env):
            st.direction = -st.direction
            if st.log is not None:
                st.event(0, "the direction of play is now " + ("clockwise" if st.direction > 0 else "counterclockwise"))

        b.emit(op, s.span, PLAIN, lambda: self._logged(op, ["st.direction = -st.direction"]))

    def s_NextPlayer(self, s: ast.NextPlayer, b):
        f = self.expr(s.player)
        names = self.g.names

        def op(st, env):
            p = f(st, env)
            if p is None:
                raise RulesRuntimeError("the next player is none")
            st.next_player = p
            st.continue_from = -1
            if st.log is not None:
                st.event(0, f"{names[p]} plays next")

        b.emit(op, s.span, PLAIN, lambda: self._logged(op, [
            f"st.next_player = {self._seat_src(s.player, 'the next player is none')}", "st.continue_from = -1"]))

    def s_ContinueFrom(self, s: ast.ContinueFrom, b):
        f = self.expr(s.player)

        def op(st, env):
            p = f(st, env)
            if p is None:
                raise RulesRuntimeError("`continue from` a player who is none")
            st.continue_from = p
            st.next_player = -1

        b.emit(op, s.span, PLAIN, lambda: [
            f"st.continue_from = {self._seat_src(s.player, '`continue from` a player who is none')}",
            "st.next_player = -1"])

    def s_Say(self, s: ast.Say, b):
        # Cards in a message show only to the players who know them, like cards in any event.
        parts = []
        for part in s.text.parts:
            if isinstance(part, str):
                parts.append((lambda text: lambda st, env: (text, ()))(part))
            elif self.type(part) in (CARD, ZONE, "list[card]"):
                parts.append(_card_holes(self._cards_fn(part)))
            else:
                parts.append(_text_hole(self.formatter(self.expr(part), self.type(part))))

        def op(st, env):
            if st.log is not None:
                texts, cards = [], []
                for p in parts:
                    text, cs = p(st, env)
                    texts.append(text)
                    cards.extend(cs)
                st.event(0, "".join(texts), tuple(cards))

        b.emit(op, s.span, PLAIN, lambda: [f"if st.log is not None: {self.source.const(op)}(st, env)"])
