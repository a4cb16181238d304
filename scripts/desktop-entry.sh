#!/usr/bin/env bash
# Prints the freedesktop desktop entry `make install` writes: it starts `cairn serve --open`, which serves the vault
# on 127.0.0.1 and opens the address (with its launch key) in the default browser. With a second argument, the
# entry names that vault folder (`--data-dir`), as `make install` does when CAIRN_HOME is set.
set -euo pipefail
binary="${1:?usage: desktop-entry.sh PATH-TO-CAIRN [VAULT-FOLDER]}"
# Exec quoting (Desktop Entry Specification): each word in double quotes, with \ " ` $ escaped.
quote() { printf '"%s"' "$(printf '%s' "$1" | sed -e 's/[\\"`$]/\\&/g' -e 's/%/%%/g')"; }
exec_line="$(quote "$binary")"
if [ -n "${2:-}" ]; then exec_line="$exec_line --data-dir $(quote "$2")"; fi
cat <<ENTRY
[Desktop Entry]
Type=Application
Name=Cairn
GenericName=Health journal
Comment=A private health journal that keeps everything on this computer
Exec=$exec_line serve --open --port 0
Terminal=false
Categories=Utility;
ENTRY
