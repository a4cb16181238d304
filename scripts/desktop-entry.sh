#!/usr/bin/env bash
# Prints the freedesktop desktop entry `make install` writes: it starts `cairn serve --open`, which serves the vault
# on 127.0.0.1 and opens the address (with its launch key) in the default browser.
set -euo pipefail
binary="${1:?usage: desktop-entry.sh PATH-TO-CAIRN}"
# Exec quoting (Desktop Entry Specification): the path in double quotes, with \ " ` $ escaped.
quoted=$(printf '%s' "$binary" | sed -e 's/[\\"`$]/\\&/g')
cat <<ENTRY
[Desktop Entry]
Type=Application
Name=Cairn
GenericName=Health journal
Comment=A private health journal that keeps everything on this computer
Exec="$quoted" serve --open --port 0
Terminal=false
Categories=Utility;
ENTRY
