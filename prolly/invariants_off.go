//go:build !invariants

package prolly

// invariantsEnabled is false without the invariants build tag.
const invariantsEnabled = false
