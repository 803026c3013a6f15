//go:build !cgo || gms_pure_go

package sqlserver

import "github.com/dolthub/go-mysql-server/sql"

// icuRegexps tells that this build's regular expressions are the
// engine's, over Go's regexp.
const icuRegexps = false

// withRegexpParser returns p: in builds without ICU the engine's regular
// expression functions stay, since they use Go's regexp, whose matching
// takes linear time (see regexp.go for the ICU build).
func withRegexpParser(p sql.Parser) sql.Parser { return p }

// regexpFunctions is empty: the engine's REGEXP_* functions stay.
var regexpFunctions []sql.Function
