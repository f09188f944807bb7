// Package credit holds the credit mechanisms several hwcc schemes share:
// link-level credit-based flow control and a receiver-side credit
// scheduler, each in integer registers of stated widths with wrapping
// counters, as switch and NIC hardware keeps them. They are mechanisms,
// not parts: an algorithm's parts (cp.HierCC's receiver side runs a WRR per
// server port) and the harness (CBFC on its links) drive them. ExpressPass's
// receiver-paced credits are parts: np.ExpressPass and rp.ExpressPass.
//
// # What is where
//
//	CBFCSender,    InfiniBand credit-based flow control (CBFC) for one
//	CBFCReceiver   virtual lane: 64-byte blocks, the 12-bit FCTBS, FCCL
//	               and ABR that wrap, the send test
//	               (FCCL − (FCTBS + n)) mod 4096 ≤ 2048, flow-control
//	               packets sent periodically and on change ([IBA]
//	               §7.9; [Survey] §3.1). cbfc.go.
//	FCPacket       the 6-byte flow-control packet (Op, FCTBS, VL, FCCL,
//	               LPCRC; [IBA] §7.9.4) with its codec. fcpacket.go.
//	WRR            HierCC's credit scheduler at the receiver-side ToR:
//	               per output port, a table of the VOQs i.j sending to it
//	               (S_ij, F_ij, C_ij) and an interleaved weighted round
//	               robin with weight F_ij/Σ_i F_ij that skips a VOQ whose
//	               credits reached its bytes sent ([HierCC] §3.2).
//	               wrr.go.
//
// # Bounds the tests check
//
//   - CBFC: the receive buffer never overruns, across 12-bit wraps of
//     every counter, under arbitrary interleavings of sends, receives,
//     drains and updates, with flow-control packets lost, duplicated and
//     reordered, provided no update is delivered after the sender has sent
//     2048 blocks more than the receiver had counted when it made the
//     update (CBFCSender, "Updates"); beyond that bound an old update can
//     alias to a valid one, and a test shows it does.
//   - WRR: over any window of W grants among entries whose eligibility
//     and weights do not change, entry k receives W·w_k/Σw within
//     2·w_k·(Σw − w_k)/Σw grants (WRR, "Bound").
//
// Every event takes now first and refuses, changing nothing, an event out
// of time order (cc.ErrTimeOrder); every refusal is one of package cc's
// typed errors; no event allocates except for its error.
package credit
