package sqlserver

import (
	"errors"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql/analyzer/analyzererrors"

	"github.com/verso-db/verso/chunks"
)

// Databases opened read-only.
//
// A database's store opened read-only (chunks.Options.ReadOnly) needs no
// lock: it can be read while another process, a server, writes it. It is
// a snapshot of the last commit when it was opened. The engine refuses
// statements that write it ("Database db is read-only.", the engine's
// check for sql.ReadOnlyDatabase), and a write that gets past that check
// (a procedure such as dolt_commit) fails at the store with
// chunks.ErrReadOnly. Nothing is written when it is opened: a store that
// holds no database yet is an error instead of being initialized.

// NewReadOnlyProvider is NewProvider with every database of dataDir opened
// read-only; CREATE DATABASE and DROP DATABASE are refused.
func NewReadOnlyProvider(dataDir string) (*Provider, error) { return newProvider(dataDir, true) }

// AddDatabaseDirReadOnly is AddDatabaseDir opening the database read-only.
func (p *Provider) AddDatabaseDirReadOnly(name, dir string) error {
	return p.addDatabaseDir(name, dir, true)
}

// readOnly reports whether st's store is open read-only.
func (st *dbState) readOnly() bool {
	fs, ok := st.store.(*chunks.FileStore)
	return ok && fs.ReadOnly()
}

// IsReadOnlyError reports whether err is a write refused because a
// database is open read-only: the engine's refusal, or the store's.
func IsReadOnlyError(err error) bool {
	if errors.Is(err, chunks.ErrReadOnly) || errors.Is(err, errReadOnlyProvider) {
		return true
	}
	var ro readOnlyError
	return errors.As(err, &ro) || analyzererrors.ErrReadOnlyDatabase.Is(err)
}

var errReadOnlyProvider = errors.New("sqlserver: the databases are open read-only: CREATE DATABASE and DROP DATABASE are refused")

// readOnlyError is DROP DATABASE's refusal of a database open read-only.
type readOnlyError string

func (e readOnlyError) Error() string { return fmt.Sprintf("Database %s is read-only.", string(e)) }

func errReadOnlyDatabase(name string) error { return readOnlyError(name) }
