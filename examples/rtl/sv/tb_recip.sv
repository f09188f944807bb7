// tb_recip: recip_unit against hwcc's reciprocal table (hwtables, through
// examples/rtl/golden's hwccrtl_recip). One divisor enters
// per cycle; every result is compared, mantissa, shift and quotient, with
// hwcc's Lookup and DivFast of the same inputs.
//
// Divisors: with +stride=1, every n from 0 to 2^22 + 1 (the whole domain,
// its clamp at both ends); with +stride=S, every S-th n and every n up to
// 4096 (where each n is its own table entry). Then the corners above the
// domain. Each n is divided into a random 64-bit a, and the corners of a
// (0, 1, 2^64 - 1, 2^63, 2^k - 1) take their turns.
// Testbench code: widths are the simulator's business here, and the
// blocks' outputs are read hierarchically.
// verilator lint_off WIDTH
// verilator lint_off PINMISSING
module tb_recip (
    input logic clk
);
  import hwcc_rtl_params::*;
  import tb_util::*;
  import hwcc_dpi::*;

  logic        in_valid = 1'b0;
  logic [31:0] in_n = '0;
  logic [63:0] in_a = '0;

  // The block and its wrong variant, driven alike; use_bad picks the one
  // compared.
  recip_unit #(
      .F(RECIP_MANT_BITS), .KEY(RECIP_KEY_BITS), .STEPS(RECIP_STEPS),
      .ENTRIES(RECIP_ENTRIES), .MAX_N(RECIP_MAX_N), .BUG_ROUND(1'b0)
  ) ok (.clk, .in_valid, .in_n, .in_a);
  recip_unit #(
      .F(RECIP_MANT_BITS), .KEY(RECIP_KEY_BITS), .STEPS(RECIP_STEPS),
      .ENTRIES(RECIP_ENTRIES), .MAX_N(RECIP_MAX_N), .BUG_ROUND(1'b1)
  ) bad (.clk, .in_valid, .in_n, .in_a);
  bit use_bad = 1'b0;
`define RTL(x) (use_bad ? bad.x : ok.x)

  longint cycle = 0;
  always @(posedge clk) cycle <= cycle + 1;

  longint checked = 0;

  // check compares the result leaving the pipeline now, if any.
  task automatic check();
    longint mant, q;
    int shift;
    string in;
    logic [31:0] out_n;
    logic [63:0] out_a, out_q;
    logic [RECIP_MANT_BITS:0] out_mant;
    logic [5:0] out_shift;
    if (!`RTL(out_valid)) return;
    out_n = `RTL(out_n);
    out_a = `RTL(out_a);
    out_q = `RTL(out_q);
    out_mant = `RTL(out_mant);
    out_shift = `RTL(out_shift);
    q = hwcc_dpi_recip(longint'(out_n), out_a, mant, shift);
    if (longint'(out_mant) != mant || int'(out_shift) != shift || out_q != q) begin
      in = $sformatf("n=%0d a=%0d", out_n, out_a);
      if (longint'(out_mant) != mant) mismatch(cycle, "mant", longint'(out_mant), mant, int'(checked + 1), in);
      if (int'(out_shift) != shift) mismatch(cycle, "shift", longint'(out_shift), longint'(shift), int'(checked + 1), in);
      mismatch(cycle, "q", out_q, q, int'(checked + 1), in);
    end
    checked++;
  endtask

  // feed puts (n, a) into the pipeline this cycle (if valid) and checks
  // what leaves it.
  task automatic feed(bit valid, longint unsigned n, longint unsigned a);
    in_valid = valid;
    in_n = 32'(n);
    in_a = a;
    @(negedge clk);
    check();
  endtask

  initial begin
    longint stride;
    rng r;
    longint unsigned corner_a[$] = '{0, 1, 64'hffff_ffff_ffff_ffff, 64'h8000_0000_0000_0000,
                                     64'hffff_ffff, 64'h3ff, 64'h7fff_ffff_ffff_ffff};
    longint unsigned corner_n[$] = '{RECIP_MAX_N + 1, RECIP_MAX_N + 2, 32'h7fff_ffff,
                                     32'h8000_0000, 32'hffff_ffff, 0};
    if (selected("recip")) begin
      use_bad = wrong();
      stride = plusarg("stride", 1);
      if (stride < 1) $fatal(1, "tb_recip: +stride=%0d: want >= 1", stride);
      r = new(64'(plusarg("seed", 1)));
      @(negedge clk);
      // Every divisor, then each corner divisor with each corner a, then
      // the cycles that empty the pipeline (in_valid low).
      for (longint i = 0; i <= RECIP_MAX_N + 1 + corner_n.size() * corner_a.size() + RECIP_STEPS + 3; i++) begin
        longint unsigned n, a;
        bit valid = 1'b1;
        if (i <= RECIP_MAX_N + 1) begin
          n = 64'(i);
          if (n > 4096 && n % stride != 0 && n < RECIP_MAX_N - 1) continue;
          a = r.next();
          if (n % 13 == 0) a = corner_a[n / 13 % corner_a.size()];
          else if (n % 7 == 0) a = a >> r.below(64);  // all magnitudes
        end else if (i <= RECIP_MAX_N + 1 + corner_n.size() * corner_a.size()) begin
          longint j = i - RECIP_MAX_N - 2;
          n = corner_n[j / corner_a.size()];
          a = corner_a[j % corner_a.size()];
        end else begin
          valid = 1'b0;
          n = 0;
          a = 0;
        end
        feed(valid, n, a);
      end
      $display("PASS bench=recip events=%0d cycles=%0d", checked, cycle);
      $finish;
    end
  end
endmodule

`undef RTL
