// Package testseed gives every randomized test in verso one seed: 1 by
// default, so that CI runs are repeatable, or the one asked for with the
// test flag -seed N or the environment variable VERSO_SEED (a number, or
// "random" to draw one from the clock). The seed is logged so that a
// failure can be replayed:
//
//	go test ./prolly -run TestMapModel -seed 12345
//	VERSO_SEED=random go test ./...
package testseed

import (
	"flag"
	"os"
	"strconv"
	"testing"
	"time"
)

var seedFlag = flag.Uint64("seed", 0, "seed of the randomized tests (0: $VERSO_SEED, else 1)")

// Seed returns the seed of the calling test and logs it.
func Seed(t testing.TB) uint64 {
	t.Helper()
	s := uint64(1)
	switch env := os.Getenv("VERSO_SEED"); env {
	case "":
	case "random":
		s = uint64(time.Now().UnixNano())
	default:
		v, err := strconv.ParseUint(env, 10, 64)
		if err != nil {
			t.Fatalf("VERSO_SEED=%q is neither a number nor \"random\"", env)
		}
		s = v
	}
	if *seedFlag != 0 {
		s = *seedFlag
	}
	t.Logf("seed %d (replay with -seed %d or VERSO_SEED=%d)", s, s, s)
	return s
}
