"""The two JS trees stay apart: the bot's (``pepa/link/js``) never requires the world
server's (``pepa/worldserver/js``), nor the other way round.

Both may require the shared JS, ``pepa/base/js`` and ``pepa/game/js``, which requires neither
tree. Every relative ``require('./…')`` (and ``require.resolve``) of a JS file of those trees is
resolved, and so is every path built from ``__dirname`` with ``path.join`` or ``path.resolve``
(a flying-squid plugin is required by the path server.js gives it), or from a constant made so
(``const DIR = path.join(__dirname, 'plugins')``, ``const DIR = __dirname``): its literal parts,
up to the first that is not one (``path.join(__dirname, 'fixes', `${name}.js`)`` is checked as
``fixes/``). Comments are skipped. A path that leaves the JS trees altogether is refused too,
but for the packages' ``node_modules``.

    python -m tests.jsdeps [--root DIR]     (run by ``./pepa.sh lint``)

prints one line for each refused reference (file:line: what it requires, where that is, and
why it is refused) and exits 1; exits 0 when there is none.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

__all__ = ["SHARED", "TREES", "Refusal", "check", "main", "references"]

logger = logging.getLogger(__name__)

TREES = {"pepa/link/js": "the bot's JS", "pepa/worldserver/js": "the world server's JS"}
"""The two trees that must stay apart, by their folder under the repository, with their names."""
SHARED = ("pepa/base/js", "pepa/game/js")
"""The JS both trees may require; it requires neither tree."""
ROOT = Path(__file__).resolve().parent.parent

_STRING = r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`"""
_REQUIRE = re.compile(r"\brequire(?:\.resolve)?\s*\(\s*(['\"`])")
_PATH_CALL = re.compile(r"\bpath\.(?:join|resolve)\s*\(\s*([A-Za-z_$][\w$]*)\s*[,)]")
_ALIAS = re.compile(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*__dirname\s*(?=[;\n])")
_NAMED = re.compile(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*$")
_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {""}


@dataclass(frozen=True)
class Refusal:
    """One reference from a file of one tree to where it may not reach."""

    file: str
    line: int
    reference: str
    target: str
    why: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reference} reaches {self.target}: {self.why}"


def _scan(source: str) -> tuple[str, str]:
    """``source`` with its comments blanked (newlines kept), and the same with the insides of its
    string, template and regex literals blanked too (what is code, at the same offsets)."""
    code: list[str] = []
    masked: list[str] = []
    i, n = 0, len(source)
    last = ""  # the last significant character outside comments
    while i < n:
        c = source[i]
        two = source[i : i + 2]
        if two in ("//", "/*"):
            end = source.find("\n" if two == "//" else "*/", i + 2)
            end = n if end < 0 else (end if two == "//" else end + 2)
            blank = re.sub(r"[^\n]", " ", source[i:end])
            code.append(blank)
            masked.append(blank)
            i = end
        elif c in "'\"`" or (c == "/" and last in _REGEX_AFTER):
            j = i + 1
            in_class = False
            while j < n:
                if source[j] == "\\":
                    j += 2
                    continue
                if c == "/" and source[j] == "[":
                    in_class = True
                elif c == "/" and source[j] == "]":
                    in_class = False
                elif source[j] == c and not in_class:
                    break
                elif source[j] == "\n" and c != "`":
                    break  # an unterminated literal (or a division after all): stop at the line
                j += 1
            literal = source[i : j + 1]
            code.append(literal)
            masked.append(literal[0] + re.sub(r"[^\n]", " ", literal[1:-1]) + literal[-1:])
            i = j + 1
            last = c
        else:
            code.append(c)
            masked.append(c)
            if not c.isspace():
                last = c
            i += 1
    return "".join(code), "".join(masked)


def _literal(token: str) -> str | None:
    """The text of a string literal token, or None when it is not one (a template with ``${``)."""
    token = token.strip()
    if len(token) < 2 or token[0] not in "'\"`" or token[-1] != token[0]:
        return None
    body = token[1:-1]
    if token[0] == "`" and "${" in body:
        return None
    return re.sub(r"\\(.)", r"\1", body)


def _arguments(masked: str, start: int) -> tuple[list[tuple[int, int]], int]:
    """The spans of the top-level arguments of the call whose ``(`` is at ``start`` (in code
    whose literals are blanked), and where the call ends (past its ``)``)."""
    spans: list[tuple[int, int]] = []
    depth, begin = 0, start + 1
    for i in range(start, len(masked)):
        c = masked[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                spans.append((begin, i))
                return spans, i + 1
        elif c == "," and depth == 1:
            spans.append((begin, i))
            begin = i + 1
    return spans, len(masked)


def references(source: str) -> Iterator[tuple[int, str, PurePosixPath]]:
    """(line, the reference as written, the path it names relative to the file's folder) for
    each relative require and each path built from ``__dirname`` in ``source``."""
    code, masked = _scan(source)
    for match in _REQUIRE.finditer(masked):
        literal = re.compile(_STRING).match(code, match.start(1))
        if literal is None or not re.match(r"\s*[,)]", code[literal.end() :]):
            continue
        spec = _literal(literal.group())
        if spec is not None and (spec.startswith(("./", "../")) or spec in (".", "..")):
            line = code.count("\n", 0, match.start()) + 1
            yield line, f"require({literal.group()})", PurePosixPath(spec)
    bases = {"__dirname": PurePosixPath(".")}  # names of paths built from __dirname
    for match in _ALIAS.finditer(masked):
        bases[match.group(1)] = PurePosixPath(".")
    for match in _PATH_CALL.finditer(masked):
        base = bases.get(match.group(1))
        if base is None:
            continue
        spans, end = _arguments(masked, masked.index("(", match.start()))
        parts: list[str] = []
        for first, last in spans[1:]:
            text = _literal(code[first:last])
            if text is None:
                break
            parts.append(text)
        line = code.count("\n", 0, match.start()) + 1
        written = re.sub(r"\s+", " ", code[match.start() : end])
        yield line, written, base.joinpath(*parts)
        named = _NAMED.search(masked, max(0, match.start() - 120), match.start())
        if named and len(parts) == len(spans) - 1:  # const X = path.join(__dirname, 'a'): X too
            bases[named.group(1)] = base.joinpath(*parts)


def _normal(path: PurePosixPath) -> PurePosixPath:
    """``path`` with its ``.`` and ``..`` parts applied (no file system)."""
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return PurePosixPath(*parts)


def _home(path: PurePosixPath) -> str | None:
    """The tree or shared folder ``path`` (relative to the repository) is in, or None."""
    for folder in (*TREES, *SHARED):
        if path == PurePosixPath(folder) or PurePosixPath(folder) in path.parents:
            return folder
    return None


def _why(source: str, target: str | None) -> str | None:
    """Why a file of ``source`` may not reach ``target`` (folders), or None when it may."""
    if target is not None and (target == source or target in SHARED):
        return None
    if source in SHARED:
        allowed = f"the shared JS ({source}) may require only the shared JS ({', '.join(SHARED)})"
    else:
        allowed = f"{TREES[source]} ({source}) may require its own tree and the shared JS"
    if target is None:
        return f"{allowed}, not a path outside the JS trees"
    name = TREES.get(target, "the shared JS")
    return f"{allowed}, never {name} ({target})"


def check(root: Path = ROOT) -> list[Refusal]:
    """Every reference of a JS file under ``root``'s trees to where it may not reach."""
    refused: list[Refusal] = []
    for folder in (*TREES, *SHARED):
        base = root / folder
        if not base.is_dir():
            continue
        for file in sorted(base.rglob("*.js")):
            if "node_modules" in file.parts:
                continue
            here = PurePosixPath(file.relative_to(root).as_posix())
            source = file.read_text(encoding="utf-8")
            for line, written, spec in references(source):
                target = _normal(here.parent / spec)
                if "node_modules" in target.parts:
                    continue  # the packages, as a bare require('vec3') names them
                why = _why(folder, _home(target))
                if why is not None:
                    refused.append(Refusal(str(here), line, written, str(target), why))
    return refused


def main(argv: Sequence[str] | None = None) -> int:
    """Print each refused reference; 1 when there is one, else 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this)")
    args = parser.parse_args(argv)
    refused = check(args.root)
    for refusal in refused:
        print(refusal)
    if refused:
        print(f"jsdeps: {len(refused)} reference(s) across the JS trees", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
