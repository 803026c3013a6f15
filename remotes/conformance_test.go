package remotes

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// runBlobstoreConformance checks the Blobstore contract on bs, which must be
// empty (a new folder, a new bucket prefix). Every backend's tests call it,
// so the same rules hold for a folder and for S3.
func runBlobstoreConformance(t *testing.T, bs Blobstore) {
	t.Helper()
	ctx := context.Background()
	seed := rand.Uint64()
	t.Logf("conformance seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	random := func(n int) []byte {
		b := make([]byte, n+7)
		for i := 0; i < n; i += 8 {
			binary.LittleEndian.PutUint64(b[i:], rng.Uint64())
		}
		return b[:n:n]
	}

	t.Run("Missing", func(t *testing.T) {
		for _, name := range []string{"manifest", "tables/missing.table", "a/b/c"} {
			if _, _, err := bs.Get(ctx, name); !errors.Is(err, ErrNotExist) {
				t.Errorf("Get(%q) of a missing object: %v, want ErrNotExist", name, err)
			}
			if _, err := bs.ReadRange(ctx, name, 0, 1); !errors.Is(err, ErrNotExist) {
				t.Errorf("ReadRange(%q, 0, 1) of a missing object: %v, want ErrNotExist", name, err)
			}
		}
	})

	big := random(20 << 20)
	t.Run("RoundTrip", func(t *testing.T) {
		objects := map[string][]byte{
			"tables/empty.table":        {},
			"tables/one.table":          {0x42},
			"tables/small.table":        random(1000),
			"tables/big.table":          big,
			"tables/deeper/nested/file": random(4097),
		}
		for name, data := range objects {
			if err := bs.Put(ctx, name, data); err != nil {
				t.Fatalf("Put(%q, %d bytes): %v", name, len(data), err)
			}
		}
		for name, data := range objects {
			got, version, err := bs.Get(ctx, name)
			if err != nil {
				t.Fatalf("Get(%q): %v", name, err)
			}
			if !bytes.Equal(got, data) {
				t.Errorf("Get(%q): %d bytes differ from the %d put", name, len(got), len(data))
			}
			if version == "" {
				t.Errorf("Get(%q): empty version", name)
			}
		}
		// A prefix of names is no object.
		for _, name := range []string{"tables", "tables/deeper"} {
			if _, _, err := bs.Get(ctx, name); !errors.Is(err, ErrNotExist) {
				t.Errorf("Get(%q), a prefix of other names: %v, want ErrNotExist", name, err)
			}
		}
		// Writing a name again with the same bytes is allowed, also by
		// several writers at once (two pushers upload the same table).
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 4 {
			wg.Go(func() { errs <- bs.Put(ctx, "tables/small.table", objects["tables/small.table"]) })
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("Put of the same bytes again: %v", err)
			}
		}
		if got, _, err := bs.Get(ctx, "tables/small.table"); err != nil || !bytes.Equal(got, objects["tables/small.table"]) {
			t.Errorf("Get after putting the same bytes again: %d bytes, %v", len(got), err)
		}
	})

	t.Run("ReadRange", func(t *testing.T) {
		small := random(1000)
		if err := bs.Put(ctx, "tables/range.table", small); err != nil {
			t.Fatal(err)
		}
		if err := bs.Put(ctx, "tables/range-big.table", big); err != nil {
			t.Fatal(err)
		}
		const mib = 1 << 20
		for _, c := range []struct {
			name   string
			data   []byte
			off, n int64
		}{
			{"tables/range.table", small, 0, 10},
			{"tables/range.table", small, 500, 100},
			{"tables/range.table", small, 990, 10},
			{"tables/range.table", small, 0, 1000},
			{"tables/range.table", small, 999, 1},
			{"tables/range.table", small, 1000, 0},
			{"tables/range.table", small, 10, 0},
			{"tables/range-big.table", big, 0, 4096},
			{"tables/range-big.table", big, 8*mib - 100, 200}, // across a multipart boundary
			{"tables/range-big.table", big, 10 * mib, 3 * mib},
			{"tables/range-big.table", big, int64(len(big)) - 77, 77},
		} {
			got, err := bs.ReadRange(ctx, c.name, c.off, c.n)
			if err != nil {
				t.Errorf("ReadRange(%q, %d, %d): %v", c.name, c.off, c.n, err)
				continue
			}
			if want := c.data[c.off : c.off+c.n]; !bytes.Equal(got, want) {
				t.Errorf("ReadRange(%q, %d, %d): %d bytes, not the object's %d", c.name, c.off, c.n, len(got), len(want))
			}
		}
		for _, r := range [][2]int64{{995, 10}, {1000, 1}, {2000, 10}, {0, 1001}, {-1, 5}, {5, -1}} {
			got, err := bs.ReadRange(ctx, "tables/range.table", r[0], r[1])
			if err == nil {
				t.Errorf("ReadRange(%d, %d) of a 1000-byte object: %d bytes and no error", r[0], r[1], len(got))
			} else if errors.Is(err, ErrNotExist) {
				t.Errorf("ReadRange(%d, %d) of a 1000-byte object: %v; a bad range is not a missing object", r[0], r[1], err)
			}
		}
		if _, err := bs.ReadRange(ctx, "tables/empty.table", 0, 1); err == nil {
			t.Errorf("ReadRange(0, 1) of an empty object: no error")
		}
	})

	t.Run("CheckAndPut", func(t *testing.T) {
		const name = "manifest"
		v1, err := bs.CheckAndPut(ctx, name, "", []byte("root 1"))
		if err != nil {
			t.Fatalf("CheckAndPut(%q, \"\") creating it: %v", name, err)
		}
		if v1 == "" {
			t.Fatalf("CheckAndPut returned an empty version")
		}
		expect := func(data, version string) {
			t.Helper()
			got, v, err := bs.Get(ctx, name)
			if err != nil {
				t.Fatalf("Get(%q): %v", name, err)
			}
			if string(got) != data || v != version {
				t.Fatalf("Get(%q) = %q version %q, want %q version %q", name, got, v, data, version)
			}
		}
		expect("root 1", v1)

		// Creating it again fails and changes nothing.
		if _, err := bs.CheckAndPut(ctx, name, "", []byte("root X")); !errors.Is(err, ErrPrecondition) {
			t.Fatalf("second create: %v, want ErrPrecondition", err)
		}
		expect("root 1", v1)

		// The version from Get replaces it; the version changes.
		_, vGet, err := bs.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		v2, err := bs.CheckAndPut(ctx, name, vGet, []byte("root 2"))
		if err != nil {
			t.Fatalf("CheckAndPut with the version from Get: %v", err)
		}
		if v2 == v1 {
			t.Fatalf("replacing the object kept its version %q", v1)
		}
		expect("root 2", v2)

		// The version from CheckAndPut replaces it too.
		v3, err := bs.CheckAndPut(ctx, name, v2, []byte("root 3, a little longer"))
		if err != nil {
			t.Fatalf("CheckAndPut with the version from CheckAndPut: %v", err)
		}
		if v3 == v2 || v3 == v1 {
			t.Fatalf("versions repeat: %q, %q, %q", v1, v2, v3)
		}
		expect("root 3, a little longer", v3)

		// A stale version fails and changes nothing.
		for _, stale := range []string{v1, v2, `"not-a-version"`, "garbage"} {
			if _, err := bs.CheckAndPut(ctx, name, stale, []byte("lost update")); !errors.Is(err, ErrPrecondition) {
				t.Fatalf("CheckAndPut with the stale version %q: %v, want ErrPrecondition", stale, err)
			}
			expect("root 3, a little longer", v3)
		}

		// A version expected of a missing object is stale as well.
		if _, err := bs.CheckAndPut(ctx, "tables/never-written", v3, []byte("x")); !errors.Is(err, ErrPrecondition) {
			t.Fatalf("CheckAndPut of a missing object expecting %q: %v, want ErrPrecondition", v3, err)
		}
		if _, _, err := bs.Get(ctx, "tables/never-written"); !errors.Is(err, ErrNotExist) {
			t.Fatalf("a failed CheckAndPut created the object: %v", err)
		}

		// Empty contents and names with slashes work as well.
		ve, err := bs.CheckAndPut(ctx, "refs/heads/main", "", nil)
		if err != nil {
			t.Fatalf("CheckAndPut of empty contents: %v", err)
		}
		if _, err := bs.CheckAndPut(ctx, "refs/heads/main", ve, []byte("x")); err != nil {
			t.Fatalf("replacing empty contents: %v", err)
		}
	})

	t.Run("ConcurrentCheckAndPut", func(t *testing.T) {
		conformanceCounterRace(t, bs, "counter", 8, 12)
	})

	t.Run("BadNames", func(t *testing.T) {
		// Last, and with names of their own, so that a backend that takes
		// them spoils no other check.
		for _, name := range []string{"", "/bad", "bad/", "bad//name", "../bad", "bad/../bad-too", "./bad", "bad/./name", "bad/.."} {
			if err := bs.Put(ctx, name, []byte("x")); err == nil {
				t.Errorf("Put(%q) accepted a name that is not a relative slash-separated path", name)
			}
			if _, _, err := bs.Get(ctx, name); err == nil || errors.Is(err, ErrNotExist) {
				t.Errorf("Get(%q): %v, want an error about the name", name, err)
			}
		}
	})
}

// conformanceCounterRace has writers goroutines each make rounds
// read-modify-CheckAndPut increments of a counter. Every success must be
// counted exactly once: the final counter equals the number of successful
// CheckAndPuts (no lost update), and no version is the expected version of
// two successes (never two winners of one version).
func conformanceCounterRace(t *testing.T, bs Blobstore, name string, writers, rounds int) {
	t.Helper()
	ctx := context.Background()
	if _, err := bs.CheckAndPut(ctx, name, "", []byte("counter 0\n")); err != nil {
		t.Fatalf("creating the counter: %v", err)
	}
	var (
		successes, conflicts atomic.Int64
		mu                   sync.Mutex
		winners              = map[string]int{} // expected version -> writer that replaced it
		values               = map[int]int{}    // counter value written -> writer
		failures             []string
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for range rounds {
				data, version, err := bs.Get(ctx, name)
				if err != nil {
					fail("writer %d: Get: %v", w, err)
					return
				}
				n, err := conformanceParseCounter(data)
				if err != nil {
					fail("writer %d: %v", w, err)
					return
				}
				next := fmt.Appendf(nil, "counter %d\nwriter %d\n", n+1, w)
				_, err = bs.CheckAndPut(ctx, name, version, next)
				switch {
				case err == nil:
					successes.Add(1)
					mu.Lock()
					if other, ok := winners[version]; ok {
						failures = append(failures, fmt.Sprintf("writers %d and %d both replaced version %q", other, w, version))
					}
					winners[version] = w
					if other, ok := values[n+1]; ok {
						failures = append(failures, fmt.Sprintf("writers %d and %d both wrote counter %d", other, w, n+1))
					}
					values[n+1] = w
					mu.Unlock()
				case errors.Is(err, ErrPrecondition):
					conflicts.Add(1)
				default:
					fail("writer %d: CheckAndPut: %v", w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	data, _, err := bs.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	n, err := conformanceParseCounter(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d writers x %d rounds: %d successes, %d conflicts", writers, rounds, successes.Load(), conflicts.Load())
	if int64(n) != successes.Load() {
		t.Errorf("counter is %d after %d successful CheckAndPuts (lost or doubled updates)", n, successes.Load())
	}
	if successes.Load() == 0 {
		t.Errorf("no CheckAndPut succeeded")
	}
}

func conformanceParseCounter(data []byte) (int, error) {
	line, _, _ := strings.Cut(string(data), "\n")
	v, ok := strings.CutPrefix(line, "counter ")
	if !ok {
		return 0, fmt.Errorf("counter object holds %q", data)
	}
	return strconv.Atoi(v)
}
