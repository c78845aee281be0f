"""Regenerate the outputs of the broken-variant example shown in docs/testing.md.

Which generated game fails first, and its seed, depend on how hypothesis explores; any change to
the generation changes them. Run this from the repository root, then `pytest tests/test_docs.py`.
"""

from __future__ import annotations

import pathlib
import re
import subprocess
import tempfile

ROOT = pathlib.Path.cwd()
DOC = ROOT / "docs" / "testing.md"
FILE = "tests/data/loses_a_card.rules"


def run(sandbox: pathlib.Path, cmd: str) -> str:
    return subprocess.run(cmd, shell=True, cwd=sandbox, capture_output=True, text=True, check=False).stdout


def replace_block(text: str, cmd: str, output: str) -> str:
    """Put `output` under the shown command `$ cmd`, keeping a following `$ echo $?`."""
    head = f"$ {cmd}\n"
    i = text.index(head) + len(head)
    j = text.index("```", i)
    body = text[i:j]
    k = body.find("$ echo $?")
    return text[:i] + output + (body[k:] if k >= 0 else "") + text[j:]


def main() -> None:
    sandbox = pathlib.Path(tempfile.mkdtemp())
    (sandbox / "games").symlink_to(ROOT / "games")
    (sandbox / "tests").symlink_to(ROOT / "tests")
    test_out = run(sandbox, f"rulesdsl test {FILE}")
    name = re.search(r"failures/(loses_a_card-\d+\.json)", test_out).group(1)
    good = re.search(r"FAILED after (\d+) good games", test_out).group(1)
    text = DOC.read_text(encoding="utf-8")
    text = text.replace(re.search(r"failures/(loses_a_card-\d+\.json)", text).group(1), name)
    text = replace_block(text, f"rulesdsl test {FILE}", test_out)
    for extra in ("", " --quiet"):
        cmd = f"rulesdsl replay {FILE} .rulesdsl/failures/{name}{extra}"
        text = replace_block(text, cmd, run(sandbox, cmd))
    start = text.index('  ```json\n  {\n   "file": "tests/data/loses_a_card.rules"')
    end = text.index("  ```", start + 10)
    saved = (sandbox / ".rulesdsl" / "failures" / name).read_text(encoding="utf-8").strip()
    text = text[:start] + "  ```json\n" + "\n".join("  " + line for line in saved.splitlines()) + "\n" + text[end:]
    text = re.sub(r"- `FAILED after \d+ good games`: [^\n]*",
                  f"- `FAILED after {good} good games`: {good} generated games passed before one failed.", text)
    text = re.sub(r"generated games failed after \d+ good games\n", f"generated games failed after {good} good games\n",
                  text)
    shrunk = re.search(r"  shrunk to .*\n  moves: .*\n", test_out).group(0)
    plain = "\n".join(line.strip() for line in shrunk.strip().splitlines()) + "\n"
    text = re.sub(r"(/work/main/tests/data/loses_a_card.rules:11:1: [^\n]*\n)shrunk to [^\n]*\nmoves: [^\n]*\n",
                  lambda m: m.group(1) + plain, text)
    DOC.write_text(text, encoding="utf-8")
    print(f"{name}: failed after {good} good games")


if __name__ == "__main__":
    main()
