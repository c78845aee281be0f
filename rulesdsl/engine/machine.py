"""The machine that runs compiled rules on a State, and the playouts that drive it.

`Machine` is a part of `State` (state.py), not an object of its own: its methods read and write
the state's fields on every step (the stack, the options, the step budget, the playout's pick),
and the hot ones (`_advance`, `playout`, `tick`) are called as the state's own methods by
apply_index and by generated code (`st.tick()`), so a collaborator would cost a call level a
step. As a base class they are found by the same cached look-up as a method of State itself.

The machine's helpers the back-end and tools name (rules_message, LOCATED, random_draw, _FAILED,
run_leaf) live here, and are imported from here.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..errors import IllegalMove, RulesRuntimeError
from .constants import LEAF_DONE, RELOAD, STACKED

_FAILED = object()  # recorded by a straight run where its pick raised (see Machine._straight)
_STRAIGHT_FROM = 200  # a playout's limit from which it runs the rules straight (see Machine.playout)
# What a straight run's failure keeps rather than puts back from the copy taken where it began:
# the game, the playout's pick and stop, and the step budget (which a copy does not keep).
_KEPT = frozenset(("game", "pick", "stop", "budget", "draw", "free"))


class Machine:
    """The state's machine: `_advance` runs the code on the stack up to a decision; `playout`
    plays many moves in one call; `tick` keeps the rules from looping for ever. The fields are
    State's (state.py)."""

    __slots__ = ()

    def playout(self, pick: Callable[[int], int], limit: int | None = None, *, forced: bool = True) -> int:
        """Play moves chosen by `pick(n)` (an index below n, the number of options: a
        `random.Random`'s randrange, say) until the game ends or `limit` more moves were played;
        returns the moves played. The same moves as `apply_index(pick(num_moves()))` in a loop, but
        without a call into the state per move: random playouts (simulations, search bots) run
        here. `forced=False` plays a decision with a single option without asking `pick`. While
        `pick` runs, `self.chooser` is the seat that decides (a pick per seat can read it); the
        options are recorded only where the state stops, so `pick` gets their number alone.
        Without a log, and with no limit or a far one, the rules run compiled straight from the
        first turn's decision (straight.py): the same moves and states, faster."""
        if limit is not None and limit < 0:
            raise ValueError(f"a playout's limit must be at least 0 (got {limit})")
        start = self.moves
        stop = start + limit if limit is not None else -1
        if self.log is not None:
            while not self.over and self.moves != stop:
                n = len(self.options)
                self.apply_index(pick(n) if forced or n > 1 else 0)
        elif not self.over and self.moves != stop:
            # The machine's loop answers with `self.pick` where it stops at a decision.
            self.pick = pick if forced else (lambda n: pick(n) if n > 1 else 0)
            # A limit far ahead (a cap that keeps a game from running for ever) lets the rules run
            # straight: a straight run that meets it stops, and the machine plays the game again to
            # it. A near one is the machine's from the start.
            g = self.game
            straight = g.write_straight(g, stop < 0) if stop < 0 or limit >= _STRAIGHT_FROM else None
            try:
                if straight is None:
                    self.stop = stop
                    self._advance(self._picked())
                else:
                    # The machine up to a turn's decision, a decision at a time; straight from there.
                    # A game without actions has none: its turns' first op stops the machine as a
                    # turn starts (free == 2), with no options.
                    if g.turn_resume < 0:
                        self.free = 2
                    while not self.over and self.pending != 0 and self.options and self.moves != stop:
                        self.stop = self.moves + 1
                        self._advance(self._picked())
                    self.stop = stop
                    if not self.over and self.moves != stop:
                        self.draw, self.free = random_draw(pick), 0 if forced else 1
                        self._straight(straight)
            finally:
                self.pick = None
                self.stop = -1
                self.draw, self.free = None, 0
        return self.moves - start

    def end_now(self) -> bool:
        """End the game here, as if an end test held after this turn: the round's end and the
        game's run, then the winners and the ranking are worked out. What the game would give if
        it stopped now: an evaluation of a position by the rules' own scoring, for a search. False
        if the end could not be reached (a `choose` in those hooks, or a rule that failed there);
        the state is then no longer one to play on. For a copy: the state's own game is over."""
        if self.over:
            return True
        self.stack = [[0, self.game.end_at, self.stack[0][2]]]
        self.pending, self.chooser, self.options, self._texts = -1, -1, (), None
        try:
            self._advance(-1)
        except RulesRuntimeError:
            return False
        return self.over

    def _straight_alone(self, run: Callable, picks: list) -> None:
        """The straight run, which records its picks in `picks` and counts its moves by them: the
        playout's limit is a number of picks while it lasts, and the moves are added as it ends
        (but a pick that raised, marked _FAILED)."""
        stop = self.stop
        self.stop = stop - self.moves if stop >= 0 else -1
        try:
            run(self, picks)
        finally:
            self.stop = stop
            self.moves += len(picks) - (1 if picks and picks[-1] is _FAILED else 0)

    def _straight(self, run: Callable) -> None:
        """Play to the end with the rules compiled straight (straight.py) from a turn's decision.
        If the run stops on anything out of the ordinary, the state goes back to where it began
        and the machine plays the same game again with the picks the run was given, so the end
        (a state, an error and its line) is the machine's own."""
        snap, budget = self.clone(), self.budget
        picks: list = []
        try:
            self._straight_alone(run, picks)
            return
        except BaseException as e:  # (given back below, where the machine meets it)
            failure = e
        for name in self.__slots__:
            if name not in _KEPT:
                setattr(self, name, getattr(snap, name))
        self.budget = budget
        given = iter(picks)
        pick = self.pick

        def replay(n: int) -> int:
            for i in given:
                if i is _FAILED:
                    raise failure
                return i
            if not isinstance(failure, Exception):  # an interrupt: where the picks ran out
                raise failure
            return pick(n)

        self.pick = replay
        self._advance(self._picked() if self.options else -1)  # (-1: from a turn's start, no decision)

    def _picked(self) -> int:
        """The playout's pick among the pending decision's options, checked."""
        i = self.pick(len(self.options))
        if i >= len(self.options) or i < 0:
            bad_pick(self, i)
        return i

    def _run(self, log_start: int | None = None, i: int = -1) -> None:
        """`_advance` with the log: then the log's events of this step told who saw their cards."""
        start = log_start if log_start is not None else len(self.log) if self.log is not None else 0
        before = self.chooser
        try:
            self._advance(i)
            if self.log is not None and not self.over:
                self._out_of_turn(before)
        finally:
            if self.log is not None and len(self.log) > start:
                known = self.known
                for k in range(start, len(self.log)):
                    ev = self.log[k]
                    if ev[3]:
                        self.log[k] = ev[:4] + (tuple(m | known[c] for c, m in zip(ev[3], ev[4], strict=True)),) \
                            + ev[5:]

    def _out_of_turn(self, before: int) -> None:
        """Tell the table when a decision goes to a seat whose turn it is not (a reaction window,
        a duty passed on): once as it comes to that seat. A secret decision is told by its move."""
        seat, g = self.chooser, self.game
        if seat < 0 or seat == self.current or seat == before or self.pending < 0 or g.decisions[self.pending].secret:
            return
        when = "before the first turn" if self.turn == 0 else f"in {g.names[self.current]}'s turn"
        self.event(0, f"{g.names[seat]} to decide {when}")

    def _advance(self, i: int) -> None:
        """The machine: play option i of the pending decision (none if i < 0), then run the code on
        the stack up to the next decision or the end of the game. In a playout (`self.pick` set),
        go on with the pick's answer at each decision until the game ends or `self.stop` moves
        were played. Every way to a decision or to the end sets the options (and their texts) anew."""
        g = self.game
        codes = g.codes
        blocks_of = g.code_blocks
        stack = self.stack
        slots = g.decision_slot
        while True:
            frame = stack[-1]
            if i < 0:
                env = frame[2]
                pc = frame[1]
            else:
                pending = self.pending
                value = self.options[i]
                self.pending = -1
                self.moves += 1
                if pending:
                    env = frame[2]
                    env[slots[pending]] = value
                    pc = frame[1]
                else:
                    # The turn decision: (action, value of its leading choose); enter its code.
                    code, nlocals, slot = g.action_entry[value[0]]
                    env = [None] * nlocals
                    pc = 0
                    if slot >= 0:
                        env[slot] = value[1]
                        pc = 1
                    if code.leaf:
                        self.budget = self.step_limit
                        try:
                            run_leaf(self, code, env, pc)  # an `end` in it may move the frames on
                        except Exception as e:
                            raise self._located(e, code.index, pc) from None
                        frame = stack[-1]
                        env = frame[2]
                        pc = frame[1]
                    else:
                        frame = [code.index, pc, env]
                        stack.append(frame)
            self.budget = self.step_limit
            blocks = blocks_of[frame[0]]
            try:
                while True:
                    # A block runs the ops from pc up to a jump or a control op; it returns where
                    # to go on (>= 0) or, from its last op, one of the codes below (constants.py).
                    block = blocks[pc]
                    if block is None:
                        block = g.block(frame[0], pc)
                    r = block(self, env)
                    if r == -6:  # SUSPENDED: the block recorded its frame's position itself
                        break
                    if r >= 0:
                        pc = r
                        continue
                    if r != -4:  # not STACKED (an `end` set the frames and their positions)
                        frame[1] = codes[frame[0]].ends[pc]  # the frame goes on after the block's last op
                        if r != RELOAD:
                            break
                    frame = stack[-1]
                    blocks = blocks_of[frame[0]]
                    env = frame[2]
                    pc = frame[1]
            except Exception as e:
                raise self._located(e, frame[0], pc) from None
            if self.pick is None or not self.options or self.moves == self.stop:  # (no options: over)
                return
            i = self._picked()

    def _located(self, e: Exception, code_id: int, pc: int) -> Exception:
        """A runtime error of the rules, located at the line of the rules that raised it; the state
        waits for no decision any more. Errors of Python's that are not the rules' go through."""
        if isinstance(e, IllegalMove) or not _raised_by_rules(e):
            return e  # a playout's pick gave no option, or failed itself: the state still waits
        self.options = ()
        self._texts = None
        if isinstance(e, RulesRuntimeError) and e.span is not None:
            return e
        if isinstance(e, LOCATED):
            return RulesRuntimeError(rules_message(e), self.game.error_span(e, code_id, pc, self))
        return e

    def tick(self) -> None:
        """Called on every backward jump and new turn: a rule that loops with no decision stops here."""
        self.budget -= 1
        if self.budget < 0:
            raise RulesRuntimeError(
                f"the rules ran {self.step_limit} loop steps or turns without asking anyone to decide; "
                "is there a loop that never ends, or a turn in which nobody can act? "
                "(to allow more: --limit steps=N)"
            )


def random_draw(pick: Callable) -> Callable[[int], int] | None:
    """`pick`'s generator's getrandbits if `pick` is the randrange of a `random.Random` (not a
    subclass, which may draw otherwise), else None. randrange(n) is then getrandbits(k) for k the
    bits of n, drawn again while it is n or more; a straight run draws so itself and saves two
    Python calls a decision. Checked once against this Python's randrange: if they differ, None."""
    owner = getattr(pick, "__self__", None)
    if type(owner) is not random.Random or getattr(pick, "__func__", None) is not random.Random.randrange:
        return None
    global _DRAWS_AS_RANDRANGE
    if _DRAWS_AS_RANDRANGE is None:
        a, b = random.Random(2026), random.Random(2026)

        def drawn(n: int) -> int:
            i = b.getrandbits(n.bit_length())
            while i >= n:
                i = b.getrandbits(n.bit_length())
            return i

        _DRAWS_AS_RANDRANGE = all(a.randrange(n) == drawn(n) for n in (*range(1, 70), 1000, 4097) * 3)
    return owner.getrandbits if _DRAWS_AS_RANDRANGE else None


_DRAWS_AS_RANDRANGE: bool | None = None


# The errors of running rules the machine locates in the rules file (a none where a card or a
# player must be, a division by zero, an error of a rule's own).
LOCATED = (RulesRuntimeError, TypeError, ValueError, IndexError, ZeroDivisionError, KeyError, OverflowError)


_PACKAGE = __file__.rsplit("engine", 1)[0]  # this package's directory


def _raised_by_rules(e: BaseException) -> bool:
    """Did `e` come from running the rules (generated code, the engine, Python's own operations
    on them), not from a function a caller gave (a playout's pick)?"""
    tb = e.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return last is None or last.startswith(("<rules", _PACKAGE))


def bad_pick(st: Machine, i: int) -> None:
    """A playout's pick gave a number that is no option (the block has recorded its position)."""
    raise IllegalMove(f"move number {i} does not exist; there are {len(st.options)}")


def rules_message(e: BaseException) -> str:
    """What a runtime error of the rules says, in the words of the rules, not of Python."""
    if isinstance(e, RulesRuntimeError):
        return str(e).removeprefix("runtime error: ")
    msg = str(e)
    if "NoneType" in msg:
        return "a value here is none (the top of an empty zone, or a variable never set?)"
    if isinstance(e, ZeroDivisionError):
        return "division by zero"
    return msg


def run_leaf(st: Machine, code, env: list, pc: int = 0) -> int | None:
    """Run a leaf's code (one that never waits for a decision) to its end, as a call within the
    running block: None, or STACKED if an `end` in it set the stack's frames (the caller's block
    must then stop and the machine reload the top frame)."""
    blocks = code.blocks
    while True:
        block = blocks[pc]
        if block is None:
            block = st.game.block(code.index, pc)
        r = block(st, env)
        if r >= 0:
            pc = r
            continue
        return None if r == LEAF_DONE else STACKED
