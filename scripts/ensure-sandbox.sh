#!/usr/bin/env bash
# Makes sure bubblewrap (`bwrap`), the sandbox every command of a node or a scoped token runs in
# (docs/security.md, "The sandbox"), is installed. Idempotent: does nothing when it is there.
# Installs Debian's package with apt-get when running as root (or with passwordless sudo);
# otherwise says what to run and exits 1. `npm start` and `npm test` run it first; a failure stops
# the test run on CI (CI=true) only. Without it the daemon still starts, and refuses such
# commands with 503 sandbox_unavailable, naming this fix.
set -euo pipefail
exec bash "$(dirname "$0")/ensure-apt-package.sh" bwrap bubblewrap "the agents' sandbox"
