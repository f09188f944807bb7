package voq

import (
	"errors"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// fuzzConfig turns fuzz arguments into a valid, small Config (so that the
// table fills, queues hit their limit and credit overflows quickly).
func fuzzConfig(mode, keys, slots uint8, maxPacket uint16, queueLimit, maxCredit, c0 uint32) Config {
	k := 1 + int(keys%16)
	mp := 1 + units.Bytes(maxPacket%2000)
	mc := mp + units.Bytes(maxCredit%20000)
	return Config{
		Keys:          k,
		Slots:         1 + int(slots)%k,
		Eligibility:   Eligibility(mode % 3),
		MaxPacket:     mp,
		QueueLimit:    mp + units.Bytes(queueLimit%8000),
		MaxCredit:     mc,
		InitialCredit: units.Bytes(c0) % (mc + 1),
	}
}

// decodeOps reads 4 bytes per operation: kind, key (bit 7: raw slot),
// and a 16-bit length. Lengths reach just past MaxPacket so that sizes on
// both sides of every limit occur; AddCredit takes the raw 16 bits − 1.
func decodeOps(cfg Config, b []byte, max int) []op {
	ops := make([]op, 0, len(b)/4)
	for len(b) >= 4 && len(ops) < max {
		kind := opKind(b[0] % uint8(numOps))
		if kind == opReset && b[0] < 200 { // keep resets rare
			kind = opServe
		}
		raw := b[1]&0x80 != 0
		key := uint32(b[1]&0x7f) % uint32(cfg.Keys+2)
		v := int64(b[2])<<8 | int64(b[3])
		n := v%(int64(cfg.MaxPacket)+3) - 1 // −1..MaxPacket+1
		switch kind {
		case opAddCredit:
			n = v - 1
		case opServe:
			if b[2]&1 == 0 {
				n = 0 // serve the head packet
			}
		}
		ops = append(ops, op{Kind: kind, Key: key, N: n, Raw: raw})
		b = b[4:]
	}
	return ops
}

// FuzzManager drives a Manager through an arbitrary sequence of
// operations and checks it against the reference model after each one:
// which operations are refused and with which sentinel, every register,
// the round robin's choice, and byte conservation. It also feeds the raw
// configuration to New, which must refuse it with a *cc.ConfigError or
// accept it, never panic.
func FuzzManager(f *testing.F) {
	f.Add(uint8(0), uint8(3), uint8(3), uint16(1499), uint32(6000), uint32(10000), uint32(10000),
		[]byte{0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 5, 220, 2, 1, 5, 220, 4, 0, 0, 0, 4, 0, 0, 0})
	f.Add(uint8(1), uint8(4), uint8(2), uint16(999), uint32(3000), uint32(1000), uint32(500),
		[]byte{0, 2, 0, 0, 2, 2, 3, 232, 2, 2, 1, 0, 4, 0, 0, 0, 5, 2, 1, 244, 4, 0, 0, 0, 6, 2, 1, 0, 4, 0, 0, 0})
	f.Add(uint8(2), uint8(1), uint8(0), uint16(0), uint32(0), uint32(0), uint32(0),
		[]byte{0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 9, 201, 0, 0})
	f.Add(uint8(0), uint8(15), uint8(15), uint16(1999), uint32(7999), uint32(19999), uint32(0),
		[]byte{0, 0x85, 0, 0, 2, 0x80, 0, 10, 5, 0, 0xff, 0xff, 5, 0, 0, 0})
	f.Fuzz(func(t *testing.T, mode, keys, slots uint8, maxPacket uint16, queueLimit, maxCredit, c0 uint32, events []byte) {
		raw := Config{Keys: int(keys), Slots: int(slots), Eligibility: Eligibility(mode), MaxPacket: units.Bytes(maxPacket),
			QueueLimit: units.Bytes(queueLimit), MaxCredit: units.Bytes(maxCredit), InitialCredit: units.Bytes(c0)}
		if _, err := New(raw); err != nil {
			var ce *cc.ConfigError
			if !errors.As(err, &ce) || !errors.Is(err, cc.ErrConfig) {
				t.Fatalf("New(%+v): %v is not a *cc.ConfigError", raw, err)
			}
		}
		cfg := fuzzConfig(mode, keys, slots, maxPacket, queueLimit, maxCredit, c0)
		h, err := newHarness(cfg)
		if err != nil {
			t.Fatalf("New(%+v): %v", cfg, err)
		}
		for i, o := range decodeOps(cfg, events, 512) {
			if _, err := h.step(o); err != nil {
				t.Fatalf("op %d %v (config %+v): %v", i, o, cfg, err)
			}
		}
	})
}
