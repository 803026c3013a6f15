//go:build cgo && !gms_pure_go

package icuregex

// #cgo !windows LDFLAGS: -licui18n -licuuc -licudata
// #cgo windows LDFLAGS: -licuin -licuuc -licudt
// #include <stdint.h>
// #include <stdlib.h>
// #include <string.h>
// #include <unicode/uregex.h>
//
// extern int versoRegexContinue(uintptr_t h);
//
// // verso_continue is the match callback: ICU calls it every few
// // thousand steps, and stops the match when it returns false.
// static UBool verso_continue(const void *h, int32_t steps) {
// 	return versoRegexContinue((uintptr_t)h) != 0;
// }
//
// static void verso_set_callback(URegularExpression *re, uintptr_t h, UErrorCode *ec) {
// 	uregex_setMatchCallback(re, verso_continue, (const void *)h, ec);
// }
//
// // verso_replace is MySQL's REGEXP_REPLACE over the text set on re: the
// // text with the occurrence-th match found from start replaced by repl
// // (every match from there when occurrence is 0), written to dst
// // (capacity cap). It returns the result's length; when that is more
// // than cap, *status is U_BUFFER_OVERFLOW_ERROR and a second call with
// // a buffer of that length writes it. *found is 0 when nothing matched
// // (the result is then the text). Errors of the search are in
// // *findStatus: a stop by the callback, a time or stack limit.
// static int32_t verso_replace(URegularExpression *re, const UChar *text, int32_t start, int32_t occurrence,
// 		const UChar *repl, int32_t replLen, UChar *dst, int32_t cap, int *found,
// 		UErrorCode *findStatus, UErrorCode *status) {
// 	int32_t endPrev = 0;
// 	UBool ok = uregex_find(re, start, findStatus);
// 	for (int32_t i = 1; i < occurrence && ok; i++) {
// 		endPrev = uregex_end(re, 0, findStatus);
// 		ok = uregex_findNext(re, findStatus);
// 	}
// 	*found = ok;
// 	if (!ok || U_FAILURE(*findStatus)) {
// 		return 0;
// 	}
// 	// The text before the match replaced (or before start), as is.
// 	int32_t head = endPrev > start ? endPrev : start;
// 	int32_t n = head;
// 	if (head <= cap) {
// 		memcpy(dst, text, (size_t)head * sizeof(UChar));
// 		dst += head;
// 		cap -= head;
// 	} else {
// 		cap = 0;
// 		*status = U_BUFFER_OVERFLOW_ERROR;
// 	}
// 	do {
// 		n += uregex_appendReplacement(re, repl, replLen, &dst, &cap, status);
// 	} while (occurrence == 0 && uregex_findNext(re, findStatus));
// 	n += uregex_appendTail(re, &dst, &cap, status);
// 	return n;
// }
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/cgo"
	"unicode/utf16"
	"unsafe"
)

var (
	// ErrInvalid is a pattern ICU cannot compile (the engine's message).
	ErrInvalid = errors.New("the given regular expression is invalid")
	// ErrTimeOut is a match past the Regex's time limit (MySQL's
	// ER_REGEXP_TIME_OUT).
	ErrTimeOut = errors.New("Timeout exceeded in regular expression match.")
	// ErrStackOverflow is a match past the Regex's stack limit (MySQL's
	// ER_REGEXP_STACK_OVERFLOW).
	ErrStackOverflow = errors.New("Overflow in the regular expression backtrack stack.")
)

// Flags are ICU's pattern flags (UREGEX_*), as the engine's binding
// numbers them.
type Flags uint32

const (
	UnixLines       Flags = 1
	CaseInsensitive Flags = 2
	Multiline       Flags = 8
	DotAll          Flags = 32
)

// Regex is a compiled pattern and the text it searches.
type Regex struct {
	c *cregex
	// ctx is the context of the operation running, which the match
	// callback checks.
	ctx    context.Context
	handle cgo.Handle
}

// cregex is a Regex's C memory, freed by Close or by a cleanup.
type cregex struct {
	re      *C.URegularExpression
	text    *C.UChar
	textLen int
	textCap int
}

func (c *cregex) free() {
	if c.re != nil {
		C.uregex_close(c.re)
		c.re = nil
	}
	if c.text != nil {
		C.free(unsafe.Pointer(c.text))
		c.text = nil
	}
}

// Compile compiles pattern with flags. timeLimit bounds each match, in
// ICU's steps (MySQL's regexp_time_limit; 0: none); stackLimit bounds its
// backtracking stack, in bytes (regexp_stack_limit; 0: none).
func Compile(pattern string, flags Flags, timeLimit, stackLimit int32) (*Regex, error) {
	p := utf16.Encode([]rune(pattern))
	var pp *C.UChar
	if len(p) > 0 {
		pp = (*C.UChar)(unsafe.Pointer(&p[0]))
	}
	var ec C.UErrorCode
	re := C.uregex_open(pp, C.int32_t(len(p)), C.uint32_t(flags), nil, &ec)
	runtime.KeepAlive(p)
	if ec > 0 {
		if re != nil {
			C.uregex_close(re)
		}
		return nil, ErrInvalid
	}
	r := &Regex{c: &cregex{re: re}}
	r.handle = cgo.NewHandle(r)
	C.verso_set_callback(re, C.uintptr_t(r.handle), &ec)
	if timeLimit > 0 {
		C.uregex_setTimeLimit(re, C.int32_t(timeLimit), &ec)
	}
	C.uregex_setStackLimit(re, C.int32_t(stackLimit), &ec)
	if ec > 0 {
		r.Close()
		return nil, fmt.Errorf("setting up a regular expression: ICU error %d", int(ec))
	}
	runtime.AddCleanup(r, func(c *cregex) { c.free() }, r.c)
	return r, nil
}

// Close frees the Regex.
func (r *Regex) Close() error {
	if r == nil || r.c == nil {
		return nil
	}
	r.c.free()
	r.handle.Delete()
	r.c = nil
	return nil
}

// SetText sets the text the next operations search.
func (r *Regex) SetText(text string) error {
	u := utf16.Encode([]rune(text))
	c := r.c
	if len(u)+1 > c.textCap {
		if c.text != nil {
			C.free(unsafe.Pointer(c.text))
		}
		c.textCap = max(64, 2*(len(u)+1))
		c.text = (*C.UChar)(C.malloc(C.size_t(c.textCap) * C.sizeof_UChar))
	}
	buf := unsafe.Slice((*uint16)(unsafe.Pointer(c.text)), c.textCap)
	copy(buf, u)
	buf[len(u)] = 0
	c.textLen = len(u)
	var ec C.UErrorCode
	C.uregex_setText(c.re, c.text, C.int32_t(len(u)), &ec)
	if ec > 0 {
		return fmt.Errorf("unexpected UErrorCode from uregex_setText: %d", int(ec))
	}
	return nil
}

// begin makes ctx the context the match callback checks.
func (r *Regex) begin(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	r.ctx = ctx
	return nil
}

// stopped returns the error of a search that ICU ended with ec: the
// context's cause, or a limit's error; nil for other codes.
func (r *Regex) stopped(ec C.UErrorCode) error {
	switch ec {
	case C.U_REGEX_STOPPED_BY_CALLER:
		if err := context.Cause(r.ctx); err != nil {
			return err
		}
		return context.Canceled
	case C.U_REGEX_TIME_OUT:
		return ErrTimeOut
	case C.U_REGEX_STACK_OVERFLOW:
		return ErrStackOverflow
	}
	return nil
}

// find finds the occurrence-th match from start (uregex_find, then
// uregex_findNext).
func (r *Regex) find(start, occurrence int, ec *C.UErrorCode) bool {
	ok := C.uregex_find(r.c.re, C.int32_t(start), ec) != 0
	for i := 1; i < occurrence && ok; i++ {
		ok = C.uregex_findNext(r.c.re, ec) != 0
	}
	return ok
}

// Matches reports whether the pattern matches the text from start (0 is
// its beginning), as the engine's REGEXP does.
func (r *Regex) Matches(ctx context.Context, start, occurrence int) (bool, error) {
	if err := r.begin(ctx); err != nil {
		return false, err
	}
	defer func() { r.ctx = nil }()
	var ec C.UErrorCode
	ok := r.find(start, occurrence, &ec)
	if err := r.stopped(ec); err != nil {
		return false, err
	}
	if ec > 0 {
		return false, fmt.Errorf("unexpected UErrorCode from uregex_find/uregex_findNext: %d", int(ec))
	}
	return ok, nil
}

// IndexOf returns the position (from 1) of the start, or with endIndex
// just past the end, of the occurrence-th match from position start; 0
// for none.
func (r *Regex) IndexOf(ctx context.Context, start, occurrence int, endIndex bool) (int, error) {
	if err := r.begin(ctx); err != nil {
		return 0, err
	}
	defer func() { r.ctx = nil }()
	var ec C.UErrorCode
	ok := r.find(start-1, occurrence, &ec)
	if err := r.stopped(ec); err != nil {
		return 0, err
	}
	if !ok {
		return 0, nil
	}
	var i C.int32_t
	if endIndex {
		i = C.uregex_end(r.c.re, 0, &ec)
	} else {
		i = C.uregex_start(r.c.re, 0, &ec)
	}
	if ec > 0 {
		return 0, fmt.Errorf("unexpected UErrorCode from uregex_find/uregex_findNext: %d", int(ec))
	}
	return int(i) + 1, nil
}

// Substring returns the occurrence-th match from position start, and
// whether there is one.
func (r *Regex) Substring(ctx context.Context, start, occurrence int) (string, bool, error) {
	if err := r.begin(ctx); err != nil {
		return "", false, err
	}
	defer func() { r.ctx = nil }()
	var ec C.UErrorCode
	ok := r.find(start-1, occurrence, &ec)
	if err := r.stopped(ec); err != nil {
		return "", false, err
	}
	if !ok {
		return "", false, nil
	}
	s := C.uregex_start(r.c.re, 0, &ec)
	e := C.uregex_end(r.c.re, 0, &ec)
	if ec > 0 {
		return "", false, fmt.Errorf("unexpected UErrorCode from uregex_find/uregex_findNext: %d", int(ec))
	}
	return r.textString(int(s), int(e)), true, nil
}

// textString returns the text's code units [s, e) as a string.
func (r *Regex) textString(s, e int) string {
	u := unsafe.Slice((*uint16)(unsafe.Pointer(r.c.text)), r.c.textLen)
	return string(utf16.Decode(u[s:e]))
}

// Replace returns the text with the occurrence-th match from position
// start replaced by replacement (every match from there when occurrence
// is 0), as MySQL's REGEXP_REPLACE.
func (r *Regex) Replace(ctx context.Context, replacement string, start, occurrence int) (string, error) {
	if err := r.begin(ctx); err != nil {
		return "", err
	}
	defer func() { r.ctx = nil }()
	repl := utf16.Encode([]rune(replacement))
	// repl is passed to C, which does not keep it; a nul ends it.
	repl = append(repl, 0)
	capacity := r.c.textLen + len(repl) + 16
	for {
		dst := C.malloc(C.size_t(capacity) * C.sizeof_UChar)
		var found C.int
		var fs, st C.UErrorCode
		n := C.verso_replace(r.c.re, r.c.text, C.int32_t(start-1), C.int32_t(occurrence),
			(*C.UChar)(unsafe.Pointer(&repl[0])), C.int32_t(len(repl)-1),
			(*C.UChar)(dst), C.int32_t(capacity), &found, &fs, &st)
		if err := r.stopped(fs); err != nil {
			C.free(dst)
			return "", err
		}
		if fs > 0 {
			// A start past the text's end: the engine's binding answers
			// "" (REGEXP_REPLACE rejects such starts in bytes, but one
			// can still pass the end of a text counted in UTF-16 units).
			C.free(dst)
			return "", nil
		}
		if found == 0 {
			C.free(dst)
			return r.textString(0, r.c.textLen), nil
		}
		if st == C.U_BUFFER_OVERFLOW_ERROR && int(n) > capacity {
			C.free(dst)
			capacity = int(n)
			continue
		}
		if st > 0 {
			C.free(dst)
			return "", fmt.Errorf("unexpected UErrorCode from uregex_appendReplacement: %d", int(st))
		}
		out := string(utf16.Decode(unsafe.Slice((*uint16)(dst), int(n))))
		C.free(dst)
		return out, nil
	}
}
