package bench

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system, on every
// thread: a side's cost counted with the collector work it causes. On a
// shared machine it varies far less than the wall time, which counts the
// time other processes held the cores, so the ratios report both.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
