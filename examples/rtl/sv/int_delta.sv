// int_delta_pkg: the wrap-safe difference of two samples of a w-bit
// free-running counter (w <= 31), older first: (newer - older) mod 2^w, the
// low w bits of the (w+1)-bit difference (inttel's TSDelta and TxBytesDelta
// in counts; exact while the counter advanced by less than 2^w between the
// samples).
//
// bug = 1 is the deliberately wrong variant: when the counter wrapped
// (newer < older) it adds 2^w - 1 instead of 2^w, an off-by-one in the wrap.
package int_delta_pkg;
  function automatic logic [31:0] wrap_delta(input logic [31:0] older, input logic [31:0] newer,
                                             input int w, input bit bug);
    logic [31:0] d, mask;
    mask = (32'd1 << w) - 32'd1;
    d = (newer & mask) - (older & mask);
    if (bug && (newer & mask) < (older & mask)) d = d - 32'd1;
    return d & mask;
  endfunction
endpackage

// int_delta: int_delta_pkg's wrap_delta as a block of its own, the unit
// tb_delta sweeps.
module int_delta
  import int_delta_pkg::*;
#(
    parameter int W = 24,
    parameter bit BUG_WRAP = 1'b0
) (
    input  logic [W-1:0] older,
    input  logic [W-1:0] newer,
    output logic [W-1:0] delta
);
  assign delta = W'(wrap_delta(32'(older), 32'(newer), W, BUG_WRAP));
endmodule
