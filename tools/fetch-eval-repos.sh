#!/usr/bin/env bash
# Obtains the real repositories the eval/ query sets were written against, at the recorded
# commits, into ${CA_EVAL_REPOS:-.eval-repos}/<name> (where `ca eval run` looks for them).
# CI does not need them: the gate runs the fixture sets only.
#
#   tools/fetch-eval-repos.sh            # clone both (needs network and git)
#   CA_EVAL_REPOS=/work/repos tools/fetch-eval-repos.sh
#
# Without network: place a full clone (the .git history is needed by `ca eval mine-git`; the
# working tree needs the source files) at the paths printed below, checked out at the commit.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${CA_EVAL_REPOS:-$ROOT/.eval-repos}"
REPOS=(
  "excalidraw excalidraw/excalidraw 4872083c044491b6d5c96ae134a75464f96d6831"
  "Newtonsoft.Json JamesNK/Newtonsoft.Json 09bb545d72969ad7fb4ea07db0d5c34f4fc07877"
)

mkdir -p "$DEST"
status=0
for entry in "${REPOS[@]}"; do
  read -r name slug commit <<<"$entry"
  dir="$DEST/$name"
  if [ -d "$dir/.git" ]; then
    if git -C "$dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
      git -C "$dir" -c advice.detachedHead=false checkout -q "$commit"
      echo "ok    $dir @ $commit"
      continue
    fi
    echo "fetch $slug into existing $dir"
    git -C "$dir" fetch -q origin || true
  else
    echo "clone https://github.com/$slug.git -> $dir"
    if ! git clone -q "https://github.com/$slug.git" "$dir"; then
      echo "error: could not clone $slug (no network?). Place a clone of https://github.com/$slug at $dir, checked out at $commit." >&2
      status=1
      continue
    fi
  fi
  if git -C "$dir" -c advice.detachedHead=false checkout -q "$commit"; then
    echo "ok    $dir @ $commit"
  else
    echo "error: $dir has no commit $commit; fetch it or re-clone." >&2
    status=1
  fi
done

echo
echo "Run:  CA_EVAL_REPOS=$DEST node apps/eval/dist/main.js run eval/excalidraw.jsonl eval/excalidraw.mined.jsonl eval/newtonsoft-json.jsonl eval/newtonsoft-json.mined.jsonl --html eval-report.html"
exit $status
