"""The game's skeleton (code 0: rounds, turns, end checks, ranking) and the turn's options."""

from __future__ import annotations

from collections.abc import Callable

from ..engine.constants import CONTROL, JUMP, PLAIN, TEST
from ..engine.game import ActionRt, Code
from ..engine.state import State
from .blocks import Ask, Branch, Goto, Halt, Item, defined
from .domains import Plan, fuse
from .runtime import _every_seat
from .source import ST, NoSource, Variant, env_list, naming, spent
from .statements import _Builder
from .tree import _may_end


class Skeleton:
    """The skeleton of the Compiler (a part of it)."""

    def _main(self, main: Code, hooks: dict[str, int]) -> None:
        g, p = self.g, self.p
        b = _Builder(main)

        def maybe(when: str) -> None:
            if when in hooks:
                code = g.codes[hooks[when]]
                self._call(b, code.index, [], None, code.leaf, _may_end(p.hooks[when].body, self.plan.ending))

        labels: dict[str, int] = {}  # where `end turn/round/game` and the end checks go on
        maybe("setup")
        labels["round"] = b.pc
        # Where a run of rounds or turns with no decision is reported (the step budget): the hook
        # that runs at each, or else the end that never came.
        ends = [info.expr.span for info in (*p.round_ends, *p.game_ends)]
        never = ends[0] if ends else None
        b.emit(p.hooks["round start"].span if "round start" in p.hooks else never, PLAIN, self.round_start)
        maybe("round start")
        labels["turn"] = b.pc
        if not p.actions:
            # A game without actions has no turn's decision for a playout to go straight from: a
            # playout that will (free == 2, Machine.playout) stops here instead, at a turn's start.
            b.emit(None, CONTROL, lambda v, at=b.pc: [
                "if st.free != 2:", Goto(at + 1, ind="    "), "st.options = (); st._texts = None", Halt()])
        labels["turn seat"] = b.pc
        game_never = p.game_ends[0].expr.span if p.game_ends else never
        b.emit(p.hooks["turn start"].span if "turn start" in p.hooks else game_never, PLAIN, self.turn_seat)
        maybe("turn start")
        if p.actions:  # (a game without actions plays each turn as its hooks: their `choose`s ask)
            main.parts[b.emit(None, CONTROL, lambda v, after=b.pc + 1: self._turn_decision(v, after))] = \
                self._action_parts()
        labels["after action"] = b.pc
        g.turn_resume = b.pc if p.actions else -1  # (code 0's place while a turn's action is asked)
        maybe("turn end")
        game_ends = [self.cond_fn(x) for x in p.game_ends]
        round_ends = [self.cond_fn(x) for x in p.round_ends]

        def check(infos, fns, label: str) -> None:
            """A TEST op: if one of the ends holds, go on at the label (its parts locate an error)."""
            if infos:
                at = b.emit(None, TEST, lambda v: [Branch(self.fresh(info), labels[label]) for info in infos])
                main.parts[at] = [(f, info.expr.span) for info, f in zip(infos, fns, strict=True)]

        # A game that ends after a turn ends its round too: `round end` runs, then `game end`.
        check(p.game_ends, game_ends, "game over in a round")
        check(p.round_ends, round_ends, "round over")
        b.emit(None, JUMP, lambda v, to=labels["turn"]: [Goto(to)])
        labels["round over"] = b.pc
        maybe("round end")
        check(p.game_ends, game_ends, "over")
        b.emit(None, JUMP, lambda v, to=labels["round"]: [Goto(to)])
        labels["game over in a round"] = g.end_at = b.pc
        maybe("round end")
        labels["over"] = b.pc
        maybe("game end")
        rank_parts = [(_every_seat(self.rank_fn(info), self.n), info.expr.span) for _, info in p.rank]
        if p.winners is not None:
            rank_parts.append((self.cond_fn(p.winners), p.winners.expr.span))
        main.parts[b.emit(None, CONTROL, lambda v: [*self.game_over(v), Halt()])] = rank_parts
        # Now that labels are known, fill in the cells `end turn/round/game` jump to.
        for what, cell in self.end_cells:
            cell[0] = labels[what]
        self.turn_cell[:] = labels["turn seat"] + 1, labels["after action"]

    def round_start(self, v: Variant) -> list[str]:
        return [*spent(), "st.round += 1", *v.logged("st.event(0, f'== round {st.round} ==')")]

    def turn_seat(self, v: Variant) -> list[str]:
        """Whose turn comes (`_w`): the next player named, or the one after the player to continue
        from, or after the current one; both marks go back to -1 (most turns find both so)."""
        n = self.n
        return [*spent(), "if st.next_player >= 0:",
                "    _w = st.next_player",
                "    st.next_player = st.continue_from = -1",
                "elif st.continue_from >= 0:",
                f"    _w = (st.continue_from + st.direction) % {n}",
                "    st.continue_from = -1",
                f"elif st.turn == 0: _w = {ST.current}",
                f"else: _w = ({ST.current} + st.direction) % {n}",
                f"{naming().store('current')} = _w",
                "st.turn += 1",
                *v.logged(f"st.event(0, f'-- turn {{st.turn}}: {{{self.source.const(self.g.names)}[_w]}} --')")]

    def _turn_decision(self, v: Variant, after: int) -> list[Item]:
        """The turn's decision, the turn-options function's body in place (one call less a turn; the
        block's last op, so what it binds is not read after); no option, and the turn passes."""
        passes = f"st.event(0, {self.source.const(self.g.names)}[{ST.current}] + ' cannot act: the turn passes')"
        return [*self.turn_option_lines, "_v = opts", "if not _v:", *v.logged(passes, ind="    "),
                Goto(after, ind="    "), Ask(0, ST.current)]

    def _action_parts(self) -> list:
        """Each action's `when` and its leading `choose`'s list, to locate an error in the turn's
        options (Code.parts)."""
        out = []
        for a, info in zip(self.g.actions, self.p.actions, strict=True):
            if a.cond is not None:
                out.append((lambda st, f=a.cond, n=a.nlocals: f(st, [None] * n), info.cond.span))
            if a.lead is not None:
                out.append((lambda st, f=a.lead.domain, n=a.nlocals: f(st, [None] * n), info.body[0].domain.span))
        return out

    def _turn_options_fn(self) -> Callable[[State], list]:
        """`Game.turn_options` as one generated function: each action's condition and leading
        choose's domain inlined, so a turn's options cost no closure calls beyond the rules'."""
        self.turn_option_lines = self.turn_options_lines()
        return defined("def turn_options(st):", [*self.turn_option_lines, "return opts"], f"{self.g.name} turn options",
                       self.source.names)

    def turn_options_lines(self) -> list[str]:
        """The turn-options function's body, in the naming being written (the straight writer's
        game loop writes it in place)."""
        inline = self.source.inline
        lines = ["opts = []", f"me = {ST.current}"]
        run: list[Plan] = []  # actions in a row whose loops over a zone may run as one (domains.fuse)
        for ai, (a, info) in enumerate(zip(self.g.actions, self.p.actions, strict=True)):
            plan = self._option_plan(ai, a, info)
            if plan is not None:
                run.append(plan)
                continue
            lines += fuse(run, "_wo{i}")
            run = []

            def write(a=a, ai=ai, info=info) -> list[str]:
                cond = [f"if {inline(a.cond)}:"] if a.cond is not None else []
                opts = [f"opts.append(({ai}, None))"] if a.lead is None \
                    else self.lead_options(a, info, "opts", f"({ai}, {{v}})")
                return [*cond, *(("    " if cond else "") + line for line in opts)]

            body, reads = self.source.reading(write)
            lines += [f"env = {env_list([], a.nlocals)}"] if reads else []
            lines += body
        return lines + fuse(run, "_wo{i}")

    def lead_options(self, a: ActionRt, info, target: str, item: str) -> list[str]:
        """Lines appending to list `target` the options of an action's leading choose, each as
        `item` (a format with {v}) makes it, in the turn's order."""
        if a.lead.sets is not None:
            return [*self.set_lines(info.body[0], "me", "_sv"), f"{target}.extend([{item.format(v='_x')} "
                                                                 f"for _x in _sv])"]
        return self.options_lines(info.body[0].domain, a.lead.domain, self.distinct_fn(a.lead), "me", target, item)

    def _option_plan(self, ai: int, a: ActionRt, info) -> Plan | None:
        """An action's options as a Plan, if it has no condition: its scans cannot fail, so they may
        run with other actions'."""
        if a.cond is not None or not self.shortcuts:
            return None
        if a.lead is None:
            return Plan(post=[f"opts.append(({ai}, None))"])
        if a.lead.sets is not None:
            return None
        try:
            plan, reads = self.source.reading(
                lambda: self.domains.plan(info.body[0].domain, self.distinct_fn(a.lead), "me", f"({ai}, {{v}})"))
        except NoSource:
            return None
        return None if reads else plan  # (one that reads the action's locals stays in its turn)

    def game_over(self, v: Variant) -> list[str]:
        """The game's end: each seat's rank keys and the winners written out, then the state's last
        fields."""
        p, n = self.p, self.n
        inline = self.source.inline
        # Each expression gets locals of its own, as rank_fn's and cond_fn's calls do (the
        # block's own are not read again: the game ends here).
        lines = []
        fns = [(order, info, self.expr(info.expr)) for order, info in p.rank]
        if fns:
            for seat in range(n):
                for k, (order, info, f) in enumerate(fns):
                    lines += [f"env = {env_list([], info.nlocals)}", f"env[{info.it_slot}] = {seat}",
                              f"_v = {inline(f)}",
                              f"_a{seat}_{k} = {'' if order == 'lowest' else '-'}(int(_v) if _v is not None else 0)"]
                keys = f"_a{seat}_0" if len(fns) == 1 else f"({', '.join(f'_a{seat}_{k}' for k in range(len(fns)))})"
                lines.append(f"_a{seat} = {keys}")
            ranks = ["1" + "".join(f" + (_a{o} < _a{s})" for o in range(n) if o != s) for s in range(n)]
            lines.append(f"ranking = [{', '.join(ranks)}]")
        if p.winners is not None:
            lines += [f"env = {env_list([], p.winners.nlocals)}", f"_s = set({inline(self.expr(p.winners.expr))})",
                      "_s.discard(None)", "winners = sorted(_s)"]
            if not fns:
                lines.append(f"ranking = [{', '.join(f'1 if {s} in winners else 2' for s in range(n))}]")
        else:  # (the checker asks for one or the other)
            lines += ["winners = []", *(f"if ranking[{s}] == 1: winners.append({s})" for s in range(n))]
        names = self.source.const(self.g.names)
        log = v.logged(f"st.event(0, 'game over: ' + (', '.join([{names}[_w] for _w in winners]) or 'nobody') + "
                       "(' win' if len(winners) > 1 else ' wins'))")
        return lines + ["st.ranking = ranking", "st.winners = winners", "st.over = True", "st.pending = -1",
                        "st.chooser = -1", "st.options = ()", "st._texts = None", *log]
