//go:build !race

package server

// raceDetector: the tests run without the race detector.
const raceDetector = false
