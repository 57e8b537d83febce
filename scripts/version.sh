#!/usr/bin/env bash
# Copies the version in VERSION into the clients' package files, the one
# place each package manager reads it from. make build and the container
# image read VERSION themselves; docs/version_test.go fails while any copy
# differs from it, or from the CHANGELOG's latest release.
#
# usage: scripts/version.sh   (after editing VERSION)
set -euo pipefail
cd "$(dirname "$0")/.."

v=$(cat VERSION)
[[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "version.sh: VERSION is \"$v\", want MAJOR.MINOR.PATCH" >&2; exit 1; }
sed -i -E "s/^version = \"[^\"]*\"/version = \"$v\"/" clients/python/pyproject.toml
sed -i -E "s/^__version__ = \"[^\"]*\"/__version__ = \"$v\"/" clients/python/toolguard_client/_version.py
sed -i -E "s/^export const VERSION = \"[^\"]*\";/export const VERSION = \"$v\";/" clients/typescript/src/version.ts
(cd clients/typescript && npm version "$v" --no-git-tag-version --allow-same-version >/dev/null)
echo "version.sh: $v in the Python and TypeScript clients"
