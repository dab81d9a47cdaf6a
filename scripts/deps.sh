#!/bin/sh
# Install the Debian packages plumb needs to build and test. As root it runs
# apt-get; otherwise it prints the exact command to run and stops.
# `deps.sh test` (make check) adds what only the tests use: Chromium, which
# renders the HTML report and speedscope's app, and speedscope from npm.
set -eu
PKGS="build-essential gcc-12-plugin-dev pkg-config libsqlite3-dev libcriterion-dev sqlite3 hyperfine python3 time zlib1g-dev libdeflate-dev libzstd-dev libcapstone-dev libelf-dev libdw-dev libiberty-dev valgrind binutils gzip zstd libgoogle-perftools-dev python3-jsonschema librsvg2-bin protobuf-c-compiler libprotobuf-c-dev golang-go clang"
[ "${1:-}" = test ] && PKGS="$PKGS chromium"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
# speedscope's app, for t_speedscope: from the npm registry, as root; a
# failure is said and the test then skips (the registry may be unreachable).
speedscope() {
	[ "${1:-}" = test ] && [ "$(id -u)" -eq 0 ] && command -v npm >/dev/null 2>&1 || return 0
	[ -d "$(npm root -g 2>/dev/null)/speedscope" ] && return 0
	echo "deps: npm install -g speedscope@1"
	npm install -g speedscope@1 >/dev/null 2>&1 || echo "deps: npm could not install speedscope; t_speedscope will skip its browser check" >&2
}
if [ -z "$missing" ]; then
	speedscope "${1:-}"
	exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null || { echo "deps: apt-get update failed" >&2; exit 1; }
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
	echo "deps: missing Debian packages. Run:" >&2
	echo "  sudo apt-get install -y$missing" >&2
	exit 1
fi
speedscope "${1:-}"
