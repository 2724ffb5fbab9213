#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the viewer's browser test
# (packages/viewer/test/browser.test.ts). Idempotent: does nothing when it is there. Installs it
# with apt-get when running as root (or with passwordless sudo); otherwise says why and exits 1.
# `npm test` runs it first; a failure stops the test run on CI (CI=true) only.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: $CHROMIUM is missing and there is no apt-get to install Debian's chromium" >&2
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "ensure-chromium: $CHROMIUM is missing; install it as root: apt-get install -y --no-install-recommends chromium" >&2
  exit 1
fi

echo "ensure-chromium: installing Debian's chromium for the viewer's browser test" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null
if [ ! -x "$CHROMIUM" ]; then
  echo "ensure-chromium: apt-get installed chromium, but $CHROMIUM is still missing" >&2
  exit 1
fi
