package algos

import (
	// The cc registrations the scenarios run: every registered algorithm
	// runs in the harness through its registration's deployment.
	_ "github.com/hwcc/hwcc/algos"
	"github.com/hwcc/hwcc/units"
)

// The registry names of the algorithms the built-in scenarios run.
const (
	becnName        = "becn"
	bfcName         = "bfc"
	fecnName        = "fecn"
	dcqcnName       = "dcqcn"
	dctcpName       = "dctcp"
	expressPassName = "expresspass"
	hierccName      = "hiercc"
	hpccName        = "hpcc"
	mercuryName     = "mercury"
	paccName        = "pacc"
	qcnName         = "qcn"
	afqcnName       = "afqcn"
	roccName        = "rocc"
	tcdName         = "tcd"
	timelyName      = "timely"
	nsccName        = "nscc"
	rcccName        = "rccc"
	uecName         = "uec"
)

// roccAutoSplit is the largest port rate that gets the 40 Gb/s setting
// under the registry's preset auto (the rocc parts' auto presets), and the
// largest bottleneck the scenarios give the paper's 40 Gb/s PFC threshold.
const roccAutoSplit = 40 * units.Gbps
