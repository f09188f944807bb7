#!/usr/bin/env bash
# build-ns3.sh: build ns-3 3.37 with MPI from Debian's source package into a
# cache directory outside the repository, and reuse it when it is there.
#
# Debian's libns3-dev is built without MPI; its source package (`apt-get
# source ns3`) is the same ns-3 3.37. This script adds a deb-src entry for the
# archive apt already uses (when none is there), installs the build tools
# (libopenmpi-dev openmpi-bin cmake ninja-build g++ pkg-config dpkg-dev),
# fetches and unpacks the source, configures it with --enable-mpi and only the
# modules examples/ns3mpi uses, builds it with Ninja and installs it under
# $NS3_MPI_DIR/install. It prints that prefix on stdout (everything else goes
# to stderr) and the time the build took.
#
# Environment:
#   NS3_MPI_DIR   cache directory (default /var/cache/hwcc/ns3-mpi)
#   NS3_MPI_JOBS  parallel compile jobs (default: the number of cores;
#                 `./ns3 build` itself never uses more than cores - 1)
#   NS3_MPI_NICE  niceness of the build (default 19: the compile takes both
#                 cores for several minutes)
#   NS3_MPI_CHECK=1  only check: exit 0 and print the prefix if the cached
#                 build is there, exit 1 otherwise; install and build nothing
#
# Root (or sudo) is needed only for apt-get; the build itself runs as the
# caller. A finished build is marked by $NS3_MPI_DIR/install/hwcc-build.stamp;
# delete the directory to rebuild.
set -euo pipefail

dir="${NS3_MPI_DIR:-/var/cache/hwcc/ns3-mpi}"
jobs="${NS3_MPI_JOBS:-$(nproc 2>/dev/null || echo 2)}"
niceness="${NS3_MPI_NICE:-19}"
prefix="$dir/install"
stamp="$prefix/hwcc-build.stamp"
# The modules hwcc-clos uses (point-to-point's remote channel is the MPI
# link; stats comes in as network's dependency). No internet stack: frames
# are forwarded by the program, so internet, traffic-control and
# applications (and csma, which ns-3 3.37's src/test object library wants
# once applications and point-to-point are both enabled, even with
# --disable-tests) stay out, which also halves the build.
modules="core;network;point-to-point;mpi"

log() { printf 'build-ns3.sh: %s\n' "$*" >&2; }

if [ -f "$stamp" ] && grep -qx "modules $modules" "$stamp"; then
	log "cached: $(tr '\n' ' ' <"$stamp")"
	echo "$prefix"
	exit 0
fi
if [ -f "$stamp" ]; then
	log "the cached build in $dir has other modules than $modules"
	[ "${NS3_MPI_CHECK:-0}" = 1 ] && exit 1
	rm -f "$stamp"
fi
if [ "${NS3_MPI_CHECK:-0}" = 1 ]; then
	log "no cached ns-3 with MPI in $dir (run examples/ns3mpi/build-ns3.sh)"
	exit 1
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo="sudo"
	else
		log "not root and no sudo: cannot apt-get the build tools and the source"
	fi
fi
apt() { DEBIAN_FRONTEND=noninteractive $sudo apt-get "$@"; }

if ! command -v apt-get >/dev/null 2>&1; then
	log "no apt-get: this script builds Debian's ns3 source package"
	exit 1
fi

start=$(date +%s)

need=""
for p in libopenmpi-dev openmpi-bin cmake ninja-build g++ pkg-config dpkg-dev python3; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need="$need $p"
done

# A deb-src entry for the archive apt already fetches binaries from.
if ! apt-get source --print-uris -qq ns3 >/dev/null 2>&1; then
	src=/etc/apt/sources.list.d/hwcc-deb-src.sources
	tmp="$(mktemp)"
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		# deb822: every stanza whose Types has deb, with deb-src.
		awk 'BEGIN { RS=""; ORS="\n\n" }
			/(^|\n)Types:[^\n]*(^|[ \t])deb([ \t]|\n|$)/ {
				gsub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src"); sub(/^\n/, ""); print }' \
			/etc/apt/sources.list.d/debian.sources >"$tmp"
	elif [ -f /etc/apt/sources.list ]; then
		sed -n 's/^deb \(.*\)$/deb-src \1/p' /etc/apt/sources.list >"$tmp"
		src=/etc/apt/sources.list.d/hwcc-deb-src.list
	fi
	if [ ! -s "$tmp" ]; then
		log "no Debian deb entry found to derive a deb-src entry from"
		rm -f "$tmp"
		exit 1
	fi
	log "adding $src"
	$sudo install -m 0644 "$tmp" "$src"
	rm -f "$tmp"
	need="$need update"
fi
if [ -n "$need" ]; then
	log "apt-get install$need"
	apt update -qq >&2
	pkgs="${need/ update/}"
	# shellcheck disable=SC2086
	[ -z "${pkgs// /}" ] || apt install -y -qq $pkgs >&2
fi

mkdir -p "$dir/src"
cd "$dir/src"
tree="$(find . -maxdepth 3 -name ns3 -type f -path '*/ns-3*' | head -n 1)"
if [ -z "$tree" ]; then
	log "apt-get source ns3 (into $dir/src)"
	rm -rf "$dir/src"/*
	apt-get source -qq ns3 >&2
	tree="$(find . -maxdepth 3 -name ns3 -type f -path '*/ns-3*' | head -n 1)"
fi
if [ -z "$tree" ]; then
	log "no ns-3 tree (a file ns3 under ns-3*/) in $dir/src"
	exit 1
fi
tree="$(cd "$(dirname "$tree")" && pwd)"
version="$(cat "$tree/VERSION" 2>/dev/null || basename "$tree")"
log "ns-3 $version in $tree"

cd "$tree"
nice -n "$niceness" ./ns3 configure -G Ninja --enable-mpi --disable-examples --disable-tests \
	--disable-python --disable-werror --build-profile=release --prefix="$prefix" \
	--enable-modules="$modules" >"$dir/configure.log" 2>&1 || {
	tail -30 "$dir/configure.log" >&2
	exit 1
}
# (grep reads all of it: with -q it could quit early and, under pipefail,
# sed's SIGPIPE would fail the test.)
if ! sed "s/\x1b\[[0-9;]*m//g" "$dir/configure.log" | grep "MPI Support *: *ON" >/dev/null; then
	grep -i mpi "$dir/configure.log" >&2 || true
	log "configure did not enable MPI (see $dir/configure.log)"
	exit 1
fi
log "configured (MPI Support: ON); building with $jobs jobs at nice $niceness (log: $dir/build.log)"
nice -n "$niceness" cmake --build cmake-cache -j "$jobs" >"$dir/build.log" 2>&1 || {
	tail -30 "$dir/build.log" >&2
	exit 1
}
cmake --install cmake-cache >"$dir/install.log" 2>&1 || {
	tail -30 "$dir/install.log" >&2
	exit 1
}
end=$(date +%s)
secs=$((end - start))
mkdir -p "$prefix"
{
	echo "ns-3 $version"
	echo "modules $modules"
	echo "build_seconds $secs"
	echo "jobs $jobs"
	echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$stamp"
log "ns-3 $version with MPI built and installed in $prefix in $secs s ($((secs / 60)) min $((secs % 60)) s)"
echo "$prefix"
