package rp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// hierccDecodedFlags decodes the host's header p carries; it must decode.
func hierccDecodedFlags(t *testing.T, p *cc.Packet) wire.HierCCFlags {
	t.Helper()
	f, err := wire.DecodeHierCCHostHeader(p.Hdr[:])
	require.NoError(t, err, "% x", p.Hdr)
	return f
}

// TestHierCCMarks: the first packet and then one packet per 10 µs are
// marked (FlagMark in the host's header; clear on the others). Sent
// writes the whole header: whatever Hdr held before is gone.
func TestHierCCMarks(t *testing.T) {
	h, err := NewHierCC(HierCCPaper(hierccLine25))
	require.NoError(t, err)
	var marked []units.Time
	for now := units.Time(0); now <= 35*units.Microsecond; now += 3 * units.Microsecond {
		p := cc.Packet{}
		for i := range p.Hdr {
			p.Hdr[i] = 0xFF
		}
		require.NoError(t, h.Sent(now, &p, nil))
		f := hierccDecodedFlags(t, &p)
		require.Zero(t, f&wire.HierCCFlagLast, "last never set on an open-ended flow")
		require.Equal(t, now == 0, f&wire.HierCCFlagFirst != 0, "first set on the first packet only")
		require.Equal(t, [cc.PacketHdrLen]byte{1: byte(f)}, p.Hdr, "version 0, the flags, zeros")
		if f&wire.HierCCFlagMark != 0 {
			marked = append(marked, now)
		}
	}
	// 0, then the first packet at least 10 µs after the last mark: 12, 24.
	us := units.Microsecond
	require.Equal(t, []units.Time{0, 12 * us, 24 * us}, marked)
	require.Equal(t, uint64(3), h.State().Marks)
}

// TestHierCCFirstLast: the first packet given is flagged first, the first
// that reaches the flow's size last (a one-packet flow: both), each once:
// a retransmission of either is not flagged again.
func TestHierCCFirstLast(t *testing.T) {
	cfg := HierCCPaper(hierccLine25)
	cfg.Size = 2500
	h, err := NewHierCC(cfg)
	require.NoError(t, err)
	flags := func(now units.Time, seq uint64, pay units.Bytes) wire.HierCCFlags {
		p := cc.Packet{Seq: seq, Payload: pay}
		require.NoError(t, h.Sent(now, &p, nil))
		return hierccDecodedFlags(t, &p) & (wire.HierCCFlagFirst | wire.HierCCFlagLast)
	}
	require.Equal(t, wire.HierCCFlagFirst, flags(0, 0, 1000))
	require.Equal(t, wire.HierCCFlags(0), flags(1, 1000, 1000))
	require.Equal(t, wire.HierCCFlagLast, flags(2, 2000, 500))
	require.Equal(t, wire.HierCCFlags(0), flags(3, 0, 1000), "a retransmitted first packet")
	require.Equal(t, wire.HierCCFlags(0), flags(4, 2000, 500), "a retransmitted last packet")
	require.True(t, h.State().Began && h.State().Ended)

	cfg.Size = 100
	one, err := NewHierCC(cfg)
	require.NoError(t, err)
	p := cc.Packet{Payload: 100}
	require.NoError(t, one.Sent(0, &p, nil))
	require.Equal(t, wire.HierCCFlagFirst|wire.HierCCFlagLast, hierccDecodedFlags(t, &p)&(wire.HierCCFlagFirst|wire.HierCCFlagLast), "a one-packet flow")
}

// TestHierCCRates: a rate packet sets the pacing rate (capped at the line
// rate), a stop gates the flow, the next rate resumes it; other kinds
// change nothing; a malformed or misaddressed packet is refused.
func TestHierCCRates(t *testing.T) {
	h, err := NewHierCC(HierCCPaper(hierccLine25))
	require.NoError(t, err)
	require.Equal(t, cc.Limits{Rate: hierccLine25}, h.Limits())
	send := func(now units.Time, r wire.HierCCRatePacket) error {
		f, err := r.Feedback()
		require.NoError(t, err)
		return h.Feedback(now, &f, nil)
	}
	require.NoError(t, send(1, wire.HierCCRatePacket{Flow: 0, Rate: 1_500_000}))
	require.Equal(t, cc.Limits{Rate: 1500 * units.Mbps}, h.Limits())
	require.NoError(t, send(2, wire.HierCCRatePacket{Flow: 0, Stop: true}))
	require.Equal(t, cc.Limits{Rate: 1500 * units.Mbps, Credited: true}, h.Limits())
	require.True(t, h.State().Stopped)
	require.Equal(t, uint32(1_500_000), h.State().Rate, "the rate register keeps the last rate, in kb/s")
	require.NoError(t, send(3, wire.HierCCRatePacket{Flow: 0, Rate: 99_000_000}))
	require.Equal(t, cc.Limits{Rate: hierccLine25}, h.Limits(), "capped at line rate")
	// A kind the host does not use (an ACK, a CNP, another scheme's) is
	// counted in unused_feedback and changes nothing else (rule 8); no
	// event decides, so each takes nil actions (rule 3).
	before := h.AppendRegisters(nil)
	for _, k := range []cc.FeedbackKind{cc.FeedbackAck, cc.FeedbackCNP, wire.FeedbackHierCCCredit} {
		require.NoError(t, h.Feedback(4, &cc.Feedback{Kind: k}, nil))
	}
	after := h.AppendRegisters(nil)
	n := len(after) - 1
	require.Equal(t, before[1:n], after[1:n])
	require.Equal(t, cc.Reg(cc.UnusedRegister, 64, 3), after[n])
	before = h.AppendRegisters(nil)
	other, err := wire.HierCCRatePacket{Flow: 1, Rate: 5}.Feedback()
	require.NoError(t, err)
	other.Flow = 0 // delivered to flow 0's host
	for name, err := range map[string]error{
		"other flow": h.Feedback(5, &other, nil),
		"malformed":  h.Feedback(5, &cc.Feedback{Kind: wire.FeedbackHierCCRate}, nil),
		"nil":        h.Feedback(5, nil, nil),
		"nil packet": h.Sent(5, nil, nil),
		"back":       h.Timer(3, nil),
	} {
		require.Error(t, err, name)
		require.True(t, cc.Typed(err), name)
	}
	require.Equal(t, before, h.AppendRegisters(nil))
	_, err = NewHierCC(HierCCConfig{LineRate: hierccLine25})
	require.ErrorIs(t, err, cc.ErrConfig)
}

// TestHierCCConformance: the contract's suite, with rate packets of the
// flow (rates, stops, one for another flow) among the messages.
func TestHierCCConformance(t *testing.T) {
	var msgs []cc.Feedback
	for _, r := range []wire.HierCCRatePacket{{Flow: 5, Rate: 1000}, {Flow: 5, Stop: true}, {Flow: 5, Rate: 30_000_000}} {
		f, err := r.Feedback()
		require.NoError(t, err)
		msgs = append(msgs, f)
	}
	st, err := cctest.TestStats(func() (cc.Part, error) { return NewHierCC(HierCCPaper(hierccLine25)) },
		cctest.Options{Sequences: 8, Chaos: 16, Gen: cctest.GenOptions{Messages: msgs}, MaxRate: hierccLine25})
	require.NoError(t, err)
	require.Greater(t, st.Accepted, st.Calls*3/4)
}
