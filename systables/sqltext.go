package systables

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	sqltypes "github.com/dolthub/vitess/go/sqltypes"

	"github.com/verso-db/verso/tables"
)

// SQL text of dolt_patch's statements, as Dolt writes it: identifiers in
// backquotes, values as literals a MySQL server reads back to the same
// value (a string quoted with backslash escapes, binary strings in hex,
// numbers bare, JSON compact in quotes, BIT as b'...').

// quoteName quotes an identifier in backquotes (a backquote in it
// doubled).
func quoteName(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// quoteString writes s as a string literal with MySQL's backslash escapes.
func quoteString(s string) string {
	var b bytes.Buffer
	sqltypes.MakeTrusted(sqltypes.VarChar, []byte(s)).EncodeSQL(&b)
	return b.String()
}

// sqlLiteral writes v, a value of type t as the engine holds it, as a SQL
// literal.
func sqlLiteral(ctx *sql.Context, t sql.Type, v any) (string, error) {
	if v == nil {
		return "NULL", nil
	}
	if types.IsBit(t) {
		n, _, err := types.Uint64.Convert(ctx, v)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("b'%b'", n), nil
	}
	sv, err := t.SQL(ctx, nil, v)
	if err != nil {
		return "", err
	}
	raw := sv.ToBytes()
	switch {
	case types.IsJSON(t):
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return quoteString(string(raw)), nil
		}
		return quoteString(b.String()), nil
	case types.IsBinaryType(t):
		return "0x" + hex.EncodeToString(raw), nil
	case types.IsInteger(t), types.IsFloat(t), types.IsDecimal(t):
		return string(raw), nil
	}
	return quoteString(string(raw)), nil
}

// Schema statements.

func renameTableStmt(from, to string) string {
	return "RENAME TABLE " + quoteName(from) + " TO " + quoteName(to) + ";"
}

func dropTableStmt(name string) string { return "DROP TABLE " + quoteName(name) + ";" }

func alterStmt(table, clause string) string {
	return "ALTER TABLE " + quoteName(table) + " " + clause + ";"
}

// indexClause returns the ADD clause of index ix of schema s.
func indexClause(s *tables.Schema, i int) string {
	ix := &s.Indexes[i]
	var cols []string
	for j, c := range ix.Columns {
		col := quoteName(s.Columns[c].Name)
		if p := ix.PrefixOf(j); p > 0 {
			col += fmt.Sprintf("(%d)", p)
		}
		cols = append(cols, col)
	}
	kind := "INDEX"
	if ix.Unique {
		kind = "UNIQUE INDEX"
	}
	return "ADD " + kind + " " + quoteName(ix.Name) + "(" + strings.Join(cols, ",") + ")"
}
