package sqlserver

import (
	"fmt"
	"math"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Functions that build strings honour max_allowed_packet, as MySQL's do:
// when the value REPEAT, LPAD, RPAD, SPACE, REPLACE, INSERT, CONCAT,
// CONCAT_WS or TO_BASE64 would build is longer than the session's
// max_allowed_packet (in bytes; the engine's default is 1 GiB), the
// function returns NULL with warning 1301 "Result of repeat() was larger
// than max_allowed_packet (N) - truncated", without building it.
//
// Each is the engine's function behind a check: builtString evaluates the
// arguments once, bounds the result's length from their values, and only
// then lets the engine's function build the value from the same values
// (argSlot hands them over). Semantics are otherwise the engine's; SPACE
// is built here, since the engine's appends one space at a time
// (quadratic in the length).

// maxPacketWarning is ER_WARN_ALLOWED_PACKET_OVERFLOWED.
const maxPacketWarning = 1301

// builtStrings are the functions checked, with an upper bound of the
// length in bytes of the value each builds from its arguments' values (a
// NULL argument gives a NULL value, of no length).
var builtStrings = []struct {
	name string
	size func(ctx *sql.Context, vals []any) (int64, error)
	// eval, if not nil, builds the value in place of the engine's
	// function.
	eval func(ctx *sql.Context, vals []any) (any, error)
}{
	{name: "repeat", size: func(ctx *sql.Context, v []any) (int64, error) {
		n, err := intArg(ctx, v[1])
		return mulLen(textLen(ctx, v[0]), n), err
	}},
	{name: "lpad", size: padSize},
	{name: "rpad", size: padSize},
	{name: "space", size: func(ctx *sql.Context, v []any) (int64, error) {
		return intArg(ctx, v[0])
	}, eval: evalSpace},
	{name: "replace", size: func(ctx *sql.Context, v []any) (int64, error) {
		s, from, to, err := texts3(ctx, v[0], v[1], v[2])
		if err != nil || from == "" || len(to) <= len(from) {
			return int64(len(s)), err
		}
		return addLen(int64(len(s)), mulLen(int64(len(to)-len(from)), int64(strings.Count(s, from)))), nil
	}},
	{name: "insert", size: func(ctx *sql.Context, v []any) (int64, error) {
		if len(v) != 4 {
			return 0, nil
		}
		return addLen(textLen(ctx, v[0]), textLen(ctx, v[3])), nil
	}},
	{name: "concat", size: func(ctx *sql.Context, v []any) (int64, error) {
		var n int64
		for _, a := range v {
			n = addLen(n, textLen(ctx, a))
		}
		return n, nil
	}},
	{name: "concat_ws", size: func(ctx *sql.Context, v []any) (int64, error) {
		if len(v) == 0 {
			return 0, nil
		}
		var n int64
		for _, a := range v[1:] {
			if a != nil {
				n = addLen(n, addLen(textLen(ctx, a), textLen(ctx, v[0])))
			}
		}
		return n, nil
	}},
	{name: "to_base64", size: func(ctx *sql.Context, v []any) (int64, error) {
		n := textLen(ctx, v[0])
		return addLen(mulLen((n+2)/3, 4), n/57), nil // 4 per 3 bytes, a newline per 76
	}},
}

// builtStringFunctions returns the functions of builtStrings, each over
// the engine's function of its name.
func builtStringFunctions() []sql.Function {
	var out []sql.Function
	for _, b := range builtStrings {
		var engine sql.Function
		for _, f := range function.BuiltIns {
			if f.FunctionName() == b.name {
				engine = f
			}
		}
		if engine == nil {
			panic(fmt.Sprintf("sqlserver: the engine has no function %s to check against max_allowed_packet", b.name))
		}
		out = append(out, sql.FunctionN{Name: b.name, Fn: func(ctx *sql.Context, args ...sql.Expression) (sql.Expression, error) {
			return newBuiltString(ctx, b.name, engine, b.size, b.eval, args)
		}})
	}
	return out
}

// builtString is a function whose value is checked against
// max_allowed_packet before it is built. Like the engine's functions, an
// instance is not for concurrent use.
type builtString struct {
	name   string
	engine sql.Function
	size   func(ctx *sql.Context, vals []any) (int64, error)
	eval   func(ctx *sql.Context, vals []any) (any, error)
	args   []sql.Expression
	inner  sql.Expression // the engine's function over argSlots
	vals   []any          // the arguments' values, during Eval
}

var (
	_ sql.FunctionExpression = (*builtString)(nil)
	_ sql.CollationCoercible = (*builtString)(nil)
)

func newBuiltString(ctx *sql.Context, name string, engine sql.Function, size func(*sql.Context, []any) (int64, error), eval func(*sql.Context, []any) (any, error), args []sql.Expression) (sql.Expression, error) {
	f := &builtString{name: name, engine: engine, size: size, eval: eval, args: args, vals: make([]any, len(args))}
	slots := make([]sql.Expression, len(args))
	for i, a := range args {
		slots[i] = &argSlot{Expression: a, f: f, i: i}
	}
	inner, err := engine.NewInstance(ctx, slots)
	if err != nil {
		return nil, err
	}
	f.inner = inner
	return f, nil
}

func (f *builtString) FunctionName() string { return f.name }

func (f *builtString) Description() string {
	if d, ok := f.inner.(sql.FunctionExpression); ok {
		return d.Description()
	}
	return ""
}

func (f *builtString) Resolved() bool {
	for _, a := range f.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

func (f *builtString) String() string                   { return f.inner.String() }
func (f *builtString) Type(ctx *sql.Context) sql.Type   { return f.inner.Type(ctx) }
func (f *builtString) IsNullable(ctx *sql.Context) bool { return true }
func (f *builtString) Children() []sql.Expression       { return f.args }

func (f *builtString) DebugString(ctx *sql.Context) string { return sql.DebugString(ctx, f.inner) }

func (f *builtString) Describe(ctx *sql.Context, options sql.DescribeOptions) string {
	return sql.Describe(ctx, f.inner, options)
}

func (f *builtString) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, f.inner)
}

func (f *builtString) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	return newBuiltString(ctx, f.name, f.engine, f.size, f.eval, children)
}

func (f *builtString) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	for i, a := range f.args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		f.vals[i] = v
	}
	defer clear(f.vals)
	n, err := f.size(ctx, f.vals)
	if err != nil {
		return nil, err
	}
	if max := maxAllowedPacket(ctx); n > max {
		ctx.Warn(maxPacketWarning, "Result of %s() was larger than max_allowed_packet (%d) - truncated", f.name, max)
		return nil, nil
	}
	if f.eval != nil {
		return f.eval(ctx, f.vals)
	}
	return f.inner.Eval(ctx, row)
}

// argSlot is an argument of the engine's function inside a builtString:
// the argument's expression for its type, and the value builtString
// evaluated for its value.
type argSlot struct {
	sql.Expression
	f *builtString
	i int
}

func (a *argSlot) Eval(*sql.Context, sql.Row) (any, error) { return a.f.vals[a.i], nil }
func (a *argSlot) Children() []sql.Expression              { return nil }

func (a *argSlot) DebugString(ctx *sql.Context) string { return sql.DebugString(ctx, a.Expression) }

func (a *argSlot) Describe(ctx *sql.Context, options sql.DescribeOptions) string {
	return sql.Describe(ctx, a.Expression, options)
}

func (a *argSlot) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, a.Expression)
}

func (a *argSlot) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(a, len(children), 0)
	}
	return a, nil
}

// maxAllowedPacket is the session's max_allowed_packet.
func maxAllowedPacket(ctx *sql.Context) int64 {
	v, err := ctx.GetSessionVariable(ctx, "max_allowed_packet")
	if err == nil {
		switch v := v.(type) {
		case int64:
			return v
		case uint64:
			return int64(min(v, math.MaxInt64))
		case int:
			return int64(v)
		}
	}
	return 1 << 30
}

// textLen is the length of v as text, 0 for NULL.
func textLen(ctx *sql.Context, v any) int64 {
	switch v := v.(type) {
	case nil:
		return 0
	case string:
		return int64(len(v))
	case []byte:
		return int64(len(v))
	}
	s, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return 0 // the engine's function reports it
	}
	s, err = sql.UnwrapAny(ctx, s)
	if str, ok := s.(string); ok && err == nil {
		return int64(len(str))
	}
	return 0
}

// intArg is v as a count: 0 for NULL, a negative count or one that is not
// a number (the engine's function reports those); a number with trailing
// text counts its number.
func intArg(ctx *sql.Context, v any) (int64, error) {
	if v == nil {
		return 0, nil
	}
	n, _, _ := types.Int64.Convert(ctx, v)
	i, ok := n.(int64)
	if !ok {
		return 0, nil
	}
	return max(i, 0), nil
}

// texts3 converts three arguments to text.
func texts3(ctx *sql.Context, a, b, c any) (string, string, string, error) {
	var out [3]string
	for i, v := range []any{a, b, c} {
		if v == nil {
			return "", "", "", nil
		}
		s, _, err := types.LongText.Convert(ctx, v)
		if err != nil {
			return "", "", "", nil
		}
		s, err = sql.UnwrapAny(ctx, s)
		if err != nil {
			return "", "", "", err
		}
		out[i], _ = s.(string)
	}
	return out[0], out[1], out[2], nil
}

// padSize bounds LPAD and RPAD: the length asked for, when there is
// something to pad with (the engine's functions count bytes).
func padSize(ctx *sql.Context, v []any) (int64, error) {
	if v[0] == nil || len(v) != 3 || v[2] == nil {
		return 0, nil
	}
	return intArg(ctx, v[1])
}

// addLen and mulLen add and multiply lengths, saturating.
func addLen(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func mulLen(a, n int64) int64 {
	if a == 0 || n == 0 {
		return 0
	}
	if a > math.MaxInt64/n {
		return math.MaxInt64
	}
	return a * n
}

// evalSpace is SPACE(n): n spaces (a negative n gives ""), with the
// engine's conversion of n.
func evalSpace(ctx *sql.Context, vals []any) (any, error) {
	if vals[0] == nil {
		return nil, nil
	}
	v, _, err := types.Int64.Convert(ctx, vals[0])
	if err != nil {
		if !sql.ErrTruncatedIncorrect.Is(err) {
			return nil, err
		}
		ctx.Warn(1292, "%s", err.Error())
	}
	return strings.Repeat(" ", int(max(v.(int64), 0))), nil
}
