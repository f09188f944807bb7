package cp

import (
	"errors"
	"fmt"
)

// RoCCHost is the host-side rate computation of papers/rocc.txt section
// III-F: the CP sends Qcur (and, in approach 2, F) and the host computes the
// fair rate with the parameters it looks up in a registry (RoCCParams). The
// paper's Tofino prototype works this way: the switch's P4 CNP carries the
// port, qdepth and counter (Listing 1), and the DPDK client "intercept[s]
// CNPs to compute fair rate" (section IV-B).
//
// One RoCCHost follows one CP. It holds the same registers as the switch
// (RoCCRegs) and calls the same RoCCStep, so a host that sees every update
// of a CP, with F kept on the host, computes exactly the F the switch would
// (bit for bit, fraction bits included). Choices where the paper is silent:
//
//   - Qold is the Qcur of the previous report; the 8-bit counter tells
//     whether that report was the previous update. After a gap (a lost
//     report, or the first report of a host that joins late) the host uses
//     Qold = Qcur, dropping line 8's β term and line 4's test for that one
//     update. A first report with counter 1 is the CP's first update and
//     starts from the CP's initial registers (F = Fmax, Qold = 0).
//   - Reports with the counter of the last update (the CP sends one per flow
//     per period) do not update again: they return the same rate.
//   - A report whose rate field is non-zero carries the CP's F before the
//     update (approach 2); the host starts the update from it (⌊F⌋ only: the
//     field has no fraction bits).
type RoCCHost struct {
	p      *RoCCParams
	regs   RoCCRegs
	cp     uint64
	seq    uint8
	primed bool
	gaps   uint64
}

// NewRoCCHost returns a host-side calculator that looks its parameters up
// in p (shared, not copied).
func NewRoCCHost(p *RoCCParams) (*RoCCHost, error) {
	if p == nil {
		return nil, errors.New("cp: RoCC host needs parameters, got nil")
	}
	return &RoCCHost{p: p, regs: p.InitialRegs()}, nil
}

// Regs returns the host's copy of the CP's registers.
func (h *RoCCHost) Regs() RoCCRegs { return h.regs }

// Gaps returns how many reports arrived after a gap in the counter (a
// 64-bit wrapping counter).
func (h *RoCCHost) Gaps() uint64 { return h.gaps }

// OnReport runs Algorithm 1 for the CP's report fb and returns the new fair
// rate in ΔF units, ready for the RP (rp.RoCC.OnFeedback with fb.CP()). It
// returns an error, changing nothing, for a message that is not a report or
// comes from another CP than the first report did.
func (h *RoCCHost) OnReport(fb RoCCFeedback) (uint32, error) {
	if fb.Type != RoCCReportFeedback {
		return 0, fmt.Errorf("cp: RoCC host got a %v message, want a report (type %d)", fb.Type, RoCCReportFeedback)
	}
	if h.primed && fb.CP() != h.cp {
		return 0, fmt.Errorf("cp: RoCC host follows CP %#x, got a report from CP %#x", h.cp, fb.CP())
	}
	qcur := uint32(fb.QDepth)
	switch {
	case h.primed && fb.Seq == h.seq:
		// The same update reported for another flow.
		return h.p.RateUnits(h.regs.F), nil
	case h.primed && fb.Seq == h.seq+1:
		// The next update: Qold is the previous report's Qcur.
	case !h.primed && fb.Seq == 1:
		// The CP's first update: its initial registers.
		h.regs = h.p.InitialRegs()
	default:
		// A gap: no trend information for this update.
		h.regs.QOld = min(qcur, h.p.qtop)
		h.gaps++
	}
	if fb.Rate != 0 {
		h.regs.F = uint32(fb.Rate) << h.p.k
	}
	h.cp, h.seq, h.primed = fb.CP(), fb.Seq, true
	h.regs, _ = RoCCStep(h.p, h.regs, qcur)
	return h.p.RateUnits(h.regs.F), nil
}
