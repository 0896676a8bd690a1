package lab

import "fmt"

// RaceRuns launches a racing kernel launches times through run, which
// launches it once (after shuffling what the threads offer) and returns
// the value the kernel left where want belongs. It returns how many
// launches left another value, and the largest value left.
func RaceRuns(launches int, want int32, run func() int32) (wrong int, worst int32) {
	worst = want
	for l := 0; l < launches; l++ {
		got := run()
		if got != want {
			wrong++
		}
		worst = max(worst, got)
	}
	return wrong, worst
}

// RaceVerdict says, in a sentence, what a plain read-compare-write did on
// the named device beside its atomicMin twin, from how many of launches
// each left a wrong value. An atomicMin kernel that was ever wrong is an
// error.
func RaceVerdict(device string, plainWrong, atomicWrong, launches int) (string, error) {
	if atomicWrong != 0 {
		return "", fmt.Errorf("atomicMin left a wrong distance in %d of %d launches", atomicWrong, launches)
	}
	if plainWrong == 0 {
		return fmt.Sprintf("Here the race did not show: the plain read-compare-write left the minimum in every launch on the %s. That proves nothing — a lost update depends on timing — and atomicMin is what makes the answer certain.", device), nil
	}
	return fmt.Sprintf("On the %s the plain read-compare-write lost the minimum in %d of %d launches; atomicMin never did.", device, plainWrong, launches), nil
}
