package driver

import (
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// The DSN, as Dolt's Go driver has it, is a file URL naming a data
// directory (a folder of databases, one sub-folder each, as `verso
// sql-server --data-dir` serves), with the connection's settings as query
// parameters:
//
//	file:///abs/path/to/datadir?commitname=Jane%20Doe&commitemail=jane@example.com&database=shop&multistatements=true
//
//	commitname, commitemail   the committer identity of the connections'
//	                          commits, merges and tags (both, or neither:
//	                          then a commit fails with ErrNoCommitter)
//	database                  the current database of each connection
//	                          (db, or db/branch for a branch of it); it
//	                          must exist. Without it no database is
//	                          current until USE.
//	multistatements           true: a query may hold several statements
//	                          separated by ';', each a result set
//	                          (Rows.NextResultSet). Default false: such a
//	                          query is a syntax error, as with
//	                          go-sql-driver/mysql.
//
// The path is absolute (three slashes after file:), percent-encoded where
// needed; file://localhost/abs/path is the same. The folder is made when
// missing.

// Config is the content of a DSN.
type Config struct {
	// Dir is the data directory: an absolute, clean path.
	Dir string
	// Database is the current database of new connections ("" for none).
	Database string
	// CommitName and CommitEmail are the committer identity (both or
	// neither).
	CommitName, CommitEmail string
	// MultiStatements lets a query hold several statements.
	MultiStatements bool
}

// dsnParams are the query parameters a DSN may have.
var dsnParams = []string{"commitemail", "commitname", "database", "multistatements"}

// ParseDSN parses a DSN (see the top of dsn.go). Its errors wrap
// ErrBadDSN and say what to write instead.
func ParseDSN(dsn string) (*Config, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %q: %s", ErrBadDSN, dsn, fmt.Sprintf(format, args...))
	}
	const want = "give file:///absolute/path/to/datadir"
	u, err := url.Parse(dsn)
	if err != nil {
		return nil, bad("%v; %s", err, want)
	}
	switch {
	case u.Scheme == "":
		return nil, bad("not a file:// URL; %s", want)
	case u.Scheme != "file":
		return nil, bad("the scheme is %q, not file; verso's driver opens a data directory in this process: %s", u.Scheme, want)
	case u.Opaque != "":
		return nil, bad("the path %q is relative; %s (three slashes)", u.Opaque, want)
	case u.User != nil:
		return nil, bad("a user or password has no meaning for a data directory; %s", want)
	case u.Host != "" && u.Host != "localhost":
		return nil, bad("%q is read as a host: the path must be absolute; %s (three slashes)", u.Host, want)
	case u.Fragment != "":
		return nil, bad("it has a fragment (#%s); write # in a path as %%23", u.Fragment)
	}
	path := u.Path
	if runtime.GOOS == "windows" && len(path) >= 3 && path[0] == '/' && path[2] == ':' {
		path = path[1:] // file:///C:/data
	}
	path = filepath.FromSlash(path)
	if path == "" {
		return nil, bad("no data directory; %s", want)
	}
	if !filepath.IsAbs(path) {
		return nil, bad("the path %q is relative; %s", path, want)
	}
	cfg := &Config{Dir: filepath.Clean(path)}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, bad("the parameters: %v", err)
	}
	for k, vs := range q {
		if len(vs) > 1 {
			return nil, bad("parameter %s is given %d times; give it once", k, len(vs))
		}
		v := vs[0]
		switch k {
		case "commitname":
			cfg.CommitName = v
		case "commitemail":
			cfg.CommitEmail = v
		case "database":
			cfg.Database = v
		case "multistatements":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, bad("multistatements=%s: give true or false", v)
			}
			cfg.MultiStatements = b
		default:
			hint := ""
			for _, p := range dsnParams {
				if strings.EqualFold(p, k) {
					hint = fmt.Sprintf(" (did you mean %s?)", p)
				}
			}
			return nil, bad("unknown parameter %q%s; the parameters are %s", k, hint, strings.Join(dsnParams, ", "))
		}
	}
	if (cfg.CommitName == "") != (cfg.CommitEmail == "") {
		return nil, bad("give both commitname and commitemail (or neither)")
	}
	return cfg, nil
}

// FormatDSN returns the DSN of cfg, which ParseDSN parses back to cfg.
func (cfg *Config) FormatDSN() string {
	path := filepath.ToSlash(cfg.Dir)
	if !strings.HasPrefix(path, "/") {
		path = "/" + path // C:/data
	}
	u := url.URL{Scheme: "file", Path: path}
	params := map[string]string{}
	if cfg.CommitName != "" || cfg.CommitEmail != "" {
		params["commitname"], params["commitemail"] = cfg.CommitName, cfg.CommitEmail
	}
	if cfg.Database != "" {
		params["database"] = cfg.Database
	}
	if cfg.MultiStatements {
		params["multistatements"] = "true"
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(k + "=" + strings.ReplaceAll(url.QueryEscape(params[k]), "+", "%20"))
	}
	u.RawQuery = b.String()
	return u.String()
}
