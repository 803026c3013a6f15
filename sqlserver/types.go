package sqlserver

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/systables"
	"github.com/verso-db/verso/tables"
)

// Column values cross between the SQL engine and storage here: each SQL
// type is stored as one prolly.Kind, and every engine value converts to a
// prolly.Value and back without loss. Keys built from the prolly values sort
// as the engine compares the SQL values (tested in types_test.go), which is
// what lets the engine's range lookups run as prolly range scans.

// kindOf returns the storage kind of a SQL column type.
func kindOf(t sql.Type) (prolly.Kind, error) {
	switch t.Type() {
	case sqltypes.Int8, sqltypes.Int16, sqltypes.Int24, sqltypes.Int32, sqltypes.Int64, sqltypes.Year:
		return prolly.KindInt, nil
	case sqltypes.Uint8, sqltypes.Uint16, sqltypes.Uint24, sqltypes.Uint32, sqltypes.Uint64, sqltypes.Bit:
		return prolly.KindUint, nil
	case sqltypes.Float32:
		return prolly.KindFloat32, nil
	case sqltypes.Float64:
		return prolly.KindFloat64, nil
	case sqltypes.Decimal:
		return prolly.KindDecimal, nil
	case sqltypes.Date:
		return prolly.KindDate, nil
	case sqltypes.Datetime:
		return prolly.KindDatetime, nil
	case sqltypes.Timestamp:
		return prolly.KindTimestamp, nil
	case sqltypes.Time:
		return prolly.KindTime, nil
	case sqltypes.Enum:
		return prolly.KindEnum, nil
	case sqltypes.Set:
		return prolly.KindSet, nil
	case sqltypes.TypeJSON:
		return prolly.KindJSON, nil
	case sqltypes.Char, sqltypes.VarChar, sqltypes.Text:
		return prolly.KindString, nil
	case sqltypes.Binary, sqltypes.VarBinary, sqltypes.Blob, sqltypes.Vector:
		// A VECTOR's value is its float32s, little-endian, as bytes.
		return prolly.KindBytes, nil
	}
	return 0, fmt.Errorf("verso does not store columns of type %s yet", t.String())
}

// toValue converts an engine value of column type t to a storage value.
func toValue(ctx context.Context, t sql.Type, v any) (prolly.Value, error) {
	if v == nil {
		return prolly.Null(), nil
	}
	k, err := kindOf(t)
	if err != nil {
		return prolly.Value{}, err
	}
	switch x := v.(type) {
	case sql.StringWrapper:
		s, err := x.Unwrap(ctx)
		if err != nil {
			return prolly.Value{}, err
		}
		v = s
	case sql.BytesWrapper:
		b, err := x.Unwrap(ctx)
		if err != nil {
			return prolly.Value{}, err
		}
		v = b
	}
	switch k {
	case prolly.KindInt:
		switch x := v.(type) {
		case int64:
			return prolly.Int(x), nil
		case int32:
			return prolly.Int(int64(x)), nil
		case int16:
			return prolly.Int(int64(x)), nil
		case int8:
			return prolly.Int(int64(x)), nil
		}
	case prolly.KindUint:
		switch x := v.(type) {
		case uint64:
			return prolly.Uint(x), nil
		case uint32:
			return prolly.Uint(uint64(x)), nil
		case uint16:
			return prolly.Uint(uint64(x)), nil
		case uint8:
			return prolly.Uint(uint64(x)), nil
		}
	case prolly.KindFloat32:
		if x, ok := v.(float32); ok {
			return prolly.Float32(x), nil
		}
	case prolly.KindFloat64:
		if x, ok := v.(float64); ok {
			return prolly.Float64(x), nil
		}
	case prolly.KindDecimal:
		if x, ok := v.(*apd.Decimal); ok {
			d, err := prolly.ParseDecimal(x.Text('f'))
			if err != nil {
				return prolly.Value{}, err
			}
			return prolly.Dec(d), nil
		}
	case prolly.KindDate:
		if x, ok := v.(time.Time); ok {
			y, m, d := x.Date()
			return prolly.Date(y, int(m), d), nil
		}
	case prolly.KindDatetime:
		if x, ok := v.(time.Time); ok {
			return prolly.Datetime(x), nil
		}
	case prolly.KindTimestamp:
		if x, ok := v.(time.Time); ok {
			return prolly.Timestamp(x), nil
		}
	case prolly.KindTime:
		if x, ok := v.(types.Timespan); ok {
			return prolly.Time(time.Duration(x) * time.Microsecond), nil
		}
	case prolly.KindEnum:
		if x, ok := v.(uint16); ok {
			return prolly.Enum(x), nil
		}
	case prolly.KindSet:
		if x, ok := v.(uint64); ok {
			return prolly.Set(x), nil
		}
	case prolly.KindJSON:
		if x, ok := v.(sql.JSONWrapper); ok {
			b, err := types.MarshallJson(ctx, x)
			if err != nil {
				return prolly.Value{}, err
			}
			return prolly.JSON(b), nil
		}
	case prolly.KindString:
		if x, ok := v.(string); ok {
			return prolly.String(x), nil
		}
	case prolly.KindBytes:
		switch x := v.(type) {
		case []byte:
			return prolly.Bytes(x), nil
		case string:
			return prolly.Bytes([]byte(x)), nil
		}
	}
	// Not the type's canonical Go value: let the type convert it once.
	cv, _, err := t.Convert(ctx, v)
	if err != nil {
		return prolly.Value{}, err
	}
	if cv == nil || fmt.Sprintf("%T", cv) == fmt.Sprintf("%T", v) {
		if cv == nil {
			return prolly.Null(), nil
		}
		return prolly.Value{}, fmt.Errorf("cannot store %T in a column of type %s", v, t.String())
	}
	return toValue(ctx, t, cv)
}

// fromValue converts a storage value back to the engine value of column type
// t.
func fromValue(t sql.Type, v prolly.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	switch v.Kind() {
	case prolly.KindInt:
		i := v.AsInt()
		switch t.Type() {
		case sqltypes.Int8:
			return int8(i), nil
		case sqltypes.Int16, sqltypes.Year:
			return int16(i), nil
		case sqltypes.Int24, sqltypes.Int32:
			return int32(i), nil
		}
		return i, nil
	case prolly.KindUint:
		u := v.AsUint()
		switch t.Type() {
		case sqltypes.Uint8:
			return uint8(u), nil
		case sqltypes.Uint16:
			return uint16(u), nil
		case sqltypes.Uint24, sqltypes.Uint32:
			return uint32(u), nil
		}
		return u, nil
	case prolly.KindFloat32:
		return float32(v.AsFloat64()), nil
	case prolly.KindFloat64:
		return v.AsFloat64(), nil
	case prolly.KindDecimal:
		d, _, err := apd.NewFromString(v.AsDecimal().String())
		if err != nil {
			return nil, err
		}
		// Storage keeps a decimal's value, not its scale (1.50 is 1.5):
		// give it back the column's scale, as MySQL shows it.
		if dt, ok := t.(sql.DecimalType); ok && d.Exponent > -int32(dt.Scale()) {
			if _, err := apd.BaseContext.WithPrecision(200).Quantize(d, d, -int32(dt.Scale())); err != nil {
				return nil, err
			}
		}
		return d, nil
	case prolly.KindDate:
		y, m, d := v.AsDate()
		return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC), nil
	case prolly.KindDatetime, prolly.KindTimestamp:
		return v.AsTime(), nil
	case prolly.KindTime:
		return types.Timespan(v.AsInt()), nil
	case prolly.KindEnum:
		return uint16(v.AsUint()), nil
	case prolly.KindSet:
		return v.AsUint(), nil
	case prolly.KindJSON:
		return systables.JSON(v.AsBytes()), nil
	case prolly.KindString:
		return v.AsString(), nil
	case prolly.KindBytes:
		return v.AsBytes(), nil
	}
	return nil, fmt.Errorf("%w: a stored value of kind %s in a column of type %s", tables.ErrCorrupt, v.Kind(), t.String())
}

// collationSortKey returns the sort key of s in collation c: the big-endian
// weight of each rune. bytes.Compare of two sort keys orders the strings as
// the engine's string comparison does: rune weight by rune weight, a
// shorter string first. (The engine does not ignore trailing spaces in PAD
// SPACE collations, so neither do the keys.)
func collationSortKey(c sql.CollationID) func(string) []byte {
	weight := c.Sorter()
	return func(s string) []byte {
		out := make([]byte, 0, 4*len(s))
		for len(s) > 0 {
			r, n := utf8.DecodeRuneInString(s)
			out = binary.BigEndian.AppendUint32(out, uint32(weight(r)))
			s = s[n:]
		}
		return out
	}
}

// sqlCollations are the collations table storage keys string columns by
// (tables.Collations): every one the engine can sort by, other than the
// binary ones, under its name. It keeps nothing: each lookup asks the
// engine's own table of collations. The SQL layer passes it wherever it
// opens tables (tables.New, tables.Load, tablemerge.Options).
type sqlCollations struct{}

var _ tables.Collations = sqlCollations{}

// Collations returns the SQL layer's collations: the sort keys of the
// string collations go-mysql-server knows, for a program that opens
// databases with the engine alone (verso.Options.Collations) and reads or
// merges tables that SQL made.
func Collations() tables.Collations { return sqlCollations{} }

// SortKey implements tables.Collations.
func (sqlCollations) SortKey(name string) (func(string) []byte, bool) {
	id, err := sql.ParseCollation("", name, false)
	if err != nil {
		return nil, false
	}
	f := collationKeyFor(id)
	return f, f != nil
}

// collationKeyFor returns the sort-key function of a non-binary collation,
// or nil.
func collationKeyFor(c sql.CollationID) func(string) []byte {
	if c == sql.Collation_binary || strings.HasSuffix(c.Name(), "_bin") || c.Sorter() == nil {
		return nil
	}
	return collationSortKey(c)
}
