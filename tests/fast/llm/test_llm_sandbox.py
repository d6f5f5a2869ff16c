"""The sandbox's command line (docs/llm.md, "Isolation"): what bwrap is told to show, in which
order, and when there is no bwrap; built over real folders, nothing run."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pepa.llm import LlmUnavailable
from pepa.llm import sandbox as sandbox_module
from pepa.llm.sandbox import (
    FLAGS,
    View,
    build,
    home_of,
    pi_dirs,
    program_dirs,
    sandbox_program,
    secret_paths,
)


def mounts(options: tuple[str, ...]) -> list[tuple[str, str]]:
    """``(option, destination)`` for each mount, in order."""
    found = []
    for i, option in enumerate(options):
        if option in ("--bind", "--ro-bind"):
            found.append((option, options[i + 2]))
        elif option in ("--tmpfs", "--remount-ro", "--symlink"):
            found.append((option, options[i + 1] if option != "--symlink" else options[i + 2]))
    return found


def folder(path: Path, *files: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name in files:
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text("x\n")
    return path


def test_the_view_is_an_allow_list_mounted_from_the_shallowest(tmp_path: Path) -> None:
    home = folder(tmp_path / "home", "notes.txt", ".pi/agent/auth.json")
    repo = folder(tmp_path / "repo", ".env", ".git/config", "state/s/auth/t.json", "README.md")
    program = folder(tmp_path / "opt" / "pi" / "bin", "pi")
    view = View(
        workdir=repo, writable=(home / ".pi",), read_only=(program, repo / ".git" / "config"),
        hidden=(repo / ".env", repo / "state", home / "notes.txt", tmp_path / "elsewhere"),
        reveal=(repo / "state" / "s" / "auth" / "t.json",), home=home,
    )  # fmt: skip
    options = build("/usr/bin/bwrap", view).options
    assert options[: len(FLAGS)] == FLAGS
    assert "--new-session" not in options and "--share-net" not in options
    assert FLAGS[FLAGS.index("--cap-drop") + 1] == "ALL"  # root's too: nothing can unmount
    order = mounts(options)
    assert ("--ro-bind", "/usr") in order and ("--ro-bind", "/etc") in order
    assert not [dest for _, dest in order if dest in ("/", "/var", "/home", "/root", "/run")]
    assert order.index(("--tmpfs", "/tmp")) < order.index(("--tmpfs", str(home)))
    assert order.index(("--tmpfs", str(home))) < order.index(("--bind", str(home / ".pi")))
    config = ("--ro-bind", str(repo / ".git" / "config"))
    assert order.index(("--bind", str(repo))) < order.index(config)
    # the covers go on top of everything that shows them, only where something does
    env, state = ("--ro-bind", str(repo / ".env")), ("--tmpfs", str(repo / "state"))
    assert order.index(env) > order.index(("--ro-bind", str(program)))
    assert options[options.index(str(repo / ".env")) - 1] == "/dev/null"
    reveal = ("--ro-bind", str(repo / "state/s/auth/t.json"))
    assert order.index(state) < order.index(reveal) < order.index(("--remount-ro", state[1]))
    assert not [dest for _, dest in order if dest == str(home / "notes.txt")]  # HOME is empty
    assert options[-5:] == ("--chdir", str(repo), "--setenv", "TMPDIR", "/tmp")
    sandbox = build("/usr/bin/bwrap", view)
    assert sandbox.argv(["pi", "-p"], sync_fd=7)[-5:] == ["--sync-fd", "7", "--", "pi", "-p"]


def test_a_secret_is_covered_wherever_a_visible_tree_holds_it(tmp_path: Path) -> None:
    checkout = folder(tmp_path / "checkout", "pi", ".env", "state/x/password")
    view = View(
        workdir=folder(tmp_path / "work"), read_only=(checkout,),
        hidden=(checkout / ".env", checkout / "state", tmp_path / "work"),
    )  # fmt: skip
    order = mounts(build("bwrap", view).options)
    assert ("--ro-bind", str(checkout / ".env")) in order
    assert ("--tmpfs", str(checkout / "state")) in order
    assert ("--remount-ro", str(checkout / "state")) in order
    assert ("--tmpfs", str(tmp_path / "work")) not in order  # never over the working directory


def test_the_programs_package_prefix_and_interpreter_are_shown(tmp_path: Path) -> None:
    home = folder(tmp_path / "home")
    prefix = folder(home / ".nvm" / "node", "bin/node", "lib/x")
    package = folder(prefix / "lib" / "node_modules" / "@m" / "pi-coding-agent", "package.json")
    cli = package / "dist" / "cli.js"
    folder(cli.parent)
    cli.write_text("#!/usr/bin/env node\nconsole.log('hi')\n")
    cli.chmod(0o755)
    (prefix / "bin" / "pi").symlink_to(cli)
    (prefix / "bin" / "node").chmod(0o755)
    environ = {"HOME": str(home), "PATH": f"{prefix / 'bin'}:/usr/bin:/bin"}
    dirs = program_dirs(["pi", "--model", "m"], environ)
    assert dirs == (prefix / "bin", prefix / "lib", prefix / "lib" / "node_modules")
    assert home not in dirs and home / ".nvm" not in dirs
    venv = folder(tmp_path / "venv", "pyvenv.cfg", "bin/agent")
    (venv / "bin" / "agent").chmod(0o755)
    script = folder(tmp_path / "scripts") / "run.py"
    script.write_text("print('x')\n")
    assert program_dirs([str(venv / "bin" / "agent"), str(script)], environ) == (
        venv / "bin", venv, script.parent,
    )  # fmt: skip


def test_the_secrets_are_env_files_and_state_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = folder(tmp_path / "b", ".env", ".env.local", ".envrc", ".env.example", "state/x")
    elsewhere = folder(tmp_path / "states")
    found = secret_paths({"PEPA_STATE_DIR": str(elsewhere)}, cwd=base)
    assert base / ".env" in found and base / ".env.local" in found and base / ".envrc" in found
    assert base / "state" in found and elsewhere in found
    assert base / ".env.example" not in found
    assert secret_paths({}, cwd=tmp_path / "none") == secret_paths({}, cwd=None)


def test_home_and_pis_directory(tmp_path: Path) -> None:
    assert home_of({"HOME": "/"}) is None and home_of({"HOME": "rel"}) is None
    assert home_of({"HOME": "/usr"}) is None and home_of({}) is None
    assert home_of({"HOME": "/home/u/"}) == Path("/home/u")
    home = folder(tmp_path / "home", ".pi/agent/auth.json")
    assert pi_dirs({"HOME": str(home)}) == (home / ".pi",)
    agent = home / ".pi" / "agent"
    assert pi_dirs({"HOME": str(home), "PI_CODING_AGENT_DIR": str(agent)}) == (agent,)
    assert pi_dirs({"HOME": str(home), "PI_CODING_AGENT_DIR": str(home)}) == ()  # never HOME
    assert pi_dirs({"HOME": str(tmp_path / "nohome")}) == ()


def test_without_bwrap_tools_are_refused_and_tools_off_warned_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sandbox_module, "_warned", set())
    caplog.set_level(logging.WARNING, logger="pepa.llm")
    bare = {"PATH": str(tmp_path)}
    with pytest.raises(LlmUnavailable, match=r"^pi with its tools runs only in a sandbox, and "):
        sandbox_program(tools=True, environ=bare)
    assert [sandbox_program(tools=False, environ=bare) for _ in range(3)] == [None] * 3
    assert len(caplog.records) == 1 and "bubblewrap" in caplog.records[0].getMessage()
    off = {**bare, "PEPA_PI_SANDBOX": "off"}
    assert sandbox_program(tools=True, environ=off) is None  # the operator's explicit choice
    assert sandbox_program(tools=True, environ=off) is None
    assert [r.getMessage().startswith("PEPA_PI_SANDBOX=off") for r in caplog.records] == [
        False, True, True,
    ]  # fmt: skip
    fake = tmp_path / "my-bwrap"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    chosen = {**bare, "PEPA_PI_SANDBOX": str(fake)}
    assert sandbox_program(tools=True, environ=chosen) == str(fake)
