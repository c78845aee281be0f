"""Statements to ops: each statement's op(s) for the machine, each op written once, as Python
source, by a writer that writes the form a run asks for (a Variant: with the log's events or
not, with the straight run's counts or not)."""

from __future__ import annotations

from collections.abc import Callable

from .. import ast
from ..checker import BOOL, CARD, DIRECTION, INT, PLAYER, ZONE, elem, is_list
from ..engine.constants import CONTROL, HAND, JUMP, PLAIN, STACKED, TEST
from ..engine.game import Code, Decision, distinct_plain
from .blocks import Ask, Branch, Goto, Push, leaf_lines, leaf_run, write_leaf_done, write_pop
from .moves import CardMoves, Writer, _text
from .runtime import Fn, _list_guard, _located_part, _number_guard
from .source import ST, UNKNOWN, NoSource, Variant, env_list, naming, spent
from .tree import _children, _literal, ends_hook


class Bounds:
    """The checks of a value as it is stored, placed only where they can fire: a number that may grow
    without bound, a list joined with `+`, none stored where a number is expected (limits.py)."""

    def _guard(self, e: ast.Expr, kind: str, op_text: str = "=", target_type: str | None = None) -> Callable | None:
        """The check of a value as it is stored (see the class), or None where none can fire (most
        assignments: `x += 1`, `loser = me`)."""
        t = target_type or self.type(e)
        if t in (INT, BOOL):
            grows = t == INT and (not self._constant(e) if op_text != "=" else self._grows(e, set()))
            grows = grows or self._too_long(e)
            # (a counter or variable holds a number or yes/no, never none)
            none = kind != "local" and op_text == "=" and not isinstance(e, ast.NoneLit) and self._may_be_none(e, set())
            return _number_guard(self.g.limits["digits"], none) if grows or none else None
        if is_list(t) and t != ZONE and self._joins(e, set()):
            return _list_guard(self.g.limits["list"])
        return None

    def _too_long(self, e: ast.Expr) -> bool:
        """A number known now (a literal, a parameter) that has more digits than the limit already."""
        value = self.source.known_int(e)
        return value is not None and abs(value) >= 10 ** self.g.limits["digits"]

    def _constant(self, e: ast.Expr) -> bool:
        """A value known now (a literal, a parameter, minus one): one that never grows."""
        return self.source.fixed_value(e) is not UNKNOWN

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
                return x.op == "*" or (x.op in ("+", "-") and not self._constant(x.left)
                                       and not self._constant(x.right) and self.type(x) == INT)
            return isinstance(x, ast.Call) and x.func == "sum" and self._reads_numbers(x, set())

        return self._somewhere(e, here, seen)

    def _may_be_none(self, e: ast.Expr, seen: set) -> bool:
        """Whether a number or yes/no expression may be none (an attribute of a card that may be
        none, a variable or local that may hold none); arithmetic, comparisons, counts are not."""
        if isinstance(e, ast.Binary):
            return e.op in ("and", "or") and (self._may_be_none(e.left, seen) or self._may_be_none(e.right, seen))
        if isinstance(e, ast.IfExpr):
            return self._may_be_none(e.then, seen) or self._may_be_none(e.orelse, seen)
        kind = (self.p.refs.get(id(e)) or ("",))[0] if isinstance(e, ast.Name) else None
        call = e.func if isinstance(e, ast.Call) else None
        if kind in ("counter", "const") or call in ("sum", "count", "any", "all", "empty") \
                or isinstance(e, (ast.IntLit, ast.BoolLit, ast.Unary, ast.IsKind)):
            return False
        if kind == "define" or call in self.p.defines:
            return any(self._may_be_none(x, seen) for x in self._sub_defines(e, seen))
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


class _Builder:
    def __init__(self, code: Code):
        self.code = code
        self.loops: list[list[list[int]]] = []  # per loop, the cells of the jumps to its end

    def emit(self, span: ast.Span | None, kind: int, write: Writer) -> int:
        """Add an op: `kind` says how it may leave; `write(variant)`, called once all jump targets
        are known, writes its source. (`Code.ops` keeps a place per op: an op is its source.)"""
        self.code.ops.append(None)
        self.code.spans.append(span)
        self.code.kinds.append(kind)
        self.code.srcs.append(write)
        return len(self.code.kinds) - 1

    @property
    def pc(self) -> int:
        return len(self.code.kinds)


class Statements(CardMoves, Bounds):
    """The statements of the Compiler (a part of it): the cards' moves in moves.py, the checks
    of what is stored in Bounds."""

    def _compile_body(self, code_id: int, body: tuple[ast.Stmt, ...], unit: str, leaf: bool = False) -> None:
        b = _Builder(self.g.codes[code_id])
        self.unit = unit
        self.g.codes[code_id].leaf = self.leaf = leaf
        self.block(body, b)
        self._return(b, None)

    def _return(self, b: _Builder, span) -> None:
        """The end of a code, or `return`: a leaf's runner stops; otherwise its frame goes."""
        b.emit(span, CONTROL, write_leaf_done if self.leaf else write_pop)

    def _call(self, b: _Builder, code_id: int, args: list, span, leaf: bool, ends: bool, deep: bool = False) -> None:
        """A call of a code (a procedure's or a hook's) with `args` compiled: a leaf runs to its end
        within this op, and if it may reach an `end`, the caller's frame first records where it goes
        on, as an `end` outside a turn resumes there; any other pushes its frame (after the depth
        check, if `deep`)."""
        after, nlocals = b.pc + 1, self.g.codes[code_id].nlocals

        def write(v: Variant) -> list[str]:
            srcs = [self.source.inline(a) for a in args]
            if not leaf:
                return [*([f"{self.source.const(self.depth_check)}(st)"] if deep else []),
                        Push(f"[{code_id}, 0, {env_list(srcs, nlocals)}]")]
            run = (leaf_lines(self.g, code_id, srcs) if self.g.tails else None) \
                or leaf_run(self.g, self.g.codes[code_id], srcs)
            return [*([f"st.stack[-1][1] = {after}"] if ends else []), *run]

        b.emit(span, TEST if leaf else CONTROL, write)

    def stmt(self, s: ast.Stmt, b: _Builder) -> None:
        start = b.pc
        getattr(self, "s_" + type(s).__name__)(s, b)
        self.stmt_ops[id(s)] = (b.code, start, b.pc)

    def part(self, e: ast.Expr) -> Fn:
        """A test or an argument of a statement, compiled, and kept for the straight writer."""
        f = self.parts[id(e)] = self.expr(e)
        return f

    def expr_src(self, e: ast.Expr) -> str:
        """Python source of expression e, compiled once (a writer may be asked for its lines many
        times: in each block and tail that holds them, with a log and without)."""
        return self.source.inline(self.parts.get(id(e)) or self.part(e))

    def block(self, body, b: _Builder) -> None:
        for s in body:
            self.stmt(s, b)

    def s_Let(self, s: ast.Let, b):
        b.emit(s.span, PLAIN, self._assign_src(("local", self.p.slots[id(s)]), "=", s.value, ()))

    def s_Assign(self, s: ast.Assign, b):
        chosen = self.p.secret_assigns.get(id(s))
        secret_from = None if chosen is None else self.p.secret_chooses[chosen]
        b.emit(s.span, PLAIN, self._assign_src(self.p.refs[id(s)], s.op, s.value, s.target, secret_from))

    def _secret_known(self, info, cell: str, secret_from: tuple[int, int] | None) -> list[str]:
        """Who knows a `secret` variable's cell after an assignment: a secret choose's answer, its
        chooser alone (with its options, for determinization); anything else, everyone."""
        if not getattr(info, "secret", False):
            return []
        if secret_from is None:
            return [f"st.secrets.pop({cell}, None)"]
        who, among = (self.source.local(k) for k in secret_from)
        return [f"if {among}: st.secrets[{cell}] = (1 << {who}, {among})", f"else: st.secrets.pop({cell}, None)"]

    def _secret_cell(self, ref: tuple) -> tuple[list[str], str, str]:
        """For a `secret` variable's reference: lines setting `_w` (its owner's seat, for one of
        each player), the source of its cell's index, and of its name in words."""
        info = self.p.vars[ref[1]]
        base = self.g.var_layout[info.name][0]
        if ref[0] == "var":
            return [], str(base), _text(info.name)
        seat = self._seat_src(ref[2], f"the owner of '{info.name}' is none")
        return [f"_w = {seat}"], f"{base} + _w", f"{self.source.const(self.g.names)}[_w] + {_text('.' + info.name)}"

    def s_Reveal(self, s: ast.Reveal | ast.ShowTo, b):
        """`reveal` (to all) or `show ... to` (`who`) of the secret variable the statement names
        (its owner compiled), a card's face learnt too; of cards (moves.py) if it names none."""
        ref = self.p.secret_reveals.get(id(s))
        if ref is None:
            return super().s_Reveal(s, b)
        who = s.who if isinstance(s, ast.ShowTo) else None
        for e in (ref[2] if ref[0] == "pvar" else None, who):
            if e is not None:
                self.part(e)
        kind, all_mask = self.p.vars[ref[1]].type, self.g.all_mask
        card, what = kind == CARD, _text(": there is nothing to " + ("show" if who else "reveal"))

        def write(v: Variant) -> list[str]:
            # Its cell read (`_x`, its value; `_i`, its index), refusing a none (nobody chose it).
            cell, index, name = self._secret_cell(ref)
            words = self.text_src("_x", kind)
            lines = [*cell, f"_i = {index}", f"_x = {ST.vars}[_i]",
                     f"if _x is None: raise RulesRuntimeError({_text('nobody chose ')} + {name} + {what})"]
            if who is None:
                learn = [f"{ST.known}[_x] = {all_mask}"] if card else []
                return [*lines, "st.secrets.pop(_i, None)", *learn,
                        *v.logged(f"st.event(0, 'revealed: ' + {name} + ' ' + {words})")]
            event = (f"st.event(0, {self.source.const(self.g.names)}[_q] + ' looks at ' + {name} + ': \\0', (), "
                     f"(({words}, _m, '?'),))")
            return [*lines, f"_q = {self.expr_src(who)}", "if _q is not None:", "    _b = 1 << _q",
                    "    _se = st.secrets.get(_i)", f"    _m = {all_mask} if _se is None else _se[0] | _b",
                    f"    if _m == {all_mask}: st.secrets.pop(_i, None)", "    else: st.secrets[_i] = (_m, _se[1])",
                    *([f"    {ST.known}[_x] |= _b"] if card else []), *v.logged(["    " + event], ind="    ")]

        b.emit(s.span, PLAIN, write)

    s_ShowTo = s_Reveal

    def secret_cells(self, names: tuple[str, ...]) -> tuple[int, ...]:
        """Every cell of the named `secret` variables (State.secrets_known reads them)."""
        layout = self.g.var_layout
        return tuple(c for name in names for c in range(layout[name][0], layout[name][0] + (
            self.n if layout[name][1] else 1)))

    def s_Race(self, s: ast.Race, b):
        """A race: each seat of the list answers the leading `may choose` in secret (a hidden cell
        per seat); then those who acted, in the list's order or a random one, each has its answer
        revealed (logged as its move) and runs the statements, until a `break`; then all forgotten."""
        hidden, seat, seats, pos, order, answer = self.p.races[id(s)]
        choose = s.body[0]
        base, n, local = self.g.var_layout[hidden.name][0], self.n, self.source.local
        who, among = self.p.secret_chooses[id(choose)]
        seq = self.expr(s.seq)
        ops = self.race_ops[id(s)] = {}

        def forget() -> list[str]:
            return [f"for _x in range({base}, {base + n}):", f"    {ST.vars}[_x] = None",
                    "    st.secrets.pop(_x, None)"]

        # (Forgotten as it starts too: a `return` or an `end` in its statements skips its end.)
        ops["init"] = b.emit(s.seq.span, PLAIN, lambda v: [
            f"_l = {self.source.inline(seq)}", f"{local(seats)} = _l = [_x for _x in _l if _x is not None]",
            "if not _l: raise RulesRuntimeError('a race needs players to race, and its list is empty')",
            f"{local(pos)} = 0", *forget()])

        def answers() -> None:
            self.stmt(choose, b)
            ops["store"] = b.emit(choose.span, PLAIN, lambda v: [
                f"_i = {base} + {local(seat)}", f"{ST.vars}[_i] = {local(answer)}", *self._secret_known(
                    hidden, "_i", (who, among)), f"{local(answer)} = {local(who)} = {local(among)} = None"])

        self._loop(b, s.span, self._each(seat, seats, pos), answers, None, bounded=True)

        def ordered(v: Variant) -> list[str]:
            shuffle = ["for _j in range(len(_o) - 1, 0, -1):", "    _k = st.randbelow(_j + 1)",
                       "    _o[_j], _o[_k] = _o[_k], _o[_j]"] if s.random else []
            return [f"_o = [_x for _x in {local(seats)} if {ST.vars}[{base} + _x] is not None]", *shuffle,
                    f"{local(order)} = _o", f"{local(pos)} = 0"]

        ops["order"] = b.emit(s.span, PLAIN, ordered)
        dec = self.choose_decisions[id(choose)].index

        def turns() -> None:
            ops["reveal"] = b.emit(choose.span, PLAIN, lambda v: [
                f"_i = {base} + {local(seat)}", f"{local(answer)} = {ST.vars}[_i]", "st.secrets.pop(_i, None)",
                *v.logged(f"st.game.log_answer(st, {dec}, {local(seat)}, {local(answer)}, env)")])
            self.block(s.body[1:], b)

        self._loop(b, s.span, self._each(seat, order, pos), turns, s.span, bounded=True)
        ops["forget"] = b.emit(s.span, PLAIN, lambda v: forget())

    def s_Secretly(self, s: ast.Secretly, b):
        """Its statements, then the locals it bound set to none, so no frame asking a later seat holds
        an earlier seat's answer (nor a world sampled from it)."""
        self.block(s.body, b)
        slots = self.p.secret_clears.get(id(s), ())
        b.emit(s.span, PLAIN, lambda v: [f"{self.source.local(k)} = None" for k in slots] or ["pass"])

    def _assign_src(self, ref: tuple, op_text: str, value: ast.Expr, target: tuple[str, ...],
                    secret_from: tuple[int, int] | None = None) -> Writer:
        """The writer of `target op value`: a local, the direction, a counter or a variable (a
        player's own, `p.score`, after its owner); a counter that changes is an event."""
        f = self.expr(value)
        kind, sign = ref[0], {"=": 0, "+=": 1, "-=": -1}[op_text]
        counter = kind in ("counter", "pcounter")
        declared = INT if counter else self.p.vars[ref[1]].type if kind in ("var", "pvar") else None
        guard = self._guard(value, "local" if kind == "local" else "stored", op_text, declared)
        inline, local = self.source.inline, self.source.local

        def wrap(text: str) -> str:
            return f"{self.source.const(guard)}(st, {text})" if guard is not None else text

        if kind == "local":
            slot = ref[1]
            if not sign:  # a search (`first(S where C)`) as a plain loop, anything else in place

                def let(v: Variant) -> list[str]:
                    found = self.source.found_lines(value, "_c")
                    return [*(found or ()), f"{local(slot)} = {wrap('_c' if found else inline(f))}"]

                return let
            return lambda v: [f"{local(slot)} = {wrap(f'{local(slot)} + {sign} * {inline(f)}')}"]
        if kind == "direction":
            return lambda v: [f"st.direction = {inline(f)}"]
        info = (self.p.counters if counter else self.p.vars)[ref[1]]
        base = (self.g.counter_layout if counter else self.g.var_layout)[info.name][0]
        owner = ref[2] if kind in ("pcounter", "pvar") else None
        if owner is not None:
            self.part(owner)
        none, plus = f"'{target[0]}' is none", "+" if sign > 0 else "-"

        def write(v: Variant) -> list[str]:
            lines, index, who = [], str(base), ""
            if owner is not None:
                lines, index = [f"_w = {self._seat_src(owner, none)}"], f"{base} + _w"
                who = f"{self.source.const(self.g.names)}[_w] + '.' + "
            cell = f"{naming().name('counters' if counter else 'vars')}[{index}]"
            src = inline(f)

            def assign(old: str) -> str:
                return f"{cell} = {wrap(f'{old} {plus} {src}' if sign else src)}"

            if not counter:
                return [*lines, assign(cell), *self._secret_known(info, index, secret_from)]
            event = f"st.event(0, {who}{_text(info.name + ': ')} + str(_o) + ' -> ' + str({cell}))"
            return [*lines, *v.logged([f"_o = {cell}", assign("_o"), f"if {cell} != _o: {event}"], [assign(cell)])]

        return write

    def s_If(self, s: ast.If, b):
        end_jumps: list[list[int]] = []
        for cond, body in s.branches:
            f = self.part(cond)
            skip = [0]
            b.emit(cond.span, TEST, lambda v, f=f, skip=skip: [Branch(f"not {self.source.inline(f)}", skip[0])])
            self.block(body, b)
            cell = [0]
            end_jumps.append(cell)
            b.emit(None, JUMP, lambda v, cell=cell: [Goto(cell[0])])
            skip[0] = b.pc
        if s.orelse is not None:
            self.block(s.orelse, b)
        for cell in end_jumps:
            cell[0] = b.pc

    def _loop(self, b: _Builder, test_span, test: Callable[[int], list], body, span, bounded: bool = False) -> None:
        """A loop: its test (`test(end)`, given where the loop ends), its body (statements, or a
        function emitting its ops), the jump back. A `while` may loop for ever without a decision,
        so its every round counts against the step budget; a list or a count ends by itself."""
        end = [0]
        b.loops.append([end])
        top = b.emit(test_span, TEST, lambda v: test(end[0]))
        body() if callable(body) else self.block(body, b)
        count = [] if bounded else spent()
        b.emit(span, JUMP, lambda v: [*count, Goto(top)])
        for cell in b.loops.pop():
            cell[0] = b.pc

    def _each(self, var: int, items: int, pos: int) -> Callable[[int], list]:
        """The test of a loop over a list of locals' slot `items`: its next item into `var`."""
        local = self.source.local
        return lambda end: [f"_r = {local(pos)}", Branch(f"_r >= len({local(items)})", end),
                            f"{local(var)} = {local(items)}[_r]", f"{local(pos)} = _r + 1"]

    def s_ForEach(self, s: ast.ForEach, b):
        var_slot, list_slot, pos_slot = self.p.slots[id(s)]
        seq = self.expr(s.seq)

        # Its passes count against the step budget as it starts, as a `repeat`'s (loops in loops
        # over long ranges would run away otherwise); over the players, they are too few to count.
        players = isinstance(s.seq, ast.PlayersExpr)

        def init(v: Variant) -> list[str]:
            items = self.source.inline(seq)
            if players and hasattr(seq, "src"):
                # (a new list of seats)
                return [f"{self.source.local(list_slot)} = {items}", f"{self.source.local(pos_slot)} = 0"]
            # (The list first: a `:=` in it may not stand in a comprehension's iterable.)
            count = [] if players else spent("len(_l)")
            return [f"_l = {items}", f"{self.source.local(list_slot)} = _l = [_x for _x in _l if _x is not None]",
                    f"{self.source.local(pos_slot)} = 0", *count]

        b.emit(s.seq.span, PLAIN, init)
        self._loop(b, s.span, self._each(var_slot, list_slot, pos_slot), s.body, s.span, bounded=True)

    def s_While(self, s: ast.While, b):
        cond = self.part(s.cond)
        self._loop(b, s.cond.span, lambda end: [Branch(f"not {self.source.inline(cond)}", end)], s.body, s.span)

    def s_Repeat(self, s: ast.Repeat, b):
        count = self.expr(s.count)
        slot = self.p.slots[id(s)]

        # Its passes count against the step budget all at once, as it starts: a count that runs
        # away stops here, at no cost a pass.
        def init(v: Variant) -> list[str]:
            n = self.source.inline(count)
            fixed = _literal(n)
            if fixed is not None:  # (a count written in the rules: its passes known here)
                return [f"{self.source.local(slot)} = {fixed}", *(spent(str(fixed)) if fixed > 0 else [])]
            return [f"_n = {self.source.local(slot)} = {n}", "if _n > 0:", *spent("_n", "    ")]

        b.emit(s.count.span, PLAIN, init)
        self._loop(b, s.span, lambda end: [Branch(f"{self.source.local(slot)} <= 0", end),
                                           f"{self.source.local(slot)} -= 1"], s.body, s.span, bounded=True)

    def s_Break(self, s: ast.Break, b):
        cell = [0]
        b.loops[-1].append(cell)
        b.emit(s.span, JUMP, lambda v: [Goto(cell[0])])

    def s_Return(self, s: ast.Return, b):
        self._return(b, s.span)

    def s_Choose(self, s: ast.Choose, b):
        t = self.type(s.domain)
        dec = self.decision(s, elem(t) if is_list(t) and elem(t) != "any" else INT)
        secret = self.p.secret_chooses.get(id(s))
        dec.secret = secret is not None
        self.hand_free[dec.index] = self._hand_free(s.domain)
        distinct = self.distinct_fn(dec)

        def listed() -> list[str]:
            return ["_v = []", *self.options_lines(s.domain, dec.domain, distinct, "_p", "_v", "{v}")]

        # (A secret choose keeps who chose and among what: an assignment of its answer to a secret
        # variable records them, State.secrets.) A secret question with no option is not asked; the
        # others read its line all the same, so the lines they read do not tell whether an answer
        # left it without options.
        kept = (lambda: [f"{self.source.local(secret[0])} = _p", f"{self.source.local(secret[1])} = _v"]) \
            if secret else list
        unasked = [f"if not _v: st.record_move(_p, '(nothing to choose)', None, {dec.hidden_text()!r})"] \
            if secret else []
        self.asked(s, b, dec, listed, "None", kept, unasked)

    def decision(self, s: ast.Choose | ast.ChooseSet, elem_type: str, before: Callable | None = None) -> Decision:
        """The game's decision for a `choose` (or `choose set`): its domain, chooser and labels
        compiled, then `before(dec)` (what else it compiles first)."""
        slot = self.p.slots[id(s)]
        domain = self.expr(s.domain)
        by = self.expr(s.by) if s.by is not None else None
        dec = Decision(len(self.g.decisions), s.label if s.label is not None else s.name, slot, domain, by,
                       s.optional, elem_type, s.span, s.name, s.pass_label or "pass",
                       self.label_fn(s.label_text), self.label_fn(s.pass_text))
        if before is not None:
            before(dec)
        self.g.decisions.append(dec)
        self.choose_decisions[id(s)] = dec
        return dec

    def asked(self, s: ast.Choose | ast.ChooseSet, b: _Builder, dec: Decision, listed: Callable[[], list[str]],
              none: str, kept: Callable[[], list[str]] = list, unasked: list[str] = ()) -> None:
        """The op asking decision `dec`: the chooser (`_p`) and the options (`_v`, `listed()`'s lines),
        for the machine's block and the straight function (choose_options), which ask each in its way;
        no option, and the answer is `none`."""

        def options() -> list[str]:
            who = ST.current if dec.by is None else self.source.inline(dec.by)
            with self.source.knowing(getattr(who, "inner", None)):  # past the test below, the chooser is no none
                lines = listed()
            return [f"_p = {who}", "if _p is None: raise RulesRuntimeError('the player who must choose is none')",
                    *lines, *([f"_v.append({none})"] if s.optional else []), *kept()]

        self.choose_options[id(s)] = options
        after = b.pc + 1
        b.emit(s.span, CONTROL, lambda v: [
            *options(), *(v.logged(unasked) if unasked else []),
            Branch("not _v", after, first=f"{self.source.local(dec.slot)} = {none}"), Ask(dec.index, "_p")])

    def options_lines(self, e: ast.Expr, domain: Fn, distinct: Callable, chooser: str, target: str,
                      item: str) -> list[str]:
        """Lines appending to list `target` the options of a decision (domain e, compiled `domain`),
        each as `item` (a format of {v}) makes it: loops that filter, merge and append as they go
        (domains.py) where they can, else the domain's list without repeats."""
        try:
            return self.domains.plan(e, distinct, chooser, item).lines(target)
        except NoSource:
            first = f"_d = {self.source.inline(domain)}"
            each = "dict.fromkeys(_d) if _o is not None" if distinct is distinct_plain \
                else f"{self.source.const(distinct)}(st, _d, {chooser})"
            return [first, f"if _d: {target}.extend([{item.format(v='_o')} for _o in {each}])"]

    def _hand_free(self, e: ast.Expr) -> bool:
        """Whether a domain's cards all come from one zone that is not a hand (so none merge)."""
        while isinstance(e, ast.Where):
            e = e.seq
        spec = self.source.zone_spec(e)
        return spec is not None and self.g.zone_shape[self.g.zone_base[spec]] != HAND

    def distinct_fn(self, dec: Decision) -> Callable:
        return self.g.distinct_fn(dec, self.hand_free.get(dec.index, False))

    def s_CallStmt(self, s: ast.CallStmt, b):
        # Only a code with a frame records where it goes on: a leaf has none, and the framed code
        # that called it has recorded its own position already. A call that may come back to itself
        # checks how deep the recursion goes (the others cannot nest deeper than the rules are long).
        self._call(b, self.proc_codes[s.func], [self.part(a) for a in s.args], s.span, s.func in self.plan.leaves,
                   s.func in self.plan.ending and not self.leaf, s.func in self.plan.recursive)

    def s_End(self, s: ast.End, b):
        if ends_hook(self.unit, s.what):
            self._return(b, s.span)
            return
        cell, over = [0], [0]
        if s.what == "game" and self.unit != "round end":
            label = "game over in a round"  # the round ends with the game: `round end` runs first
            self.end_cells.append(("over", over))
        else:
            label = {"turn": "after action", "round": "round over", "game": "over"}[s.what]
        self.end_cells.append((label, cell))
        turn = self.turn_cell

        def write(v: Variant) -> list[str]:
            # Only the game's frame is left, at where the end goes on; `end turn` outside a turn
            # ends the running hook alone. Before the first round, `end game` goes to the game's end.
            where = str(cell[0]) if not over[0] else f"{cell[0]} if st.round > 0 else {over[0]}"
            return ["del st.stack[1:]", "_m = st.stack[0]",
                    *([f"if not {turn[0]} <= _m[1] <= {turn[1]}: return {STACKED}"] if s.what == "turn" else []),
                    f"_m[1] = {where}", f"return {STACKED}"]

        b.emit(s.span, CONTROL, write)

    def s_ReverseDirection(self, s, b):
        event = f"st.event(0, 'the direction of play is now ' + {self.text_src('st.direction', DIRECTION)})"
        b.emit(s.span, PLAIN, lambda v: ["st.direction = -st.direction", *v.logged(event)])

    def s_NextPlayer(self, s: ast.NextPlayer, b):
        self.part(s.player)
        b.emit(s.span, PLAIN, lambda v: [
            f"st.next_player = {self._seat_src(s.player, 'the next player is none')}", "st.continue_from = -1",
            *v.logged(f"st.event(0, {self.source.const(self.g.names)}[st.next_player] + ' plays next')")])

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
                return []  # (a straight run: it keeps no log)
            lines = ["_t = []", "_h = []"]
            secret = False
            for part in s.text.parts:
                if isinstance(part, str):
                    lines.append(f"_t.append({_text(part)})")
                elif id(part) in self.p.secret_parts:  # its words to those who know it, `?` to the others
                    cell, index, _ = self._secret_cell(self.p.secret_parts[id(part)])
                    words = self.text_src("_x", self.type(part))
                    lines += [*cell, f"_x = {self.expr_src(part)}", f"_se = st.secrets.get({index})",
                              f"if _se is None: _t.append({words})",
                              f"else: _t.append('\\0'); _s.append(({words}, _se[0], '?'))"]
                    secret = True
                elif id(part) in self.p.secret_reads:  # worked out from secret values: the same
                    lines += self._derived_secret_src(part)
                    secret = True
                elif self.type(part) in (CARD, ZONE, "list[card]"):
                    lines += [*self._cards_src(part, "_m"), "_t.append(', '.join(['{}'] * len(_m)))", "_h.extend(_m)"]
                else:
                    lines += [f"_x = {self.expr_src(part)}",
                              f"_t.append({self.text_src('_x', self.type(part))})"]
            if secret:
                return v.logged(["_s = []", *lines, "st.event(0, ''.join(_t), tuple(_h), tuple(_s))"])
            return v.logged([*lines, "st.event(0, ''.join(_t), tuple(_h))"])

        b.emit(s.span, PLAIN, write)

    def _derived_secret_src(self, part: ast.Expr) -> list[str]:
        """A message's value worked out from secret values (Program.secret_reads): its words to
        the seats that know them all (and its cards, if it shows some), `?` to the others."""
        cells = self.source.const(self.secret_cells(self.p.secret_reads[id(part)]))
        lines = [f"_k = st.secrets_known({cells})"]
        if self.type(part) in (CARD, ZONE, "list[card]"):  # (and only to those who know the cards)
            lines += [*self._cards_src(part, "_m"), f"for _c in _m: _k &= {ST.known}[_c]",
                      f"_w = ', '.join([{self.source.const(self.g.card_text)}[_c] for _c in _m])"]
        else:
            lines += [f"_x = {self.expr_src(part)}", f"_w = {self.text_src('_x', self.type(part))}"]
        return [*lines, "_t.append('\\0')", "_s.append((_w, _k, '?'))"]

    def label_fn(self, text: ast.Template | None, params: str = "st, env", nlocals: int | None = None) -> Fn | None:
        """A function giving a `choose` label with its values filled in (a card as every seat may see
        it: Game.label_card_text), or None for a label without values."""
        if text is None:
            return None
        pieces = []
        for part in text.parts:
            if isinstance(part, str):
                pieces.append(_text(part))
                continue
            t = "list[card]" if self.type(part) == ZONE else self.type(part)  # (a zone: its cards)
            shown = self.text_src("_x", t, card="st.game.label_card_text(st, {x})")
            ref = self.p.secret_parts.get(id(part))
            if ref is not None:  # (known to someone alone: `?`, as a card not everyone knows shows its place)
                info = self.p.vars[ref[1]]
                base = self.g.var_layout[info.name][0]
                index = str(base) if ref[0] == "var" else f"{base} + {self.expr_src(ref[2])}"
                shown = f"('?' if ({index}) in st.secrets else {shown})"
            elif id(part) in self.p.secret_reads:  # (worked out from secret values: `?` unless all know them)
                cells = self.source.const(self.secret_cells(self.p.secret_reads[id(part)]))
                shown = f"('?' if st.secrets_known({cells}) != {self.g.all_mask} else {shown})"
            pieces.append(f"(lambda _x: {shown})({self.expr_src(part)})")
        return _located_part(self.source.function(f"''.join([{', '.join(pieces)}])", params, nlocals), text.span)

    def text_src(self, x: str, t: str, card: str | None = None) -> str:
        """Source of the words that show value x (a name) of type t, as messages show it (a card's
        face, or `card`, a format of {x})."""
        if is_list(t):
            return f"', '.join([{self.text_src('_y', elem(t), card)} for _y in {x} if _y is not None])"
        if t == PLAYER:
            shown = f"{self.source.const(self.g.names)}[{x}]"
        elif t == CARD:
            shown = card.format(x=x) if card is not None else f"{self.source.const(self.g.card_text)}[{x}]"
        elif t == BOOL:
            shown = f"('yes' if {x} else 'no')"
        elif t == DIRECTION:
            shown = f"('clockwise' if {x} > 0 else 'counterclockwise')"
        else:
            shown = f"str({x})"
        return f"('none' if {x} is None else {shown})"
