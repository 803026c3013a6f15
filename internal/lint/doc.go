// Package lint holds tests that check rules of the whole module's source
// rather than of one package, with go/parser:
//
//   - no package declares func init() in a non-test file, except the
//     database/sql driver's registration (sql.Register) in driver/: the
//     module keeps no mutable state at package level, so registries are
//     static tables passed in, never filled by init (the design's rule).
//
// It has no API; run it with go test ./internal/lint/.
//
// # Caveats
//
//   - Files are parsed whatever their build constraints, so per-OS files
//     are checked on every platform.
//   - Test files (_test.go) and testdata folders are not checked.
package lint
