package sqlserver

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dolthub/vitess/go/mysql"
)

// Database names. A database of a data dir is the folder of its name, and
// the data dir holds other things beside them: the users file
// (.verso-users), the folder of secure_file_priv (.verso-files), the
// dropped databases (.verso-dropped, dropped.go), and a
// database served alone keeps .verso in the same folder as the databases
// CREATE DATABASE makes there. So every name beginning with '.' is the
// data dir's, never a database's. The others follow MySQL's rules for a
// database name (at most 64 characters, valid UTF-8, no NUL, not ending
// with a space) and the file system's: no '/' or '\' ('/' also separates
// a database from a revision, db/branch), no control characters, not
// only white space.

// maxNameLen is MySQL's NAME_CHAR_LEN: the longest identifier, in
// characters.
const maxNameLen = 64

// checkDatabaseName returns MySQL's error for a name CREATE DATABASE must
// refuse: ER_TOO_LONG_IDENT (1059) for one longer than 64 characters, as
// MySQL, and ER_WRONG_DB_NAME (1102) for the others, with what is wrong
// and what to do.
func checkDatabaseName(name string) error {
	bad := func(why string) error {
		return mysql.NewSQLError(mysql.ERWrongDbName, mysql.SSClientError,
			"Incorrect database name '%s' (%s)", printableName(name), why)
	}
	switch {
	case name == "":
		return bad("it is empty")
	case !utf8.ValidString(name):
		return bad("it is not valid UTF-8")
	case utf8.RuneCountInString(name) > maxNameLen:
		return mysql.NewSQLError(mysql.ERTooLongIdent, mysql.SSClientError,
			"Identifier name '%s' is too long (a database name has at most %d characters)", name, maxNameLen)
	case strings.HasPrefix(name, "."):
		return bad("names beginning with '.' are reserved for the data dir's own files; choose another name")
	case strings.ContainsAny(name, `/\`):
		return bad(`a database name cannot hold '/' or '\'`)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return bad("a database name cannot hold NUL or other control characters")
	case strings.TrimSpace(name) == "":
		return bad("it is only white space")
	case strings.TrimRightFunc(name, unicode.IsSpace) != name:
		return bad("a database name cannot end with a space")
	}
	return nil
}

// printableName is name for a message: invalid UTF-8 and control
// characters written as Go escapes.
func printableName(name string) string {
	var b strings.Builder
	for i, r := range name {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(name[i:], string(utf8.RuneError)):
			fmt.Fprintf(&b, `\x%02x`, name[i])
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
