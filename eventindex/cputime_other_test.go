//go:build !unix

package eventindex

import "time"

// cpuTime is 0 where the process's CPU time is not read (see
// cputime_unix_test.go): the benchmarks' per-CPU-second figures are then
// meaningless, their wall-clock ones are not.
func cpuTime() time.Duration { return 0 }
