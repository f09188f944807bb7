// tb_top: the Verilator top of the RTL testbenches. One binary holds every
// bench, and each bench holds its block twice, as written and in its
// deliberately wrong variant, both driven alike; plusargs pick the bench
// and the block it compares:
//
//   +bench=recip|rocc|int|delta   which bench
//   +wrong                        the block's wrong variant (the run must fail)
//   +seed=N                       the stimulus seed (default 1)
//   +events=N                     random events (rocc, int)
//   +stride=N                     recip: every N-th divisor only (1: all);
//                                 delta: every N-th difference (1: all)
//   +trace=FILE                   rocc, int: write the stimulus as an hwcc trace
//
// A bench that passes prints "PASS bench=NAME events=N cycles=C" and ends
// with $finish; a mismatch prints "MISMATCH cycle C register R rtl X hwcc Y
// event E inputs: ..." and ends with $fatal.
// Testbench code: widths are the simulator's business here.
// verilator lint_off WIDTH
// verilator lint_off BLKSEQ
module tb_top;
  logic clk = 1'b0;
  always #1 clk = ~clk;

  tb_recip recip (.clk);
  tb_rocc rocc (.clk);
  tb_int int_ (.clk);
  tb_delta delta (.clk);

  initial begin
    string b;
    if (!$value$plusargs("bench=%s", b) || !(b == "recip" || b == "rocc" || b == "int" || b == "delta"))
      $fatal(1, "tb_top: name a bench: +bench=recip, +bench=rocc, +bench=int or +bench=delta");
  end
endmodule
