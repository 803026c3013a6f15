//go:build race

package server

// raceDetector: the tests run under the race detector, whose
// instrumentation slows the engine's row loops several times over.
const raceDetector = true
