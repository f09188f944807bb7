package wire

// Ethernet framing of a RoCEv2 packet: what a frame adds around the
// transport part on the wire (IEEE 802.3 clause 3; RoCEv2 runs over
// IPv4/UDP, IBA Vol. 1 Annex A17).
const (
	// EthernetHeaderBytes is an untagged Ethernet header: destination,
	// source, EtherType.
	EthernetHeaderBytes = 14
	// EthernetFCSBytes is the frame check sequence.
	EthernetFCSBytes = 4
	// WireGapBytes is what every frame also takes on the wire: a 7-byte
	// preamble, a 1-byte start-of-frame delimiter and a 12-byte
	// inter-frame gap.
	WireGapBytes = 20
	// MinFrameBytes is the smallest Ethernet frame, FCS included: a
	// control message of a few bytes is padded to it.
	MinFrameBytes = 64
	// IPv4HeaderBytes and UDPHeaderBytes are the IPv4 header without
	// options and the UDP header (destination port 4791).
	IPv4HeaderBytes = 20
	UDPHeaderBytes  = 8
	// CNPFrameBytes is a CNP's whole frame: Ethernet 14, IPv4 20, UDP 8,
	// then CNPBytes (BTH 12, reserved 16, ICRC 4), FCS 4: 78 bytes.
	CNPFrameBytes = EthernetHeaderBytes + IPv4HeaderBytes + UDPHeaderBytes + CNPBytes + EthernetFCSBytes
)

// The CNP frame adds up: 14 + 20 + 8 + 32 + 4 = 78.
var (
	_ [CNPFrameBytes - 78]byte
	_ [78 - CNPFrameBytes]byte
)
