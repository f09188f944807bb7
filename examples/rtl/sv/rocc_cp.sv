// rocc_cp: the fair-rate calculator of a RoCC congestion point ([RoCC]
// §III-B, Algorithm 1), one egress queue's datapath: the queue quantiser,
// the multiplicative decreases of lines 2-5, the PI step of line 8 with
// AUTO_TUNE's gain shift (lines 15-21), the clamp of lines 9-12, and the
// update timer. Bit for bit hwcc's cp.RoCC with params.go's configuration
// (the constants are in rtl_params.sv); its registers carry the names of
// cp.RoCC's register snapshot.
//
// Events, one per cycle when ev_valid: EV_ENQ and EV_DEQ record the queue's
// length after the packet joined or left (the CP's view of its queue,
// cc.Queue.Len); EV_TIMER runs the update when ev_now has reached the
// deadline, else only records the time. The block is the hardware timer's
// datapath: the timer fires within a period of its deadline (a later call,
// which hwcc counts in its register missed, would skip ticks; an assertion
// flags it). The flow table and the CNPs it addresses are outside the block.
//
// Arithmetic, all of it shifts, adds and compares:
//   qcur  = min(floor(qlen / dQ), QTOP)       the constant divider of rtl_params
//   s     = #{AUTO_TUNE bounds above F}       five comparators
//   N     = alpha_bar*e1*2^G + beta_bar*e2*2^G CSD shift-adds, exact
//   dF    = round(N / 2^(G + s - K))          to nearest, ties away from zero
//   F     = clamp(F - dF, FMIN, FMAX)
// with e1 = qcur - Qref, e2 = qcur - Qold.
//
// BUG_ROUND = 1 is the deliberately wrong variant the testbench must catch:
// line 8's decrement is truncated (the half-unit is not added) where hwcc
// rounds to nearest.
module rocc_cp
  import hwcc_rtl_params::*;
#(
    parameter bit BUG_ROUND = 1'b0
) (
    input  logic        clk,
    input  logic        rst,
    input  logic        ev_valid,
    input  logic [1:0]  ev_kind,
    input  logic [63:0] ev_now,    // ps
    input  logic [63:0] ev_qlen,   // bytes, EV_ENQ and EV_DEQ
    // Registers, named as in hwcc's snapshot.
    output logic [63:0] now,
    output logic [63:0] qlen,
    output logic [ROCC_F_BITS-1:0]     f,
    output logic [ROCC_F_BITS-1:0]     f_prev,
    output logic [ROCC_QUEUE_BITS-1:0] qold,
    output logic [ROCC_QUEUE_BITS-1:0] qcur,
    output logic [2:0]  shift,     // AUTO_TUNE's shift of the current F
    output logic [1:0]  branch,    // 0 PI, 1 line 3 (F = Fmin), 2 line 5 (F / 2)
    output logic [7:0]  seq,
    output logic [63:0] deadline,
    output logic [63:0] updates,
    output logic [63:0] saturated
);
  localparam logic [1:0] EV_ENQ = 2'd0, EV_DEQ = 2'd1, EV_TIMER = 2'd2;
  // Widths of the quantiser's multiply: an unsaturated qlen and the
  // divider's constant.
  localparam int QB = $clog2(ROCC_QLIM);
  localparam int MB = $clog2(ROCC_QDIV_M + 1);

  // AUTO_TUNE (lines 15-21): the number of region bounds above x.
  function automatic logic [2:0] tune(input logic [ROCC_F_BITS-1:0] x);
    return 3'(x < ROCC_F_BITS'(ROCC_TUNE0)) + 3'(x < ROCC_F_BITS'(ROCC_TUNE1)) +
           3'(x < ROCC_F_BITS'(ROCC_TUNE2)) + 3'(x < ROCC_F_BITS'(ROCC_TUNE3)) +
           3'(x < ROCC_F_BITS'(ROCC_TUNE4));
  endfunction
  assign shift = tune(f);

  // The update, from the registers and the queue view.
  logic                        qsat;
  logic [ROCC_QUEUE_BITS-1:0]  qc;
  logic [ROCC_F_BITS-1:0]      f_next;
  logic [1:0]                  br_next;
  always_comb begin
    logic [QB+MB-1:0] prod;
    logic signed [63:0] e1, e2, n, mag, r, fn;
    logic [5:0] sh;
    n = '0; mag = '0; r = '0; sh = '0;
    // qcur = floor(qlen / dQ) by the constant divider, saturating.
    qsat = qlen >= 64'(ROCC_QLIM);
    prod = (QB+MB)'(qlen[QB-1:0]) * (QB+MB)'(ROCC_QDIV_M);  // QB x MB bits
    qc   = qsat ? ROCC_QUEUE_BITS'(ROCC_QTOP) : ROCC_QUEUE_BITS'(prod >> ROCC_QDIV_S);
    e1 = 64'(qc) - 64'(ROCC_QREF);
    e2 = 64'(qc) - 64'(qold);
    // 2: if Qcur >= Qmax AND F > Fmax/8 then 3: F = Fmin
    if (qc >= ROCC_QUEUE_BITS'(ROCC_QMAX) && f > ROCC_F_BITS'(ROCC_FMD)) begin
      fn = 64'(ROCC_FMIN);
      br_next = 2'd1;
    // 4: else if Qcur - Qold >= Qmid AND F > Fmax/8 then 5: F = F / 2
    end else if (e2 >= 64'(ROCC_QMID) && f > ROCC_F_BITS'(ROCC_FMD)) begin
      fn = 64'(f) >> 1;
      br_next = 2'd2;
    end else begin
      // 7: alpha, beta = AUTO_TUNE(); 8: F = F - alpha*e1 - beta*e2
      n   = rocc_csd_alpha(e1) + rocc_csd_beta(e2);
      sh  = 6'(ROCC_G) + 6'(shift) - 6'(ROCC_K);
      mag = n < 0 ? -n : n;
      r   = BUG_ROUND ? (mag >>> sh) : ((mag + (64'sd1 <<< (sh - 6'd1))) >>> sh);
      fn  = 64'(f) - (n < 0 ? -r : r);
      br_next = 2'd0;
    end
    // 9-12: clamp to [Fmin, Fmax]
    if (fn > 64'(ROCC_FMAX)) fn = 64'(ROCC_FMAX);
    if (fn < 64'(ROCC_FMIN)) fn = 64'(ROCC_FMIN);
    f_next = ROCC_F_BITS'(fn);
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      now       <= '0;
      qlen      <= '0;
      f         <= ROCC_F_BITS'(ROCC_FMAX);  // initial_f = fmax
      f_prev    <= ROCC_F_BITS'(ROCC_FMAX);
      qold      <= '0;
      qcur      <= '0;
      branch    <= '0;
      seq       <= '0;
      deadline  <= '0;                       // the first update at time 0
      updates   <= '0;
      saturated <= '0;
    end else if (ev_valid) begin
      now <= ev_now;
      case (ev_kind)
        EV_ENQ, EV_DEQ: qlen <= ev_qlen;
        EV_TIMER:
          if (ev_now >= deadline) begin
            // 13: Qold = Qcur; 14: return F
            f        <= f_next;
            f_prev   <= f;
            qold     <= qc;
            qcur     <= qc;
            branch   <= br_next;
            seq      <= seq + 8'd1;
            deadline <= deadline + 64'(ROCC_T_PS);
            updates  <= updates + 64'd1;
            if (qsat) saturated <= saturated + 64'd1;
          end
        default: ;
      endcase
    end
  end

  // The timer fires within a period of its deadline (see above).
  always_ff @(posedge clk)
    if (!rst && ev_valid && ev_kind == EV_TIMER && ev_now >= deadline)
      assert (ev_now - deadline < 64'(ROCC_T_PS))
      else $error("rocc_cp: timer at %0d ps is a period or more after its deadline %0d ps", ev_now, deadline);
endmodule
