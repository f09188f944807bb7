package wire

import (
	"encoding/binary"
	"strconv"

	"github.com/hwcc/hwcc/cc"
)

// Mercury's window in a CNP ([Mercury] §"Window-based congestion
// notification"): the switch (cp.Mercury) writes the window it computed
// into the CNP's reserved bytes, the sender (rp.Mercury) reads it. The
// paper says "the 32-bit reserved segment in CNP" and no more, so where
// the word sits and its byte order are configuration (MercuryWindow), and
// both sides must agree.

// MercuryByteOrder is the order of the window's 32-bit word in the CNP.
type MercuryByteOrder uint8

// The byte orders.
const (
	MercuryBigEndian    MercuryByteOrder = iota // network order (hwcc's default)
	MercuryLittleEndian                         // little-endian
)

// MercuryWindow is where Mercury's window travels in a CNP's 16 reserved
// bytes (cc.Feedback.Data; on the wire, CNP.Reserved): a 32-bit word of
// bytes at Offset (0..MaxReservedWordOffset) in Order. The zero value is
// the first four bytes, big-endian.
type MercuryWindow struct {
	Offset int
	Order  MercuryByteOrder
}

// Validate refuses an offset outside 0..MaxReservedWordOffset (12) or an
// unknown order with a *cc.ConfigError naming part (the configuration
// that holds the window) and the field.
func (w MercuryWindow) Validate(part string) error {
	switch {
	case w.Offset < 0 || w.Offset > MaxReservedWordOffset:
		return &cc.ConfigError{Part: part, Field: "Window.Offset", Value: strconv.Itoa(w.Offset), Range: "0.." + strconv.Itoa(MaxReservedWordOffset)}
	case w.Order > MercuryLittleEndian:
		return &cc.ConfigError{Part: part, Field: "Window.Order", Value: strconv.Itoa(int(w.Order)), Range: "MercuryBigEndian or MercuryLittleEndian"}
	}
	return nil
}

// order is the window's binary.ByteOrder (nil for an unknown one, which
// Validate refuses).
func (w MercuryWindow) order() binary.ByteOrder {
	switch w.Order {
	case MercuryBigEndian:
		return binary.BigEndian
	case MercuryLittleEndian:
		return binary.LittleEndian
	}
	return nil
}

// Put writes window v (bytes) into CNP payload d, the CNP's reserved
// field (PutReservedWord, which allocates nothing for either order). A
// MercuryWindow that Validate refuses writes nothing.
func (w MercuryWindow) Put(d *[CNPReservedBytes]byte, v uint32) {
	_ = PutReservedWord(d, w.Offset, w.order(), v)
}

// Get reads the window (bytes) from CNP payload d (ReservedWord). A
// MercuryWindow that Validate refuses reads 0.
func (w MercuryWindow) Get(d *[CNPReservedBytes]byte) uint32 {
	v, _ := ReservedWord(d, w.Offset, w.order())
	return v
}
