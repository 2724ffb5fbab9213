#!/usr/bin/env bash
# Usage: ensure-apt-package.sh PATH PACKAGE PURPOSE
# Makes sure the executable PATH (or a command of that name on PATH) is there, installing Debian's
# PACKAGE with apt-get when it is not. Idempotent: does nothing when it is there. Installs as root
# (or with passwordless sudo); otherwise says what to run and exits 1. PURPOSE says why, in the
# line printed while installing. Used by ensure-chromium.sh and ensure-sandbox.sh.
set -euo pipefail
want="$1" package="$2" purpose="$3"

present() { [ -x "$want" ] || command -v "$want" >/dev/null 2>&1; }
if present; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure: $want is missing and there is no apt-get to install Debian's $package; install your system's $package" >&2
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "ensure: $want is missing; install it as root: apt-get install -y --no-install-recommends $package" >&2
  exit 1
fi

echo "ensure: installing Debian's $package for $purpose" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "$package" >/dev/null
if ! present; then
  echo "ensure: apt-get installed $package, but $want is still missing" >&2
  exit 1
fi
