package cc

import (
	"errors"
	"strconv"

	"github.com/hwcc/hwcc/units"
)

// ActionKind is what an action asks the caller to do.
type ActionKind uint8

// Action kinds.
const (
	// ActionMarkCE: set ECN CE on the packet of this event (a congestion
	// point's Enqueue or Dequeue).
	ActionMarkCE ActionKind = iota + 1
	// ActionDrop: drop the packet of this event.
	ActionDrop
	// ActionFeedback: send Feedback to To (the flow's source or its
	// destination) at priority Prio.
	ActionFeedback
	// ActionPause and ActionResume: ask the upstream neighbour to stop or
	// resume sending priority Prio (link-level flow control).
	ActionPause
	ActionResume
	// ActionCredit: add Bytes of credit to the switch's VOQ toward host
	// Node at egress port Port (a switch point: HierCC's sender-side ToR).
	ActionCredit
	// ActionAssignQueue: the packet of this Enqueue waits in physical
	// queue Queue of its egress port (a switch point, at a port that
	// keeps several FIFOs for its data: BFC's dynamic queue assignment).
	ActionAssignQueue
	// ActionPauseQueue and ActionResumeQueue: stop and resume serving
	// physical queue Queue of the switch's own egress port Port (a switch
	// point that takes its downstream neighbour's per-queue backpressure:
	// BFC's upstream).
	ActionPauseQueue
	ActionResumeQueue
)

var actionNames = [...]string{"", "mark-ce", "drop", "feedback", "pause", "resume", "credit", "assign-queue", "pause-queue", "resume-queue"}

// String returns the kind's name ("mark-ce", "feedback", ...).
func (k ActionKind) String() string {
	if k != 0 && int(k) < len(actionNames) {
		return actionNames[k]
	}
	return "action " + strconv.Itoa(int(k))
}

// ControlPrio is the 802.1p priority hwcc's parts ask for on the control
// messages they send (CNPs, rate messages): the highest class, which the
// harness serves before data and PFC never pauses.
const ControlPrio uint8 = 7

// Dest is where feedback goes.
type Dest uint8

// Destinations.
const (
	// ToSource: the flow's source host (a CNP, a rate message, an ACK).
	ToSource Dest = iota
	// ToDestination: the flow's destination host.
	ToDestination
	// ToSwitch: the switch whose SwitchID (Env.SwitchID) is
	// Action.Switch (a switch point's message to another switch, HierCC's
	// credit to a sender-side ToR); the caller routes it and hands it to
	// that switch's SwitchPoint.Message. Switches are addressed by their
	// 12-bit ID because that is what a switch point can learn of another
	// switch: from its own Env, and from the headers its peers write.
	ToSwitch
)

// String returns "source", "destination" or "switch".
func (d Dest) String() string {
	switch d {
	case ToDestination:
		return "destination"
	case ToSwitch:
		return "switch"
	}
	return "source"
}

// Action is one decision of a part.
type Action struct {
	Kind ActionKind
	// To and Feedback: the message of an ActionFeedback and where it goes.
	To       Dest
	Feedback Feedback
	// Prio is the priority of an ActionFeedback, ActionPause or ActionResume.
	Prio uint8
	// Switch is the SwitchID of an ActionFeedback's switch (To =
	// ToSwitch). Node is the destination host of an ActionCredit's VOQ;
	// Port the egress port of an ActionCredit, an ActionPauseQueue or an
	// ActionResumeQueue; Queue the physical queue of an
	// ActionAssignQueue, an ActionPauseQueue or an ActionResumeQueue
	// (0 up); Bytes an ActionCredit's amount.
	Switch uint16
	Node   NodeID
	Port   uint16
	Queue  uint16
	Bytes  units.Bytes
}

// Actions is a fixed-capacity list of decisions that the caller owns and a
// part appends to. Nothing in it allocates after it is made: an event whose
// decisions do not fit fails with an *ActionsFullError and appends nothing
// (the contract's rule 3). The caller empties it with Reset, typically
// before each event, or lets decisions accumulate across events.
//
// The zero value has capacity 0: it accepts events that decide nothing. So
// does a nil *Actions: every method is safe on nil, which holds nothing and
// has no room.
type Actions struct {
	list []Action
}

// NewActions returns an empty Actions that holds up to capacity decisions
// (capacity < 0 is taken as 0).
func NewActions(capacity int) *Actions {
	return &Actions{list: make([]Action, 0, max(capacity, 0))}
}

// ActionsLimit is the limit this repository's drivers (the harness, trace
// replay) pass to RunGrowing: 65 536 decisions for one event, far beyond
// any part's (a switch point's timer credits at most one VOQ per host).
const ActionsLimit = 1 << 16

// RunGrowing runs one event ev with *act reset, giving the part the room
// it asks for: while ev fails with an *ActionsFullError (which, by the
// contract, changed nothing) and *act holds fewer than limit decisions,
// *act is replaced by an Actions of 2·(Cap + Need) decisions, saturated at
// limit, and ev runs again. Each round grows the buffer or ends the loop (a
// Need that would not grow it, as a part breaking the contract might
// report, ends it), so there are at most log2(limit) + 1 rounds. It returns
// ev's last error. It is how a driver that owns the buffer (the harness,
// trace replay) runs an event without knowing beforehand how many
// decisions it makes; limit bounds what a part that keeps asking for more
// can make it allocate. It allocates only the buffers it grows: an event
// that succeeds, or fails with another error, costs none.
func RunGrowing(act **Actions, limit int, ev func(*Actions) error) error {
	(*act).Reset()
	err := ev(*act)
	// errors.Is before errors.As: As's target escapes, which would
	// allocate on every refused event.
	for err != nil && errors.Is(err, ErrActionsFull) {
		var full *ActionsFullError
		c := (*act).Cap()
		if !errors.As(err, &full) || c >= limit {
			break
		}
		// n = min(2·(c + Need), limit) without overflow: 2·(c + need) ≤
		// limit exactly when need ≤ ⌊limit/2⌋ − c.
		n := limit
		if need := max(full.Need, 0); need <= limit/2-c {
			n = 2 * (c + need)
		}
		if n <= c {
			break
		}
		*act = NewActions(n)
		err = ev(*act)
	}
	return err
}

// ActionsOn returns an empty Actions whose storage is buf: its capacity is
// cap(buf), and it never allocates.
func ActionsOn(buf []Action) Actions { return Actions{list: buf[:0]} }

// Len is the number of decisions a holds.
func (a *Actions) Len() int {
	if a == nil {
		return 0
	}
	return len(a.list)
}

// Cap is the most decisions a holds.
func (a *Actions) Cap() int {
	if a == nil {
		return 0
	}
	return cap(a.list)
}

// Free is the room left in a.
func (a *Actions) Free() int {
	if a == nil {
		return 0
	}
	return cap(a.list) - len(a.list)
}

// All returns the decisions in the order they were made. The slice is
// valid until the next Reset or append, and shares a's storage: a part may
// finish, through it, a decision it appended in the same event (RoCC's CP
// appends one rate message per flow from a template and then writes the
// flow into the copy); a caller only reads it.
func (a *Actions) All() []Action {
	if a == nil {
		return nil
	}
	return a.list
}

// At returns decision i (0 ≤ i < Len).
func (a *Actions) At(i int) Action { return a.list[i] }

// Reset empties the list, keeping its capacity.
func (a *Actions) Reset() {
	if a != nil {
		a.list = a.list[:0]
	}
}

// Truncate drops every decision after the first n (0 ≤ n ≤ Len); a part
// uses it to undo what it appended when a later step of the same event
// fails.
func (a *Actions) Truncate(n int) {
	if a != nil && n >= 0 && n <= len(a.list) {
		a.list = a.list[:n]
	}
}

// Reserve returns nil if n more decisions fit, or an *ActionsFullError
// naming part and event. A part calls it before it changes any register,
// so that a full list leaves it untouched.
func (a *Actions) Reserve(part, event string, n int) error {
	if n <= a.Free() {
		return nil
	}
	return &ActionsFullError{Part: part, Event: event, Need: n, Free: a.Free()}
}

// Add appends x if there is room and reports whether there was. A part
// that reserved room first can ignore the result.
func (a *Actions) Add(x Action) bool {
	if a == nil || len(a.list) == cap(a.list) {
		return false
	}
	a.list = append(a.list, x)
	return true
}

// MarkCE appends an ActionMarkCE.
func (a *Actions) MarkCE() bool { return a.Add(Action{Kind: ActionMarkCE}) }

// Send appends an ActionFeedback carrying f to to at priority prio.
func (a *Actions) Send(to Dest, prio uint8, f Feedback) bool {
	return a.Add(Action{Kind: ActionFeedback, To: to, Prio: prio, Feedback: f})
}

// SendSwitch appends an ActionFeedback of f to the switch whose SwitchID
// is sw at priority prio (a switch point's message to another switch) and
// reports whether it fitted.
func (a *Actions) SendSwitch(sw uint16, prio uint8, f Feedback) bool {
	return a.Add(Action{Kind: ActionFeedback, To: ToSwitch, Switch: sw, Prio: prio, Feedback: f})
}

// Credit appends an ActionCredit of n bytes to the VOQ toward host dst at
// egress port and reports whether it fitted.
func (a *Actions) Credit(port uint16, dst NodeID, n units.Bytes) bool {
	return a.Add(Action{Kind: ActionCredit, Port: port, Node: dst, Bytes: n})
}

// AssignQueue appends an ActionAssignQueue of physical queue q and
// reports whether it fitted.
func (a *Actions) AssignQueue(q uint16) bool {
	return a.Add(Action{Kind: ActionAssignQueue, Queue: q})
}

// HoldQueue appends an ActionPauseQueue (pause true) or ActionResumeQueue
// of physical queue q of egress port and reports whether it fitted.
func (a *Actions) HoldQueue(port, q uint16, pause bool) bool {
	k := ActionResumeQueue
	if pause {
		k = ActionPauseQueue
	}
	return a.Add(Action{Kind: k, Port: port, Queue: q})
}

// Has reports whether the list holds a decision of kind k.
func (a *Actions) Has(k ActionKind) bool {
	for i := range a.All() {
		if a.list[i].Kind == k {
			return true
		}
	}
	return false
}

// Count returns how many decisions of kind k the list holds.
func (a *Actions) Count(k ActionKind) int {
	n := 0
	for i := range a.All() {
		if a.list[i].Kind == k {
			n++
		}
	}
	return n
}
