#!/usr/bin/env bash
# Runs the Python client's tests against a real toolguard server (built from
# this checkout with `go build`; set TOOLGUARD_BIN to use a built binary).
#
# Needs Debian's python3-grpcio and python3-protobuf (and openssl, which the
# TLS test makes its certificate with); installs them (with
# apt-get) when they are missing and this runs as root. Uses Debian's
# /usr/bin/python3 on purpose: another python3 on PATH may lack grpc.
#
# usage: clients/python/test.sh [unittest arguments, e.g. -k Stream]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=/usr/bin/python3
packages=(python3-grpcio python3-protobuf protobuf-compiler protobuf-compiler-grpc openssl)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "test.sh: installing ${missing[*]}" >&2
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	else
		echo "test.sh: missing Debian packages ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
		exit 1
	fi
fi

# The Go toolchain may live outside PATH (README: /usr/local/go).
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	export PATH="/usr/local/go/bin:$PATH"
fi

cd "$root"
exec "$python" -m unittest discover -s clients/python/tests -v "$@"
