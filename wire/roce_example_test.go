package wire_test

import (
	"encoding/binary"
	"fmt"

	"github.com/hwcc/hwcc/wire"
)

// A notification point answers a CE-marked packet of the flow whose
// sender is QP 0xD2 with a CNP in the default partition. The ICRC is the
// caller's: the codec carries it.
func ExampleCNP_Encode() {
	c := wire.CNP{DestQP: 0xD2, PKey: 0xFFFF, ICRC: 0xE42DAD81}
	b, err := c.Encode()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("BTH      % x\n", b[:wire.CNPReservedOffset])
	fmt.Printf("reserved % x\n", b[wire.CNPReservedOffset:wire.CNPICRCOffset])
	fmt.Printf("ICRC     % x\n", b[wire.CNPICRCOffset:])
	// Output:
	// BTH      81 00 ff ff 40 00 00 d2 00 00 00 00
	// reserved 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
	// ICRC     e4 2d ad 81
}

// A reaction point reads the CNP after the UDP header; a data packet's
// BTH is not a CNP.
func ExampleDecodeCNP() {
	in := []byte{
		0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x00, 0xd2, 0x00, 0x00, 0x00, 0x00,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0xe4, 0x2d, 0xad, 0x81,
	}
	c, err := wire.DecodeCNP(in)
	fmt.Printf("QP %#x P_Key %#x ICRC %#x %v\n", c.DestQP, c.PKey, c.ICRC, err)

	in[0] = 0x04 // RC SEND Only
	_, err = wire.DecodeCNP(in)
	fmt.Println(err)
	// Output:
	// QP 0xd2 P_Key 0xffff ICRC 0xe42dad81 <nil>
	// CNP: byte 0: OpCode 4, want 129 (0x81, CNP)
}

// A data packet's BTH: an RC RDMA WRITE Only asking for an ACK, its ECN
// bits, and a malformed header's offset.
func ExampleDecodeBTH() {
	in := []byte{0x0a, 0x00, 0xff, 0xff, 0x80, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x2a}
	h, err := wire.DecodeBTH(in)
	fmt.Printf("op %#02x QP %d PSN %d AckReq %v FECN %v BECN %v %v\n", h.OpCode, h.DestQP, h.PSN, h.AckReq, h.FECN, h.BECN, err)

	in[8] |= 0x01 // a reserved bit
	_, err = wire.DecodeBTH(in)
	fmt.Println(err)
	// Output:
	// op 0x0a QP 256 PSN 42 AckReq true FECN true BECN false <nil>
	// BTH: byte 8: Resv7 1, want 0
}

// Encoding refuses a value wider than its field.
func ExampleBTH_Encode() {
	b, err := wire.BTH{OpCode: 0x04, PKey: 0xFFFF, DestQP: 7, PSN: 0xFFFFFF}.Encode()
	fmt.Printf("% x %v\n", b, err)
	_, err = wire.BTH{PSN: 1 << 24}.Encode()
	fmt.Println(err)
	// Output:
	// 04 00 ff ff 00 00 00 07 00 ff ff ff <nil>
	// wire.BTH Encode: PSN 16777216, want 0..16777215 (24 bits)
}

// A scheme that carries a 32-bit value in the CNP's reserved bytes (a
// window, say) writes and reads it in its own byte order.
func ExamplePutReservedWord() {
	c := wire.CNP{DestQP: 0xD2, PKey: 0xFFFF}
	if err := wire.PutReservedWord(&c.Reserved, 0, binary.BigEndian, 65536); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := c.Encode()
	d, _ := wire.DecodeCNP(b[:])
	w, err := wire.ReservedWord(&d.Reserved, 0, binary.BigEndian)
	fmt.Printf("bytes 12-15 % x, window %d %v\n", b[12:16], w, err)
	_, err = wire.ReservedWord(&d.Reserved, 13, binary.BigEndian)
	fmt.Println(err)
	// Output:
	// bytes 12-15 00 01 00 00, window 65536 <nil>
	// wire.CNP ReservedWord: offset 13, want 0..12 (a 32-bit word inside the 16 reserved bytes)
}
