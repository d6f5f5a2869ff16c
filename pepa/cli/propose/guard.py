"""What the apply command may not touch: two layers around ``pepa propose apply``'s run.

git runs programs that its configuration names (``core.hooksPath``,
``core.fsmonitor``, ``core.sshCommand``, filter and diff drivers) and the hooks in
``.git/hooks``: an agent steered by a proposal's text that planted one would run
it at pepa's next ``git commit`` or the operator's next ``git status``. So:

1. The command runs in a bubblewrap sandbox (:func:`apply_sandbox`): the work tree and
   the git directory writable, the files of :func:`protected_paths` read-only, pepa's
   state folder and ``.env`` hidden, nothing else of this user's files shown.
2. :class:`GitGuard` takes a snapshot of those files (content, mode, link targets,
   the whole ``hooks`` and ``info`` trees) before the run and compares after it,
   before pepa runs git again; on any change it puts the snapshot back and the apply
   is refused. This
   layer also holds with the sandbox off (``PEPA_PI_SANDBOX=off``), and it catches
   what a read-only bind cannot, a file created where there was none
   (``.git/commondir``).
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pepa.cli.propose.git import Git
from pepa.cli.propose.rules import ProposeError
from pepa.llm import LlmUnavailable
from pepa.llm.sandbox import (
    Sandbox,
    View,
    build,
    home_of,
    needed_files,
    pi_dirs,
    program_dirs,
    sandbox_program,
    secret_paths,
)

__all__ = ["Entry", "GitGuard", "apply_sandbox", "git_dirs", "protected_paths", "snapshot"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Entry:
    """One path of a snapshot, as :func:`os.lstat` and a read saw it."""

    kind: str
    """``file``, ``dir``, ``link`` or ``other`` (a fifo, a socket, a device)."""
    mode: int
    """``st_mode``: the type and the permission bits."""
    data: bytes = b""
    """A file's content, a link's target."""


def snapshot(paths: Sequence[Path]) -> dict[Path, Entry]:
    """Every path at or under ``paths`` that exists, never through a link."""
    found: dict[Path, Entry] = {}
    for path in paths:
        _take(path, found)
    return found


def _take(path: Path, found: dict[Path, Entry]) -> None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        found[path] = Entry("link", info.st_mode, os.fsencode(os.readlink(path)))
    elif stat.S_ISDIR(info.st_mode):
        found[path] = Entry("dir", info.st_mode)
        for name in sorted(os.listdir(path)):
            _take(path / name, found)
    elif stat.S_ISREG(info.st_mode):
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as file:
            found[path] = Entry("file", info.st_mode, file.read())
    else:
        found[path] = Entry("other", info.st_mode)


def git_dirs(git: Git) -> tuple[Path, Path]:
    """The repository's git directory and its common one (they differ in a worktree)."""
    own = Path(git.run("rev-parse", "--absolute-git-dir").strip())
    common = Path(git.run("rev-parse", "--git-common-dir").strip())
    return own, Path(os.path.abspath(git.root / common))


def protected_paths(root: Path, own: Path, common: Path) -> tuple[Path, ...]:
    """What makes git run a program or look elsewhere for its configuration: the config,
    the hooks, ``info/`` (``attributes`` there), ``config.worktree``, ``commondir`` and, in
    a worktree, the ``.git`` file that names its git directory. Whole folders, so a link
    put in place of one is seen, and none is written through."""
    paths = [
        common / "config", common / "hooks", common / "info", own / "config.worktree",
        own / "commondir",
    ]  # fmt: skip
    dotgit = root / ".git"
    if dotgit.is_file() or dotgit.is_symlink():
        paths.insert(0, dotgit)
    return tuple(dict.fromkeys(paths))


class GitGuard:
    """A snapshot of :func:`protected_paths`, taken when made; :meth:`check` compares and
    puts it back."""

    def __init__(self, root: Path, paths: Sequence[Path]) -> None:
        self.root = root
        self.paths = tuple(paths)
        self.before = snapshot(self.paths)

    @classmethod
    def of(cls, git: Git) -> GitGuard:
        """The guard of ``git``'s repository, its snapshot taken now."""
        return cls(git.root, protected_paths(git.root, *git_dirs(git)))

    def changes(self) -> list[str]:
        """What differs from the snapshot: ``.git/config changed``, ``… added``, ``… removed``."""
        after = snapshot(self.paths)
        said = []
        for path in sorted(self.before.keys() | after.keys()):
            was, now = self.before.get(path), after.get(path)
            if was == now:
                continue
            what = "added" if was is None else "removed" if now is None else "changed"
            said.append(f"{self._shown(path)} {what}")
        return said

    def _shown(self, path: Path) -> str:
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else str(path)

    def check(self) -> str:
        """What had changed, in one line, once the snapshot is put back; "" if nothing had.
        Raises :class:`ProposeError` when the snapshot cannot be put back."""
        changed = self.changes()
        if not changed:
            return ""
        logger.warning("the apply command changed %s; restoring them", ", ".join(changed))
        try:
            self.restore()
        except OSError as exc:
            raise ProposeError(
                f"the command changed {_listed(changed)} and they cannot be restored ({exc}): "
                f"do not run git in {self.root} before you have checked them"
            ) from exc
        left = self.changes()
        if left:
            raise ProposeError(
                f"the command changed {_listed(changed)} and {_listed(left)} cannot be "
                f"restored: do not run git in {self.root} before you have checked them"
            )
        return _listed(changed)

    def intact(self) -> bool:
        """Whether the protected paths are as in the snapshot, any difference put back first
        if it can be."""
        if not self.changes():
            return True
        try:
            self.restore()
        except OSError as exc:
            logger.warning("cannot restore git's files in %s: %s", self.root, exc)
        return not self.changes()

    def restore(self) -> None:
        """Put back every protected path whose tree differs from the snapshot."""
        after = snapshot(self.paths)
        for top in self.paths:
            was = {p: e for p, e in self.before.items() if p == top or p.is_relative_to(top)}
            now = {p: e for p, e in after.items() if p == top or p.is_relative_to(top)}
            if was != now:
                _remove(top)
                _recreate(top, was)


def _listed(changes: Sequence[str]) -> str:
    more = f" and {len(changes) - 3} more" if len(changes) > 3 else ""
    return ", ".join(changes[:3]) + more


def _remove(path: Path) -> None:
    """Remove whatever is at ``path``, following no link."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _recreate(top: Path, entries: Mapping[Path, Entry]) -> None:
    """Write ``entries`` (the snapshot of ``top``'s tree) back; directories' modes last."""
    if not entries:
        return
    top.parent.mkdir(parents=True, exist_ok=True)
    dirs = []
    for path in sorted(entries, key=lambda p: len(p.parts)):
        entry = entries[path]
        if entry.kind == "dir":
            os.mkdir(path, 0o700)
            dirs.append((path, entry.mode))
        elif entry.kind == "link":
            os.symlink(os.fsdecode(entry.data), path)
        elif entry.kind == "file":
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(path, flags, 0o600)
            with os.fdopen(fd, "wb") as file:
                file.write(entry.data)
                os.fchmod(file.fileno(), stat.S_IMODE(entry.mode))
        # an ``other`` (a fifo, a device) in git's files is not put back: git made none
    for path, mode in reversed(dirs):
        os.chmod(path, stat.S_IMODE(mode))


def apply_sandbox(
    git: Git, command: Sequence[str], *, guard: GitGuard, proposal: Path,
    environ: Mapping[str, str] | None = None,
) -> Sandbox | None:  # fmt: skip
    """The sandbox the apply command runs in (None: ``PEPA_PI_SANDBOX=off``, warned).

    Writable: the work tree and the git directories. Read-only: the guard's paths, the
    command's program, the proposal file. Hidden: the state folder the proposal lies in,
    ``state/`` and ``.env*`` of the repository, of pepa's checkout and of the working
    directory. Raises :class:`ProposeError` when bwrap is missing.
    """
    environ = os.environ if environ is None else environ
    try:
        bwrap = sandbox_program(tools=True, environ=environ, what="the apply command")
    except LlmUnavailable as exc:
        raise ProposeError(str(exc)) from None
    if bwrap is None:
        return None
    own, common = git_dirs(git)
    state = _state_root(proposal)
    view = View(
        workdir=git.root, writable=(own, common, *pi_dirs(environ)),
        read_only=(
            *program_dirs(command, environ), *needed_files(environ),
            *(path for path in guard.paths if path.exists()),
        ),
        hidden=(*secret_paths(environ, cwd=_cwd(), roots=(git.root,)), *state),
        reveal=(proposal,), home=home_of(environ),
    )  # fmt: skip
    return build(bwrap, view)


def _cwd() -> Path | None:
    try:
        return Path.cwd()
    except OSError:  # removed under us
        return None


def _state_root(proposal: Path) -> tuple[Path, ...]:
    """The server folder and state root of ``<root>/<host>_<port>/proposals/approved/<id>``."""
    path = Path(os.path.abspath(proposal))
    if path.parent.name == "approved" and path.parents[1].name == "proposals":
        return (path.parents[2], path.parents[3])
    return ()
