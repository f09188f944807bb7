package voq

import (
	"flag"
	"fmt"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/hwcc/hwcc/units"
)

// propSeed fixes gopter's random source; override with -voq.seed=N.
var propSeed = flag.Int64("voq.seed", 20210624, "seed of the voq package's gopter properties")

func properties(minSuccess int) *gopter.Properties {
	p := gopter.DefaultTestParametersWithSeed(*propSeed)
	p.MinSuccessfulTests = minSuccess
	return gopter.NewProperties(p)
}

// genConfig draws a small valid configuration of any eligibility rule.
func genConfig() gopter.Gen {
	return gopter.CombineGens(
		gen.IntRange(0, 2),      // eligibility
		gen.IntRange(1, 8),      // keys
		gen.IntRange(1, 8),      // slots (cut to keys)
		gen.Int64Range(1, 2000), // max packet
		gen.Int64Range(0, 6000), // queue limit above max packet
		gen.Int64Range(0, 9000), // max credit above max packet
		gen.Int64Range(0, 9000), // C0 (cut to max credit)
	).Map(func(v []any) Config {
		mp := units.Bytes(v[3].(int64))
		mc := mp + units.Bytes(v[5].(int64))
		return Config{
			Keys: v[1].(int), Slots: min(v[2].(int), v[1].(int)), Eligibility: Eligibility(v[0].(int)),
			MaxPacket: mp, QueueLimit: mp + units.Bytes(v[4].(int64)), MaxCredit: mc,
			InitialCredit: min(units.Bytes(v[6].(int64)), mc),
		}
	})
}

// genOps draws operation sequences over keys 0..9 and length codes
// −1..1001 that sized turns into lengths for a configuration; resets are
// rare. Serves are frequent, so queues drain as well as fill.
func genOps() gopter.Gen {
	kind := gen.Weighted([]gen.WeightedGen{
		{Weight: 3, Gen: gen.Const(opOpen)},
		{Weight: 1, Gen: gen.Const(opClose)},
		{Weight: 8, Gen: gen.Const(opEnqueue)},
		{Weight: 2, Gen: gen.Const(opDequeue)},
		{Weight: 8, Gen: gen.Const(opServe)},
		{Weight: 4, Gen: gen.Const(opAddCredit)},
		{Weight: 3, Gen: gen.Const(opSetHead)},
		{Weight: 2, Gen: gen.Const(opFlowStart)},
		{Weight: 2, Gen: gen.Const(opFlowEnd)},
	})
	o := gopter.CombineGens(kind, gen.UInt32Range(0, 9), gen.Int64Range(-1, 1001), gen.Bool(), gen.IntRange(0, 19)).
		Map(func(v []any) op {
			k := v[0].(opKind)
			if v[4].(int) == 0 && k == opClose {
				k = opReset // one close in twenty is a reset
			}
			n := v[2].(int64)
			if k == opServe && n%2 == 0 {
				n = 0 // serve the head packet
			}
			return op{Kind: k, Key: v[1].(uint32), N: n, Raw: v[3].(bool) && v[4].(int) < 3}
		})
	return gen.SliceOfN(300, o)
}

// sized maps an op drawn by genOps onto cfg: the key to 0..Keys+1 (two
// keys beyond the key space), the length code c to ⌈c·MaxPacket/1000⌉ (to
// ⌈c·MaxCredit/1000⌉ for AddCredit), so that 1000 is the largest length
// and 1001 one byte more; codes −1 and 0 stay (refused lengths, or "serve
// the head packet").
func sized(cfg Config, o op) op {
	o.Key %= uint32(cfg.Keys + 2)
	lim := int64(cfg.MaxPacket)
	if o.Kind == opAddCredit {
		lim = int64(cfg.MaxCredit)
	}
	switch {
	case o.N > 1000:
		o.N = lim + 1
	case o.N > 0:
		o.N = (o.N*lim + 999) / 1000
	}
	return o
}

// TestPropModel: under arbitrary interleavings of every operation, the
// Manager agrees with the map-based reference model after each one
// (acceptance and sentinel, registers, stamps, the round robin's choice,
// conservation). gopter shrinks a failure to a short sequence.
func TestPropModel(t *testing.T) {
	props := properties(300)
	props.Property("Manager = reference model", prop.ForAll(
		func(cfg Config, ops []op) (string, error) {
			h, err := newHarness(cfg)
			if err != nil {
				return "", err
			}
			for i, o := range ops {
				if _, err := h.step(sized(cfg, o)); err != nil {
					return "", fmt.Errorf("op %d: %w", i, err)
				}
			}
			return "", nil
		}, genConfig().WithLabel("config"), genOps().WithLabel("ops")))
	props.TestingRun(t)
}

// TestPropConservation: bytes enqueued = bytes dequeued + bytes queued,
// summed by the test from the operations the Manager accepted and the
// queues it reports, after every operation of any interleaving.
func TestPropConservation(t *testing.T) {
	props := properties(300)
	props.Property("Σ enqueued = Σ dequeued + Σ queued", prop.ForAll(
		func(cfg Config, ops []op) (string, error) {
			m, err := New(cfg)
			if err != nil {
				return "", err
			}
			var in, out int64
			for i, o := range ops {
				o = sized(cfg, o)
				s, ok := m.Lookup(Key(o.Key))
				if !ok || o.Raw {
					s = Slot(o.Key)
				}
				n := units.Bytes(o.N)
				switch o.Kind {
				case opOpen:
					_, _ = m.Open(Key(o.Key))
				case opClose:
					_ = m.Close(s)
				case opEnqueue:
					if m.Enqueue(s, n) == nil {
						in += o.N
					}
				case opDequeue, opServe:
					if o.Kind == opServe {
						if s, ok = m.Next(); !ok {
							continue
						}
					}
					if _, err := m.Dequeue(s, n); err == nil {
						out += o.N
					}
				case opAddCredit:
					_ = m.AddCredit(s, n)
				case opSetHead:
					_ = m.SetHead(s, n)
				case opReset:
					m.Reset()
					in, out = 0, 0
				}
				var queued int64
				for k := range cfg.Keys {
					if s, ok := m.Lookup(Key(k)); ok {
						st, _ := m.State(s)
						queued += int64(st.Queued)
					}
				}
				if in != out+queued {
					return "", fmt.Errorf("op %d %v: enqueued %d ≠ dequeued %d + queued %d", i, o, in, out, queued)
				}
			}
			return "", nil
		}, genConfig().WithLabel("config"), genOps().WithLabel("ops")))
	props.TestingRun(t)
}

// TestPropFairness: n VOQs with equal backlog and equal credit, served as
// Next says, are served in turn: over any window of consecutive services
// the service counts of any two VOQs differ by at most 1.
func TestPropFairness(t *testing.T) {
	props := properties(200)
	props.Property("equal VOQs: counts differ by ≤ 1 over any window", prop.ForAll(
		func(n, packets int, size int64, mode int) (string, error) {
			cfg := HierCC(n, 1500)
			cfg.Eligibility = Eligibility(mode)
			cfg.InitialCredit = units.Bytes(size) * units.Bytes(packets) // enough for the whole backlog
			m, err := New(cfg)
			if err != nil {
				return "", err
			}
			for k := range n {
				s, _ := m.Open(Key(k))
				for range packets {
					if err := m.Enqueue(s, units.Bytes(size)); err != nil {
						return "", err
					}
				}
			}
			var order []Slot
			for {
				s, ok := m.Next()
				if !ok {
					break
				}
				if _, err := m.Dequeue(s, units.Bytes(size)); err != nil {
					return "", err
				}
				_ = m.SetHead(s, units.Bytes(size)) // CreditCoversHead; refused once empty
				order = append(order, s)
			}
			if len(order) != n*packets {
				return "", fmt.Errorf("served %d packets, want %d", len(order), n*packets)
			}
			for i := range order {
				counts := make([]int, n)
				for j := i; j < len(order); j++ {
					counts[order[j]]++
					lo, hi := counts[0], counts[0]
					for _, c := range counts {
						lo, hi = min(lo, c), max(hi, c)
					}
					if hi-lo > 1 {
						return "", fmt.Errorf("window [%d, %d]: counts %v", i, j, counts)
					}
				}
			}
			return "", nil
		},
		gen.IntRange(1, 12).WithLabel("VOQs"), gen.IntRange(1, 12).WithLabel("packets each"),
		gen.Int64Range(1, 1500).WithLabel("packet size"), gen.IntRange(0, 2).WithLabel("eligibility")))
	props.TestingRun(t)
}

// TestPropWithinOneRound: with arrivals and credits interleaved at random
// and the caller serving what Next returns, a VOQ that becomes eligible
// while A VOQs are eligible (itself included) is served within the next A
// services, and after each service it waits at most one round again.
func TestPropWithinOneRound(t *testing.T) {
	props := properties(200)
	props.Property("every eligible VOQ is served within one round", prop.ForAll(
		func(cfg Config, ops []op) (string, error) {
			m, err := New(cfg)
			if err != nil {
				return "", err
			}
			for k := range cfg.Slots {
				_, _ = m.Open(Key(k))
			}
			deadline := make([]int, cfg.Slots) // 0: not eligible
			services := 0
			for i, o := range ops {
				o = sized(cfg, o)
				s := Slot(o.Key % uint32(cfg.Slots))
				served := Slot(1<<32 - 1)
				switch o.Kind {
				case opServe, opDequeue:
					ns, ok := m.Next()
					if !ok {
						continue
					}
					st, _ := m.State(ns)
					n := st.Head
					if n == 0 {
						n = min(st.Queued, cfg.MaxPacket)
					}
					if _, err := m.Dequeue(ns, n); err != nil {
						return "", fmt.Errorf("op %d: serving Next: %v", i, err)
					}
					services++
					served = ns
					deadline[ns] = 0
				case opEnqueue:
					_ = m.Enqueue(s, units.Bytes(o.N))
				case opAddCredit:
					_ = m.AddCredit(s, units.Bytes(o.N))
				default:
					_ = m.SetHead(s, units.Bytes(o.N))
				}
				for k := range deadline {
					switch {
					case !m.Eligible(Slot(k)):
						deadline[k] = 0
					case deadline[k] == 0:
						deadline[k] = services + m.Active()
					case services >= deadline[k] && Slot(k) != served:
						return "", fmt.Errorf("op %d: slot %d eligible, not served by service %d", i, k, deadline[k])
					}
				}
			}
			return "", nil
		}, genConfig().WithLabel("config"), genOps().WithLabel("ops")))
	props.TestingRun(t)
}
