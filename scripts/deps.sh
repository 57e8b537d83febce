#!/usr/bin/env bash
# Installs the Debian packages `make test` needs beyond Go, when they are
# missing: as root with apt-get, otherwise it prints the command to run and
# fails. The Go modules and the TypeScript client's npm packages are fetched
# by go and npm themselves.
#
#   redis-server            the Redis session store's tests start real servers; its redis-tools (redis-cli) makes their clusters, and "redis-server --sentinel" their Sentinels
#   python3-grpcio, python3-protobuf, python3-pip, python3-setuptools, python3-wheel
#                           the Python client's tests and its offline pip install and wheel tests
#   protobuf-compiler, protobuf-compiler-grpc
#                           make generate's Python stubs
#   nodejs, npm             the TypeScript client's tests and the framework integrations' (integrations/typescript)
#   gcc, libc6-dev          the race detector (cgo)
#   curl, openssl           the proxy's end-to-end script; the TLS tests' certificates
#   ripgrep, findutils      the search and tree benchmarks' peers (make bench-smoke)
#   python3-jsonschema      half of bench/clients' Python in-process peer (json_repair, its other half, is fetched at benchmark time)
#   chromium                the eval report's test opens the page in a real headless browser (eval/report)
#
# usage: scripts/deps.sh
set -euo pipefail

packages=(redis-server python3 python3-grpcio python3-protobuf python3-pip python3-setuptools python3-wheel
	protobuf-compiler protobuf-compiler-grpc gcc libc6-dev curl openssl make git ripgrep findutils chromium python3-jsonschema)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js may come from another source than Debian's package (nodesource, nvm).
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing ${missing[*]}; run make test as root, or first: sudo apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "deps.sh: installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
