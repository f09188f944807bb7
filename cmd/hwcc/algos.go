package main

// The algorithm adapters and their paper scenarios register themselves with
// the harness when this package is linked in.
import _ "github.com/hwcc/hwcc/harness/algos"
