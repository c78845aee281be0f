"""How long the language server takes to give a file's diagnostics after an edit (issue 24: under
100 ms for games/tamalo.rules).

Three figures, each the median (and the 90th percentile) of many edits, since the machine is
shared and one timing says little:

- `load`: what `rulesdsl check` does from nothing (read, parse the game and its prelude, check,
  compile): the cost without the server's cache;
- `analysis`: the server's own work after an edit (the edited file parsed, its imports taken from
  the cache, checked, compiled, its names indexed), in process; and the same for the file with a
  syntax error (its declarations parsed one by one, for the symbols of those that parse);
- `protocol`: from the moment an editor sends `textDocument/didChange` to the moment it receives
  `textDocument/publishDiagnostics`, through pygls over stdio (JSON encoding, pipes, the event loop).

Wall time counts the waits of a shared machine; CPU time (of this process, or for the protocol of
the server's) does not, and is the better measure of the work when others run.

Each edit changes the file (a comment line grows), so nothing is answered from a cache of the
whole file. `python bench/lsp_speed.py [--edits N] [FILE]` prints a table in Markdown.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulesdsl import load  # noqa: E402
from rulesdsl.lsp.analysis import Workspace  # noqa: E402


def edited(text: str, i: int, where: str = "end") -> str:
    """The file after the i-th keystroke. `end`: a comment at its end, one letter longer each
    time. `line`: a comment typed in the middle of the file (in the first `{` block), on a line
    of its own, so that every declaration below it moves down a line."""
    if where == "end":
        return text + "\n# " + "x" * (i + 1) + "\n"
    at = text.index("{\n") + 2
    return text[:at] + "    # " + "x" * (i + 1) + "\n" + text[at:]


def time_load(path: Path, n: int) -> list[tuple[float, float]]:
    out = []
    for _ in range(n):
        t, c = time.perf_counter(), time.process_time()
        load(path)
        out.append((time.perf_counter() - t, time.process_time() - c))
    return out


def time_analysis(path: Path, n: int, broken: bool = False, where: str = "end") -> list[tuple[float, float]]:
    """The server's analysis after each edit; `broken`: of a file with a syntax error in its
    first block (the declarations around it parsed one by one, for their symbols)."""
    ws = Workspace()
    text = path.read_text(encoding="utf-8")
    ws.analyze(str(path), text)  # the file opened: its imports parsed once
    if broken:
        text = text.replace("{\n", "{{\n", 1)  # (the first block's brace: a `{` in a text is no syntax)
    out = []
    for i in range(n):
        t, c = time.perf_counter(), time.process_time()
        a = ws.analyze(str(path), edited(text, i, where))
        out.append((time.perf_counter() - t, time.process_time() - c))
        errors = [d for d in a.diagnostics if d.severity == "error"]
        assert len(errors) == broken and a.symbols, a.diagnostics
    return out


async def _time_protocol(path: Path, n: int) -> list[tuple[float, float]]:
    client = LanguageClient("bench", "1")
    got: asyncio.Queue = asyncio.Queue()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: lsp.PublishDiagnosticsParams) -> None:
        got.put_nowait((time.perf_counter(), params))

    await client.start_io(sys.executable, "-m", "rulesdsl.cli", "lsp")
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    client.initialized(lsp.InitializedParams())
    uri = from_fs_path(str(path.resolve()))
    text = path.read_text(encoding="utf-8")
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "rules", 0, text)))
    await got.get()
    out = []
    pid = client._server.pid  # (the server's CPU time is read from /proc, where there is one)
    for i in range(n):
        cpu = _cpu_of(pid)
        sent = time.perf_counter()
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(i + 1, uri),
            [lsp.TextDocumentContentChangeWholeDocument(edited(text, i))]))
        arrived, params = await got.get()
        assert params.version == i + 1 and not params.diagnostics, params
        out.append((arrived - sent, _cpu_of(pid) - cpu))
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return out


def _cpu_of(pid: int) -> float:
    """A process's CPU time so far, in seconds (user and system), or NaN where /proc is not."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_protocol(path: Path, n: int) -> list[tuple[float, float]]:
    return asyncio.run(_time_protocol(path, n))


def row(what: str, times: list[tuple[float, float]], cpu: str = "median") -> str:
    """Wall times (median, 90th percentile, fastest) and the CPU time: its median, or for the
    server (read in clock ticks of 10 ms) its mean over the edits."""
    ms = sorted(w * 1000 for w, _ in times)
    p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
    cpus = [c * 1000 for _, c in times]
    used = statistics.median(cpus) if cpu == "median" else statistics.fmean(cpus)
    return f"| {what} | {len(ms)} | {statistics.median(ms):.1f} | {p90:.1f} | {ms[0]:.1f} | {used:.1f} ({cpu}) |"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(ROOT / "games" / "tamalo.rules"))
    ap.add_argument("--edits", type=int, default=100, help="edits timed for each figure (default 100)")
    args = ap.parse_args(argv)
    path = Path(args.file)
    print(f"Diagnostics of {path.name} after an edit, in milliseconds (wall time):\n")
    print("| what | edits | wall: median | 90th percentile | fastest | CPU |")
    print("|---|---:|---:|---:|---:|---:|")
    print(row("`load` (check from nothing, no cache)", time_load(path, args.edits)))
    print(row("analysis in the server (imports cached)", time_analysis(path, args.edits)))
    print(row("the same, typing in the middle, on a line of its own", time_analysis(path, args.edits, where="line")))
    print(row("the same, the file with a syntax error", time_analysis(path, args.edits, broken=True)))
    print(row("didChange to publishDiagnostics, over stdio (CPU: the server's)", time_protocol(path, args.edits),
              "mean"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
