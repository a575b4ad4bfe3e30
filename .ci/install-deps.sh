#!/usr/bin/env bash
# System packages the test suite needs beyond the Rust toolchain: Chromium,
# which the HTML report's browser test (`tests/html_report.rs`) loads each
# report in, headless. Idempotent: does nothing when Chromium is already there.
# Needs root (or sudo) and a Debian/Ubuntu apt.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    echo "install-deps: chromium already installed: $(command -v chromium || command -v chromium-browser)"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends chromium fonts-dejavu-core
command -v chromium
