// tb_int: int_wrap against hwcc's HPCC reaction point, driven through the
// C ABI (hwcc_dpi.c) with ACKs whose INT stacks echo the records of up to
// INT_MAX_HOPS switch ports, and against inttel's deltas (examples/rtl/
// golden). After each ACK every register of the block is compared by name
// with the part's snapshot, and each lane's deltas with TSDelta and
// TxBytesDelta of the record stored before the ACK and the ACK's.
//
// Stimulus: per hop, the TS and txBytes counters advance by nothing (a zero
// interval), a little, a lot, exactly up to or past half their period (the
// stale guard's edge), or step back (a reordered ACK), wrapping freely; the
// sender's clock sometimes jumps past a speed's horizon (re-seed); a hop
// sometimes changes its speed code; the path sometimes changes its hop
// count or ID, or carries no hop at all.
// Testbench code: widths are the simulator's business here, and the
// blocks' outputs are read hierarchically.
// verilator lint_off WIDTH
// verilator lint_off PINMISSING
module tb_int (
    input logic clk
);
  import hwcc_rtl_params::*;
  import tb_util::*;
  import hwcc_dpi::*;

  localparam int H = INT_MAX_HOPS;
  localparam int TS_BITS = 24, TX_BITS = 20;

  logic        rst = 1'b1;
  logic        ack_valid = 1'b0;
  logic [63:0] ack_now = '0;
  logic [3:0]  ack_nhop = '0;
  logic [11:0] ack_path = '0;
  logic [H-1:0][3:0]  ack_speed;
  logic [H-1:0][23:0] ack_ts;
  logic [H-1:0][19:0] ack_tx;
  logic [H-1:0][15:0] ack_qlen;

  // The block and its wrong variant, driven alike; use_bad picks the one
  // compared.
  int_wrap #(.BUG_WRAP(1'b0)) ok (.clk, .rst, .ack_valid, .ack_now, .ack_nhop, .ack_path, .ack_speed, .ack_ts,
                                  .ack_tx, .ack_qlen);
  int_wrap #(.BUG_WRAP(1'b1)) bad (.clk, .rst, .ack_valid, .ack_now, .ack_nhop, .ack_path, .ack_speed, .ack_ts,
                                   .ack_tx, .ack_qlen);
  bit use_bad = 1'b0;
`define RTL(x) (use_bad ? longint'(bad.x) : longint'(ok.x))

  longint cycle = 0;
  always @(posedge clk) cycle <= cycle + 1;

  chandle g;
  int hops, path;
  longint t;

  // inputs describes the ACK being compared, for a mismatch report.
  function automatic string inputs();
    string s;
    if (hops < 0) return "reset";
    s = $sformatf("ack t=%0d nhop=%0d path=%0d", t, hops, path);
    for (int i = 0; i < hops; i++)
      s = {s, $sformatf(" hop%0d={B=%0d ts=%0d tx=%0d qlen=%0d}", i, ack_speed[i], ack_ts[i], ack_tx[i], ack_qlen[i])};
    return s;
  endfunction
  longint wraps = 0;  // coverage: lanes whose TS field wrapped

  task automatic cmp(string name, longint rtl);
    longint want;
    if (hwcc_dpi_reg(g, name, want) == 0)
      $fatal(1, "tb_int: hwcc's hpcc rp has no register %s: its snapshot changed", name);
    if (rtl != want) mismatch(cycle, name, rtl, want, hwcc_dpi_events(g), inputs());
  endtask

  // hop_names[i] are hop i's register names in hwcc's snapshot, made once.
  string hop_names [H][5];
  initial
    for (int i = 0; i < H; i++) begin
      hop_names[i][0] = $sformatf("hop%0d.speed", i);
      hop_names[i][1] = $sformatf("hop%0d.ts", i);
      hop_names[i][2] = $sformatf("hop%0d.tx_bytes", i);
      hop_names[i][3] = $sformatf("hop%0d.qlen", i);
      hop_names[i][4] = $sformatf("hop%0d.stored_at", i);
    end

  // add queues a register of the block for compare.
  string names[$];
  longint vals[$];
  function automatic void add(string name, longint rtl);
    names.push_back(name);
    vals.push_back(rtl);
  endfunction

  // compare checks every register the block holds.
  task automatic compare();
    add("now", `RTL(now));
    add("started", `RTL(started));
    add("n_hop", `RTL(n_hop));
    add("path_id", `RTL(path_id));
    for (int i = 0; i < H; i++) begin
      add(hop_names[i][0], `RTL(hop_speed[i]));
      add(hop_names[i][1], `RTL(hop_ts[i]));
      add(hop_names[i][2], `RTL(hop_tx[i]));
      add(hop_names[i][3], `RTL(hop_qlen[i]));
      add(hop_names[i][4], `RTL(hop_stored_at[i]));
    end
    add("acks", `RTL(acks));
    add("path_changes", `RTL(path_changes));
    add("reseeds", `RTL(reseeds));
    add("zero_intervals", `RTL(zero_intervals));
    add("stale", `RTL(stale));
    add("no_sample", `RTL(no_sample));
    // One call site for cmp: Verilator inlines tasks, and a loop over a
    // queue is not unrolled.
    foreach (names[i]) cmp(names[i], vals[i]);
    names.delete();
    vals.delete();
  endtask

  // Each hop's switch port: its speed code and counters.
  int port_speed [H];
  longint port_ts [H], port_tx [H];

  // step returns a counter's advance: 0, small, large, the half-period edge
  // (half - 1, half, half + 1), backwards, or anything.
  function automatic longint step(rng r, int bits);
    longint half = longint'(1) << (bits - 1);
    case (r.below(20))
      0: return 0;
      1: return half - 1;
      2: return half;
      3: return half + longint'(r.below(2));
      4: return -1 - longint'(r.below(1000));
      5: return longint'(r.next());
      6, 7, 8, 9: return longint'(r.below(64'(half)));
      default: return longint'(r.below(5000));
    endcase
  endfunction

  initial begin
    longint events, seq = 0, n_events = 0;
    int nhop = 2;
    string trace = "";
    rng r;
    longint old_ts [H], old_tx [H];
    if (selected("int")) begin
      use_bad = wrong();
      events = plusarg("events", 20000);
      r = new(64'(plusarg("seed", 1)));
      void'($value$plusargs("trace=%s", trace));
      g = hwcc_dpi_new("hpcc", "rp", INT_SETTINGS, INT_RATE, trace);
      if (g == null) $fatal(1, "tb_int: hwcc refused the settings");
      for (int i = 0; i < H; i++) begin
        port_speed[i] = int'(r.below(8));
        port_ts[i] = longint'(r.below(1 << TS_BITS));
        port_tx[i] = longint'(r.below(1 << TX_BITS));
        ack_speed[i] = '0; ack_ts[i] = '0; ack_tx[i] = '0; ack_qlen[i] = '0;
      end
      @(negedge clk);
      rst = 1'b0;
      @(negedge clk);
      t = 0; hops = -1; path = 1;
      compare();
      for (longint e = 0; e < events; e++) begin
        int rc;
        // The sender's clock: mostly microseconds, sometimes past a horizon.
        if (r.below(50) == 0) t += 600_000_000 + longint'(r.below(64'd8_000_000_000));
        else t += longint'(r.below(20_000_000));
        // The path: sometimes another hop count or ID, or none.
        case (r.below(40))
          0: nhop = 1 + int'(r.below(H));
          1: path = int'(r.below(4096));
          default: ;
        endcase
        hops = r.below(60) == 0 ? 0 : nhop;  // now and then an ACK with no record
        hwcc_dpi_tel_clear(g);
        for (int i = 0; i < H; i++) begin
          if (r.below(60) == 0) port_speed[i] = int'(r.below(8));
          // The ACK's record; a forward step below half a period is
          // the port's counter moving on, any other a reordered or
          // corrupted record that leaves the port's counter where it was.
          begin
            longint dts = step(r, TS_BITS), dtx = step(r, TX_BITS);
            ack_ts[i] = 24'(port_ts[i] + dts);
            ack_tx[i] = 20'(port_tx[i] + dtx);
            if (dts >= 0 && dts < (longint'(1) << (TS_BITS - 1)) && dtx >= 0 && dtx < (longint'(1) << (TX_BITS - 1))) begin
              port_ts[i] = longint'(ack_ts[i]);
              port_tx[i] = longint'(ack_tx[i]);
            end
          end
          ack_speed[i] = 4'(port_speed[i]);
          ack_qlen[i] = 16'(r.below(65536));
          old_ts[i] = `RTL(hop_ts[i]);
          old_tx[i] = `RTL(hop_tx[i]);
          if (i < hops) begin
            void'(hwcc_dpi_tel_hop(g, int'(ack_speed[i]), int'(ack_ts[i]), int'(ack_tx[i]), int'(ack_qlen[i])));
          end
        end
        seq += longint'(r.below(5000));
        ack_valid = 1'b1;
        ack_now = t;
        ack_nhop = 4'(hops);
        ack_path = 12'(path);
        rc = hwcc_dpi_ack(g, t, seq, seq + longint'(r.below(100000)), path);
        if (rc != 0) $fatal(1, "tb_int: hwcc refused event %0d (%s): %s", hwcc_dpi_events(g), inputs(), hwcc_dpi_error(g));
        @(negedge clk);
        ack_valid = 1'b0;
        compare();
        for (int i = 0; i < hops; i++) begin
          longint want;
          if (ack_ts[i] < old_ts[i]) wraps++;
          want = hwcc_dpi_ts_delta(int'(old_ts[i]), int'(ack_ts[i]));
          if (`RTL(dts_ps[i]) != want) mismatch(cycle, $sformatf("lane%0d.dts_ps (TSDelta)", i), `RTL(dts_ps[i]), want,
                                          hwcc_dpi_events(g), inputs());
          want = hwcc_dpi_tx_delta(int'(old_tx[i]), int'(ack_tx[i]));
          if (`RTL(dtx_bytes[i]) != want) mismatch(cycle, $sformatf("lane%0d.dtx_bytes (TxBytesDelta)", i), `RTL(dtx_bytes[i]),
                                             want, hwcc_dpi_events(g), inputs());
        end
        n_events++;
      end
      hwcc_dpi_free(g);
      $display("PASS bench=int events=%0d cycles=%0d path_changes=%0d reseeds=%0d zero_intervals=%0d stale=%0d no_sample=%0d wraps=%0d",
               n_events, cycle, `RTL(path_changes), `RTL(reseeds), `RTL(zero_intervals), `RTL(stale), `RTL(no_sample), wraps);
      $finish;
    end
  end
endmodule

`undef RTL
