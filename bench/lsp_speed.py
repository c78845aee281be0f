"""How long the language server takes to give a file's diagnostics after an edit (issue 24: under
100 ms for games/tamalo.rules).

Three figures, each the median (and the 90th percentile) of many edits, since the machine is
shared and one timing says little:

- `load`: what `rulesdsl check` does from nothing (read, parse the game and its prelude, check,
  compile): the cost without the server's cache;
- `analysis`: the server's own work after an edit (the edited file parsed, its imports taken from
  the cache, checked, compiled, its names indexed), in process;
- `protocol`: from the moment an editor sends `textDocument/didChange` to the moment it receives
  `textDocument/publishDiagnostics`, through pygls over stdio (JSON encoding, pipes, the event loop).

Each edit changes the file (a comment line grows), so nothing is answered from a cache of the
whole file. `python bench/lsp_speed.py [--edits N] [FILE]` prints a table in Markdown.
"""

from __future__ import annotations

import argparse
import asyncio
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


def edited(text: str, i: int) -> str:
    """The file after the i-th keystroke: a comment at its end, one letter longer each time."""
    return text + "\n# " + "x" * (i + 1) + "\n"


def time_load(path: Path, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        load(path)
        out.append(time.perf_counter() - t)
    return out


def time_analysis(path: Path, n: int) -> list[float]:
    ws = Workspace()
    text = path.read_text(encoding="utf-8")
    ws.analyze(str(path), text)  # the file opened: its imports parsed once
    out = []
    for i in range(n):
        t = time.perf_counter()
        a = ws.analyze(str(path), edited(text, i))
        out.append(time.perf_counter() - t)
        assert not [d for d in a.diagnostics if d.severity == "error"], a.diagnostics
    return out


async def _time_protocol(path: Path, n: int) -> list[float]:
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
    for i in range(n):
        sent = time.perf_counter()
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(i + 1, uri),
            [lsp.TextDocumentContentChangeWholeDocument(edited(text, i))]))
        arrived, params = await got.get()
        assert params.version == i + 1 and not params.diagnostics, params
        out.append(arrived - sent)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return out


def time_protocol(path: Path, n: int) -> list[float]:
    return asyncio.run(_time_protocol(path, n))


def row(what: str, times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
    return f"| {what} | {len(ms)} | {statistics.median(ms):.1f} | {p90:.1f} | {ms[0]:.1f} |"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(ROOT / "games" / "tamalo.rules"))
    ap.add_argument("--edits", type=int, default=100, help="edits timed for each figure (default 100)")
    args = ap.parse_args(argv)
    path = Path(args.file)
    print(f"Diagnostics of {path.name} after an edit, in milliseconds (wall time):\n")
    print("| what | edits | median | 90th percentile | fastest |")
    print("|---|---:|---:|---:|---:|")
    print(row("`load` (check from nothing, no cache)", time_load(path, args.edits)))
    print(row("analysis in the server (imports cached)", time_analysis(path, args.edits)))
    print(row("didChange to publishDiagnostics, over stdio", time_protocol(path, args.edits)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
