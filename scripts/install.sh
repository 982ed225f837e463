#!/usr/bin/env bash
# Installs the release netsim where a shell finds it, with its completions and man page:
#
#   PREFIX/bin/netsim                                      the optimized build
#   PREFIX/share/bash-completion/completions/netsim        bash completion
#   PREFIX/share/zsh/site-functions/_netsim                zsh completion
#   PREFIX/share/fish/vendor_completions.d/netsim.fish     fish completion
#   PREFIX/share/man/man1/netsim.1                         the man page (`man netsim`)
#
# scripts/install.sh [--uninstall]. PREFIX defaults to ~/.local, or /usr/local as root.
# NETSIM names the binary to install (default .build/release/netsim, built first if missing).
# The completions and the man page come from that binary itself (swift-argument-parser's
# --generate-completion-script, and scripts/make-manual.py over --experimental-dump-help), so
# they always describe the netsim installed beside them. --uninstall removes exactly these
# files, and the directories the install made that are left empty; nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = 0 ]; then prefix="${PREFIX:-/usr/local}"; else prefix="${PREFIX:-$HOME/.local}"; fi
files=(
    bin/netsim
    share/bash-completion/completions/netsim
    share/zsh/site-functions/_netsim
    share/fish/vendor_completions.d/netsim.fish
    share/man/man1/netsim.1
)

case "${1:-}" in
--uninstall)
    for file in "${files[@]}"; do
        rm -f "$prefix/$file"
        # The directories up to PREFIX, where they are empty (never PREFIX itself).
        directory=$(dirname "$file")
        while [ "$directory" != . ]; do
            rmdir "$prefix/$directory" 2>/dev/null || break
            directory=$(dirname "$directory")
        done
    done
    echo "netsim removed from $prefix"
    exit 0
    ;;
"") ;;
*)
    echo "usage: scripts/install.sh [--uninstall] (PREFIX=$prefix, NETSIM=.build/release/netsim)" >&2
    exit 64
    ;;
esac

netsim="${NETSIM:-.build/release/netsim}"
if [ -z "${NETSIM:-}" ] && [ ! -x "$netsim" ]; then
    scripts/release-build.sh --product netsim
fi
[ -x "$netsim" ] || { echo "install: $netsim is not an executable" >&2; exit 1; }

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
"$netsim" --generate-completion-script bash > "$staging/bash"
"$netsim" --generate-completion-script zsh > "$staging/zsh"
"$netsim" --generate-completion-script fish > "$staging/fish"
python3 scripts/make-manual.py "$netsim" > "$staging/man"

# install(1) without -D, which macOS's lacks: the directories first.
place() {
    mkdir -p "$(dirname "$prefix/$3")"
    install -m "$1" "$2" "$prefix/$3"
}
place 755 "$netsim" bin/netsim
place 644 "$staging/bash" share/bash-completion/completions/netsim
place 644 "$staging/zsh" share/zsh/site-functions/_netsim
place 644 "$staging/fish" share/fish/vendor_completions.d/netsim.fish
place 644 "$staging/man" share/man/man1/netsim.1
echo "netsim installed: $prefix/bin/netsim, its completions (bash, zsh, fish) and man page (man netsim)"
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "$prefix/bin is not on your PATH: add it, or run $prefix/bin/netsim" ;;
esac
