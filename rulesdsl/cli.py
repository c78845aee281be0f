"""The `rulesdsl` command: check rules files, play against bots, simulate many games.

Every mistake a user can make here (a bad file, a bad parameter, a mistyped move, end of input)
ends in a message and an exit code, never a traceback. Heavy imports (rich) happen only in the
commands that use them, so `rulesdsl check` starts fast.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from . import load
from .engine.state import match_text, normalize
from .engine.view import render_view
from .errors import IllegalMove, RulesError, RulesRuntimeError, did_you_mean
from .screen import display_order, move_lines, progress_bar, terminal_width, wrap

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
QUIT = -1


class UsageError(Exception):
    pass


def _parse_sets(items: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise UsageError(f"--set expects NAME=VALUE, not '{item}'")
        out[name.strip()] = value.strip()
    return out


def _bad_parameters(e: RulesError) -> bool:
    """A bad --set value is a mistake on the command line, like a --set without '='."""
    return bool(e.diagnostics) and all(d.span is None and d.message.startswith("parameter") for d in e.diagnostics)


def _limits(args) -> dict[str, int]:
    """--limit NAME=VALUE (repeatable): the limits of a run raised (or lowered), checked."""
    from .engine.limits import parse_limit

    out: dict[str, int] = {}
    for item in getattr(args, "limit", None) or []:
        try:
            name, value = parse_limit(item)
        except ValueError as e:
            raise UsageError(str(e)) from None
        out[name] = value
    return out


def _load(args) -> object:
    return load(args.file, players=args.players, limits=_limits(args), allow_paths=_allowed(args),
                **_parse_sets(args.set))


def _allowed(args) -> list[str]:
    """--allow-path folders: where imports may read besides the file's project and the preludes."""
    return list(getattr(args, "allow_path", None) or ())


def _require(module: str, what: str, install: str) -> None:
    """A missing library is named with the command that installs it, not met as an ImportError's
    traceback halfway through a run (the extras, and a dependency a broken install lost)."""
    try:
        importlib.import_module(module)
    except ImportError:
        raise UsageError(f"{what} needs {module}: {install}") from None


def _bundled_names(args) -> None:
    """A bare name where a rules file is taken (`rulesdsl play NAME`) means the bundled game of
    that name; a file of that name, or any path, is read as it is."""
    from .bundled import find_game, game_files

    def find(arg: str) -> str:
        found = find_game(arg)
        if found is None:
            close = did_you_mean(arg, game_files())
            raise UsageError(f"no file '{arg}' and no bundled game of that name" + (f" ({close})" if close else "")
                             + "; `rulesdsl list` shows the bundled games")
        return found

    for attr in ("file", "base"):
        if hasattr(args, attr):
            setattr(args, attr, find(getattr(args, attr)))
    for attr in ("files", "variants"):
        if hasattr(args, attr):
            setattr(args, attr, [find(f) for f in getattr(args, attr)])


def _workers(args) -> tuple[int, str]:
    """--workers (default: every core) and --backend, checked before any game is played."""
    from .parallel import BackendError, check_backend, default_workers

    workers = args.workers if args.workers is not None else default_workers()
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    try:
        check_backend(args.backend)
    except BackendError as e:
        raise UsageError(str(e)) from None
    return workers, args.backend


# ---------------------------------------------------------------- check


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def cmd_rules(args, out: TextIO, err: TextIO) -> int:
    """`rulesdsl rules FILE`: the game's rules in player language, from the file's descriptions."""
    from .rulebook import rules_text

    game = _load(args)
    print(rules_text(game), end="", file=out)
    return EXIT_OK


def cmd_check(args, out: TextIO, err: TextIO) -> int:
    status = EXIT_OK
    params = _parse_sets(args.set)
    for path in args.files:
        try:
            game = load(path, players=args.players, allow_paths=_allowed(args), **params)
        except RulesError as e:
            print(e.format(), file=err)
            status = max(status, EXIT_USAGE if _bad_parameters(e) else EXIT_ERROR)
            continue
        for w in game.warnings:
            print(w.format(game.sources), file=err)
        span = (f"{game.min_players}-{game.max_players}" if game.max_players > game.min_players
                else f"{game.min_players}")
        sizes = f"{plural(game.ncards, 'card')}, {plural(len(game.actions), 'action')}"
        print(f"{path}: ok: {game.name}, {span} players, {sizes}", file=out)
    return status


# ---------------------------------------------------------------- play

PLAY_HELP = """\
Type the number of a move, or its text (for example: {example}).
Other commands:
  view     show the table again        log    show everything you have seen
  moves    list your moves again       help   this text
  rules    the rules of the game       help MOVE  what a move does (help 2, help {example})
  quit     leave the game"""


class Player:
    """The human at the terminal: shows their view and reads their moves."""

    def __init__(self, state, seat: int, inp: TextIO, out: TextIO, reveal: bool, echo: bool, memory: bool = False):
        self.state = state
        self.seat = seat
        self.inp = inp
        self.out = out
        self.reveal = reveal
        self.echo = echo
        self.memory = memory
        self.learned: dict[int, int] = {}  # card -> the turn in which this seat learned it (--memory)
        self.seen = 0  # events of the log already shown
        self.forced = 0  # only moves played for this seat since its last real choice
        self.lenient = False  # input reconfigured to replace undecodable bytes (see read_line)
        self.undecodable = 0  # lines in a row that failed to decode

    def forgotten(self) -> frozenset[int]:
        """With --memory: the face-down cards this seat saw before the current turn."""
        if not self.memory:
            return frozenset()
        st = self.state
        g = st.game
        bit = 1 << self.seat
        for c in range(g.ncards):
            # (a face, or some of a card's attributes, or which hand holds it: all fade alike)
            if st.known[c] & bit or (st.partial and any(m & bit for m in st.partial.get(c, ()))) \
                    or (st.where and st.knows_where(c) & bit):
                self.learned.setdefault(c, st.turn)
            else:
                self.learned.pop(c, None)
        # Cards of a zone you see (face up, your hand, another's hand held facing you) stay in sight.
        return frozenset(c for c, t in self.learned.items()
                         if t < st.turn and not g.zone_seen_by[st.loc[c]] >> self.seat & 1)

    def say(self, text: str = "") -> None:
        """Print to the player, no line wider than the terminal (a long one continues indented)."""
        width = self.width()
        for line in text.split("\n"):
            print("\n".join(wrap(line, width, 2 + len(line) - len(line.lstrip()))), file=self.out)

    def width(self) -> int:
        """The terminal's columns now (a window can be resized between two screens)."""
        return terminal_width(self.out)

    def events(self, events: list[str]) -> None:
        """Events, one a line, indented; a long one continues further in."""
        for e in events:
            self.say(f"  {e}")

    def new_events(self) -> None:
        st = self.state
        events = st.events_for(self.seat, self.seen) if not self.reveal else st.events_for(-1, self.seen)
        self.seen = len(st.log)
        self.events(events)

    def show(self) -> None:
        self.say("")
        self.say(render_view(self.state, self.seat, reveal=self.reveal, events=0, hide=self.forgotten(),
                             width=self.width(), display=True))

    def moves(self) -> tuple[list[str], list[int]]:
        """The moves as listed (grouped by action, sorted by value) and, for each, its index in
        the engine's order, which a number typed at the prompt is mapped back to."""
        texts = self.move_texts()
        order = display_order(texts, self.state.game)
        return [texts[i] for i in order], order

    def move_texts(self) -> list[str]:
        """The moves as this seat reads them: with --memory, a card it no longer has in sight is
        named by its place alone, without the note of what it was told of it (`(R?)`)."""
        st = self.state
        texts = st.move_texts()
        hide = self.forgotten() if st.partial else ()
        if hide:
            g = st.game
            dec = g.decisions[st.pending]
            for i, v in enumerate(st.options):
                c = g.option_card(dec, v)
                note = g.known_note(st, c, self.seat) if c in hide else ""
                if note and texts[i].endswith(" " + note):
                    texts[i] = texts[i][: -len(note) - 1]
        return texts

    def list_moves(self) -> list[str]:
        shown, _ = self.moves()
        self.say("Your moves:")
        self.say("\n".join(move_lines(shown, self.width())))
        return shown

    def decide(self) -> int | None:
        """The index of the chosen move; QUIT if the player left; None at the end of input."""
        texts = self.move_texts()
        if len(texts) == 1:
            # An only move is played for the player; a long run of them is summed up, not told
            # move by move (a game of forced moves would print without end).
            self.forced += 1
            if self.forced <= FORCED_SHOWN:
                self.new_events()
                self.say(f"Your only move: {texts[0]} (played for you).")
            elif self.forced == FORCED_SHOWN + 1:
                self.say("(More only moves follow: they are played for you, and told when you next choose.)")
            if self.forced > FORCED_SHOWN:
                self.seen = len(self.state.log)
            return 0
        if self.forced > FORCED_SHOWN:
            self.say(f"({self.forced - FORCED_SHOWN} more only moves were played for you; 'log' shows what happened.)")
        self.forced = 0
        self.new_events()
        self.show()
        self.list_moves()
        texts, order = self.moves()
        while True:
            self.out.write(f"{self.state.game.names[self.seat]}> ")
            self.out.flush()
            line = self.read_line()
            if line is None:
                self.say("")
                self.say("End of input: the game stops here, unfinished.")
                return None
            if "\ufffd" in line:
                self.say("That line held bytes that are not UTF-8 text; type it again.")
                continue
            entry = line.strip()
            if self.echo:
                self.say(shown(entry))
            if not entry:
                continue
            word = entry.lower()
            reply = table_command(self.state, entry)
            if reply is not None:
                self.say(reply)
                continue
            if word in ("quit", "exit", "q"):
                self.say("You left the game.")
                return QUIT
            if word in ("help", "?", "h"):
                self.say(PLAY_HELP.format(example=texts[0]))
                continue
            if word in ("view", "v"):
                self.show()
                continue
            if word in ("moves", "m"):
                self.list_moves()
                continue
            if word == "log":
                self.events(self.state.events_for(self.seat if not self.reveal else -1))
                continue
            index = match_move(entry, texts)
            if isinstance(index, int):
                return order[index]
            self.say(index)

    def read_line(self) -> str | None:
        """A line of input, or None at its end. Bytes that are not UTF-8 come back as U+FFFD: the
        stream is set to replace them where it can be; where not, a line that fails to decode
        reads as one U+FFFD, and a stream that fails again and again is taken as ended."""
        if not self.lenient:
            self.lenient = True
            # (Not a text stream of Python's: decoding errors are caught below.)
            with contextlib.suppress(AttributeError, ValueError, OSError):
                self.inp.reconfigure(errors="replace")
        try:
            line = self.inp.readline()
        except UnicodeDecodeError:
            self.undecodable += 1
            return "\ufffd" if self.undecodable < MAX_UNDECODABLE else None
        self.undecodable = 0
        return line or None


# A typed entry is shown back (echo, messages) at most this long, with anything unprintable as '?'.
SHOWN_CHARS = 60
# How many only moves in a row `play` tells one by one; the rest are summed up.
FORCED_SHOWN = 10
# `play` stops a game in which nobody has had a real choice (a decision with two options or more)
# for this many moves in a row: its rules may never end it.
STALL_MOVES = 10_000
# Decoding failures in a row after which the input is taken as ended (a stream that cannot recover).
MAX_UNDECODABLE = 3


def table_command(state, entry: str) -> str | None:
    """The answer to `rules` or `help MOVE` typed at the prompt (from the rules file's own
    descriptions: rulebook.py), or None for any other entry."""
    from .rulebook import move_help, rules_text, word_help

    words = entry.split(None, 1)
    if words[0].lower() == "rules" and len(words) == 1:
        return rules_text(state.game).rstrip("\n")
    if words[0].lower() not in ("help", "?", "h") or len(words) == 1:
        return None
    texts = state.move_texts()
    index = match_move(words[1], texts)
    if isinstance(index, int):
        return move_help(state, index)
    about = word_help(state.game, " ".join(words[1].lower().split()))
    if about is not None:
        return about + "\n(Not one of your moves now.)"
    return index


def shown(entry: str) -> str:
    """A typed entry as it may be shown back: printable, and short."""
    text = "".join(ch if ch.isprintable() else "?" for ch in entry[: SHOWN_CHARS + 1])
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def match_move(entry: str, texts: list[str]) -> int | str:
    """The index of the move a person typed (number, text, or a unique start of a text), or why not.
    Only ASCII digits make a number ('²' and '①' are digits to Python, not to int()), and a number
    too long to be a move's is just no move."""
    if entry.isascii() and entry.isdigit():
        k = int(entry) if len(entry) <= 9 else 0
        if 1 <= k <= len(texts):
            return k - 1
        return f"There is no move {shown(entry)}: type a number from 1 to {len(texts)}, or 'help'."
    found = match_text(entry, texts)
    if found is not None:
        return found
    want = normalize(entry)
    norm = [normalize(t) for t in texts]
    starts = [i for i, t in enumerate(norm) if t.startswith(want)]
    if len(starts) == 1:
        return starts[0]
    if len(starts) > 1:
        return f"'{shown(entry)}' could be: {', '.join(texts[i] for i in starts)}. Type more, or a number."
    return f"'{shown(entry)}' is not one of your moves. Type a number from 1 to {len(texts)}, or 'help'."


def _bot_specs(text: str, *, required: bool = False) -> list[str]:
    """The bot kinds of `--bots`, each checked before any game: a mistyped bot is a command-line
    mistake. Empty means random bots, unless `required` (the arena has no one else to play)."""
    from .bots import BotSpecError, make_bot

    specs = [s.strip() for s in text.split(",") if s.strip()]
    if not specs:
        if required:
            raise UsageError("--bots needs at least one bot, such as ismcts,random")
        return ["random"]
    try:
        for s in specs:
            make_bot(s, 0)
    except BotSpecError as e:
        raise UsageError(str(e)) from None
    return specs


def _check_run_sizes(args) -> None:
    """`--games` and `--max-moves`, where a command has them, must be at least 1."""
    if getattr(args, "games", None) is not None and args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.max_moves < 1:
        raise UsageError("--max-moves must be at least 1")


PLAY_BOT = "ismcts2"  # play's bots at a terminal: the strongest within ~1 s a decision (docs/bots.md)


def cmd_play(args, out: TextIO, err: TextIO, inp: TextIO) -> int:
    from .bots import make_bot

    game = _load(args)
    n = game.players
    if not 1 <= args.seat <= n:
        raise UsageError(f"--seat must be between 1 and {n} (the game has {n} players)")
    seat = args.seat - 1
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    # At a terminal the strongest bot that answers within a second; piped moves (a script, a
    # transcript) meet random bots by default, which answer at once and play as they always did.
    chosen = args.bots if args.bots is not None else PLAY_BOT if inp.isatty() else "random"
    specs = _bot_specs(chosen)
    bots = {p: make_bot(specs[(p - (p > seat)) % len(specs)], seed * 7919 + p) for p in range(n) if p != seat}
    try:
        state = game.new_game(seed)
    except RulesRuntimeError as e:
        print(f"error: the rules failed while setting up the game (seed {seed}): {e}", file=err)
        return EXIT_ERROR
    echo = not inp.isatty()
    human = Player(state, seat, inp, out, args.reveal, echo, args.memory)
    intro = (f"{game.name}: {n} players, seed {seed}. You are {game.names[seat]} (seat {seat + 1});",
             f"the others are {chosen} bots.")
    human.say(" ".join(intro) if len(" ".join(intro)) <= human.width() else "\n".join(intro))
    if game.params:
        human.say("Parameters: " + ", ".join(f"{k}={_show(v)}" for k, v in game.params.items()))
    if args.reveal:
        human.say("Spectator view (--reveal): every card is shown, the others' hidden cards too.")
    if args.memory:
        human.say("Memory mode: a face-down card you see is hidden again once that turn is over.")
    human.say("Type 'help' at any prompt.")
    stalled = 0  # moves since anyone last had a real choice
    try:
        while not state.is_over:
            stalled = stalled + 1 if state.num_moves() == 1 else 0
            if stalled > STALL_MOVES:
                print(f"error: nobody has had a real choice for {STALL_MOVES} moves (every decision had one "
                      f"option), so the game may never end; it stops here (seed {seed}, move {state.moves})",
                      file=err)
                return EXIT_ERROR
            who = state.current_player
            if who == seat:
                choice = human.decide()
                if choice is None or choice == QUIT:
                    human.say(f"(This game was seed {seed}: replay it with --seed {seed}.)")
                    return EXIT_OK if choice == QUIT else EXIT_ERROR
                state.apply_index(choice)
            else:
                state.apply_index(bots[who].choose(state))
        human.new_events()
        human.show()  # (a `show` of the rules may fail here too)
    except RulesRuntimeError as e:
        print(f"error: the rules failed during play (seed {seed}, move {state.moves}): {e}", file=err)
        return EXIT_ERROR
    winners = state.winners
    if seat in winners:
        human.say("You win!" if len(winners) == 1 else "You share the win!")
    elif not winners:
        human.say("No winner: everyone loses.")
    else:
        human.say("Winner: " + ", ".join(game.names[w] for w in winners) + ".")
    return EXIT_OK


def _show(v) -> str:
    return ("yes" if v else "no") if isinstance(v, bool) else str(v)


# ---------------------------------------------------------------- simulate


def cmd_simulate(args, out: TextIO, err: TextIO) -> int:
    from .simulate import SimulationError, simulate

    _check_run_sizes(args)
    workers, backend = _workers(args)
    game = _load(args)
    bots = _bot_specs(args.bots)
    seed = args.seed if args.seed is not None else 0
    try:
        with progress_bar(err, args.games, game.name) as progress:
            stats = simulate(game, args.games, seed, bots, args.max_moves, progress, workers, backend)
    except SimulationError as e:
        print(f"error: {e}", file=err)
        print(f"  replay: the game's seed is {e.seed}; moves (indices): {e.moves[-20:]}", file=err)
        return EXIT_ERROR
    data = stats.to_dict()
    if args.json:
        print(json.dumps(data), file=out)
        return EXIT_OK
    _print_stats(data, game, out)
    return EXIT_OK


def _print_stats(d: dict, game, out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, highlight=False)
    # (The heading on its own line, not the table's title: a title wraps at the narrow table's width.)
    console.print(f"{d['game']}: {d['games']} games, {d['players']} players, {'/'.join(d['bots'])} bots, "
                  f"seed {d['seed']}")
    t = Table(show_header=False)
    t.add_column("what")
    t.add_column("value", justify="right")
    rows = [
        ("games", f"{d['games']}"),
        ("moves", f"{d['moves']}"),
        ("seconds", f"{d['seconds']:.2f}"),
        ("moves/s", f"{d['moves_per_s']:,.0f}" if d["moves_per_s"] else "-"),
        ("mean moves per game", f"{d['mean_moves_per_game']:.1f}"),
        ("mean turns per game", f"{d['mean_turns_per_game']:.1f}"),
        ("mean rounds per game", f"{d['mean_rounds_per_game']:.2f}"),
        ("capped games", f"{d['capped']}"),
        ("shared wins", f"{d['shared_wins']}"),
    ]
    for name, w in zip(game.names, d["wins_by_seat"], strict=True):
        rows.append((f"wins: {name}", f"{w:.1f} ({w / max(1, d['games']):.1%})"))
    for name, v in d["counter_means"].items():
        rows.append((f"mean {name} (at the end)", f"{v:.3f}"))
    for name, v in d["statistics"].items():
        rows.append((f"{name} (mean)", f"{v:.3f}"))
    for r in rows:
        t.add_row(*r)
    console.print(t)


# ---------------------------------------------------------------- test and replay


def companion(path: str) -> str | None:
    """`games/x.rules` -> `games/x.test.rules`, if that file exists."""
    p = Path(path)
    if p.name.endswith(".test.rules"):
        return None
    other = p.with_name(p.name.removesuffix(".rules") + ".test.rules")
    return str(other) if other.exists() else None


def cmd_test(args, out: TextIO, err: TextIO) -> int:
    from .testing import PROFILES, check_properties, run_scenarios

    if args.profile not in PROFILES:
        raise UsageError(f"--profile must be one of {', '.join(PROFILES)}")
    _require("hypothesis", "rulesdsl test", "pip install rulesdsl installs it; here: pip install 'hypothesis>=6.100'")
    _check_run_sizes(args)
    files = [args.file] + ([companion(args.file)] if companion(args.file) else [])
    allowed = _allowed(args)
    for f in files:
        # a file that does not check stops here
        load(f, players=args.players, limits=_limits(args), allow_paths=allowed, **_parse_sets(args.set))
    say = _printer(out)
    failed = 0
    total = 0
    for f in files:
        for r in run_scenarios(f, allow_paths=allowed):
            total += 1
            say(f"  {'ok  ' if r.ok else 'FAIL'}  {r.name}", 8)
            if not r.ok:
                failed += 1
                say(f"        {r.failure}", 8)
    if total:
        say(f"scenarios: {total - failed} passed, {failed} failed", 4)
    target = files[-1]  # a companion imports the game: its invariants are the game's plus its own
    game = load(target, allow_paths=allowed)
    inv = len(game.invariants)
    how_many = f"{args.games} game{'s' if args.games != 1 else ''}" if args.games else f"{args.profile} profile"
    say(f"generated games ({how_many}): checking {inv} invariant{'s' if inv != 1 else ''} of "
        f"{Path(target).name} and the engine's own after every move...", 2)
    out.flush()
    with progress_bar(err, args.games or PROFILES[args.profile], "generated") as progress:
        res = check_properties(target, games=args.games, seed=args.seed, profile=args.profile,
                               max_moves=args.max_moves, players=args.players, params=_parse_sets(args.set),
                               limits=_limits(args), allow_paths=allowed, progress=progress)
    if res.ok:
        say(f"generated games: {res.games} game{'s' if res.games != 1 else ''}, {res.moves} moves, no failure", 4)
    else:
        failed += 1
        t = res.transcript
        say(f"generated games: FAILED after {res.games} good games", 4)
        say(f"  {res.failure}")
        if t is not None:
            saved = t.save(Path(args.save_dir) / f"{Path(target).name.removesuffix('.rules')}-{t.seed}.json")
            say(f"  shrunk to {len(t.moves)} moves: {t.players} players, parameters {t.params}, seed {t.seed}")
            shown = ", ".join(t.moves[:40]) + (f", ... ({len(t.moves) - 40} more)" if len(t.moves) > 40 else "")
            say("  moves: " + (shown if t.moves else "(none: it fails during setup)"))
            say(f"  transcript: {saved}")
            also = "".join(f" --allow-path {d}" for d in allowed)  # (the replay reads what the test read)
            # (The one line left whole, to be copied: only its paths make it wider than the screen.)
            print(f"  replay it:  rulesdsl replay {target} {saved}{also}", file=out)
    return EXIT_ERROR if failed else EXIT_OK


# A transcript larger than this is refused unread (a failing game's is a few kilobytes).
MAX_TRANSCRIPT_BYTES = 16 * 1024 * 1024


def cmd_replay(args, out: TextIO, err: TextIO) -> int:
    from .testing import Failure, Transcript, replay

    path = Path(args.transcript)
    try:
        if not path.exists():
            raise UsageError(f"no such transcript: {args.transcript}")
        if not path.is_file():  # a folder, a device or a pipe (which could block or never end)
            raise UsageError(f"cannot read the transcript {args.transcript}: it is not a regular file")
        with path.open("rb") as f:
            text = f.read(MAX_TRANSCRIPT_BYTES + 1)
    except OSError as e:
        raise UsageError(f"cannot read the transcript {args.transcript}: {e.strerror or e}") from None
    if len(text) > MAX_TRANSCRIPT_BYTES:
        raise UsageError(f"{args.transcript} is not a transcript: it is larger than {MAX_TRANSCRIPT_BYTES} bytes")
    try:
        t = Transcript.from_json(text)
    except ValueError as e:
        raise UsageError(f"{args.transcript} is not a transcript this version can replay: {e}") from None
    if args.seat is not None and not 1 <= args.seat <= t.players:
        raise UsageError(f"--seat must be between 1 and {t.players}")
    print(f"Replaying {args.file}: {t.players} players, parameters {t.params}, seed {t.seed}, "
          f"{len(t.moves)} moves.", file=out)
    try:
        for k, (st, move) in enumerate(replay(t, args.file, _limits(args), _allowed(args)), 1):
            seat = args.seat - 1 if args.seat is not None else (st.chooser if not st.is_over else 0)
            if not args.quiet or move is None:
                print("", file=out)
                # (The rules file's names, not the display names: a replay is read against the rules.)
                print(render_view(st, seat, reveal=args.reveal, events=0, width=terminal_width(out)), file=out)
            if move is not None:
                print(f"--> move {k}: {st.game.names[st.chooser]}: {move}", file=out)
    except Failure as f:
        if str(f).startswith("the transcript does not fit"):
            print(f"\n{f}", file=out)
        else:
            print(f"\nThe failure is reproduced: {f}", file=out)
        return EXIT_ERROR
    print("\nThe transcript replays to its end with no failure.", file=out)
    return EXIT_OK


# ---------------------------------------------------------------- compare and explain


def cmd_compare(args, out: TextIO, err: TextIO) -> int:
    from .compare import compare_stats, run_comparison
    from .simulate import SimulationError

    _check_run_sizes(args)
    workers, backend = _workers(args)
    bots = _bot_specs(args.bots)
    files = [args.base, *args.variants]
    params = _parse_sets(args.set)
    limits = _limits(args)
    allowed = _allowed(args)
    # every file checks first
    games = [load(f, players=args.players, limits=limits, allow_paths=allowed, **params) for f in files]
    if args.plot:
        _require("matplotlib", "--plot", "pip install 'rulesdsl[plot]'")
    seed = args.seed if args.seed is not None else 0
    try:
        with progress_bar(err, args.games * len(files), f"{len(files)} files") as progress:
            stats = run_comparison(files, args.games, args.players, params, seed, bots, args.max_moves, workers,
                                   backend, games, limits=limits, allow_paths=allowed, progress=progress)
    except SimulationError as e:
        print(f"error: {e}", file=err)
        return EXIT_ERROR
    metrics = compare_stats(stats)
    names = [g.name for g in games]
    if args.json:
        print(json.dumps({
            "files": files, "names": names, "games": args.games, "players": stats[0].players, "seed": seed,
            "bots": bots, "capped": [s.capped for s in stats], "seconds": [round(s.seconds, 3) for s in stats],
            "metrics": [{"name": m.name, "kind": m.kind, "values": [round(v, 4) for v in m.values],
                         "spreads": [[round(x, 4) for x in s] for s in m.spreads],
                         "p": [None if p is None else round(p, 6) for p in m.p]} for m in metrics],
        }), file=out)
    else:
        _print_comparison(names, files, stats, metrics, out)
    if args.plot:
        _plot(args.plot, names, stats)
        print(f"plot written to {args.plot}", file=out)
    return EXIT_OK


def _print_comparison(names, files, stats, metrics, out: TextIO) -> None:
    """The metrics by file, the base first; at a terminal too narrow for every file, in several
    tables, each the base and as many variants as fit."""
    from rich.console import Console

    console = Console(file=out, highlight=False)
    console.print(f"{stats[0].games} games each, {stats[0].players} players, the same seeds "
                  f"(from {stats[0].seed}), {'/'.join(stats[0].bots)} bots")
    columns = [_comparison_column(i, names, files, stats, metrics) for i in range(len(names))]
    labels = [m.name for m in metrics] + ["capped games"]
    unbounded = console.options.update_width(10_000)  # (a measure within the width says nothing)

    def fits(which: list[int]) -> bool:
        return console.measure(_comparison_table(labels, columns, which), options=unbounded).maximum <= console.width

    def table(which: list[int]):
        # (Headings kept whole where they fit, else cut short: never a table wider than the terminal.)
        return _comparison_table(labels, columns, which, whole=fits(which))

    shown: list[int] = []
    for i in range(1, len(names)):
        if shown and not fits([0, *shown, i]):
            console.print(table([0, *shown]))
            shown = []
        shown.append(i)
    console.print(table([0, *shown]))
    console.print("mean ± standard deviation; win rates with 95% intervals (a shared win counts 1/k). "
                  "* differs from the base with p < 0.05, ** with p < 0.001 (Welch's t-test for means, "
                  "a two-proportion z-test for rates).")


def _comparison_column(i: int, names, files, stats, metrics) -> tuple[str, list[str]]:
    """File i's heading and cells, one a metric, then its capped games."""
    cells = []
    for m in metrics:
        v, spread, p = m.values[i], m.spreads[i], m.p[i]
        cell = f"{v:.1%} [{spread[0]:.1%}, {spread[1]:.1%}]" if m.kind == "rate" else f"{v:.2f} ± {spread[0]:.2f}"
        if p is not None:
            cell += " **" if p < 0.001 else " *" if p < 0.05 else ""
        cells.append(cell)
    return ("base: " if i == 0 else "") + names[i] + f"\n{Path(files[i]).name}", [*cells, str(stats[i].capped)]


def _comparison_table(labels: list[str], columns: list[tuple[str, list[str]]], which: list[int], whole: bool = True):
    from rich.table import Table

    t = Table(show_lines=False)
    t.add_column("")
    for i in which:
        heading = columns[i][0]
        t.add_column(heading, justify="right", min_width=max(map(len, heading.split("\n"))) if whole else None)
    for k, name in enumerate(labels):
        t.add_row(name, *[columns[i][1][k] for i in which])
    return t


def _plot(path: str, names: list[str], stats) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    for name, s in zip(names, stats, strict=True):
        a.hist([r.moves for r in s.records if not r.capped], bins=40, histtype="step", label=name)
    a.set_xlabel("moves per game")
    a.set_ylabel("games")
    a.legend(fontsize="small")
    width = 0.8 / len(stats)
    seats = range(min(s.players for s in stats))
    for k, (name, s) in enumerate(zip(names, stats, strict=True)):
        n = max(1, sum(1 for r in s.records if not r.capped))
        b.bar([x + k * width for x in seats], [s.wins_by_seat()[x] / n for x in seats], width, label=name)
    b.set_xticks([x + width * (len(stats) - 1) / 2 for x in seats], [f"seat {x + 1}" for x in seats])
    b.set_ylabel("win rate")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def cmd_explain(args, out: TextIO, err: TextIO) -> int:
    from . import ast
    from .loader import resolve, source_of

    load(args.file, allow_paths=_allowed(args))  # only a valid game is explained
    r = resolve(args.file, _allowed(args))
    if args.diff:
        if r.base is None:
            raise UsageError(f"{args.file} extends no other file: there is no base to differ from")
        print(f"# What {args.file} changes in {r.base}", file=out)
        for d in r.own:
            if isinstance(d, ast.Import):
                continue
            print("", file=out)
            print(source_of(d, r.sources), file=out)
        for d in r.removed:
            print("", file=out)
            print(source_of(d, r.sources), file=out)
        return EXIT_OK
    head = f"# {args.file}" + (f", a variant of {r.base}, with everything resolved" if r.base else ", resolved")
    print(head, file=out)
    last_file = None
    for d in r.decls:
        if d.span.file != last_file:
            print(f"\n# ---- from {d.span.file}", file=out)
            last_file = d.span.file
        print("", file=out)
        text = source_of(d, r.sources)
        if isinstance(d, ast.Param) and d.low is not None and " in " not in text.split("#")[0]:
            text += f"  # in {d.low}..{d.high}, the base's range"
        print(text, file=out)
    return EXIT_OK


# ---------------------------------------------------------------- arena


def cmd_arena(args, out: TextIO, err: TextIO) -> int:
    from .arena import run_arena, seat_counts, summarize
    from .simulate import SimulationError

    _check_run_sizes(args)
    if (args.bots is None) == (args.ladder is None):
        raise UsageError("give either --bots (a line-up) or --ladder (bots to rate against each other)")
    if args.ladder is not None:
        return _ladder(args, out, err)
    workers, backend = _workers(args)
    bots = _bot_specs(args.bots, required=True)
    seed = args.seed if args.seed is not None else 0
    try:
        with progress_bar(err, args.games, Path(args.file).name.removesuffix(".rules")) as progress:
            game, lineup, records = run_arena(args.file, bots, args.games, args.players, _parse_sets(args.set), seed,
                                              workers, args.max_moves, backend, _limits(args), _allowed(args),
                                              progress)
    except ValueError as e:  # more bots than seats
        raise UsageError(str(e)) from None
    except SimulationError as e:
        print(f"error: {e}", file=err)
        return EXIT_ERROR
    rows = summarize(records, lineup)
    capped = sum(r.capped for r in records)
    if args.json:
        print(json.dumps({
            "game": game.name, "file": args.file, "games": len(records), "players": game.players,
            "params": game.params, "seed": seed, "lineup": lineup, "capped": capped,
            "bots": [{"bot": r.bot, "seats": r.seats, "games": r.games, "wins": round(r.wins, 3),
                      "win_rate": round(r.rate, 4), "interval": [round(x, 4) for x in r.interval],
                      "decisions": r.choices} for r in rows],
            "by_seat": seat_counts(records, game.players),
            "seconds": {"per_decision": {r.bot: round(r.seconds_per_choice, 5) for r in rows},
                        "slowest": {r.bot: round(r.slowest, 4) for r in rows}},
        }), file=out)
        return EXIT_OK
    n = game.players
    say = _printer(out)
    say(f"{game.name}: {len(records)} games, {n} players, seed {seed}.")
    say(f"Line-up {', '.join(lineup)}, rotated one seat each game.")
    width = max(12, *(len(r.bot) for r in rows))
    say(f"{'bot':<{width}}  seats  seat-games    wins  win rate  95% interval")
    for r in rows:
        lo, hi = r.interval
        say(f"{r.bot:<{width}}  {r.seats:>5}  {r.games:>10}  {r.wins:>6.1f}  {r.rate:>8.1%}  [{lo:.1%}, {hi:.1%}]")
    say(f"A shared win counts 1/k; chance is {1 / n:.1%} a seat. Capped games (no winner): {capped}.")
    for r in rows:
        say(f"{r.bot}: {r.choices} decisions, {r.seconds_per_choice:.4f} seconds a decision on average, "
            f"slowest {r.slowest:.3f}")
    return EXIT_OK


def _ladder(args, out: TextIO, err: TextIO) -> int:
    """`arena --ladder`: every two bots play --games games; Elo ratings with 95% intervals."""
    from .arena import ratings, run_ladder
    from .simulate import SimulationError

    workers, backend = _workers(args)
    bots = _bot_specs(args.ladder, required=True)
    if len(bots) < 2 or len(set(bots)) != len(bots):
        raise UsageError("--ladder needs at least two different bots, such as random,ismcts,ismcts2")
    seed = args.seed if args.seed is not None else 0
    pairs = len(bots) * (len(bots) - 1) // 2
    try:
        with progress_bar(err, args.games * pairs, Path(args.file).name.removesuffix(".rules")) as progress:
            game, pairings = run_ladder(args.file, bots, args.games, args.players, _parse_sets(args.set), seed,
                                        workers, args.max_moves, backend, _limits(args), _allowed(args), progress)
    except SimulationError as e:
        print(f"error: {e}", file=err)
        return EXIT_ERROR
    rows = ratings(bots, pairings, seed=seed)
    if args.json:
        print(json.dumps({
            "game": game.name, "file": args.file, "games": args.games, "players": game.players,
            "params": game.params, "seed": seed, "anchor": bots[0],
            "ladder": [{"bot": r.bot, "elo": round(r.elo, 1), "interval": [round(x, 1) for x in r.interval],
                        "score": round(r.score, 4), "comparisons": r.comparisons, "decisions": r.choices,
                        "per_decision": round(r.seconds_per_choice, 5), "slowest": round(r.slowest, 4)}
                       for r in rows],
            "pairings": [{"bots": list(p.bots), "lineup": p.lineup, "capped": sum(g.capped for g in p.records)}
                         for p in pairings],
        }), file=out)
        return EXIT_OK
    say = _printer(out)
    say(f"{game.name}: a ladder of {len(bots)} bots, {args.games} games a pairing, {game.players} players, "
        f"seed {seed}.")
    width = max(12, *(len(r.bot) for r in rows))
    say(f"{'bot':<{width}}     Elo  95% interval    score  pairs")
    for r in rows:
        lo, hi = r.interval
        span = "(anchor)" if r.bot == bots[0] else f"[{lo:.0f}, {hi:.0f}]"
        say(f"{r.bot:<{width}}  {r.elo:>6.0f}  {span:<13} {r.score:>6.1%}  {r.comparisons:>5}")
    say(f"Elo by maximum likelihood (Bradley-Terry) from each game's pairs of seats held by two bots, "
        f"{bots[0]} at 0; 95% intervals from 200 resamples of the games. score: the share of its pairs a bot "
        f"won (ahead by the share of the win, then by rank; level counts half).")
    for r in rows:
        say(f"{r.bot}: {r.choices} decisions, {r.seconds_per_choice:.4f} seconds a decision on average, "
            f"slowest {r.slowest:.3f}")
    return EXIT_OK


def _printer(out: TextIO) -> Callable[..., None]:
    """print() to `out`, each line wrapped to the terminal's width (80 columns without one),
    continued two spaces in from its own indent unless `indent` says where."""
    width = terminal_width(out)

    def say(text: str, indent: int | None = None) -> None:
        for line in text.split("\n"):
            ind = 2 + len(line) - len(line.lstrip()) if indent is None else indent
            print("\n".join(wrap(line, width, ind)), file=out)

    return say


# ---------------------------------------------------------------- list

LIST_HEADINGS = {
    "game": "Games",
    "variant": "Variants (house rules; `rulesdsl explain NAME --diff` shows what each changes)",
    "example": "Examples",
    "prelude": 'Preludes (in a rules file: import prelude "NAME")',
}


def cmd_list(args, out: TextIO, err: TextIO) -> int:
    from . import __version__
    from .bundled import GAMES
    from .catalog import catalog

    if GAMES is None:
        print("error: this installation of rulesdsl has no bundled games (its rulesdsl/games folder is missing); "
              "reinstall it: pip install --force-reinstall rulesdsl", file=err)
        return EXIT_ERROR
    entries = catalog()
    width = max(len(e.name) for e in entries)
    print(f"The games bundled with rulesdsl {__version__} ({GAMES}). Any command takes a NAME in place of a "
          f"file: rulesdsl play NAME", file=out)
    for kind, heading in LIST_HEADINGS.items():
        rows = [e for e in entries if e.kind == kind]
        if rows:
            print(f"\n{heading}:", file=out)
        for e in rows:
            players = f"{e.players} players" if e.players else ""
            print(f"  {e.name:<{width}}  {players:<11}  {e.summary}".rstrip(), file=out)
    return EXIT_OK


# ---------------------------------------------------------------- new

MAX_NAME = 64


def cmd_new(args, out: TextIO, err: TextIO) -> int:
    from .bundled import DOCS, is_name, new_game

    name = args.name
    if name.endswith(".rules") and is_name(name.removesuffix(".test.rules").removesuffix(".rules")):
        raise UsageError(f"NAME is the game's name, without .rules: rulesdsl new "
                         f"{name.removesuffix('.test.rules').removesuffix('.rules')}")
    if not is_name(name) or len(name) > MAX_NAME:
        raise UsageError(f"'{shown(name)}' cannot name a game: use letters, digits, '_' and '-' (not first), "
                         f"at most {MAX_NAME}, and no folder: rulesdsl new my_game")
    files = new_game(name)
    there = [f for f in files if Path(f).exists() or Path(f).is_symlink()]
    if there:
        raise UsageError(f"{' and '.join(there)} already exist{'s' if len(there) == 1 else ''}: "
                         "nothing was written (choose another NAME, or move the files away)")
    written: list[str] = []
    try:
        for f, text in files.items():
            with open(f, "x", encoding="utf-8") as stream:
                written.append(f)
                stream.write(text)
    except OSError as e:
        for f in written:  # (half a start is no start)
            with contextlib.suppress(OSError):
                Path(f).unlink()
        print(f"error: cannot write {e.filename or 'the files'}: {(e.strerror or str(e)).lower()}; "
              "nothing was written", file=err)
        return EXIT_ERROR
    game, tests = files
    print(f"Wrote {game} (a small game on the standard deck) and {tests} (its tests). Next:", file=out)
    for line in (f"rulesdsl check {game}", f"rulesdsl play {game}", f"rulesdsl simulate {game} --games 1000",
                 f"rulesdsl test {game}"):
        print(f"  {line}", file=out)
    where = f"{DOCS / 'language.md'}" if DOCS is not None else "docs/language.md"
    print(f"Each part of {game} says where the language reference ({where}) describes it.", file=out)
    return EXIT_OK


# ---------------------------------------------------------------- main


class _Parser(argparse.ArgumentParser):
    """argparse writing its messages to the streams `main` was given (tests, embedding)."""

    streams: tuple[TextIO, TextIO] | None = None

    def _print_message(self, message, file=None):
        if message and self.streams is not None:
            out, err = self.streams
            (out if file is sys.stdout else err).write(message)
        else:
            super()._print_message(message, file)


def _parallel_options(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--workers", type=int, metavar="N", help="processes (default: one per core)")
    sp.add_argument("--backend", default="process", metavar="process|ray",
                    help="where the workers run: local processes (default) or Ray (pip install 'rulesdsl[ray]')")


def _game_options(sp: argparse.ArgumentParser) -> None:
    """--players and --set: which game of a file is meant (`test` has its own: it plays many)."""
    sp.add_argument("--players", type=int, metavar="N", help="number of players (default: the file's)")
    sp.add_argument("--set", action="append", metavar="NAME=VALUE", help="set a parameter (repeatable)")


def _allow_path_option(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--allow-path", action="append", metavar="DIR",
                    help="a folder imports may also read from (repeatable; default: the file's project "
                         "and the preludes)")


def _limit_option(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--limit", action="append", metavar="NAME=VALUE",
                    help="raise a limit of a run (repeatable): steps, depth, places, list, digits, "
                         "sets (see docs/language.md, Limits)")


def _add_check(sub) -> None:
    c = sub.add_parser("check", help="check rules files; print located errors")
    c.add_argument("files", nargs="+", metavar="FILE")
    _game_options(c)
    _allow_path_option(c)


def _add_rules(sub) -> None:
    sp = sub.add_parser("rules", help="print a game's rules in player language, from its rules file")
    sp.add_argument("file", help="the rules file")
    _game_options(sp)
    _allow_path_option(sp)


def _add_play(sub) -> None:
    pl = sub.add_parser("play", help="play at the terminal against bots")
    pl.add_argument("file", metavar="FILE")
    _game_options(pl)
    _allow_path_option(pl)
    _limit_option(pl)
    pl.add_argument("--seat", type=int, default=1, metavar="K", help="your seat, 1..N (default 1)")
    pl.add_argument("--seed", type=int, metavar="S", help="the game's seed (default: random, printed)")
    pl.add_argument("--bots", metavar="KIND",
                    help=f"the other players: {PLAY_BOT} (default at a terminal; random when moves are piped), "
                         "random, greedy[:WORLDS], ismcts[:ITERATIONS]")
    pl.add_argument("--reveal", action="store_true", help="spectator view: show every card (for debugging)")
    pl.add_argument("--memory", action="store_true",
                    help="play from memory: a face-down card you saw shows as ? after the turn you saw it")


def _add_simulate(sub) -> None:
    s = sub.add_parser("simulate", help="bots play many games; print statistics")
    s.add_argument("file", metavar="FILE")
    _game_options(s)
    _allow_path_option(s)
    _limit_option(s)
    s.add_argument("--games", type=int, default=100, metavar="N", help="games to play (default 100)")
    s.add_argument("--seed", type=int, metavar="S", help="first game's seed (default 0); game i uses S+i")
    s.add_argument("--bots", default="random", metavar="KIND[,KIND...]",
                   help="bots by seat: random (default), greedy[:WORLDS], ismcts[:ITERATIONS]")
    s.add_argument("--max-moves", type=int, default=20_000, metavar="M",
                   help="stop a game after M moves and count it as capped (default 20000)")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    _parallel_options(s)


def _add_test(sub) -> None:
    t = sub.add_parser("test", help="run a file's scenarios, then generated games against its invariants")
    t.add_argument("file", metavar="FILE")
    t.add_argument("--players", type=int, metavar="N", help="play only this many players (default: every count)")
    t.add_argument("--set", action="append", metavar="NAME=VALUE",
                   help="fix a parameter (default: generated within its range); repeatable")
    _allow_path_option(t)
    _limit_option(t)
    t.add_argument("--games", type=int, metavar="N", help="generated games (default: from the profile)")
    t.add_argument("--seed", type=int, metavar="S", help="seed the generation (default: fixed, reproducible)")
    t.add_argument("--profile", default="ci", metavar="ci|long", help="ci: 50 games (default); long: 1000")
    t.add_argument("--max-moves", type=int, default=10_000, metavar="M",
                   help="a game longer than this fails: it may never end (default 10000)")
    t.add_argument("--save-dir", default=".rulesdsl/failures", metavar="DIR",
                   help="where a failing game's transcript is written")


def _add_compare(sub) -> None:
    c = sub.add_parser("compare", help="play a base game and its variants on the same seeds; show differences")
    c.add_argument("base", metavar="BASE")
    c.add_argument("variants", nargs="+", metavar="VARIANT")
    _game_options(c)
    _allow_path_option(c)
    _limit_option(c)
    c.add_argument("--games", type=int, default=1000, metavar="N", help="games per file (default 1000)")
    c.add_argument("--seed", type=int, metavar="S", help="first game's seed (default 0)")
    c.add_argument("--bots", default="random", metavar="KIND[,KIND...]",
                   help="bots by seat: random (default), greedy[:WORLDS], ismcts[:ITERATIONS]")
    c.add_argument("--max-moves", type=int, default=20_000, metavar="M", help="cap on a game's moves")
    _parallel_options(c)
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.add_argument("--plot", metavar="FILE.png", help="draw game lengths and win rates (needs matplotlib)")


def _add_arena(sub) -> None:
    a = sub.add_parser("arena", help="bots against bots, seats rotated: win rates with 95%% intervals")
    a.add_argument("file", metavar="FILE")
    _game_options(a)
    _allow_path_option(a)
    _limit_option(a)
    a.add_argument("--bots", metavar="KIND[,KIND...]",
                   help="the line-up, one bot a seat, repeated if shorter: e.g. ismcts,random,random,random")
    a.add_argument("--ladder", metavar="KIND,KIND[,KIND...]",
                   help="instead of --bots: every two of these bots play --games games; prints Elo ratings")
    a.add_argument("--games", type=int, default=100, metavar="N",
                   help="games to play (default 100); with --ladder, for each pairing")
    a.add_argument("--seed", type=int, metavar="S", help="first deal's seed (default 0)")
    a.add_argument("--max-moves", type=int, default=20_000, metavar="M", help="cap on a game's moves")
    _parallel_options(a)
    a.add_argument("--json", action="store_true", help="print one JSON object")


def _add_explain(sub) -> None:
    e = sub.add_parser("explain", help="print the game as it will run, after extends and overrides")
    e.add_argument("file", metavar="FILE")
    e.add_argument("--diff", action="store_true", help="only what the file changes in its base")
    _allow_path_option(e)


def _add_replay(sub) -> None:
    r = sub.add_parser("replay", help="play a transcript back, step by step")
    r.add_argument("file", metavar="FILE")
    r.add_argument("transcript", metavar="TRANSCRIPT")
    _allow_path_option(r)
    _limit_option(r)
    r.add_argument("--seat", type=int, metavar="K", help="show this seat's view (default: whoever moves)")
    r.add_argument("--reveal", action="store_true", help="show every card (the full state)")
    r.add_argument("--quiet", action="store_true", help="show only the moves and the end")


def _add_new(sub) -> None:
    n = sub.add_parser("new", help="start a new game: write NAME.rules and NAME.test.rules here")
    n.add_argument("name", metavar="NAME", help="the game's name: letters, digits, '_' and '-'")


def _add_list(sub) -> None:
    sub.add_parser("list", help="list the bundled games, variants and preludes")


def _add_lsp(sub) -> None:
    sp = sub.add_parser("lsp", help="run the language server over stdio, for editors (docs/editors.md)")
    _allow_path_option(sp)


def _add_fmt(sub) -> None:
    f = sub.add_parser("fmt", help="lay rules files out in the house style (comments kept); docs/cli.md")
    f.add_argument("paths", nargs="+", metavar="FILE", help="a rules file to rewrite, or - (stdin to stdout)")
    f.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")


def cmd_fmt(args, out: TextIO, err: TextIO, inp: TextIO) -> int:
    from .fmt import format_files

    return format_files(args.paths, args.check, inp, out, err)


def cmd_lsp(args, out: TextIO, err: TextIO) -> int:
    _require("pygls", "rulesdsl lsp", "pip install 'rulesdsl[lsp]'")
    from .lsp.server import main as serve

    serve(_allowed(args))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="rulesdsl", description="Card-game rules as data: check, play, simulate, test.")
    p.add_argument("--version", action="version", version=f"rulesdsl {__import__('rulesdsl').__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for add in (_add_check, _add_rules, _add_play, _add_simulate, _add_test, _add_compare, _add_arena, _add_explain,
                _add_replay, _add_list, _add_new, _add_fmt, _add_lsp):
        add(sub)
    return p


def main(argv: list[str] | None = None, *, stdin: TextIO | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    inp = stdin or sys.stdin
    parser = build_parser()
    _Parser.streams = (out, err)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    finally:
        _Parser.streams = None
    if args.command is None:
        parser.print_help(out)
        return EXIT_USAGE
    try:
        _limits(args)  # a bad --limit stops any command before it reads a file
        _bundled_names(args)
        if args.command == "list":
            return cmd_list(args, out, err)
        if args.command == "new":
            return cmd_new(args, out, err)
        if args.command == "check":
            return cmd_check(args, out, err)
        if args.command == "rules":
            return cmd_rules(args, out, err)
        if args.command == "lsp":
            return cmd_lsp(args, out, err)
        if args.command == "fmt":
            return cmd_fmt(args, out, err, inp)
        if args.command == "play":
            return cmd_play(args, out, err, inp)
        if args.command == "simulate":
            return cmd_simulate(args, out, err)
        if args.command == "test":
            return cmd_test(args, out, err)
        if args.command == "replay":
            return cmd_replay(args, out, err)
        if args.command == "compare":
            return cmd_compare(args, out, err)
        if args.command == "arena":
            return cmd_arena(args, out, err)
        if args.command == "explain":
            return cmd_explain(args, out, err)
    except RulesError as e:
        print(e.format(), file=err)
        return EXIT_USAGE if _bad_parameters(e) else EXIT_ERROR
    except UsageError as e:
        print(f"rulesdsl {args.command}: error: {e}", file=err)
        return EXIT_USAGE
    except RulesRuntimeError as e:  # a rule that failed where a command did not expect it (a view, a replay)
        print(f"error: {e}", file=err)
        return EXIT_ERROR
    except IllegalMove as e:  # pragma: no cover - the CLI validates moves before applying them
        print(f"error: {e}", file=err)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("\ninterrupted", file=err)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
