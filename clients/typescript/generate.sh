#!/usr/bin/env bash
# Regenerates src/gen/ (committed) with protoc-gen-es from node_modules, run
# by the repository's pinned buf from the repository root:
#   - toolguard/v1 from proto/ (the API),
#   - google/rpc/error_details from clients/proto/ (vendored, shared with Python).
# buf's `clean` empties clients/typescript/src/gen only. The output depends
# only on the .proto files and the versions pinned in package-lock.json and
# tools/go.mod, so running it twice changes nothing.
#
# usage: clients/typescript/generate.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ ! -x "$here/node_modules/.bin/protoc-gen-es" ]; then
	(cd "$here" && npm ci --no-audit --no-fund)
fi

cd "$root"
go tool -modfile=tools/go.mod buf generate --template clients/typescript/buf.gen.yaml
