package credit

import (
	"errors"
	"strconv"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/fixedpoint"
	"github.com/hwcc/hwcc/units"
)

// Blocks is an amount of buffer in InfiniBand flow-control blocks of
// BlockSize (64) bytes. It is a plain signed count; each register that holds
// one states its width.
type Blocks int32

// CBFC constants (IBA section 7.9).
const (
	// BlockSize is the flow-control block: credits count 64-byte blocks.
	BlockSize units.Bytes = 64
	// CounterBits is the width of FCTBS, FCCL and ABR: 12 bits, which wrap.
	CounterBits = 12
	// CounterMod is 2^12 = 4096, the modulus of every CBFC counter.
	CounterMod = 1 << CounterBits
	// MaxAdvance is 2048 blocks, half the counters' period: the send test
	// passes while (FCCL − (FCTBS + n)) mod 4096 ≤ 2048, and a receiver
	// never advertises more than ABR + 2048 (see CBFCReceiver.FCCL).
	MaxAdvance Blocks = CounterMod / 2
	// MaxPacketBlocks is the largest packet the modulo test judges
	// correctly: with at most 2048 blocks of credit, a packet of n ≤ 2047
	// blocks passes exactly when it fits (n = 2048 would pass with no credit
	// at all, since (0 − 2048) mod 4096 = 2048). IBA packets are far smaller
	// (a 4096-byte MTU packet with headers is 66 blocks).
	MaxPacketBlocks Blocks = MaxAdvance - 1
	// MaxCapacity is the largest receive buffer a CBFCReceiver models:
	// 2^24 − 1 blocks (1 GiB), the width of its free-blocks register.
	MaxCapacity Blocks = 1<<freeBits - 1
	// MaxVL is the highest data virtual lane. VL15 (management) is not
	// flow controlled (IBA 7.9), so a CBFC pair and a flow-control packet
	// name VL 0..14.
	MaxVL = 14
	// IBAUpdateSymbols is IBA's bound on the spacing of flow-control
	// packets: one per VL at least every 65,536 symbol times (IBA 7.9).
	IBAUpdateSymbols = 65536
)

const (
	counterMask = CounterMod - 1
	freeBits    = 24
)

// Sentinels for the CBFC refusals; the errors are *cc.EventError values
// wrapping them, so errors.Is(err, cc.ErrEvent) holds too.
var (
	// ErrNoCredit: CBFCSender.Send of a packet the send test refuses.
	ErrNoCredit = errors.New("credit: CBFC packet beyond the credit limit")
	// ErrOverrun: CBFCReceiver.Absorb of a packet larger than the free
	// buffer (the sender sent past the credit it was given).
	ErrOverrun = errors.New("credit: CBFC receive buffer overrun")
)

// BlocksOf returns how many 64-byte blocks n bytes occupy: ceil(n/64)
// (IBA counts a packet's credits in whole blocks, a partial block taking
// one). n ≤ 0 gives 0; a count beyond the Blocks range saturates at its
// maximum, which every CBFC event refuses as too large.
//
// Which bytes count is the caller's: IBA counts a packet's bytes on the
// link; the harness counts its frame size.
func BlocksOf(n units.Bytes) Blocks {
	if n <= 0 {
		return 0
	}
	// ceil(n/64) = (n + 63) >> 6, computed without overflow for n near
	// MaxBytes by rounding the quotient instead of the dividend.
	b := n >> 6
	if n&(BlockSize-1) != 0 {
		b++
	}
	if b > units.Bytes(fixedpoint.MaxOf[Blocks]()) {
		return fixedpoint.MaxOf[Blocks]()
	}
	return Blocks(b)
}

// Bytes returns the blocks' size in bytes, b·64.
func (b Blocks) Bytes() units.Bytes { return units.Bytes(b) * BlockSize }

// IBAUpdatePeriod returns IBA's longest flow-control packet spacing,
// 65,536 symbol times, for a symbol time of symbol; a result beyond
// units.MaxTime saturates. Worked values: an SDR lane signals 2.5 Gbaud with
// 8b/10b, a 10-bit symbol every 4 ns, so 65,536 symbols are 262.144 µs; a
// model that treats a 100 Gb/s link as one lane of byte symbols (80 ps)
// gets 5.24288 µs.
func IBAUpdatePeriod(symbol units.Time) units.Time {
	if symbol <= 0 {
		return 0
	}
	return fixedpoint.SatMul(symbol, IBAUpdateSymbols)
}

// wrap12 reduces v to the 12-bit counter range.
func wrap12(v uint16) uint16 { return v & counterMask }

// The CBFC pair and the WRR scheduler are state machines of a link and of
// a ToR port, with events of their own rather than one of cc's roles; they
// keep the contract's register snapshot.
var (
	_ cc.RegisterSource = (*CBFCSender)(nil)
	_ cc.RegisterSource = (*CBFCReceiver)(nil)
	_ cc.RegisterSource = (*WRR)(nil)
)

// CBFCSender is the transmit side of InfiniBand-style credit-based flow
// control (CBFC) for one virtual lane of one link: the upstream port, which
// may send a data packet only while the downstream CBFCReceiver has
// advertised room for it. The receiver's flow-control packets (FCPacket)
// carry its credit limit back.
//
// Sources: [IBA] §7.9 "Flow control" ("IBA 7.9" below: 64-byte blocks,
// the 12-bit FCTBS, FCCL and ABR, the send test, the flow-control packet);
// [Survey] §3.1 (CBFC: the upstream's credit count "is always equivalent
// to the available buffer slots of the downstream switch, and the switch
// buffer will not be overflowed"). Public implementations that agree with
// the rules used here: Mellanox's OMNeT++ InfiniBand model ([IB-FlitSim],
// IBInBuf: FCCL = ABR + free blocks, ABR overwritten with the FCTBS of a
// received flow-control packet) and Wireshark's InfiniBand dissector
// ([Wireshark-IB]: the flow-control packet's fields and widths).
//
// # Registers, units and overflow policy
//
//	register  width    unit     policy
//	FCTBS     12 bits  blocks   total blocks sent, wraps mod 4096; 0 at
//	                            link initialisation
//	FCCL      12 bits  blocks   the receiver's credit limit from its latest
//	                            accepted flow-control packet; 0 at link
//	                            initialisation (no credit until the first)
//	sent      64 bits  blocks   model counter: blocks sent, wraps
//	ignored   32 bits  packets  flow-control updates ignored as stale, wraps
//	now       64 bits  ps       the latest accepted time (cc.Monotonic)
//
// # The send test
//
// A packet of n blocks may go when (FCCL − (FCTBS + n)) mod 4096 ≤ 2048
// (IBA 7.9). Because a receiver never advertises more than 2048 blocks
// beyond what the sender has sent, (FCCL − FCTBS) mod 4096 is the credit
// left, in [0, 2048], and the test passes exactly when n ≤ credit, for
// every n in 1..MaxPacketBlocks and every phase of the wrapping counters.
// Send adds n to FCTBS mod 4096.
//
// # Updates (the choice IBA leaves open)
//
// On a link, flow-control packets arrive in order, and each carries a
// credit limit at least the previous one's; a lost packet is simply
// superseded by the next (IBA resends them at least every 65,536 symbol
// times). hwcc also accepts a path that loses, duplicates or reorders
// them, and ignores (does not refuse: Update returns false, no error) an
// update that would move FCCL backwards, counting it in the ignored
// register. With d(x) = (x − FCTBS) mod 4096, Update(fccl) is accepted when
//
//	d(FCCL) ≤ d(fccl) ≤ 2048
//
// The left inequality is "not backwards modulo 4096" measured from FCTBS;
// the right one refuses a limit more than 2048 blocks ahead of FCTBS, which
// no receiver advertises: such a value is an update so old that its counter
// has wrapped past the window (or a corrupted one), and taking it would
// hand the sender credit it does not have. No 12-bit scheme can recognise
// every old value: an update still in flight after the sender has sent
// 2048 more blocks than the receiver had counted when it made the update
// can alias to a valid one. Links never reorder; a path that does must
// bound a flow-control packet's lifetime below 2048 blocks (128 KiB) of
// line time. The tests show both the guarantee and the aliasing beyond it.
//
// A CBFCSender is not safe for concurrent use. The zero value is not
// usable; build one with NewCBFCSender. Nothing in it allocates after
// NewCBFCSender, except the error of a refused event.
type CBFCSender struct {
	clock   cc.Monotonic
	vl      uint8
	fctbs   uint16 // 12 bits
	fccl    uint16 // 12 bits
	sent    uint64 // blocks sent, 64-bit model counter, wraps
	ignored uint32 // updates ignored, wraps
}

// cbfcSenderPart names the sender in errors.
const cbfcSenderPart = "credit.CBFCSender"

// NewCBFCSender returns the transmit side of virtual lane vl (0..MaxVL) at
// link initialisation: FCTBS = 0, FCCL = 0, so it sends nothing until the
// first flow-control packet.
func NewCBFCSender(vl uint8) (*CBFCSender, error) {
	if vl > MaxVL {
		return nil, &cc.ConfigError{Part: cbfcSenderPart, Field: "VL", Value: strconv.Itoa(int(vl)), Range: "0..14 (VL15 is not flow controlled)"}
	}
	return &CBFCSender{vl: vl}, nil
}

// Reset returns the sender to link initialisation (IBA: the counters start
// at 0 when the link initialises): FCTBS = FCCL = 0, the model counters 0.
// The time register keeps its value.
func (s *CBFCSender) Reset() {
	s.fctbs, s.fccl, s.sent, s.ignored = 0, 0, 0, 0
}

// VL returns the virtual lane.
func (s *CBFCSender) VL() uint8 { return s.vl }

// FCTBS returns the 12-bit total blocks sent, the value the port's
// flow-control packets carry (FCPacket.FCTBS).
func (s *CBFCSender) FCTBS() uint16 { return s.fctbs }

// FCCL returns the 12-bit credit limit in force.
func (s *CBFCSender) FCCL() uint16 { return s.fccl }

// Credit returns the blocks the sender may still send, (FCCL − FCTBS)
// mod 4096, which the update rule keeps in [0, 2048].
func (s *CBFCSender) Credit() Blocks {
	return Blocks(fixedpoint.WrapSub(s.fccl, s.fctbs, CounterBits))
}

// CanSend is the IBA send test for a packet of n blocks:
// (FCCL − (FCTBS + n)) mod 4096 ≤ 2048. n outside 1..MaxPacketBlocks is
// never sendable (see MaxPacketBlocks).
func (s *CBFCSender) CanSend(n Blocks) bool {
	if n < 1 || n > MaxPacketBlocks {
		return false
	}
	// (FCCL − (FCTBS + n)) mod 4096 ≤ 2048
	return Blocks(fixedpoint.WrapSub(s.fccl, fixedpoint.WrapAdd(s.fctbs, uint16(n), CounterBits), CounterBits)) <= MaxAdvance
}

// Send records a packet of n blocks leaving at now: FCTBS = (FCTBS + n)
// mod 4096. It refuses, changing nothing, a packet CanSend refuses
// (errors.Is(err, ErrNoCredit)), and an event out of time order.
func (s *CBFCSender) Send(now units.Time, n Blocks) error {
	if !s.clock.InOrder(now) {
		return s.clock.Check(cbfcSenderPart, "Send", now)
	}
	if !s.CanSend(n) {
		return s.refuseSend(n)
	}
	s.clock.Advance(now)
	s.fctbs = fixedpoint.WrapAdd(s.fctbs, uint16(n), CounterBits)
	s.sent += uint64(n)
	return nil
}

//go:noinline
func (s *CBFCSender) refuseSend(n Blocks) error {
	if n < 1 || n > MaxPacketBlocks {
		return &cc.EventError{Part: cbfcSenderPart, Event: "Send",
			Reason: "packet of " + strconv.Itoa(int(n)) + " blocks, want 1..2047"}
	}
	return &cc.EventError{Part: cbfcSenderPart, Event: "Send",
		Reason: "packet of " + strconv.Itoa(int(n)) + " blocks with " + strconv.Itoa(int(s.Credit())) + " blocks of credit", Err: ErrNoCredit}
}

// Update takes the credit limit fccl of a flow-control packet that
// arrived at now and reports whether it took it. It ignores (false, nil)
// an update that is stale by the rule in the type's comment. It refuses,
// changing nothing, an fccl that is not a 12-bit value and an event out of
// time order.
func (s *CBFCSender) Update(now units.Time, fccl uint16) (accepted bool, err error) {
	if !s.clock.InOrder(now) {
		return false, s.clock.Check(cbfcSenderPart, "Update", now)
	}
	if fccl > counterMask {
		return false, refuse12(cbfcSenderPart, "Update", "FCCL", fccl)
	}
	s.clock.Advance(now)
	// d(x) = (x − FCTBS) mod 4096; accept d(FCCL) ≤ d(fccl) ≤ 2048.
	d := Blocks(fixedpoint.WrapSub(fccl, s.fctbs, CounterBits))
	if d < s.Credit() || d > MaxAdvance {
		s.ignored++
		return false, nil
	}
	s.fccl = fccl
	return true, nil
}

//go:noinline
func refuse12(part, event, field string, v uint16) error {
	return &cc.EventError{Part: part, Event: event,
		Reason: field + " " + strconv.Itoa(int(v)) + " is not a 12-bit value (0..4095)"}
}

// Sent returns the blocks sent since initialisation (64-bit model counter).
func (s *CBFCSender) SentBlocks() uint64 { return s.sent }

// Ignored returns how many updates were ignored as stale (32 bits, wraps).
func (s *CBFCSender) Ignored() uint32 { return s.ignored }

// AppendRegisters appends the sender's registers to dst, in this order,
// and returns the extended slice; it allocates only when dst must grow:
//
//	vl        4 bits   virtual lane
//	fctbs    12 bits   FCTBS, blocks mod 4096
//	fccl     12 bits   FCCL, blocks mod 4096
//	sent     64 bits   blocks sent (model counter, wraps)
//	ignored  32 bits   stale updates ignored (wraps)
//	now      64 bits   latest accepted time, ps (signed)
func (s *CBFCSender) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst,
		cc.Reg("vl", 4, uint64(s.vl)),
		cc.Reg("fctbs", CounterBits, uint64(s.fctbs)),
		cc.Reg("fccl", CounterBits, uint64(s.fccl)),
		cc.Reg("sent", 64, s.sent),
		cc.Reg("ignored", 32, uint64(s.ignored)),
		s.clock.Register(),
	)
}

// CBFCReceiverConfig configures a CBFCReceiver.
type CBFCReceiverConfig struct {
	// VL is the virtual lane, 0..MaxVL.
	VL uint8
	// Capacity is the receive buffer of the lane in blocks, 1..MaxCapacity
	// (the free-blocks register is 24 bits). A packet larger than
	// min(Capacity, MaxAdvance) blocks can never be sent.
	Capacity Blocks
	// Period is the longest spacing of flow-control packets, picoseconds,
	// > 0: IBA sends one per VL at least every 65,536 symbol times
	// (IBAUpdatePeriod).
	Period units.Time
	// MinGap is the shortest spacing of flow-control packets sent because
	// the credit limit changed, picoseconds, 0..Period. IBA sends them
	// when the limit changes and states no minimum; 0 sends one at every
	// change, as IBA does; a positive gap batches changes, as hardware that
	// rate-limits its link packets does (Mellanox's OMNeT++ model checks
	// for changes every credMinTime).
	MinGap units.Time
}

// Validate reports the first field out of range as a *cc.ConfigError.
func (c CBFCReceiverConfig) Validate() error {
	switch {
	case c.VL > MaxVL:
		return &cc.ConfigError{Part: cbfcReceiverPart, Field: "VL", Value: strconv.Itoa(int(c.VL)), Range: "0..14 (VL15 is not flow controlled)"}
	case c.Capacity < 1 || c.Capacity > MaxCapacity:
		return &cc.ConfigError{Part: cbfcReceiverPart, Field: "Capacity", Value: strconv.Itoa(int(c.Capacity)) + " blocks", Range: "1.." + strconv.Itoa(int(MaxCapacity)) + " blocks"}
	case c.Period <= 0:
		return &cc.ConfigError{Part: cbfcReceiverPart, Field: "Period", Value: c.Period.String(), Range: "> 0"}
	case c.MinGap < 0 || c.MinGap > c.Period:
		return &cc.ConfigError{Part: cbfcReceiverPart, Field: "MinGap", Value: c.MinGap.String(), Range: "0.." + c.Period.String()}
	}
	return nil
}

// cbfcReceiverPart names the receiver in errors.
const cbfcReceiverPart = "credit.CBFCReceiver"

// CBFCReceiver is the receive side of IBA link-level flow control for one
// virtual lane: the downstream port's buffer accounting and the generator
// of the flow-control packets that tell the upstream CBFCSender its credit
// limit (IBA 7.9).
//
//   - ABR (adjusted blocks received) counts the blocks of every data
//     packet received, mod 4096, and is set to the FCTBS of every
//     flow-control packet that arrives (Resync), so blocks lost on the
//     link stop costing credit.
//   - FCCL = (ABR + min(free, 2048)) mod 4096: the advertised limit. The
//     2048 cap keeps the limit within the sender's modulo test (a limit
//     more than 2048 ahead would fail it); with free blocks ≥ 2048 the
//     sender may have 2048 blocks in flight.
//   - Flow-control packets go out at least every Period (IBA: every 65,536
//     symbol times) and when FCCL changes (no sooner than MinGap after the
//     previous one). A data packet that does not fit the free buffer is
//     refused with ErrOverrun: the sender broke the credit rule.
//
// # Registers, units and overflow policy
//
//	register   width    unit     policy
//	ABR        12 bits  blocks   wraps mod 4096; set from FCTBS on Resync
//	free       24 bits  blocks   0..Capacity; refuses what does not fit
//	adv        12 bits  blocks   FCCL in the latest flow-control packet
//	pending     1 bit            FCCL differs from adv (or no packet yet)
//	last       64 bits  ps       when that packet went (signed)
//	next       64 bits  ps       NextDeadline (signed; MaxTime: none)
//	received   64 bits  blocks   model counter: blocks received, wraps
//	drained    64 bits  blocks   model counter: blocks drained, wraps
//	now        64 bits  ps       the latest accepted time (cc.Monotonic)
//
// Conservation: free = Capacity − (received − drained) always.
//
// # Order on the link
//
// Resync must see the FCTBS of a flow-control packet in link order with
// the data packets: the FCTBS sampled when the packet is transmitted, and
// the packet arriving after every data packet sent before it (a link is
// FIFO). A flow-control packet that overtook data would count blocks still
// in flight as received and advertise credit the buffer does not have.
//
// # Clock
//
// NextDeadline is when the next flow-control packet is due: at time 0 for
// the initial advertisement, then the earlier of the periodic deadline
// (last + Period) and, when FCCL changed, max(change, last + MinGap).
// Events do not send: a packet that falls due between events waits for
// Advertise, which sends one packet however many periods were missed.
//
// A CBFCReceiver is not safe for concurrent use. The zero value is not
// usable; build one with NewCBFCReceiver. Nothing in it allocates after
// NewCBFCReceiver, except the error of a refused event.
type CBFCReceiver struct {
	cfg      CBFCReceiverConfig
	clock    cc.Monotonic
	abr      uint16 // 12 bits
	free     Blocks // 24 bits, 0..Capacity
	adv      uint16 // 12 bits: FCCL of the latest flow-control packet
	pending  bool   // FCCL differs from adv, or no packet went yet
	sentAny  bool   // a flow-control packet went since initialisation
	last     units.Time
	next     units.Time
	received uint64
	drained  uint64
}

// NewCBFCReceiver validates cfg and returns the receive side at link
// initialisation: ABR = 0, the buffer empty, the first flow-control packet
// due at time 0.
func NewCBFCReceiver(cfg CBFCReceiverConfig) (*CBFCReceiver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &CBFCReceiver{cfg: cfg}
	r.Reset()
	return r, nil
}

// Reset returns the receiver to link initialisation: ABR = 0, the buffer
// empty (free = Capacity), the model counters 0, and the first
// flow-control packet due at once (at the latest accepted time). The time
// register keeps its value.
func (r *CBFCReceiver) Reset() {
	r.abr, r.free, r.adv = 0, r.cfg.Capacity, 0
	r.received, r.drained = 0, 0
	r.pending, r.sentAny = true, false
	r.last = 0
	r.next = r.clock.Last()
}

// Config returns the configuration.
func (r *CBFCReceiver) Config() CBFCReceiverConfig { return r.cfg }

// ABR returns the 12-bit adjusted blocks received.
func (r *CBFCReceiver) ABR() uint16 { return r.abr }

// Free returns the free buffer blocks.
func (r *CBFCReceiver) Free() Blocks { return r.free }

// Held returns the blocks in the buffer, Capacity − free.
func (r *CBFCReceiver) Held() Blocks { return r.cfg.Capacity - r.free }

// FCCL returns the credit limit the receiver advertises now:
// (ABR + min(free, 2048)) mod 4096.
func (r *CBFCReceiver) FCCL() uint16 {
	return fixedpoint.WrapAdd(r.abr, uint16(min(r.free, MaxAdvance)), CounterBits)
}

// Received and Drained return the 64-bit model counters of blocks
// received and drained since initialisation.
func (r *CBFCReceiver) Received() uint64 { return r.received }

// Drained: see Received.
func (r *CBFCReceiver) Drained() uint64 { return r.drained }

// Absorb records a data packet of n blocks arriving at now: ABR =
// (ABR + n) mod 4096 and n blocks of buffer taken. It refuses, changing
// nothing, a packet that does not fit the free buffer
// (errors.Is(err, ErrOverrun); the caller drops it, and the next
// flow-control packet's FCTBS repairs ABR), n outside 1..MaxPacketBlocks,
// and an event out of time order.
func (r *CBFCReceiver) Absorb(now units.Time, n Blocks) error {
	if !r.clock.InOrder(now) {
		return r.clock.Check(cbfcReceiverPart, "Absorb", now)
	}
	if n < 1 || n > MaxPacketBlocks || n > r.free {
		return r.refuseAbsorb(n)
	}
	r.clock.Advance(now)
	r.abr = fixedpoint.WrapAdd(r.abr, uint16(n), CounterBits)
	r.free -= n
	r.received += uint64(n)
	r.changed(now)
	return nil
}

//go:noinline
func (r *CBFCReceiver) refuseAbsorb(n Blocks) error {
	if n < 1 || n > MaxPacketBlocks {
		return &cc.EventError{Part: cbfcReceiverPart, Event: "Absorb",
			Reason: "packet of " + strconv.Itoa(int(n)) + " blocks, want 1..2047"}
	}
	return &cc.EventError{Part: cbfcReceiverPart, Event: "Absorb",
		Reason: "packet of " + strconv.Itoa(int(n)) + " blocks with " + strconv.Itoa(int(r.free)) + " blocks free", Err: ErrOverrun}
}

// Drain records n blocks leaving the buffer at now (the packet was
// forwarded or consumed): n more blocks free. It refuses, changing
// nothing, n < 1 or more than the buffer holds, and an event out of time
// order.
func (r *CBFCReceiver) Drain(now units.Time, n Blocks) error {
	if !r.clock.InOrder(now) {
		return r.clock.Check(cbfcReceiverPart, "Drain", now)
	}
	if n < 1 || n > r.Held() {
		return r.refuseDrain(n)
	}
	r.clock.Advance(now)
	r.free += n
	r.drained += uint64(n)
	r.changed(now)
	return nil
}

//go:noinline
func (r *CBFCReceiver) refuseDrain(n Blocks) error {
	return &cc.EventError{Part: cbfcReceiverPart, Event: "Drain",
		Reason: "drain of " + strconv.Itoa(int(n)) + " blocks with " + strconv.Itoa(int(r.Held())) + " held"}
}

// Resync takes the FCTBS of a flow-control packet from the sender that
// arrived at now: ABR = FCTBS (IBA 7.9), which forgives the blocks of data
// packets lost on the link. See the type's comment for the order it needs.
// It refuses, changing nothing, an fctbs that is not a 12-bit value and an
// event out of time order.
func (r *CBFCReceiver) Resync(now units.Time, fctbs uint16) error {
	if !r.clock.InOrder(now) {
		return r.clock.Check(cbfcReceiverPart, "Resync", now)
	}
	if fctbs > counterMask {
		return refuse12(cbfcReceiverPart, "Resync", "FCTBS", fctbs)
	}
	r.clock.Advance(now)
	r.abr = fctbs
	r.changed(now)
	return nil
}

// changed marks an update pending when the event at now left FCCL
// different from the latest advertised one (a change undone before the
// next packet, such as a receive and an equal drain below 2048 free
// blocks, sends nothing early), and recomputes the deadline.
func (r *CBFCReceiver) changed(now units.Time) {
	r.pending = !r.sentAny || r.FCCL() != r.adv
	r.schedule(now)
}

// schedule recomputes next for an event at now.
func (r *CBFCReceiver) schedule(now units.Time) {
	if !r.sentAny {
		r.next = min(r.next, now) // the initial advertisement is already due
		return
	}
	next := fixedpoint.SatAdd(r.last, r.cfg.Period)
	if r.pending {
		next = min(next, max(now, fixedpoint.SatAdd(r.last, r.cfg.MinGap)))
	}
	r.next = next
}

// NextDeadline returns when the next flow-control packet is due (see the
// type's comment); it is never units.MaxTime, since the periodic packet
// always runs.
func (r *CBFCReceiver) NextDeadline() units.Time { return r.next }

// Advertise runs the flow-control packet generator at now. Before
// NextDeadline it only records now and returns false. At or after it, it
// returns the packet to send now (Op FCNormal, the lane, FCCL = the limit
// now) and true, and the next deadline is Period later (or sooner on a
// change). The packet's FCTBS is the port's own transmit count for the
// lane, which a receiver does not know: a port that also sends on the
// lane sets it from its CBFCSender (p.FCTBS = s.FCTBS()); otherwise it is
// 0. Missed periods are one expiry. It refuses an event out of time order.
func (r *CBFCReceiver) Advertise(now units.Time) (FCPacket, bool, error) {
	if !r.clock.InOrder(now) {
		return FCPacket{}, false, r.clock.Check(cbfcReceiverPart, "Advertise", now)
	}
	r.clock.Advance(now)
	if now < r.next {
		return FCPacket{}, false, nil
	}
	r.adv = r.FCCL()
	r.pending = false
	r.sentAny = true
	r.last = now
	r.schedule(now)
	return FCPacket{Op: FCNormal, VL: r.cfg.VL, FCCL: r.adv}, true, nil
}

// AppendRegisters appends the receiver's registers to dst, in this order,
// and returns the extended slice; it allocates only when dst must grow:
//
//	vl         4 bits   virtual lane
//	abr       12 bits   ABR, blocks mod 4096
//	free      24 bits   free buffer blocks
//	adv       12 bits   FCCL in the latest flow-control packet
//	pending    1 bit    FCCL differs from adv (or no packet yet)
//	last      64 bits   when that packet went, ps (signed)
//	next      64 bits   NextDeadline, ps (signed)
//	received  64 bits   blocks received (model counter, wraps)
//	drained   64 bits   blocks drained (model counter, wraps)
//	now       64 bits   latest accepted time, ps (signed)
func (r *CBFCReceiver) AppendRegisters(dst []cc.Register) []cc.Register {
	return append(dst,
		cc.Reg("vl", 4, uint64(r.cfg.VL)),
		cc.Reg("abr", CounterBits, uint64(r.abr)),
		cc.Reg("free", freeBits, uint64(r.free)),
		cc.Reg("adv", CounterBits, uint64(r.adv)),
		cc.BoolReg("pending", r.pending),
		cc.TimeReg("last", r.last),
		cc.TimeReg("next", r.next),
		cc.Reg("received", 64, r.received),
		cc.Reg("drained", 64, r.drained),
		r.clock.Register(),
	)
}
