#!/usr/bin/env bash
# Compiles the client, its tests and the example, then runs the tests with
# node --test: unit tests, and end-to-end tests against a toolguard server
# built from this repository (Go needed) on a free loopback port.
#
# usage: clients/typescript/test.sh
#   TOOLGUARD_BIN=path/to/toolguard  use that binary instead of building one
set -euo pipefail

cd "$(dirname "$0")"
if [ ! -d node_modules ]; then
	npm ci --no-audit --no-fund
fi
npm test
