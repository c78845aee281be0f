"""Playouts compiled straight: the rules as plain Python functions for a playout that runs to the end.

The machine (State._advance) runs a game as frames of op positions, so that a state can stop at
any decision. A playout that runs to the end needs none of that: here each procedure, action and
hook is one Python function with Python's control flow, a call is a call, a `choose` asks the pick
in place, an `end` is an exception, and the game's rounds and turns are one loop. The statements
are the ops' own source, as the machine's blocks run them; a test plays every game both ways.

The straight run takes over at a turn's decision, and anything out of the ordinary (a pick that
fails or is out of range, a rules error, the playout's limit) stops it: the state goes back to
where it began and the machine plays the same game again with the recorded picks, so what the
caller sees is the machine's own. Rules this writer does not know run on the machine.
"""

from __future__ import annotations

import ast as pyast
from collections import Counter

from .. import ast
from ..engine.state import _FAILED, PLAIN
from .source import ST, STRAIGHT_RUN, Naming, env_list, named, naming


class Bail(Exception):
    """The straight run stops; the machine plays the game again from where it began."""


class End(Exception):
    """`end turn`, `end round` or `end game` in a straight run: the game's loop catches it."""

    def __init__(self, what: str) -> None:
        self.what = what


class NoStraight(Exception):
    """The rules hold something the straight writer does not write: the machine runs them."""


# The state's fields that keep one value while a straight run lasts: its lists, which change in
# place, the pick, and the playout's limit. A function that reads one more than once reads it as a
# local bound first (`_Szones`), as it does a constant it reads more than twice (`_K33`).
_STEADY = ("zones", "loc", "known", "counters", "vars", "counts", "pick", "stop", "step_limit", "draw", "free")
# The statements written as Python's own control flow; every other one is its ops' plain lines.
_CONTROL = (ast.If, ast.While, ast.ForEach, ast.Repeat, ast.Break, ast.Return, ast.CallStmt, ast.End, ast.Choose)
_TURN = "                    "  # the indent of a turn's lines in the game's loop


class StraightWriter:
    """Writes the straight functions of a compiled game (see the module's docstring)."""

    def __init__(self, compiler, limited: bool = True) -> None:
        self.c = compiler
        # Whether the playout's limit is tested before each pick (straight_playout).
        self.limited = limited
        self.g = compiler.g
        self.p = compiler.p
        self.inline: dict[int, tuple[list, str]] = {}  # code index -> (statements, unit), written in place
        self.counts = compiler.source.counts  # domains counted from hands counted by face
        self.unit_name = ""
        self.returns = False  # whether the unit being written returns early
        self.watched: list[str] | None = None  # see end_checks

    # ------------------------------------------------------------ the whole game
    def write(self) -> str:
        g, p = self.g, self.p
        out: list[str] = []
        for name, code_id in self.c.proc_codes.items():
            out += self.unit(code_id, p.procedures[name].body, "procedure")
        for when, code_id in self.c.hook_codes.items():
            out += self.unit(code_id, p.hooks[when].body, when)
        for a, info in zip(g.actions, p.actions, strict=True):
            out += self.unit(a.code, info.body[1:] if a.lead is not None else info.body, "action")
        out += self.main()
        return "\n".join(out) + "\n"

    def unit(self, code_id: int, body, unit: str) -> list[str]:
        """A function of the unit's locals, each a Python local (`_e3`): its arguments first, the
        rest none. A unit whose statements hand their locals on as one list (to a define's value)
        gets them as the list `env`. Written once to count what it reads, and again with what is
        worth it bound (see _bound)."""
        n = self.g.codes[code_id].nlocals
        params = "".join(f", _e{i}=None" for i in range(n))
        head: list[str] = []
        naming = Naming(None, "_e")
        lines, whole = self.unit_lines(code_id, body, unit, naming)
        if whole:
            head = [f"    env = [{', '.join(f'_e{i}' for i in range(n))}]"]
            naming = Naming()
            lines = self.unit_lines(code_id, body, unit, naming)[0]
        elif unit != "procedure" and not self.returns:
            self.inline[code_id] = (body, unit)  # (a procedure is always called)
        binds, naming = _bound(naming, [*head, *lines], self.c.source.const_names)
        if binds:
            lines = self.unit_lines(code_id, body, unit, naming)[0]
        return [f"def _sp_{code_id}(st, rec{params}):", *binds, *head, *lines, ""]

    def unit_lines(self, code_id: int, body, unit: str, naming: Naming) -> tuple[list[str], bool]:
        """The unit's lines in that naming, and whether they hand the locals on as a list."""
        sc = self.c.source
        before = sc.whole_reads
        self.unit_name, self.returns = unit, False
        with named(naming):
            lines = self.body(body, "    ") or ["    pass"]
            if code_id in self.c.recursive_codes:
                # A frame on the state's stack while it runs, as the machine's: the depth of recursion
                # is counted the same way (Compiler.depth_check).
                lines = [f"    {sc.const(self.c.depth_check)}(st)", f"    st.stack.append([{code_id}, 0, []])",
                         "    try:", *("    " + line for line in lines), "    finally:", "        st.stack.pop()"]
        return lines, sc.whole_reads != before

    def call(self, code_id: int, args: list[str], ind: str) -> list[str]:
        return [f"{ind}_sp_{code_id}({', '.join(['st', 'rec', *args])})"]

    def in_place(self, code_id: int, args: list[str], ind: str) -> list[str]:
        """A hook's or action's statements written where the game's loop runs it, its locals named
        after it (`_e7_0`), its fields as the loop names them: one Python call less a turn. A unit
        that returns early is called."""
        entry = self.inline.get(code_id)
        if entry is None:
            return self.call(code_id, args, ind)
        n = self.g.codes[code_id].nlocals
        values = [*args, *["None"] * (n - len(args))]
        sets = [f"{ind}{', '.join(f'_e{code_id}_{i}' for i in range(n))} = {', '.join(values)}"] if n else []
        lines = self.unit_lines(code_id, entry[0], entry[1], naming().locals_as(None, f"_e{code_id}_"))[0]
        return [*sets, *(ind + line[4:] for line in lines)]

    # ------------------------------------------------------------ statements
    def body(self, stmts, ind: str) -> list[str]:
        return [line for s in stmts for line in self.stmt(s, ind)]

    def cond(self, e: ast.Expr) -> str:
        """A statement's test or argument as the compiler compiled it for the statement's op."""
        return self.c.source.inline(self.c.parts[id(e)])

    def test(self, e: ast.Expr) -> str:
        """A statement's test (of an `if` or a `while`): only its truth is read."""
        return _test(self.cond(e))

    def ops(self, s: ast.Stmt) -> tuple[object, int, int]:
        return self.c.stmt_ops[id(s)]

    def plain(self, code, k: int) -> list[str]:
        """The source of op k, a PLAIN op (the machine's own block lines for it)."""
        if code.kinds[k] != PLAIN:
            raise NoStraight(f"op {k} of {code.name} is not plain")
        lines = code.srcs[k](STRAIGHT_RUN)
        if any(not isinstance(line, str) or "return" in line for line in lines):
            raise NoStraight(f"op {k} of {code.name} returns")
        return lines

    def block(self, stmts, ind: str) -> list[str]:
        return self.body(stmts, ind) or [ind + "pass"]

    def stmt(self, s: ast.Stmt, ind: str) -> list[str]:
        local = self.c.source.local
        inner = ind + "    "
        if not isinstance(s, _CONTROL):
            code, start, end = self.ops(s)
            return [ind + line for k in range(start, end) for line in self.plain(code, k)]
        if isinstance(s, ast.If):
            out = []
            for i, (cond, body) in enumerate(s.branches):
                out += [f"{ind}{'if' if i == 0 else 'elif'} {self.test(cond)}:", *self.block(body, inner)]
            return out if s.orelse is None else [*out, f"{ind}else:", *self.block(s.orelse, inner)]
        if isinstance(s, ast.While):
            return [f"{ind}while {self.test(s.cond)}:", *self.body(s.body, inner),
                    f"{inner}st.budget -= 1", f"{inner}if st.budget < 0: st.tick()"]
        if isinstance(s, (ast.ForEach, ast.Repeat)):
            # (The machine also keeps a loop's position in a slot of its own: only its steps read it.)
            code, start, _ = self.ops(s)
            first = [ind + line for line in self.plain(code, start)]
            if isinstance(s, ast.Repeat):
                left = local(self.p.slots[id(s)])
                return [*first, f"{ind}while {left} > 0:", f"{inner}{local(self.p.slots[id(s)])} -= 1",
                        *self.body(s.body, inner)]
            var_slot, list_slot, _ = self.p.slots[id(s)]
            return [*first, f"{ind}for {local(var_slot)} in {local(list_slot)}:", *self.block(s.body, inner)]
        if isinstance(s, ast.Break):
            return [f"{ind}break"]
        if isinstance(s, ast.CallStmt):
            return self.call(self.c.proc_codes[s.func], [self.cond(a) for a in s.args], ind)
        if isinstance(s, ast.Choose):
            return self.choose(s, ind)
        if isinstance(s, ast.End) and not (self.unit_name == "game end"
                                           or (self.unit_name == "round end" and s.what != "game")):
            # (`end game` in `round end` goes to the game's end at once, as the machine's `end`.)
            return [f"{ind}raise _End({'over' if self.unit_name == 'round end' else s.what!r})"]
        self.returns = True  # (`return`, or an `end` that ends the hook it is in)
        return [f"{ind}return"]

    def choose(self, s: ast.Choose, ind: str) -> list[str]:
        local = self.c.source.local
        slot = self.p.slots[id(s)]
        lines = self.c.choose_options[id(s)]()  # (the machine's own lines, up to the question)
        listed = [*(ind + line for line in lines),
                  f"{ind}if not _v: {local(slot)} = None",
                  f"{ind}else:",
                  f"{ind}    _nv = len(_v)",
                  *(f"{ind}    {line}" for line in _asked("_i", "_nv", "_p", self.limited)),
                  f"{ind}    {local(slot)} = _v[_i]; st.budget = {ST.step_limit}"]
        counted = self.counts.lines(s.domain, "_qcount", "_k", env=True)
        head = listed[:2]  # who chooses, and that it is someone
        if counted is None or not (head[0].startswith(f"{ind}_p = ") and head[1].startswith(f"{ind}if _p is None")):
            return listed  # (a zone that fails fails here as where the machine lists it: a bail)
        # Counted (counts.py): the options' number from the counts, the one picked found after.
        zone, count, find = counted
        found = ["if _k == _qcount - 1: _x = None", "else:", *("    " + line for line in find)] if s.optional else find
        inner = [
            *count, *(["_qcount += 1"] if s.optional else []),
            f"if not _qcount: {local(slot)} = None",
            "else:",
            *("    " + line for line in _asked("_k", "_qcount", "_p", self.limited)),
            *("    " + line for line in found),
            f"    {local(slot)} = _x; st.budget = {ST.step_limit}",
        ]
        return [*head, f"{ind}_qz = {zone}", f"{ind}_qh = {ST.counts}[_qz]",
                f"{ind}if _qh is not None and {self.c.source.const(self.g.zone_seen_by)}[_qz] >> _p & 1:",
                *(f"{ind}    {line}" for line in inner), f"{ind}else:", *("    " + line for line in listed[2:])]

    # ------------------------------------------------------------ rounds and turns
    def main(self) -> list[str]:
        """The game's loop from a turn's decision to the game's end, as Compiler._main lays it out:
        written once to count what it reads, and again with what is worth it bound (see _bound)."""
        naming = Naming()
        with named(naming):
            lines = self.main_lines()
        binds, naming = _bound(naming, lines, self.c.source.const_names, main=True)
        if binds:
            with named(naming):
                lines = self.main_lines()
        # Hands counted by face (counts.py) are counted anew as the run begins, and the counts go
        # with its end (a run that stops leaves them to the state the machine goes back to).
        counting = ["    st.counts = st.game.count_cards(st)", "    try:", "        _sp_run(st, rec)", "    finally:",
                    "        st.counts = []", "", "def _sp_run(st, rec):"]
        return ["def _sp_main(st, rec):", *(counting if self.g.count_size else []), *binds, *lines]

    def main_lines(self) -> list[str]:
        c, p = self.c, self.p
        options = c.turn_options_in_place(c.turn_options_lines())
        if options is None:
            raise NoStraight("turn options that return early")
        counted = self.counted_options()
        # The game's end, its frame's position where the machine's would be.
        finish = [*c.game_over(STRAIGHT_RUN), f"st.stack[-1][1] = {len(self.g.codes[0].kinds)}", "return"]
        game_ends = [_test(c.fresh(info)) for info in p.game_ends]
        checks = self.end_checks(game_ends, [_test(c.fresh(info)) for info in p.round_ends])
        ended = self.ended
        return [
            "    env = []",
            *(f"    _seen_{name} = None" for name in self.watched),
            "    resumed = True",  # the straight run begins at a turn's decision
            "    while True:",  # a round
            "        try:",
            "            if not resumed:",
            "                st.budget -= 1",
            "                if st.budget < 0: st.tick()",
            "                st.round += 1",
            *ended("round start", "                "),
            "            while True:",  # a turn
            "                try:",  # `end turn` in the turn's start or its action: to the turn's end
            "                    if resumed:",
            "                        resumed = False",
            "                    else:",
            "                        st.budget -= 1",
            "                        if st.budget < 0: st.tick()",
            *(_TURN + "    " + line for line in self.c.next_seat()),
            *self.hook("turn start", "                        "),
            *self.ask_turn(counted, options),
            *(_TURN + "    " + line for line in self.entered(counted)),
            "                except _End as e:",
            "                    if e.what != 'turn': raise",
            *ended("turn end", "                "),
            *checks,
            "        except _End as e:",
            "            what = e.what",
            "        if what == 'round':",
            *ended("round end", "            ", False),
            *(f"            if {e}:\n                what = 'over'" for e in game_ends),
            "            if what == 'round':",
            "                continue",
            "        if what == 'game':",  # the round ends with the game: `round end` first
            *(ended("round end", "            ", False) or ["            pass"]),
            *ended("game end", "        ", False),
            *("        " + line for line in finish),
            "",
        ]

    def hook(self, when: str, ind: str) -> list[str]:
        """A hook written where the game's loop runs it (none if the rules have no such hook)."""
        return self.in_place(self.c.hook_codes[when], [], ind) if when in self.c.hook_codes else []

    def ended(self, when: str, ind: str, turn_only: bool = True) -> list[str]:
        """A hook's call. `end turn` in it (or in what it calls) ends the hook alone, as the
        machine's `end` outside a turn; any other `end` goes on to the round's or game's end.
        In `round end` and `game end` an `end` is the hook's return: one from a procedure they
        call takes the machine's stranger ways, so the machine plays it (a bail)."""
        if when not in self.c.hook_codes:
            return []
        catch = (f"{ind}except _End as e:", f"{ind}    if e.what != 'turn': raise") if turn_only \
            else (f"{ind}except _End:", f"{ind}    raise _Bail")
        return [f"{ind}try:", *self.hook(when, ind + "    "), *catch]

    def entered(self, counted: tuple[list[str], list[list[str]]] | None) -> list[str]:
        """The picked action run: by its number (`_a`), or among counted options by the picked
        option's place (`_k`, the option's among its own action's)."""
        enter = []
        for a, (code, _, slot) in enumerate(self.g.action_entry):
            if counted is None:
                enter.append(f"{'if' if a == 0 else 'elif'} _a == {a}:")
            else:
                enter.append("if _k < _n0:" if a == 0 else f"elif (_k := _k - _n{a - 1}) < _n{a}:")
                enter += ["    " + line for line in counted[1][a]]
            enter += self.in_place(code.index, ['None'] * slot + ['_x'] if slot >= 0 else [], "    ")
        return enter

    def end_checks(self, game_ends: list[str], round_ends: list[str]) -> list[str]:
        """The tests after a turn of the game's and the round's end. A game's end that reads nothing
        but counters and variables (`watched`, found as the loop is first written) is tested again
        only if one of them changed: a copy of the lists, compared at C speed, stands for a test
        that most turns would find false again."""
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

    def ask_turn(self, counted, options: list[str]) -> list[str]:
        """The turn's question: from counted options (`_k`), or from the listed ones (`_a`, `_x`)."""
        if counted is not None:
            total = " + ".join(f"_n{a}" for a in range(len(self.g.actions)))
            return [*(_TURN + line for line in counted[0]), f"{_TURN}_nt = {total}", f"{_TURN}if _nt:",
                    *(f"{_TURN}    {line}" for line in _asked("_i", "_nt", ST.current, self.limited)),
                    f"{_TURN}    st.budget = {ST.step_limit}; _k = _i"]
        return [
            *(_TURN + line for line in options),
            f"{_TURN}if _v:",
            f"{_TURN}    _nv = len(_v)",
            *(f"{_TURN}    {line}" for line in _asked("_i", "_nv", ST.current, self.limited)),
            f"{_TURN}    st.budget = {ST.step_limit}",
            f"{_TURN}    _a, _x = _v[_i]"]

    def own_zone_seen(self, zone: str) -> bool:
        """Whether a zone's source names the zone of the current seat's own (`me.hand`) in a family
        whose every zone its owner sees: the turn's chooser then sees it, whichever seat it is."""
        base, plus, seat = zone[1:].partition(" + ")
        seen = self.g.zone_seen_by
        return zone.startswith("(") and plus != "" and base.isdigit() and seat == f"({naming().name('current')}))" \
            and all(seen[int(base) + p] >> p & 1 for p in range(self.c.n))

    def counted_options(self) -> tuple[list[str], list[list[str]]] | None:
        """The turn's options counted (counts.py): lines setting `_n{a}` to each action's number
        of options, read from the counts where its domain allows (else listed, into `_o{a}`), and
        per action the lines that find its picked option `_x` (the `_k`-th of its own) once it is
        picked. None if no action's options can be counted: the turn lists them all."""
        c, g = self.c, self.g
        head: list[str] = [f"me = {ST.current}"]
        fast: list[str] = []  # every counted zone seen: each counted action counted
        slow: list[str] = []  # else: each zone as it is seen
        pick: list[list[str]] = []
        zones: dict[str, int] = {}  # a zone's source -> the number of its `_qz`, `_qh` and `_qok`
        for ai, (a, info) in enumerate(zip(g.actions, self.p.actions, strict=True)):
            n = f"_n{ai}"
            if a.lead is None:
                quick = body = [f"{n} = 1"]
                found = ["_x = None"]
                quick_reads = body_reads = False  # (whether they read the action's locals)
            else:
                own = f"_o{ai}"
                listed, listed_reads = c.source.reading(
                    lambda a=a, info=info, own=own: [f"{own} = []", *c.lead_options(a, info, own, "{v}")])
                counted = self.counts.lines(info.body[0].domain, n, "_k")  # (none if it reads locals)
                if counted is not None and "_fail(" not in counted[0]:
                    zone, counting, finding = counted
                    z = zones.get(zone)
                    if z is None:  # (a zone's index and counts once a turn: it cannot fail)
                        z = zones[zone] = len(zones)
                        seen = "" if self.own_zone_seen(zone) \
                            else f" and {c.source.const(g.zone_seen_by)}[_qz{z}] >> me & 1"
                        head += [f"_qz{z} = {zone}", f"_qh{z} = {ST.counts}[_qz{z}]",
                                 f"_qok{z} = _qh{z} is not None{seen}"]
                    quick = [f"_qh = _qh{z}", *counting, f"{own} = None"]
                    body = [f"if _qok{z}:", *("    " + line for line in quick), "else:",
                            *("    " + line for line in listed), f"    {n} = len({own})"]
                    found = [f"if {own} is None:", f"    _qz, _qh = _qz{z}, _qh{z}",
                             *("    " + line for line in finding), f"else: _x = {own}[_k]"]
                    quick_reads, body_reads = False, listed_reads
                else:
                    quick = body = [*listed, f"{n} = len({own})"]
                    found = [f"_x = {own}[_k]"]
                    quick_reads = body_reads = listed_reads
            cond, cond_reads = c.source.reading(lambda a=a: c.source.inline(a.cond) if a.cond is not None else None)
            for out, lines, reads in ((fast, quick, quick_reads), (slow, body, body_reads)):
                if a.cond is not None:
                    lines = [f"{n} = 0", f"if {cond}:", *("    " + line for line in lines)]
                if reads or cond_reads:  # (the action's locals, as the turn's options)
                    lines = [f"env = {env_list([], a.nlocals)}", *lines]
                out += lines
            pick.append(found)
        if not zones:
            return None
        every = " and ".join(f"_qok{z}" for z in range(len(zones)))
        return [*head, f"if {every}:", *("    " + line for line in fast), "else:",
                *("    " + line for line in slow)], pick


def _bound(counted: Naming, lines: list[str], consts: set[str], main: bool = False) -> tuple[list[str], Naming]:
    """The lines binding what a function's lines, written in `counted`, read often (a steady field
    read more than once, if none of them is stored; a constant read more than twice; in the game's
    loop, the seat whose turn it is, when only the turn's start sets it), and the naming that
    writes them again with those bound. (Counted in the lines' syntax tree: writers hand a source
    they wrote on to be written twice, or write one they leave out.)"""
    reads: Counter = Counter()
    for node in pyast.walk(pyast.parse("def _f():\n" + "\n".join(lines))):
        if isinstance(node, pyast.Attribute) and isinstance(node.value, pyast.Name) and node.value.id == "st":
            reads[node.attr] += 1
        elif isinstance(node, pyast.Name) and node.id in consts:
            reads[node.id] += 1
    fields = [f for f in _STEADY if reads[f] > 1]
    if any(counted.stores[f] for f in fields):
        fields = []
    if main and counted.stores["current"] == 1:
        fields.insert(0, "current")
    names = sorted(k for k, r in reads.items() if k in consts and r > 2)
    if not fields and not names:
        return [], counted
    bound = Naming(counted.list, counted.prefix, fields, names)
    return [*(f"    {bound.name(f)} = st.{f}" for f in fields), *(f"    _K{k[2:]} = {k}" for k in names)], bound


def _asked(var: str, n: str, chooser: str, limited: bool) -> list[str]:
    """Lines setting `var` to the pick among `n` options (a name), recorded in `rec` (the run's
    picks: State._straight): `st.pick(n)` asked of `chooser`, or the same number drawn here if the
    pick is a `random.Random`'s randrange (State.draw), always below n. At the playout's limit
    (`st.stop`, if `limited`), a bail: the machine stops there."""
    return [*([f"if len(rec) == {ST.stop}: raise _Bail"] if limited else []),
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
            f"    rec.append({var})"]


def _test(src: str) -> str:
    """A test's source where only its truth is read: `True if X else False` (a value that must be
    a boolean) is X."""
    tree = pyast.parse(src.strip(), mode="eval").body
    if isinstance(tree, pyast.IfExp) and pyast.unparse(tree.body) == "True" and pyast.unparse(tree.orelse) == "False":
        return f"({pyast.get_source_segment(src.strip(), tree.test)})"
    return src


def _steady_reads(tests: list[str], mutable_vars: bool, consts: set[str]) -> list[str]:
    """The state's lists that the tests read (`counters`, `vars`), if they read nothing else that
    may change: no zone, seat, turn or call but `_fail` (which raises), and no variable if one may
    hold a list, which could change in place. Else no list."""
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
    """The game's straight playout function (st, rec), or None if its rules cannot run straight.
    `unlimited`: for a playout without a limit, the same functions without the test of the limit
    before each pick (their own copy, `fn.unlimited`; a decision's test a move the less)."""
    fn = game.straight
    if fn is None:
        make = game.make_straight
        fn = False
        if make is not None:
            try:
                limited, free = StraightWriter(make()).write(), StraightWriter(make(), limited=False).write()
                names = game.namespace
                names.update(_End=End, _Bail=Bail, _FAILED=_FAILED)
                exec(compile(limited, f"<rules {game.name} straight>", "exec"), names)
                fn = names["_sp_main"]
                own = dict(names)  # (its own functions: each calls its own kind)
                exec(compile(free, f"<rules {game.name} straight>", "exec"), own)
                fn.unlimited = own["_sp_main"]
            except Exception:  # NoStraight, NoSource, or a fault of the writer: it costs speed, never a game
                fn = False
        game.straight = fn
    if not fn:
        return None
    return getattr(fn, "unlimited", fn) if unlimited else fn
