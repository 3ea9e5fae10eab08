#!/usr/bin/env bash
# `make test` leaves the checkout as it found it (issue 52).
#   scripts/tree_state.sh save FILE    record what git sees: `git status`, and the content (hash) of every
#                                      changed or untracked file that .gitignore does not cover
#   scripts/tree_state.sh check FILE   record it again; print the difference and fail when there is one
# Outside a git checkout (or without git) both record one line saying so, and check says the check is skipped.
set -euo pipefail
usage="usage: $0 save|check FILE"
[ $# -eq 2 ] || { echo "$usage" >&2; exit 2; }
mode=$1 file=$2
root=$(cd "$(dirname "$0")/.." && pwd)
state() {
  cd "$root"
  if ! command -v git >/dev/null 2>&1 || ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "not a git checkout"
    return
  fi
  git status --porcelain=v1 --untracked-files=all
  git ls-files -z --modified --others --exclude-standard | while IFS= read -r -d '' f; do
    if [ -f "$f" ]; then printf '%s %s\n' "$(git hash-object -- "$f")" "$f"; fi
  done
}
case $mode in
  save) state > "$file" ;;
  check)
    if [ "$(head -n 1 "$file")" = "not a git checkout" ]; then
      echo "not a git checkout: the check that make test leaves the checkout as it found it is skipped"
      exit 0
    fi
    if ! state | diff -u --label "before make test" --label "after make test" "$file" -; then
      echo "make test changed the checkout (above: git status and file hashes, before and after); a test or" \
           "notebook wrote into the tracked tree instead of a temporary folder (issue 52)" >&2
      exit 1
    fi ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
