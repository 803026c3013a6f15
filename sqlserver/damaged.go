package sqlserver

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/verso-db/verso/chunks"
)

// Damaged databases. A database folder of the data dir that NewProvider
// cannot open (its chunk store's manifest or a journal does not decode,
// its root names no chunk, a file cannot be read) does not keep the
// others from being served: the provider keeps it aside, and using it
// (USE, a query naming it, DROP DATABASE) fails with an error that names
// it, says what is wrong and what to do. Its folder is left as it is for
// the operator (DROP DATABASE does not remove it, and CREATE DATABASE of
// its name says it exists). SHOW DATABASES leaves it out. A store that
// another process holds open (chunks.ErrLocked) still fails NewProvider:
// that is a second server on the same data dir, not damage.

// erCrashedOnUsage is MySQL's ER_CRASHED_ON_USAGE (1194, "Table '%s' is
// marked as crashed and should be repaired"): the error MySQL has for
// stored data that is damaged and must be repaired before use. MySQL has
// none for a whole database; this one tells clients and operators what
// kind of failure it is, where 1105 (unknown error) would not.
const erCrashedOnUsage = 1194

// damagedDB is a database folder that could not be opened.
type damagedDB struct {
	name string
	err  error // as opening it failed, with the server's paths
}

// DamagedDatabase is a database of the data dir that NewProvider could not
// open: Name is its name, Err why (it names files of the server).
type DamagedDatabase struct {
	Name string
	Err  error
}

// Damaged returns the databases of the data dir that NewProvider could not
// open, by name.
func (p *Provider) Damaged() []DamagedDatabase {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]DamagedDatabase, 0, len(p.damaged))
	for _, d := range p.damaged {
		out = append(out, DamagedDatabase{Name: d.name, Err: d.err})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// damagedState returns the damaged database of that name, if it is one.
func (p *Provider) damagedState(name string) (*damagedDB, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	d, ok := p.damaged[strings.ToLower(name)]
	return d, ok
}

// clientError is the error a client gets for using d: what is wrong,
// with paths relative to the data dir, and what to do.
func (p *Provider) clientError(d *damagedDB) error {
	cause := strings.TrimPrefix(d.err.Error(), fmt.Sprintf("opening database %q: ", d.name))
	if p.dataDir != "" {
		cause = strings.ReplaceAll(cause, p.dataDir+string(os.PathSeparator), "")
	}
	if chunks.IsCorrupt(d.err) {
		return mysql.NewSQLError(erCrashedOnUsage, mysql.SSUnknownSQLState,
			"Database '%s' is damaged and is not served (%s); check its files and restore it from a backup, or move its folder out of the data dir, then restart the server", d.name, cause)
	}
	return mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState,
		"Database '%s' could not be opened when the server started and is not served (%s); fix the cause, then restart the server", d.name, cause)
}

// openFailureIsFatal reports whether NewProvider fails on err, the error
// of opening a database folder, instead of keeping the database aside.
func openFailureIsFatal(err error) bool {
	return errors.Is(err, chunks.ErrLocked)
}

// damagedRule is the id of checkDamaged among the analyzer's rules.
const damagedRule analyzer.RuleId = 100002

// checkDamaged refuses DROP DATABASE of a damaged database with its error
// (the engine, finding no database it can open, would say there is none).
func (p *Provider) checkDamaged(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if d, ok := n.(*plan.DropDB); ok {
		if dd, ok := p.damagedState(d.DbName); ok {
			return n, transform.SameTree, p.clientError(dd)
		}
	}
	return n, transform.SameTree, nil
}
