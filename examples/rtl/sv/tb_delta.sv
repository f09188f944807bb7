// tb_delta: int_delta, the wrap arithmetic of int_wrap's lanes, swept
// against inttel's TSDelta and TxBytesDelta (examples/rtl/golden): with
// +stride=1 every difference of the 24-bit TS field and of the 20-bit
// txBytes field once (2^24 + 2^20 pairs), each from a random older sample,
// so every delta the units can output is checked, wrapped or not; with
// +stride=S every S-th difference. Then the four corners of each field.
// One pair per cycle.
// Testbench code: widths are the simulator's business here, and the
// blocks' outputs are read hierarchically.
// verilator lint_off WIDTH
// verilator lint_off PINMISSING
module tb_delta (
    input logic clk
);
  import hwcc_rtl_params::*;
  import tb_util::*;
  import hwcc_dpi::*;

  localparam int TS_BITS = 24, TX_BITS = 20;

  logic [TS_BITS-1:0] ts_old = '0, ts_new = '0, ts_ok, ts_bad;
  logic [TX_BITS-1:0] tx_old = '0, tx_new = '0, tx_ok, tx_bad;
  bit use_bad = 1'b0;

  // The unit and its wrong variant, driven alike; use_bad picks the one
  // compared.
  int_delta #(.W(TS_BITS)) ts_u (.older(ts_old), .newer(ts_new), .delta(ts_ok));
  int_delta #(.W(TX_BITS)) tx_u (.older(tx_old), .newer(tx_new), .delta(tx_ok));
  int_delta #(.W(TS_BITS), .BUG_WRAP(1'b1)) ts_w (.older(ts_old), .newer(ts_new), .delta(ts_bad));
  int_delta #(.W(TX_BITS), .BUG_WRAP(1'b1)) tx_w (.older(tx_old), .newer(tx_new), .delta(tx_bad));

  longint cycle = 0;
  always @(posedge clk) cycle <= cycle + 1;

  longint checked = 0;

  // pair checks one pair of samples of the TS field (ts) or the txBytes
  // field.
  task automatic pair(bit ts, longint older, longint newer);
    longint want, got;
    string name;
    ts_old = 24'(older);
    ts_new = 24'(newer);
    tx_old = 20'(older);
    tx_new = 20'(newer);
    @(negedge clk);
    checked++;
    if (ts) begin
      name = "ts delta, ps (TSDelta)";
      got = longint'(use_bad ? ts_bad : ts_ok) * INT_TS_UNIT_PS;
      want = hwcc_dpi_ts_delta(int'(ts_old), int'(ts_new));
    end else begin
      name = "tx delta, bytes (TxBytesDelta)";
      got = longint'(use_bad ? tx_bad : tx_ok) << INT_TX_SHIFT;
      want = hwcc_dpi_tx_delta(int'(tx_old), int'(tx_new));
    end
    if (got != want)
      mismatch(cycle, name, got, want, int'(checked),
               ts ? $sformatf("older=%0d newer=%0d", ts_old, ts_new) : $sformatf("older=%0d newer=%0d", tx_old, tx_new));
  endtask

  initial begin
    longint stride;
    rng r;
    if (selected("delta")) begin
      use_bad = wrong();
      stride = plusarg("stride", 1);
      if (stride < 1) $fatal(1, "tb_delta: +stride=%0d: want >= 1", stride);
      r = new(64'(plusarg("seed", 1)));
      @(negedge clk);
      // Every stride-th difference of each field from a random older
      // sample, then the corners (0 and the maximum, each way).
      for (longint i = 0; i < (longint'(1) << TS_BITS) + (longint'(1) << TX_BITS) + 8; i += 1) begin
        longint o, n, tsn = longint'(1) << TS_BITS, txn = longint'(1) << TX_BITS;
        bit ts;
        if (i < tsn + txn && (i < tsn ? i : i - tsn) % stride != 0) continue;
        if (i < tsn) begin
          ts = 1'b1; o = longint'(r.below(64'(tsn))); n = o + i;
        end else if (i < tsn + txn) begin
          ts = 1'b0; o = longint'(r.below(64'(txn))); n = o + i - tsn;
        end else begin
          longint c = i - tsn - txn;
          ts = c < 4;
          o = (c & 2) != 0 ? -1 : 0;
          n = (c & 1) != 0 ? -1 : 0;
        end
        pair(ts, o, n);
      end
      $display("PASS bench=delta events=%0d cycles=%0d", checked, cycle);
      $finish;
    end
  end
endmodule
