package driver

import (
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// The arguments of ? placeholders may be nil, the integer and float
// kinds (uint64 in full), bool (1 or 0), string, []byte (a binary string;
// a nil slice is NULL), json.RawMessage (a string), time.Time (in UTC, to
// the microsecond), a driver.Valuer or a pointer to any of these (nil:
// NULL). Each becomes a literal of the parsed statement: an argument is
// never SQL text.

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
