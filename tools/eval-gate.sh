#!/usr/bin/env bash
# Retrieval quality gate for CI: runs the fixture query sets (train split, seconds) and fails when
# hybrid NDCG@10 drops more than 0.02 below eval/baseline.json or below any available single
# channel. Unavailable channels (vector without a model) are excluded and reported.
#   tools/eval-gate.sh                 # gate
#   tools/eval-gate.sh --write-baseline eval/baseline.json   # regenerate the baseline
# Needs a build: pnpm --filter @ca/eval... build (the engine and its dependencies included).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SETS=(eval/ts-app.jsonl eval/cs-solution.jsonl)
if [ "${1:-}" = "--write-baseline" ]; then
  exec node apps/eval/dist/main.js run "${SETS[@]}" --cold-samples 3 --write-baseline "${2:-eval/baseline.json}"
fi
exec node apps/eval/dist/main.js gate --baseline eval/baseline.json "${SETS[@]}" --cold-samples 3 "$@"
