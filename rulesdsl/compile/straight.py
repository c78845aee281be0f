"""Playouts compiled straight: each procedure, action and hook one plain Python function.

A playout that runs to the end needs no frames: Python's control flow runs the ops' own lines, a
`choose` asks in place, an `end` is an exception, and rounds and turns are one loop. From a turn's
decision on; anything out of the ordinary (a bad pick, a rules error, the limit) stops it, and the
machine plays the same game again from where it began with the recorded picks."""

from __future__ import annotations

import ast as pyast
from collections import Counter

from .. import ast
from ..engine.machine import _FAILED
from .source import ST, STRAIGHT_RUN, Naming, code_of, env_list, named, naming, read_counts, spent
from .tree import ends_hook


class Bail(Exception):
    """The straight run stops; the machine plays the game again from where it began."""


class End(Exception):
    """`end turn`, `end round` or `end game` in a straight run: the game's loop catches it."""

    def __init__(self, what: str) -> None:
        self.what = what


class NoStraight(Exception):
    """The rules hold something the straight writer does not write: the machine runs them."""


# The state's fields that keep one value while a straight run lasts (its lists change in place): a
# function reading one more than once binds it first (`_Szones`), as a constant read more than twice.
_STEADY = ("zones", "loc", "known", "counters", "vars", "counts", "pick", "stop", "step_limit", "draw", "free")
# The statements written as Python's own control flow; every other one is its ops' plain lines.
_CONTROL = (ast.If, ast.While, ast.ForEach, ast.Repeat, ast.Break, ast.Return, ast.CallStmt, ast.End, ast.Choose,
            ast.Secretly, ast.Race)
_TURN = "                    "  # the indent of a turn's lines in the game's loop


class StraightWriter:
    """Writes the straight functions of a compiled game (see the module's docstring)."""

    def __init__(self, compiler, limited: bool = True) -> None:
        self.c = compiler
        self.limited = limited  # whether the playout's limit is tested before each pick
        self.g = compiler.g
        self.p = compiler.p
        self.units: dict[int, tuple[list, str]] = {}  # code index -> (statements, unit)
        self.inline: set[int] = set()  # the codes written where the game's loop runs them
        self.counts = compiler.source.counts  # domains counted from hands counted by face
        self.unit_name = ""
        self.returns = False  # whether the unit being written returns early
        self.watched: list[str] | None = None  # see end_checks

    def write(self) -> str:
        for name, code_id in self.c.proc_codes.items():
            self.units[code_id] = self.p.procedures[name].body, "procedure"
        for when, code_id in self.c.hook_codes.items():
            self.units[code_id] = self.p.hooks[when].body, when
        for a, info in zip(self.g.actions, self.p.actions, strict=True):
            self.units[a.code] = info.body[1:] if a.lead is not None else info.body, "action"
        out = [line for code_id in self.units for line in self.unit(code_id)]
        return "\n".join([*out, *self.main()]) + "\n"

    def unit(self, code_id: int) -> list[str]:
        """A function of the unit's locals, each a Python local (`_e3`), its arguments first."""
        n = self.g.codes[code_id].nlocals
        binds, lines = self.bound(Naming(None, "_e"), lambda naming: self.unit_lines(code_id, naming))
        if self.units[code_id][1] != "procedure" and not self.returns:
            self.inline.add(code_id)  # (a procedure is always called)
        return [f"def _sp_{code_id}(st, rec{''.join(f', _e{i}=None' for i in range(n))}):", *binds, *lines, ""]

    def bound(self, counted: Naming, write, main: bool = False) -> tuple[list[str], list[str]]:
        """The lines binding what `write`'s lines (written in `counted` first) read often, and its lines
        in the naming that reads them bound: a steady field read twice (no writer stores one), a constant
        read thrice, in the game's loop the current seat if only the turn's start sets it."""
        consts = self.c.source.const_names
        lines = write(counted)
        fields_read, names_read = read_counts("def _f():\n" + "\n".join(lines))
        reads: Counter = fields_read + Counter({k: n for k, n in names_read.items() if k in consts})
        fields = [f for f in _STEADY if reads[f] > 1]
        if main and counted.stores["current"] == 1:
            fields.insert(0, "current")
        names = sorted(k for k, r in reads.items() if k in consts and r > 2)
        if not fields and not names:
            return [], lines
        bound = Naming(counted.list, counted.prefix, fields, names)
        binds = [*(f"    {bound.name(f)} = st.{f}" for f in fields), *(f"    _K{k[2:]} = {k}" for k in names)]
        return binds, write(bound)

    def unit_lines(self, code_id: int, naming: Naming) -> list[str]:
        """The unit's lines in the naming."""
        sc = self.c.source
        body, self.unit_name = self.units[code_id]
        self.returns = False
        with named(naming):
            lines = self.block(body, "    ")
            if code_id in self.c.recursive_codes:
                # A frame on the state's stack while it runs: recursion's depth counted as the machine's.
                lines = [f"    {sc.const(self.c.depth_check)}(st)", f"    st.stack.append([{code_id}, 0, []])",
                         "    try:", *("    " + line for line in lines), "    finally:", "        st.stack.pop()"]
        return lines

    def in_place(self, code_id: int, args: list[str], ind: str) -> list[str]:
        """A hook's or action's statements written where the game's loop runs it (one Python call
        less a turn), its locals named after it (`_e7_0`); a call if it returns early."""
        if code_id not in self.inline:
            return [f"{ind}_sp_{code_id}({', '.join(['st', 'rec', *args])})"]
        n = self.g.codes[code_id].nlocals
        values = [*args, *["None"] * (n - len(args))]
        sets = [f"{ind}{', '.join(f'_e{code_id}_{i}' for i in range(n))} = {', '.join(values)}"] if n else []
        now = naming()  # (the same fields, constants and stores; its locals named after it)
        lines = self.unit_lines(code_id, Naming(None, f"_e{code_id}_", now.fields, now.consts, now.stores))
        return [*sets, *(ind + line[4:] for line in lines)]

    def body(self, stmts, ind: str) -> list[str]:
        return [line for s in stmts for line in self.stmt(s, ind)]

    def plain(self, code, k: int, ind: str) -> list[str]:
        """The lines of op k, a PLAIN op (they neither jump nor return), as the machine's blocks run
        them, at indent `ind`."""
        return [ind + line for line in code.srcs[k](STRAIGHT_RUN)]

    def block(self, stmts, ind: str) -> list[str]:
        return self.body(stmts, ind) or [ind + "pass"]

    def stmt(self, s: ast.Stmt, ind: str) -> list[str]:
        local, src = self.c.source.local, self.c.expr_src
        inner = ind + "    "
        if not isinstance(s, _CONTROL):
            code, start, end = self.c.stmt_ops[id(s)]
            return [line for k in range(start, end) for line in self.plain(code, k, ind)]
        if isinstance(s, ast.If):
            out = []
            for i, (cond, body) in enumerate(s.branches):
                out += [f"{ind}{'if' if i == 0 else 'elif'} {_test(src(cond))}:", *self.block(body, inner)]
            return out if s.orelse is None else [*out, f"{ind}else:", *self.block(s.orelse, inner)]
        if isinstance(s, ast.While):
            return [f"{ind}while {_test(src(s.cond))}:", *self.body(s.body, inner), *spent("1", inner)]
        if isinstance(s, (ast.ForEach, ast.Repeat)):
            code, start, _ = self.c.stmt_ops[id(s)]
            first = self.plain(code, start, ind)
            if isinstance(s, ast.Repeat):
                left = local(self.p.slots[id(s)])
                return [*first, f"{ind}while {left} > 0:", f"{inner}{left} -= 1", *self.body(s.body, inner)]
            var_slot, list_slot, _ = self.p.slots[id(s)]
            return [*first, f"{ind}for {local(var_slot)} in {local(list_slot)}:", *self.block(s.body, inner)]
        if isinstance(s, ast.Break):
            return [f"{ind}break"]
        if isinstance(s, ast.CallStmt):
            return [f"{ind}_sp_{self.c.proc_codes[s.func]}({', '.join(['st', 'rec', *map(src, s.args)])})"]
        if isinstance(s, ast.Choose):
            return self.choose(s, ind)
        if isinstance(s, ast.Secretly):  # its statements, then its locals forgotten (its last op)
            code, _, end = self.c.stmt_ops[id(s)]
            return [*self.body(s.body, ind), *self.plain(code, end - 1, ind)]
        if isinstance(s, ast.Race):
            return self.race(s, ind)
        if isinstance(s, ast.End) and not ends_hook(self.unit_name, s.what):
            return [f"{ind}raise _End({s.what!r})"]
        if not isinstance(s, ast.Return | ast.End):  # (a control statement given no straight form)
            raise NoStraight(f"a {type(s).__name__} statement")
        self.returns = True  # (`return`, or an `end` that ends the hook it is in)
        return [f"{ind}return"]

    def choose(self, s: ast.Choose, ind: str) -> list[str]:
        """A `choose` asked in place: its options listed, or counted (counts.py; sets.py for a `choose
        set` that sizes alone restrict) and the one picked found from its number after."""
        c, is_set = self.c, isinstance(s, ast.ChooseSet)
        slot, budget = c.source.local(self.p.slots[id(s)]), f"st.budget = {ST.step_limit}"
        none = "[]" if is_set else "None"
        listed = [*c.choose_options[id(s)](),  # (the machine's own lines, up to the question)
                  f"if not _v: {slot} = {none}", "else:",
                  *self.asked("_i", "_nv", "_p", ["_nv = len(_v)"], [f"{slot} = _v[_i]; {budget}"])]
        if is_set:
            counted = c.set_counted(s, "_p", "_qcount")
            counted = counted and (None, counted[0], [f"_x = {counted[1]}"])
        else:  # (a secret choose keeps its options, State.secrets: they are listed)
            counted = None if id(s) in self.p.secret_chooses else self.counts.lines(s.domain, "_qcount", "_k", env=True)
        if counted is not None:  # (else a zone that fails fails here as where the machine lists it: a bail)
            zone, count, find = counted
            if s.optional:
                find = [f"if _k == _qcount - 1: _x = {none}", "else:", *("    " + x for x in find)]
            inner = [*count, *(["_qcount += 1"] if s.optional else []), f"if not _qcount: {slot} = {none}", "else:",
                     *self.asked("_k", "_qcount", "_p", [], [*find, f"{slot} = _x; {budget}"])]
            if zone is None:
                listed = [*listed[:2], *inner]  # (who chooses, and that it is someone)
            else:  # (counted only if the chooser sees the zone)
                listed = [*listed[:2], f"_qz = {zone}", f"_qh = {ST.counts}[_qz]",
                          f"if _qh is not None and {c.source.const(self.g.zone_seen_by)}[_qz] >> _p & 1:",
                          *("    " + line for line in inner), "else:", *("    " + line for line in listed[2:])]
        return [ind + line for line in listed]

    def race(self, s: ast.Race, ind: str) -> list[str]:
        """A race (Statements.s_Race) with Python's loops: the answers, the order, each actor's
        turn (a `break` ends the race), the answers forgotten."""
        code, _, _ = self.c.stmt_ops[id(s)]
        ops, local = self.c.race_ops[id(s)], self.c.source.local
        _, seat, seats, _, order, _ = self.p.races[id(s)]
        inner = ind + "    "
        return [*self.plain(code, ops["init"], ind), f"{ind}for {local(seat)} in {local(seats)}:",
                *self.choose(s.body[0], inner), *self.plain(code, ops["store"], inner),
                *self.plain(code, ops["order"], ind), f"{ind}for {local(seat)} in {local(order)}:",
                *self.plain(code, ops["reveal"], inner), *self.body(s.body[1:], inner),
                *self.plain(code, ops["forget"], ind)]

    def main(self) -> list[str]:
        """The game's loop from a turn's decision to the game's end, as Compiler._main lays it out."""
        binds, lines = self.bound(Naming(), self.main_lines, main=True)
        # Hands counted by face (counts.py) are counted anew as the run begins, and the counts go
        # with its end (a run that stops leaves them to the state the machine goes back to).
        counting = ["    st.counts = st.game.count_cards(st)", "    try:", "        _sp_run(st, rec)", "    finally:",
                    "        st.counts = []", "", "def _sp_run(st, rec):"]
        return ["def _sp_main(st, rec):", *(counting if self.g.count_size else []), *binds, *lines]

    def main_lines(self, naming: Naming) -> list[str]:
        with named(naming):
            c, p = self.c, self.p
            # A straight run begins at a turn's decision, or in a game without actions (which has
            # none) at a turn's start, before the next seat is found (Compiler._main).
            seat = [_TURN + "    " + line for line in c.turn_seat(STRAIGHT_RUN)]
            if p.actions:  # (resumed at the decision: the turn's start ran on the machine)
                begin = [_TURN + "if resumed:", _TURN + "    resumed = False", _TURN + "else:", *seat,
                         *self.hook("turn start", _TURN + "    ")]
            else:
                begin = [_TURN + "resumed = False", *(line[4:] for line in seat), *self.hook("turn start", _TURN)]
            # The game's end, its frame's position where the machine's would be.
            finish = [*c.game_over(STRAIGHT_RUN), f"st.stack[-1][1] = {len(self.g.codes[0].kinds)}", "return"]
            game_ends = [_test(c.fresh(info)) for info in p.game_ends]
            checks = self.end_checks(game_ends, [_test(c.fresh(info)) for info in p.round_ends])
            return [
                "    env = []",
                *(f"    _seen_{name} = None" for name in self.watched),
                "    resumed = True",  # the straight run begins at a turn's decision (or start)
                "    while True:",  # a round
                "        try:",
                "            if not resumed:",
                *("                " + line for line in c.round_start(STRAIGHT_RUN)),
                *self.ended("round start", "                "),
                "            while True:",  # a turn
                "                try:",  # `end turn` in the turn's start or its action: to the turn's end
                *begin,
                *(self.turn() if p.actions else []),
                "                except _End as e:",
                "                    if e.what != 'turn': raise",
                *self.ended("turn end", "                "),
                *checks,
                "        except _End as e:",
                "            what = e.what",
                *self.ended("round end", "        ", False),  # (a round that ends with the game ends first)
                f"        if what == 'round'{''.join(f' and not {e}' for e in game_ends)}:",
                "            continue",  # (else the game ends: `end game`, or a game's end that holds)
                *self.ended("game end", "        ", False),
                *("        " + line for line in finish),
                "",
            ]

    def hook(self, when: str, ind: str) -> list[str]:
        """A hook written where the game's loop runs it (none if the rules have no such hook)."""
        return self.in_place(self.c.hook_codes[when], [], ind) if when in self.c.hook_codes else []

    def ended(self, when: str, ind: str, turn_only: bool = True) -> list[str]:
        """A hook run, where `end turn` ends the hook alone; in `round end` and `game end` (not
        turn_only) an `end` that does not end the hook alone (`end game` in `round end`, any in a
        procedure they call) takes the machine's stranger ways: a bail."""
        if when not in self.c.hook_codes:
            return []
        catch = (f"{ind}except _End as e:", f"{ind}    if e.what != 'turn': raise") if turn_only \
            else (f"{ind}except _End:", f"{ind}    raise _Bail")
        return [f"{ind}try:", *self.hook(when, ind + "    "), *catch]

    def end_checks(self, game_ends: list[str], round_ends: list[str]) -> list[str]:
        """The tests of the game's and round's end after a turn; a game's end that reads only counters
        and variables (`watched`) only if they changed: a copy compared at C speed costs less."""
        checks = [f"                if {e}:\n                    what = 'game'; break" for e in game_ends]
        if self.watched is None:
            mutable = any(v.type.startswith("list") for v in self.p.vars)
            self.watched = _steady_reads(game_ends, mutable, self.c.source.const_names) if game_ends else []
        if self.watched:
            changed = " or ".join(f"{naming().name(name)} != _seen_{name}" for name in self.watched)
            checks = [f"                if {changed}:",
                      *(f"                    _seen_{name} = {naming().name(name)}[:]" for name in self.watched),
                      *("    " + line for check in checks for line in check.split("\n"))]
        return checks + [f"                if {e}:\n                    what = 'round'; break" for e in round_ends]

    def turn(self) -> list[str]:
        """The turn's question and the picked action run: among counted options by the option's
        place (`_k`, then its place among its own action's), or among the listed ones (`_a`, `_x`)."""
        counted = self.counted_options()
        if counted is not None:
            lines = [*counted[0], f"_nt = {' + '.join(f'_n{a}' for a in range(len(self.g.actions)))}", "if _nt:",
                     *self.asked("_i", "_nt", ST.current, [], [f"st.budget = {ST.step_limit}; _k = _i"])]
        else:
            lines = [*self.c.turn_options_lines(), "_v = opts", "if _v:", *self.asked(
                "_i", "_nv", ST.current, ["_nv = len(_v)"], [f"st.budget = {ST.step_limit}", "_a, _x = _v[_i]"])]
        for a, (code, _, slot) in enumerate(self.g.action_entry):
            if counted is None:
                lines.append(f"    {'if' if a == 0 else 'elif'} _a == {a}:")
            else:
                lines.append("    if _k < _n0:" if a == 0 else f"    elif (_k := _k - _n{a - 1}) < _n{a}:")
                lines += ["        " + line for line in counted[1][a]]
            lines += self.in_place(code.index, ['None'] * slot + ['_x'] if slot >= 0 else [], "        ")
        return [_TURN + line for line in lines]

    def asked(self, var: str, n: str, chooser: str, before: list[str], after: list[str]) -> list[str]:
        """Lines setting `var` to the pick among `n`, recorded in `rec`: `st.pick(n)` asked of `chooser`,
        or drawn here if the pick is a Random's randrange (State.draw); a bail at the limit."""
        return ["    " + line for line in [
            *before,
            *([f"if len(rec) == {ST.stop}: raise _Bail"] if self.limited else []),
            f"if {ST.draw} is None:",
            f"    st.chooser = {chooser}",
            f"    try: {var} = {ST.pick}({n})",
            "    except BaseException: rec.append(_FAILED); raise",
            f"    rec.append({var})",
            f"    if not 0 <= {var} < {n}: raise _Bail",
            f"elif {n} == {ST.free}:",  # (`forced=False`: one option is not asked)
            f"    {var} = 0",
            "    rec.append(0)",
            "else:",
            f"    {var} = {ST.draw}({n}.bit_length())",
            f"    while {var} >= {n}: {var} = {ST.draw}({n}.bit_length())",
            f"    rec.append({var})",
            *after]]

    def counted_options(self) -> tuple[list[str], list[list[str]]] | None:
        """The turn's options counted (counts.py): lines setting `_n{a}` to each action's number of
        options (else listed into `_o{a}`), and per action the lines finding its `_k`-th, `_x`."""
        c, g = self.c, self.g
        head: list[str] = [f"me = {ST.current}"]
        fast: list[str] = []  # every counted zone seen: each counted action counted
        slow: list[str] = []  # else: each zone as it is seen
        pick: list[list[str]] = []
        zones: dict[str, int] = {}  # a zone's source -> the number of its `_qz`, `_qh` and `_qok`
        for ai, (a, info) in enumerate(zip(g.actions, self.p.actions, strict=True)):
            n, own, reads = f"_n{ai}", f"_o{ai}", False  # (reads: whether the listed options read locals)
            if a.lead is None:
                quick = body = [f"{n} = 1"]
                found = ["_x = None"]
            else:
                listed, reads = c.source.reading(
                    lambda a=a, info=info, own=own: [f"{own} = []", *c.lead_options(a, info, own, "{v}")])
                counted = None if a.lead.sets is not None else \
                    self.counts.lines(info.body[0].domain, n, "_k")  # (none if it reads locals)
                if counted is not None and "_fail(" not in counted[0]:
                    zone, counting, finding = counted
                    z = zones.get(zone)
                    if z is None:  # (a zone's index and counts once a turn: it cannot fail)
                        z = zones[zone] = len(zones)
                        # The current seat's own zone (`me.hand`) in a family whose owners see each: seen.
                        spec, _, node, _ = c.plan.counted[id(info.body[0].domain)]
                        own_seen = isinstance(node, ast.Attr) and c.p.refs.get(id(node.obj)) == ("builtin", "me") \
                            and all(g.zone_seen_by[g.zone_base[spec] + p] >> p & 1 for p in range(c.n))
                        seen = "" if own_seen else f" and {c.source.const(g.zone_seen_by)}[_qz{z}] >> me & 1"
                        head += [f"_qz{z} = {zone}", f"_qh{z} = {ST.counts}[_qz{z}]",
                                 f"_qok{z} = _qh{z} is not None{seen}"]
                    quick = [f"_qh = _qh{z}", *counting, f"{own} = None"]
                    body = [f"if _qok{z}:", *("    " + line for line in quick), "else:",
                            *("    " + line for line in listed), f"    {n} = len({own})"]
                    found = [f"if {own} is None:", f"    _qz, _qh = _qz{z}, _qh{z}",
                             *("    " + line for line in finding), f"else: _x = {own}[_k]"]
                else:
                    quick = body = [*listed, f"{n} = len({own})"]
                    found = [f"_x = {own}[_k]"]
            cond, cond_reads = c.source.reading(lambda a=a: c.source.inline(a.cond) if a.cond is not None else None)
            for out, lines, local in ((fast, quick, reads and quick is body), (slow, body, reads)):
                if a.cond is not None:
                    lines = [f"{n} = 0", f"if {cond}:", *("    " + line for line in lines)]
                if local or cond_reads:  # (the action's locals, as the turn's options)
                    lines = [f"env = {env_list([], a.nlocals)}", *lines]
                out += lines
            pick.append(found)
        if not zones:
            return None
        every = " and ".join(f"_qok{z}" for z in range(len(zones)))
        return [*head, f"if {every}:", *("    " + line for line in fast), "else:",
                *("    " + line for line in slow)], pick


def _test(src: str) -> str:
    """A test's source where only its truth is read: `True if X else False` is X (as its writer knows)."""
    truth = getattr(src, "truth", None)
    return f"({truth})" if truth is not None else src


def _steady_reads(tests: list[str], mutable_vars: bool, consts: set[str]) -> list[str]:
    """The state's lists the tests read (`counters`, `vars`) if they read nothing else that may
    change (no zone, seat, turn, call but `_fail`, nor variable if one may hold a list), else none."""
    read: set[str] = set()
    lists = ("counters",) if mutable_vars else ("counters", "vars")
    for node in pyast.walk(pyast.parse("\n".join(src.strip() for src in tests))):
        if isinstance(node, pyast.Attribute):
            if not (isinstance(node.value, pyast.Name) and node.value.id == "st" and node.attr in lists):
                return []
            read.add(node.attr)
        elif isinstance(node, (pyast.Lambda, pyast.NamedExpr, pyast.comprehension)) \
                or (isinstance(node, pyast.Call) and pyast.unparse(node.func) != "_fail") \
                or (isinstance(node, pyast.Name) and node.id not in ("st", "_fail") and node.id not in consts):
            return []
    return sorted(read)


def straight_playout(game, unlimited: bool = False):
    """The game's straight playout function (st, rec), or None if its rules cannot run straight;
    `unlimited`, its copy without the test of the limit before each pick (a test a move the less)."""
    if game.straight is None:
        game.straight = False
        make = game.make_straight  # (none: the rules run the slow way, kept to test against)
        if make is not None:
            try:
                limited, free = StraightWriter(make()).write(), StraightWriter(make(), limited=False).write()
                names = game.namespace
                names.update(_End=End, _Bail=Bail, _FAILED=_FAILED)
                exec(code_of(limited, f"<rules {game.name} straight>", "exec"), names)
                own = dict(names)  # (its own functions: each calls its own kind)
                exec(code_of(free, f"<rules {game.name} straight>", "exec"), own)
                game.straight = names["_sp_main"]
                game.straight.unlimited = own["_sp_main"]
            except Exception:  # NoStraight, NoSource, or a fault of the writer: it costs speed, never a game
                game.straight = False
    fn = game.straight
    return None if not fn else fn.unlimited if unlimited else fn
