//go:build invariants

package prolly

// invariantsEnabled turns on expensive self-checks: every map written by a
// Builder or Apply is verified with Check. Build with -tags invariants.
const invariantsEnabled = true
