package driver

import (
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"

	gms "github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// Values in both directions.
//
// Results come back as these Go types (NULL as nil):
//
//	TINYINT ... BIGINT, YEAR        int64
//	... UNSIGNED, BIT               uint64
//	FLOAT, DOUBLE                   float64
//	DECIMAL                         string, exactly as stored ("12.50")
//	CHAR, VARCHAR, TEXT, ENUM, SET  string
//	JSON                            string (the document's JSON text)
//	TIME                            string ("838:59:59", "-01:30:00.5")
//	BINARY, VARBINARY, BLOB,
//	GEOMETRY                        []byte (a copy the caller owns)
//	DATE, DATETIME, TIMESTAMP       time.Time in UTC, the value as the
//	                                server would send it read as UTC (as
//	                                go-sql-driver/mysql's parseTime=true
//	                                with loc=UTC); a zero date is the zero
//	                                time.Time
//
// Arguments may be nil, the integer and float kinds (uint64 in full),
// bool (1 or 0), string, []byte (a binary string; a nil slice is NULL),
// json.RawMessage (a string), time.Time (in UTC, to the microsecond), a
// driver.Valuer or a pointer to any of these (nil: NULL).

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

// errNamed refuses sql.Named arguments, as MySQL has only ? placeholders.
var errNamed = errors.New("driver: named arguments (sql.Named) are not supported; use ? placeholders and positional arguments")

// checkValue is NamedValueChecker's work: nv's value as one of the types
// argExpr takes (go-sql-driver/mysql's conversions).
func checkValue(nv *driver.NamedValue) error {
	if nv.Name != "" {
		return errNamed
	}
	v, err := convertValue(nv.Value)
	if err != nil {
		return err
	}
	nv.Value = v
	return nil
}

var valuerType = reflect.TypeOf((*driver.Valuer)(nil)).Elem()

func convertValue(v any) (driver.Value, error) {
	switch v.(type) {
	case nil, int64, uint64, float64, bool, string, []byte, time.Time, json.RawMessage:
		return v, nil
	}
	if vr, ok := v.(driver.Valuer); ok {
		rv := reflect.ValueOf(vr)
		if rv.Kind() == reflect.Pointer && rv.IsNil() && rv.Type().Elem().Implements(valuerType) {
			return nil, nil
		}
		sv, err := vr.Value()
		if err != nil {
			return nil, err
		}
		switch sv.(type) {
		case nil, int64, uint64, float64, bool, string, []byte, time.Time:
			return sv, nil
		}
		return nil, fmt.Errorf("driver: %T's Value returned a %T, which is not a driver.Value", v, sv)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return nil, nil
		}
		return convertValue(rv.Elem().Interface())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint(), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return rv.Bytes(), nil
		}
	}
	return nil, fmt.Errorf("driver: unsupported argument type %T", v)
}

// bindings returns the arguments of a statement's ? placeholders as the
// engine binds them (v1, v2, ...).
func bindings(args []driver.NamedValue) (map[string]ast.Expr, error) {
	if len(args) == 0 {
		return nil, nil
	}
	m := make(map[string]ast.Expr, len(args))
	for _, a := range args {
		if a.Name != "" {
			return nil, errNamed
		}
		e, err := argExpr(a.Value)
		if err != nil {
			return nil, fmt.Errorf("driver: argument %d: %w", a.Ordinal, err)
		}
		m["v"+strconv.Itoa(a.Ordinal)] = e
	}
	return m, nil
}

// argExpr returns v as a literal of the engine's syntax tree.
func argExpr(v driver.Value) (ast.Expr, error) {
	switch v := v.(type) {
	case nil:
		return &ast.NullVal{}, nil
	case int64:
		return ast.NewIntVal(strconv.AppendInt(nil, v, 10)), nil
	case uint64:
		return ast.NewIntVal(strconv.AppendUint(nil, v, 10)), nil
	case bool:
		if v {
			return ast.NewIntVal([]byte("1")), nil
		}
		return ast.NewIntVal([]byte("0")), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%v is not a value MySQL stores", v)
		}
		// The exponent makes it a DOUBLE; without one it would be a
		// DECIMAL literal.
		return ast.NewFloatVal(strconv.AppendFloat(nil, v, 'e', -1, 64)), nil
	case string:
		return ast.NewStrVal([]byte(v)), nil
	case json.RawMessage:
		return ast.NewStrVal([]byte(v)), nil
	case []byte:
		if v == nil {
			return &ast.NullVal{}, nil
		}
		return ast.NewHexVal([]byte(hex.EncodeToString(v))), nil // X'...': a binary string
	case time.Time:
		if v.IsZero() {
			return ast.NewStrVal([]byte("0000-00-00")), nil
		}
		return ast.NewStrVal([]byte(v.UTC().Format("2006-01-02 15:04:05.999999"))), nil
	}
	return nil, fmt.Errorf("unsupported type %T", v)
}

// okResult reads the result of a statement that returns none (INSERT,
// UPDATE, ...): its row, if it is one.
func okResult(row gms.Row) (types.OkResult, bool) {
	if len(row) == 1 {
		ok, isOK := row[0].(types.OkResult)
		return ok, isOK
	}
	return types.OkResult{}, false
}
