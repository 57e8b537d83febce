#!/usr/bin/env bash
# Runs the Python client's tests against a real toolguard server (built from
# this checkout with `go build`; set TOOLGUARD_BIN to use a built binary).
#
# Needs Debian's python3-grpcio, python3-protobuf, python3-pip and openssl
# (scripts/deps.sh installs them as root, or says what to install). Uses Debian's
# /usr/bin/python3 on purpose: another python3 on PATH may lack grpc.
#
# usage: clients/python/test.sh [unittest arguments, e.g. -k Stream]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=/usr/bin/python3
"$root/scripts/deps.sh"

# The Go toolchain may live outside PATH (README: /usr/local/go).
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH="/usr/local/go/bin:$PATH"
fi

cd "$root"
exec "$python" -m unittest discover -s clients/python/tests -v "$@"
