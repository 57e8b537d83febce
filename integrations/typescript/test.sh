#!/usr/bin/env bash
# Builds the TypeScript client (the integrations depend on it by path, and
# reuse its server fixture), installs the pinned framework packages from the
# lock file, then compiles and runs the integrations' tests and examples
# against toolguard servers on free loopback ports.
#
# usage: integrations/typescript/test.sh
#   TOOLGUARD_BIN=path/to/toolguard  use that binary instead of building one
set -euo pipefail

cd "$(dirname "$0")"
client=../../clients/typescript
if [ ! -d "$client/node_modules" ]; then
	(cd "$client" && npm ci --no-audit --no-fund)
fi
(cd "$client" && npm run --silent build)
if [ ! -d node_modules ]; then
	npm ci --no-audit --no-fund
fi
npm test
