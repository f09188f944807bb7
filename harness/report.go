package harness

import (
	"encoding/json"
	"io"

	"github.com/hwcc/hwcc/units"
)

// Report is the summary of a run, the JSON the command prints with -json.
// Everything in it is deterministic except WallSeconds, which the harness
// leaves 0 and the command fills in (the harness never reads a clock).
type Report struct {
	Scenario  string        `json:"scenario"`
	Algorithm string        `json:"algorithm"`
	Flows     []FlowReport  `json:"flows"`
	Queues    []QueueReport `json:"queues"`
	Links     []LinkReport  `json:"links"`
	PFC       PFCReport     `json:"pfc"`
	Drops     int64         `json:"drops"`
	// ShapedDrops are the messages of shaped control kinds the shapers
	// dropped (ControlKind.Spacing: ExpressPass's credits), not in Drops.
	ShapedDrops int64 `json:"shaped_drops,omitempty"`
	// FCPackets are the CBFC flow-control packets the switches sent
	// (switch.flow_control = cbfc).
	FCPackets int64 `json:"fc_packets,omitempty"`
	// Trims are the data frames the switches trimmed to their header,
	// Nacks the NACKs receivers sent for them, RetransmittedBytes the
	// payload senders resent (switch.flow_control trim, nic.transport
	// sack).
	Trims              int64          `json:"trims,omitempty"`
	Nacks              int64          `json:"nacks,omitempty"`
	RetransmittedBytes int64          `json:"retransmitted_bytes,omitempty"`
	Fairness           FairnessReport `json:"fairness"`
	Events             uint64         `json:"events"`
	WallSeconds        float64        `json:"wall_seconds"`
	// Errors are the state machines' refusals (nil, and absent from the
	// JSON, when there were none).
	Errors *ErrorReport `json:"errors,omitempty"`
}

// FlowReport is one flow.
type FlowReport struct {
	ID  int    `json:"id"`
	Src string `json:"src"`
	Dst string `json:"dst"`
	// Bytes is the payload delivered in order to the receiver over the run.
	Bytes int64 `json:"bytes"`
	// ThroughputBps is the rate of the flow's in-order data frames at the
	// receiver over the measurement window, in wire bits per second
	// (headers, INT and preamble/IFG included: the share of the link).
	ThroughputBps float64 `json:"throughput_bps"`
	// FCTNs is the flow completion time in ns (truncated), from its start
	// to the sender receiving the ACK of its last byte; null if the flow is
	// long-lived or has not finished.
	FCTNs *int64 `json:"fct_ns"`
	// Slowdown is FCT over the ideal FCT (see Result); null with FCTNs.
	Slowdown *float64 `json:"slowdown"`
}

// QueueReport is one switch egress port's queue over the window
// (time-weighted; see the package doc).
type QueueReport struct {
	Node      string  `json:"node"`
	Port      int     `json:"port"`
	MeanBytes float64 `json:"mean_bytes"`
	P50Bytes  int64   `json:"p50_bytes"`
	P95Bytes  int64   `json:"p95_bytes"` // HPCC's Fig. 14 metric
	P99Bytes  int64   `json:"p99_bytes"`
	MaxBytes  int64   `json:"max_bytes"`
}

// LinkReport is one direction of a link: wire bytes sent over the window
// divided by what the rate allows in it.
type LinkReport struct {
	Name        string  `json:"name"`
	Utilization float64 `json:"utilization"`
}

// PFCReport totals, over every port and the whole run, the PAUSE frames
// that stopped an egress and the time egresses spent paused (a pause still
// on at the end counts to the end).
type PFCReport struct {
	Pauses   int64 `json:"pauses"`
	PausedNs int64 `json:"paused_ns"`
}

// FairnessReport holds Jain's index over the throughputs of the flows
// active during the whole window (started by MeasureFrom, not finished or
// stopped before MeasureTo); 0 when no flow qualifies.
type FairnessReport struct {
	Jain float64 `json:"jain"`
}

// WriteJSON writes r as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// Result is everything a run produced: the Report plus details and the
// time series for tables, CSV and plots.
type Result struct {
	Report Report
	// Scenario is the scenario as run (defaults applied).
	Scenario *Scenario
	Flows    []FlowResult
	Ports    []PortResult
	Series   Series
	Counters Counters
	// End is the simulated time the run stopped at.
	End units.Time
}

// FlowResult is one flow in detail.
type FlowResult struct {
	ID       FlowID
	Src, Dst string
	Size     units.Bytes // 0: long-lived
	Offered  units.Rate
	Start    units.Time
	// Finish is when the sender received the last ACK (-1 if not finished).
	Finish units.Time
	FCT    units.Time // Finish − Start, or -1
	// Ideal is the FCT the flow would have alone on the idle network
	// (see the package doc); 0 for long-lived flows.
	Ideal   units.Time
	BaseRTT units.Time
	// Delivered is the payload delivered in order; Wire the wire bytes of
	// those frames.
	Delivered units.Bytes
	Wire      units.Bytes
	// Throughput (wire) and Goodput (payload) over the window, bit/s.
	Throughput  float64
	Goodput     float64
	Retransmits int64
	Active      bool // active for the whole window (counted in Jain's index)
}

// PortResult is one egress port (switch or host) in detail. Utilization
// is the fraction of the window's capacity the port used (0..1, see
// LinkReport); TxBytes, Pauses, PausesSent and PausedTime (time spent
// paused) cover the whole run; MaxIngress is the most bytes admitted
// through this port as an ingress and not yet dequeued, the quantity PFC
// compares with Xoff.
type PortResult struct {
	Node     string
	Port     int
	Link     string // "node->peer"
	Rate     units.Rate
	IsSwitch bool
	// Queue statistics over the window (switch ports only).
	MeanBytes               float64
	P50, P95, P99, MaxBytes units.Bytes
	Utilization             float64
	TxBytes                 uint64 // whole run, wire bytes
	Pauses                  int64  // PAUSEs received that stopped this egress
	PausesSent              int64  // PAUSEs this port sent upstream
	PausedTime              units.Time
	FirstPause              units.Time // -1 if never paused
	MaxIngress              units.Bytes
	Drops                   int64
}

// Series are the time series of a run, sampled every Interval: sample i
// is taken at Times[i] and a flow's throughput sample covers the interval
// ending there.
type Series struct {
	Interval units.Time
	Times    []units.Time
	Flows    []FlowSeries
	Queues   []QueueSeries
}

// FlowSeries is one flow's throughput (wire bit/s of in-order data at the
// receiver) per interval.
type FlowSeries struct {
	ID       FlowID
	Src, Dst string
	Bps      []float64
}

// QueueSeries is one switch port's queue length at each sample instant.
type QueueSeries struct {
	Node  string
	Port  int
	Link  string
	Bytes []units.Bytes
}

// Counters are run-wide totals, for checks and tables. Data-packet
// conservation: DataSentPayload = DataRecvPayload + DroppedDataPayload +
// InFlightDataPayload.
//
// Units: the *Payload fields and PoissonBytes are payload bytes; DropBytes
// and MaxBufferUsed (the largest occupancy any switch's buffer reached) are
// wire bytes; the rest are counts: DataSentPackets and DataRecvPackets data
// frames, Drops every dropped frame, HeadroomDrops the data frames dropped
// because an ingress exceeded Xoff plus its headroom, ShapedDrops the
// messages of shaped control kinds a full shaper queue dropped (not in
// Drops: ControlKind.Spacing), FCPackets the CBFC flow-control packets
// switches sent (switch.flow_control = cbfc), CNPs the CNPs
// receivers sent, FeedbackSent and FeedbackReceived the CP feedback frames,
// Timeouts the go-back-N retransmission timeouts, FlowsStarted,
// FlowsFinished and PoissonFlows flows, INTPathFull the data frames a port
// could not stamp because their INT header was full, PacketsAllocated the
// Packet values the run's free list allocated, FrameHops the frames of
// every kind put on a wire (a frame that crosses h links counts h times:
// the simulated packet-hops).
type Counters struct {
	DataSentPackets     int64
	DataSentPayload     int64
	DataRecvPackets     int64
	DataRecvPayload     int64
	DroppedDataPayload  int64
	InFlightDataPayload int64
	Drops               int64
	DropBytes           int64
	HeadroomDrops       int64
	ShapedDrops         int64
	CNPs                int64
	FeedbackSent        int64
	FeedbackReceived    int64
	Timeouts            int64
	FlowsStarted        int64
	FlowsFinished       int64
	PoissonFlows        int64
	PoissonBytes        int64
	MaxBufferUsed       units.Bytes
	FCPackets           int64
	INTPathFull         int64
	PacketsAllocated    int64
	FrameHops           int64
	// The lossy fabric (switch.flow_control trim, nic.transport sack):
	// frames trimmed and their payload, NACKs sent, payload resent, and
	// payload that arrived a second time (a resend after a timeout) and
	// was not delivered again. With trimming, conservation reads
	// DataSentPayload = DataRecvPayload + DroppedDataPayload +
	// InFlightDataPayload + TrimmedPayload.
	Trims, TrimmedPayload, Nacks           int64
	RetransmittedPayload, DuplicatePayload int64
}
