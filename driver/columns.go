package driver

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
	"reflect"
	"strconv"
	"time"

	gms "github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/proto/query"
)

// The values of results: they come back as these Go types (NULL as nil):
//
//	TINYINT ... BIGINT, YEAR        int64
//	... UNSIGNED, BIT               uint64
//	FLOAT, DOUBLE                   float64
//	DECIMAL                         string, exactly as stored ("12.50")
//	CHAR, VARCHAR, TEXT, ENUM, SET  string
//	JSON                            string (the document's JSON text)
//	TIME                            string, as the engine prints it
//	                                ("13:14:15.000000", "-838:59:59.000000")
//	BINARY, VARBINARY, BLOB,
//	GEOMETRY                        []byte (a copy the caller owns)
//	DATE, DATETIME, TIMESTAMP       time.Time in UTC, the value as the
//	                                server would send it read as UTC (as
//	                                go-sql-driver/mysql's parseTime=true
//	                                with loc=UTC); a zero date is the zero
//	                                time.Time
//
// kind is how a result column's values become Go values.
type kind uint8

const (
	kindString kind = iota
	kindInt
	kindUint
	kindFloat
	kindBytes
	kindTime
	kindNull
)

// column is a result column.
type column struct {
	name string
	typ  gms.Type
	null bool
	kind kind
}

func newColumns(sch gms.Schema) []column {
	cols := make([]column, len(sch))
	for i, c := range sch {
		cols[i] = column{name: c.Name, typ: c.Type, null: c.Nullable, kind: kindOf(c.Type.Type())}
	}
	return cols
}

func kindOf(t query.Type) kind {
	switch {
	case t == sqltypes.Null:
		return kindNull
	case t == sqltypes.Bit || sqltypes.IsUnsigned(t) && t != sqltypes.Year:
		return kindUint
	case sqltypes.IsSigned(t) || t == sqltypes.Year:
		return kindInt
	case sqltypes.IsFloat(t):
		return kindFloat
	case t == sqltypes.Date || t == sqltypes.Datetime || t == sqltypes.Timestamp:
		return kindTime
	case t == sqltypes.Binary || t == sqltypes.VarBinary || t == sqltypes.Blob || t == sqltypes.Geometry:
		return kindBytes
	}
	return kindString
}

// value returns v, a value of the column from the engine, as a Go value.
func (col *column) value(ctx *gms.Context, v any) (driver.Value, error) {
	if v == nil || col.kind == kindNull {
		return nil, nil
	}
	switch col.kind {
	case kindInt:
		if i, ok := asInt64(v); ok {
			return i, nil
		}
	case kindUint:
		if u, ok := asUint64(v); ok {
			return u, nil
		}
	case kindFloat:
		switch f := v.(type) {
		case float64:
			return f, nil
		case float32:
			return float64(f), nil
		}
	case kindString:
		if s, ok := v.(string); ok && !isEnumOrSet(col.typ) {
			return s, nil
		}
	case kindBytes:
		switch b := v.(type) {
		case []byte:
			return append([]byte(nil), b...), nil
		case string:
			return []byte(b), nil
		}
	}
	// Everything else (decimals, JSON, ENUM and SET, times, values of
	// other Go types): the value as the server sends it.
	sv, err := col.typ.SQL(ctx, nil, v)
	if err != nil {
		return nil, err
	}
	if sv.IsNull() {
		return nil, nil
	}
	b := sv.ToBytes()
	switch col.kind {
	case kindInt:
		return strconv.ParseInt(string(b), 10, 64)
	case kindUint:
		if sv.Type() == sqltypes.Bit {
			var u uint64
			for _, c := range b {
				u = u<<8 | uint64(c)
			}
			return u, nil
		}
		return strconv.ParseUint(string(b), 10, 64)
	case kindFloat:
		return strconv.ParseFloat(string(b), 64)
	case kindTime:
		return parseTime(string(b))
	case kindBytes:
		return append([]byte(nil), b...), nil
	}
	return string(b), nil
}

func isEnumOrSet(t gms.Type) bool {
	q := t.Type()
	return q == sqltypes.Enum || q == sqltypes.Set
}

func asInt64(v any) (int64, bool) {
	switch i := v.(type) {
	case int64:
		return i, true
	case int32:
		return int64(i), true
	case int16:
		return int64(i), true
	case int8:
		return int64(i), true
	case int:
		return int64(i), true
	case bool:
		if i {
			return 1, true
		}
		return 0, true
	case uint8:
		return int64(i), true
	case uint16:
		return int64(i), true
	case uint32:
		return int64(i), true
	}
	return 0, false
}

func asUint64(v any) (uint64, bool) {
	switch u := v.(type) {
	case uint64:
		return u, true
	case uint32:
		return uint64(u), true
	case uint16:
		return uint64(u), true
	case uint8:
		return uint64(u), true
	case uint:
		return uint64(u), true
	}
	return 0, false
}

// timeLayouts are the forms of DATE, DATETIME and TIMESTAMP values.
var timeLayouts = []string{"2006-01-02 15:04:05.999999999", "2006-01-02"}

// parseTime reads a date or datetime as the server sends it, in UTC.
func parseTime(s string) (time.Time, error) {
	if s == "0000-00-00" || s == "0000-00-00 00:00:00" || len(s) > 20 && s[:20] == "0000-00-00 00:00:00." {
		return time.Time{}, nil
	}
	for _, l := range timeLayouts {
		if t, err := time.ParseInLocation(l, s, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("driver: cannot read the time %q", s)
}

// databaseTypeName is the column's type as go-sql-driver/mysql names it
// (ColumnTypeDatabaseTypeName).
func (col *column) databaseTypeName() string {
	switch t := col.typ.Type(); t {
	case sqltypes.Int8:
		return "TINYINT"
	case sqltypes.Uint8:
		return "UNSIGNED TINYINT"
	case sqltypes.Int16:
		return "SMALLINT"
	case sqltypes.Uint16:
		return "UNSIGNED SMALLINT"
	case sqltypes.Int24:
		return "MEDIUMINT"
	case sqltypes.Uint24:
		return "UNSIGNED MEDIUMINT"
	case sqltypes.Int32:
		return "INT"
	case sqltypes.Uint32:
		return "UNSIGNED INT"
	case sqltypes.Int64:
		return "BIGINT"
	case sqltypes.Uint64:
		return "UNSIGNED BIGINT"
	case sqltypes.Float32:
		return "FLOAT"
	case sqltypes.Float64:
		return "DOUBLE"
	case sqltypes.Decimal:
		return "DECIMAL"
	case sqltypes.Text:
		return "TEXT"
	case sqltypes.Blob:
		return "BLOB"
	case sqltypes.VarChar:
		return "VARCHAR"
	case sqltypes.VarBinary:
		return "VARBINARY"
	case sqltypes.Char:
		return "CHAR"
	case sqltypes.Binary:
		return "BINARY"
	case sqltypes.Null:
		return "NULL"
	default:
		// DATE, DATETIME, TIMESTAMP, TIME, YEAR, JSON, ENUM, SET, BIT,
		// GEOMETRY: the protocol's name is MySQL's.
		return query.Type_name[int32(t)]
	}
}

// Scan types (ColumnTypeScanType): the Go type of the column's values, or
// its sql.Null form for a nullable column.
var (
	scanInt64       = reflect.TypeOf(int64(0))
	scanNullInt64   = reflect.TypeOf(sql.NullInt64{})
	scanUint64      = reflect.TypeOf(uint64(0))
	scanNullUint64  = reflect.TypeOf(sql.Null[uint64]{})
	scanFloat64     = reflect.TypeOf(float64(0))
	scanNullFloat64 = reflect.TypeOf(sql.NullFloat64{})
	scanString      = reflect.TypeOf("")
	scanNullString  = reflect.TypeOf(sql.NullString{})
	scanBytes       = reflect.TypeOf([]byte(nil))
	scanTime        = reflect.TypeOf(time.Time{})
	scanNullTime    = reflect.TypeOf(sql.NullTime{})
	scanAny         = reflect.TypeOf(new(any)).Elem()
)

func (col *column) scanType() reflect.Type {
	switch col.kind {
	case kindInt:
		return pick(col.null, scanInt64, scanNullInt64)
	case kindUint:
		return pick(col.null, scanUint64, scanNullUint64)
	case kindFloat:
		return pick(col.null, scanFloat64, scanNullFloat64)
	case kindBytes:
		return scanBytes // nil for NULL
	case kindTime:
		return pick(col.null, scanTime, scanNullTime)
	case kindNull:
		return scanAny
	}
	return pick(col.null, scanString, scanNullString)
}

func pick(null bool, notNull, nullable reflect.Type) reflect.Type {
	if null {
		return nullable
	}
	return notNull
}

// precisionScale is ColumnTypePrecisionScale's answer.
func (col *column) precisionScale() (precision, scale int64, ok bool) {
	if d, isDec := col.typ.(gms.DecimalType); isDec {
		return int64(d.Precision()), int64(d.Scale()), true
	}
	return 0, 0, false
}
