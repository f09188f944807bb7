package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hwcc/hwcc/units"
)

// Frame sizes of the headroom formula, from first principles rather than
// the package constants: a maximum data frame is the 62 bytes of headers
// (Ethernet 14, FCS 4, IPv4 20, UDP 8, BTH 12, ICRC 4), the payload, the
// largest INT header (2-byte prefix + 8 bytes for each of the 15 hops a
// 4-bit nHop counts = 122 bytes) and the 20 bytes of preamble, SFD and
// inter-frame gap; a PFC frame is a 64-byte minimum MAC control frame.
const (
	poolHeaders  = 14 + 4 + 20 + 8 + 12 + 4
	poolINTMax   = 2 + 8*15
	poolPFCFrame = 64
)

// poolPort is one switch port of the reference model: its link's rate
// (bit/s) and propagation delay (ps).
type poolPort struct {
	rate  int64
	delay int64
}

// wantHeadroom is the automatic PFC headroom of a port by the formula of
// headroomFor's comment, 2·rate·delay + 3·maxFrame + PFC frame (wire
// bytes), computed from the link and frame sizes alone. Every case below
// has rate·delay a whole number of bytes, so the integer division is exact.
func wantHeadroom(p poolPort, payload, preamble int64) units.Bytes {
	inFlight := 2 * p.rate * p.delay / (8 * 1_000_000_000_000) // bit/s · ps → bytes
	maxFrame := poolHeaders + payload + poolINTMax + preamble
	return units.Bytes(inFlight + 3*maxFrame + poolPFCFrame + preamble)
}

// repeatPorts returns n copies of p.
func repeatPorts(n int, p poolPort) []poolPort {
	out := make([]poolPort, n)
	for i := range out {
		out[i] = p
	}
	return out
}

// TestPoolSizesEachSwitch: with switch.pool = P each switch's buffer (the
// cpInfo.Buffer of its queues) is P plus the headroom of its own ports with
// PFC on, and P alone with PFC off, whatever switch.buffer says; with PFC on
// the shared pool (sharedFree) starts at exactly P however many ports the
// switch has. The expected headroom comes from wantHeadroom, not from the
// harness's headroomFor.
func TestPoolSizesEachSwitch(t *testing.T) {
	const g, us = 1_000_000_000, 1_000_000 // bit/s, ps
	port100 := poolPort{100 * g, 1 * us}
	cases := []struct {
		name       string
		topo       TopologySpec
		flow       FlowSpec
		pool       units.Bytes
		pfc        bool
		headroom   units.Bytes // switch.headroom; 0: automatic
		noPreamble bool
		payload    int64
		switches   map[string][]poolPort // each switch's ports
	}{
		{
			name: "star of 5, 1 MB", topo: TopologySpec{Kind: "star", Hosts: 5}, flow: FlowSpec{Src: "h1", Dst: "h0"},
			pool: units.MB, pfc: true, payload: 1000,
			switches: map[string][]poolPort{"s0": repeatPorts(5, port100)},
		},
		{
			// The motivating case: a paper's 5 MB bottleneck on a star
			// switch with 101 ports.
			name: "star of 101, 5 MB", topo: TopologySpec{Kind: "star", Hosts: 101}, flow: FlowSpec{Src: "h1", Dst: "h0"},
			pool: 5 * units.MB, pfc: true, payload: 1000,
			switches: map[string][]poolPort{"s0": repeatPorts(101, port100)},
		},
		{
			// Ports of two speeds and a 2 µs delay: each switch sums its own.
			name: "dumbbell 2+3 hosts, 25G core, 2us",
			topo: TopologySpec{Kind: "dumbbell", Left: 2, Right: 3, CoreLink: Rate(25 * units.Gbps), Delay: Time(2 * units.Microsecond)},
			flow: FlowSpec{Src: "l0", Dst: "r0"}, pool: 300 * units.KB, pfc: true, payload: 1000,
			switches: map[string][]poolPort{
				"s0": append(repeatPorts(2, poolPort{100 * g, 2 * us}), poolPort{25 * g, 2 * us}),
				"s1": append(repeatPorts(3, poolPort{100 * g, 2 * us}), poolPort{25 * g, 2 * us}),
			},
		},
		{
			name: "4000-byte payload, no preamble", topo: TopologySpec{Kind: "star", Hosts: 3}, flow: FlowSpec{Src: "h1", Dst: "h0"},
			pool: 2 * units.MB, pfc: true, noPreamble: true, payload: 4000,
			switches: map[string][]poolPort{"s0": repeatPorts(3, port100)},
		},
		{
			name: "explicit headroom", topo: TopologySpec{Kind: "star", Hosts: 7}, flow: FlowSpec{Src: "h1", Dst: "h0"},
			pool: units.MB, pfc: true, headroom: 64 * units.KB, payload: 1000,
			switches: map[string][]poolPort{"s0": repeatPorts(7, port100)},
		},
		{
			name: "PFC off", topo: TopologySpec{Kind: "star", Hosts: 9}, flow: FlowSpec{Src: "h1", Dst: "h0"},
			pool: 700 * units.KB, pfc: false, payload: 1000,
			switches: map[string][]poolPort{"s0": repeatPorts(9, port100)},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := DefaultScenario()
			sc.Topology = c.topo
			sc.Workload.Flows = []FlowSpec{c.flow}
			sc.Switch.Pool = Bytes(c.pool)
			sc.Switch.Buffer = Bytes(10 * units.KB) // ignored: far too small for the headroom
			sc.Switch.PFC = c.pfc
			sc.Switch.Headroom = Bytes(c.headroom)
			sc.NIC.NoPreamble = c.noPreamble
			sc.NIC.Payload = Bytes(c.payload)
			s, err := New(sc, Options{NoSeries: true})
			require.NoError(t, err)
			preamble := int64(20)
			if c.noPreamble {
				preamble = 0
			}
			for name, ports := range c.switches {
				n := s.byName[name]
				require.NotNil(t, n, name)
				require.Len(t, n.ports, len(ports), "%s's port count", name)
				var reserve units.Bytes
				for _, p := range ports {
					h := c.headroom
					if h == 0 {
						h = wantHeadroom(p, c.payload, preamble)
					}
					reserve += h
				}
				want := c.pool
				if c.pfc {
					want += reserve
				}
				for _, pt := range n.ports {
					require.Equal(t, want, pt.queue.info.Buffer, "cpInfo.Buffer of %s", pt.name)
				}
				// The pool proper: all of it free before any traffic.
				if c.pfc {
					require.Equal(t, c.pool, s.sharedFree(n), "%s's shared pool", name)
				}
			}
		})
	}
	// The automatic headroom at 100 Gb/s and 1 µs, worked once by hand:
	// 2·12 500 + 3·(62 + 1000 + 122 + 20) + 64 + 20 = 25 000 + 3 612 + 84.
	require.Equal(t, units.Bytes(28_696), wantHeadroom(port100, 1000, 20))
}

// poolIncast is a 64-to-1 incast of 100 KB flows at line rate on a star of
// 65 hosts at 100 Gb/s and 1 µs, with PFC on and Xoff at its 500 KB
// default.
func poolIncast() *Scenario {
	sc := DefaultScenario()
	sc.Name = "pool-incast"
	sc.Workload.Incast = []IncastSpec{{Senders: 64, Size: Bytes(100 * units.KB)}}
	sc.Duration = Time(units.Millisecond)
	return sc
}

// reportJSON returns r's report as JSON.
func reportJSON(t *testing.T, r *Result) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, r.Report.WriteJSON(&b))
	return b.String()
}

// TestPoolIncastLosslessOnASmallPool: 64 senders into one port of a
// 65-port switch with a 1 MB shared pool. 65 ports' headroom (65 ×
// 28 696 B = 1.87 MB) does not fit a 1 MB buffer, so switch.buffer = 1 MB
// is refused; switch.pool = 1 MB runs lossless, uses the pool and stays
// within pool + headroom. It is the same switch as switch.buffer = 1 MB +
// 1.87 MB: the two reports are equal.
func TestPoolIncastLosslessOnASmallPool(t *testing.T) {
	const senders, ports = 64, 65
	pool := units.MB
	head := wantHeadroom(poolPort{100_000_000_000, 1_000_000}, 1000, 20)
	require.Greater(t, ports*head, pool, "the test needs a headroom reserve above the pool")

	// Buffer = 1 MB, no pool: the reserve does not fit.
	old := poolIncast()
	old.Switch.Buffer = Bytes(pool)
	_, err := Run(old, Options{NoSeries: true})
	require.ErrorContains(t, err, "cannot hold the PFC headroom")

	sc := poolIncast()
	sc.Switch.Pool = Bytes(pool)
	r, err := Run(sc, Options{NoSeries: true})
	require.NoError(t, err)
	require.Zero(t, r.Report.Drops)
	require.Zero(t, r.Counters.Drops)
	require.Zero(t, r.Counters.HeadroomDrops)
	require.Positive(t, r.Report.PFC.Pauses)
	require.Len(t, r.Report.Flows, senders)
	for _, f := range r.Report.Flows {
		require.NotNil(t, f.FCTNs, "flow %d did not finish", f.ID)
		require.Equal(t, int64(100_000), f.Bytes)
	}

	var bottleneck *PortResult
	for i := range r.Ports {
		if r.Ports[i].Link == "s0->h0" {
			bottleneck = &r.Ports[i]
		}
	}
	require.NotNil(t, bottleneck)
	// Upper bound. An ingress is paused at the first arrival that finds
	// its count at or above what is left of the pool, so once the pool is
	// exhausted (free ≤ 0) every arrival pauses its ingress; after its
	// PAUSE an ingress admits only what was already in flight, at most
	// pfcHeadroom (physics_test.go: 2·rate·delay + 2 frames + the PFC
	// frame, 27 248 B at 100 Gb/s and 1 µs, the bound without the INT and
	// one-frame margins of the harness's headroom). So the buffer holds at
	// most the pool, one frame that crossed it, and that in-flight bound
	// for each of the 64 ingresses that carry data (h0 sends only ACKs,
	// which are not buffered): 2.745 MB. The admission cap, pool + 65 ×
	// 28 696 B = 2.865 MB, is looser. The bottleneck queue holds nothing
	// else: only data goes toward h0 (ACKs go the other way).
	frame := units.Bytes(testPayload + wireExtra)
	upper := pool + frame + senders*pfcHeadroom(DefaultLink, DefaultDelay)
	require.LessOrEqual(t, bottleneck.MaxBytes, upper)
	require.LessOrEqual(t, r.Counters.MaxBufferUsed, upper)
	// Lower bound: the pool is really used. 64·Xoff = 32 MB is far above
	// the pool, so the 64 ingresses, filling at the same rate, are paused
	// by the shared pool when each holds about pool/65 (its count reaches
	// what is left free), i.e. with 64/65 of the pool in the buffer. Then
	// what is on the wire lands: each sender's link holds rate·delay =
	// 12.5 KB in flight and the sender sends for another delay before the
	// PAUSE arrives, 25 KB per ingress, while the bottleneck drains 25 KB
	// in those 2 µs (one port's worth). Asserting only the pool itself
	// leaves 64·25 KB − 25 KB − pool/65 ≈ 1.56 MB of slack for the
	// approximations (senders starting out of phase, frame granularity).
	require.Greater(t, bottleneck.MaxBytes, pool)
	t.Logf("bottleneck max %v, buffer max %v, bounds (%v, %v]", bottleneck.MaxBytes, r.Counters.MaxBufferUsed, pool, upper)

	// The same switch described by its whole buffer: the same run.
	same := poolIncast()
	same.Switch.Buffer = Bytes(pool + ports*head)
	r2, err := Run(same, Options{NoSeries: true})
	require.NoError(t, err)
	require.Equal(t, reportJSON(t, r2), reportJSON(t, r))
}

// TestPoolWithoutPFCIsTheWholeBuffer: with PFC off, switch.pool is the
// whole buffer (no headroom is reserved) and switch.buffer is ignored:
// four line-rate senders into one port tail-drop once the data in the
// switch would exceed the pool, and the buffer fills to within one frame
// of it.
func TestPoolWithoutPFCIsTheWholeBuffer(t *testing.T) {
	pool := 60 * units.KB
	mk := func() *Scenario {
		sc, err := Builtin("line-rate-2to1")
		require.NoError(t, err)
		// A short timeout lets the tail-drop losers resume, as in
		// TestLossyDropsAndConservation.
		require.NoError(t, sc.SetAll([]string{"senders=4", "pfc=off", "duration=300us", "measure_from=0s", "rto=20us"}))
		return sc
	}
	sc := mk()
	require.NoError(t, sc.SetAll([]string{"pool=60KB", "buffer=10KB"})) // buffer is ignored
	s, err := New(sc, Options{NoSeries: true})
	require.NoError(t, err)
	for _, pt := range s.byName["s0"].ports {
		require.Equal(t, pool, pt.queue.info.Buffer)
	}
	r, err := s.Run()
	require.NoError(t, err)
	require.Positive(t, r.Report.Drops)
	require.Zero(t, r.Counters.HeadroomDrops, "no PFC, no headroom drops")
	require.Zero(t, r.Report.PFC.Pauses)
	require.LessOrEqual(t, r.Counters.MaxBufferUsed, pool)
	// A frame is dropped only when it does not fit, i.e. when the buffer
	// holds more than pool − frame (1082 wire bytes): so it got there.
	require.Greater(t, r.Counters.MaxBufferUsed, pool-(testPayload+wireExtra))
	c := r.Counters
	require.Equal(t, c.DataSentPayload, c.DataRecvPayload+c.DroppedDataPayload+c.InFlightDataPayload)

	// The same run as a 60 KB buffer without a pool.
	same := mk()
	require.NoError(t, same.Set("buffer", "60KB"))
	r2, err := Run(same, Options{NoSeries: true})
	require.NoError(t, err)
	require.Equal(t, reportJSON(t, r2), reportJSON(t, r))
}

func TestPoolSettings(t *testing.T) {
	// Validate names the field.
	sc, err := Builtin("single-flow")
	require.NoError(t, err)
	sc.Switch.Pool = Bytes(-units.MB)
	require.ErrorContains(t, sc.Validate(), "switch.pool = -1MB: want >= 0 (0: use switch.buffer)")
	// Above 1 PB both are refused, so that pool + Σ headroom cannot wrap
	// (int64 holds 9.2e18 B; 1e15 B plus any port count's headroom fits).
	sc.Switch.Pool = Bytes(math.MaxInt64)
	require.ErrorContains(t, sc.Validate(), "switch.pool = ")
	require.ErrorContains(t, sc.Validate(), "and at most 1000000GB")
	sc.Switch.Pool = MaxBuffer
	require.NoError(t, sc.Validate())
	sc.Switch.Buffer = MaxBuffer + 1
	require.ErrorContains(t, sc.Validate(), "switch.buffer = ")
	sc.Switch.Buffer = Bytes(DefaultBuffer)
	sc.Switch.Headroom = MaxBuffer + 1
	require.ErrorContains(t, sc.Validate(), "switch.headroom = ")
	sc.Switch.Headroom = 0
	sc.Switch.Pool = 0
	require.NoError(t, sc.Validate())

	// Headroom within the bound per port whose sum over the ports is not:
	// 3 ports of 0.4 PB on line-rate-2to1's switch reserve 1.2 PB. Without
	// the check the sum of 4e18-byte headrooms wrapped negative and the run
	// went on with a negative buffer (frames dropped, no error).
	lr, err := Builtin("line-rate-2to1")
	require.NoError(t, err)
	require.NoError(t, lr.SetAll([]string{"headroom=400000GB", "pool=5MB", "duration=100us", "measure_from=0us"}))
	require.NoError(t, lr.Validate())
	_, err = New(lr, Options{NoSeries: true})
	require.ErrorContains(t, err, "the PFC headroom of its ports exceeds 1000000GB")

	// -set pool=…, by Set and SetAll; listed among the keys with a help.
	require.NoError(t, sc.Set("pool", "5MB"))
	require.Equal(t, Bytes(5*units.MB), sc.Switch.Pool)
	require.NoError(t, sc.SetAll([]string{"pool=2.5MB", "buffer=1MB"}))
	require.Equal(t, Bytes(2_500_000), sc.Switch.Pool)
	require.Equal(t, Bytes(units.MB), sc.Switch.Buffer)
	require.NoError(t, sc.Validate())
	require.Contains(t, sc.Keys(), "pool")
	err = sc.Set("pool", "-1MB")
	require.Error(t, err)
	require.Contains(t, err.Error(), "pool", "the error names the key")
	var help string
	for _, h := range sc.Help() {
		if strings.HasPrefix(h, "pool: ") {
			help = h
		}
	}
	require.Contains(t, help, "headroom")

	// JSON: strict decoding accepts "pool"; it round-trips; 0 is left out.
	in := `{"workload":{"fan_in":{"senders":1}},"switch":{"buffer":"1MB","pool":"5MB"}}`
	d, err := DecodeScenario(strings.NewReader(in))
	require.NoError(t, err)
	require.Equal(t, Bytes(5*units.MB), d.Switch.Pool)
	require.Equal(t, Bytes(units.MB), d.Switch.Buffer)
	require.True(t, d.Switch.PFC, "omitted fields keep their defaults")
	b, err := json.Marshal(d)
	require.NoError(t, err)
	require.Contains(t, string(b), `"pool":"5MB"`)
	back, err := DecodeScenario(bytes.NewReader(b))
	require.NoError(t, err)
	require.Equal(t, d, back)
	b, err = json.Marshal(DefaultScenario())
	require.NoError(t, err)
	require.NotContains(t, string(b), "pool", "omitempty: scenarios without a pool marshal as before")
	_, err = DecodeScenario(strings.NewReader(`{"workload":{"fan_in":{"senders":1}},"switch":{"pool":-5}}`))
	require.ErrorContains(t, err, "scenario.switch.pool")
	_, err = DecodeScenario(strings.NewReader(`{"switch":{"poool":"1MB"}}`))
	require.ErrorContains(t, err, `unknown field "poool" (allowed: buffer, `)
	require.ErrorContains(t, err, ", pool, ", "the misspelt field's neighbour is listed")
}

// TestPoolRejectionMessage: the error for a buffer too small for the
// headroom points to switch.pool.
func TestPoolRejectionMessage(t *testing.T) {
	sc := poolIncast()
	sc.Switch.Buffer = Bytes(units.MB)
	_, err := New(sc, Options{NoSeries: true})
	require.ErrorContains(t, err, fmt.Sprintf("switch s0: buffer 1MB cannot hold the PFC headroom of its 65 ports (%v)", 65*wantHeadroom(poolPort{100_000_000_000, 1_000_000}, 1000, 20)))
	require.ErrorContains(t, err, "switch.pool")
}
