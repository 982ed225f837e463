#!/usr/bin/env bash
# The dashboard's JavaScript: a syntax check of each script (`node --check`), the dashboard's
# own lint (scripts/lint-dashboard.js: its Content-Security-Policy, text only as text, every id
# the script asks for in the page), then its unit tests (`node --test Tests/Dashboard`). Node
# comes from apt (nodejs, scripts/install-deps.sh); there is no npm registry in CI, so no eslint.
# scripts/test.sh runs it before the Swift tests.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v node >/dev/null 2>&1 || { echo "js-test: node is needed (apt-get install nodejs)" >&2; exit 1; }
for file in Sources/NetsimAdmin/Dashboard/*.js Tests/Dashboard/*.js scripts/lint-dashboard.js; do
    node --check "$file"
done
node scripts/lint-dashboard.js
node --test Tests/Dashboard/
