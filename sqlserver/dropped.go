package sqlserver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// Dropped databases, as Dolt keeps them: DROP DATABASE sets a database
// aside instead of deleting it; CALL dolt_undrop('name') brings it back,
// history and working set included, and CALL
// dolt_purge_dropped_databases() deletes them for good. A data dir keeps
// them as folders of droppedDir (a name beginning with '.', so NewProvider
// serves none of them); a database dropped twice keeps its last copy.

// droppedDir is the folder of a data dir that holds dropped databases.
const droppedDir = ".verso-dropped"

var droppedProcedures = []sql.ExternalStoredProcedureDetails{
	{Name: "dolt_undrop", Schema: statusSchema, Function: doltUndrop},
	{Name: "dolt_purge_dropped_databases", Schema: statusSchema, Function: doltPurgeDropped},
}

// keepDropped moves the folder of the closed database st to droppedDir.
func (p *Provider) keepDropped(st *dbState) error {
	dir := filepath.Join(p.dataDir, droppedDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	to := filepath.Join(dir, filepath.Base(st.dir))
	if err := os.RemoveAll(to); err != nil {
		return err
	}
	return os.Rename(st.dir, to)
}

// droppedNames returns the names of the dropped databases, sorted.
func (p *Provider) droppedNames() ([]string, error) {
	var names []string
	if p.dataDir == "" {
		for _, st := range p.dropped {
			names = append(names, st.name)
		}
	} else {
		ents, err := os.ReadDir(filepath.Join(p.dataDir, droppedDir))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		for _, e := range ents {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

func doltUndrop(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	s := sessionOf(ctx)
	if s == nil {
		return nil, errors.New("dolt_undrop: not a verso session")
	}
	if len(args) > 1 {
		return nil, errors.New("dolt_undrop called with too many arguments: dolt_undrop only accepts one argument - the name of the dropped database to restore")
	}
	p := s.p
	p.mu.Lock()
	defer p.mu.Unlock()
	names, err := p.droppedNames()
	if err != nil {
		return nil, err
	}
	available := "there are no databases currently available to be undropped"
	if len(names) > 0 {
		available = "available databases that can be undropped: " + strings.Join(names, ", ")
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("no database name specified. %s", available)
	}
	name := ""
	for _, n := range names {
		if strings.EqualFold(n, args[0]) {
			name = n
		}
	}
	if name == "" {
		return nil, fmt.Errorf("no database named '%s' found to undrop. %s", args[0], available)
	}
	if _, ok := p.dbs[strings.ToLower(name)]; ok {
		return nil, fmt.Errorf("unable to undrop database '%s'; another database already exists with the same case-insensitive name", name)
	}
	if p.dataDir == "" {
		st := p.dropped[strings.ToLower(name)]
		delete(p.dropped, strings.ToLower(name))
		p.dbs[strings.ToLower(name)] = st
		return statusRow(0), nil
	}
	dir := filepath.Join(p.dataDir, name)
	if err := os.Rename(filepath.Join(p.dataDir, droppedDir, name), dir); err != nil {
		return nil, err
	}
	st, err := openDir(name, dir, p.readOnly, p.locks)
	if err != nil {
		return nil, err
	}
	p.watch(st)
	p.dbs[strings.ToLower(name)] = st
	return statusRow(0), nil
}

func doltPurgeDropped(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	if len(args) > 0 {
		return nil, errors.New("dolt_purge_dropped_databases does not take any arguments")
	}
	s := sessionOf(ctx)
	if s == nil {
		return nil, errors.New("dolt_purge_dropped_databases: not a verso session")
	}
	p := s.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dataDir == "" {
		for k, st := range p.dropped {
			st.close()
			delete(p.dropped, k)
		}
		return statusRow(0), nil
	}
	if err := os.RemoveAll(filepath.Join(p.dataDir, droppedDir)); err != nil {
		return nil, err
	}
	return statusRow(0), nil
}
