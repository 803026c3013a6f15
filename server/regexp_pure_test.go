//go:build !cgo || gms_pure_go

package server

// icuRegexps tells that this build's regular expressions are the engine's,
// over Go's regexp (sqlserver's regexp_pure.go), which match in linear
// time.
const icuRegexps = false
