#!/usr/bin/env bash
# Makes sure bubblewrap (`bwrap`), the sandbox every command of a node or a scoped token runs in
# (docs/security.md, "The sandbox"), is installed. Idempotent: does nothing when it is there.
# Installs Debian's package with apt-get when running as root (or with passwordless sudo);
# otherwise says what to run and exits 1. `npm start` and `npm test` run it first; a failure stops
# the test run on CI (CI=true) only. Without it the daemon still starts, and refuses such
# commands with 503 sandbox_unavailable, naming this fix.
set -euo pipefail

if command -v bwrap >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-sandbox: bwrap is missing and there is no apt-get; install your system's bubblewrap package" >&2
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "ensure-sandbox: bwrap is missing; install it as root: apt-get install -y --no-install-recommends bubblewrap" >&2
  exit 1
fi

echo "ensure-sandbox: installing Debian's bubblewrap for the agents' sandbox" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null
if ! command -v bwrap >/dev/null 2>&1; then
  echo "ensure-sandbox: apt-get installed bubblewrap, but bwrap is still missing" >&2
  exit 1
fi
