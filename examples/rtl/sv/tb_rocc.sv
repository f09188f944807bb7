// tb_rocc: rocc_cp against hwcc's RoCC congestion point, driven through the
// C ABI (hwcc_dpi.c) with the settings the block was generated from. Each
// event goes to both in the same cycle; after it every register of the
// block is compared by name with hwcc's snapshot.
//
// Stimulus, in phases of 256 events: queue lengths drawn uniformly up to
// past the quantiser's saturation, near Qref, near empty, growing by up to
// Qmid per event (line 5's halving), near Qmax (line 3), and the corners of
// the quantiser and thresholds (multiples of dQ and their neighbours, the
// saturation edge, 2^62). Timers at their deadline, late within a period,
// and early (which only record the time); enqueues and dequeues in between,
// of one flow whose byte count stays consistent (hwcc's flow table refuses
// a dequeue of bytes never queued).
// Testbench code: widths are the simulator's business here, and the
// blocks' outputs are read hierarchically.
// verilator lint_off WIDTH
// verilator lint_off PINMISSING
module tb_rocc (
    input logic clk
);
  import hwcc_rtl_params::*;
  import tb_util::*;
  import hwcc_dpi::*;

  localparam longint RATE = 64'd40_000_000_000;  // the port, bit/s
  localparam longint DQ = ROCC_QLIM / (ROCC_QTOP + 1);  // dQ, bytes

  logic        rst = 1'b1;
  logic        ev_valid = 1'b0;
  logic [1:0]  ev_kind = '0;
  logic [63:0] ev_now = '0;
  logic [63:0] ev_qlen = '0;

  // The block and its wrong variant, driven alike; use_bad picks the one
  // compared.
  rocc_cp #(.BUG_ROUND(1'b0)) ok (.clk, .rst, .ev_valid, .ev_kind, .ev_now, .ev_qlen);
  rocc_cp #(.BUG_ROUND(1'b1)) bad (.clk, .rst, .ev_valid, .ev_kind, .ev_now, .ev_qlen);
  bit use_bad = 1'b0;
`define RTL(x) (use_bad ? longint'(bad.x) : longint'(ok.x))

  longint cycle = 0;
  always @(posedge clk) cycle <= cycle + 1;

  chandle g;
  string inputs;
  // Coverage: updates per branch, AUTO_TUNE regions the PI ran in.
  longint seen [4] = '{0, 0, 0, 0};
  logic [5:0] regions = '0;
  longint last_updates = 0;

  // cmp compares one register with hwcc's register of the same name.
  task automatic cmp(string name, longint rtl);
    longint want;
    if (hwcc_dpi_reg(g, name, want) == 0)
      $fatal(1, "tb_rocc: hwcc's rocc cp has no register %s: its snapshot changed", name);
    if (rtl != want) mismatch(cycle, name, rtl, want, hwcc_dpi_events(g), inputs);
  endtask

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
    add("qlen", `RTL(qlen));
    add("f", `RTL(f));
    add("f_prev", `RTL(f_prev));
    add("qold", `RTL(qold));
    add("qcur", `RTL(qcur));
    add("shift", `RTL(shift));
    add("branch", `RTL(branch));
    add("seq", `RTL(seq));
    add("deadline", `RTL(deadline));
    add("updates", `RTL(updates));
    add("saturated", `RTL(saturated));
    // One call site for cmp: Verilator inlines tasks, and a loop over a
    // queue is not unrolled.
    foreach (names[i]) cmp(names[i], vals[i]);
    names.delete();
    vals.delete();
  endtask

  // event_ drives one event into the block and hwcc, and compares.
  task automatic event_(logic [1:0] kind, longint t, longint q, longint size);
    int rc;
    ev_valid = 1'b1;
    ev_kind = kind;
    ev_now = t;
    ev_qlen = q;
    case (kind)
      2'd0: begin
        inputs = $sformatf("enqueue t=%0d qlen=%0d size=%0d", t, q, size);
        rc = hwcc_dpi_enqueue(g, t, 1, size, q, RATE);
      end
      2'd1: begin
        inputs = $sformatf("dequeue t=%0d qlen=%0d size=%0d", t, q, size);
        rc = hwcc_dpi_dequeue(g, t, 1, size, q, RATE);
      end
      default: begin
        inputs = $sformatf("timer t=%0d", t);
        rc = hwcc_dpi_timer(g, t);
      end
    endcase
    if (rc != 0) $fatal(1, "tb_rocc: hwcc refused event %0d (%s): %s", hwcc_dpi_events(g), inputs, hwcc_dpi_error(g));
    @(negedge clk);
    ev_valid = 1'b0;
    compare();
    if (kind == 2'd2 && `RTL(updates) != last_updates) begin
      seen[`RTL(branch)]++;
      regions[`RTL(shift)] = 1'b1;
      last_updates = `RTL(updates);
    end
  endtask

  initial begin
    longint events, t, dl, q = 0, owed = 0, n_events = 0;
    int phase = 0;
    string trace = "";
    rng r;
    longint corners[$];
    if (selected("rocc")) begin
      use_bad = wrong();
      events = plusarg("events", 20000);
      r = new(64'(plusarg("seed", 1)));
      void'($value$plusargs("trace=%s", trace));
      corners = '{0, 1, DQ - 1, DQ, DQ + 1, ROCC_QREF * DQ - 1, ROCC_QREF * DQ, (ROCC_QREF + 1) * DQ,
                  ROCC_QMID * DQ - 1, ROCC_QMID * DQ, ROCC_QMAX * DQ - 1, ROCC_QMAX * DQ,
                  ROCC_QMAX * DQ + 1, ROCC_QLIM - DQ, ROCC_QLIM - 1, ROCC_QLIM, ROCC_QLIM + 1,
                  64'h4000_0000_0000_0000, 64'h7fff_ffff_ffff_ffff};
      g = hwcc_dpi_new("rocc", "cp", ROCC_SETTINGS, 0, trace);
      if (g == null) $fatal(1, "tb_rocc: hwcc refused the settings");
      @(negedge clk);
      rst = 1'b0;
      @(negedge clk);
      inputs = "reset";
      compare();
      for (longint i = 0; i < events; i++) begin
        longint unsigned k;
        longint size;
        logic [1:0] kind;
        if (i % 256 == 0) phase = int'(r.below(6));
        // The queue this event reports.
        case (phase)
          0: q = longint'(r.below(64'(ROCC_QLIM + ROCC_QLIM / 8)));
          1: q = ROCC_QREF * DQ + longint'(r.below(60001)) - 30000;
          2: q = longint'(r.below(10 * DQ));
          3: q = q + longint'(r.below(64'(ROCC_QMID * DQ / 2)));
          4: q = ROCC_QMAX * DQ + longint'(r.below(2401)) - 1200;
          default: q = corners[r.below(64'(corners.size()))];
        endcase
        if (q < 0) q = 0;
        if (phase == 3 && q >= ROCC_QLIM) q = longint'(r.below(64'(ROCC_QREF * DQ)));
        dl = hwcc_dpi_deadline(g);
        k = r.below(100);
        size = 0;
        if (k < 30 || dl <= `RTL(now)) begin
          // The timer at its deadline, or late by less than a period.
          kind = 2'd2;
          t = dl;
          if (r.below(4) == 0) t += longint'(r.below(64'(ROCC_T_PS)));
        end else if (k < 40) begin
          kind = 2'd2;  // early: only records the time
          t = `RTL(now) + longint'(r.below(64'(dl - `RTL(now))));
        end else begin
          t = `RTL(now) + longint'(r.below(64'(dl - `RTL(now))));
          if (r.below(2) == 0) begin
            kind = 2'd0;
            size = 64 + longint'(r.below(9000));
            owed += size;
          end else begin
            kind = 2'd1;
            size = owed == 0 ? 0 : 1 + longint'(r.below(64'(owed < 9000 ? owed : 9000)));
            owed -= size;
          end
        end
        event_(kind, t, q, size);
        n_events++;
      end
      hwcc_dpi_free(g);
      $display("PASS bench=rocc events=%0d cycles=%0d updates=%0d f=%0d pi=%0d md_min=%0d md_half=%0d saturated=%0d regions=%0d",
               n_events, cycle, `RTL(updates), `RTL(f), seen[0], seen[1], seen[2], `RTL(saturated), regions);
      $finish;
    end
  end
endmodule

`undef RTL
