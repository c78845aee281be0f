"""Blocks: the straight stretches of a code's ops as one generated Python function each, run by
the machine (see docs/design.md, "Speed")."""

from __future__ import annotations

import ast as pyast
import re
from collections.abc import Callable

from ..engine.state import (
    CONTROL,
    HALT,
    JUMP,
    LEAF_DONE,
    RELOAD,
    STACKED,
    SUSPEND,
    SUSPENDED,
)
from .source import _STRING, Variant, env_list

# -- blocks: straight stretches of ops as one Python function

MAX_BLOCK = 32  # ops in one generated function; a longer stretch goes on in the next one
MAX_LINES = 120  # lines in one generated function, once jumps are followed


def block_function(game, code_id: int, pc: int) -> tuple[Callable, int, list[int]]:
    """One Python function running code `code_id` from `pc` to its first control op.

    TEST ops become early returns, so a stretch with `if`s and loop tests in it is still one call;
    a jump to a known place is followed (the code there is written next); a CONTROL op (a choose,
    a call, a return, an `end`) ends the block, and the machine saves the position after it. An
    early return's target is written in place too, under its `if`, when it is short (a tail): the
    other way of an `if`, the next round of a loop. Returns the function, the position after its
    last op, and the op of each line of its body (for errors). Source Python refuses is a fault of
    the writers, never of the rules: its SyntaxError goes up as it is, with the block's text.
    """
    code = game.codes[code_id]
    lines, owners, k = _region(game, code_id, pc)
    if game.tails:
        lines, owners = _tails(game, code_id, lines, owners, TAIL_DEPTH)
    lines = _ends_written(code, lines)
    if game.tails and not code.leaf:
        lines = _positions_kept(lines, k)
        lines, owners = _answered(game, code_id, lines, owners, pc, TAIL_DEPTH)
        lines, owners = _looped(lines, owners, pc)
    text = "def block(st, env):\n" + "".join(f"    {line}\n" for line in lines)
    scope: dict[str, object] = {}
    try:
        compiled = compile(text, f"<rules {code.name} @{pc}>", "exec")
    except SyntaxError as e:
        e.add_note(f"(an internal error: the block written for {code.name} @{pc})\n{text}")
        raise
    exec(compiled, game.namespace, scope)
    return scope["block"], k, owners


def op_lines(write) -> list[str]:
    """An op's lines in a machine block: its writer's lines for a run without a log and, if the
    writer asked about the log, for a run with one, tested at run time where they differ (only
    the lines that differ: most ops log one line, or none)."""
    unlogged = Variant()
    plain = write(unlogged)
    if not unlogged.log_asked:
        return plain
    logged = write(Variant(log=True))
    if plain == logged:
        return plain
    i = 0
    while i < min(len(plain), len(logged)) and plain[i] == logged[i]:
        i += 1
    j = 0
    while j < min(len(plain), len(logged)) - i and plain[-1 - j] == logged[-1 - j]:
        j += 1
    if not _apart(plain, logged, i, j):
        i = j = 0
    a, b = plain[i:len(plain) - j], logged[i:len(logged) - j]
    ind = _indent((a or b)[0])
    pad = " " * ind
    if not a and len(b) == 1 and not _COMPOUND.match(b[0].strip()):
        middle = [f"{pad}if st.log is not None: {b[0].strip()}"]
    elif not b:
        middle = [f"{pad}if st.log is None:", *(f"    {x}" for x in a)]
    else:
        middle = [f"{pad}{_LOGGED}", *(f"    {x}" for x in b),
                  *([f"{pad}else:", *(f"    {x}" for x in a)] if a else [])]
    return [*plain[:i], *middle, *plain[len(plain) - j:]]


_COMPOUND = re.compile(r"(if|elif|else|for|while|try|except|finally|with|def|class)\b")
_CLAUSE = re.compile(r"(elif|else|except|finally)\b")


def _size(lines: list[str]) -> int:
    """The lines of a stretch as the limits on what is written in place count them: a log's
    branch (op_lines) as two, its test and the one line that runs it, since a run without a log
    only tests it; a tail or a leaf is written in place when the lines most runs go through
    are few."""
    n = 0
    inside = -1  # the indent of the log's test whose branch is being skipped
    for line in lines:
        if inside >= 0 and _indent(line) > inside:
            continue
        inside = -1
        n += 1
        if line.strip() == _LOGGED:
            inside = _indent(line)
            n += 1
    return n


_LOGGED = "if st.log is not None:"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _apart(plain: list[str], logged: list[str], i: int, j: int) -> bool:
    """Whether the lines where two variants differ (after the first i lines, before the last j)
    are whole statements at one indent, which an `if` can hold."""
    middles = [x for x in (plain[i:len(plain) - j], logged[i:len(logged) - j]) if x]
    ind = _indent(middles[0][0])
    if any(_indent(m[0]) != ind or _CLAUSE.match(m[0].strip()) or min(map(_indent, m)) < ind for m in middles):
        return False
    if i:
        before = plain[i - 1]
        if (_indent(before) >= ind) == before.endswith(":"):
            return False
    if j:
        after = plain[len(plain) - j]
        if _indent(after) > ind or (_indent(after) == ind and _CLAUSE.match(after.strip())):
            return False
    return True


def _positions_kept(lines: list[str], end: int) -> list[str]:
    """A block that knows where its frame goes on records it itself, so the machine has nothing to
    do but go on: a wait or a halt records the block's end (SUSPENDED); a call records it in the
    caller's frame, a return leaves the caller's as its call recorded it (both STACKED, reload the
    top frame as it stands). Each changed line stays one line (the lines map to ops for errors)."""

    out = []
    for i, line in enumerate(lines):
        before = lines[i - 1].strip() if i else ""
        if line.endswith((f"return {SUSPEND}", f"return {HALT}")) and _WORD_END.search(line):
            line = line[: line.rindex("return ")] + f"st.stack[-1][1] = {end}; return {SUSPENDED}"
        elif line.strip() == f"return {RELOAD}" and before == "st.stack.pop()":
            line = line.replace(f"return {RELOAD}", f"return {STACKED}")
        elif line.strip() == f"return {RELOAD}" and before.startswith("st.stack.append(") and before.endswith(")"):
            line = line.replace(f"return {RELOAD}", f"st.stack[-2][1] = {end}; return {STACKED}")
        out.append(line.replace(f"(st.stack.pop(), {RELOAD})[1]", f"(st.stack.pop(), {STACKED})[1]"))
    return out


def _ends_written(code, lines: list[str]) -> list[str]:
    """A way out to the code's end (an `if` with nothing after it, a loop at the end) ends there at
    once, instead of returning its position for another trip through the machine."""
    ends = {}
    for line in lines:
        m = _GOTO.search(line)
        if m and int(m.group(1)) not in ends:
            t = int(m.group(1))
            ends[t] = _return_src(code, t)
    return [_GOTO.sub(lambda m: "return " + ends[int(m.group(1))], line)
            if (m := _GOTO.search(line)) and ends.get(int(m.group(1))) else line for line in lines]


def _goes_on(game, code_id: int, t: int, pc: int, depth: int) -> tuple[list[str], list[int]] | None:
    """After a decision answered in place, the code from t written there too when it is short (a
    tail, as `_tails` writes the other way of an `if`): one trip through the machine less. Its
    own decisions are answered in place in their turn (`depth` levels at most). None if t is the
    block's own start (it loops, `_looped`), or the code from t is long or reloads."""
    if t == pc or depth <= 0:
        return None
    tl, to, end = _region(game, code_id, t)
    if _size(tl) > MAX_TAIL:
        return None
    tl = _positions_kept(_ends_written(game.codes[code_id], tl), end)
    if tl[-1].endswith(f"return {RELOAD}"):
        return None
    return _answered(game, code_id, tl, to, pc, depth - 1)


def _answered(game, code_id: int, lines: list[str], owners: list[int], pc: int,
              depth: int) -> tuple[list[str], list[int]]:
    """In a playout (`State.playout`), a block that asks a decision answers it itself with the
    playout's pick and goes on, instead of a trip through the machine's loop: the same steps as
    the machine's (the move counted, the answer in the decision's local or, for the turn's
    decision, the chosen action entered (`_entered`), the step budget anew). The decision and the
    frame's position are recorded only where the state waits: the pick failed (a bad index, an
    error of its own) or the playout stops here; only the chooser is set for the pick to read."""

    out: list[str] = []
    own: list[int] = []
    i = 0
    while i < len(lines):
        line, owner = lines[i], owners[i]
        m = _ASKS.match(line)
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        after = lines[i + 2] if i + 2 < len(lines) else ""
        ret = f"return {SUSPENDED}"
        if m is not None:
            ind = m[1]
            pos = re.fullmatch(re.escape(ind) + r"st\.stack\[-1\]\[1\] = (\d+)(; " + ret + ")?", nxt)
            if pos is not None and (pos[2] or after == ind + ret):
                slot = game.decision_slot[int(m[2])] if int(m[2]) else -1
                ask = f"{line.strip()}; st.stack[-1][1] = {pos[1]}"
                taken = [f"env[{slot}] = _v[_i]; st.moves += 1; st.budget = st.step_limit", f"return {pos[1]}"] \
                    if int(m[2]) else _entered(game, int(pos[1]))
                taken_own = [owner] * len(taken)
                tail = _goes_on(game, code_id, int(pos[1]), pc, depth)
                if tail is not None:  # `return pos[1]` replaced by the code from there
                    for j in reversed([j for j, x in enumerate(taken) if x.strip() == f"return {pos[1]}"]):
                        lead = taken[j][: len(taken[j]) - len(taken[j].lstrip())]
                        taken[j:j + 1] = [lead + x for x in tail[0]]
                        taken_own[j:j + 1] = tail[1]
                head = [f"{ind}if st.pick is not None and st.moves != st.stop:", f"{ind}    st.chooser = {m[3]}",
                        f"{ind}    try: _i = st.pick(len(_v))", f"{ind}    except BaseException:",
                        f"{ind}        {ask}", f"{ind}        raise", f"{ind}    if 0 <= _i < len(_v):"]
                rest = [f"{ind}    {ask}", f"{ind}    _bad_pick(st, _i)", f"{ind}{ask}", ind + ret]
                out += [*head, *(f"{ind}        {x}" for x in taken), *rest]
                own += [owner] * len(head) + taken_own + [owner] * len(rest)
                i += 2 if pos[2] else 3
                continue
        out.append(line)
        own.append(owner)
        i += 1
    return out, own


def _looped(lines: list[str], owners: list[int], pc: int) -> tuple[list[str], list[int]]:
    """A block that goes on at its own start (a loop whose every round asks a decision, a turn
    after a leaf action, when a playout answers in place) loops in itself: `return pc` becomes
    `continue` in a `while True` around the block, instead of a trip through the machine to call
    the same block again. Only a return outside the block's own loops (an option loop, a leaf
    written in place), where `continue` means the same."""
    try:
        tree = pyast.parse("".join(line + "\n" for line in lines))
    except SyntaxError:
        return lines, owners  # block_function finds the error and says so
    found: list[pyast.Return] = []

    def visit(node: pyast.AST, looped: bool) -> None:
        if isinstance(node, pyast.Return):
            if not looped and isinstance(node.value, pyast.Constant) and node.value.value == pc:
                found.append(node)
            return
        if isinstance(node, (pyast.FunctionDef, pyast.AsyncFunctionDef, pyast.Lambda, pyast.ClassDef)):
            return
        for child in pyast.iter_child_nodes(node):
            visit(child, looped or isinstance(node, (pyast.For, pyast.While, pyast.AsyncFor)))

    visit(tree, False)
    if not found or any(node.end_lineno != node.lineno for node in found):
        return lines, owners
    out = list(lines)
    for node in sorted(found, key=lambda n: (n.lineno, -n.col_offset)):
        line = out[node.lineno - 1]
        out[node.lineno - 1] = line[: node.col_offset] + "continue" + line[node.end_col_offset:]
    return ["while True:"] + ["    " + line for line in out], [owners[0], *owners]


def leaf_run(game, code, pc: int, env: str) -> list[str]:
    """`run_leaf(st, code, env, pc)` written out: the leaf's block at pc called directly, the
    blocks it jumps to by a loop; STACKED returned if an `end` in it moved the frames."""

    const = game.const
    first = (code.blocks[pc] if pc < len(code.blocks) else None) or game.block(code.index, pc)
    return [f"_r = {const(first)}(st, {env})", "while _r >= 0:",
            f"    _r = ({const(code.blocks)}[_r] or {const(game.block_of)}({code.index}, _r))(st, {env})",
            f"if _r != {LEAF_DONE}: return {STACKED}"]


def _entered(game, end: int) -> list[str]:
    """The turn's decision answered in place (see `_answered`): the chosen action entered as the
    machine enters it. A leaf runs here to its end and the block goes on where the turn goes on
    after the action; any other action gets its frame, and the machine runs it."""

    out = ["st.moves += 1; st.budget = st.step_limit; st.stack[-1][1] = " + str(end), "_a, _x = _v[_i]"]
    for a, (code, nlocals, slot) in enumerate(game.action_entry):
        pc = 1 if slot >= 0 else 0
        out.append(f"{'if' if a == 0 else 'elif'} _a == {a}:")
        out.append(f"    _e = {env_list(['None'] * slot + ['_x'] if slot >= 0 else [], nlocals)}")
        if code.leaf:
            out += [f"    {line}" for line in leaf_run(game, code, pc, "_e")] + [f"    return {end}"]
        else:
            out.append(f"    st.stack.append([{code.index}, {pc}, _e]); return {STACKED}")
    return out


_ASKS = re.compile(r"^(\s*)st\.pending = (\d+); st\.chooser = ([^;]+); st\.options = tuple\(_v\); st\._texts = None$")
_WORD_END = re.compile(r"(^|[\s:;])return -\d$")
TAIL_DEPTH = 2  # tails written inside tails, at most
MAX_TAIL = 40  # lines of a tail written in place
_EARLY = re.compile(r"^(\s*)(if .*): return (\d+)$")


def _region(game, code_id: int, pc: int) -> tuple[list[str], list[int], int]:
    """The lines of a block from pc (see block_function), the op of each, and the position after
    its last op."""

    code = game.codes[code_id]
    lines: list[str] = []
    owners: list[int] = []
    k = pc
    n = len(code.kinds)
    emitted = 0
    while True:
        emitted += 1
        kind = code.kinds[k]
        body = [line.replace("@NEXT@", str(k + 1)) for line in op_lines(code.srcs[k])]
        if kind == JUMP and body[-1].startswith("return ") and body[-1][7:].isdigit() and _size(lines) < MAX_LINES:
            # A jump to a known place: go on writing from there (the next block starts there anyway).
            lines.extend(body[:-1])
            owners.extend([k] * (len(body) - 1))
            k = int(body[-1][7:])
            if emitted >= MAX_BLOCK or k >= n:
                lines.append(f"return {k}")
                owners.append(owners[-1] if owners else pc)
                break
            continue
        lines.extend(body)
        owners.extend([k] * len(body))
        k += 1
        if kind in (JUMP, CONTROL):
            break
        if emitted >= MAX_BLOCK or k >= n:
            lines.append(f"return {k}")
            owners.append(k - 1)
            break
    return lines, owners, k


def _tails(game, code_id: int, lines: list[str], owners: list[int], depth: int) -> tuple[list[str], list[int]]:
    """Write short tails in place of early returns (`if C: return N` becomes `if C:` and the block
    from N). A tail that stops to wait for a decision or calls a procedure records where its frame
    goes on itself (the machine would record the end of the outer block), so it returns SUSPENDED
    or STACKED instead (`_positions_kept`, with the tail's own end)."""

    out: list[str] = []
    own: list[int] = []
    for line, owner in zip(lines, owners, strict=True):
        m = _EARLY.match(line) if depth > 0 else None
        tail = None
        if m:
            t = int(m.group(3))
            tl, to, end = _region(game, code_id, t)
            if _size(tl) <= MAX_TAIL:
                # Where the tail's frame goes on is the tail's end, not the outer block's: recorded
                # in place; a RELOAD left (a frame changed some other way) keeps the tail out.
                kept = _positions_kept(tl, end)
                if not kept[-1].endswith(f"return {RELOAD}"):
                    tail, to = _tails(game, code_id, kept, to, depth - 1)
        if tail is None:
            out.append(line)
            own.append(owner)
            continue
        ind = m.group(1)
        out.append(f"{ind}{m.group(2)}:")
        own.append(owner)
        out.extend(f"{ind}    {x}" for x in tail)
        own.extend(to)
    return out, own


_GOTO = re.compile(r"\breturn (\d+)$")


def _return_src(code, k: int) -> str | None:
    """If op k of `code` is its return (a frame's end, or a leaf's), what a block returns there."""

    if k >= len(code.kinds) or code.kinds[k] != CONTROL:
        return None
    body = code.srcs[k](Variant())
    if body == ["st.stack.pop()", f"return {RELOAD}"]:
        return f"(st.stack.pop(), {RELOAD})[1]"
    if body == [f"return {LEAF_DONE}"]:
        return str(LEAF_DONE)
    return None


MAX_INLINE = 40  # lines of a leaf written in place of its call
_RETURN = re.compile(r"\breturn\b(.*)$")
_inlined = [0]  # leaves written in place so far: each one's locals get a list name of their own


def leaf_lines(game, code_id: int, args: list[str]) -> list[str] | None:
    """A leaf's code written in place of its call (no block to call, no loop over its blocks),
    when its first block is the whole leaf and every way out of it is the leaf's end (a `break`
    out of a `while True:` here) or a STACKED return (returned by the caller as it is). Its locals
    start as `args` (the rest none): Python locals of their own where the lines read them only as
    `env[k]`, else a list; an error in these lines is located in the leaf, as its own block would
    be (`_leaf_error`). None where the leaf is not such a block."""

    code = game.codes[code_id]
    lines, owners, _ = _region(game, code_id, 0)
    if _size(lines) > MAX_INLINE:
        return None
    if game.tails:
        lines, owners = _tails(game, code_id, lines, owners, TAIL_DEPTH)
        if _size(lines) > MAX_INLINE:
            return None
    _inlined[0] += 1
    env = f"_e{_inlined[0]}"
    out: list[str] = []
    loops: list[int] = []  # the indents of the loops around a line
    for line in lines:
        indent = len(line) - len(line.lstrip())
        while loops and indent <= loops[-1]:
            loops.pop()
        strings = _STRING.findall(line)
        if any(x[0] in "fF" or x[:2].lower() in ("rf", "fr") for x in strings if "{" in x):
            return None  # (a name inside an f-string's braces would not be renamed below)
        parts = _STRING.split(line)
        line = "".join(re.sub(r"\benv\b", env, part) + (strings[i] if i < len(strings) else "")
                       for i, part in enumerate(parts))
        ret = _RETURN.search(line)
        if ret is not None:
            value = ret.group(1).strip()
            if value == str(STACKED):
                pass
            elif value == str(LEAF_DONE) or (value.isdigit() and _return_src(code, int(value)) == str(LEAF_DONE)):
                if loops:
                    return None  # (a `break` there would leave that loop only)
                line = line[: ret.start()] + "break"
            else:
                return None
        if re.match(r"(?:for|while) .*:$", line.strip()):
            loops.append(indent)
        out.append(line)
    values = list(args) + ["None"] * (code.nlocals - len(args))
    names = ", ".join(f"{env}_{i}" for i in range(len(values)))
    if values and not any(re.search(rf"\b{env}\b(?!\[\d+\])", part) for line in out
                          for part in _STRING.split(line)):
        # The locals are read and written as `env[k]`, k written out: they are Python's own.
        out = ["".join(re.sub(rf"\b{env}\[(\d+)\]", rf"{env}_\1", part) + (strings[i] if i < len(strings) else "")
                       for i, part in enumerate(_STRING.split(line)))
               for line in out for strings in [_STRING.findall(line)]]
        first = f"{names} = {', '.join(values)}"
    else:
        first = f"{env} = [{', '.join(values)}]"
    return [first, "try:", "    while True:", *(f"        {line}" for line in out),
            f"except {_CAUGHT} as _x:",
            f"    _leaf_error(st, _x, {code_id}, {tuple(owners)!r}, {len(out)})"]


# The errors the machine locates (state.LOCATED).
_CAUGHT = "_LOCATED"
