"""``git`` in the repository a proposal is applied to: a failing command raises
:class:`~pepa.cli.propose.rules.ProposeError`."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from pepa.cli.propose.rules import ProposeError, command_env

__all__ = ["Git", "git_command"]


class Git:
    """``git`` commands in one repository; a failing command raises :class:`ProposeError`."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def at(cls, path: Path) -> Git:
        """The repository holding ``path``, at its top level."""
        if not path.is_dir():
            raise ProposeError(f"{path} is not a directory")
        done = git_command(path, "rev-parse", "--show-toplevel")
        if done.returncode != 0:
            raise ProposeError(f"{path} is not a git repository (choose one with --repo)")
        return cls(Path(done.stdout.decode().strip()))

    def run(self, *args: str, identity: bool = False, stdin: bytes | None = None) -> str:
        """Stdout of ``git <args>`` (``stdin`` fed to it)."""
        who = ("-c", "user.name=pepa", "-c", "user.email=pepa@localhost")  # none configured
        if identity and git_command(self.root, "config", "user.email").returncode != 0:
            done = git_command(self.root, *who, *args, stdin=stdin)
        else:
            done = git_command(self.root, *args, stdin=stdin)
        if done.returncode != 0:
            error = done.stderr.decode(errors="replace").strip().splitlines()
            raise ProposeError(f"git {args[0]} failed: {error[-1] if error else done.returncode}")
        return done.stdout.decode(errors="surrogateescape")  # lossless: diffs are hashed

    def head(self) -> str:
        """The current branch, or the commit when HEAD is detached."""
        done = git_command(self.root, "symbolic-ref", "-q", "--short", "HEAD")
        return done.stdout.decode().strip() if done.returncode == 0 else self.sha("HEAD")

    def sha(self, ref: str) -> str:
        """The commit ``ref`` names."""
        return self.run("rev-parse", "--verify", "-q", f"{ref}^{{commit}}").strip()

    def dirty(self) -> list[str]:
        """Changed, staged and untracked paths (ignored ones are not dirty)."""
        return [line[3:] for line in self.run("status", "--porcelain=v1").splitlines() if line]

    def branches(self, pattern: str) -> set[str]:
        """Local branches matching ``pattern``."""
        listing = self.run("for-each-ref", "--format=%(refname:short)", f"refs/heads/{pattern}")
        return set(listing.split())

    def changes(self) -> tuple[list[str], list[str]]:
        """Unstage what the command staged; then (changed tracked files, new files git does
        not ignore). Force-added ignored files drop out here."""
        self.run("reset", "-q")
        tracked = self.run("diff", "--name-only", "-z", "--no-renames").split("\0")
        new = self.run("ls-files", "-z", "--others", "--exclude-standard").split("\0")
        return [path for path in tracked if path], [path for path in new if path]

    def committed_since(self, base: str) -> list[str]:
        """Files added or changed by commits between ``base`` and HEAD."""
        listing = self.run(
            "diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", base, "HEAD"
        )
        return [path for path in listing.split("\0") if path]

    def commit_paths(self, paths: Sequence[str], message: str, *, verify: bool) -> bool:
        """Stage exactly ``paths`` (literally, removals too) and commit them; False if none."""
        if not paths:
            return False
        names = "".join(f"{path}\0" for path in paths).encode(errors="surrogateescape")
        self.run(
            "--literal-pathspecs", "add", "--pathspec-from-file=-", "--pathspec-file-nul",
            stdin=names,
        )  # fmt: skip
        self.run(
            "commit", "-q", "-m", message, *(() if verify else ("--no-verify",)), identity=True
        )
        return True


def git_command(
    cwd: Path, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``git <args>`` with the allow-listed environment: a hook or filter the command planted
    in the repository runs with no pepa secret either."""
    env = command_env(os.environ, GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", GIT_OPTIONAL_LOCKS="0")
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, input=stdin if stdin is not None else b"",
        capture_output=True, check=False,
    )  # fmt: skip
