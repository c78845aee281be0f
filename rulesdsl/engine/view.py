"""What one seat may see, as text: its view of the table and its log of events.

Everything here reads only what the seat knows (a card's knowledge bitmask), so the CLI, bots'
information states and tests share one honest rendering. `reveal=True` is a spectator's view.
It reads a State, so it sits above state.py; `State.view` and `State.events_for` come here through
the game (game.py imports this module where it is used), and state.py imports nothing of it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from .constants import GRID, HAND, PUBLIC
from .state import State

LONG_PILE = 12
# Holds two words together on one line when a row is wrapped to the terminal's width.
GLUE = "\xa0"


def render_event(st: State, ev: tuple, viewer: int) -> str:
    _turn, _level, text, cards, masks = ev[:5]
    if len(ev) > 5:  # secret values: their words to those who know them, to the others their stand-in
        for words, knows, other in ev[5]:
            text = text.replace("\0", words if viewer < 0 or knows >> viewer & 1 else other, 1)
    if not cards:
        return text
    g = st.game
    if masks is None:
        masks = tuple(st.known[c] for c in cards)
    faces = [g.card_text[c] if viewer < 0 or m >> viewer & 1 else "?" for c, m in zip(cards, masks, strict=True)]
    if len(faces) > 1 and text.count("{}") == len(faces):
        for f in faces:  # one hole per card (a `say` message)
            text = text.replace("{}", f, 1)
        return text
    return text.replace("{}", " ".join(faces), 1)


def _face(st: State, c: int | None, viewer: int, reveal: bool, hide: frozenset = frozenset()) -> str:
    if c is None:
        return "_"
    if reveal or (st.known[c] >> viewer & 1 and c not in hide):
        return st.game.card_text[c]
    if st.partial and c not in hide:
        return st.game.partial_text(st, c, viewer) or "?"
    return "?"


def _group(faces: list[str]) -> str:
    """'4 4 4 5' -> '4×3 5', for unordered zones."""
    out: list[str] = []
    counts: dict[str, int] = {}
    for f in faces:
        counts[f] = counts.get(f, 0) + 1
    for f, k in counts.items():
        out.append(f if k == 1 else f"{f}×{k}")
    return " ".join(out)


def zone_text(st: State, zi: int, viewer: int, reveal: bool = False, hide: frozenset = frozenset()) -> str:
    text = _zone_text(st, zi, viewer, reveal, hide)
    if st.where and not reveal and 0 <= viewer < st.game.players:
        held = [c for c in st.whereabouts(viewer).get(zi, ()) if c not in hide]
        if held:  # (a card it knew before the zone was shuffled: which one of its places, unknown)
            text += f"; holds {' '.join(st.game.card_text[c] for c in held)} somewhere"
    return text


def _zone_text(st: State, zi: int, viewer: int, reveal: bool, hide: frozenset) -> str:
    g = st.game
    cards = st.zones[zi]
    if g.zone_shape[zi] == GRID:
        if not cards:
            return "no places"
        return "  ".join(f"{i + 1}:{_face(st, c, viewer, reveal, hide)}" for i, c in enumerate(cards))
    if not cards:
        return "empty"
    n = len(cards)
    if g.zone_shape[zi] == HAND:
        ordered = sorted(cards, key=lambda c: (g.card_face[c], c))
        known = [c for c in ordered if reveal or (st.known[c] >> viewer & 1 and c not in hide)]
        if len(known) == n:
            return _group([g.card_text[c] for c in ordered])
        faces = [g.card_text[c] for c in known]
        if st.partial:  # (then the cards of which the viewer knows some attributes)
            faces += sorted(f for f in (_face(st, c, viewer, reveal, hide) for c in ordered if c not in known)
                            if f != "?")
        if not faces:
            return f"{n} card{'s' if n > 1 else ''}"
        return f"{n} cards; known: {_group(faces)}"
    # A stack, bottom to top.
    faces = [_face(st, c, viewer, reveal, hide) for c in cards]
    if all(f == "?" for f in faces):
        return f"{n} card{'s' if n > 1 else ''}, face down"
    if len(set(faces)) == 1:
        return f"{faces[0]}×{n}" if n > 1 else faces[0]
    if g.zone_vis[zi] != PUBLIC and sum(f != "?" for f in faces) < n:
        known = [f for f in faces if f != "?"]
        return f"{n} cards, face down; known: {' '.join(known)}"
    if n > LONG_PILE:
        return f"{n} cards: ... " + " ".join(faces[-LONG_PILE:]) + "  (top last)"
    return " ".join(faces) + ("  (top last)" if n > 1 else "")


def _value_text(st: State, v, t: str) -> str:
    g = st.game
    if v is None:
        return "none"
    if t == "player":
        return g.names[v]
    if t == "card":
        return g.card_text[v]
    if t == "bool":
        return "yes" if v else "no"
    if t == "direction":
        return "clockwise" if v > 0 else "counterclockwise"
    if isinstance(v, list):
        return ", ".join(str(x) for x in v)
    return str(v)


def _wrap(text: str, width: int | None, indent: int) -> list[str]:
    """`text` in lines of at most `width` characters (None: one line), continued `indent` spaces in.
    Breaks only at plain spaces: a no-break space (GLUE) holds a label to its value, and a word
    longer than the line stays whole rather than be cut."""
    if width is None or len(text) <= width:
        return [text.replace(GLUE, " ")]
    lines = textwrap.wrap(text, width, subsequent_indent=" " * indent, break_long_words=False,
                          break_on_hyphens=False)
    return [line.replace(GLUE, " ") for line in lines]


def _secret_text(st: State, name: str, viewer: int, reveal: bool) -> str | None:
    """'?' for a shown value that reads a `secret` variable (itself, or worked out from it) whose
    value the viewer does not know, else None."""
    cells = st.game.show_secrets.get(name) if st.secrets and not reveal else None
    return "?" if cells is not None and not st.secrets_known(cells) >> viewer & 1 else None


def render_view(st: State, viewer: int, *, reveal: bool = False, events: int = 8,
                hide: frozenset = frozenset(), width: int | None = None, display: bool = False) -> str:
    """The text view of `viewer`; cards in `hide` show as unknown (a player's fading memory).
    `width`: the terminal's columns, which no line passes (a word longer than a line aside); None,
    a program's default, keeps each row on one line, however long. `display`: zones, counters and
    values under the display names the rules give them (a person's screen); else under their
    names in the rules file, which a program reads (`State.view`)."""
    shown = st.game.display_names if display else {}
    named = lambda name: shown.get(name, name)
    lines = _head(st, viewer, reveal, width)
    lines.append("")
    lines += _table(st, viewer, reveal, hide, width, named)
    lines.append("")
    lines += _rows(st, viewer, reveal, hide, width, named)
    if events and st.log:
        recent = st.events_for(viewer)[-events:]
        if recent:
            lines.append("")
            lines.append("Recent events:")
            for e in recent:
                lines += _wrap(f"  {e}", width, 4)
    return "\n".join(lines)


def _glued(text: str) -> str:
    return text.replace(" ", GLUE)


def _head(st: State, viewer: int, reveal: bool, width: int | None) -> list[str]:
    """The game, the round and turn, who the viewer is; then where the game stands."""
    g = st.game
    me = g.names[viewer] if 0 <= viewer < g.players else "spectator"
    parts = [g.name, f"{g.players} players", f"round {st.round}, turn {st.turn}", f"you are {me}"]
    if reveal:
        parts.append("SPECTATOR VIEW: every card is shown")
    lines = _wrap(" · ".join(_glued(x) for x in parts), width, 2)
    if st.over:
        if st.winners:
            w = ", ".join(g.names[p] for p in st.winners)
            status = f"The game is over. Winner{'s' if len(st.winners) != 1 else ''}: {w}."
        else:
            status = "The game is over. No winner."  # (`winners are` may name nobody: all lose)
    else:
        who = "you" if st.chooser == viewer else g.names[st.chooser]
        direction = "clockwise" if st.direction > 0 else "counterclockwise"
        if st.turn == 0:
            status = f"Before the first turn; direction {direction}; {who} to decide."
        else:
            turn = "your" if st.current == viewer else f"{g.names[st.current]}'s"
            status = f"It is {turn} turn; direction {direction}; {who} to decide."
    return lines + _wrap(status, width, 2)


def _table(st: State, viewer: int, reveal: bool, hide: frozenset, width: int | None,
           named: Callable[[str], str]) -> list[str]:
    """The zones of the table, one a line, and the values the rules show and the table's counters."""
    g = st.game
    table = [zi for zi in range(g.nzones) if g.zone_owner[zi] < 0]
    names = [named(g.zone_names[zi]) for zi in table]
    col = max((len(n) for n in names), default=4)
    indent = col + 4 if width is None or col + 4 <= width // 2 else 4
    lines = []
    for zi, name in zip(table, names, strict=True):
        lines += _wrap(f"  {name:<{col}}  {_tail(zone_text(st, zi, viewer, reveal, hide))}", width, indent)
    globals_ = [(name, base) for name, (base, per) in g.counter_layout.items() if not per]
    shown = [_shown(named, name, str(st.counters[base])) for name, base in globals_]
    shown += [_shown(named, name, _secret_text(st, name, viewer, reveal) or _value_text(st, f(st), t))
              for name, f, t in g.shows if name not in g.counter_layout]
    if shown:
        lines += _wrap("  " + " · ".join(shown), width, 4)
    return lines


def _shown(named: Callable[[str], str], name: str, value: str) -> str:
    """`name value`, or `display name: value` where the rules name it for players."""
    words = named(name)
    return _glued(f"{name} {value}" if words == name else f"{words}: {value}")


def _tail(text: str) -> str:
    """A zone's text with its closing remark held to its last card: a line never starts `(top last)`."""
    return text.replace("  (top last)", GLUE + GLUE + _glued("(top last)"))


def _rows(st: State, viewer: int, reveal: bool, hide: frozenset, width: int | None,
          named: Callable[[str], str]) -> list[str]:
    """A header, then a row per player: their counters, their first zone, and each other zone of
    theirs that holds cards (`| drawn: 8♠`), continued on further lines if the row is too wide."""
    g = st.game
    counters = [(name, base) for name, (base, per) in g.counter_layout.items() if per]
    heads = [named(name) for name, _ in counters]
    pzones = [(named(g.zone_spec_names[s]), g.zone_base[s]) for s in range(len(g.zone_spec_names))
              if g.zone_spec_per_player[s]]
    namew = max(len(n) for n in g.names) + 6
    widths = [max(8, len(h) + 2) for h in heads]
    header = f"  {'player':<{namew}}" + "".join(f"{h:>{w}}" for h, w in zip(heads, widths, strict=True))
    header += "".join(f"  {name}" for name, _ in pzones[:1])
    lines = _wrap(header, width, 4)
    column = 2 + namew + sum(widths) + 2  # where a row's first zone starts
    indent = column if width is None or column <= width // 2 else 4
    for p in range(g.players):
        name = g.names[p] + (" (you)" if p == viewer else "")
        mark = ">" if p == st.current and not st.over else " "
        row = f"{mark} {name:<{namew}}" + "".join(
            f"{st.counters[base + p]:>{w}}" for (_, base), w in zip(counters, widths, strict=True))
        if pzones:
            row += "  " + _tail(zone_text(st, pzones[0][1] + p, viewer, reveal, hide))
        for zname, base in pzones[1:]:
            if st.zones[base + p]:  # (an empty second zone, a card drawn or a pile of tricks, says nothing)
                row += f"  {_glued('| ' + zname + ':')}{GLUE}{_tail(zone_text(st, base + p, viewer, reveal, hide))}"
        lines += _wrap(row, width, indent)
    return lines
