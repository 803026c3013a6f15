package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/zeebo/xxh3"

	"github.com/verso-db/verso/internal/atomicfile"
)

// The users file keeps the accounts and grants made with CREATE USER,
// GRANT, REVOKE, CREATE ROLE and their kin, so that they survive restarts.
// The server rewrites it whole after each such statement: it writes a
// temporary file beside it, syncs it, renames it over the old one and
// syncs the folder, so a crash leaves either the old or the new file.
// Layout (integers big-endian):
//
//	offset  size  field
//	0       8     magic "VERSOUSR"
//	8       4     format version (usersFormatVersion)
//	12      4     payload length n
//	16      n     payload: the engine's user database in its own
//	              flatbuffer encoding (go-mysql-server's
//	              sql/mysql_db/serial, schema sql/mysql_db/fbs, the
//	              format Dolt keeps in privileges.db): accounts with
//	              their password hashes and privileges, role edges
//	16+n    8     xxh3-64 of bytes [0, 16+n)
//
// The superuser of --user / --password is not stored: it is made afresh
// at each start from the server's configuration.
const (
	usersMagic         = "VERSOUSR"
	usersFormatVersion = 1
	usersHeaderSize    = 16
	usersTrailerSize   = 8
)

// ErrUsersFile marks a users file that cannot be read: bad magic, unknown
// version, wrong length, checksum mismatch or an undecodable payload.
var ErrUsersFile = errors.New("sqlserver: corrupt users file")

// encodeUsersFile returns the users file holding payload.
func encodeUsersFile(payload []byte) []byte {
	b := make([]byte, usersHeaderSize, usersHeaderSize+len(payload)+usersTrailerSize)
	copy(b, usersMagic)
	binary.BigEndian.PutUint32(b[8:], usersFormatVersion)
	binary.BigEndian.PutUint32(b[12:], uint32(len(payload)))
	b = append(b, payload...)
	return binary.BigEndian.AppendUint64(b, xxh3.Hash(b))
}

// decodeUsersFile checks a users file and returns its payload (a slice of
// b). It never panics; every failure wraps ErrUsersFile.
func decodeUsersFile(b []byte) ([]byte, error) {
	if len(b) < usersHeaderSize+usersTrailerSize {
		return nil, fmt.Errorf("%w: %d bytes is too short", ErrUsersFile, len(b))
	}
	if string(b[:8]) != usersMagic {
		return nil, fmt.Errorf("%w: not a verso users file (magic %q)", ErrUsersFile, b[:8])
	}
	if v := binary.BigEndian.Uint32(b[8:]); v != usersFormatVersion {
		return nil, fmt.Errorf("%w: format version %d, this build reads version %d", ErrUsersFile, v, usersFormatVersion)
	}
	n := uint64(binary.BigEndian.Uint32(b[12:]))
	if uint64(len(b)) != usersHeaderSize+n+usersTrailerSize {
		return nil, fmt.Errorf("%w: payload of %d bytes in a file of %d bytes", ErrUsersFile, n, len(b))
	}
	end := usersHeaderSize + int(n)
	if got, want := xxh3.Hash(b[:end]), binary.BigEndian.Uint64(b[end:]); got != want {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrUsersFile)
	}
	return b[usersHeaderSize:end], nil
}

// usersPersister is the engine's persister of its user database: it
// rewrites the users file at path (see above).
type usersPersister struct {
	mu   sync.Mutex
	path string
}

var _ mysql_db.MySQLDbPersistence = (*usersPersister)(nil)

// Persist implements mysql_db.MySQLDbPersistence. The statement that
// changed the users succeeds only once the file is durable.
func (p *usersPersister) Persist(_ *sql.Context, data []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := atomicfile.Write(p.path, encodeUsersFile(data), 0o600); err != nil {
		return fmt.Errorf("saving users and grants to %s: %w", p.path, err)
	}
	return nil
}

// memoryUsers is the persister of a server without a users file: users
// and grants live until it stops. (The engine calls its persister on
// every CREATE USER or GRANT, and has none by default.)
type memoryUsers struct{}

var _ mysql_db.MySQLDbPersistence = memoryUsers{}

// Persist implements mysql_db.MySQLDbPersistence.
func (memoryUsers) Persist(*sql.Context, []byte) error { return nil }

// loadUsers loads the users file at path into db; a missing file is no
// error (no users yet).
func loadUsers(db *mysql_db.MySQLDb, path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the users file: %w", err)
	}
	payload, err := decodeUsersFile(b)
	if err == nil {
		err = loadUsersPayload(db, payload)
	}
	if err != nil {
		return fmt.Errorf("%s: %w (restore it from a backup, or remove it to start with only the superuser)", path, err)
	}
	return nil
}

// CheckUsersFile checks the users file at path as a server's start reads
// it (checksum, format, every offset of the payload, then the engine's
// decoding), into a scratch user database: verso fsck calls it. A missing
// file is no error. A failure wraps ErrUsersFile.
func CheckUsersFile(path string) error {
	return loadUsers(mysql_db.CreateEmptyMySQLDb(), path)
}

// loadUsersPayload loads the engine's encoding of its user database.
func loadUsersPayload(db *mysql_db.MySQLDb, payload []byte) (err error) {
	if len(payload) == 0 {
		return nil
	}
	if err := verifyUsersPayload(payload); err != nil {
		return fmt.Errorf("%w: %v", ErrUsersFile, err)
	}
	defer func() {
		// LoadData recovers from its own decoding panics; this guards
		// what it calls outside that.
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: undecodable payload (%v)", ErrUsersFile, r)
		}
	}()
	if err := db.LoadData(sql.NewEmptyContext(), payload); err != nil {
		return fmt.Errorf("%w: %v", ErrUsersFile, err)
	}
	return nil
}
