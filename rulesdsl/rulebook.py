"""The game's rules in player language, from its rules file: `rulesdsl rules FILE`, and `rules`
and `help MOVE` at the table.

Everything here comes from the `about "..."` texts and display names of the rules file (see
docs/language.md, "Describing the game"), through the compiled game's `about` and
`display_names`: what a declaration does is the rules' own words, never guessed from its code.
"""

from __future__ import annotations

import textwrap

WIDTH = 78

# The sections of the page, in order: (title, the kinds of declaration described in it).
_TURN_HOOKS = ("turn start", "turn end")


def _entries(game, kind: str) -> list[tuple[str, str]]:
    return [(name, text) for k, name, text, _ in game.about if k == kind]


def _about(game, kind: str, name: str = "") -> str | None:
    for k, n, text, _ in game.about:
        if k == kind and n == name:
            return text
    return None


def shown_name(game, name: str) -> str:
    """What the table calls a zone, counter, variable or define."""
    return game.display_names.get(name, name)


def _para(text: str, indent: str = "") -> list[str]:
    """Text wrapped to the page, each of its own lines (`\\n` in a description) a paragraph."""
    out: list[str] = []
    for part in text.split("\n"):
        out.extend(textwrap.wrap(part, WIDTH, initial_indent=indent, subsequent_indent=indent) or [""])
    return out


def _paras(texts: list[str | None]) -> list[str]:
    """Several descriptions in one section: a paragraph each, a blank line between."""
    out: list[str] = []
    for t in texts:
        if t:
            out += ([""] if out else []) + _para(t, "  ")
    return out


def _item(label: str, text: str | None, indent: str = "  ") -> list[str]:
    """`label: text`, the text wrapped under the label's indentation."""
    if not text:
        return [f"{indent}{label}"]
    return textwrap.wrap(f"{label}: {text}", WIDTH, initial_indent=indent, subsequent_indent=indent + "    ")


def _players(game) -> str:
    lo, hi = game.min_players, game.max_players
    return f"{lo} players" if lo == hi else f"{lo} to {hi} players"


def _table_lines(game) -> list[str]:
    """The zones, counters, variables and defines the rules describe or name for the table."""
    layout = getattr(game, "zone_spec_names", [])
    per_zone = dict(zip(layout, getattr(game, "zone_spec_per_player", [False] * len(layout)), strict=False))
    per = {**{n: p for n, (_, p) in game.counter_layout.items()}, **{n: p for n, (_, p) in game.var_layout.items()},
           **per_zone}
    about = {name: text for kind in ("zone", "counter", "var", "define") for name, text in _entries(game, kind)}
    order = [n for n in (*layout, *game.counter_layout, *game.var_layout, *(s[0] for s in game.shows)) if n in about
             or n in game.display_names]
    shared, own = [], []
    for name in dict.fromkeys(order):
        shown = shown_name(game, name)
        label = shown if shown == name else f"{shown} [{name}]"
        (own if per.get(name) else shared).extend(_item(label, about.get(name), "  " if not per.get(name) else "    "))
    lines = shared
    if own:
        lines += ["  Each player has:", *own]
    return lines


def rules_text(game) -> str:
    """The rules page of a compiled game: what its rules file says of itself, in player words."""
    lines = [f"{game.name.upper()}: for {_players(game)}", ""]
    text = _about(game, "game")
    if text:
        lines += [*_para(text), ""]

    def section(title: str, body: list[str]) -> None:
        if body:
            lines.extend([title, *body, ""])

    section("On the table", _table_lines(game))
    section("The cards", [x for name, text in _entries(game, "card") for x in _item(name, text)])
    section("Setup", _paras([_about(game, "hook", "setup")]))
    section("A round", _paras([_about(game, "hook", "round start"), _about(game, "hook", "round end"),
                               _about(game, "ends", "round")]))
    turn: list[str] = []
    start = _about(game, "hook", "turn start")
    if start:
        turn += _para(start, "  ")
    if game.actions:
        turn.append("  On your turn, do one of these:" if len(game.actions) > 1 else "  On your turn:")
        for a in game.actions:
            turn += _item(a.lead_label or a.name, _about(game, "action", a.name), "    ")
    end = _about(game, "hook", "turn end")
    if end:
        turn += _para(end, "  ")
    section("A turn", turn)
    section("More rules", _paras([text for _name, text in _entries(game, "procedure")]))
    section("The end", _paras([_about(game, "ends", "game"), _about(game, "hook", "game end")]))
    section("Who wins", _paras([_about(game, "winners"), _about(game, "rank")]))
    params = []
    for name, value in game.params.items():
        shown = ("yes" if value else "no") if isinstance(value, bool) else str(value)
        _default, low, high = game.param_ranges.get(name, (None, None, None))
        limits = f" ({low}..{high})" if low is not None else ""
        params += _item(f"{name} = {shown}{limits}", _about(game, "param", name))
    section("Options (change one with --set NAME=VALUE)", params)
    if not game.about:
        lines += ["(The rules file describes nothing of itself: write `about \"...\"` before its declarations;",
                  " see docs/language.md.)", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _innermost(game, span) -> str | None:
    """The description of the innermost described procedure, action or hook that holds `span`."""
    best = None
    for kind, _name, text, (file, first, last) in game.about:
        if kind in ("procedure", "action", "hook") and span is not None and getattr(span, "file", None) == file \
                and first <= span.line <= last and (best is None or last - first < best[0]):
            best = (last - first, text)
    return best[1] if best else None


def move_help(state, index: int) -> str:
    """What move `index` of the pending decision does, in the rules' words."""
    g = state.game
    text = state.move_texts()[index]
    dec = g.decisions[state.pending]
    if state.pending == 0:  # the turn's decision: one of the actions
        action = g.actions[state.options[index][0]]
        about = _about(g, "action", action.name)
    else:
        about = _innermost(g, dec.span)
    if about is None:
        return f"{text}: the rules file does not describe this move; 'rules' shows what it says."
    return "\n".join(_item(text, about, ""))


def word_help(game, word: str) -> str | None:
    """The description of an action named `word` (a move that is not offered now), else None."""
    for a in game.actions:
        if word in (a.name, a.lead_label):
            about = _about(game, "action", a.name)
            if about is not None:
                return "\n".join(_item(word, about, ""))
    return None
