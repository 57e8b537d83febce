package redistest

import "syscall"

// procAttr makes the kernel kill the server if the test binary dies without
// running its cleanups (a panic, a timeout), so no server outlives it.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
