package server

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"

	"github.com/verso-db/verso/internal/testseed"
)

// TestUsersFileRoundTrip checks the users file's envelope: what is
// encoded decodes to the same payload, and the golden bytes of a fixed
// payload pin the format.
func TestUsersFileRoundTrip(t *testing.T) {
	for _, payload := range [][]byte{nil, {}, []byte("x"), bytes.Repeat([]byte{0, 1, 2}, 1000)} {
		b := encodeUsersFile(payload)
		got, err := decodeUsersFile(b)
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("payload of %d bytes: got %d bytes, %v", len(payload), len(got), err)
		}
	}
	golden := encodeUsersFile([]byte("abc"))
	want := []byte("VERSOUSR\x00\x00\x00\x01\x00\x00\x00\x03abc")
	if !bytes.Equal(golden[:len(want)], want) || len(golden) != len(want)+8 {
		t.Fatalf("format changed: % x", golden)
	}
}

// TestUsersFileCorrupt flips every byte, truncates at every length and
// changes the version of a users file: each is refused with ErrUsersFile.
func TestUsersFileCorrupt(t *testing.T) {
	b := encodeUsersFile([]byte("some payload"))
	for i := range b {
		c := bytes.Clone(b)
		c[i] ^= 0x40
		if _, err := decodeUsersFile(c); !errors.Is(err, ErrUsersFile) {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
	for n := 0; n < len(b); n++ {
		if _, err := decodeUsersFile(b[:n]); !errors.Is(err, ErrUsersFile) {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
	// A corrupt file on disk stops loading with an error naming the file
	// and what to do.
	path := filepath.Join(t.TempDir(), "users")
	c := bytes.Clone(b)
	c[len(c)-1] ^= 1
	if err := os.WriteFile(path, c, 0o600); err != nil {
		t.Fatal(err)
	}
	err := loadUsers(mysql_db.CreateEmptyMySQLDb(), path)
	if !errors.Is(err, ErrUsersFile) || !bytes.Contains([]byte(err.Error()), []byte("remove it")) {
		t.Fatalf("loading a corrupt file: %v", err)
	}
	// A valid envelope around bytes that are not the engine's encoding.
	if err := loadUsersPayload(mysql_db.CreateEmptyMySQLDb(), []byte("\xff\xff\xff\x7f garbage")); !errors.Is(err, ErrUsersFile) {
		t.Fatalf("garbage payload: %v", err)
	}
}

// FuzzUsersFile: decoding arbitrary bytes never panics, what decodes
// re-encodes to the same bytes, and the payload verifier never panics
// (TestUsersPayloadMutations feeds the engine's decoder what it passes).
func FuzzUsersFile(f *testing.F) {
	f.Add(encodeUsersFile(nil))
	f.Add(encodeUsersFile([]byte("abc")))
	f.Add([]byte("VERSOUSR"))
	// A real payload: the engine's encoding of two accounts.
	db := mysql_db.CreateEmptyMySQLDb()
	var c capturePersister
	db.SetPersister(&c)
	ed := db.Editor()
	db.AddSuperUser(ed, "alice", "%", "pw")
	db.AddSuperUser(ed, "bob", "localhost", "")
	if err := db.Persist(nil, ed); err != nil {
		f.Fatal(err)
	}
	ed.Close()
	if err := loadUsersPayload(mysql_db.CreateEmptyMySQLDb(), c.data); err != nil {
		f.Fatalf("loading a real payload: %v", err)
	}
	f.Add(encodeUsersFile(c.data))
	f.Add(c.data)
	f.Fuzz(func(t *testing.T, b []byte) {
		if payload, err := decodeUsersFile(b); err == nil {
			if !bytes.Equal(encodeUsersFile(payload), b) {
				t.Fatalf("re-encoding %x changed it", b)
			}
		} else if !errors.Is(err, ErrUsersFile) {
			t.Fatalf("error %v does not wrap ErrUsersFile", err)
		}
		verifyUsersPayload(b) // must not panic
	})
}

// capturePersister keeps the last data the engine persisted.
type capturePersister struct{ data []byte }

func (c *capturePersister) Persist(_ *sql.Context, data []byte) error {
	c.data = bytes.Clone(data)
	return nil
}

// TestUsersPayloadMutations loads thousands of randomly damaged copies of
// a real payload into the engine's user database: each loads or fails
// with ErrUsersFile, quickly and without panicking.
func TestUsersPayloadMutations(t *testing.T) {
	db := mysql_db.CreateEmptyMySQLDb()
	var c capturePersister
	db.SetPersister(&c)
	ed := db.Editor()
	db.AddSuperUser(ed, "alice", "%", "pw")
	db.AddSuperUser(ed, "bob", "localhost", "")
	if err := db.Persist(nil, ed); err != nil {
		t.Fatal(err)
	}
	ed.Close()
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 0))
	failed := 0
	for i := 0; i < 20000; i++ {
		d := bytes.Clone(c.data)
		for j := 0; j < 1+r.IntN(4); j++ {
			d[r.IntN(len(d))] = byte(r.IntN(256))
		}
		if r.IntN(8) == 0 {
			d = d[:r.IntN(len(d))]
		}
		start := time.Now()
		err := loadUsersPayload(mysql_db.CreateEmptyMySQLDb(), d)
		if err != nil {
			failed++
			if !errors.Is(err, ErrUsersFile) {
				t.Fatalf("seed %d, mutation %d: %v does not wrap ErrUsersFile", seed, i, err)
			}
		}
		if el := time.Since(start); el > time.Second {
			t.Fatalf("seed %d, mutation %d took %v: %x", seed, i, el, d)
		}
	}
	t.Logf("seed %d: %d of 20000 damaged payloads refused", seed, failed)
}
