"""Blocks: the straight stretches of a code's ops as one generated Python function each, run by
the machine (see docs/design.md, "Speed")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..engine.constants import CONTROL, JUMP, LEAF_DONE, RELOAD, STACKED, SUSPEND, SUSPENDED
from .source import ENV, Logged, Naming, Variant, code_of, env_list, named

MAX_BLOCK = 32  # ops in one generated function; a longer stretch goes on in the next one
MAX_LINES = 120  # lines in one generated function, once jumps are followed
TAIL_DEPTH = 2  # tails written inside tails, at most
MAX_TAIL = 40  # lines of a tail written in place
MAX_INLINE = 40  # lines of a leaf written in place of its call
_LOGGED = "if st.log is not None:"


def block_function(game, code_id: int, pc: int) -> tuple[Callable, int, list[int]]:
    """One Python function running code `code_id` from `pc` to its first control op, the position
    after its last op, and each line's op (for errors). TEST ops are early returns, so a stretch
    with `if`s and loops is one call."""
    code = game.codes[code_id]
    # A frame's block (not a leaf's) records where its frame goes on, and loops to its own start.
    lay = _Layout(game, code_id, pc, kept=game.tails and not code.leaf, tails=TAIL_DEPTH if game.tails else 0)
    with named(ENV):  # (its locals are its frame's, even when a leaf written in place calls it)
        items, owners, k = _region(game, code_id, pc)
        lines, owners = _written(lay, items, owners)
    if lay.looped[0]:
        lines, owners = ["while True:", *(f"    {line}" for line in lines)], [owners[0], *owners]
    return defined("def block(st, env):", lines, f"{code.name} @{pc}", game.namespace), k, owners


def defined(head: str, lines: list[str], where: str, names: dict) -> Callable:
    """The one function `head` and its `lines` define, its globals `names`. A SyntaxError is the
    writers' fault, never the rules': it goes up with the text."""
    text = head + "\n" + "".join(f"    {line}\n" for line in lines)
    try:
        compiled = code_of(text, f"<rules {where}>", "exec")
    except SyntaxError as e:
        e.add_note(f"(an internal error: the source written for {where})\n{text}")
        raise
    scope: dict[str, object] = {}
    exec(compiled, names, scope)
    return next(iter(scope.values()))


def op_lines(write) -> list[Item]:
    """An op's items in a machine block, each Logged item as a test of `st.log` at run time."""
    out: list[Item] = []
    for item in write(Variant(log=True)):
        if not isinstance(item, Logged):
            out.append(item)
        elif isinstance(item.logged, str):
            out.append(f"{item.ind}if st.log is not None: {item.logged}")
        else:  # (a log's lines and the plain ones are lines alone: no way out)
            out += [f"{item.ind}{_LOGGED}", *(f"    {x}" for x in item.logged),
                    *([f"{item.ind}else:", *(f"    {x}" for x in item.plain)] if item.plain else [])]
    return out


def _size(lines: list[Item]) -> int:
    """The lines of a stretch as the limits on what goes in place count them: the lines most runs
    go through (a log's branch as two: a run without a log only tests it)."""
    n = 0
    inside = -1  # the indent of the log's test whose branch is being skipped
    for line in lines:
        ind = len(line) - len(line.lstrip()) if isinstance(line, str) else len(line.ind)
        if inside >= 0 and ind > inside:
            continue
        inside = -1
        n += 1 if isinstance(line, (str, Goto, Branch, LeafDone)) else 2
        if isinstance(line, str) and line.strip() == _LOGGED:
            inside = ind
            n += 1
    return n


def leaf_run(game, code, args: list[str]) -> list[str]:
    """`run_leaf(st, code, env, 0)` written out, its env `args` (the rest none); STACKED returned if
    an `end` in it moved the frames."""
    const = game.const
    first = (code.blocks[0] if code.blocks else None) or game.block(code.index, 0)
    return [f"_e = {env_list(args, code.nlocals)}", f"_r = {const(first)}(st, _e)", "while _r >= 0:",
            f"    _r = ({const(code.blocks)}[_r] or {const(game.block_of)}({code.index}, _r))(st, _e)",
            f"if _r != {LEAF_DONE}: return {STACKED}"]


@dataclass(frozen=True)
class _Exit:
    """An op's way out, as data: the block writer writes it for where the op stands (`_Layout`)."""

    ind: str = field(default="", kw_only=True)  # the way out's indent in its op's lines


@dataclass(frozen=True)
class Goto(_Exit):
    """Go on at op `to` (a JUMP: a loop's way back, an `if`'s way past its other branches)."""

    to: int


@dataclass(frozen=True)
class Branch(_Exit):
    """If `test` holds, go on at op `to` (after `first`, a statement run on the way)."""

    test: str
    to: int
    first: str = ""


class Pop(_Exit):
    """The code's return: its frame goes, and the caller's goes on."""


class LeafDone(_Exit):
    """A leaf's code ran to its end."""


@dataclass(frozen=True)
class Push(_Exit):
    """A call with a frame: `frame` (the source of [code, pc, locals]) goes on the stack."""

    frame: str


@dataclass(frozen=True)
class Ask(_Exit):
    """A decision (its options in `_v`): the state waits, its frame after this op."""

    decision: int
    chooser: str


class Halt(_Exit):
    """The game's end: the state stops, its frame after this op."""


Exit = Goto | Branch | Pop | LeafDone | Push | Ask | Halt
Item = str | Exit  # a line of an op, or its way out


class _NoInline(Exception):
    """A way out that a leaf written in place cannot take (see leaf_lines)."""


@dataclass
class _Layout:
    """Where ops are written: `kept`, the block records its frame's position (not a leaf's block);
    `tails`, the levels of tails that may still go in place; `leaf`, in its caller (ends `break`)."""

    game: object
    code_id: int
    pc: int
    kept: bool
    tails: int
    leaf: bool = False
    looped: list = field(default_factory=lambda: [False])  # whether a `continue` was written (shared)


def _region(game, code_id: int, pc: int) -> tuple[list[Item], list[int], int]:
    """The items of a block from pc, the op of each, and the position after its last op."""
    code = game.codes[code_id]
    lines: list[Item] = []
    owners: list[int] = []
    k = pc
    emitted = 0
    while True:
        emitted += 1
        kind = code.kinds[k]
        body = op_lines(code.srcs[k])
        follow = kind == JUMP and _size(lines) < MAX_LINES  # a jump to a known place: write on from there
        to = body.pop().to if follow else k + 1
        lines += body
        owners += [k] * len(body)
        if kind in (JUMP, CONTROL) and not follow:
            return lines, owners, to
        if emitted >= MAX_BLOCK or to >= len(code.kinds):
            lines.append(Goto(to))
            owners.append(k if not follow else owners[-1] if owners else pc)
            return lines, owners, to
        k = to


def _written(lay: _Layout, items: list[Item], owners: list[int]) -> tuple[list[str], list[int]]:
    """The lines of ops' items, each way out written for the layout."""
    out: list[str] = []
    own: list[int] = []
    for item, owner in zip(items, owners, strict=True):
        if isinstance(item, Branch):
            lines, by = _branch(lay, item, owner)
        else:
            lines = [item] if isinstance(item, str) else [item.ind + x for x in _exit(lay, item, owner)]
            by = [owner] * len(lines)
        out += lines
        own += by
    return out, own


def _exit(lay: _Layout, item: Exit, owner: int) -> list[str]:
    """A way out that ends the op (its lines, unindented)."""
    if isinstance(item, Goto):
        return [_jump(lay, item.to)]
    if isinstance(item, LeafDone):
        return ["break" if lay.leaf else f"return {LEAF_DONE}"]
    if isinstance(item, Pop):  # (a leaf's code has none of the rest: no frame, no decision)
        return ["st.stack.pop()", f"return {STACKED if lay.kept else RELOAD}"]
    if isinstance(item, Push):
        # A block that knows where its frame goes on records it itself, in the caller's frame.
        back = f"st.stack[-2][1] = {owner + 1}; return {STACKED}" if lay.kept else f"return {RELOAD}"
        return [f"st.stack.append({item.frame})", back]
    if isinstance(item, Ask):  # (the state waits; in a playout, the machine's loop answers it)
        asked = f"st.pending = {item.decision}; st.chooser = {item.chooser}; st.options = tuple(_v); st._texts = None"
        if not lay.kept:
            return [asked, f"return {SUSPEND}"]
        return [f"{asked}; st.stack[-1][1] = {owner + 1}", f"return {SUSPENDED}"]
    assert isinstance(item, Halt)
    return [f"st.stack[-1][1] = {owner + 1}", f"return {SUSPENDED}"]


def _jump(lay: _Layout, t: int) -> str:
    """Going on at op t, as one statement: a `break` at a leaf's end written in place; the code's
    return at once; `continue` to the block's own start; else t returned to the machine."""
    srcs = lay.game.codes[lay.code_id].srcs
    write = srcs[t] if t < len(srcs) else None  # (the code's return is known by its writer)
    if lay.leaf:
        if write is not write_leaf_done:
            raise _NoInline
        return "break"
    if write is write_pop:
        return f"return (st.stack.pop(), {STACKED if lay.kept else RELOAD})[1]"
    if write is write_leaf_done:
        return f"return {LEAF_DONE}"
    if lay.kept and t == lay.pc:
        lay.looped[0] = True
        return "continue"
    return f"return {t}"


def _branch(lay: _Layout, item: Branch, owner: int) -> tuple[list[str], list[int]]:
    """`if test:` and the way to `to`: the code from there in place when short (a tail), else a jump."""
    ind = item.ind
    if not item.first and lay.tails > 0:
        tail, owners, _ = _region(lay.game, lay.code_id, item.to)
        if _size(tail) <= MAX_TAIL:
            lines, owners = _written(replace(lay, tails=lay.tails - 1), tail, owners)
            return [f"{ind}if {item.test}:", *(f"{ind}    {x}" for x in lines)], [owner, *owners]
    first = f"{item.first}; " if item.first else ""
    return [f"{ind}if {item.test}: {first}{_jump(lay, item.to)}"], [owner]


def write_pop(v: Variant) -> list[Item]:
    """The writer of a code's end (or `return`) in a code with a frame."""
    return [Pop()]


def write_leaf_done(v: Variant) -> list[Item]:
    """The writer of a leaf's end (or `return`)."""
    return [LeafDone()]


_inlined = [0]  # leaves written in place so far: each one's locals get a list name of their own


def leaf_lines(game, code_id: int, args: list[str]) -> list[str] | None:
    """A leaf's code written in place of its call (None unless one short block whose every way out
    is the leaf's end), its locals Python locals (`_e4_3`; one without locals, an empty list `_e4`);
    an error in it is located in the leaf (`_leaf_error`)."""
    code = game.codes[code_id]
    _inlined[0] += 1
    env = f"_e{_inlined[0]}"
    values = list(args) + ["None"] * (code.nlocals - len(args))

    whole = not values
    try:
        with named(Naming(env) if whole else Naming(None, f"{env}_")):
            items, ops, _ = _region(game, code_id, 0)
            if _size(items) > MAX_INLINE:
                return None
            lines, owners = _written(_Layout(game, code_id, 0, kept=False, tails=TAIL_DEPTH, leaf=True), items, ops)
    except _NoInline:
        return None
    if _size(lines) > MAX_INLINE:
        return None
    first = f"{env} = [{', '.join(values)}]" if whole \
        else f"{', '.join(f'{env}_{i}' for i in range(len(values)))} = {', '.join(values)}"
    return [first, "try:", "    while True:", *(f"        {line}" for line in lines),
            "except _LOCATED as _x:",  # (the errors the machine locates: machine.LOCATED)
            f"    _leaf_error(st, _x, {code_id}, {tuple(owners)!r}, {len(lines)})"]
