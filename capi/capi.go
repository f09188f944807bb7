// Package capi is hwcc's C ABI: linked into a C archive or shared library
// by a main package that imports it (capi/libhwcc, or a vendor's own main
// that also registers parts of its own, examples/vendorpart),
//
//	go build -buildmode=c-archive -o libhwcc.a ./capi/libhwcc
//	go build -buildmode=c-shared -o libhwcc.so ./capi/libhwcc
//
// it is a library whose interface is the hand-written header hwcc.h in this
// directory (not the header cgo generates). Every algorithm registered in
// package cc when the library is built is reachable through it by name. The public functions are
// defined in C in hwcc.c, which turns handles into integers and calls the
// Go functions this file exports under internal names (hwccgo_*): no Go
// pointer crosses the boundary, and every C struct is copied into Go
// values (and back) by the functions below.
package capi

/*
#include <stdint.h>
#include <stdlib.h>
#include "hwcc.h"
*/
import "C"

import (
	"fmt"
	"unicode/utf8"
	"unsafe"

	"github.com/hwcc/hwcc/cc"
	"github.com/hwcc/hwcc/units"
)

// abiVersion is HWCC_ABI_VERSION of the header the library is built with.
const abiVersion = C.HWCC_ABI_VERSION

// checkConstants reports the first of hwcc.h's constants that differs from
// the Go value it mirrors (a test calls it).
func checkConstants() error {
	type pair struct {
		name string
		c, g int64
	}
	for _, p := range []pair{
		{"HWCC_ROLE_CP", C.HWCC_ROLE_CP, int64(cc.RoleCP)},
		{"HWCC_ROLE_RP", C.HWCC_ROLE_RP, int64(cc.RoleRP)},
		{"HWCC_ROLE_NP", C.HWCC_ROLE_NP, int64(cc.RoleNP)},
		{"HWCC_ROLE_SW", C.HWCC_ROLE_SW, int64(cc.RoleSW)},
		{"HWCC_FB_NONE", C.HWCC_FB_NONE, int64(cc.FeedbackNone)},
		{"HWCC_FB_ACK", C.HWCC_FB_ACK, int64(cc.FeedbackAck)},
		{"HWCC_FB_NAK", C.HWCC_FB_NAK, int64(cc.FeedbackNak)},
		{"HWCC_FB_CNP", C.HWCC_FB_CNP, int64(cc.FeedbackCNP)},
		{"HWCC_FB_RATE", C.HWCC_FB_RATE, int64(cc.FeedbackRate)},
		{"HWCC_FB_CREDIT", C.HWCC_FB_CREDIT, int64(cc.FeedbackCredit)},
		{"HWCC_FB_CREDIT_REQUEST", C.HWCC_FB_CREDIT_REQUEST, int64(cc.FeedbackCreditRequest)},
		{"HWCC_FB_CREDIT_STOP", C.HWCC_FB_CREDIT_STOP, int64(cc.FeedbackCreditStop)},
		{"HWCC_FB_USER", C.HWCC_FB_USER, int64(cc.FeedbackUser)},
		{"HWCC_ACT_MARK_CE", C.HWCC_ACT_MARK_CE, int64(cc.ActionMarkCE)},
		{"HWCC_ACT_DROP", C.HWCC_ACT_DROP, int64(cc.ActionDrop)},
		{"HWCC_ACT_FEEDBACK", C.HWCC_ACT_FEEDBACK, int64(cc.ActionFeedback)},
		{"HWCC_ACT_PAUSE", C.HWCC_ACT_PAUSE, int64(cc.ActionPause)},
		{"HWCC_ACT_RESUME", C.HWCC_ACT_RESUME, int64(cc.ActionResume)},
		{"HWCC_ACT_CREDIT", C.HWCC_ACT_CREDIT, int64(cc.ActionCredit)},
		{"HWCC_ACT_ASSIGN_QUEUE", C.HWCC_ACT_ASSIGN_QUEUE, int64(cc.ActionAssignQueue)},
		{"HWCC_ACT_PAUSE_QUEUE", C.HWCC_ACT_PAUSE_QUEUE, int64(cc.ActionPauseQueue)},
		{"HWCC_ACT_RESUME_QUEUE", C.HWCC_ACT_RESUME_QUEUE, int64(cc.ActionResumeQueue)},
		{"HWCC_TO_SOURCE", C.HWCC_TO_SOURCE, int64(cc.ToSource)},
		{"HWCC_TO_DESTINATION", C.HWCC_TO_DESTINATION, int64(cc.ToDestination)},
		{"HWCC_TO_SWITCH", C.HWCC_TO_SWITCH, int64(cc.ToSwitch)},
		{"HWCC_NO_DEADLINE", C.HWCC_NO_DEADLINE, int64(units.MaxTime)},
		{"HWCC_HDR_LEN", C.HWCC_HDR_LEN, cc.PacketHdrLen},
		{"HWCC_DATA_LEN", C.HWCC_DATA_LEN, cc.FeedbackDataLen},
		{"HWCC_TEL_CAP", C.HWCC_TEL_CAP, cc.TelemetryCap},
		{"HWCC_MAX_ACTIONS", C.HWCC_MAX_ACTIONS, maxActions},
		{"HWCC_E_HANDLE", C.HWCC_E_HANDLE, codeHandle},
		{"HWCC_E_ARG", C.HWCC_E_ARG, codeArg},
		{"HWCC_E_ROLE", C.HWCC_E_ROLE, codeRole},
		{"HWCC_E_CONFIG", C.HWCC_E_CONFIG, codeConfig},
		{"HWCC_E_TIME_ORDER", C.HWCC_E_TIME_ORDER, codeTimeOrder},
		{"HWCC_E_EVENT", C.HWCC_E_EVENT, codeEvent},
		{"HWCC_E_ACTIONS_FULL", C.HWCC_E_ACTIONS_FULL, codeActionsFull},
		{"HWCC_E_DECODE", C.HWCC_E_DECODE, codeDecode},
		{"HWCC_E_BUSY", C.HWCC_E_BUSY, codeBusy},
		{"HWCC_E_TRUNCATED", C.HWCC_E_TRUNCATED, codeTruncated},
		{"HWCC_E_INTERNAL", C.HWCC_E_INTERNAL, codeInternal},
	} {
		if p.c != p.g {
			return fmt.Errorf("%s is %d in hwcc.h, %d in Go", p.name, p.c, p.g)
		}
	}
	return nil
}

// setErr copies msg into the caller's err buffer of errlen bytes, cut at a
// UTF-8 boundary to leave room for the NUL.
func setErr(buf *C.char, errlen C.size_t, msg string) {
	if buf == nil || errlen == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(min(uint64(errlen), 1<<20)))
	msg = cutUTF8(msg, len(b)-1)
	n := copy(b, msg)
	b[n] = 0
}

// cutUTF8 returns s cut to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// fail sets the message and returns err's code.
func fail(err error, buf *C.char, errlen C.size_t) C.int {
	setErr(buf, errlen, err.Error())
	return C.int(codeOf(err))
}

// recovered turns a panic into HWCC_E_INTERNAL: no Go panic unwinds into
// the caller's C stack.
func recovered(rc *C.int, buf *C.char, errlen C.size_t) {
	if r := recover(); r != nil {
		setErr(buf, errlen, fmt.Sprintf("hwcc: internal error: %v", r))
		*rc = codeInternal
	}
}

//export hwccgo_abi_version
func hwccgo_abi_version() C.int { return abiVersion }

// version is cc.Version as a C string, made once and never freed: what
// hwcc_version returns to every caller.
var version = C.CString(cc.Version)

//export hwccgo_version
func hwccgo_version() *C.char { return version }

//export hwccgo_live_parts
func hwccgo_live_parts() C.size_t { return C.size_t(liveParts()) }

//export hwccgo_part_new
func hwccgo_part_new(algorithm, part, settings *C.char, env *C.hwcc_env, out *C.uint64_t, errbuf *C.char, errlen C.size_t) (rc C.int) {
	defer recovered(&rc, errbuf, errlen)
	if out != nil {
		*out = 0
	}
	if algorithm == nil || part == nil || out == nil {
		return fail(argError("hwcc_part_new: algorithm, part and out must not be NULL"), errbuf, errlen)
	}
	e, err := envIn(env)
	if err != nil {
		return fail(err, errbuf, errlen)
	}
	h, err := newPart(C.GoString(algorithm), C.GoString(part), C.GoString(settings), e)
	if err != nil {
		return fail(err, errbuf, errlen)
	}
	*out = C.uint64_t(h)
	setErr(errbuf, errlen, "")
	return codeOK
}

//export hwccgo_part_free
func hwccgo_part_free(h C.uint64_t) {
	defer func() { _ = recover() }()
	freePart(uint64(h))
}

//export hwccgo_part_role
func hwccgo_part_role(h C.uint64_t) C.int {
	s, err := acquire(uint64(h))
	if err != nil {
		return C.int(codeOf(err))
	}
	defer s.mu.Unlock()
	return C.int(s.role)
}

//export hwccgo_next_deadline
func hwccgo_next_deadline(h C.uint64_t) (rc C.int64_t) {
	s, err := acquire(uint64(h))
	if err != nil {
		return C.int64_t(codeOf(err))
	}
	defer s.mu.Unlock()
	defer func() {
		if recover() != nil {
			rc = codeInternal
		}
	}()
	return C.int64_t(s.part.NextDeadline())
}

//export hwccgo_limits
func hwccgo_limits(h C.uint64_t, out *C.hwcc_limits_t) (rc C.int) {
	defer recovered(&rc, nil, 0)
	if out == nil {
		return codeArg
	}
	s, err := acquire(uint64(h))
	if err != nil {
		return C.int(codeOf(err))
	}
	defer s.mu.Unlock()
	if s.role != cc.RoleRP {
		return codeRole
	}
	l := s.part.(cc.ReactionPoint).Limits()
	*out = C.hwcc_limits_t{
		rate:     C.int64_t(l.Rate),
		window:   C.int64_t(l.Window),
		credited: cBool(l.Credited),
		credit:   C.int64_t(l.Credit),
	}
	return codeOK
}

//export hwccgo_registers
func hwccgo_registers(h C.uint64_t, regs *C.hwcc_register, capacity C.size_t, n *C.size_t) (rc C.int) {
	defer recovered(&rc, nil, 0)
	if regs == nil && capacity > 0 {
		return codeArg
	}
	s, err := acquire(uint64(h))
	if err != nil {
		return C.int(codeOf(err))
	}
	defer s.mu.Unlock()
	s.regs = s.part.AppendRegisters(s.regs[:0])
	k := min(uint64(capacity), uint64(len(s.regs)))
	if k > 0 {
		dst := unsafe.Slice(regs, k)
		for i := range dst {
			regOut(&dst[i], s.regs[i])
		}
	}
	if n != nil {
		*n = C.size_t(len(s.regs))
	}
	if uint64(len(s.regs)) > uint64(capacity) {
		return codeTruncated
	}
	return codeOK
}

// hwccgo_event is every event: ev is one of the ev* constants; the
// arguments an event does not take are ignored (and may be NULL).
//
//export hwccgo_event
func hwccgo_event(h C.uint64_t, ev C.int, now C.int64_t, port C.int32_t, prio C.uint8_t, paused C.int,
	pkt *C.hwcc_packet, q *C.hwcc_queue, fb *C.hwcc_feedback_t,
	acts *C.hwcc_action, capacity C.size_t, n *C.size_t, errbuf *C.char, errlen C.size_t) (rc C.int) {
	defer recovered(&rc, errbuf, errlen)
	if acts == nil && capacity > 0 {
		return fail(argError("acts is NULL with a capacity of %d", uint64(capacity)), errbuf, errlen)
	}
	s, err := acquire(uint64(h))
	if err != nil {
		return fail(err, errbuf, errlen)
	}
	defer s.mu.Unlock()
	e := eventArgs{ev: int(ev), now: units.Time(now), port: int(port), prio: uint8(prio), paused: paused != 0}
	switch e.ev {
	case evSent, evEnqueue, evDequeue, evReceive, evArrive:
		if pkt == nil {
			return fail(argError("%s: the packet is NULL", eventName(e.ev)), errbuf, errlen)
		}
		if err := packetIn(pkt, &s.pkt, &s.pktTel); err != nil {
			return fail(argError("%s: %v", eventName(e.ev), err), errbuf, errlen)
		}
		e.pkt = &s.pkt
	case evFeedback, evMessage:
		if fb == nil {
			return fail(argError("%s: the feedback is NULL", eventName(e.ev)), errbuf, errlen)
		}
		if err := feedbackIn(fb, &s.fb, &s.fbTel); err != nil {
			return fail(argError("%s: %v", eventName(e.ev), err), errbuf, errlen)
		}
		e.fb = &s.fb
	}
	if e.ev == evEnqueue || e.ev == evDequeue {
		if q == nil {
			return fail(argError("%s: the queue is NULL", eventName(e.ev)), errbuf, errlen)
		}
		e.q = cc.Queue{Len: units.Bytes(q.len), Rate: units.Rate(q.rate), TxBytes: uint64(q.tx_bytes), Paused: q.paused != 0}
	}
	act := s.actions(uint64(capacity))
	if err := s.run(e, &act); err != nil {
		return fail(err, errbuf, errlen)
	}
	if l := act.Len(); l > 0 {
		dst := unsafe.Slice(acts, l)
		for i, a := range act.All() {
			actionOut(&dst[i], &a)
		}
	}
	if n != nil {
		*n = C.size_t(act.Len())
	}
	if e.ev == evSent || e.ev == evDequeue {
		packetBack(pkt, &s.pkt)
	}
	setErr(errbuf, errlen, "")
	return codeOK
}

func cBool(b bool) C.uint8_t {
	if b {
		return 1
	}
	return 0
}

// envIn converts the caller's environment (nil: unknown).
func envIn(c *C.hwcc_env) (*cc.Env, error) {
	if c == nil {
		return nil, nil
	}
	e := &cc.Env{
		Rate:       units.Rate(c.rate),
		Node:       cc.NodeID(c.node),
		Port:       uint16(c.port),
		SwitchID:   uint16(c.switch_id),
		BaseRTT:    units.Time(c.base_rtt),
		Bottleneck: units.Rate(c.bottleneck),
		Hops:       int(c.hops),
		Payload:    units.Bytes(c.payload),
		Size:       units.Bytes(c.size),
		Ports:      int(c.ports),
		Index:      int(c.index),
	}
	if n := uint64(c.n_switch_ports); n > 0 {
		if c.switch_ports == nil {
			return nil, argError("env: switch_ports is NULL with n_switch_ports %d", n)
		}
		if n > 1<<16 {
			return nil, argError("env: n_switch_ports %d is above 65536", n)
		}
		for _, p := range unsafe.Slice(c.switch_ports, n) {
			e.SwitchPorts = append(e.SwitchPorts, cc.SwitchPort{Rate: units.Rate(p.rate), Edge: p.edge != 0, Host: cc.NodeID(p.host)})
		}
	}
	return e, nil
}

// telIn copies the caller's stack of n bytes into t and returns t, or
// nil when n is 0 (no stack); n above cc.TelemetryCap is refused.
func telIn(n C.uint8_t, c *[C.HWCC_TEL_CAP]C.uint8_t, what string, t *cc.Telemetry) (*cc.Telemetry, error) {
	if n == 0 {
		return nil, nil
	}
	if int(n) > cc.TelemetryCap {
		return nil, fmt.Errorf("the %s's tel_len %d is above %d (HWCC_TEL_CAP)", what, n, cc.TelemetryCap)
	}
	t.Len = uint8(n)
	for i := range int(n) {
		t.Data[i] = byte(c[i])
	}
	return t, nil
}

// telOut writes t's bytes to the caller's stack (tel_len 0 for a nil or
// empty t) and leaves the bytes past them as they were.
func telOut(n *C.uint8_t, c *[C.HWCC_TEL_CAP]C.uint8_t, t *cc.Telemetry) {
	if t == nil {
		*n = 0
		return
	}
	b := t.Bytes()
	for i, x := range b {
		c[i] = C.uint8_t(x)
	}
	*n = C.uint8_t(len(b))
}

// packetIn converts the caller's packet into p, its telemetry stack into
// t (p.Tel is t, or nil when the packet carries none). It refuses a
// tel_len above HWCC_TEL_CAP.
func packetIn(c *C.hwcc_packet, p *cc.Packet, t *cc.Telemetry) error {
	tel, err := telIn(c.tel_len, &c.tel, "packet", t)
	if err != nil {
		return err
	}
	*p = cc.Packet{
		Flow:    cc.FlowID(c.flow),
		Src:     cc.NodeID(c.src),
		Dst:     cc.NodeID(c.dst),
		Seq:     uint64(c.seq),
		Payload: units.Bytes(c.payload),
		Size:    units.Bytes(c.size),
		Prio:    uint8(c.prio),
		CE:      c.ce != 0,
		Tel:     tel,
	}
	for i := range p.Hdr {
		p.Hdr[i] = byte(c.hdr[i])
	}
	return nil
}

// packetBack writes back what a part may change in a packet: Hdr, and the
// telemetry stack when the caller's packet carries one (a packet without
// one stays without).
func packetBack(c *C.hwcc_packet, p *cc.Packet) {
	for i, b := range p.Hdr {
		c.hdr[i] = C.uint8_t(b)
	}
	if c.tel_len != 0 && p.Tel != nil {
		telOut(&c.tel_len, &c.tel, p.Tel)
	}
}

// feedbackIn converts the caller's feedback into f, its telemetry stack
// into t, as packetIn does.
func feedbackIn(c *C.hwcc_feedback_t, f *cc.Feedback, t *cc.Telemetry) error {
	tel, err := telIn(c.tel_len, &c.tel, "feedback", t)
	if err != nil {
		return err
	}
	*f = cc.Feedback{
		Kind:   cc.FeedbackKind(c.kind),
		Flow:   cc.FlowID(c.flow),
		From:   uint64(c.from),
		Seq:    uint64(c.seq),
		Acked:  units.Bytes(c.acked),
		SndNxt: uint64(c.snd_nxt),
		ECE:    c.ece != 0,
		Tel:    tel,
	}
	for i := range f.Data {
		f.Data[i] = byte(c.data[i])
	}
	return nil
}

// feedbackOut writes f to the caller's struct, whole (tel past tel_len
// zero).
func feedbackOut(c *C.hwcc_feedback_t, f *cc.Feedback) {
	*c = C.hwcc_feedback_t{
		kind:    C.uint8_t(f.Kind),
		ece:     cBool(f.ECE),
		flow:    C.uint32_t(f.Flow),
		from:    C.uint64_t(f.From),
		seq:     C.uint64_t(f.Seq),
		acked:   C.int64_t(f.Acked),
		snd_nxt: C.uint64_t(f.SndNxt),
	}
	for i, b := range f.Data {
		c.data[i] = C.uint8_t(b)
	}
	telOut(&c.tel_len, &c.tel, f.Tel)
}

// actionOut writes a to the caller's struct.
func actionOut(c *C.hwcc_action, a *cc.Action) {
	c.kind, c.to, c.prio = C.uint8_t(a.Kind), C.uint8_t(a.To), C.uint8_t(a.Prio)
	c.switch_id, c.node, c.port, c.queue = C.uint16_t(a.Switch), C.uint32_t(a.Node), C.uint16_t(a.Port), C.uint16_t(a.Queue)
	c.bytes = C.int64_t(a.Bytes)
	feedbackOut(&c.feedback, &a.Feedback)
}

// regOut writes r to the caller's struct, its name cut to 31 bytes
// without splitting a character (as setErr cuts a message).
func regOut(c *C.hwcc_register, r cc.Register) {
	name := cutUTF8(r.Name, len(c.name)-1)
	for i := range c.name {
		c.name[i] = 0
	}
	for i := 0; i < len(name); i++ {
		c.name[i] = C.char(name[i])
	}
	c.width, c.is_signed, c.value = C.uint8_t(r.Width), cBool(r.Signed), C.uint64_t(r.Value)
}
