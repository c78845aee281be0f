"""What one seat may see, as text: its view of the table and its log of events.

Everything here reads only what the seat knows (a card's knowledge bitmask), so the CLI, bots'
information states and tests share one honest rendering. `reveal=True` is a spectator's view.
It reads a State, so it sits above state.py; `State.view` and `State.events_for` come here through
the game (game.py imports this module where it is used), and state.py imports nothing of it.
"""

from __future__ import annotations

from .constants import GRID, HAND, PUBLIC
from .state import State

LONG_PILE = 12


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


def _secret_text(st: State, name: str, viewer: int, reveal: bool) -> str | None:
    """'?' for a shown value that reads a `secret` variable (itself, or worked out from it) whose
    value the viewer does not know, else None."""
    cells = st.game.show_secrets.get(name) if st.secrets and not reveal else None
    return "?" if cells is not None and not st.secrets_known(cells) >> viewer & 1 else None


def render_view(st: State, viewer: int, *, reveal: bool = False, events: int = 8,
                hide: frozenset = frozenset()) -> str:
    """The text view of `viewer`; cards in `hide` show as unknown (a player's fading memory)."""
    g = st.game
    lines: list[str] = []
    me = g.names[viewer] if 0 <= viewer < g.players else "spectator"
    head = f"{g.name} · {g.players} players · round {st.round}, turn {st.turn} · you are {me}"
    if reveal:
        head += " · SPECTATOR VIEW: every card is shown"
    lines.append(head)
    if st.over:
        if st.winners:
            w = ", ".join(g.names[p] for p in st.winners)
            lines.append(f"The game is over. Winner{'s' if len(st.winners) != 1 else ''}: {w}.")
        else:
            lines.append("The game is over. No winner.")  # (`winners are` may name nobody: all lose)
    else:
        who = "you" if st.chooser == viewer else g.names[st.chooser]
        direction = "clockwise" if st.direction > 0 else "counterclockwise"
        if st.turn == 0:
            lines.append(f"Before the first turn; direction {direction}; {who} to decide.")
        else:
            turn = "your" if st.current == viewer else f"{g.names[st.current]}'s"
            lines.append(f"It is {turn} turn; direction {direction}; {who} to decide.")
    lines.append("")
    table = [zi for zi in range(g.nzones) if g.zone_owner[zi] < 0]
    width = max((len(g.zone_names[zi]) for zi in table), default=4)
    for zi in table:
        lines.append(f"  {g.zone_names[zi]:<{width}}  {zone_text(st, zi, viewer, reveal, hide)}")
    globals_ = [(name, base) for name, (base, per) in g.counter_layout.items() if not per]
    shown = [f"{name} {st.counters[base]}" for name, base in globals_]
    shown += [f"{name} {_secret_text(st, name, viewer, reveal) or _value_text(st, f(st), t)}"
              for name, f, t in g.shows if name not in g.counter_layout]
    if shown:
        lines.append("  " + " · ".join(shown))
    lines.append("")
    counters = [(name, base) for name, (base, per) in g.counter_layout.items() if per]
    pzones = [(g.zone_spec_names[s], g.zone_base[s]) for s in range(len(g.zone_spec_names))
              if g.zone_spec_per_player[s]]
    # A player's second zone (a card in hand, a pile of tricks) only when someone has cards there.
    pzones = pzones[:1] + [(n, b) for n, b in pzones[1:] if any(st.zones[b + p] for p in range(g.players))]
    namew = max(len(n) for n in g.names) + 6
    widths = [max(8, len(name) + 2) for name, _ in counters]
    header = f"  {'player':<{namew}}" + "".join(f"{name:>{w}}" for (name, _), w in zip(counters, widths, strict=True))
    header += "".join(f"  {name}" for name, _ in pzones[:1])
    lines.append(header)
    for p in range(g.players):
        label = g.names[p] + (" (you)" if p == viewer else "")
        mark = ">" if p == st.current and not st.over else " "
        row = f"{mark} {label:<{namew}}" + "".join(
            f"{st.counters[base + p]:>{w}}" for (_, base), w in zip(counters, widths, strict=True))
        zs = [zone_text(st, base + p, viewer, reveal, hide) for _, base in pzones]
        if zs:
            row += "  " + zs[0]
            for (name, _), z in zip(pzones[1:], zs[1:], strict=True):
                row += f"  | {name}: {z}"
        lines.append(row)
    if events and st.log:
        recent = st.events_for(viewer)[-events:]
        if recent:
            lines.append("")
            lines.append("Recent events:")
            lines.extend(f"  {e}" for e in recent)
    return "\n".join(lines)
