// hwcc_dpi: the DPI-C imports of c/hwcc_dpi.c, the bridge from a
// SystemVerilog testbench to hwcc's C ABI (capi/hwcc.h), as a package: a
// bench imports hwcc_dpi::*. Times are ps, sizes bytes, rates bit/s; the functions
// returning int return 0 (HWCC_OK) or a negative HWCC_E_* code, and
// hwcc_dpi_error gives the message.

package hwcc_dpi;

// A golden part: algorithm and part as `hwcc algos` lists them, settings
// "name=value, ...", the environment's rate (0: unknown), and a trace file
// to write the events to ("" for none). null when hwcc refuses the settings.
import "DPI-C" function chandle hwcc_dpi_new(input string algorithm, input string part,
                                             input string settings, input longint env_rate,
                                             input string trace_path);
import "DPI-C" function void hwcc_dpi_free(input chandle g);

// Events (the cc contract's, as in hwcc.h).
import "DPI-C" function int hwcc_dpi_enqueue(input chandle g, input longint now_ps, input int flow,
                                             input longint size, input longint qlen, input longint rate);
import "DPI-C" function int hwcc_dpi_dequeue(input chandle g, input longint now_ps, input int flow,
                                             input longint size, input longint qlen, input longint rate);
import "DPI-C" function int hwcc_dpi_timer(input chandle g, input longint now_ps);
// An ACK echoing HPCC's INT header: clear the stack, push each hop's record,
// then send it.
import "DPI-C" function void hwcc_dpi_tel_clear(input chandle g);
import "DPI-C" function int hwcc_dpi_tel_hop(input chandle g, input int speed, input int ts,
                                             input int tx_bytes, input int qlen);
import "DPI-C" function int hwcc_dpi_ack(input chandle g, input longint now_ps, input longint seq,
                                         input longint snd_nxt, input int path_id);

// Reads, after an event: a register by name (1: found, 0: no such
// register), the next deadline, the last refusal, the count of events.
import "DPI-C" function int hwcc_dpi_reg(input chandle g, input string name, output longint value);
import "DPI-C" function longint hwcc_dpi_deadline(input chandle g);
import "DPI-C" function string hwcc_dpi_error(input chandle g);
import "DPI-C" function int hwcc_dpi_events(input chandle g);

// Functions of examples/rtl/golden (not hwcc.h): the reciprocal table and
// the INT deltas.
// hwcc_dpi_recip returns a/n and writes 1/n ~= mant / 2^shift.
import "DPI-C" function longint hwcc_dpi_recip(input longint n, input longint a, output longint mant,
                                               output int shift);
import "DPI-C" function longint hwcc_dpi_ts_delta(input int older, input int newer);
import "DPI-C" function longint hwcc_dpi_tx_delta(input int older, input int newer);

endpackage
