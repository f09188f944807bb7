package rp_test

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/np"
	"github.com/hwcc/hwcc/rp"
	"github.com/hwcc/hwcc/units"
	"github.com/hwcc/hwcc/wire"
)

// rcccRef is a 100 KB flow at 100 Gb/s and 12 µs with 4096-byte payloads
// in frames of 82 more bytes: credit capped at 1.5·150 000 = 225 000 B,
// 25 frames (⌈100 000/4096⌉), a backlog of 100 000 + 25·82 = 102 050 B.
func rcccRef() rp.RCCCConfig {
	return rp.RCCCDefault(100*units.Gbps, 12*units.Microsecond, 4096, 100*units.KB, 82)
}

// The pull target and the credit, by hand ([uet-htsim]
// computePullTarget, handlePull, stopSpeculating): the first frame (4178
// B) spends speculative credit, 225 000 → 220 822; the backlog left is
// 95 904 + 24·82 = 97 872 B, less the credit held is negative, so while
// speculating with data left the demand is one frame, 4178 B = 17 quanta
// rounded up: target 0 + 17. The first pull (17) ends speculation (the
// 220 822 B held are dropped) and grants 17·256 = 4352 B. A NACK of that
// frame adds it to the retransmission backlog, and the next frame's
// target asks for it.
func TestRCCCSenderByHand(t *testing.T) {
	r, err := rp.NewRCCC(rcccRef())
	require.NoError(t, err)
	require.Equal(t, cc.Limits{Credited: true, Credit: 225000}, r.Limits())
	p := &cc.Packet{Seq: 0, Payload: 4096, Size: 4178}
	require.NoError(t, r.Sent(0, p, nil))
	h, err := wire.DecodeUECData(p.Hdr[:])
	require.NoError(t, err)
	require.True(t, h.HasPull && h.Spec)
	require.Equal(t, uint32(17), h.PullTarget)
	s := r.State().Sender
	require.Equal(t, int64(220822), s.Credit)
	require.Equal(t, uint64(95904), s.NewLeft)
	require.Equal(t, uint64(24), s.FramesLeft)

	pull := wire.UECPull{Pull: 17}.Feedback(0)
	require.NoError(t, r.Feedback(units.Microsecond, &pull, nil))
	s = r.State().Sender
	require.Equal(t, int64(17*256), s.Credit)
	require.Equal(t, uint64(220822), s.Dropped)
	require.False(t, s.Speculating)

	nack := &cc.Feedback{Kind: cc.FeedbackNak, Data: p.Hdr}
	wire.MarkUECTrimmed(&nack.Data, true)
	require.NoError(t, r.Feedback(2*units.Microsecond, nack, nil))
	require.Equal(t, uint32(4178), r.State().Sender.RtxBacklog)
	// Resend it: credit 4352 − 4178 = 174; demand = 97 872 (new) + 0 (the
	// retransmission is sent) − 174 = 97 698 B = 382 quanta rounded up,
	// after the 17 pulled: 399.
	p2 := &cc.Packet{Seq: 0, Payload: 4096, Size: 4178}
	require.NoError(t, r.Sent(3*units.Microsecond, p2, nil))
	h, _ = wire.DecodeUECData(p2.Hdr[:])
	require.True(t, h.Retrans)
	require.Equal(t, uint32(17+(97872-174+255)/256), h.PullTarget)
	require.Zero(t, r.State().Sender.RtxBacklog)
}

// rcccLedger is the credit ledger every RCCC sender keeps: speculative
// credit + 256·granted = spent + held + capped + dropped.
func rcccLedger(spec int64, s rp.RCCCSenderState) bool {
	return spec+int64(s.Granted)*256 == int64(s.Spent)+s.Credit+int64(s.Capped)+int64(s.Dropped)
}

// rcccLink is an RCCC flow between an rp.RCCC and an np.RCCC through a
// network that delays every message 1..6 µs (so pulls, data, ACKs and
// NACKs overtake one another), trims a fraction of the data (the receiver
// NACKs it; the sender resends it), and drops and duplicates a fraction
// of the pulls.
type rcccLink struct {
	r                 *rand.Rand
	tx                *rp.RCCC
	rx                *np.RCCC
	q                 []rcccMsg
	now               units.Time
	trim, drop, dup   int // percent
	sndNxt, size      uint64
	rtx               []uint64
	maxPull           uint32 // the highest pull number delivered
	granted           uint64 // quanta the receiver granted (pulls sent)
	act               *cc.Actions
	spec              int64
	deliveredTrimmed  int
	sentRetransmitted int
}

type rcccMsg struct {
	at   units.Time
	kind int // 0 data, 1 trimmed header, 2 ACK, 3 NACK, 4 pull
	pkt  cc.Packet
	fb   cc.Feedback
}

const mssL = 4096

func (l *rcccLink) send(m rcccMsg) {
	m.at = l.now + units.Time(1000+l.r.IntN(5000))*units.Nanosecond
	l.q = append(l.q, m)
	sort.SliceStable(l.q, func(i, j int) bool { return l.q[i].at < l.q[j].at })
}

// pulls takes the receiver's pulls from act onto the network.
func (l *rcccLink) pulls(t *testing.T) {
	for _, a := range l.act.All() {
		p, err := wire.DecodeUECPull(&a.Feedback)
		require.NoError(t, err)
		if d := int32(p.Pull - uint32(l.granted)); d > 0 {
			l.granted += uint64(d)
		}
		if l.r.IntN(100) < l.drop {
			continue
		}
		l.send(rcccMsg{kind: 4, fb: a.Feedback})
		if l.r.IntN(100) < l.dup {
			l.send(rcccMsg{kind: 4, fb: a.Feedback})
		}
	}
	l.act.Reset()
}

// step runs one thing: the sender sends what its credit allows, or the
// next message arrives, or the receiver's timer fires.
func (l *rcccLink) step(t *testing.T) bool {
	lim := l.tx.Limits()
	frame := units.Bytes(mssL + 82)
	if (len(l.rtx) > 0 || l.sndNxt < l.size) && lim.Credit >= frame {
		seq := l.sndNxt
		if len(l.rtx) > 0 {
			seq, l.rtx = l.rtx[0], l.rtx[1:]
			l.sentRetransmitted++
		} else {
			l.sndNxt += mssL
		}
		p := cc.Packet{Flow: 9, Seq: seq, Payload: mssL, Size: frame}
		require.NoError(t, l.tx.Sent(l.now, &p, nil))
		kind := 0
		if l.r.IntN(100) < l.trim {
			kind = 1
			wire.MarkUECTrimmed(&p.Hdr, l.r.IntN(2) == 0)
		}
		l.send(rcccMsg{kind: kind, pkt: p})
		return true
	}
	next := l.rx.NextDeadline()
	if len(l.q) == 0 && next == units.MaxTime {
		return false
	}
	if len(l.q) > 0 && l.q[0].at <= next {
		m := l.q[0]
		l.q = l.q[1:]
		l.now = max(l.now, m.at)
		switch m.kind {
		case 0, 1:
			require.NoError(t, l.rx.Receive(l.now, &m.pkt, l.act))
			l.pulls(t)
			fb := cc.Feedback{Kind: cc.FeedbackAck, Flow: 9, Data: m.pkt.Hdr}
			if m.kind == 1 {
				fb.Kind = cc.FeedbackNak
				l.deliveredTrimmed++
			}
			l.send(rcccMsg{kind: 2 + m.kind, fb: fb, pkt: m.pkt})
		case 2:
			require.NoError(t, l.tx.Feedback(l.now, &m.fb, nil))
		case 3:
			require.NoError(t, l.tx.Feedback(l.now, &m.fb, nil))
			l.rtx = append(l.rtx, m.pkt.Seq)
		case 4:
			require.NoError(t, l.tx.Feedback(l.now, &m.fb, nil))
			p, _ := wire.DecodeUECPull(&m.fb)
			if int32(p.Pull-l.maxPull) > 0 {
				l.maxPull = p.Pull
			}
		}
		return true
	}
	l.now = max(l.now, next)
	require.NoError(t, l.rx.Timer(l.now, l.act))
	l.pulls(t)
	return true
}

// check is the ledger and "no credit lost": the sender has been credited
// exactly the quanta of the highest pull it received (pull numbers are
// cumulative: a pull that crossed a NACK, came late, twice, or after a
// lost one still counts in full), and never more than the receiver
// granted.
func (l *rcccLink) check(t *testing.T) bool {
	s := l.tx.State().Sender
	return rcccLedger(l.spec, s) && s.Pull == l.maxPull && s.Granted == uint64(l.maxPull) && s.Granted <= l.granted
}

// TestRCCCNoCreditLostProperty: over random runs of a flow through a
// network that reorders every message, trims data (NACKs cross the pulls
// that answer the same backlog) and drops and duplicates pulls, the
// sender's credit ledger balances after every event, it holds exactly the
// credit of the highest pull it received, and the flow completes: every
// byte, retransmissions included, is sent on credit.
func TestRCCCNoCreditLostProperty(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(*nsccSeed)
	params.MinSuccessfulTests = 40
	props := gopter.NewProperties(params)
	props.Property("no credit lost when grants cross NACKs", prop.ForAll(
		func(seed uint64, trim, drop, dup int, size int) bool {
			c := rcccRef()
			c.Credit.Size = units.Bytes(size) * mssL
			tx, err := rp.NewRCCC(c)
			if err != nil {
				return false
			}
			rx, err := np.NewRCCC(np.RCCCDefault(100*units.Gbps, mssL, 12*units.Microsecond))
			if err != nil {
				return false
			}
			l := &rcccLink{r: rand.New(rand.NewPCG(seed, 3)), tx: tx, rx: rx, trim: trim, drop: drop, dup: dup,
				size: uint64(size) * mssL, act: cc.NewActions(64), spec: int64(tx.State().Sender.Credit)}
			for i := 0; i < 200000 && l.step(t); i++ {
				if !l.check(t) {
					t.Logf("step %d: %+v, max pull %d, granted %d", i, tx.State().Sender, l.maxPull, l.granted)
					return false
				}
			}
			done := l.sndNxt == l.size && len(l.rtx) == 0
			if !done {
				t.Logf("stalled: sent %d of %d, %d to resend, %+v", l.sndNxt, l.size, len(l.rtx), tx.State().Sender)
			}
			return done && l.sentRetransmitted == l.deliveredTrimmed
		},
		gen.UInt64().WithLabel("seed"), gen.IntRange(0, 40).WithLabel("trim %"),
		gen.IntRange(0, 30).WithLabel("pull drop %"), gen.IntRange(0, 30).WithLabel("pull dup %"),
		gen.IntRange(1, 400).WithLabel("frames"),
	))
	props.TestingRun(t)
}

// TestRCCCContract runs the conformance suite over RCCC's sender, with
// the receiver's pulls among its messages.
func TestRCCCContract(t *testing.T) {
	var msgs []cc.Feedback
	for i := range 8 {
		msgs = append(msgs, wire.UECPull{Pull: uint32(64 * (i + 1)), Slow: i == 7}.Feedback(3))
	}
	for name, c := range map[string]rp.RCCCConfig{
		"sized": rcccRef(), "long-lived": rp.RCCCDefault(400*units.Gbps, 8*units.Microsecond, 1000, 0, 82),
		"no-speculation": func() rp.RCCCConfig { c := rcccRef(); c.Credit.NoSpeculation = true; return c }(),
	} {
		t.Run(name, func(t *testing.T) {
			o := cctest.Options{Gen: cctest.GenOptions{Messages: msgs, Payload: c.MSS}}
			if testing.Short() {
				o.Sequences, o.Chaos, o.AllocSequences = 6, 12, 1
			}
			require.NoError(t, cctest.TestRP(func() (cc.ReactionPoint, error) { return rp.NewRCCC(c) }, o))
		})
	}
}

// FuzzRCCC: the sender under cctest.FromBytes's events, half the echoes
// valid headers: no panic, cc's errors only, refused events change
// nothing, and the ledger balances after every event.
func FuzzRCCC(f *testing.F) {
	f.Add(chaosBytes(rand.New(rand.NewPCG(5, 6)), 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := rp.NewRCCC(rcccRef())
		if err != nil {
			t.Fatal(err)
		}
		spec := r.State().Sender.Credit
		evs := cctest.FromBytes(data, cc.RoleRP)
		fuzzDrive(t, r, evs, func(ev *cctest.Event, act *cc.Actions) {
			if s := r.State().Sender; !rcccLedger(spec, s) {
				t.Fatalf("ledger off after %v: %+v", ev, s)
			}
		})
	})
}
