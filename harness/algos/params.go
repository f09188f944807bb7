package algos

import "strings"

// onOffWant is what the error of a bad on/off value asks for.
const onOffWant = "on or off (true/false, 1/0)"

// parseOnOff reads a switch-like parameter value: on/off, true/false or
// 1/0, in any case. ok is false for anything else.
func parseOnOff(v string) (b, ok bool) {
	switch strings.ToLower(v) {
	case "on", "true", "1":
		return true, true
	case "off", "false", "0":
		return false, true
	}
	return false, false
}
