//go:build !linux

package main

import "os/exec"

// dieWithUs does nothing here: only Linux stops a child with its parent.
// A run that ends without closing its servers leaves the Dolt server
// running.
func dieWithUs(*exec.Cmd) {}
