//go:build cgo && !gms_pure_go

package server

// icuRegexps tells that this build's regular expressions are ICU's
// (sqlserver's regexp.go), which stop at regexp_time_limit and on KILL.
const icuRegexps = true
