// recip_unit: a/n by HPCC's reciprocal table ([HPCC] §4.3), the divider an
// HPCC NIC runs instead of a division: look up 1/n in a ROM of the words
// `hwcc tables reciprocal -format memh` writes, then multiply and shift.
// Bit for bit hwcc's hwtables.Table.Lookup and DivFast.
//
// Table (the memh file's header comments give the same layout): word k is
// {n_k - 1 (KEY bits), mantissa fraction (F bits)}, ascending in n_k; the
// entry of n is the largest k with word_k <= probe = (n - 1) << F | (2^F - 1),
// and 1/n ~= (2^F + frac_k) / 2^(F + bitlen(n_k - 1)).
//
// Pipeline: one divisor per cycle, results STEPS + 2 cycles later. Stage 0
// clamps n to [1, MAX_N] (as Lookup does: 0 reads the entry of 1) and forms
// the probe; stages 1..STEPS are the binary search, one halving of the
// stride each; the last stage decodes the word and multiplies. Stage j reads
// only the words at odd multiples of its stride S_j = 2^(STEPS-1-j), so each
// stage has its own ROM bank of 2^j words, and the banks split the table
// between them: no word is stored twice and no ROM has two read ports.
//
// BUG_ROUND = 1 is the deliberately wrong variant the testbench must catch:
// the quotient rounds to nearest (adds 2^(shift-1)) where hwcc truncates.
module recip_unit #(
    parameter string MEMH  = "recip.memh",
    parameter int    F     = 10,       // stored mantissa fraction bits
    parameter int    KEY   = 22,       // n_k - 1 field
    parameter int    STEPS = 11,       // ceil(log2 entries)
    parameter int    ENTRIES = 1400,   // words in MEMH
    parameter int    MAX_N = 1 << 22,
    parameter bit    BUG_ROUND = 1'b0
) (
    input  logic              clk,
    input  logic              in_valid,
    input  logic [31:0]       in_n,
    input  logic [63:0]       in_a,
    output logic              out_valid,
    output logic [31:0]       out_n,     // the inputs, carried along
    output logic [63:0]       out_a,
    output logic [F:0]        out_mant,  // 2^F <= mant < 2^(F+1)
    output logic [5:0]        out_shift, // 1/n ~= mant / 2^shift
    output logic [63:0]       out_q      // floor(a * mant / 2^shift)
);
  localparam int W = KEY + F;
  localparam int SIZE = 1 << STEPS;

  // The pipeline's registers, stage j = 0..STEPS: valid, inputs, probe,
  // the index k found so far and its word.
  logic          v     [STEPS+1];
  logic [31:0]   n_q   [STEPS+1];
  logic [63:0]   a_q   [STEPS+1];
  logic [W-1:0]  probe [STEPS+1];
  logic [STEPS-1:0] k  [STEPS+1];
  logic [W-1:0]  word  [STEPS+1];

  // Word 0 (n_0 = 1) is at or below every probe: the search starts there.
  logic [W-1:0] word0;
  initial begin
    logic [W-1:0] full[SIZE];
    $readmemh(MEMH, full, 0, ENTRIES - 1);
    word0 = full[0];
  end

  // Stage 0: clamp and probe.
  always_ff @(posedge clk) begin
    logic [31:0] nc;
    nc = in_n == 0 ? 32'd1 : (in_n > MAX_N ? 32'(MAX_N) : in_n);
    v[0]     <= in_valid;
    n_q[0]   <= in_n;
    a_q[0]   <= in_a;
    probe[0] <= W'({nc - 32'd1, {F{1'b1}}});
    k[0]     <= '0;
    word[0]  <= word0;
  end

  // Stages 1..STEPS: the binary search.
  for (genvar j = 0; j < STEPS; j++) begin : g_step
    localparam int S = 1 << (STEPS - 1 - j);  // this stage's stride
    localparam int NB = 1 << j;               // its bank: words S, 3S, 5S, ...
    logic [W-1:0] bank[NB];
    initial begin
      logic [W-1:0] full[SIZE];
      for (int i = 0; i < SIZE; i++) full[i] = '0;
      $readmemh(MEMH, full, 0, ENTRIES - 1);
      for (int m = 0; m < NB; m++) bank[m] = full[(2*m+1)*S];
    end
    // k is a multiple of 2S here, so the word at k + S is bank[k / 2S].
    localparam int BW = j == 0 ? 1 : j;       // bank address bits
    logic [STEPS-1:0] idx;
    logic [W-1:0] cand;
    logic take;
    assign idx  = k[j] | STEPS'(S);
    assign cand = bank[BW'(k[j] >> (STEPS - j))];
    assign take = int'(idx) < ENTRIES && cand <= probe[j];
    always_ff @(posedge clk) begin
      v[j+1]     <= v[j];
      n_q[j+1]   <= n_q[j];
      a_q[j+1]   <= a_q[j];
      probe[j+1] <= probe[j];
      k[j+1]     <= take ? idx : k[j];
      word[j+1]  <= take ? cand : word[j];
    end
  end

  // Last stage: decode and multiply. shift = F + bitlen(n_k - 1).
  logic [KEY-1:0] key;
  logic [5:0] len;
  logic [F:0] mant;
  logic [5:0] shift;
  logic [63+F+1:0] prod;
  assign key  = word[STEPS][W-1:F];
  assign mant = {1'b1, word[STEPS][F-1:0]};
  always_comb begin
    len = '0;
    for (int i = 0; i < KEY; i++) if (key[i]) len = 6'(i + 1);
  end
  assign shift = 6'(F) + len;
  always_comb begin
    prod = (64+F+1)'(a_q[STEPS]) * (64+F+1)'(mant);
    if (BUG_ROUND) prod = prod + ((64+F+1)'(1) << (shift - 6'd1));
  end
  always_ff @(posedge clk) begin
    out_valid <= v[STEPS];
    out_n     <= n_q[STEPS];
    out_a     <= a_q[STEPS];
    out_mant  <= mant;
    out_shift <= shift;
    out_q     <= 64'(prod >> shift);
  end
endmodule
