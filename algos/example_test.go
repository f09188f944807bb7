package algos_test

import (
	"fmt"

	_ "github.com/hwcc/hwcc/algos" // registers hwcc's algorithms in cc's registry
	"github.com/hwcc/hwcc/cc"
)

// Looking a part up by name and configuring it. Importing package algos
// registers every algorithm; cc.Lookup finds one by name, its Part by role
// name, and the part's description lists its presets and its parameters
// with unit, default, range and source (what `hwcc algos dcqcn rp`
// prints). cc.NewRP builds the part from settings written name=value over
// a preset, and refuses a value out of range, naming the parameter and the
// range.
func Example() {
	a, err := cc.Lookup("dcqcn")
	if err != nil {
		panic(err)
	}
	rp, err := a.Part("rp")
	if err != nil {
		panic(err)
	}
	d := rp.Config.Describe()
	fmt.Print(a.Title, " ", rp.Name, " (", rp.Role, "), presets:")
	for _, p := range d.Presets {
		fmt.Print(" ", p.Name)
	}
	fmt.Println()
	for _, p := range d.Params {
		if p.Name == "rpg_time_reset" {
			fmt.Printf("%s: default %s, range %s..%s, source %s\n", p.Name, p.Default, p.Min, p.Max, p.Source)
		}
	}

	sender, err := cc.NewRP("dcqcn", "rp", "preset=connectx, link=25Gbps, rpg_time_reset=55us")
	if err != nil {
		panic(err)
	}
	fmt.Println("rate before any CNP:", sender.Limits().Rate)

	_, err = cc.NewRP("dcqcn", "rp", "rpg_time_reset=2s")
	fmt.Println(err)
	// Output:
	// DCQCN rp (reaction point), presets: connectx paper hpcc
	// rpg_time_reset: default 300us, range 1ps..1s, source [ConnectX] (NVIDIA DOCA, "DCQCN CC Parameters"); [Survey] §4.1.2 (T)
	// rate before any CNP: 25Gbps
	// dcqcn rp: rpg_time_reset = 2s: want a time in 1ps..1s
}
