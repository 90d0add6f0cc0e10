#!/usr/bin/env bash
# Runs the whole vitest suite once and ends with the line CI reads: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .test-results
report=.test-results/vitest.json
rm -f "$report"
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@"
status=$?
node scripts/test-summary.mjs "$report" "$status"
