package main

import (
	"os/exec"
	"syscall"
)

// dieWithUs makes the kernel stop c's process when the thread that
// starts it ends (startDolt keeps that thread for as long as the process
// runs): a run killed outright, or by a closed pipe, leaves no server
// behind.
func dieWithUs(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
