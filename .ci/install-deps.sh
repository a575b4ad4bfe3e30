#!/usr/bin/env bash
# The system packages the tests need, installed with apt-get (as root)
# where one is missing; nothing is done when all are installed. With `CI`
# set, a test whose tool is missing fails rather than skips
# (`tool_available` in tests/util.rs), so a package a test starts to need
# belongs in this list.
set -euo pipefail

PACKAGES=(
    tmux     # the replay UI's interactive smoke test (tests/tui.rs)
    bsdutils # `script`: a terminal for the progress-bar and Ctrl-C tests
    chromium # loads each HTML report headless (tests/html_report.rs)
    fonts-dejavu-core # the plots' and the HTML report's text
)

missing=()
for package in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

echo "installing ${missing[*]}" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
        echo "error: ${missing[*]} not installed, and no root or sudo to install them" >&2
        exit 1
    fi
    sudo=(sudo)
fi
"${sudo[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
