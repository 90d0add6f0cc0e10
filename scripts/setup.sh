#!/usr/bin/env bash
# Idempotent set-up for a fresh machine that has only Node 20 (or newer) and npm. The project runs on
# Node 24 LTS, which comes from the npm registry as the root devDependency `node` (`pnpm exec node`):
# pnpm (pinned), kubectl (for the tests that drive a real client), docker-registry (a real image
# registry for the bundle image tests), chromium (the console's browser tests), dependencies, build.
set -euo pipefail
cd "$(dirname "$0")/.."

want_pnpm=10.34.9
if [ "$(pnpm --version 2>/dev/null || true)" != "$want_pnpm" ]; then
  echo "setup: installing pnpm $want_pnpm" >&2
  npm install -g "pnpm@$want_pnpm" >/dev/null 2>&1 || npm install -g "pnpm@$want_pnpm"
fi

if ! command -v kubectl >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing kubectl (Debian kubernetes-client)" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubernetes-client) >/dev/null 2>&1 \
      || echo "setup: kubectl could not be installed; kubectl tests will be skipped" >&2
  else
    echo "setup: kubectl not found and not root; kubectl tests will be skipped" >&2
  fi
fi

if ! command -v docker-registry >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing docker-registry (Debian docker-registry, for the bundle image tests)" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-registry) >/dev/null 2>&1 \
      || echo "setup: docker-registry could not be installed; bundle image tests will be skipped" >&2
  else
    echo "setup: docker-registry not found and not root; bundle image tests will be skipped" >&2
  fi
fi

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing chromium (Debian chromium and chromium-driver, for the console's browser tests)" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) >/dev/null 2>&1 \
      || echo "setup: chromium could not be installed; the console's browser tests will be skipped" >&2
  else
    echo "setup: chromium not found and not root; the console's browser tests will be skipped" >&2
  fi
fi

export TURBO_TELEMETRY_DISABLED=1
pnpm install --frozen-lockfile --reporter=append-only
# The build, the tests and the CLI run on the pinned LTS (node_modules/.bin/node); say so plainly if it is missing.
runtime=$(pnpm exec node --version)
case "$runtime" in
  v2[4-9].*|v[3-9][0-9].*) ;;
  *) echo "setup: pnpm exec node is $runtime, not the Node 24 LTS the root devDependency \"node\" pins; rerun pnpm install" >&2; exit 1 ;;
esac
pnpm -s turbo run build --output-logs=errors-only >&2

