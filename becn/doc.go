// Package becn holds the state machines of BECN and FECN, the one-bit
// explicit congestion notification schemes of ATM and InfiniBand, as the
// survey of lossless datacenter congestion control states them ([Survey]
// §4.1.1 "BECN" and §4.1.2 "FECN"). The survey's sources are [BECN] (its
// [51]) and [FECN] (its [50]) for BECN and the ATM EFCI bit, and [IBA]
// annex A10 (its [62]) for InfiniBand's FECN/BECN bits.
//
// BECN: when a queue exceeds a fixed threshold, the switch sends a one-bit
// notification (a BECN cell) to the source of each packet that joins it.
// FECN: the switch marks the packet instead (the EFCI bit) and the
// receiver returns the notification (an RM cell; InfiniBand's CNP). The
// source is the same in both: it halves its rate per notification, pauses
// after five in a row, and after a quiet period steps its rate back up,
// level by level, to the original rate.
//
// # What is where
//
//	CP   one switch egress queue, a cc.CongestionPoint: the byte threshold,
//	     judged on Enqueue (or Dequeue); ModeBECN notifies the source
//	     (FeedbackBECN, at most one per flow per MinInterval, paced in a
//	     hashed table of flows), ModeFECN marks the packet (ActionMarkCE).
//	     For registration as part "cp".                         cp.go
//	NP   the receiver of one flow, a cc.NotificationPoint (FECN only): a
//	     marked packet returns one FeedbackBECN to the source, at most one
//	     per MinInterval. For registration as part "np".        np.go
//	RP   the source of one flow, a cc.ReactionPoint (both schemes): RC in
//	     a 32-bit kb/s register, halved per notification, paused after
//	     PauseAfter in a row, doubled back per quiet period. For
//	     registration as part "rp".                             rp.go
//	FeedbackBECN  the notification's kind, cc.FeedbackUser + 24; the
//	     message is its kind alone.                         common.go
//
// # Constants and where they come from
//
//	halve per notification        survey 4.1.1 "cuts in half" (CutShift = 1)
//	pause after 5 in a row        survey 4.1.1 "five successive BECN cells"
//	                              (SurveyPauseAfter)
//	recover to the original rate  survey 4.1.1 "increased to the previous
//	                              level, until regains the original rate":
//	                              one doubling (the inverse of one halving)
//	                              per quiet period
//	quiet period Tq = 55 µs       hwcc's (SurveyQuietPeriod): DCQCN's K,
//	                              survey 4.1.2 ("usually 55µs")
//	notification spacing 50 µs    hwcc's (SurveyInterval): DCQCN's N,
//	                              survey 4.1.2 ("usually 50µs"), which
//	                              the survey says K must exceed
//	threshold 100 KB per 25 Gb/s  hwcc's: DCQCN's Kmin
//	                              (docs/derivations.md, BECN)
//	min rate 1 Mb/s               hwcc's: the NIC vendor's rpg_min_rate
//	                              (rp.DCQCNConnectX)
//	NP answers every mark         InfiniBand (InfiniBandNP): the receiver
//	                              returns a CNP or an ACK with BECN set per
//	                              FECN-marked packet
//
// What was looked up and not used: InfiniBand's source keeps a congestion
// control table index (CCTI), raised by CCTI_Increase per BECN up to
// CCTI_Limit and lowered by one per CCTI_Timer expiry (a 16-bit count of
// 1.024 µs) down to CCTI_Min, the table giving an inter-packet delay
// (IBA Vol. 1 annex A10 CACongestionSetting and CongestionControlTable,
// as the Linux hfi1 driver implements them); its switch marks above a
// 4-bit relative Threshold at a 16-bit Marking_Rate. That is a different
// rate law from the survey's halving and pausing, which this package
// follows; the spec's default timer values were not found, so the quiet
// period is hwcc's. Newman's papers could not be read here (only the
// GLOBECOM paper's abstract: BECN kept an ATM LAN of up to 50 km free of
// cell loss at over 80 % utilization); his threshold and recovery period
// are therefore not used, and the doubling per quiet period is hwcc's
// reading of the survey's "increased to the previous level".
//
// # Choices where the sources are silent
//
// Each is a configuration field, documented where it is:
//
//   - "above the threshold" is q > Threshold (CPConfig.Threshold), judged
//     as the packet joins the queue by default (CPConfig.At).
//   - how often a congested switch notifies a flow: at most once per
//     CPConfig.MinInterval, per flow, in a table of 2^CPConfig.TableBits
//     slots keyed by a hash of the flow ID, where colliding flows take the
//     slot from each other (extra notifications, never a silenced flow).
//   - how often a receiver answers marks: at most once per
//     NPConfig.MinInterval; marks in between are dropped, not deferred.
//   - "five successive" is a row: notifications each less than
//     RPConfig.QuietPeriod after the previous one; a gap of Tq or more
//     starts a new row. Every notification from the PauseAfter-th of a row
//     on pauses (or keeps paused).
//   - what ends a pause: the end of the row, at the first quiet period
//     (RPConfig.PauseTime = 0, the presets), or a fixed PauseTime after the
//     latest pausing notification.
//   - how the rate comes back: RC ← min(2·RC, LineRate) once per quiet
//     period, by the quiet timer.
//   - the floor of the halving: RPConfig.MinRate.
//   - the rate register: 32 bits of 1 kb/s (RateUnit), up to 4.29 Tb/s.
//
// # Conventions
//
// Every event takes now first and refuses, changing nothing, an event out
// of time order (cc.ErrTimeOrder) or with bad input (a nil packet or
// message, a negative size: a *cc.EventError); configurations are refused
// with a *cc.ConfigError naming the field, the value and the range; an
// event whose decision does not fit the caller's cc.Actions fails with
// *cc.ActionsFullError and changes nothing. Nothing panics; no event
// allocates; no state is a float; the only table is the CP's fixed array.
package becn
