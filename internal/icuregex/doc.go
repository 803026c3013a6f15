// Package icuregex is ICU's regular expressions (uregex, through cgo) for
// the SQL functions REGEXP_LIKE, REGEXP_INSTR, REGEXP_SUBSTR and
// REGEXP_REPLACE, with what the engine's own binding lacks: a match can be
// stopped. Every operation takes a context and ends, with the context's
// cause, soon after the context is done (ICU calls back every few
// thousand steps of its matcher, and the callback checks the context);
// and, as in MySQL, a Regex can carry a time limit (regexp_time_limit, in
// ICU's steps) and a backtracking stack limit (regexp_stack_limit, in
// bytes), past which a match fails with ErrTimeOut or ErrStackOverflow.
//
// Positions and results follow the engine's binding
// (github.com/dolthub/go-icu-regex) exactly, so the SQL functions built on
// this package give the engine's answers: positions are in UTF-16 code
// units, start and occurrence count from 1 (0 for Matches), and Replace
// follows MySQL's REGEXP_REPLACE.
//
// # Caveats
//
//   - Only with cgo and without the gms_pure_go build tag (the engine then
//     uses Go's regexp, whose matching takes linear time); otherwise the
//     package is empty.
//   - A Regex is not safe for concurrent use. Close frees its ICU memory;
//     a Regex dropped without Close is freed by a cleanup when the garbage
//     collector finds it.
package icuregex
