package harness

import (
	"errors"
	"fmt"
	"github.com/hwcc/hwcc/cc"
	"sort"
	"strings"
	"sync"

	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// Algorithm is a congestion-control scheme as the harness runs it: a name,
// the switch features it needs, and factories for its three parts. An
// adapter package implements it and registers it by name with Register;
// adding an algorithm edits neither the switch nor the NIC model.
//
// Any factory may return (nil, nil) to say the algorithm has no such part
// (RoCC, HPCC and DCTCP have no NP; the baselines none and static have
// only an RP). A non-nil error aborts the run with that error.
type Algorithm interface {
	// Name is the registry key, such as "rocc" or "dcqcn": lower case, no
	// spaces.
	Name() string
	// Features says what the switches and NICs must do for this algorithm.
	Features() Features
	// NewCP returns the congestion point of one switch egress queue (one
	// per data queue of every switch port), called once when the network is
	// built.
	NewCP(info CPInfo) (CP, error)
	// NewRP returns the reaction point of one sending flow, called when
	// the flow starts.
	NewRP(info FlowInfo) (RP, error)
	// NewNP returns the notification point of one receiving flow, called
	// when the flow starts.
	NewNP(info FlowInfo) (NP, error)
}

// ParamChecker is implemented by an Algorithm that takes parameters
// (Scenario.Params, set with -set param.NAME=VALUE). CheckParams is called
// once before a run; it returns an error naming any unknown key (with the
// known ones) or bad value.
type ParamChecker interface {
	CheckParams(params map[string]string) error
}

// Features are the switch and NIC behaviours an algorithm turns on.
type Features struct {
	// ECN: switches mark CE on data packets with the scenario's threshold
	// marker (SwitchSpec.ECN: mark when the egress data queue, including the
	// arriving packet, exceeds the threshold). A CP may mark on its own
	// whether or not this is set; set it false when the CP replaces the
	// default marker (RED for DCQCN).
	ECN bool
	// INT: senders add an INT header to data packets, every switch egress
	// port's CP may stamp it in OnDequeue (adding the record's bytes to
	// p.Size; the harness stamps nothing), and receivers echo the header
	// in ACKs. Every port's rate must have an INT speed code.
	INT bool
	// Symmetric: every packet of a flow that travels from its destination
	// towards its source (ACKs, NAKs, CNPs, the notification point's
	// messages, a switch's feedback) retraces the flow's data path link by
	// link instead of taking its own ECMP hash: ExpressPass's credits must
	// cross the links, in reverse, that the data they let through will
	// cross (symmetric routing, [ExpressPass] §3.1).
	Symmetric bool
}

// CP is a congestion point: one per switch egress data queue. The harness
// calls OnEnqueue after a data packet joins the queue (q.Len includes it)
// and OnDequeue when one leaves it to start transmission (q.Len no longer
// includes it; a CP that stamps INT does it here). A CP may set p.CE,
// may send feedback to a flow's source with q.SendFeedback, and may ask for
// a periodic timer through NextDeadline: the harness calls OnTimer(now, q)
// at that time (never earlier; at the same instant as other events, in
// scheduling order). NextDeadline is read after every call; units.MaxTime
// means no timer.
type CP interface {
	OnEnqueue(now units.Time, q *Queue, p *Packet)
	OnDequeue(now units.Time, q *Queue, p *Packet)
	NextDeadline() units.Time
	OnTimer(now units.Time, q *Queue)
}

// PauseObserver is implemented by a CP that wants to know when PFC pauses
// and resumes its queue (Mercury's PAUSE/RESUME-driven state). The harness
// calls OnPause when a PFC frame from the downstream neighbour changes the
// queue's pause state; q.Paused() then returns paused.
type PauseObserver interface {
	OnPause(now units.Time, q *Queue, paused bool)
}

// RP is a reaction point: one per sending flow, the flow's rate limiter and
// window. After every call (and right after NewRP) the harness reads
// Rate, Window and NextDeadline and applies them: the flow's packets are
// paced at Rate (wire bytes, preamble and IFG included, so a rate equal to
// the line rate sends back to back), at most Window payload bytes are
// unacknowledged (the sender may send while inflight < Window; 0 means no
// window), and OnTimer is called at NextDeadline (units.MaxTime: none).
type RP interface {
	Rate() units.Rate
	Window() units.Bytes
	// OnSend is called as each data packet (retransmissions included)
	// starts transmission: seq is its first payload byte, n its payload.
	OnSend(now units.Time, seq uint64, n units.Bytes)
	// OnAck is called for every ACK and NAK of the flow. a is valid only
	// during the call.
	OnAck(now units.Time, a *Ack)
	// OnCNP is called when a CNP from the flow's notification point arrives.
	OnCNP(now units.Time)
	// OnFeedback is called when a congestion point's feedback packet for
	// the flow arrives; fb is valid only during the call.
	OnFeedback(now units.Time, fb *Feedback)
	NextDeadline() units.Time
	OnTimer(now units.Time)
}

// NP is a notification point: one per receiving flow. OnData sees every
// data packet of the flow as it arrives (in order or not), with its CE mark
// in p.CE; returning true sends one CNP to the flow's source at control
// priority. OnTimer is called at NextDeadline and may also send one.
type NP interface {
	OnData(now units.Time, p *Packet) (cnp bool)
	NextDeadline() units.Time
	OnTimer(now units.Time) (cnp bool)
}

// CreditRP is implemented by a reaction point that can gate its flow on
// credit (cc.Limits.Credited: ExpressPass). After every call the harness
// reads Credit as it reads Rate and Window: while gated, the flow may start
// a data frame only if the frame's wire bytes (preamble, gap and INT
// prefix included) fit in credit; pacing and window still apply. gated
// false: the flow is not credit-gated and credit means nothing.
type CreditRP interface {
	Credit() (credit units.Bytes, gated bool)
}

// FrameRP is implemented by a reaction point that wants each data frame as
// it starts transmission rather than its sequence and payload: the harness
// calls OnSendFrame instead of OnSend, with the frame as it leaves the NIC
// (its wire size spends a credit). p is valid only during the call.
type FrameRP interface {
	OnSendFrame(now units.Time, p *Packet)
}

// SourceNP is implemented by a notification point that takes messages from
// its flow's source (FlowInfo.SendToDestination: ExpressPass's credit
// request and stop). The harness calls OnSource when one arrives at the
// receiver; returning true sends one CNP, as OnData's result does. fb is
// valid only during the call. A message for a flow whose NP does not
// implement it is reported as an error of the flow (Report.Errors).
type SourceNP interface {
	OnSource(now units.Time, fb *Feedback) (cnp bool)
}

// Ack is what a reaction point learns from one ACK or NAK. The harness
// fills one reused value per call: do not keep the pointer.
type Ack struct {
	Flow FlowID
	// Seq is cumulative: the receiver holds every byte below it. For a NAK
	// it is the byte the receiver expects next, where the sender goes back to.
	Seq uint64
	// Newly is the number of payload bytes this ACK acknowledged for the
	// first time (0 for a duplicate).
	Newly units.Bytes
	// SndNxt is the sender's next new byte when the ACK arrived (HPCC's
	// snd_nxt, for lastUpdateSeq); Inflight is SndNxt − Seq after the ACK.
	SndNxt   uint64
	Inflight units.Bytes
	NAK      bool
	// ECE: at least one data packet this ACK covers arrived with CE set.
	// Marked and Packets count the data packets covered and marked (ACK
	// coalescing, NICSpec.AckEvery).
	ECE     bool
	Marked  int
	Packets int
	// RTT is now minus the SentAt the ACK echoes (the data packet that
	// triggered it).
	RTT units.Time
	// HasINT says INT points to the echoed header, decoded from the ACK's
	// wire bytes (inttel.Codec.Decode).
	HasINT bool
	INT    *inttel.Header
	// Done: this ACK completes a sized flow.
	Done bool
}

// FlowInfo describes a flow to an adapter's NewRP and NewNP.
type FlowInfo struct {
	ID       FlowID
	Src, Dst NodeID
	SrcName  string
	DstName  string
	// Size is the flow's payload in bytes; 0 means long-lived (it sends
	// until its stop time or the end of the run).
	Size units.Bytes
	// Offered is the rate the workload asks for (0: the line rate). The
	// static baseline sends at it; other algorithms may use it as a cap.
	Offered units.Rate
	Start   units.Time
	// LineRate is the sender NIC's port rate; Bottleneck the smallest link
	// rate on the flow's path.
	LineRate   units.Rate
	Bottleneck units.Rate
	// BaseRTT is the idle-path round trip of a full data packet and its
	// ACK (see the package doc); Hops counts the switches on the path.
	BaseRTT units.Time
	Hops    int
	// MaxBaseRTT is the largest BaseRTT of the network, over every
	// ordered pair of hosts and every ECMP path, and MaxHops the most
	// switches on such a path; both are the same for every flow of a run.
	// HPCC's T is one value for all flows, slightly above the largest base
	// RTT ([HPCC] §3.2 and §5.1).
	MaxBaseRTT units.Time
	MaxHops    int
	// Payload is the payload of a full packet, PacketBytes its wire size
	// (without INT), AckBytes an ACK's wire size (without INT).
	Payload     units.Bytes
	PacketBytes units.Bytes
	AckBytes    units.Bytes
	// Params are the scenario's algorithm parameters (read only).
	Params map[string]string
	// Errors records what the flow's state machines refuse.
	Errors ErrorSink
	// SendToSource sends a control message about the flow from its
	// receiver to its source, sized and prioritised by its kind
	// (Scheme.Kinds); false if the flow has ended. Set by the harness.
	SendToSource func(fb cc.Feedback) bool
	// SendToDestination sends a control message about the flow from its
	// source to its receiver (the reaction point's messages: ExpressPass's
	// credit request and stop), sized and prioritised by its kind;
	// delivered to the flow's notification point (SourceNP). False if the
	// flow has ended. Set by the harness.
	SendToDestination func(fb cc.Feedback) bool
}

// CPInfo describes a switch egress queue to an adapter's NewCP.
type CPInfo struct {
	ID       CPID
	Node     NodeID
	NodeName string
	Port     int // port number on the switch
	PeerName string
	Prio     uint8
	Rate     units.Rate
	Delay    units.Time  // propagation delay of the port's link
	Buffer   units.Bytes // the switch's buffer: switch.buffer, or switch.pool plus its ports' PFC headroom
	Params   map[string]string
	// SwitchID is the switch's 12-bit ID, unique among the network's
	// switches (INT's pathID, [HPCC] §4.1).
	SwitchID uint16
	// Errors records what the queue's state machine refuses.
	Errors ErrorSink

	// build, set when a Sim builds its CPs, lets the harness's own
	// adapter share work between them (cpBuild); nil otherwise.
	build *cpBuild
}

// Registry errors.
var (
	ErrDuplicate = errors.New("harness: algorithm already registered")
	ErrUnknown   = errors.New("harness: unknown algorithm")
)

var registry = struct {
	sync.Mutex
	m map[string]Algorithm
}{m: map[string]Algorithm{}}

// Register adds a to the registry under a.Name(). It is meant for init
// functions of adapter packages; it returns ErrDuplicate (wrapped, naming
// the algorithm) if the name is taken and an error for a nil algorithm or
// an empty name or one with upper case or spaces.
func Register(a Algorithm) error {
	if a == nil {
		return errors.New("harness: Register(nil)")
	}
	name := a.Name()
	if name == "" || strings.ToLower(name) != name || strings.ContainsAny(name, " \t\n=,") {
		return fmt.Errorf("harness: algorithm name %q: want lower case without spaces, '=' or ','", name)
	}
	registry.Lock()
	defer registry.Unlock()
	if _, ok := registry.m[name]; ok {
		return fmt.Errorf("%w: %q", ErrDuplicate, name)
	}
	registry.m[name] = a
	return nil
}

// MustRegister is Register for init functions: it panics on error, which
// can only be a programming error in the adapter package.
func MustRegister(a Algorithm) {
	if err := Register(a); err != nil {
		panic(err)
	}
}

// Lookup returns the algorithm registered under name, or an error wrapping
// ErrUnknown that lists the registered names.
func Lookup(name string) (Algorithm, error) {
	registry.Lock()
	a, ok := registry.m[name]
	registry.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w %q (registered: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	return a, nil
}

// Names returns the registered algorithm names, sorted.
func Names() []string {
	registry.Lock()
	defer registry.Unlock()
	names := make([]string, 0, len(registry.m))
	for n := range registry.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// BaseCP is a CP that does nothing; embed it to implement only some methods.
type BaseCP struct{}

func (BaseCP) OnEnqueue(units.Time, *Queue, *Packet) {}
func (BaseCP) OnDequeue(units.Time, *Queue, *Packet) {}
func (BaseCP) NextDeadline() units.Time              { return units.MaxTime }
func (BaseCP) OnTimer(units.Time, *Queue)            {}

// BaseRP has no-op event methods; embed it and implement Rate and Window.
type BaseRP struct{}

func (BaseRP) OnSend(units.Time, uint64, units.Bytes) {}
func (BaseRP) OnAck(units.Time, *Ack)                 {}
func (BaseRP) OnCNP(units.Time)                       {}
func (BaseRP) OnFeedback(units.Time, *Feedback)       {}
func (BaseRP) NextDeadline() units.Time               { return units.MaxTime }
func (BaseRP) OnTimer(units.Time)                     {}

// BaseNP never sends a CNP; embed it to implement only some methods.
type BaseNP struct{}

func (BaseNP) OnData(units.Time, *Packet) bool { return false }
func (BaseNP) NextDeadline() units.Time        { return units.MaxTime }
func (BaseNP) OnTimer(units.Time) bool         { return false }

// Baselines that need no algorithm.

// noneAlgo sends every flow at its NIC's line rate with no window.
type noneAlgo struct{}

func (noneAlgo) Name() string                   { return "none" }
func (noneAlgo) Features() Features             { return Features{} }
func (noneAlgo) NewCP(CPInfo) (CP, error)       { return nil, nil }
func (noneAlgo) NewNP(FlowInfo) (NP, error)     { return nil, nil }
func (noneAlgo) NewRP(f FlowInfo) (RP, error)   { return fixedRP{rate: f.LineRate}, nil }
func (staticAlgo) Name() string                 { return "static" }
func (staticAlgo) Features() Features           { return Features{} }
func (staticAlgo) NewCP(CPInfo) (CP, error)     { return nil, nil }
func (staticAlgo) NewNP(FlowInfo) (NP, error)   { return nil, nil }
func (staticAlgo) NewRP(f FlowInfo) (RP, error) { return fixedRP{rate: staticRate(f)}, nil }

// staticAlgo sends every flow at its offered rate (the line rate when the
// workload gives none), capped at the line rate.
type staticAlgo struct{}

func staticRate(f FlowInfo) units.Rate {
	if f.Offered <= 0 || f.Offered > f.LineRate {
		return f.LineRate
	}
	return f.Offered
}

// fixedRP is a reaction point with a constant rate and no window.
type fixedRP struct {
	BaseRP
	rate units.Rate
}

func (r fixedRP) Rate() units.Rate    { return r.rate }
func (r fixedRP) Window() units.Bytes { return 0 }

func init() {
	MustRegister(noneAlgo{})
	MustRegister(staticAlgo{})
}

// Compile-time checks.
var (
	_ Algorithm = noneAlgo{}
	_ Algorithm = staticAlgo{}
	_ CP        = BaseCP{}
	_ NP        = BaseNP{}
	_ RP        = fixedRP{}
)
