#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the viewer's browser test
# (packages/viewer/test/browser.test.ts). Idempotent: does nothing when it is there. Installs it
# with apt-get when running as root (or with passwordless sudo); otherwise says why and exits 1.
# `npm test` runs it first; a failure stops the test run on CI (CI=true) only.
set -euo pipefail
exec bash "$(dirname "$0")/ensure-apt-package.sh" /usr/bin/chromium chromium "the viewer's browser test"
