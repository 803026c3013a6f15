package sqlserver

import (
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// MariaDB's executable comments.
//
// A comment /*M!NNNNNN text */ is run by MariaDB servers of version
// NNNNNN or later and is a plain comment for MySQL, which verso answers
// as. Dumps of mariadb-dump begin with one (/*M!999999\- enable the
// sandbox mode */, which MariaDB's client turns into /*M!999999 enable
// the sandbox mode */) and use them for MariaDB-only syntax. The parser
// would run their text; PlainMariaDBComments makes them plain comments
// first.

// PlainMariaDBComments returns query with each /*M! comment outside
// strings and quoted names turned into a plain comment, by changing its
// '!' to a space: the text keeps its length, so positions in it (of a
// syntax error, of a trigger's body) stay right.
func PlainMariaDBComments(query string) string {
	if !strings.Contains(query, "/*M!") {
		return query
	}
	b := []byte(query)
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\'' || c == '"' || c == '`':
			i = SkipQuoted(b, i)
		case c == '#' || c == '-' && i+2 < len(b) && b[i+1] == '-' && (b[i+2] == ' ' || b[i+2] == '\t' || b[i+2] == '\n'):
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			if i+3 < len(b) && b[i+2] == 'M' && b[i+3] == '!' {
				b[i+3] = ' '
			}
			if i+2 < len(b) && b[i+2] == '!' {
				// A MySQL executable comment holds SQL: go on inside it.
				i += 2
				continue
			}
			end := strings.Index(string(b[i+2:]), "*/")
			if end < 0 {
				return string(b)
			}
			i += 2 + end + 1
		}
	}
	return string(b)
}

// SkipQuoted returns the index of the quote that closes the string or
// name opened at s[i] (the last byte if none does). A backslash escapes
// the next byte in strings (not in `names`), and a doubled quote stands
// for itself.
func SkipQuoted[T ~string | ~[]byte](s T, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q != '`':
			j++
		case s[j] == q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j
		}
	}
	return len(s) - 1
}

// Floating-point values as text.
//
// MySQL writes a DOUBLE with the fewest digits that read back as the
// same value and a FLOAT with at most 6 significant digits, in fixed
// notation when the decimal exponent is from -15 to 14 (0.00001,
// 100000000000000, 0.000000000000015) and in scientific notation
// otherwise, without a '+' or leading zeros in the exponent (1e15,
// 1.5e300, 1e-16). The engine writes Go's shortest form (1e-05, 1e+15,
// 1.2345678 for a FLOAT): FormatFloat gives MySQL's, for the wire server
// and verso sql.

// FormatFloat returns v, a DOUBLE (bits 64) or a FLOAT (bits 32), as
// MySQL writes it.
func FormatFloat(v float64, bits int) string {
	prec := -1
	if bits == 32 {
		prec = 5 // six significant digits
	}
	e := strconv.FormatFloat(v, 'e', prec, bits)
	mant, exp, ok := strings.Cut(e, "e")
	if !ok {
		return e // Inf or NaN, which no column holds
	}
	x, _ := strconv.Atoi(exp)
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	if x >= -15 && x < 15 {
		r, _ := strconv.ParseFloat(mant+"e"+exp, 64)
		return strconv.FormatFloat(r, 'f', -1, 64)
	}
	return mant + "e" + strconv.Itoa(x)
}

// MySQLFloatText returns the text of a FLOAT or DOUBLE value as the engine
// writes it (b), rewritten as MySQL writes it; b if it is not a number.
func MySQLFloatText(b []byte, bits int) []byte {
	v, err := strconv.ParseFloat(string(b), bits)
	if err != nil {
		return b
	}
	return []byte(FormatFloat(v, bits))
}

// ENUM and SET defaults in SHOW CREATE TABLE.
//
// The engine writes an ENUM or SET column's default as the number it
// stores (DEFAULT '2' for enum('a','b') DEFAULT 'b'), which a dump then
// carries to MySQL or MariaDB, where it means something else or nothing.
// schemaFormatter writes the member names, as MySQL does.

// schemaFormatter is the engine's formatter of CREATE TABLE statements,
// with ENUM and SET defaults by name.
type schemaFormatter struct{ sql.SchemaFormatter }

func (f schemaFormatter) GenerateCreateTableColumnDefinition(col *sql.Column, colDefault, onUpdate string, tableCollation sql.CollationID) string {
	if n, ok := quotedNumber(colDefault); ok {
		switch t := col.Type.(type) {
		case sql.EnumType:
			if name, ok := t.At(int(n)); ok {
				colDefault = quoteString(name)
			}
		case sql.SetType:
			if names, err := t.BitsToString(n); err == nil {
				colDefault = quoteString(names)
			}
		}
	}
	return f.SchemaFormatter.GenerateCreateTableColumnDefinition(col, colDefault, onUpdate, tableCollation)
}

// quotedNumber returns the number of s, a default written '123'.
func quotedNumber(s string) (uint64, bool) {
	if len(s) < 3 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return 0, false
	}
	n, err := strconv.ParseUint(s[1:len(s)-1], 10, 64)
	return n, err == nil
}

// quoteString writes s as a SQL string literal, as SHOW CREATE TABLE
// does: in single quotes, a quote doubled.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// AfterKeyword returns query past its first keyword, when that is one of
// kws (lower-case; after spaces, comments other than MySQL's executable
// ones, and opening parentheses).
func AfterKeyword(q string, kws ...string) (string, bool) {
	for {
		q = strings.TrimLeft(q, " \t\r\n(")
		switch {
		case strings.HasPrefix(q, "/*") && !strings.HasPrefix(q, "/*!"):
			_, rest, ok := strings.Cut(q[2:], "*/")
			if !ok {
				return "", false
			}
			q = rest
		case strings.HasPrefix(q, "--") || strings.HasPrefix(q, "#"):
			_, rest, ok := strings.Cut(q, "\n")
			if !ok {
				return "", false
			}
			q = rest
		default:
			for _, kw := range kws {
				if len(q) > len(kw) && strings.EqualFold(q[:len(kw)], kw) && !isWordByte(q[len(kw)]) {
					return q[len(kw):], true
				}
			}
			return "", false
		}
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b == '$' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b >= 0x80
}
