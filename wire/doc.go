// Package wire holds the wire formats that both sides of an algorithm
// read: the switch's or receiver's parts write them, the sender's parts
// read them (or the other way), so they sit below the role packages cp, rp
// and np, which never import one another. Each format is a codec over the
// bytes a NIC or switch parser sees, with every field's width and offset
// stated, refusing malformed bytes with a *cc.DecodeError naming the byte.
//
// RoCEv2: the Base Transport Header (IBA Vol. 1 section 9.2) and the
// Congestion Notification Packet (IBA annex A17, RoCEv2), and the Ethernet
// framing around them. RoCC: the 16-byte payload of its CNP ([RoCC]
// §III-C), the fair rate a switch sends (cp.RoCC) or the queue report a
// host computes the rate from (§III-F, rp.RoCCHost), which the sender's
// parts read. HierCC ([HierCC] §3.2, §4): the header a ToR
// stamps, the host's header, the credit and the rate packet. ExpressPass
// ([ExpressPass]; [ExpressPass-ns2]): the credit, credit request and
// credit stop, and the echo a data frame carries.
//
// Sources: InfiniBand Trade Association, "InfiniBand Architecture
// Specification Volume 1", section 9.2 ("Base Transport Header"), the
// layout of the 12-byte BTH; section 7.8 (CRCs), the invariant CRC; and
// Annex A17, "RoCEv2", which carries the IBA transport over UDP/IP
// (destination port 4791) and defines the Congestion Notification Packet
// in section A17.9.3: a BTH with OpCode 0x81 and BECN set, 16 reserved
// bytes, then the ICRC. Packages np and rp model DCQCN's notification and
// reaction points, which send and take CNPs; this package models the
// CNP's bytes as a NIC's parser sees them.
//
// QCN: the congestion notification message (CNM) of IEEE 802.1Qau
// ([QCN]; field list as [QCN-HPE] reproduces it), which QCN's and
// AF-QCN's congestion points (cp.QCN, cp.AFQCN) send and QCN's reaction
// point (rp.QCN) reads: its first 16 bytes in cc.Feedback.Data.
//
// BECN and FECN: the one-bit notification (FeedbackBECN) that cp.BECN and
// np.FECN send and rp.BECN reads ([Survey] §4.1.1, §4.1.2): a kind and
// nothing else.
//
// # What is where
//
//	BTH            the 12-byte Base Transport Header, every field with its
//	               width (section 9.2): Validate, Encode, Put, AppendTo,
//	               DecodeBTH, Decode.                             roce_bth.go
//	CNP            the 32-byte transport part of a RoCEv2 CNP: BTH with
//	               OpCode 0x81 and BECN 1, 16 reserved bytes, ICRC
//	               (A17.9.3): Validate, BTH, Encode, Put, AppendTo,
//	               DecodeCNP, Decode.                             roce_cnp.go
//	ReservedWord   read and write a 32-bit word at offset 0..12 of the
//	PutReservedWord
//	               CNP's reserved bytes, in a given byte order, for
//	               schemes that carry a value there (Mercury's
//	               window).                                       roce_cnp.go
//	RoCCFeedback   RoCC's CNP payload: version, type (rate or report),
//	               counter, port, switch, rate, qdepth, flow (§III-C,
//	               Listing 1): Validate, Append, Put, PutRoCCFlow,
//	               DecodeRoCCFeedback, CP.                        rocc.go
//	constants      BTHBytes 12, CNPBytes 32, CNPReservedOffset 12,
//	               CNPICRCOffset 28, OpCodeCNP 0x81, MaxQPN = MaxPSN =
//	               2^24 − 1, MaxPadCnt 3, MaxTVer 15.      roce_bth.go, roce_cnp.go
//	CNM            QCN's congestion notification message: version,
//	               6-bit quantised feedback, CPID, cnmQOffset, cnmQDelta,
//	               encapsulated priority; Validate, Append, Put,
//	               DecodeCNM; CNMQ, the queue fields' unit; FeedbackCNM,
//	               its kind.                                      qcn.go
//	FeedbackBECN   BECN's and FECN's notification, its kind alone;
//	               BECNNotification builds one.                   becn.go
//	HierCCHeader   the 16-byte header the sender-side ToR writes into a
//	               data packet's cc.Packet.Hdr (ToR i, host j, F_ij,
//	               S_ij, the mark), HierCCHostHeader the host's flags
//	               before it (mark, first, last), HierCCCreditPacket
//	               (ToR → ToR) and HierCCRatePacket (ToR → host) in
//	               cc.Feedback.Data with kinds FeedbackHierCCCredit and
//	               FeedbackHierCCRate; the rate unit and range of every
//	               HierCC rate register.                           hiercc.go
//	ExpressPass-   the 16-byte payload of the credit, credit request and
//	Packet         credit stop (type, version, flow, sequence number,
//	               time stamp) in cc.Feedback.Data; the echo of a
//	               credit's number in a data frame's cc.Packet.Hdr
//	               (PutExpressPassEcho, ExpressPassEcho); the credit and
//	               data frame sizes and the sequence space.   expresspass.go
//	BFCTag         the tag a BFC switch writes into a leaving packet's
//	               cc.Packet.Hdr (switch ID, egress port, physical
//	               queue), BFCPause the pause of one upstream queue or
//	               one sender's flow with its lease, kind
//	               FeedbackBFCPause ([BFC]; hwcc's layout).         bfc.go
//
// # Choices
//
// The ICRC is carried, not computed. A RoCEv2 ICRC covers the IP and UDP
// headers and the BTH with their variant fields masked, and the payload;
// this codec sees only what follows the UDP header, so CNP.ICRC is the
// four bytes at offset 28 as given (read big-endian), written back as
// they were and never checked.
//
// The P_Key is kept as given: a CNP's P_Key is usually the default
// partition 0xFFFF or the flow's own, which is the sender's business; the
// codec neither defaults nor checks it. The 16 reserved bytes of a CNP are
// likewise kept as given, since schemes put values there.
//
// What is refused. Encoding refuses a value wider than its field (DestQP
// or PSN ≥ 2^24, PadCnt > 3, TVer > 15) with a *cc.EventError. Decoding a
// BTH refuses fewer than 12 bytes, a TVer other than 0 (the only version
// section 9.2 defines), and nonzero reserved bits (Resv6 in byte 4, Resv7
// in byte 8), each a *cc.DecodeError naming the byte offset; the OpCode is
// not checked. Decoding a CNP also refuses fewer than 32 bytes, an OpCode
// other than 0x81, SE, M, a nonzero PadCnt, FECN set, BECN clear, AckReq
// set and a nonzero PSN: a CNP has them all fixed. (Annex A17.9.3 fixes
// BECN at 1; a CNP's FECN is refused as well, so that every CNP has one
// encoding and CNP needs no field for it.) A hardware parser is
// free to ignore reserved bits on receive; this one refuses them so that
// what it accepts is exactly what its encoder writes, byte for byte.
//
// HierCC's, ExpressPass's and BFC's layouts are hwcc's (their papers name the
// fields, not their bytes); each format's doc gives its table and what
// its decoder refuses, always by a *cc.DecodeError naming the byte.
//
// Nothing allocates but the errors, AppendTo when its dst must grow, and
// ReservedWord and PutReservedWord given a byte order other than
// binary.BigEndian or binary.LittleEndian; nothing uses floating point.
package wire
