package sqlserver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// Files of the server's host. LOAD_FILE(path), SELECT ... INTO OUTFILE
// and INTO DUMPFILE, and LOAD DATA INFILE (without LOCAL) need the global
// FILE privilege (access.go), and reach only the folder of
// secure_file_priv and the folders below it, after symbolic links are
// resolved: a link inside the folder to a file outside it is outside.
// secure_file_priv is set at start-up only, by Embedded.EnforceAccounts
// from the wire server's configuration (package server: by default the
// data dir's .verso-files, made at start; NULL disables the statements).
// A path outside it fails with MySQL's error 1290
// (ER_OPTION_PREVENTS_STATEMENT); LOAD_FILE gives NULL instead, as
// MySQL's does for a file it may not read, and for a file too large for
// max_allowed_packet. Sessions of an engine that enforces no accounts
// (embedded ones) reach any file their process can.

// secureFilePriv is the folder file statements may reach.
type secureFilePriv struct {
	// dir is the folder, absolute and with symbolic links resolved; ""
	// when file statements are disabled (NULL).
	dir string
	// shown is the folder as configured, made absolute: what
	// @@secure_file_priv shows.
	shown string
}

// newSecureFilePriv returns the policy of the folder dir, which must
// exist; "" disables file statements (NULL). The wire server resolves
// its setting (its default folder, NULL) to dir.
func newSecureFilePriv(dir string) (secureFilePriv, error) {
	if dir == "" {
		return secureFilePriv{}, nil
	}
	abs, err := filepath.Abs(dir)
	real := abs
	if err == nil {
		real, err = filepath.EvalSymlinks(abs)
	}
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(real); err == nil && !fi.IsDir() {
			err = errors.New("not a folder")
		}
	}
	if err != nil {
		return secureFilePriv{}, fmt.Errorf("secure_file_priv %s: %v (give an existing folder, or NULL to disable LOAD_FILE, INTO OUTFILE and LOAD DATA INFILE)", dir, err)
	}
	return secureFilePriv{dir: real, shown: abs}, nil
}

// value is the setting as @@secure_file_priv shows it: the folder, or
// NULL.
func (f secureFilePriv) value() any {
	if f.dir == "" {
		return nil
	}
	return f.shown
}

// allows reports whether a file statement may read (or, if write, create)
// path: a path inside the folder once symbolic links are resolved. A file
// to be written must not exist yet (INTO OUTFILE refuses one that does),
// so its folder is resolved; a file to be read is resolved itself. A
// relative path is taken from the server's working folder, where the
// engine opens it.
func (f secureFilePriv) allows(path string, write bool) bool {
	if f.dir == "" || path == "" {
		return false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	var real string
	if !write {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			real = r
		}
	}
	if real == "" {
		// A file to write, or one that is missing: its folder must
		// exist and be inside.
		dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
		if err != nil {
			return false
		}
		real = filepath.Join(dir, filepath.Base(abs))
	}
	rel, err := filepath.Rel(f.dir, real)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// errSecureFilePriv is MySQL's ER_OPTION_PREVENTS_STATEMENT (1290) for
// secure_file_priv.
func errSecureFilePriv() error {
	return mysql.NewSQLError(mysql.EROptionPreventsStatement, mysql.SSUnknownSQLState,
		"The MySQL server is running with the --secure-file-priv option so it cannot execute this statement")
}

// globalSecureFilePriv is what @@GLOBAL.secure_file_priv shows. The
// engine keeps system variables process-wide, so it is the setting of the
// last server made in the process (each server enforces its own, and
// @@secure_file_priv shows a session its server's); before any, "" (an
// embedded engine reads any file its caller can). The engine's variable
// holds no NULL, so its value comes from here.
var globalSecureFilePriv atomic.Pointer[secureFilePriv]

// fileFunctions are the functions reading the host's files.
var fileFunctions = []sql.Function{
	sql.Function1{Name: "load_file", Fn: func(_ *sql.Context, e sql.Expression) sql.Expression {
		return &loadFile{arg: e}
	}},
}

// fileSystemVariables is @@secure_file_priv (see registerSystemVariables).
var fileSystemVariables = []sql.SystemVariable{&sql.MysqlSystemVariable{
	Name:    "secure_file_priv",
	Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Global),
	Dynamic: false,
	Type:    types.NewSystemStringType("secure_file_priv"),
	Default: "",
	ValueFunction: func() (any, error) {
		if f := globalSecureFilePriv.Load(); f != nil {
			return f.value(), nil
		}
		return "", nil
	},
}}

// loadFile is LOAD_FILE(path): the file's bytes, or NULL when the account
// lacks FILE, the file is outside secure_file_priv, cannot be read, or is
// larger than max_allowed_packet. It replaces the engine's, which read any
// file for any account.
type loadFile struct {
	arg sql.Expression
}

var _ sql.FunctionExpression = (*loadFile)(nil)

func (f *loadFile) FunctionName() string         { return "load_file" }
func (f *loadFile) Description() string          { return "returns the contents of a file of the server's host" }
func (f *loadFile) Type(*sql.Context) sql.Type   { return types.LongBlob }
func (f *loadFile) IsNullable(*sql.Context) bool { return true }
func (f *loadFile) Children() []sql.Expression   { return []sql.Expression{f.arg} }
func (f *loadFile) Resolved() bool               { return f.arg.Resolved() }
func (f *loadFile) String() string               { return fmt.Sprintf("load_file(%s)", f.arg) }
func (f *loadFile) IsNonDeterministic() bool     { return true }
func (f *loadFile) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (f *loadFile) WithChildren(_ *sql.Context, children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 1)
	}
	return &loadFile{arg: children[0]}, nil
}

func (f *loadFile) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := f.arg.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	path, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return nil, err
	}
	p, ok := path.(string)
	if !ok {
		return nil, nil
	}
	if a := sessionAccess(ctx); a != nil && (!a.mayUseFiles(ctx) || !a.files.allows(p, false)) {
		return nil, nil
	}
	file, err := os.Open(p)
	if err != nil {
		return nil, nil
	}
	defer file.Close()
	limit := int64(1 << 30)
	if m, err := ctx.GetSessionVariable(ctx, "max_allowed_packet"); err == nil {
		if n, _, err := types.Int64.Convert(ctx, m); err == nil {
			limit = n.(int64)
		}
	}
	fi, err := file.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil || int64(len(b)) > limit {
		return nil, nil
	}
	return b, nil
}
