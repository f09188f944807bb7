package harness

import "unsafe"

// slab hands out zeroed values of T from arrays of up to slabBytes, so
// that building a network of thousands of ports, queues or congestion
// points makes one allocation per array rather than one per value, and the
// values built one after the other sit next to each other in memory. The
// arrays stay below the runtime's large-object size (32 KB), so that they
// come from the per-thread caches and not from the page heap. The zero
// value is an empty slab.
type slab[T any] struct {
	free []T
}

// slabBytes is the most bytes one array of a slab holds, with the
// runtime's header (allocHeader): an array is a small object, so that the
// line types' padding, which counts on the header, puts their values on
// lines.
const slabBytes = 24 << 10

var _ [maxSmallAlloc - slabBytes]byte // slabBytes ≤ maxSmallAlloc

// next returns a pointer to a zeroed T.
func (s *slab[T]) next() *T {
	if len(s.free) == 0 {
		var zero T
		s.free = make([]T, max(1, (slabBytes-allocHeader)/int(unsafe.Sizeof(zero))))
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}
