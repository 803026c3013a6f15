//go:build cgo && !gms_pure_go

package sqlserver

import (
	"fmt"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"gopkg.in/src-d/go-errors.v1"

	"github.com/verso-db/verso/internal/icuregex"
)

// Regular expressions that can be stopped.
//
// The engine's REGEXP, REGEXP_LIKE, REGEXP_INSTR, REGEXP_SUBSTR and
// REGEXP_REPLACE match with ICU through cgo, which never looks at the
// statement's context: a pattern that backtracks exponentially
// ('^(a+)+$' over "aaaa...b") held a core after KILL QUERY, after its
// client left, for as long as the match took (hours). icuRegexp is the
// same function over package icuregex, whose matches end soon after the
// statement's context does (KILL, KILL QUERY, max_execution_time, the
// client's disconnect, the memory limit), and which, as MySQL's do,
// honours regexp_time_limit (error 3699) and regexp_stack_limit (error
// 3698). Arguments, flags, collations, caching and results are the
// engine's.
//
// The functions by name come from the Provider (regexpFunctions), in
// every engine. The operators (x REGEXP p, x NOT REGEXP p, RLIKE) the
// engine's planner builds itself, so the server's parser (regexpParser,
// regexp_parse.go) rewrites them to REGEXP_LIKE calls; an embedded engine
// with the engine's own parser keeps the engine's operators.

// icuRegexps tells that this build's regular expressions are icuRegexp.
const icuRegexps = true

// Errors of a match past MySQL's limits.
var (
	errRegexpTimeOut       = errors.NewKind("Timeout exceeded in regular expression match.")
	errRegexpStackOverflow = errors.NewKind("Overflow in the regular expression backtrack stack.")
)

// regexpKind is which of the functions an icuRegexp is.
type regexpKind int

const (
	regexpLike regexpKind = iota
	regexpInstr
	regexpSubstr
	regexpReplace
)

// icuRegexp is one of the engine's regular expression functions (engine,
// which gives its name, type, children and string) evaluated with
// package icuregex.
type icuRegexp struct {
	engine sql.Expression
	kind   regexpKind
	// The engine's arguments, with its defaults filled in; nil where the
	// function has none of that kind.
	text, pattern, flags, repl, pos, occurrence, returnOption sql.Expression

	mu         sync.Mutex // guards the compiled pattern's cache below
	compiled   bool
	cacheRegex bool // pattern and flags are constant: compile once
	cacheVal   bool // every argument is constant: evaluate once
	cachedVal  any
	re         *icuregex.Regex
	compileErr error
}

var (
	_ sql.FunctionExpression = (*icuRegexp)(nil)
	_ sql.CollationCoercible = (*icuRegexp)(nil)
	_ sql.Disposable         = (*icuRegexp)(nil)
)

// regexpFunctions replace the engine's REGEXP_* functions with ICU ones.
var regexpFunctions = []sql.Function{
	regexpFunction("regexp_like", function.NewRegexpLike),
	regexpFunction("regexp_instr", function.NewRegexpInstr),
	regexpFunction("regexp_substr", function.NewRegexpSubstr),
	regexpFunction("regexp_replace", function.NewRegexpReplace),
}

// regexpFunction is the function name: the engine's (made by engine, for
// its argument handling) with its matching done by ICU.
func regexpFunction(name string, engine func(*sql.Context, ...sql.Expression) (sql.Expression, error)) sql.Function {
	return sql.FunctionN{Name: name, Fn: func(ctx *sql.Context, args ...sql.Expression) (sql.Expression, error) {
		e, err := engine(ctx, args...)
		if err != nil {
			return nil, err
		}
		r, ok := asICURegexp(e)
		if !ok {
			return nil, fmt.Errorf("sqlserver: the engine's %s is a %T", name, e)
		}
		return r, nil
	}}
}

// asICURegexp returns the engine's regular expression function e as an
// icuRegexp.
func asICURegexp(e sql.Expression) (*icuRegexp, bool) {
	switch f := e.(type) {
	case *function.RegexpLike:
		return &icuRegexp{engine: f, kind: regexpLike, text: f.Text, pattern: f.Pattern, flags: f.Flags}, true
	case *function.RegexpInstr:
		return &icuRegexp{engine: f, kind: regexpInstr, text: f.Text, pattern: f.Pattern, flags: f.Flags,
			pos: f.Position, occurrence: f.Occurrence, returnOption: f.ReturnOption}, true
	case *function.RegexpSubstr:
		return &icuRegexp{engine: f, kind: regexpSubstr, text: f.Text, pattern: f.Pattern, flags: f.Flags,
			pos: f.Position, occurrence: f.Occurrence}, true
	case *function.RegexpReplace:
		return &icuRegexp{engine: f, kind: regexpReplace, text: f.Text, pattern: f.Pattern, flags: f.Flags,
			repl: f.RText, pos: f.Position, occurrence: f.Occurrence}, true
	}
	return nil, false
}

func (r *icuRegexp) FunctionName() string {
	return r.engine.(sql.FunctionExpression).FunctionName()
}

func (r *icuRegexp) Description() string {
	return r.engine.(sql.FunctionExpression).Description()
}

func (r *icuRegexp) Resolved() bool                   { return r.engine.Resolved() }
func (r *icuRegexp) String() string                   { return r.engine.String() }
func (r *icuRegexp) Type(ctx *sql.Context) sql.Type   { return r.engine.Type(ctx) }
func (r *icuRegexp) IsNullable(ctx *sql.Context) bool { return r.engine.IsNullable(ctx) }
func (r *icuRegexp) Children() []sql.Expression       { return r.engine.Children() }

func (r *icuRegexp) DebugString(ctx *sql.Context) string { return sql.DebugString(ctx, r.engine) }

func (r *icuRegexp) Describe(ctx *sql.Context, options sql.DescribeOptions) string {
	return sql.Describe(ctx, r.engine, options)
}

func (r *icuRegexp) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, r.engine)
}

func (r *icuRegexp) WithChildren(ctx *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	e, err := r.engine.WithChildren(ctx, children...)
	if err != nil {
		return nil, err
	}
	n, ok := asICURegexp(e)
	if !ok {
		return nil, fmt.Errorf("sqlserver: %s with new children is a %T", r.FunctionName(), e)
	}
	return n, nil
}

// Dispose frees the compiled pattern; a later Eval compiles it again.
func (r *icuRegexp) Dispose(*sql.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.re.Close()
	r.re, r.compiled, r.cachedVal = nil, false, nil
}

// compile compiles the pattern of row, or keeps the one compiled when it
// is constant (the engine's caching).
func (r *icuRegexp) compile(ctx *sql.Context, row sql.Row) {
	if !r.compiled {
		r.compiled = true
		r.cacheRegex = constantArgs(ctx, r.pattern, r.flags)
		r.cacheVal = r.cacheRegex && constantArgs(ctx, r.text, r.repl, r.pos, r.occurrence, r.returnOption)
		if r.cacheRegex {
			r.re, r.compileErr = compileICU(ctx, r.pattern, r.text, r.flags, r.FunctionName(), row)
		}
		return
	}
	if !r.cacheRegex {
		r.re.Close()
		r.re, r.compileErr = compileICU(ctx, r.pattern, r.text, r.flags, r.FunctionName(), row)
	}
}

func (r *icuRegexp) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cachedVal != nil {
		return r.cachedVal, nil
	}
	if r.compile(ctx, row); r.compileErr != nil {
		return nil, r.compileErr
	}
	if r.re == nil {
		return nil, nil
	}
	text, err := evalText(ctx, r.text, row)
	if text == nil || err != nil {
		return nil, err
	}
	var out any
	switch r.kind {
	case regexpLike:
		out, err = r.like(ctx, text.(string))
	case regexpInstr:
		out, err = r.instr(ctx, text.(string), row)
	case regexpSubstr:
		out, err = r.substr(ctx, text.(string), row)
	case regexpReplace:
		out, err = r.replace(ctx, text.(string), row)
	}
	if err != nil {
		return nil, regexpError(err)
	}
	if r.cacheVal && out != nil {
		r.cachedVal = out
	}
	return out, nil
}

func (r *icuRegexp) like(ctx *sql.Context, text string) (any, error) {
	if err := r.re.SetText(text); err != nil {
		return nil, err
	}
	ok, err := r.re.Matches(ctx, 0, 0)
	if err != nil {
		return nil, err
	}
	if ok {
		return int8(1), nil
	}
	return int8(0), nil
}

func (r *icuRegexp) instr(ctx *sql.Context, text string, row sql.Row) (any, error) {
	ints, err := evalInt32s(ctx, row, r.pos, r.occurrence, r.returnOption)
	if ints == nil || err != nil {
		return nil, err
	}
	if err := r.re.SetText(text); err != nil {
		return nil, err
	}
	i, err := r.re.IndexOf(ctx, int(ints[0]), int(ints[1]), ints[2] == 1)
	if err != nil {
		return nil, err
	}
	return int32(i), nil
}

func (r *icuRegexp) substr(ctx *sql.Context, text string, row sql.Row) (any, error) {
	ints, err := evalInt32s(ctx, row, r.pos, r.occurrence)
	if ints == nil || err != nil {
		return nil, err
	}
	if err := r.re.SetText(text); err != nil {
		return nil, err
	}
	s, ok, err := r.re.Substring(ctx, int(ints[0]), int(ints[1]))
	if !ok || err != nil {
		return nil, err
	}
	return s, nil
}

func (r *icuRegexp) replace(ctx *sql.Context, text string, row sql.Row) (any, error) {
	repl, err := evalText(ctx, r.repl, row)
	if repl == nil || err != nil {
		return nil, err
	}
	ints, err := evalInt32s(ctx, row, r.pos)
	if ints == nil || err != nil {
		return nil, err
	}
	pos := ints[0]
	if pos <= 0 {
		return nil, sql.ErrInvalidArgumentDetails.New(r.FunctionName(), fmt.Sprintf("%d", pos))
	}
	if len(text) != 0 && int(pos) > len(text) {
		return nil, errors.NewKind("Index out of bounds for regular expression search.").New()
	}
	ints, err = evalInt32s(ctx, row, r.occurrence)
	if ints == nil || err != nil {
		return nil, err
	}
	if err := r.re.SetText(text); err != nil {
		return nil, err
	}
	return r.re.Replace(ctx, repl.(string), int(pos), int(ints[0]))
}

// regexpError gives the limits' errors the engine's error kinds (mapped
// to MySQL's numbers in mysqlerrors.go).
func regexpError(err error) error {
	switch err {
	case icuregex.ErrTimeOut:
		return errRegexpTimeOut.New()
	case icuregex.ErrStackOverflow:
		return errRegexpStackOverflow.New()
	}
	return err
}

// evalText evaluates e as text (nil for NULL).
func evalText(ctx *sql.Context, e sql.Expression, row sql.Row) (any, error) {
	v, err := e.Eval(ctx, row)
	if v == nil || err != nil {
		return nil, err
	}
	v, _, err = types.LongText.Convert(ctx, v)
	if err != nil {
		return nil, err
	}
	return sql.UnwrapAny(ctx, v)
}

// evalInt32s evaluates es as INT (nil if one is NULL).
func evalInt32s(ctx *sql.Context, row sql.Row, es ...sql.Expression) ([]int32, error) {
	out := make([]int32, len(es))
	for i, e := range es {
		v, err := e.Eval(ctx, row)
		if v == nil || err != nil {
			return nil, err
		}
		v, _, err = types.Int32.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		out[i] = v.(int32)
	}
	return out, nil
}

// compileICU compiles the pattern of row as the engine does: case folding
// from a _ci collation of text or pattern, unless flags say otherwise; a
// NULL pattern or flags give a nil Regex (the function is then NULL).
func compileICU(ctx *sql.Context, pattern, text, flags sql.Expression, funcName string, row sql.Row) (*icuregex.Regex, error) {
	p, err := evalText(ctx, pattern, row)
	if p == nil || err != nil {
		return nil, err
	}
	ps := p.(string)
	if ps == "" {
		return nil, errors.NewKind("Illegal argument to regular expression.").New()
	}
	lc, lco := sql.GetCoercibility(ctx, text)
	rc, rco := sql.GetCoercibility(ctx, pattern)
	coll, _ := sql.ResolveCoercibility(lc, lco, rc, rco)
	fs := ""
	if strings.HasSuffix(coll.String(), "_ci") {
		fs = "i"
	}
	if flags != nil {
		f, err := evalText(ctx, flags, row)
		if f == nil || err != nil {
			return nil, err
		}
		if fs, err = regexpFlags(f.(string), funcName); err != nil {
			return nil, err
		}
	}
	var icuFlags icuregex.Flags
	for _, c := range fs {
		switch c {
		case 'i':
			icuFlags |= icuregex.CaseInsensitive
		case 'm':
			icuFlags |= icuregex.Multiline
		case 'n':
			icuFlags |= icuregex.DotAll
		case 'u':
			icuFlags |= icuregex.UnixLines
		}
	}
	re, err := icuregex.Compile(ps, icuFlags, globalInt32(ctx, "regexp_time_limit"), globalInt32(ctx, "regexp_stack_limit"))
	if err == icuregex.ErrInvalid {
		return nil, errors.NewKind(err.Error()).New()
	}
	return re, err
}

// regexpFlags checks a match_type argument and returns the flags it sets
// (the last of c and i wins, as in MySQL).
func regexpFlags(flags, funcName string) (string, error) {
	set := map[rune]bool{}
	for _, c := range flags {
		switch c {
		case 'c':
			delete(set, 'i')
		case 'i', 'm', 'n', 'u':
			set[c] = true
		default:
			return "", sql.ErrInvalidArgument.New(funcName)
		}
	}
	out := ""
	for _, c := range "imnu" {
		if set[c] {
			out += string(c)
		}
	}
	return out, nil
}

// constantArgs reports whether es depend on no row, variable or
// non-deterministic function (the engine's canBeCached).
func constantArgs(ctx *sql.Context, es ...sql.Expression) bool {
	constant := true
	for _, e := range es {
		if e == nil {
			continue
		}
		sql.Inspect(ctx, e, func(ctx *sql.Context, e sql.Expression) bool {
			switch x := e.(type) {
			case *expression.GetField, *expression.UserVar, *expression.SystemVar, *expression.ProcedureParam:
				constant = false
			default:
				if nd, ok := x.(sql.NonDeterministicExpression); ok && nd.IsNonDeterministic() {
					constant = false
				}
			}
			return true
		})
	}
	return constant
}

// globalInt32 is a global system variable's integer value, 0 if none.
func globalInt32(ctx *sql.Context, name string) int32 {
	_, v, ok := sql.SystemVariables.GetGlobal(name)
	if !ok {
		return 0
	}
	switch v := v.(type) {
	case int64:
		return int32(min(max(v, 0), 1<<31-1))
	case uint64:
		return int32(min(v, 1<<31-1))
	}
	return 0
}
