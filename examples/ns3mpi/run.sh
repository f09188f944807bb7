#!/usr/bin/env bash
# run.sh: build hwcc-clos (hwcc's parts in a distributed ns-3 Clos) against
# the ns-3 with MPI that build-ns3.sh made, and run it on NP ranks.
# Arguments are passed to the program (e.g. --k=8 --incast=16 --incastKB=200).
#
# Environment:
#   NP           ranks: 1 runs the program alone (ns-3's sequential
#                simulator, no MPI); N > 1 runs `mpirun -np N` (default 1)
#   MPIRUN_ARGS  extra mpirun arguments (a hostfile: --hostfile FILE)
#   OUT          build directory (default examples/ns3mpi/build, git-ignored)
#   NS3_MPI_DIR  the ns-3 cache (default /var/cache/hwcc/ns3-mpi)
#   NS3_MPI_BUILD=1  build ns-3 with build-ns3.sh when the cache has none
#                (else run.sh stops with a message)
#   CXX          the MPI C++ compiler (default mpicxx)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${OUT:-$here/build}"
np="${NP:-1}"

if ! prefix="$(NS3_MPI_CHECK=1 "$here/build-ns3.sh" 2>/dev/null)"; then
	if [ "${NS3_MPI_BUILD:-0}" = 1 ]; then
		prefix="$("$here/build-ns3.sh")"
	else
		echo "run.sh: no ns-3 with MPI in ${NS3_MPI_DIR:-/var/cache/hwcc/ns3-mpi}: run examples/ns3mpi/build-ns3.sh (or set NS3_MPI_BUILD=1)" >&2
		exit 2
	fi
fi

mkdir -p "$out"
bin="$out/hwcc-clos"
# Rebuild when a source is newer than the binary (the Go sources of the
# C ABI's library included).
stale=0
if [ ! -x "$bin" ] || [ "$here/hwcc-clos.cc" -nt "$bin" ] || [ "$repo/capi/hwcc.h" -nt "$bin" ] ||
	[ -n "$(find "$repo" -name '*.go' -newer "$bin" -not -path '*/examples/*' -print -quit)" ]; then
	stale=1
fi
if [ "$stale" = 1 ]; then
	(cd "$repo" && go build -buildmode=c-archive -o "$out/libhwcc.a" ./capi/libhwcc) >&2
	libdir="$prefix/lib"
	[ -d "$libdir" ] || libdir="$prefix/lib64"
	mods="core network mpi point-to-point"
	libs=""
	for m in $mods; do
		f="$(find "$libdir" -maxdepth 1 -name "libns3*-$m*.so" | head -n 1)"
		[ -n "$f" ] || { echo "run.sh: no ns-3 $m library in $libdir" >&2; exit 1; }
		libs="$libs $f"
	done
	# shellcheck disable=SC2086
	"${CXX:-mpicxx}" -std=c++17 -O2 -I "$repo/capi" -I "$prefix/include" \
		-o "$bin.tmp" "$here/hwcc-clos.cc" "$out/libhwcc.a" $libs \
		-Wl,-rpath,"$libdir" -lpthread -ldl >&2
	mv "$bin.tmp" "$bin"
fi

if [ "$np" -le 1 ]; then
	exec "$bin" "$@"
fi
# mpirun refuses root unless told; CI runs as root. Shared-memory
# single-copy (CMA) needs ptrace rights containers often lack: off.
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
# shellcheck disable=SC2086
exec mpirun "${root[@]}" --oversubscribe --mca btl_vader_single_copy_mechanism none \
	${MPIRUN_ARGS:-} -np "$np" "$bin" "$@"
