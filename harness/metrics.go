package harness

import (
	"math/bits"

	"github.com/hwcc/hwcc/units"
)

// MaxSeriesFlows bounds the number of flows with a throughput time series.
const MaxSeriesFlows = 1024

// MaxSeriesValues bounds the samples all time series of a run may hold
// (8 bytes each); New refuses a scenario whose sample interval would
// exceed it unless Options.NoSeries is set.
const MaxSeriesValues = 32 << 20

// Histogram layout for the time-weighted queue percentiles.
const (
	histExactBits = 7 // values below 1<<7 = 128 B get one bucket each
	histSubBits   = 6 // then 1<<6 = 64 buckets per power of two
)

// histBucket returns the histogram bucket of queue length v ≥ 0.
func histBucket(v units.Bytes) int {
	u := uint64(v)
	if u < 1<<histExactBits {
		return int(u)
	}
	e := bits.Len64(u) - 1 // ≥ histExactBits
	sub := (u >> uint(e-histSubBits)) & (1<<histSubBits - 1)
	return 1<<histExactBits + (e-histExactBits)<<histSubBits + int(sub)
}

// histRange returns the smallest value of bucket b and its width.
func histRange(b int) (low, width uint64) {
	if b < 1<<histExactBits {
		return uint64(b), 1
	}
	k := b - 1<<histExactBits
	e := k>>histSubBits + histExactBits
	sub := uint64(k & (1<<histSubBits - 1))
	width = 1 << uint(e-histSubBits)
	return 1<<uint(e) + sub*width, width
}

// qstat accumulates the time-weighted queue statistics of one port.
type qstat struct {
	last units.Time
	cur  units.Bytes
	area float64 // ∫q dt over the window, byte·ps
	max  units.Bytes
	// on: the queue is measured (a switch port). hist, n buckets long, is
	// the ps spent in each bucket within the window, except bucket 0
	// (length 0), whose time is zero; hist is allocated when the queue
	// first holds bytes (most ports of a large topology never queue). n
	// (a few thousand at most) is 32 bits so that it shares on's word:
	// the port's per-frame fields, qstat last, then fit seven lines
	// (link.go, port).
	on   bool
	n    int32
	zero int64
	hist []int64
	// total is the sum of hist (the window time recorded), kept as it
	// grows so that a percentile scans only up to its bucket.
	total int64
}

// portStats are one port's counters: first the ones every frame updates,
// which end the port's per-frame lines (link.go, port), then the ones read
// at the end of the run.
type portStats struct {
	txBytes     uint64 // wire bytes sent, all priorities
	q           qstat
	winStartTx  float64 // wire bytes sent by the window's start (txSnapshot)
	winEndTx    float64
	pauses      int64 // PAUSE frames received that stopped this egress
	pausesSent  int64 // PAUSE frames sent to the peer
	pausedTime  units.Time
	pauseStart  [NumPrios]units.Time // when each priority's current pause began
	firstPause  units.Time           // -1 if never paused
	drops       int64
	queueSeries []units.Bytes
}

// queueChanged records a change of pt.bytes at the current time.
func (s *Sim) queueChanged(pt *port) {
	q := &pt.st.q
	if !q.on {
		return
	}
	s.qAdvance(q)
	q.cur = pt.bytes
	if q.cur > q.max && s.now >= s.from && s.now < s.to {
		q.max = q.cur
	}
}

// qAdvance adds the time since the last change, clipped to the window, at
// the current length.
func (s *Sim) qAdvance(q *qstat) {
	a := max(q.last, s.from)
	b := min(s.now, s.to)
	if b > a {
		dt := b - a
		q.total += int64(dt)
		if q.cur == 0 {
			// Bucket 0 is zero's, next to the fields every change
			// touches, not the histogram's: most ports of a large
			// topology go back and forth between empty and a frame or
			// two, and the histogram's first line would be one more
			// cache miss each time.
			q.zero += int64(dt)
			q.last = s.now
			return
		}
		// The last bucket takes every longer queue; q.n is the
		// histogram's full length (a histogram given in full, as the
		// tests do, is its own).
		i := min(histBucket(q.cur), max(int(q.n), len(q.hist))-1)
		if i >= len(q.hist) {
			q.growHist(i)
		}
		q.hist[i] += int64(dt)
		q.area += float64(q.cur) * float64(dt)
	}
	q.last = s.now
}

// growHist makes q's histogram long enough for bucket i (< q.n): it starts
// at histMinLen buckets and doubles up to q.n, so that a port whose queue
// stays short holds a short histogram (most ports of a large topology).
func (q *qstat) growHist(i int) {
	n := max(len(q.hist), histMinLen)
	for n <= i {
		n *= 2
	}
	n = min(n, int(q.n))
	h := make([]int64, n)
	copy(h, q.hist)
	q.hist = h
}

// histMinLen is the first length of a histogram: every value below 128 B
// and the 64 buckets of each power of two up to 1 KiB.
const histMinLen = 1<<histExactBits + 3<<histSubBits

// percentile returns the time-weighted p-quantile (0 < p ≤ 1) of q's
// histogram: the midpoint of the first bucket whose cumulative time reaches
// p of the total.
func (q *qstat) percentile(p float64) units.Bytes {
	total := q.total
	if total == 0 {
		return q.cur
	}
	if q.hist == nil {
		return 0 // the queue was empty all the time
	}
	target := p * float64(total)
	var cum int64
	for b, t := range q.hist {
		if b == 0 {
			t += q.zero
		}
		cum += t
		if t > 0 && float64(cum) >= target {
			low, w := histRange(b)
			return units.Bytes(low + (w-1)/2)
		}
	}
	return q.max
}

// measure opens (idx 0) or closes (idx 1) the measurement window.
func (s *Sim) measure(idx int32) {
	for _, pt := range s.ports {
		if pt.st.q.on {
			s.qAdvance(&pt.st.q)
			if idx == 0 {
				pt.st.q.max = pt.st.q.cur
			}
		}
		if idx == 0 {
			pt.st.winStartTx = s.txSnapshot(pt)
		} else {
			pt.st.winEndTx = s.txSnapshot(pt)
		}
	}
	for _, f := range s.flows {
		if idx == 0 {
			f.winStartWire, f.winStartBytes = f.rxWire, f.rxBytes
		} else {
			f.winEndWire, f.winEndBytes = f.rxWire, f.rxBytes
			f.winEndSet = true
		}
	}
}

// txSnapshot returns the wire bytes pt has put on the wire by now,
// counting the frame in serialisation pro rata, so that a window boundary
// in the middle of a frame splits it exactly and utilisation never exceeds 1.
func (s *Sim) txSnapshot(pt *port) float64 {
	b := float64(pt.st.txBytes)
	if s.now < pt.txEnd && pt.txEnd > pt.txStart {
		b -= float64(pt.txSize) * float64(pt.txEnd-s.now) / float64(pt.txEnd-pt.txStart)
	}
	return b
}

// sample takes one time-series sample at the current time.
func (s *Sim) sample() {
	s.sampleT = append(s.sampleT, s.now)
	ivl := s.sampleIvl
	for _, f := range s.seriesRefs {
		d := f.rxWire - f.lastSample
		f.lastSample = f.rxWire
		f.series = append(f.series, float64(d)*8/ivl.Seconds())
	}
	for _, pt := range s.ports {
		if pt.st.q.on {
			pt.st.queueSeries = append(pt.st.queueSeries, pt.bytes)
		}
	}
	if next := s.now + ivl; next <= s.end {
		s.evq.push(event{at: next, kind: evSample})
	}
}

// Jain returns Jain's fairness index (Σx)² / (n·Σx²) of xs: 1 when all are
// equal, 1/n when one takes everything. It returns 0 for an empty list or
// all zeros, where the index is undefined.
func Jain(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	if len(xs) == 0 || sq == 0 {
		return 0
	}
	return sum * sum / (float64(len(xs)) * sq)
}
