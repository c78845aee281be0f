"""Loading a saved game: a save is untrusted input, so every field is checked against the game
it is loaded into before a `State` is made of it.

A save that passes is a state the engine could have reached: every card in exactly one place,
seats, decisions and code positions in range, values of the types the rules declare, and the
pending decision's options the ones the rules give in that state (worked out again, not read).
Anything else is refused with one `BadSave` naming the field. The fingerprint alone proves
nothing (it is a plain field anyone can copy): players, parameters and every size are compared
with the game's own.

It makes a State, so it sits above state.py; `State.from_json` comes here through the game
(`Game.state_from_json`, which imports this module), and state.py imports nothing of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from .constants import CONTROL
from .state import JSON_FORMAT, CompiledGame, State, cardlist_cells

# A save longer than this is refused before it is parsed (a long game's save is well under 1 MB).
MAX_SAVE_CHARS = 32 * 1024 * 1024
# How deep a save's lists nest at most (a frame's list-valued local is the deepest: 5).
MAX_DEPTH = 6
# Numbers in a save (counters, variables, locals, options, counts) must be smaller than this in
# size: the rules' own numbers stay far below it, and a huge one only costs time.
NUMBER_LIMIT = 1 << 64
FIELDS = ("format", "game", "fingerprint", "players", "params", "zones", "known", "group", "counters", "vars",
          "rng", "turn_order", "progress", "stack", "pending", "options", "over", "winners", "ranking", "log",
          "secrets", "where", "partial", "pools")
OPTIONAL = frozenset(("secrets", "where", "partial", "pools"))  # written only when it holds something


class BadSave(ValueError):
    """A saved game that is not a state of the game it is loaded into; says which field is wrong."""

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"not a valid saved game of these rules: {field}: {problem}")


def _kind(v: object) -> str:
    """A JSON value's kind, in the words of the messages."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true/false"
    return {int: "a number", float: "a decimal number", str: "a text", list: "a list", dict: "an object"}.get(
        type(v), type(v).__name__)


def _int(v: object, where: str, low: int = 0, high: int | None = None) -> int:
    """v, if it is an int (not a bool) with low <= v < high."""
    if type(v) is not int:
        raise BadSave(where, f"must be a whole number, not {_kind(v)}")
    if v < low or (high is not None and v >= high):
        shown = v if abs(v) < NUMBER_LIMIT else f"a number of {len(str(abs(v)))} digits"
        top = "" if high is None else f" and below {high}"
        raise BadSave(where, f"is {shown}; it must be at least {low}{top}")
    return v


def _list(v: object, where: str, length: int | None = None) -> list:
    if type(v) is not list:
        raise BadSave(where, f"must be a list, not {_kind(v)}")
    if length is not None and len(v) != length:
        raise BadSave(where, f"has {len(v)} entries; this game has {length}")
    return v


class _Checker:
    """The checks of one save against one game; each raises BadSave at the first problem."""

    def __init__(self, game: CompiledGame):
        self.g = game
        self.action_codes = {code.index for code, _, _ in game.action_entry}

    def value(self, v: object, t: str, where: str, none_ok: bool) -> None:
        """A value held by a counter, variable or local of the checker's type t."""
        g = self.g
        if v is None:
            if none_ok or t in ("card", "player", "none", "any", "zone") or t.startswith("list["):
                return
            raise BadSave(where, f"must be {_TYPE_WORDS.get(t, t)}, not null")
        if t == "card":
            _int(v, where, 0, g.ncards)
        elif t == "player":
            _int(v, where, 0, g.players)
        elif t == "int":
            _int(v, where, 1 - NUMBER_LIMIT, NUMBER_LIMIT)
        elif t == "bool":
            if type(v) is not bool:
                raise BadSave(where, f"must be true or false, not {_kind(v)}")
        elif t == "str":
            if type(v) is not str:
                raise BadSave(where, f"must be a text, not {_kind(v)}")
        elif t == "direction":
            if type(v) is not int or v not in (1, -1):
                raise BadSave(where, "must be 1 or -1 (a direction of play)")
        elif type(v) is dict and (t == "zone" or t == "list[card]"):
            # A zone's own list, held by reference (State.to_json): resolved once the zones are made.
            if set(v) != {"zone"}:
                raise BadSave(where, 'a reference to a zone is {"zone": index}, and nothing else')
            _int(v["zone"], f"{where}.zone", 0, g.nzones)
        elif t == "zone" or t.startswith("list["):
            inner = "card" if t == "zone" else t[5:-1]
            for k, x in enumerate(_list(v, where)):
                if type(x) is list:
                    raise BadSave(f"{where}[{k}]", "must not be a list")
                self.value(x, inner, f"{where}[{k}]", inner == "card")
        else:  # a type the checker left open: a plain value or a list of them
            items = v if type(v) is list else [v]
            for k, x in enumerate(items):
                at = f"{where}[{k}]" if type(v) is list else where
                if x is not None and type(x) not in (bool, str):
                    _int(x, at, 1 - NUMBER_LIMIT, NUMBER_LIMIT)

    def zones(self, zones: object) -> list[int]:
        """Every card exactly once, None only in a grid's empty places; returns each card's zone."""
        g = self.g
        zones = _list(zones, "zones", g.nzones)
        loc = [-1] * g.ncards
        where_is: list[str] = [""] * g.ncards
        for zi, z in enumerate(zones):
            for k, c in enumerate(_list(z, f"zones[{zi}] ({g.zone_names[zi]})")):
                at = f"zones[{zi}][{k}] ({g.zone_names[zi]})"
                if c is None:
                    if not g.zone_grid[zi]:
                        raise BadSave(at, "is null, but only a grid has empty places")
                    continue
                _int(c, at, 0, g.ncards)
                if loc[c] >= 0:
                    raise BadSave(at, f"card {c} ({g.card_text[c]}) is also at {where_is[c]}")
                loc[c] = zi
                where_is[c] = at
        if -1 in loc:
            c = loc.index(-1)
            missing = loc.count(-1)
            raise BadSave("zones", f"card {c} ({g.card_text[c]}) is in no zone"
                          + (f" ({missing} cards are missing)" if missing > 1 else ""))
        return loc

    def knowledge(self, known: object, loc: list[int]) -> list[int]:
        """Who knows each card: a mask of seats, holding at least what the card's zone shows."""
        g = self.g
        known = _list(known, "known", g.ncards)
        for c, m in enumerate(known):
            _int(m, f"known[{c}]", 0, g.all_mask + 1)
            learn = g.zone_learn[loc[c]]
            if (learn < 0 and m != g.all_mask) or (learn > 0 and not m & learn):
                raise BadSave(f"known[{c}]", f"card {c} is in {g.zone_names[loc[c]]}, whose cards "
                              + ("everyone sees" if learn < 0 else "its owner sees") + ", but its mask is {m}")
        return known

    def frames(self, stack: object) -> list[list]:
        g = self.g
        stack = _list(stack, "stack")
        if not stack:
            raise BadSave("stack", "is empty: a game always runs its main code")
        out = []
        for k, f in enumerate(stack):
            where = f"stack[{k}]"
            f = _list(f, where, 3)
            code_id = _int(f[0], f"{where}[0] (code)", 0, len(g.codes))
            code = g.codes[code_id]
            if (code_id == 0) != (k == 0):
                raise BadSave(f"{where}[0] (code)", "the main code (0) runs at the bottom of the stack, and only there")
            if code.leaf:
                raise BadSave(f"{where}[0] (code)", f"{code.name} never waits for a decision: it has no frame")
            pc = _int(f[1], f"{where}[1] (position)", 1, len(code.ops) + 1)
            if code.kinds[pc - 1] != CONTROL:
                raise BadSave(f"{where}[1] (position)", f"{code.name} never stops at position {pc}")
            # An action's code runs right above the main code standing where a turn's action is
            # asked, and nowhere else (a procedure's or hook's frame is above a call).
            in_action = k == 1 and out[0][1] == g.turn_resume
            if (code_id in self.action_codes) != in_action:
                raise BadSave(f"{where}[0] (code)", f"{code.name} cannot run here" + (
                    ": an action's code runs right above the main code, where it asks for an action"
                    if not in_action else ": the main code stands where it asks for an action"))
            env = _list(f[2], f"{where}[2] (locals)", code.nlocals)
            for s, v in enumerate(env):
                self.value(v, code.slot_types.get(s, "any"), f"{where}[2][{s}]", True)
            out.append([code_id, pc, list(env)])
        return out

    def seat(self, v: object, where: str, none: bool = False) -> int:
        return _int(v, where, -1 if none else 0, self.g.players)

    def ending(self, data: dict, over: bool) -> tuple[list[int], list[int]]:
        g, n = self.g, self.g.players
        winners = _list(data["winners"], "winners")
        ranking = _list(data["ranking"], "ranking", n if over else 0)
        for k, w in enumerate(winners):
            self.seat(w, f"winners[{k}]")
        if not over:
            if winners:
                raise BadSave("winners", "the game is not over, so nobody has won yet")
            return [], []
        if not winners and not g.may_end_without_winner:
            raise BadSave("winners", "the game is over, so someone has won")
        if winners != sorted(set(winners)):
            raise BadSave("winners", "must list seats once each, in order")
        for s, r in enumerate(ranking):
            _int(r, f"ranking[{s}]", 1, n + 1)
        if not winners and ranking == [2] * n:
            return [], ranking  # `winners are` alone, naming nobody: everyone ranks after the (no) winners
        for s, r in enumerate(ranking):
            if r != 1 + sum(1 for x in ranking if x < r):
                raise BadSave(f"ranking[{s}]", f"{g.names[s]} is ranked {r}, but {sum(1 for x in ranking if x < r)} "
                              "seats rank before")
        return list(winners), list(ranking)

    def log(self, log: object, turn: int) -> list | None:
        """The events each seat saw: history, so checked for shape (in turn order, up to the
        current turn, cards and masks in range), not for what their texts say."""
        if log is None:
            return None
        g = self.g
        out = []
        last = 0
        for k, e in enumerate(_list(log, "log")):
            where = f"log[{k}]"
            e = _list(e, where)
            if len(e) not in (5, 6):
                raise BadSave(where, f"has {len(e)} entries; an event has 5 (6 with secret values)")
            last = _int(e[0], f"{where}[0] (turn)", last, turn + 1)
            _int(e[1], f"{where}[1] (level)", 0, 16)
            if type(e[2]) is not str:
                raise BadSave(f"{where}[2] (text)", f"must be a text, not {_kind(e[2])}")
            cards = _list(e[3], f"{where}[3] (cards)")
            for j, c in enumerate(cards):
                _int(c, f"{where}[3][{j}]", 0, g.ncards)
            masks = e[4]
            if masks is not None:
                masks = _list(masks, f"{where}[4] (who saw them)", len(cards))
                for j, m in enumerate(masks):
                    _int(m, f"{where}[4][{j}]", 0, g.all_mask + 1)
                masks = tuple(masks)
            out.append((e[0], e[1], e[2], tuple(cards), masks) + ((self.secret_words(e[5], where),) if len(e) > 5
                                                                   else ()))
        return out


    def secret_words(self, items: object, where: str) -> tuple:
        """An event's secret values: [words, who knows them, what the others see] each, as many
        as the text has stand-ins."""
        out = []
        for j, x in enumerate(_list(items, f"{where}[5] (secret values)")):
            x = _list(x, f"{where}[5][{j}]", 3)
            if type(x[0]) is not str or type(x[2]) is not str:
                raise BadSave(f"{where}[5][{j}]", "must hold texts around who knows them")
            _int(x[1], f"{where}[5][{j}][1]", 0, self.g.all_mask + 1)
            out.append((x[0], x[1], x[2]))
        return tuple(out)

    def where(self, items: object) -> dict[int, int]:
        """Whereabouts: each card once, with the seats (some) that knew it when it was shuffled."""
        return self._by_card(items, "where", lambda m, at: _int(m, f"{at} (who knows)", 1, self.g.all_mask + 1))

    def partial(self, items: object) -> dict[int, tuple[int, ...]]:
        """Partial knowledge: each card once, with one mask of seats per attribute shown."""
        n = len(self.g.partial_attrs)

        def masks(ms: object, at: str) -> tuple[int, ...]:
            return tuple(_int(m, f"{at}[{i}]", 0, self.g.all_mask + 1)
                         for i, m in enumerate(_list(ms, f"{at} (who knows)", n)))

        return self._by_card(items, "partial", masks)

    def pools(self, items: object, shuffles: int) -> dict:
        """Pools: each card once, with the shuffle group each seat knows it in (one number for
        every seat, or a list of one a seat)."""
        top = self.g.nzones + shuffles

        def pool(v: object, at: str) -> int | tuple[int, ...]:
            if type(v) is int:
                return _int(v, at, 0, top)
            return tuple(_int(x, f"{at}[{i}]", 0, top)
                         for i, x in enumerate(_list(v, f"{at} (the pool of each seat)", self.g.players)))

        return self._by_card(items, "pools", pool)

    def _by_card(self, items: object, name: str, read: Callable[[object, str], object]) -> dict:
        """A field of [card, value] pairs, each card once; `read(value, where)` checks a value."""
        out: dict = {}
        for j, x in enumerate(_list(items, name)):
            c, v = _list(x, f"{name}[{j}]", 2)
            _int(c, f"{name}[{j}][0] (card)", 0, self.g.ncards)
            if c in out:
                raise BadSave(f"{name}[{j}][0] (card)", f"card {c} is listed twice")
            out[c] = read(v, f"{name}[{j}][1]")
        return out

    def secrets(self, items: object, variables: list) -> dict[int, tuple[int, list]]:
        """Who knows each secret answer, and the options it was chosen from: only cells of `secret`
        variables, a mask that leaves someone out, options of the variable's type that hold its value."""
        g = self.g
        out: dict[int, tuple[int, list]] = {}
        for j, x in enumerate(_list(items, "secrets")):
            where = f"secrets[{j}]"
            k, mask, options = _list(x, where, 3)
            _int(k, f"{where}[0] (cell)", 0, len(variables))
            t = g.secret_cells.get(k)
            if t is None:
                raise BadSave(f"{where}[0] (cell)", f"vars[{k}] is not a secret variable's")
            if k in out:
                raise BadSave(f"{where}[0] (cell)", f"vars[{k}] is listed twice")
            _int(mask, f"{where}[1] (who knows)", 1, g.all_mask)
            for i, v in enumerate(_list(options, f"{where}[2] (options)")):
                self.value(v, t, f"{where}[2][{i}]", True)
            if variables[k] not in options:
                raise BadSave(f"{where}[2] (options)", f"do not hold the value of vars[{k}]")
            out[k] = (mask, list(options))
        return out


_TYPE_WORDS = {"int": "a whole number", "bool": "true or false", "str": "a text", "direction": "1 or -1"}


def parse_save(text: str | bytes) -> dict:
    """The save's JSON object, or BadSave (not JSON, nested too deeply, a number too long)."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise BadSave("(the save)", f"must be a text, not {type(text).__name__}")
    if len(text) > MAX_SAVE_CHARS:
        raise BadSave("(the save)", f"is {len(text)} characters long; a save is at most {MAX_SAVE_CHARS}")
    try:
        data = json.loads(text)
    except RecursionError:
        raise BadSave("(the save)", "is nested too deeply to be a save") from None
    except (ValueError, UnicodeDecodeError) as e:  # JSONDecodeError, a number of too many digits
        raise BadSave("(the save)", f"is not JSON: {e}") from None
    if type(data) is not dict:
        raise BadSave("(the save)", f"must be a JSON object, not {_kind(data)}")
    level = [(data, str(k), v) for k, v in data.items()]
    for depth in range(2, MAX_DEPTH + 2):
        inner = []
        for _, where, v in level:
            if type(v) is list:
                inner.extend((v, f"{where}[{k}]", x) for k, x in enumerate(v))
            elif type(v) is dict:
                inner.extend((v, f"{where}.{k}", x) for k, x in v.items())
        if inner and depth > MAX_DEPTH:
            raise BadSave(inner[0][1].split("[")[0].split(".")[0], f"nests lists more than {MAX_DEPTH} deep")
        level = inner
    return data


def load_state(game: CompiledGame, text: str | bytes) -> State:
    """The state a save holds, checked against `game` field by field (see the module's doc)."""
    g = game
    data = parse_save(text)
    _check_game(g, data)
    ck = _Checker(g)
    loc = ck.zones(data["zones"])
    known = ck.knowledge(data["known"], loc)
    group_and_count = _list(data["group"], "group", 2)
    shuffles = _int(group_and_count[1], "group[1] (shuffles)", 0, NUMBER_LIMIT)
    group = _list(group_and_count[0], "group[0]", g.ncards)
    for c, k in enumerate(group):
        _int(k, f"group[0][{c}]", 0, g.nzones + shuffles)
    counters = _list(data["counters"], "counters", len(g.counter_init))
    for k, (v, t) in enumerate(zip(counters, g.counter_types, strict=True)):
        ck.value(v, t, f"counters[{k}]", False)
    variables = _list(data["vars"], "vars", len(g.var_init))
    for k, (v, t) in enumerate(zip(variables, g.var_types, strict=True)):
        ck.value(v, t, f"vars[{k}]", False)
    rng = _int(data["rng"], "rng", 0, 1 << 64)
    order = _list(data["turn_order"], "turn_order", 4)
    current = ck.seat(order[0], "turn_order[0] (current)")
    if type(order[1]) is not int or order[1] not in (1, -1):
        raise BadSave("turn_order[1] (direction)", "must be 1 or -1")
    next_player = ck.seat(order[2], "turn_order[2] (next player)", none=True)
    continue_from = ck.seat(order[3], "turn_order[3] (continue from)", none=True)
    progress = _list(data["progress"], "progress", 3)
    rounds, turns, moves = (_int(v, f"progress[{k}] ({w})", 0, NUMBER_LIMIT)
                            for k, (v, w) in enumerate(zip(progress, ("round", "turn", "moves"), strict=True)))
    stack = ck.frames(data["stack"])
    over = data["over"]
    if type(over) is not bool:
        raise BadSave("over", f"must be true or false, not {_kind(over)}")
    pending_and_chooser = _list(data["pending"], "pending", 2)
    winners, ranking = ck.ending(data, over)
    log = ck.log(data["log"], turns)
    options = _list(data["options"], "options")

    s = _unloaded_state(g)
    s.zones = [list(z) for z in data["zones"]]
    s.loc = loc
    s.known = list(known)
    s.group, s.shuffles = list(group), shuffles
    s.counters = list(counters)
    s.vars = list(variables)
    s.secrets = ck.secrets(data["secrets"], s.vars) if "secrets" in data else {}
    s.where = ck.where(data["where"]) if "where" in data else {}
    s.partial = ck.partial(data["partial"]) if "partial" in data else {}
    s.pools = ck.pools(data["pools"], shuffles) if "pools" in data else {}
    s.unpooled = None
    s.rng = rng
    s.current, s.direction, s.next_player, s.continue_from = current, order[1], next_player, continue_from
    s.round, s.turn, s.moves = rounds, turns, moves
    s.stack = stack
    _resolve_zone_refs(s)
    s.over = over
    s.winners, s.ranking = winners, ranking
    s.log = log
    s.pending, s.chooser, s.options = -1, -1, ()
    if over:
        if pending_and_chooser != [-1, -1] or options:
            raise BadSave("pending", "the game is over: no decision is pending ([-1, -1], no options)")
        return s
    _pending(s, pending_and_chooser, options)
    return s


def _check_game(g: CompiledGame, data: dict) -> None:
    """The save's fields are the ones a save has, and it was made for this game: the same rules,
    players, parameter values and seat names. Checked before any value, so a save of another game
    is named as such, not as a bad value."""
    unknown = sorted(set(data) - set(FIELDS), key=str)
    if unknown:
        raise BadSave(repr(str(unknown[0])[:40]), "is not a field of a saved game")
    missing = [f for f in FIELDS if f not in data and f not in OPTIONAL]
    if missing:
        raise BadSave(missing[0], "is missing")
    if type(data["format"]) is not int or data["format"] != JSON_FORMAT:
        raise BadSave("format", f"is {str(data['format'])[:40]!r}; this version reads saves of format {JSON_FORMAT}")
    if data["game"] != g.name:
        raise BadSave("game", f"{str(data['game'])[:80]!r} does not match the rules loaded now ({g.name!r})")
    if type(data["players"]) is not int or data["players"] != g.players:
        raise BadSave("players", f"{str(data['players'])[:40]} does not match the game loaded now ({g.players} "
                                 "players)")
    params = data["params"]
    if type(params) is not dict or _strict(params) != _strict(g.params):
        raise BadSave("params", f"{_short(params)} does not match the game loaded now ({_short(g.params)})")
    if data["fingerprint"] != g.fingerprint:
        raise BadSave("fingerprint", "does not match the rules loaded now (the save was made with other rules or seat "
                      "names)")


def _unloaded_state(g: CompiledGame) -> State:
    """A state of `g` with the fields a save does not hold (those of a running playout, the step
    budget, the move texts) as a new state has them; load_state fills in the rest."""
    s = State.__new__(State)
    s.game = g
    s.step_limit = s.budget = g.limits["steps"]
    s._texts = None
    s.at_rest()
    return s


def _resolve_zone_refs(s: State) -> None:
    """Each {"zone": index} a cell holds becomes that zone's own list, as it was when saved."""
    for held, k in cardlist_cells(s.game, s.counters, s.vars, s.stack):
        if type(held[k]) is dict:
            held[k] = s.zones[held[k]["zone"]]


def _pending(s: State, pending_and_chooser: list, options: list) -> None:
    """The pending decision: where the code stands, who decides, and its options as the rules
    give them in this state (worked out again and compared)."""
    g = s.game
    pending = _int(pending_and_chooser[0], "pending[0] (decision)", 0, len(g.decisions))
    chooser = _int(pending_and_chooser[1], "pending[1] (chooser)", 0, g.players)
    top = s.stack[-1]
    dec = g.decisions[pending]
    if pending == 0:
        if len(s.stack) != 1 or top[1] != g.turn_resume:
            raise BadSave("stack", "a turn's action is pending, so the main code alone must stand where it asks it "
                          f"(position {g.turn_resume})")
    elif g.codes[top[0]].spans[top[1] - 1] != dec.span:
        raise BadSave("pending[0] (decision)", f"decision {pending} is not the one the code on top of the stack "
                      "stops at")
    s.pending, s.chooser = pending, chooser
    try:
        if pending == 0:
            who = s.current
            opts = g.turn_options(s)
        else:
            env = top[2]
            who = s.current if dec.by is None else dec.by(s, env)
            opts = g.choice_values(s, dec, env, who) if who is not None else []
            if dec.optional:
                opts.append(None if dec.sets is None else [])
    except Exception as e:  # the rules' own code, run on values it never had
        raise BadSave("options", f"cannot be worked out from this state: {type(e).__name__}: {str(e)[:200]}") from None
    if who != chooser:
        raise BadSave("pending[1] (chooser)", f"is seat {chooser}, but the rules ask seat {who} here")
    if not opts:
        raise BadSave("options", "the rules give no option here, so no decision can be pending")
    mine = [list(o) if isinstance(o, tuple) else o for o in opts]
    if _strict(options) != _strict(mine):
        raise BadSave("options", f"are {_short(options)}; the rules give {_short(mine)} in this state")
    s.options = tuple(opts)


def _strict(v: object) -> str:
    """A JSON value as canonical text: true and 1 differ, as do 1 and 1.0."""
    return json.dumps(v, sort_keys=True)


def _short(v: object, width: int = 120) -> str:
    text = json.dumps(v) if isinstance(v, (dict, list)) else repr(v)
    return text if len(text) <= width else text[: width - 3] + "..."
