package cp_test

import (
	"slices"
	"testing"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/cc/cctest"
	"github.com/hwcc/hwcc/cp"
	"github.com/hwcc/hwcc/units"
)

// FuzzBECN drives a congestion point, its mode, judging point and table
// size from the first byte, with cctest.FromBytes events: besides
// fuzzDrive's rules, every decision is one the mode makes (a notification
// of the packet's flow to its source in BECNModeBECN, a mark in BECNModeFECN), at
// most one per event, only for a packet judged above the threshold.
func FuzzBECN(f *testing.F) {
	f.Add([]byte{0, 1, 0, 10, 0, 0, 0, 3, 0, 0, 0, 0xff, 0x30, 0, 0, 0, 0})
	f.Add(append([]byte{1}, make([]byte, 64)...))
	f.Add(append([]byte{6}, slices.Repeat([]byte{1, 0, 1, 0, 4, 0, 5, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0}, 8)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		cfg := cp.BECNSurvey(cp.BECNMode(data[0]&1), 25*units.Gbps)
		cfg.At = cp.BECNPoint(data[0] >> 1 & 1)
		cfg.TableBits = data[0] >> 2 & 3
		cfg.MinInterval = units.Time(data[0]>>4) * becnUs
		c, err := cp.NewBECN(cfg)
		if err != nil {
			t.Fatal(err)
		}
		fuzzDrive(t, c, cctest.FromBytes(data[1:], cc.RoleCP), func(ev *cctest.Event, act *cc.Actions) {
			if act.Len() == 0 {
				return
			}
			at := cp.BECNAtEnqueue
			if ev.Kind == cc.EventDequeue {
				at = cp.BECNAtDequeue
			}
			if act.Len() > 1 || ev.Kind == cc.EventTimer || at != cfg.At || ev.Queue.Len <= cfg.Threshold {
				t.Fatalf("%v: decided %v", ev, act.All())
			}
			want := cc.Action{Kind: cc.ActionMarkCE}
			if cfg.Mode == cp.BECNModeBECN {
				want = becnTo(ev.Packet.Flow)
			}
			if act.At(0) != want {
				t.Fatalf("%v: decided %v, want %v", ev, act.At(0), want)
			}
		})
	})
}
