package harness

// SwitchNamed returns the handle of switch name's switch point (nil if
// there is no such switch, or it runs none): the external tests read a
// switch's VOQs through it, and call its methods with arguments no
// action can carry.
func (s *Sim) SwitchNamed(name string) *Switch {
	if n := s.byName[name]; n != nil && !n.isHost {
		return n.module
	}
	return nil
}
