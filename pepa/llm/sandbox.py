"""The sandbox every pi run happens in: bubblewrap (``bwrap``, Debian's ``bubblewrap``).

What the command sees is an allow-list, not the machine minus a deny-list:

- the system, read-only: ``/usr``, ``/etc`` and the ``/bin``, ``/sbin``, ``/lib*``
  links (:data:`SYSTEM_DIRS`);
- a fresh ``/proc``, a minimal ``/dev``, an empty ``/tmp`` and an empty HOME;
- its working directory, writable (a private directory; the repository for
  ``pepa propose apply``);
- pi's own directory (``PI_CODING_AGENT_DIR``, else ``~/.pi``), writable: its login
  and its sessions live there (:func:`pi_dirs`);
- the directories its program is installed in, read-only: the command's directory,
  its package or prefix, the interpreter of its ``#!`` line (:func:`program_dirs`).

Nothing else is there: not pepa's state folders (the bots' memory, the Microsoft
token cache under ``auth/``, the fleet's database password), not ``.env``, not
``/var/tmp/pepa-pg-*``. A known secret that a visible tree holds anyway (a pi
installed inside the checkout; the repository ``propose apply`` works in) is
covered on top, a directory by an empty read-only tmpfs and a file by ``/dev/null``
(:func:`secret_paths`). A deny-list would have to name every secret on the
machine, and one forgotten would be open; an allow-list names what the command
needs, and one forgotten makes the command fail where it shows.

The command keeps the network (pi needs its provider), gets PID, IPC and UTS
namespaces of its own and no capabilities (root's are dropped too, so nothing
inside can unmount a cover), and is killed with everything it started when
bwrap or pepa dies (``--die-with-parent``).

``PEPA_PI_SANDBOX`` (:data:`SETTING`): unset or ``on``, ``bwrap`` from PATH; a path,
that program; ``off``, no sandbox, with a warning at every run. Without bwrap a run
with tools is refused (:class:`~pepa.llm.LlmUnavailable`, naming the package) and a
structured ask (tools off) runs unconfined after one warning. See docs/llm.md,
"Isolation".
"""

from __future__ import annotations

import glob
import logging
import os
import shutil
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pepa.base.node import REPO_ROOT
from pepa.llm._base import LlmUnavailable

__all__ = [
    "FLAGS",
    "PACKAGE",
    "SETTING",
    "SYSTEM_DIRS",
    "Sandbox",
    "View",
    "build",
    "confine",
    "home_of",
    "needed_files",
    "pi_dirs",
    "program_dirs",
    "sandbox_program",
    "secret_paths",
]

logger = logging.getLogger(__name__)

SETTING = "PEPA_PI_SANDBOX"
"""``on`` (the default: ``bwrap`` from PATH), ``off``, or the path of the bwrap program."""
PACKAGE = "bubblewrap"
"""The Debian package that holds ``bwrap``."""
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/nix")
"""What every sandbox sees, read-only (those that exist; a link stays a link)."""
FLAGS = (
    "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
    "--unshare-cgroup-try", "--cap-drop", "ALL",
)  # fmt: skip
"""bwrap's options for every run. The network stays shared, and so does the process
group: pepa starts the command in a session of its own (no controlling terminal) and
ends that whole group on a timeout or a cancel, which ``--new-session`` would defeat."""
NEEDED_FILES = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "GOOGLE_APPLICATION_CREDENTIALS",
)
"""Variables that name files a provider call may need: shown read-only where they are."""

TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template"})
"""``.env*`` files that hold no secret (a checkout may track them): left visible."""

_warned: set[str] = set()
_warned_lock = threading.Lock()


def _warn_once(text: str) -> None:
    with _warned_lock:
        first = text not in _warned
        _warned.add(text)
    if first:
        logger.warning("%s", text)


def sandbox_program(
    *, tools: bool, environ: Mapping[str, str], what: str = "pi with its tools"
) -> str | None:
    """The bwrap to confine a run with; None: the run goes unconfined (a warning says why).

    Raises :class:`LlmUnavailable` for a run with ``tools`` (``what``, in its message)
    when bwrap is missing.
    """
    value = environ.get(SETTING, "").strip()
    if value.lower() == "off":
        logger.warning(
            "%s=off: pi runs without a sandbox and can read what this user can "
            "(.env, the state folder, the token cache)", SETTING,
        )  # fmt: skip
        return None
    program = value if value and value.lower() not in ("on", "bwrap") else "bwrap"
    found = shutil.which(program, path=environ.get("PATH", os.defpath))
    if found is not None:
        return found
    missing = (
        f"the sandbox program `{program}` is not installed (Debian: apt-get install {PACKAGE})"
    )
    if tools:
        raise LlmUnavailable(
            f"{what} runs only in a sandbox, and {missing}; {SETTING}=off runs it unconfined"
        )
    _warn_once(f"{missing}; pi's structured asks (tools off) run without the sandbox")
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class View:
    """What a sandboxed command sees besides the system; every path is seen where it is."""

    workdir: Path
    """Where it starts; writable."""
    writable: tuple[Path, ...] = ()
    """More writable trees: pi's own directory, a repository's git directory."""
    read_only: tuple[Path, ...] = ()
    """Read-only trees and files, also inside writable ones (the program, ``.git/config``)."""
    hidden: tuple[Path, ...] = ()
    """Secrets, covered wherever a visible tree holds them."""
    reveal: tuple[Path, ...] = ()
    """Files shown read-only even inside a hidden tree (the proposal being applied)."""
    home: Path | None = None
    """Replaced by an empty tmpfs (None: HOME is unusable, left out)."""


@dataclass(frozen=True, slots=True)
class Sandbox:
    """A bwrap command line: :meth:`argv` runs a command confined as its view says."""

    bwrap: str
    """The bwrap program."""
    options: tuple[str, ...]
    """Its options and mounts, in order."""

    def argv(self, command: Sequence[str], *, sync_fd: int | None = None) -> list[str]:
        """``command`` inside the sandbox; ``sync_fd`` reaches end of file once all of it
        has ended (bwrap's ``--sync-fd``)."""
        sync = ("--sync-fd", str(sync_fd)) if sync_fd is not None else ()
        return [self.bwrap, *self.options, *sync, "--", *command]


_KIND_ORDER = {"tmpfs": 0, "rw": 1, "ro": 2}
"""At one depth: a tmpfs first, then writable binds, read-only ones last (on top)."""
Mounted = list[tuple[Path, str]]
"""Where each tree is mounted inside, and how: ``ro``, ``rw`` or ``tmpfs``."""


def build(bwrap: str, view: View) -> Sandbox:
    """The sandbox for ``view``: the system, the trees from the shallowest, the covers
    over hidden paths, the reveals."""
    options: list[str] = [*FLAGS]
    mounted: Mounted = []
    for name in SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            options += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            options += ["--ro-bind", name, name]
            mounted.append((path, "ro"))
    options += ["--proc", "/proc", "--dev", "/dev"]
    trees = [(Path("/tmp"), "tmpfs")]
    if view.home is not None:
        trees.append((view.home, "tmpfs"))
    trees += [(path, "rw") for path in (view.workdir, *view.writable) if path.exists()]
    trees += [(path, "ro") for path in view.read_only if path.exists()]
    trees = [(Path(os.path.abspath(path)), kind) for path, kind in trees]
    trees.sort(key=lambda tree: (len(tree[0].parts), _KIND_ORDER[tree[1]]))
    for path, kind in dict.fromkeys(trees):
        if kind == "ro" and _shown_already(path, mounted):
            continue
        mounted.append((path, kind))
        if kind == "tmpfs":
            options += ["--tmpfs", str(path)]
        else:
            options += ["--bind" if kind == "rw" else "--ro-bind", str(path), str(path)]
    covers = _covers(view.hidden, mounted, view.workdir)
    for shown, is_dir in covers:
        options += ["--tmpfs", str(shown)] if is_dir else ["--ro-bind", "/dev/null", str(shown)]
    for path in view.reveal:  # before the covers turn read-only: its folders are made in them
        if path.is_file():
            options += ["--ro-bind", os.path.abspath(path), os.path.abspath(path)]
    for shown, is_dir in covers:
        if is_dir:
            options += ["--remount-ro", str(shown)]
    options += ["--chdir", str(view.workdir), "--setenv", "TMPDIR", "/tmp"]
    return Sandbox(bwrap, tuple(options))


def _deepest(path: Path, mounted: Mounted) -> tuple[Path, str] | None:
    """The mount that shows ``path`` inside (the deepest above it; the later of equals)."""
    found: tuple[Path, str] | None = None
    for where, kind in mounted:
        if path.is_relative_to(where) and (
            found is None or len(where.parts) >= len(found[0].parts)
        ):
            found = (where, kind)
    return found


def _shown_already(path: Path, mounted: Mounted) -> bool:
    """Whether a read-only mount shows ``path`` as it is (``/bin`` through ``/usr/bin``)."""
    above = _deepest(path, mounted)
    if above is not None and above[1] == "ro":
        return True
    real = Path(os.path.realpath(path))
    above = _deepest(real, mounted)
    system = any(path.is_relative_to(name) for name in SYSTEM_DIRS)
    return system and above is not None and above[1] == "ro"


def _covers(hidden: Iterable[Path], mounted: Mounted, workdir: Path) -> list[tuple[Path, bool]]:
    """Where each hidden path shows inside (through any bind that holds it), and whether
    it is a directory; shallowest first. A path holding the working directory is skipped."""
    covers: dict[Path, bool] = {}
    for secret in hidden:
        if not secret.exists():
            continue
        real = Path(os.path.realpath(secret))
        if Path(os.path.realpath(workdir)).is_relative_to(real):
            continue
        for where, kind in mounted:
            source = Path(os.path.realpath(where))
            if kind == "tmpfs" or not real.is_relative_to(source):
                continue
            shown = where / real.relative_to(source)
            if _deepest(shown, mounted) == (where, kind):
                covers[shown] = real.is_dir()
    return sorted(covers.items(), key=lambda cover: len(cover[0].parts))


def home_of(environ: Mapping[str, str]) -> Path | None:
    """HOME, if it can be replaced by a tmpfs: absolute, not ``/``, not a system directory."""
    home = environ.get("HOME", "")
    if not home or not os.path.isabs(home):
        return None
    path = Path(os.path.abspath(home))
    if path == Path("/") or any(path == Path(name) for name in SYSTEM_DIRS):
        return None
    return path


def _too_wide(path: Path, home: Path | None) -> bool:
    """Whether ``path`` is ``/``, HOME or above it: never shown whole."""
    return path == Path("/") or (home is not None and home.is_relative_to(path))


def pi_dirs(environ: Mapping[str, str]) -> tuple[Path, ...]:
    """pi's own directory, writable: ``PI_CODING_AGENT_DIR``, else ``~/.pi`` (if it exists)."""
    home = home_of(environ)
    agent = environ.get("PI_CODING_AGENT_DIR", "")
    if agent:
        path = Path(os.path.abspath(os.path.expanduser(agent)))
    elif home is not None:
        path = home / ".pi"
    else:
        return ()
    if not path.is_dir():
        return ()
    if _too_wide(path, home):
        _warn_once(f"pi's directory {path} is HOME or above it: the sandbox leaves it out")
        return ()
    return (path,)


def program_dirs(words: Sequence[str], environ: Mapping[str, str]) -> tuple[Path, ...]:
    """Where the command's files live, read-only: for its program (found on PATH) and for
    each file an absolute argument names, the directory, its package (the nearest folder
    with ``package.json`` or ``pyvenv.cfg``; the outermost ``node_modules`` for a package
    installed in one) or its prefix (``bin`` and ``lib`` beside it), after any link, and
    the same for the interpreter of its ``#!`` line."""
    home = home_of(environ)
    files = [Path(word) for word in words[1:] if os.path.isabs(word) and os.path.isfile(word)]
    program = shutil.which(words[0], path=environ.get("PATH", os.defpath)) if words else None
    if program is not None:
        files.insert(0, Path(os.path.abspath(program)))
    dirs: list[Path] = []
    for path in files:
        dirs += _install_dirs(path, home)
        interpreter = _interpreter(path, environ)
        if interpreter is not None:
            dirs += _install_dirs(interpreter, home)
    return tuple(dict.fromkeys(dirs))


def _install_dirs(path: Path, home: Path | None) -> list[Path]:
    found = [path.parent]
    for named in dict.fromkeys((path, Path(os.path.realpath(path)))):
        found += _package(named, home)
    return found


def _package(path: Path, home: Path | None) -> list[Path]:
    """The package or prefix ``path`` belongs to, or its directory."""
    folder = path.parent
    for above in (folder, *folder.parents):
        if _too_wide(above, home):
            break
        if (above / "package.json").is_file() or (above / "pyvenv.cfg").is_file():
            modules = [
                d
                for d in (above, *above.parents)
                if d.name == "node_modules" and not _too_wide(d, home)
            ]
            return [modules[-1] if modules else above]
    prefix = folder.parent
    if folder.name == "bin" and not _too_wide(prefix, home) and (prefix / "lib").is_dir():
        return [folder, prefix / "lib"]
    return [folder]


def _interpreter(path: Path, environ: Mapping[str, str]) -> Path | None:
    """The program of ``path``'s ``#!`` line (``env`` looked through on PATH), or None."""
    try:
        with path.open("rb") as file:
            head = file.read(512)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
    if not words:
        return None
    if Path(words[0]).name != "env":
        return Path(words[0]) if os.path.isabs(words[0]) else None
    names = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    found = shutil.which(names[0], path=environ.get("PATH", os.defpath)) if names else None
    return Path(os.path.abspath(found)) if found else None


def secret_paths(
    environ: Mapping[str, str], *, cwd: Path | None = None, roots: Iterable[Path] = ()
) -> tuple[Path, ...]:
    """pepa's secrets as far as this process can tell: ``.env*`` (not the templates) and
    ``state/`` in pepa's checkout, in ``cwd`` and in each of ``roots``; ``PEPA_STATE_DIR``;
    the fleet's clusters under ``/var/tmp/pepa-pg-*``. Only those that exist."""
    bases = [REPO_ROOT, *([cwd] if cwd is not None else []), *roots]
    found: list[Path] = []
    for base in bases:
        named = sorted(glob.glob(os.path.join(glob.escape(str(base)), ".env*")))
        found += [Path(p) for p in named if Path(p).name.lower() not in TEMPLATES]
        found.append(base / "state")
    state = environ.get("PEPA_STATE_DIR", "")
    if state:
        found.append(Path(cwd or REPO_ROOT, state))
    found += [Path(p) for p in sorted(glob.glob("/var/tmp/pepa-pg-*"))]
    return tuple(dict.fromkeys(p for p in found if p.exists()))


def needed_files(environ: Mapping[str, str]) -> tuple[Path, ...]:
    """Files a provider call may need, read-only where they are: resolv.conf's target (it
    may lie under /run), the certificate and credential files the environment names."""
    paths = [Path(os.path.realpath("/etc/resolv.conf"))]
    named = (environ.get(name, "") for name in NEEDED_FILES)
    paths += [Path(value) for value in named if os.path.isabs(value)]
    return tuple(path for path in paths if path.exists())


def _cwd() -> Path | None:
    try:
        return Path.cwd()
    except OSError:  # removed under us
        return None


def confine(
    argv: Sequence[str], *, workdir: Path, tools: bool, environ: Mapping[str, str] | None = None
) -> list[str]:
    """``argv`` as a pi run starts it: inside the sandbox, or as it is when it goes without
    one (:func:`sandbox_program`). The last word is the prompt, never read as a file."""
    environ = os.environ if environ is None else environ
    bwrap = sandbox_program(tools=tools, environ=environ)
    if bwrap is None:
        return list(argv)
    view = View(
        workdir=workdir, writable=pi_dirs(environ),
        read_only=(*program_dirs(argv[:-1], environ), *needed_files(environ)),
        hidden=secret_paths(environ, cwd=_cwd()), home=home_of(environ),
    )  # fmt: skip
    return build(bwrap, view).argv(argv)
