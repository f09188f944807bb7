// Command vendorpart shows a vendor's own part exported through hwcc's C
// ABI without forking it: a main package that imports package capi (the
// ABI's functions) and registers its part in package cc, built as a C
// library, which a C program then drives by name, as it drives hwcc's:
//
//	go build -buildmode=c-archive -o libvendor.a ./examples/vendorpart
//	cc -I capi -o drive examples/vendorpart/c/drive.c libvendor.a -lpthread -ldl
//
// The part, "acme" "cp", is a congestion point of the kind a switch vendor
// adds: an ECN step marker with a hysteresis band, marking every packet
// that joins a queue above high until the queue has fallen to low. Its
// registers are a vendor's too: the marking state and the count of marks.
package main

import (
	"strconv"

	_ "github.com/hwcc/hwcc/capi" // hwcc's C ABI, with every part registered in cc
	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

func main() {}

// Hysteresis is the vendor's congestion point: from below low it starts
// marking when a packet joins a queue longer than high, and stops when a
// packet joins or leaves a queue of low bytes or less.
//
// Registers: now (64 bits, ps), marking (1 bit), marks (64 bits, wrapping).
type Hysteresis struct {
	cfg     HysteresisConfig
	time    cc.Monotonic
	marking bool
	marks   uint64
}

var _ cc.CongestionPoint = (*Hysteresis)(nil)

// HysteresisConfig is the marker's two thresholds, each 0..MaxThreshold.
type HysteresisConfig struct {
	Low, High units.Bytes
}

// MaxThreshold is the largest threshold: 64 MB, a switch buffer.
const MaxThreshold = 64 * units.MB

// NewHysteresis validates cfg (Low ≤ High ≤ MaxThreshold).
func NewHysteresis(cfg HysteresisConfig) (*Hysteresis, error) {
	if cfg.Low < 0 || cfg.High < cfg.Low || cfg.High > MaxThreshold {
		return nil, &cc.ConfigError{Part: "acme cp", Field: "high", Value: cfg.High.String(),
			Range: "low.." + MaxThreshold.String() + " (low = " + cfg.Low.String() + ")"}
	}
	return &Hysteresis{cfg: cfg}, nil
}

// Enqueue marks p when the marker is on after the queue q.Len it joined.
func (h *Hysteresis) Enqueue(now units.Time, p *cc.Packet, q cc.Queue, act *cc.Actions) error {
	if err := h.time.Check("acme cp", "Enqueue", now); err != nil {
		return err
	}
	switch {
	case act == nil:
		return cc.NoActions("acme cp", "Enqueue") // it can mark
	case p == nil:
		return &cc.EventError{Part: "acme cp", Event: "Enqueue", Reason: "nil packet"}
	}
	on := h.marking
	switch {
	case q.Len > h.cfg.High:
		on = true
	case q.Len <= h.cfg.Low:
		on = false
	}
	if on {
		if err := act.Reserve("acme cp", "Enqueue", 1); err != nil {
			return err
		}
		act.MarkCE()
		h.marks++
	}
	h.marking = on
	h.time.Advance(now)
	return nil
}

// Dequeue turns the marker off when the queue left behind is low bytes or
// less; it never decides.
func (h *Hysteresis) Dequeue(now units.Time, p *cc.Packet, q cc.Queue, _ *cc.Actions) error {
	if err := h.time.Check("acme cp", "Dequeue", now); err != nil {
		return err
	}
	if p == nil {
		return &cc.EventError{Part: "acme cp", Event: "Dequeue", Reason: "nil packet"}
	}
	if q.Len <= h.cfg.Low {
		h.marking = false
	}
	h.time.Advance(now)
	return nil
}

// NextDeadline is units.MaxTime: the marker has no timer.
func (h *Hysteresis) NextDeadline() units.Time { return units.MaxTime }

// Timer records now.
func (h *Hysteresis) Timer(now units.Time, _ *cc.Actions) error {
	return h.time.Accept("acme cp", "Timer", now)
}

// AppendRegisters appends now, marking and marks.
func (h *Hysteresis) AppendRegisters(dst []cc.Register) []cc.Register {
	m := uint64(0)
	if h.marking {
		m = 1
	}
	return append(dst, h.time.Register(), cc.Reg("marking", 1, m), cc.Reg("marks", 64, h.marks))
}

// The registration that makes "acme" reachable through the C ABI (and
// through cc.New, trace replay and hwcc's harness, to a main that imports
// this package's registration).
func init() {
	max := MaxThreshold.String()
	cc.MustRegisterAlgorithm(cc.Algorithm{
		Name: "acme", Title: "ACME hysteresis marker",
		Paper: "a vendor's own part (examples/vendorpart)",
		Doc:   "an ECN step marker with a hysteresis band",
		Parts: []cc.PartSpec{{
			Name: "cp", Role: cc.RoleCP, Doc: "marks from above high down to low",
			Config: &cc.Spec[HysteresisConfig]{
				Presets: []cc.Preset[HysteresisConfig]{{
					Name: "default", Doc: "low " + strconv.Itoa(int(defaultLow)) + " B, high " + strconv.Itoa(int(defaultHigh)) + " B",
					Source: "the vendor", Config: cc.Fixed(func() HysteresisConfig { return HysteresisConfig{Low: defaultLow, High: defaultHigh} }),
				}},
				Fields: []cc.Field[HysteresisConfig]{
					{Param: cc.Param{Name: "low", Min: "0B", Max: max, Doc: "the queue at or below which marking stops", Source: "the vendor"},
						Ptr: func(c *HysteresisConfig) any { return &c.Low }},
					{Param: cc.Param{Name: "high", Min: "0B", Max: max, Doc: "the queue above which marking starts", Source: "the vendor"},
						Ptr: func(c *HysteresisConfig) any { return &c.High }},
				},
				New: func(c HysteresisConfig) (cc.Part, error) { return NewHysteresis(c) },
			},
		}},
		Deploy: cc.Deployment{RP: "-", Doc: "a lone congestion point, driven through the C ABI"},
	})
}

// The default thresholds.
const (
	defaultLow  = 20 * units.KB
	defaultHigh = 60 * units.KB
)
