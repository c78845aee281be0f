"""Statements to ops: each statement's op(s) for the machine, each op written once, as Python
source, by a writer that writes the form a run asks for (a Variant: with the log's events or
not, with the straight run's counts or not)."""

from __future__ import annotations

from collections.abc import Callable

from .. import ast
from ..checker import BOOL, CARD, DIRECTION, INT, PLAYER, ZONE, elem, is_list
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
)
from ..errors import Diagnostic, RulesError
from .blocks import env_list, leaf_lines, leaf_run, op_lines
from .domains import DomainWriter
from .exprs import _grid_places, unguard
from .runtime import (
    Fn,
    _list_guard,
    _number_guard,
    log_moved,
)
from .source import NoSource, Variant
from .tree import (
    _children,
    _constant,
    _literal,
    _may_end,
)

Writer = Callable[[Variant], list[str]]


class _Loop:
    def __init__(self) -> None:
        self.breaks: list[list[int]] = []


class _Builder:
    def __init__(self, code: Code):
        self.code = code
        self.loops: list[_Loop] = []

    def emit(self, span: ast.Span | None, kind: int, write: Writer) -> int:
        """Add an op. `kind` says what it may return (a CONTROL op may return anything); `write`,
        called once all jump targets are known, writes its Python source in a given Variant.
        (`Code.ops` keeps a place per op, and holds nothing: an op is its source.)"""
        self.code.ops.append(None)
        self.code.spans.append(span)
        self.code.kinds.append(kind)
        self.code.srcs.append(write)
        return len(self.code.kinds) - 1

    @property
    def pc(self) -> int:
        return len(self.code.kinds)


def _indented(lines: list[str], by: str = "    ") -> list[str]:
    return [by + line for line in lines]


def _text(words: str) -> str:
    """A Python string literal of `words` (the texts of events are joined with `+` in generated
    source, not written as f-strings: a leaf written in place renames its locals outside strings)."""
    return repr(words)


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
            b.emit(span, CONTROL, lambda v: [f"return {LEAF_DONE}"])
        else:
            b.emit(span, CONTROL, lambda v: ["st.stack.pop()", f"return {RELOAD}"])

    def _ends(self, body: tuple[ast.Stmt, ...]) -> bool:
        """Whether running the body may reach an `end` (in it, or in a procedure it calls)."""
        return _may_end(body, self.ending_procs)

    def _leaf_call(self, b: _Builder, code_id: int, args: list, span, ends: bool) -> None:
        """A call of a leaf: its code runs to its end within this op. If it may reach an `end`,
        the caller's frame first records where it goes on (after this call), as a frame's call
        does, since an `end` outside a turn resumes there; the block stops if the stack changed."""
        code = self.g.codes[code_id]

        def write(v: Variant) -> list[str]:
            new = env_list([self.source.inline(a) for a in args], code.nlocals)
            lines = ["st.stack[-1][1] = @NEXT@"] if ends else []
            if self.g.tails:
                inlined = leaf_lines(self.g, code.index, [self.source.inline(a) for a in args])
                if inlined is not None:
                    return lines + inlined
            return [*lines, f"_e = {new}", *leaf_run(self.g, code, 0, "_e")]

        b.emit(span, TEST, write)

    def stmt(self, s: ast.Stmt, b: _Builder) -> None:
        start = b.pc
        getattr(self, "s_" + type(s).__name__)(s, b)
        self.stmt_ops[id(s)] = (b.code, start, b.pc)

    def part(self, e: ast.Expr) -> Fn:
        """A test or an argument of a statement, compiled, and kept for the straight writer."""
        f = self.parts[id(e)] = self.expr(e)
        return f

    def expr_src(self, e: ast.Expr) -> str:
        """Python source of expression e, compiled once (a writer may be asked for its lines
        several times: for each block and tail that holds them, with a log and without)."""
        f = self.parts.get(id(e))
        return self.source.inline(f if f is not None else self.part(e))

    def block(self, body, b: _Builder) -> None:
        for s in body:
            self.stmt(s, b)

    def statement_function(self, write: Writer) -> Fn:
        """An op's source as a function (st, env), as a machine block would run it alone (for a
        scenario's `set`, which runs outside the machine)."""
        scope: dict[str, object] = {}
        text = "def op(st, env):\n" + "".join(f"    {line}\n" for line in op_lines(write) or ["pass"])
        exec(compile(text, f"<rules {self.g.name} statement>", "exec"), self.source.names, scope)
        return scope["op"]

    # ------------------------------------------------------------ cards and where they go
    def _cards_src(self, e: ast.Expr, target: str) -> list[str]:
        """Lines setting `target` to a new list of the cards of a card, a zone or a list of cards
        (none left out)."""
        what = self.expr_src(e)
        if self.type(e) == CARD:
            return [f"_c = {what}", f"{target} = [] if _c is None else [_c]"]
        # (Not `[... for _x in WHAT ...]`: WHAT may hold a `:=`, not allowed there.)
        return [f"_l = {what}", f"{target} = [_x for _x in _l if _x is not None]"]

    def _moved_log(self, cards: str, sources: str, to: str) -> str:
        """The event of `cards` moved from the zones `sources` names (source of a string) to zone
        `to` (a number, or a name holding one)."""
        return f"{self.source.const(log_moved)}(st, {cards}, {sources}, {self._zone_name(to)})"

    def _zone_name(self, z: str) -> str:
        """Source of the name of zone z (a number, or a name holding one)."""
        names = self.g.zone_names
        return _text(names[int(z)]) if z.isdigit() else f"{self.source.const(names)}[{z}]"

    def s_Move(self, s: ast.Move, b):
        self.zone_src(s.to)  # (a zone it cannot name is an error now, not when it is written)
        if s.at is not None:
            self.part(s.at)
        b.emit(s.span, PLAIN, lambda v: self._move_src(s, v))

    def _move_src(self, s: ast.Move, v: Variant) -> list[str]:
        """`move X to Z [at P]`: to a pile or hand known here, each card's move written out; with a
        log or to a place, card by card by `move_card`, and the event after."""
        zone = self.zone_src(s.to)
        if v.log or s.at is not None:
            lines = [f"_z = {zone}"]
            if s.at is not None:
                lines += [f"_p = {self.expr_src(s.at)}",
                          "if _p is None or _p < 1: raise RulesRuntimeError("
                          "'place ' + str(_p) + ' does not exist (places start at 1)')", "_p -= 1"]
            lines += self._cards_src(s.what, "_m")
            if v.log:
                lines.append(f"_f = [{self.source.const(self.g.zone_names)}[st.loc[_c]] for _c in _m]")
            if s.at is not None:
                lines += ["for _c in _m:", "    st.move_card(_c, _z, _p)", "    _p += 1"]
            else:
                lines.append("for _c in _m: st.move_card(_c, _z)")
            return lines + ([self._moved_log("_m", "', '.join(dict.fromkeys(_f))", "_z")] if v.log else [])
        what = self.expr_src(s.what)
        put = zone.isdigit() and not self.g.zone_grid[int(zone)]  # written out: a pile or hand known here
        lines = [] if put else [f"_z = {zone}"]
        if self.type(s.what) == CARD:
            lines += self.source.found_lines(s.what, "_c") or [f"_c = {what}"]
            if put:
                return [*lines, "if _c is not None:", *_indented(self._put_src("_c", int(zone), v))]
            return lines + ["if _c is not None: st.move_card(_c, _z)"]
        picked = self.source.picked_lines(s.what)
        if picked is not None:  # the cards of a `where` over a pile or hand: a new list, none in it
            test, cards = picked
            lines += test + [f"    for _c in {cards}:"]
            if put:
                return lines + _indented(self._put_src("_c", int(zone), v), "        ")
            return lines + ["        st.move_card(_c, _z)"]
        # (Not `for _c in [... for _x in WHAT ...]`: WHAT may hold a `:=`, not allowed there.)
        return lines + [f"_l = {what}", f"for _c in [_x for _x in _l if _x is not None]: "
                                        f"st.move_card(_c, {zone if put else '_z'})"]

    def _put_src(self, c: str, zi: int, v: Variant) -> list[str]:
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
        return [*lines, *self._count_src(v, c, "_s", "-"), *self._count_src(v, c, str(zi), "+")]

    def _count_src(self, v: Variant, c: str, z: str, sign: str, each: bool = False) -> list[str]:
        """Lines keeping a straight run's counts of a counted hand's cards (State.counts, see
        counts.py) as card c (or, with `each`, every card of list c) leaves (-) or enters (+)
        zone z (a number, or a name holding one); none for a zone known here not to be counted,
        and none where no counts are kept (`v.counting`: the machine never runs while they are)."""
        g = self.g
        if not v.counting or not g.count_size or (z.isdigit() and not g.zone_counted[int(z)]):
            return []
        face = self.source.const(g.card_face)
        change = f"for _c in {c}: _qh[{face}[_c]] {sign}= 1" if each else f"_qh[{face}[{c}]] {sign}= 1"
        return [f"_qh = st.counts[{z}]", "if _qh is not None:", f"    {change}"]

    def zone_src(self, e: ast.Expr) -> str:
        """Python source giving the zone instance an expression names."""
        if isinstance(e, ast.Name):
            ref = self.p.refs.get(id(e))
            if ref and ref[0] == "zone":
                return str(self.g.zone_base[ref[1]])
        if isinstance(e, ast.Attr) and e.name in self.g.zone_spec_names:
            return self._owned_zone_src(e, self.parts.get(id(e.obj)) or self.part(e.obj))
        raise RulesError([Diagnostic(e.span, "expected a zone")], self.p.files)

    def _owned_zone_src(self, e: ast.Attr, owner: Fn) -> str:
        """`p.square`: the owner's seat plus the zone's base, checked as zone() checks it."""
        base = self.g.zone_base[self.g.zone_spec_names.index(e.name)]
        seat = self.source.inline(owner)
        if not self.source.never_none(e.obj):
            seat = self.source.some(seat, f"the owner of '{e.name}' is none")
        return f"({base} + {seat})"

    def _seat_src(self, e: ast.Expr, msg: str) -> str:
        """Source giving a player's seat, raising msg if it is none."""
        src = self.expr_src(e)
        return src if self.source.never_none(e) else self.source.some(src, msg)

    def s_MoveAll(self, s: ast.MoveAll, b):
        self.zone_src(s.source)
        self.zone_src(s.to)
        b.emit(s.span, PLAIN, lambda v: self._move_all_src(s, v))

    def _move_all_src(self, s: ast.MoveAll, v: Variant) -> list[str]:
        """`move all A to D`: two piles or hands (known to differ) spill one onto the other;
        a grid's cards go card by card, and its places with them."""
        grid = self.g.zone_grid  # prepared with the zones, before any statement is compiled
        a, d = self.zone_src(s.source), self.zone_src(s.to)
        seen = a.isdigit() and self.g.zone_vis[int(a)] == PUBLIC  # (from a public zone: see _arrive_src)
        both = a.isdigit() and d.isdigit()
        if both and a != d and not grid[int(a)] and not grid[int(d)] and not v.log:
            return self._spill_src(a, d, v, seen)
        table = self.source.const(grid)
        tests = [] if both else ["_z != _d"]
        spill = not (both and a == d)
        for var, z in (("_z", a), ("_d", d)):
            if not z.isdigit():
                tests.append(f"not {table}[{var}]")
            elif grid[int(z)]:
                spill = False
        fast = ["_m = st.move_all(_z, _d)"] if v.log else \
            self._spill_src(a if a.isdigit() else "_z", d if d.isdigit() else "_d", v, seen)
        slow = ["_m = [_c for _c in st.zones[_z] if _c is not None]", "for _c in _m: st.move_card(_c, _d)",
                *((["st.zones[_z].clear()"] if grid[int(a)] else []) if a.isdigit()
                  else [f"if {table}[_z]: st.zones[_z].clear()"])]  # `move all` takes a grid's places away too
        if not spill:
            body = slow
        elif not tests:
            body = fast
        else:
            body = [f"if {' and '.join(tests)}:", *_indented(fast), "else:", *_indented(slow)]
        log = [self._moved_log("_m", self._zone_name("_z"), "_d")] if v.log else []
        return [f"_z = {a}", f"_d = {d}", *body, *log]

    def _spill_src(self, a: str, d: str, v: Variant, seen: bool = False) -> list[str]:
        """`st.move_all(a, d)` written out (two piles or hands, known to differ): a's cards go
        onto d in their order, and d teaches what it shows (known here if d is a number), unless
        they come from a public zone (`seen`): everyone knows them already."""
        each = [*self._arrive_src("_l", d, seen), *self._count_src(v, "_l", a, "-", True),
                *self._count_src(v, "_l", d, "+", True)]
        return [f"_l = st.zones[{a}]", "if _l:", *_indented(each), f"    st.zones[{d}].extend(_l)", "    _l.clear()"]

    def s_Draw(self, s: ast.Draw, b):
        self.zone_src(s.source)
        self.zone_src(s.to)
        self.part(s.count)
        b.emit(s.span, PLAIN, lambda v: self._draw_src(s, v))

    def _draw_src(self, s: ast.Draw, v: Variant) -> list[str]:
        """`draw N from Z to D`: the top card onto its own zone once only; from a pile known here,
        the cards popped and pushed in place (all at once when the pile holds enough)."""
        g = self.g
        z, d = self.zone_src(s.source), self.zone_src(s.to)
        n = self.expr_src(s.count)
        if v.log or not z.isdigit() or g.zone_grid[int(z)]:
            each = ["    _c = st.draw_one(_z, _d)", "    if _c is None: break", "    _m.append(_c)"] if v.log \
                else ["    if st.draw_one(_z, _d) is None: break"]
            return [f"_z = {z}", f"_d = {d}", f"_n = {n}", "if _z == _d and _n > 1: _n = 1",
                    *(["_m = []"] if v.log else []), "for _ in range(_n):", *each,
                    *([self._moved_log("_m", self._zone_name("_z"), "_d")] if v.log else [])]
        to = [] if d.isdigit() else [f"_d = {d}"]
        if not d.isdigit():
            d = "_d"
        more = self._refill_test(int(z))
        if n == "(1)":
            return [*to, *self._pop_src(z, d, v), *([f"elif {more}: st.draw_one({z}, {d})"] if more else [])]
        stop = f"elif not {more} or st.draw_one({z}, {d}) is None: break" if more else "else: break"
        each = ["for _ in range(_n):", *_indented(self._pop_src(z, d, v)), f"    {stop}"]
        if d == z:
            return [*to, f"_n = {n}", "if _n > 1: _n = 1", *each]
        clamp = [f"if _d == {z} and _n > 1: _n = 1"] if d == "_d" else []
        # All from the pile when it holds enough (one slice, no refill), else card by card.
        bulk = ["_m = _l[len(_l) - _n:]", "del _l[len(_l) - _n:]", "_m.reverse()", f"st.zones[{d}].extend(_m)",
                *self._arrive_src("_m", d), *self._count_src(v, "_m", z, "-", True),
                *self._count_src(v, "_m", d, "+", True)]
        other = "" if d.isdigit() else f" and _d != {z}"
        return [*to, f"_n = {n}", *clamp, f"_l = st.zones[{z}]", f"if _n > 0 and len(_l) >= _n{other}:",
                *_indented(bulk), "else:", *_indented(each)]

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
                    *_indented(learn)]
        return ["_o = st.loc", f"for _c in {cards}: _o[_c] = {d}", f"_t = {self.source.const(self.g.zone_learn)}[{d}]",
                "if _t:", "    _k = st.known", "    if _t < 0:", "        _t = ~_t",
                f"        for _c in {cards}: _k[_c] = _t", "    else:", f"        for _c in {cards}: _k[_c] |= _t"]

    def _pop_src(self, z: str, d: str, v: Variant) -> list[str]:
        """`draw_one(z, d)`'s common case written out: if pile z has a card, its top card onto
        zone d (a number, or a name holding one), which learns what the zone shows."""
        g = self.g
        if d.isdigit():
            m = g.zone_learn[int(d)]
            learn = [] if not m else [f"st.known[_c] = {~m}" if m < 0 else f"st.known[_c] |= {m}"]
        else:
            learn = [f"_t = {self.source.const(g.zone_learn)}[{d}]",
                     "if _t: st.known[_c] = ~_t if _t < 0 else st.known[_c] | _t"]
        counted = [*self._count_src(v, "_c", z, "-"), *self._count_src(v, "_c", d, "+")]
        return [f"_l = st.zones[{z}]", "if _l:", "    _c = _l.pop()", f"    st.zones[{d}].append(_c)",
                f"    st.loc[_c] = {d}", *_indented(learn + counted)]

    def s_Deal(self, s: ast.Deal, b):
        self.zone_src(s.source)
        self.part(s.count)
        b.emit(s.span, PLAIN, lambda v: self._deal_src(s, v))

    def _deal_src(self, s: ast.Deal, v: Variant) -> list[str]:
        """`deal N from Z to each H`: N rounds of a card to each seat's H, stopped when the pile has
        nothing more to give (cards that go round through a refill count against the step budget
        there); at most as many rounds as there are cards (more would only move a card from a
        hand to itself again)."""
        spec = next(z for z in self.p.zones if z.name == s.zone)
        base, n, ncards = self.g.zone_base[spec.index], self.n, self.g.ncards
        z, k = self.zone_src(s.source), self.expr_src(s.count)
        fixed = _literal(k)
        count = [] if not v.log else [f"_k = {k}"]
        if v.log:
            k = "_k"
        rounds = f"for _ in range({min(fixed, ncards)}):" if fixed is not None else \
            f"for _ in range(min({k}, {ncards})):"
        if v.log or not z.isdigit() or self.g.zone_grid[int(z)]:
            lines = [f"_z = {z}", *count, rounds, f"    for _s in range({base}, {base + n}):",
                     "        if st.draw_one(_z, _s) is None: break", "    else: continue", "    break"]
            if v.log:
                lines.append(f"st.event(1, str(_k) + (' card' if _k == 1 else ' cards') + ' from ' + "
                             f"{self._zone_name('_z')} + {_text(' dealt to each ' + s.zone)})")
            return lines
        more = self._refill_test(int(z))
        stop = f"elif not {more} or st.draw_one({z}, _d) is None: break" if more else "else: break"
        return [rounds, f"    for _d in range({base}, {base + n}):", *_indented(self._pop_src(z, "_d", v), "        "),
                f"        {stop}", "    else: continue", "    break"]

    def s_Shuffle(self, s: ast.Shuffle, b):
        self.zone_src(s.zone)

        def write(v: Variant) -> list[str]:
            z = self.zone_src(s.zone)
            if not v.log:
                return [f"st.shuffle_zone({z})"]
            return [f"_z = {z}", "st.shuffle_zone(_z)", f"st.event(1, {self._zone_name('_z')} + ' is shuffled')"]

        b.emit(s.span, PLAIN, write)

    def s_Reveal(self, s: ast.Reveal, b):
        self.part(s.what)
        b.emit(s.span, PLAIN, lambda v: self._reveal_src(s, v))

    def _reveal_src(self, s: ast.Reveal, v: Variant) -> list[str]:
        """`reveal X`: everyone knows X's cards; the event says from where."""
        g = self.g
        if v.log:
            where = f"', '.join(dict.fromkeys([{self.source.const(g.zone_names)}[st.loc[_c]] for _c in _m]))"
            return [*self._cards_src(s.what, "_m"), f"for _c in _m: st.known[_c] = {g.all_mask}",
                    f"if _m: st.event(0, 'revealed in ' + {where} + ': {{}}', tuple(_m))"]
        spec = self.source.zone_spec(s.what)  # (None for a card or a list)
        if spec is not None and g.zone_vis[g.zone_base[spec]] == PUBLIC:
            return []  # a public zone's cards are known to all already
        return self._each_card_src(s.what, f"= {g.all_mask}")

    def _each_card_src(self, e: ast.Expr, update: str) -> list[str]:
        """`st.known[c] <update>` for each card of a card, a zone or a list of cards (none skipped)."""
        what = self.expr_src(e)
        if self.type(e) == CARD:
            return [f"_c = {what}", f"if _c is not None: st.known[_c] {update}"]
        spec = self.source.zone_spec(e)
        if spec is not None and not self.g.zone_grid[self.g.zone_base[spec]]:  # a pile or a hand: no none
            return ["_k = st.known", f"for _c in {what}: _k[_c] {update}"]
        inner = what[1:-1] if what.startswith("(") and what.endswith(")") else what
        places = _grid_places(inner)  # a grid's cards: go over its places (none is skipped anyway)
        return [f"for _c in {places if places != inner else what}:", f"    if _c is not None: st.known[_c] {update}"]

    def s_ShowTo(self, s: ast.ShowTo, b):
        self.part(s.what)
        self.part(s.who)

        def write(v: Variant) -> list[str]:
            who = [f"_w = {self.expr_src(s.who)}", "if _w is not None:", "    _b = 1 << _w"]
            if not v.log:
                return [*who, *_indented(self._each_card_src(s.what, "|= _b"))]
            places = "', '.join([st.game.place_text(st, _c) for _c in _m])"
            return [*who, *_indented(self._cards_src(s.what, "_m")), "    for _c in _m: st.known[_c] |= _b",
                    f"    if _m: st.event(0, {self.source.const(self.g.names)}[_w] + ' looks at ' + {places} + "
                    "': {}', tuple(_m))"]

        b.emit(s.span, PLAIN, write)

    def s_Swap(self, s: ast.Swap, b):
        first, second = self.expr(s.first), self.expr(s.second)

        def write(v: Variant) -> list[str]:
            both = [f"_a = {self.source.inline(first)}", f"_b = {self.source.inline(second)}"]
            if v.log:
                return [*both, "if _a is not None and _b is not None:",
                        "    st.event(0, st.game.place_text(st, _a) + ' and ' + st.game.place_text(st, _b) + "
                        "' are swapped')", "    st.swap_cards(_a, _b)"]
            learn = self.source.const(self.g.zone_learn)
            # `st.swap_cards(_a, _b)` written out: each card takes the other's place and learns
            # what its new zone shows.
            counted = [*self._count_src(v, "_a", "_za", "-"), *self._count_src(v, "_a", "_zb", "+"),
                       *self._count_src(v, "_b", "_zb", "-"), *self._count_src(v, "_b", "_za", "+")]
            return [*both, "if _a is not None and _b is not None and _a != _b:", *_indented([
                "_o = st.loc", "_za = _o[_a]", "_zb = _o[_b]", "_la = st.zones[_za]", "_lb = st.zones[_zb]",
                "_ia = _la.index(_a)", "_ib = _lb.index(_b)", "_la[_ia] = _b", "_lb[_ib] = _a", "_o[_a] = _zb",
                "_o[_b] = _za", f"_t = {learn}[_zb]", "if _t: st.known[_a] = ~_t if _t < 0 else st.known[_a] | _t",
                f"_t = {learn}[_za]", "if _t: st.known[_b] = ~_t if _t < 0 else st.known[_b] | _t", *counted])]

        b.emit(s.span, PLAIN, write)

    def s_Let(self, s: ast.Let, b):
        f = self.expr(s.value)
        slot = self.p.slots[id(s)]
        guard = self._guard(s.value, "local")
        b.emit(s.span, PLAIN, lambda v: self._set_src(f"env[{slot}]", s.value, f, guard))

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
        b.emit(s.span, PLAIN, self._assign_src(self.p.refs[id(s)], s.op, s.value, s.target))

    def _assign_op(self, ref: tuple, op_text: str, value: ast.Expr, target: tuple[str, ...]) -> Fn:
        """An assignment as a function (st, env), for a scenario's `set`."""
        return self.statement_function(self._assign_src(ref, op_text, value, target))

    def _assign_src(self, ref: tuple, op_text: str, value: ast.Expr, target: tuple[str, ...]) -> Writer:
        """The writer of `target op value`: a local, the direction, a counter or a variable (a
        player's own, `p.score`, after its owner); a counter that changes is an event."""
        f = self.expr(value)
        kind = ref[0]
        sign = {"=": 0, "+=": 1, "-=": -1}[op_text]
        g = self.g
        guard = self._guard(value, "local" if kind == "local" else "stored", op_text, self._target_type(ref))

        def wrap(text: str) -> str:
            return f"{self.source.const(guard)}(st, {text})" if guard is not None else text

        if kind == "local":
            slot = ref[1]
            if not sign:
                return lambda v: self._set_src(f"env[{slot}]", value, f, guard)
            if guard is None:
                return lambda v: [f"env[{slot}] += {sign} * {self.source.inline(f)}"]
            return lambda v: [f"env[{slot}] = {wrap(f'env[{slot}] + {sign} * {self.source.inline(f)}')}"]
        if kind == "direction":
            return lambda v: [f"st.direction = {self.source.inline(f)}"]
        counter = kind in ("counter", "pcounter")
        info = (self.p.counters if counter else self.p.vars)[ref[1]]
        base = (g.counter_layout if counter else g.var_layout)[info.name][0]
        owner = ref[2] if kind in ("pcounter", "pvar") else None
        if owner is not None:
            self.part(owner)
        attr = "counters" if counter else "vars"

        def write(v: Variant) -> list[str]:
            lines = []
            cell = f"st.{attr}[{base}]"
            who = ""
            if owner is not None:
                msg = f"'{target[0]}' is none"
                lines.append(f"_w = {self._seat_src(owner, msg)}")
                cell = f"st.{attr}[{base} + _w]"
                who = f"{self.source.const(g.names)}[_w] + '.' + "
            src = self.source.inline(f)
            log = counter and v.log
            if log:
                lines.append(f"_o = {cell}")
            old = "_o" if log else cell
            plus = "+" if sign > 0 else "-"
            lines.append(f"{cell} = {wrap(f'{old} {plus} {src}')}" if sign else f"{cell} = {wrap(src)}")
            if log:
                lines.append(f"if {cell} != _o: st.event(0, {who}{_text(info.name + ': ')} + str(_o) + ' -> ' + "
                             f"str({cell}))")
            return lines

        return write

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
            b.emit(cond.span, TEST, lambda v, f=f, skip=skip: [f"if not {self.source.inline(f)}: return {skip[0]}"])
            self.block(body, b)
            cell = [0]
            end_jumps.append(cell)
            b.emit(None, JUMP, lambda v, cell=cell: [f"return {cell[0]}"])
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
            b.emit(span, JUMP, lambda v: [f"return {top}"])
        else:
            b.emit(span, JUMP, lambda v: ["st.budget -= 1", "if st.budget < 0: st.tick()", f"return {top}"])
        for cell in loop.breaks:
            cell[0] = b.pc
        b.loops.pop()

    def s_ForEach(self, s: ast.ForEach, b):
        var_slot, list_slot, pos_slot = self.p.slots[id(s)]
        seq = self.expr(s.seq)

        # Its passes count against the step budget as it starts, as a `repeat`'s (loops in loops
        # over long ranges would run away otherwise); over the players, they are too few to count.
        players = isinstance(s.seq, ast.PlayersExpr)

        def init(v: Variant) -> list[str]:
            items = self.source.inline(seq)
            if players and hasattr(seq, "src"):
                return [f"env[{list_slot}] = {items}", f"env[{pos_slot}] = 0"]  # a new list of seats
            # (The list first: a `:=` in it may not stand in a comprehension's iterable.)
            count = [] if players else ["st.budget -= len(_l)", "if st.budget < 0: st.tick()"]
            return [f"_l = {items}", f"env[{list_slot}] = _l = [_x for _x in _l if _x is not None]",
                    f"env[{pos_slot}] = 0", *count]

        b.emit(s.seq.span, PLAIN, init)
        loop = _Loop()
        b.loops.append(loop)
        end = [0]
        loop.breaks.append(end)
        top = b.emit(s.span, TEST, lambda v: [
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
        top = b.emit(s.cond.span, TEST, lambda v: [f"if not {self.source.inline(cond)}: return {end[0]}"])
        self.block(s.body, b)
        self._loop_end(b, top, loop, s.span)

    def s_Repeat(self, s: ast.Repeat, b):
        count = self.expr(s.count)
        slot = self.p.slots[id(s)]

        # Its passes count against the step budget all at once, as it starts: a count that runs
        # away stops here, at no cost a pass.
        def init(v: Variant) -> list[str]:
            n = self.source.inline(count)
            fixed = _literal(n)
            if fixed is not None:  # (a count written in the rules: its passes known here)
                return [f"env[{slot}] = {fixed}", *([f"st.budget -= {fixed}", "if st.budget < 0: st.tick()"]
                                                    if fixed > 0 else [])]
            return [f"_n = env[{slot}] = {n}", "if _n > 0:", "    st.budget -= _n", "    if st.budget < 0: st.tick()"]

        b.emit(s.count.span, PLAIN, init)
        loop = _Loop()
        b.loops.append(loop)
        end = [0]
        loop.breaks.append(end)
        top = b.emit(s.span, TEST, lambda v: [f"if env[{slot}] <= 0: return {end[0]}", f"env[{slot}] -= 1"])
        self.block(s.body, b)
        self._loop_end(b, top, loop, s.span, bounded=True)

    def s_Break(self, s: ast.Break, b):
        cell = [0]
        b.loops[-1].breaks.append(cell)
        b.emit(s.span, JUMP, lambda v: [f"return {cell[0]}"])

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
        self.hand_free[dec.index] = self._hand_free(s.domain)
        distinct = self.distinct_fn(dec)

        def options() -> list[str]:
            """The chooser (`_p`) and the options (`_v`), for the machine's block and the straight
            function, which ask the question each in its way."""
            inline, const = self.source.inline, self.source.const
            try:  # loops that filter, merge and append as they go
                listed = ["_v = []", *self.domains.options(s.domain, distinct, "_p", "_v", "{v}")]
            except NoSource:
                listed = [
                    f"_v = {inline(domain)}",
                    *(["_v = list(dict.fromkeys(_v))", "if None in _v: _v.remove(None)"]
                      if distinct is distinct_plain else [f"_v = {const(distinct)}(st, _v, _p) if _v else []"]),
                ]
            who = "st.current" if by is None else inline(by)
            if who.startswith("(") and who.endswith(")"):  # past the test below, the chooser is no none
                listed = [unguard(line, who[1:-1]) for line in listed]
            return [
                f"_p = {who}",
                "if _p is None: raise RulesRuntimeError('the player who must choose is none')",
                *listed,
                *(["_v.append(None)"] if s.optional else []),
            ]

        self.choose_options[id(s)] = options
        b.emit(s.span, CONTROL, lambda v: [
            *options(),
            f"if not _v: env[{slot}] = None; return @NEXT@",
            f"st.pending = {dec.index}; st.chooser = _p; st.options = tuple(_v); st._texts = None",
            f"return {SUSPEND}",
        ])

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
        # A call that may come back to itself checks how deep the recursion goes (the others cannot
        # nest deeper than the rules are long).
        deep = s.func in self.recursive_procs

        def write(v: Variant) -> list[str]:
            new = env_list([self.source.inline(a) for a in args], nlocals)
            return [*([f"{self.source.const(self.depth_check)}(st)"] if deep else []),
                    f"st.stack.append([{code_id}, 0, {new}])", f"return {RELOAD}"]

        b.emit(s.span, CONTROL, write)

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

        def write(v: Variant) -> list[str]:
            # Only the game's frame is left, at where the end goes on; `end turn` outside a turn
            # ends the running hook alone. Before the first round, `end game` goes to the game's end.
            where = str(cell[0]) if not over[0] else f"{cell[0]} if st.round > 0 else {over[0]}"
            return ["del st.stack[1:]", "_m = st.stack[0]",
                    *([f"if not {turn_cell[0]} <= _m[1] <= {turn_cell[1]}: return {STACKED}"] if only_in_turn else []),
                    f"_m[1] = {where}", f"return {STACKED}"]

        b.emit(s.span, CONTROL, write)

    def s_ReverseDirection(self, s, b):
        b.emit(s.span, PLAIN, lambda v: ["st.direction = -st.direction", *([
            "st.event(0, 'the direction of play is now ' + ('clockwise' if st.direction > 0 else 'counterclockwise'))"]
            if v.log else [])])

    def s_NextPlayer(self, s: ast.NextPlayer, b):
        self.part(s.player)
        b.emit(s.span, PLAIN, lambda v: [
            f"st.next_player = {self._seat_src(s.player, 'the next player is none')}", "st.continue_from = -1",
            *([f"st.event(0, {self.source.const(self.g.names)}[st.next_player] + ' plays next')"] if v.log else [])])

    def s_ContinueFrom(self, s: ast.ContinueFrom, b):
        self.part(s.player)
        b.emit(s.span, PLAIN, lambda v: [
            f"st.continue_from = {self._seat_src(s.player, '`continue from` a player who is none')}",
            "st.next_player = -1"])

    def s_Say(self, s: ast.Say, b):
        # Cards in a message show only to the players who know them, like cards in any event.
        for part in s.text.parts:
            if not isinstance(part, str):
                self.part(part)

        def write(v: Variant) -> list[str]:
            if not v.log:
                return []
            lines = ["_t = []", "_h = []"]
            for part in s.text.parts:
                if isinstance(part, str):
                    lines.append(f"_t.append({_text(part)})")
                elif self.type(part) in (CARD, ZONE, "list[card]"):
                    lines += [*self._cards_src(part, "_m"), "_t.append(', '.join(['{}'] * len(_m)))", "_h.extend(_m)"]
                else:
                    lines += [f"_x = {self.expr_src(part)}",
                              f"_t.append({self.text_src('_x', self.type(part))})"]
            return [*lines, "st.event(0, ''.join(_t), tuple(_h))"]

        b.emit(s.span, PLAIN, write)

    def text_fn(self, e: ast.Expr) -> Fn:
        """A function (st, env) giving the words that show e's value (for a failed `expect`)."""
        scope: dict[str, object] = {}
        text = (f"def text(st, env):\n    _x = {self.expr_src(e)}\n"
                f"    return {self.text_src('_x', self.type(e))}\n")
        exec(compile(text, f"<rules {self.g.name} text>", "exec"), self.source.names, scope)
        return scope["text"]

    def text_src(self, x: str, t: str) -> str:
        """Source of the words that show value x (a name) of type t, as messages show it: a
        player's name, a card's face, yes or no, a list's items joined (none left out)."""
        if is_list(t):
            return f"', '.join([{self._one_text('_y', elem(t))} for _y in {x} if _y is not None])"
        return self._one_text(x, t)

    def _one_text(self, x: str, t: str) -> str:
        g = self.g
        if t == PLAYER:
            shown = f"{self.source.const(g.names)}[{x}]"
        elif t == CARD:
            shown = f"{self.source.const(g.card_text)}[{x}]"
        elif t == BOOL:
            shown = f"('yes' if {x} else 'no')"
        elif t == DIRECTION:
            shown = f"('clockwise' if {x} > 0 else 'counterclockwise')"
        else:
            shown = f"str({x})"
        return f"('none' if {x} is None else {shown})"
