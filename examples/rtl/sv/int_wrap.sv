// int_wrap: the INT bookkeeping of an HPCC sender ([HPCC] §3.2, Algorithm 1
// lines 3-4 before the division; §4.1, Figure 7), one lane per hop: the
// wrap-safe deltas of the 24-bit TS and the 20-bit txBytes fields between
// the record an ACK echoes and the one stored for that hop, and the guards
// that decide whether the new record is measured, skipped or stored afresh.
// Bit for bit hwcc's inttel TSDelta and TxBytesDelta and the per-hop record
// store of rp.HPCC (its registers carry the names of rp.HPCC's snapshot); the
// window law that consumes the deltas is outside the block.
//
// Per ACK (one per cycle when ack_valid), for hop i < nhop of the stored path:
//   cts = (ts - L[i].ts) mod 2^24,  ctx = (tx - L[i].tx) mod 2^20
//   dts_ps = cts * TS unit,  dtx_bytes = ctx * txBytes unit (a shift)
//   reseed  if the speed code changed or now - stored_at >= horizon(B)
//   skip    if cts = 0                          (zero_intervals)
//   skip    if cts >= 2^23 or ctx >= 2^19        (stale: a reordered ACK)
//   else    measured: L[i] = the ACK's record
// An ACK with no measured hop counts in no_sample. The first ACK, and any ACK
// whose hop count or path ID differs from the stored path's, stores every
// record afresh (path_changes counts the second kind).
//
// BUG_WRAP = 1 is the deliberately wrong variant the testbench must catch:
// its TS lanes are int_delta's wrong variant.
module int_wrap
  import hwcc_rtl_params::*;
  import int_delta_pkg::*;
#(
    parameter int H = INT_MAX_HOPS,
    parameter bit BUG_WRAP = 1'b0
) (
    input  logic        clk,
    input  logic        rst,
    input  logic        ack_valid,
    input  logic [63:0] ack_now,            // ps
    input  logic [3:0]  ack_nhop,
    input  logic [11:0] ack_path,
    input  logic [H-1:0][3:0]  ack_speed,
    input  logic [H-1:0][23:0] ack_ts,
    input  logic [H-1:0][19:0] ack_tx,
    input  logic [H-1:0][15:0] ack_qlen,
    // Registers, named as in rp.HPCC's snapshot (hopI.ts is hop_ts[I], ...).
    output logic [63:0] now,
    output logic        started,
    output logic [3:0]  n_hop,
    output logic [11:0] path_id,
    output logic [H-1:0][3:0]  hop_speed,
    output logic [H-1:0][23:0] hop_ts,
    output logic [H-1:0][19:0] hop_tx,
    output logic [H-1:0][15:0] hop_qlen,
    output logic [H-1:0][63:0] hop_stored_at,
    output logic [63:0] acks,
    output logic [63:0] path_changes,
    output logic [63:0] reseeds,
    output logic [63:0] zero_intervals,
    output logic [63:0] stale,
    output logic [63:0] no_sample,
    // The lanes of the last ACK: the deltas, for hops below its nhop.
    output logic [H-1:0][63:0] dts_ps,
    output logic [H-1:0][63:0] dtx_bytes
);
  localparam int TS_BITS = 24, TX_BITS = 20;

  // The lanes: deltas and guards of each hop, from the stored records.
  logic [H-1:0][TS_BITS-1:0] cts;
  logic [H-1:0][TX_BITS-1:0] ctx;
  logic [H-1:0] reseed, zero, old, measure;
  for (genvar i = 0; i < H; i++) begin : g_lane
    always_comb begin
      cts[i] = TS_BITS'(wrap_delta(32'(hop_ts[i]), 32'(ack_ts[i]), TS_BITS, BUG_WRAP));
      ctx[i] = TX_BITS'(wrap_delta(32'(hop_tx[i]), 32'(ack_tx[i]), TX_BITS, 1'b0));
      reseed[i]  = ack_speed[i] != hop_speed[i] ||
                   ack_now - hop_stored_at[i] >= 64'(INT_HORIZON_PS[ack_speed[i]]);
      zero[i]    = !reseed[i] && cts[i] == 0;
      old[i]     = !reseed[i] && !zero[i] && (cts[i][TS_BITS-1] || ctx[i][TX_BITS-1]);
      measure[i] = !reseed[i] && !zero[i] && !old[i];
    end
  end

  logic same_path;
  assign same_path = started && ack_nhop == n_hop && ack_path == path_id;

  // Counts over the lanes below nhop.
  logic [3:0] n_reseed, n_zero, n_old, n_measure;
  always_comb begin
    n_reseed = '0; n_zero = '0; n_old = '0; n_measure = '0;
    for (int i = 0; i < H; i++)
      if (4'(i) < ack_nhop) begin
        n_reseed  += 4'(reseed[i]);
        n_zero    += 4'(zero[i]);
        n_old     += 4'(old[i]);
        n_measure += 4'(measure[i]);
      end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      now <= '0; started <= 1'b0; n_hop <= '0; path_id <= '0;
      acks <= '0; path_changes <= '0; reseeds <= '0; zero_intervals <= '0; stale <= '0; no_sample <= '0;
      for (int i = 0; i < H; i++) begin
        hop_speed[i] <= '0; hop_ts[i] <= '0; hop_tx[i] <= '0; hop_qlen[i] <= '0; hop_stored_at[i] <= '0;
        dts_ps[i] <= '0; dtx_bytes[i] <= '0;
      end
    end else if (ack_valid) begin
      now  <= ack_now;
      acks <= acks + 64'd1;
      for (int i = 0; i < H; i++) begin
        dts_ps[i]    <= 64'(cts[i]) * 64'(INT_TS_UNIT_PS);
        dtx_bytes[i] <= 64'(ctx[i]) << INT_TX_SHIFT;
      end
      if (same_path) begin
        reseeds        <= reseeds + 64'(n_reseed);
        zero_intervals <= zero_intervals + 64'(n_zero);
        stale          <= stale + 64'(n_old);
        if (n_measure == 0) no_sample <= no_sample + 64'd1;
        for (int i = 0; i < H; i++)
          if (4'(i) < ack_nhop && (reseed[i] || measure[i])) begin
            hop_speed[i] <= ack_speed[i]; hop_ts[i] <= ack_ts[i];
            hop_tx[i] <= ack_tx[i]; hop_qlen[i] <= ack_qlen[i];
            hop_stored_at[i] <= ack_now;
          end
      end else begin
        // The first ACK, or another path: store every record afresh.
        if (started) path_changes <= path_changes + 64'd1;
        started <= 1'b1;
        n_hop   <= ack_nhop;
        path_id <= ack_path;
        for (int i = 0; i < H; i++)
          if (4'(i) < ack_nhop) begin
            hop_speed[i] <= ack_speed[i]; hop_ts[i] <= ack_ts[i];
            hop_tx[i] <= ack_tx[i]; hop_qlen[i] <= ack_qlen[i];
            hop_stored_at[i] <= ack_now;
          end else begin
            hop_speed[i] <= '0; hop_ts[i] <= '0; hop_tx[i] <= '0; hop_qlen[i] <= '0;
            hop_stored_at[i] <= '0;
          end
      end
    end
  end
endmodule
