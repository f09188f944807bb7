package capi

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hwcc/hwcc/cc"
	inttel "github.com/hwcc/hwcc/int"
	"github.com/hwcc/hwcc/units"
)

// The C side of these tests: testdata/abi_test.c, compiled against the
// archive (and the shared library) go build makes of ./libhwcc, run,
// and its output compared line by line with expected(), which drives the
// same events through package cc directly.

// errLen is ERRLEN of abi_test.c: messages are cut to errLen-1 bytes.
const errLen = 256

// lines collects expected output in abi_test.c's format.
type lines struct{ b strings.Builder }

func (l *lines) f(format string, a ...any) { fmt.Fprintf(&l.b, format+"\n", a...) }

func (l *lines) fail(label string, err error) {
	l.refused(label, codeOf(err), err.Error())
}

// refused is the report of an event the ABI layer refuses with code and
// message msg (written out here, not taken from the layer under test).
func (l *lines) refused(label string, code int, msg string) {
	l.f("%s rc=%d", label, code)
	l.f("  err %s", cutUTF8(msg, errLen-1))
}

// telString is print_tel() of abi_test.c: " tel=LEN:HEX", LEN 0 for no
// stack.
func telString(t *cc.Telemetry) string {
	if t == nil {
		return " tel=0:"
	}
	return fmt.Sprintf(" tel=%d:%x", len(t.Bytes()), t.Bytes())
}

func (l *lines) feedback(f *cc.Feedback) {
	l.f("  fb kind=%d flow=%d from=%d seq=%d acked=%d snd_nxt=%d ece=%d data=%x%s",
		f.Kind, f.Flow, f.From, f.Seq, int64(f.Acked), f.SndNxt, b2i(f.ECE), f.Data[:], telString(f.Tel))
}

// event is report() of abi_test.c.
func (l *lines) event(label string, err error, act *cc.Actions) {
	if err != nil {
		l.fail(label, err)
		return
	}
	l.f("%s rc=0 n=%d", label, act.Len())
	for i, a := range act.All() {
		l.f("  act %d kind=%d to=%d prio=%d switch=%d node=%d port=%d bytes=%d",
			i, a.Kind, a.To, a.Prio, a.Switch, a.Node, a.Port, int64(a.Bytes))
		if a.Kind == cc.ActionFeedback {
			l.feedback(&a.Feedback)
		}
	}
}

func (l *lines) packet(p *cc.Packet) {
	l.f("  pkt hdr=%x%s", p.Hdr[:], telString(p.Tel))
}

// state is state() of abi_test.c.
func (l *lines) state(p cc.Part) {
	l.f("  deadline=%d", int64(p.NextDeadline()))
	if rp, ok := p.(cc.ReactionPoint); ok {
		lim := rp.Limits()
		l.f("  limits rc=0 rate=%d window=%d credited=%d credit=%d", int64(lim.Rate), int64(lim.Window), b2i(lim.Credited), int64(lim.Credit))
	}
	regs := p.AppendRegisters(nil)
	l.f("  regs rc=0 n=%d", len(regs))
	for _, r := range regs {
		l.f("  reg %s %d %d %d", cutUTF8(r.Name, 31), r.Width, b2i(r.Signed), r.Value)
	}
}

func (l *lines) make(label, algo, part, settings string, env *cc.Env) cc.Part {
	st, err := cc.ParseSettings(settings)
	var p cc.Part
	if err == nil {
		p, err = cc.NewIn(env, algo, part, st)
	}
	if err != nil {
		l.fail(label, err)
		return nil
	}
	a, _ := cc.Lookup(algo)
	ps, _ := a.Part(part)
	l.f("%s rc=0 role=%d", label, ps.Role)
	l.state(p)
	return p
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// intStack is the telemetry stack of INT header h in inttel's wire form,
// the bytes abi_test.c's int_put writes by hand.
func intStack(h *inttel.Header) *cc.Telemetry {
	c, err := inttel.NewCodec(inttel.DefaultConfig())
	if err != nil {
		panic(err)
	}
	var t cc.Telemetry
	if err := c.Put(&t, h); err != nil {
		panic(err)
	}
	return &t
}

// hpccINT is hpcc_int() of abi_test.c.
func hpccINT(ts, tx uint32) *cc.Telemetry {
	h := &inttel.Header{NHop: 1, PathID: 0x2a}
	h.Hops[0] = inttel.Hop{Speed: 4, TS: ts, TxBytes: tx, QLen: 2031}
	return intStack(h)
}

// The fields of an HPCC switch's INT record (the paper's Figure 7, with
// inttel.DefaultConfig's units), from the port's values: what print_int of
// abi_test.c reads back from a stack a congestion point stamped.
const (
	intSpeed100G = 4                // the speed code of 100 Gb/s: 10, 25, 40, 50, 100 Gb/s are 0..4
	intTSUnit    = units.Nanosecond // ts counts ns
	intTxUnit    = 128              // tx_bytes counts 128 B
	intQLenUnit  = 80               // qlen counts 80 B
)

// expected is the output of abi_test.c's events(), computed through
// package cc.
func expected() string {
	const us = units.Microsecond
	var l lines
	act := cc.NewActions(16)
	ev := func(label string, f func(*cc.Actions) error) {
		act.Reset()
		l.event(label, f(act), act)
	}
	l.f("abi %d header %d live 0", abiVersion, abiVersion)
	l.f("version %s", cc.Version)

	l.make("new-unknown", "nosuch", "cp", "", nil)
	l.make("new-badpart", "rocc", "nosuch", "", nil)
	l.make("new-badvalue", "rocc", "cp", "t=abc", nil)
	l.make("new-badsyntax", "rocc", "cp", "t", nil)
	l.refused("new-null", codeArg, "hwcc: invalid argument: hwcc_part_new: algorithm, part and out must not be NULL")

	// RoCC congestion point.
	env := &cc.Env{Rate: 40 * units.Gbps, Node: 7, Port: 3, SwitchID: 7}
	cp := l.make("rocc-cp new", "rocc", "cp", "preset=auto", env).(cc.CongestionPoint)
	pkt := cc.Packet{Flow: 42, Src: 1, Dst: 2, Payload: 1000, Size: 1500}
	q := cc.Queue{Len: 1500, Rate: 40 * units.Gbps}
	ev("rocc-cp enqueue 0", func(a *cc.Actions) error { return cp.Enqueue(0, &pkt, q, a) })
	l.state(cp)
	ev("rocc-cp timer 0", func(a *cc.Actions) error { return cp.Timer(0, a) })
	l.state(cp)
	pkt.Flow, pkt.Src, q.Len = 43, 4, 300000
	ev("rocc-cp enqueue 10us", func(a *cc.Actions) error { return cp.Enqueue(10*us, &pkt, q, a) })
	pkt.Flow, pkt.Src, q.Len, q.TxBytes = 42, 1, 298500, 1500
	ev("rocc-cp dequeue 20us", func(a *cc.Actions) error { return cp.Dequeue(20*us, &pkt, q, a) })
	l.packet(&pkt)
	tm := cp.NextDeadline()
	l.event("rocc-cp timer-full", cp.Timer(tm, cc.NewActions(0)), nil)
	l.f("  n-after-full=99")
	l.state(cp)
	ev("rocc-cp timer", func(a *cc.Actions) error { return cp.Timer(tm, a) })
	l.state(cp)
	ev("rocc-cp timer-order", func(a *cc.Actions) error { return cp.Timer(us, a) })
	l.refused("rocc-cp sent-role", codeRole, "hwcc: event not of the part's role: a congestion point has no sent event")
	l.refused("rocc-cp enqueue-null", codeArg, "hwcc: invalid argument: enqueue: the packet is NULL")
	l.f("rocc-cp limits rc=%d", codeRole)
	regs := cp.AppendRegisters(nil)
	l.f("rocc-cp registers-short rc=%d n=%d first=%s", codeTruncated, len(regs), regs[0].Name)
	tm = cp.NextDeadline()
	ev("rocc-cp timer-2", func(a *cc.Actions) error { return cp.Timer(tm, a) })
	l.state(cp)

	// HPCC congestion point. Its records are predicted field by field from
	// the port's values (Figure 7's rule: ts = ⌊now/1 ns⌋, tx_bytes =
	// ⌊port bytes/128⌋, qlen = ⌊queue/80⌋, pathID ^= switch ID).
	env = &cc.Env{Rate: 100 * units.Gbps, Node: 5, Port: 1, SwitchID: 0x2a}
	hc := l.make("hpcc-cp new", "hpcc", "cp", "port_tx_bytes=on", env).(cc.CongestionPoint)
	pkt = cc.Packet{Flow: 9, Src: 1, Dst: 2, Payload: 1000, Size: 1082, Tel: intStack(&inttel.Header{})}
	q = cc.Queue{Len: 163582, Rate: 100 * units.Gbps}
	ev("hpcc-cp enqueue 1us", func(a *cc.Actions) error { return hc.Enqueue(us, &pkt, q, a) })
	q.Len, q.TxBytes = 162500, 0
	ev("hpcc-cp dequeue 10us", func(a *cc.Actions) error { return hc.Dequeue(10*us, &pkt, q, a) })
	l.packet(&pkt)
	l.f("  int nhop=1 path=%d hops=%d:%d:%d:%d", 0x2a, intSpeed100G, int64(10*us/intTSUnit), 0/intTxUnit, 162500/intQLenUnit)
	l.state(hc)
	up := &inttel.Header{NHop: 1, PathID: 0x123}
	up.Hops[0] = inttel.Hop{Speed: 2, TS: 22000, TxBytes: 7, QLen: 5}
	pkt.Tel = intStack(up)
	q.Len, q.TxBytes = 800, 162500
	ev("hpcc-cp dequeue 23us", func(a *cc.Actions) error { return hc.Dequeue(23*us, &pkt, q, a) })
	l.packet(&pkt)
	l.f("  int nhop=2 path=%d hops=2:22000:7:5,%d:%d:%d:%d", 0x123^0x2a, intSpeed100G, int64(23*us/intTSUnit), 162500/intTxUnit, 800/intQLenUnit)
	l.refused("hpcc-cp dequeue-telcap", codeArg, "hwcc: invalid argument: dequeue: the packet's tel_len 129 is above 128 (HWCC_TEL_CAP)")
	l.f("  tel_len-after=129")
	pkt.Tel.Len = 17
	ev("hpcc-cp dequeue-badtel", func(a *cc.Actions) error { return hc.Dequeue(24*us, &pkt, q, a) })
	l.packet(&pkt)
	pkt.Tel = nil
	q.Len, q.TxBytes = 0, 163582
	ev("hpcc-cp dequeue-notel", func(a *cc.Actions) error { return hc.Dequeue(24*us, &pkt, q, a) })
	l.packet(&pkt)
	l.state(hc)

	// HPCC reaction point.
	env = &cc.Env{Rate: 100 * units.Gbps, Node: 1}
	hp := l.make("hpcc-rp new", "hpcc", "rp", "", env).(cc.ReactionPoint)
	pkt = cc.Packet{Flow: 9, Src: 1, Dst: 2, Payload: 1000, Size: 1082}
	ev("hpcc-rp sent 0", func(a *cc.Actions) error { return hp.Sent(0, &pkt, a) })
	l.packet(&pkt)
	l.state(hp)
	fb := cc.Feedback{Kind: cc.FeedbackAck, Flow: 9, Seq: 1000, Acked: 1000, SndNxt: 163500, Tel: hpccINT(10000, 0)}
	ev("hpcc-rp ack 12us", func(a *cc.Actions) error { return hp.Feedback(12*us, &fb, a) })
	l.state(hp)
	fb.Seq, fb.Acked, fb.SndNxt, fb.Tel = 163501, 162501, 170000, hpccINT(23000, 1269)
	l.refused("hpcc-rp ack-telcap", codeArg, "hwcc: invalid argument: feedback: the feedback's tel_len 129 is above 128 (HWCC_TEL_CAP)")
	fb.Tel.Len = 9
	ev("hpcc-rp ack-badtel", func(a *cc.Actions) error { return hp.Feedback(25*us, &fb, a) })
	fb.Tel.Len = 10
	ev("hpcc-rp ack 25us", func(a *cc.Actions) error { return hp.Feedback(25*us, &fb, a) })
	l.state(hp)
	fb.Tel, fb.Seq = nil, 170000
	ev("hpcc-rp ack-noint", func(a *cc.Actions) error { return hp.Feedback(26*us, &fb, a) })
	fb = cc.Feedback{Kind: cc.FeedbackCNP, Flow: 9}
	ev("hpcc-rp cnp", func(a *cc.Actions) error { return hp.Feedback(27*us, &fb, a) })
	l.state(hp)

	// DCQCN reaction point.
	dq := l.make("dcqcn-rp new", "dcqcn", "rp", "", env).(cc.ReactionPoint)
	pkt = cc.Packet{Flow: 5, Src: 1, Dst: 3, Payload: 1000, Size: 1082}
	ev("dcqcn-rp sent 0", func(a *cc.Actions) error { return dq.Sent(0, &pkt, a) })
	l.state(dq)
	fb = cc.Feedback{Kind: cc.FeedbackCNP, Flow: 5}
	ev("dcqcn-rp cnp 1us", func(a *cc.Actions) error { return dq.Feedback(us, &fb, a) })
	l.state(dq)
	for i := range 3 {
		tm = dq.NextDeadline()
		ev(fmt.Sprintf("dcqcn-rp timer %d", i), func(a *cc.Actions) error { return dq.Timer(tm, a) })
		l.state(dq)
	}
	pkt.Seq = 1000
	ev("dcqcn-rp sent", func(a *cc.Actions) error { return dq.Sent(tm, &pkt, a) })
	l.state(dq)

	// DCQCN notification point.
	np := l.make("dcqcn-np new", "dcqcn", "np", "", env).(cc.NotificationPoint)
	pkt = cc.Packet{Flow: 5, Src: 1, Dst: 3, Payload: 1000, Size: 1082, CE: true}
	ev("dcqcn-np receive", func(a *cc.Actions) error { return np.Receive(2*us, &pkt, a) })
	l.state(np)
	ev("dcqcn-np receive-2", func(a *cc.Actions) error { return np.Receive(3*us, &pkt, a) })
	for _, ev := range []string{"arrive", "pause", "message"} {
		l.refused("dcqcn-np "+ev+"-role", codeRole, "hwcc: event not of the part's role: a notification point has no "+ev+" event")
	}

	l.f("live 5")
	l.refused("freed timer", codeHandle, "hwcc: invalid or freed part handle")
	l.f("freed role=%d deadline=%d", codeHandle, codeHandle)
	l.f("live 0")
	l.f("strerror actions do not fit|event out of time order|unknown error code")
	return l.b.String()
}

// tools returns the C compiler and the go command, or skips the test.
func tools(t *testing.T) (ccPath, goPath string) {
	t.Helper()
	var err error
	name := os.Getenv("CC")
	if name == "" {
		name = "cc"
	}
	if ccPath, err = exec.LookPath(strings.Fields(name)[0]); err != nil {
		if ccPath, err = exec.LookPath("gcc"); err != nil {
			t.Skipf("no C compiler (%s, gcc) on PATH: the C ABI test needs one", name)
		}
	}
	if goPath, err = exec.LookPath("go"); err != nil {
		goPath = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		if _, err := os.Stat(goPath); os.Getenv("GOROOT") == "" || err != nil {
			t.Skip("no go command found to build the archive")
		}
	}
	return ccPath, goPath
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, stderr.String(), out.String())
	}
	return out.String()
}

// compare reports every line of got that differs from want.
func compare(t *testing.T, what, got, want string) {
	t.Helper()
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	bad := 0
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Errorf("%s line %d:\n C:  %q\n Go: %q", what, i+1, gl, wl)
			if bad++; bad == 10 {
				t.Fatalf("%s: more differences left out", what)
			}
		}
	}
}

// TestCABI builds the package as a C archive and as a shared library,
// checks that hwcc.h compiles as C99 and C++17, runs testdata/abi_test.c
// linked against each library and compares its output with the same events
// driven through package cc, then runs its leak loop.
func TestCABI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the C archive: not in -short")
	}
	ccPath, goPath := tools(t)
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()

	t.Run("header", func(t *testing.T) {
		run(t, here, ccPath, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-x", "c", "-fsyntax-only", "hwcc.h")
		cxx, err := exec.LookPath("c++")
		if err != nil {
			t.Skip("no c++ on PATH")
		}
		run(t, here, cxx, "-std=c++17", "-pedantic", "-Wall", "-Wextra", "-Werror", "-x", "c++", "-fsyntax-only", "hwcc.h")
	})

	want := expected()
	src := filepath.Join(here, "testdata", "abi_test.c")
	cflags := []string{"-std=c99", "-Wall", "-Wextra", "-Werror", "-I", here}

	t.Run("archive", func(t *testing.T) {
		lib := filepath.Join(tmp, "libhwcc.a")
		run(t, here, goPath, "build", "-buildmode=c-archive", "-o", lib, "./libhwcc")
		prog := filepath.Join(tmp, "abi_test_static")
		args := append(append([]string{}, cflags...), "-o", prog, src, lib, "-lpthread")
		if runtime.GOOS == "linux" {
			args = append(args, "-ldl")
		}
		run(t, here, ccPath, args...)
		compare(t, "archive", run(t, here, prog), want)

		out := run(t, here, prog, "leak", "100000")
		if out != "leak count=100000 before=0 after=0\n" {
			t.Errorf("leak loop: %q", out)
		}
	})

	t.Run("shared", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("the shared-library link line is written for Linux")
		}
		dir := filepath.Join(tmp, "shared")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		run(t, here, goPath, "build", "-buildmode=c-shared", "-o", filepath.Join(dir, "libhwcc.so"), "./libhwcc")
		prog := filepath.Join(dir, "abi_test_shared")
		args := append(append([]string{}, cflags...), "-o", prog, src, "-L", dir, "-Wl,-rpath,"+dir, "-lhwcc")
		run(t, here, ccPath, args...)
		compare(t, "shared", run(t, here, prog), want)
	})
}

// The header's constants are the Go values they mirror.
func TestConstants(t *testing.T) {
	if err := checkConstants(); err != nil {
		t.Fatal(err)
	}
}

// tableSize is the number of slots the table has made.
func tableSize() int {
	table.RLock()
	defer table.RUnlock()
	return len(table.slots)
}

// Creating and freeing parts reuses the table's slots: 100000 cycles leave
// it at its size and live count, and a freed handle is refused, not
// mistaken for the part that reuses its slot.
func TestHandleTable(t *testing.T) {
	live0, size0 := liveParts(), tableSize()
	keep, err := newPart("dcqcn", "rp", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var last uint64
	for i := range 100000 {
		h, err := newPart("dcqcn", "rp", "", &cc.Env{Rate: 100 * units.Gbps})
		if err != nil {
			t.Fatal(i, err)
		}
		if h == last || h == keep {
			t.Fatalf("handle %#x reused", h)
		}
		freePart(h)
		last = h
	}
	if got := tableSize(); got > size0+2 {
		t.Errorf("table grew from %d to %d slots", size0, got)
	}
	if _, err := acquire(last); !errors.Is(err, errHandle) {
		t.Errorf("freed handle: %v", err)
	}
	freePart(last) // twice: ignored
	freePart(0)
	if got := liveParts(); got != live0+1 {
		t.Errorf("live parts %d, want %d", got, live0+1)
	}
	// One thread per handle: a second user is refused, not let in.
	s, err := acquire(keep)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acquire(keep); codeOf(err) != codeBusy {
		t.Errorf("second acquire: %v", err)
	}
	s.mu.Unlock()
	freePart(keep)
	if got := liveParts(); got != live0 {
		t.Errorf("live parts %d, want %d", got, live0)
	}
}

// A switch point takes every switch event through run, and the role
// check refuses the others.
func TestSwitchPointEvents(t *testing.T) {
	env := &cc.Env{Rate: 100 * units.Gbps, SwitchID: 3, Ports: 2, BaseRTT: 10 * units.Microsecond,
		SwitchPorts: []cc.SwitchPort{{Rate: 100 * units.Gbps, Edge: true, Host: 1}, {Rate: 100 * units.Gbps}}}
	h, err := newPart("mercury", "sw", "", env)
	if err != nil {
		t.Fatal(err)
	}
	defer freePart(h)
	s, err := acquire(h)
	if err != nil {
		t.Fatal(err)
	}
	defer s.mu.Unlock()
	if s.role != cc.RoleSW {
		t.Fatalf("role %v", s.role)
	}
	act := s.actions(64)
	pkt := &cc.Packet{Flow: 1, Src: 1, Dst: 2, Payload: 1000, Size: 1082}
	q := cc.Queue{Len: 1082, Rate: 100 * units.Gbps}
	for i, e := range []eventArgs{
		{ev: evArrive, now: 0, port: 0, pkt: pkt},
		{ev: evEnqueue, now: 1, port: 1, pkt: pkt, q: q},
		{ev: evDequeue, now: 2, port: 1, pkt: pkt},
		{ev: evPause, now: 3, port: 1, prio: 3, paused: true},
		{ev: evPause, now: 4, port: 1, prio: 3},
		{ev: evMessage, now: 5, port: -1, fb: &cc.Feedback{Kind: cc.FeedbackUser}},
		{ev: evTimer, now: 6},
	} {
		act.Reset()
		if err := s.run(e, &act); err != nil {
			t.Errorf("event %d (%s): %v", i, eventName(e.ev), err)
		}
	}
	for _, ev := range []int{evSent, evFeedback, evReceive} {
		if err := s.run(eventArgs{ev: ev, now: 7, pkt: pkt, fb: &cc.Feedback{}}, &act); codeOf(err) != codeRole {
			t.Errorf("%s on a switch point: %v", eventName(ev), err)
		}
	}
	if err := s.run(eventArgs{ev: 99}, &act); codeOf(err) != codeArg {
		t.Errorf("unknown event: %v", err)
	}
}

// Error codes follow the cc error types, wrapped or not.
func TestCodeOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
	}{
		{nil, codeOK},
		{&cc.TimeOrderError{}, codeTimeOrder},
		{&cc.ActionsFullError{}, codeActionsFull},
		{&cc.EventError{Err: &cc.DecodeError{}}, codeEvent},
		{&cc.ConfigError{}, codeConfig},
		{&cc.DecodeError{}, codeDecode},
		{fmt.Errorf("wrapped: %w", &cc.TimeOrderError{}), codeTimeOrder},
		{errBusy, codeBusy},
		{errHandle, codeHandle},
		{argError("x"), codeArg},
		{errors.New("untyped"), codeInternal},
	} {
		if got := codeOf(c.err); got != c.code {
			t.Errorf("codeOf(%v) = %d, want %d", c.err, got, c.code)
		}
	}
	// A register name cut to the ABI's 31 bytes (hwcc_register.name is 32
	// with the NUL), by hand: "≥" is 3 bytes and "é" 2.
	a30 := strings.Repeat("a", 30)
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"a≥b", 2, "a"},
		{a30 + "≥x", 31, a30},                 // ≥ would take bytes 31–33
		{a30[:29] + "éx", 31, a30[:29] + "é"}, // é ends at byte 31 exactly
		{a30 + "b", 31, a30 + "b"},            // 31 bytes: kept whole
		{a30 + "bc", 31, a30 + "b"},           // 32 bytes: cut
	} {
		if got := cutUTF8(c.in, c.n); got != c.want {
			t.Errorf("cutUTF8(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// Parts on different threads run at once; the table's lock and each slot's
// mutex keep creation, events and frees race-free (go test -race).
func TestHandleTableConcurrent(t *testing.T) {
	live0 := liveParts()
	done := make(chan error)
	for g := range 8 {
		go func() {
			for i := range 200 {
				h, err := newPart("dcqcn", "rp", "", nil)
				if err != nil {
					done <- err
					return
				}
				s, err := acquire(h)
				if err != nil {
					done <- err
					return
				}
				act := s.actions(4)
				err = s.run(eventArgs{ev: evFeedback, now: units.Time(i), fb: &cc.Feedback{Kind: cc.FeedbackCNP, Flow: cc.FlowID(g)}}, &act)
				s.mu.Unlock()
				freePart(h)
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if got := liveParts(); got != live0 {
		t.Errorf("live parts %d, want %d", got, live0)
	}
}
