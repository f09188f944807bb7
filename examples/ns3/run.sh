#!/usr/bin/env bash
# run.sh: build libhwcc.a and rocc-dumbbell (hwcc's RoCC inside ns-3), run it.
# Arguments are passed to the program (e.g. --senders=4 --duration=10).
# Environment: OUT (build directory, default examples/ns3/build), CXX.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${OUT:-$here/build}"
mods="ns3-core ns3-network ns3-point-to-point ns3-traffic-control ns3-internet ns3-applications"

if ! pkg-config --exists ns3-core 2>/dev/null; then
	if command -v apt-get >/dev/null 2>&1; then
		sudo=""
		[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
		$sudo apt-get update -q >&2
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q libns3-dev libgsl-dev pkg-config >&2
	else
		echo "run.sh: ns-3 not found (pkg-config ns3-core) and no apt-get" >&2
		exit 1
	fi
fi

mkdir -p "$out"
(cd "$repo" && go build -buildmode=c-archive -o "$out/libhwcc.a" ./capi/libhwcc) >&2
# shellcheck disable=SC2086
"${CXX:-c++}" -std=c++17 -O2 -I "$repo/capi" $(pkg-config --cflags $mods) \
	-o "$out/rocc-dumbbell" "$here/rocc-dumbbell.cc" "$out/libhwcc.a" \
	$(pkg-config --libs $mods) -lpthread -ldl >&2
"$out/rocc-dumbbell" "$@"
