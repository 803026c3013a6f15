//go:build cgo && !gms_pure_go

package icuregex

// #include <stdint.h>
import "C"

import "runtime/cgo"

// versoRegexContinue is the Go side of ICU's match callback (icu.go): a
// match goes on while the context of the operation running is not done.
// (A file with //export may only declare C in its preamble, so the
// callback's C half is in icu.go.)
//
//export versoRegexContinue
func versoRegexContinue(h C.uintptr_t) C.int {
	r := cgo.Handle(h).Value().(*Regex)
	if r.ctx != nil && r.ctx.Err() != nil {
		return 0
	}
	return 1
}
