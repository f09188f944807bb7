#!/usr/bin/env bash
# run.sh: build the RTL testbenches (Verilator) with hwcc as their golden
# model, and run them.
#
#   run.sh build          build only, into OUT
#   run.sh                build, then run every bench as written (each must
#                         pass) and in its wrong variant (each must fail)
#
# Environment: OUT (build directory, default examples/rtl/build), CC.
# Needs go, a C compiler and verilator (Debian: apt-get install verilator).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${OUT:-$here/build}"
mkdir -p "$out"

# 1. hwcc: the command (its reciprocal table, for the ROM) and the C archive
#    the benches link (hwcc's C ABI and examples/rtl/golden's functions).
(cd "$repo" && go build -o "$out/hwcc" ./cmd/hwcc)
"$out/hwcc" tables reciprocal -format memh -o "$out/recip.memh"
(cd "$repo" && go build -buildmode=c-archive -o "$out/libgolden.a" ./examples/rtl/golden)

# 2. The DPI-C bridge, C99.
"${CC:-cc}" -std=c99 -O2 -Wall -Wextra -Werror -I "$repo/capi" -c "$here/c/hwcc_dpi.c" -o "$out/hwcc_dpi.o"

# 3. The simulator: every bench in one binary, linked with the bridge and
#    the archive.
sv="$here/sv"
verilator --binary --timing -j 2 -Wall -Wno-DECLFILENAME -Wno-UNUSEDSIGNAL \
	--top-module tb_top -I"$sv" --Mdir "$out/obj" -o tb \
	"$sv/rtl_params.sv" "$sv/hwcc_dpi.sv" "$sv/tb_util.sv" \
	"$sv/recip_unit.sv" "$sv/rocc_cp.sv" "$sv/int_delta.sv" "$sv/int_wrap.sv" \
	"$sv/tb_recip.sv" "$sv/tb_rocc.sv" "$sv/tb_int.sv" "$sv/tb_delta.sv" "$sv/tb_top.sv" \
	"$out/hwcc_dpi.o" "$out/libgolden.a" -LDFLAGS "-lpthread -ldl" >"$out/verilator.log" 2>&1 \
	|| { cat "$out/verilator.log" >&2; exit 1; }

[ "${1:-}" = build ] && exit 0

# 4. Run: the ROM file is read from the working directory.
cd "$out"
status=0
for bench in recip rocc int delta; do
	echo "--- $bench"
	./obj/tb +bench="$bench" || status=1
	echo "--- $bench, wrong variant (must fail)"
	if ./obj/tb +bench="$bench" +wrong; then
		echo "run.sh: the wrong variant of $bench passed" >&2
		status=1
	fi
done
exit $status
