"""The game in player language: the `about "..."` texts before declarations and the display
names (`zone deck as "draw pile"`), checked and worked out for `rulesdsl rules`, `help MOVE` at
the table and the table's labels.

A description is read before any game starts (by `rulesdsl rules`), so its `{...}` values can
only be parameters: `about "Each player gets {hand_size} cards."` follows `--set hand_size=7`.
"""

from __future__ import annotations

from .. import ast
from ..errors import Diagnostic, did_you_mean
from .base import CheckerBase

# What each kind of declaration is called in a description's key and in messages.
_KINDS: dict[type, str] = {
    ast.GameName: "game", ast.Param: "param", ast.CardKind: "card", ast.Zone: "zone", ast.Counter: "counter",
    ast.Var: "var", ast.Define: "define", ast.Procedure: "procedure", ast.Action: "action", ast.Hook: "hook",
    ast.EndsWhen: "ends", ast.Rank: "rank", ast.Winners: "winners",
}
_CANNOT = {
    ast.Import: "an `import`", ast.Extends: "`extends`", ast.Remove: "`remove`", ast.Scenario: "a scenario",
    ast.Invariant: "an invariant", ast.Statistic: "a statistic", ast.Show: "a `show` line",
    ast.Cards: "`cards in`", ast.Players: "`players`",
}
_WHAT_CAN = ("the game, a parameter, a card kind, a zone, a counter, a variable, a define, a procedure, "
             "an action, a hook (`setup`, `turn start`, ...), `game ends when`, `round ends when`, "
             "`rank by` or `winners are`")


def decl_name(d: ast.Decl) -> str:
    """The name a description is filed under: a hook's `turn start`, an end's `game`, else the name."""
    if isinstance(d, ast.Hook):
        return d.when
    if isinstance(d, ast.EndsWhen):
        return d.what
    return getattr(d, "name", "") if not isinstance(d, ast.GameName) else ""


class Descriptions(CheckerBase):
    """Fills `about` (kind, name, text, (file, first line, last line)) in file order, and
    `display_names` (declared name -> display text)."""

    def _descriptions(self, decls: list[ast.Decl]) -> None:
        self.about: list[tuple[str, str, str, tuple[str, int, int]]] = []
        self.display_names: dict[str, str] = {}
        for d in decls:
            if d.about is not None:
                kind = _KINDS.get(type(d))
                if kind is None:
                    what = _CANNOT.get(type(d), "this declaration")
                    self.error(d.about.span, f"a description cannot stand before {what}",
                               f"`about` describes {_WHAT_CAN}")
                    continue
                text = self._about_text(d.about)
                if text is not None:
                    self.about.append((kind, decl_name(d), text, (d.span.file, d.span.line, d.span.end_line)))
            display = getattr(d, "display", None)
            if display is not None:
                self._display_name(d, display)
        described = {(k, n) for k, n, _, _ in self.about}
        if ("game", "") in described:
            self._undescribed(decls, described)

    def _about_text(self, t: ast.Template) -> str | None:
        """The description's text with its parameters' values filled in, or None (reported)."""
        out: list[str] = []
        ok = True
        for part in t.parts:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, ast.Name) and part.id in self.params:
                value = self.params[part.id].value
                out.append(("yes" if value else "no") if isinstance(value, bool) else str(value))
            else:
                name = part.id if isinstance(part, ast.Name) else None
                hint = did_you_mean(name, self.params) if name else None
                self.error(part.span, "a description can only fill in a parameter's value, as in `{hand_size}`",
                           hint or "it is read before any game starts, so nothing else has a value yet")
                ok = False
        return "".join(out).strip() if ok else None

    def _display_name(self, d: ast.Decl, display: str) -> None:
        name = d.name
        if not display.strip():
            self.error(d.span, f"the display name of '{name}' is empty", "write the words the table shows, "
                       "or leave out `as \"...\"`")
            return
        if isinstance(d, ast.Define) and d.params:
            self.error(d.span, f"'{name}' takes parameters, so the table never shows it: it needs no display name")
            return
        for other, shown in self.display_names.items():
            if shown == display:
                self.error(d.span, f"'{display}' is already the display name of '{other}'",
                           "two things the table shows under one name could not be told apart")
                return
        self.display_names[name] = display

    def _undescribed(self, decls: list[ast.Decl], described: set[tuple[str, str]]) -> None:
        """A described game should describe each of its actions and how to win: warnings."""
        for d in decls:
            if isinstance(d, ast.Action) and ("action", d.name) not in described:
                self.warnings.append(Diagnostic(
                    d.span, f"action '{d.name}' has no description",
                    f"`rulesdsl rules` and `help {d.name}` at the table say nothing of it; write "
                    f"`about \"...\"` before it", severity="warning"))
        ends = [d for d in decls if isinstance(d, (ast.Rank, ast.Winners))]
        if ends and not any((_KINDS[type(d)], "") in described for d in ends):
            self.warnings.append(Diagnostic(
                ends[0].span, "nothing says how to win",
                "write `about \"...\"` before `winners are` or `rank by`: `rulesdsl rules` shows it",
                severity="warning"))
