package commitgraph

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/closure"
)

func testAddr(s string) chunks.Address { return chunks.Of([]byte(s)) }

var goldenTime = time.Date(2026, 11, 30, 9, 0, 0, 123_000_000, time.UTC)

func goldenCommits() []*Commit {
	return []*Commit{
		{Root: testAddr("root"), Height: 1, Meta: Meta{Author: Signature{"Ada", "ada@example.com"}, Time: goldenTime, Message: "Initialize data repository"}},
		{Root: testAddr("root2"), Height: 7, Closure: testAddr("closure"), Parents: []chunks.Address{testAddr("p1"), testAddr("p2"), testAddr("p3")},
			Meta: Meta{Author: Signature{"Ada", "ada@example.com"}, Committer: Signature{"Bob", "bob@example.com"}, Time: goldenTime.Add(-time.Hour * 24 * 365 * 60), Message: "merge\nthree ways"}},
	}
}

// goldenTailCommit is a commit of format 3 with a closure tail.
func goldenTailCommit() *Commit {
	return &Commit{Root: testAddr("root3"), Height: 9, Closure: testAddr("base"), Parents: []chunks.Address{testAddr("p1")},
		Tail: []chunks.Address{testAddr("p1"), testAddr("t2"), testAddr("t3")},
		Meta: Meta{Author: Signature{"Ada", "ada@example.com"}, Time: goldenTime, Message: "on a tail"}}
}

// goldenAuthorTimeCommit is a commit whose author time is not its time:
// the flags byte's bit 1, with a committer (bit 0) too.
func goldenAuthorTimeCommit() *Commit {
	return &Commit{Root: testAddr("root4"), Height: 2, Closure: testAddr("base"), Parents: []chunks.Address{testAddr("p1")},
		Meta: Meta{Author: Signature{"Ada", "ada@example.com"}, Committer: Signature{"Bob", "bob@example.com"},
			Time: goldenTime, AuthorTime: goldenTime.AddDate(-1, 0, 0), Message: "written a year ago"}}
}

// TestFormatGolden pins the address of fixed chunks of each kind: a change
// means the format changed, which changes every commit's address.
func TestFormatGolden(t *testing.T) {
	var got []string
	for _, c := range goldenCommits() {
		b, err := encodeCommit(c)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, chunks.Of(b).String())
	}
	b, err := encodeTag(&Tag{Commit: testAddr("c"), Tagger: Signature{"Ada", "ada@example.com"}, Time: goldenTime, Message: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, chunks.Of(b).String())
	// The commits again in formats 1 and 2: their bytes are those of the
	// first and second formats, unchanged.
	for _, v := range []uint8{commitVersion1, commitVersion2} {
		for _, c := range goldenCommits() {
			c.Version = v
			b, err := encodeCommit(c)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, chunks.Of(b).String())
		}
	}
	b, err = encodeCommit(goldenTailCommit())
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, chunks.Of(b).String())
	b, err = encodeCommit(goldenAuthorTimeCommit())
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, chunks.Of(b).String())
	for _, ws := range goldenWorkingSets() {
		b, err := encodeWorkingSet(ws)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, chunks.Of(b).String())
	}
	want := []string{"htn7elp5rnegk05m5g73r24s3crmhkmd", "obpj2n4h8sgq34a3joddntmgdtcktr35", "k7f03rlk4ub9n897h5m0n92lv8e4er84",
		"20h4092t5is0cslt2q8gh7mg0laggn15", "p927kms45mov76dev09lb3d3os3ohkfm",
		"l4tpt8kdq301vji5vp0gmdpc9bpl9ede", "7jsfe65v79ep8bbsq7ankvph36t4vbi9",
		"kaeasqbg11uib1o3q312uebmrsshn013", "s77qj6bk8eff1sd7b4mu5l6hmqv8ee0n",
		"59ktia7tgnfd4i8ip98o1bhuq3ulcdid", "4hqpoi50ub33amcsuho0c0v3uhdqj4hr", "1uk5mhllpkj7a93opn549n87v9ojasqn"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("golden addresses\n got %q\nwant %q", got, want)
	}
}

// goldenWorkingSets are working sets of each encoding: version 1 without
// and with a merge, version 2 with a cherry-pick.
func goldenWorkingSets() []WorkingSet {
	return []WorkingSet{
		{Working: testAddr("w"), Staged: testAddr("s")},
		{Working: testAddr("w"), Staged: testAddr("s"), Merge: &MergeState{Commit: testAddr("m"), PreMergeWorking: testAddr("pre")}},
		{Working: testAddr("w"), Staged: testAddr("s"), Merge: &MergeState{Commit: testAddr("m"), PreMergeWorking: testAddr("pre"), Kind: KindCherryPick, Source: "feature~1"}},
	}
}

func TestCommitRoundTrip(t *testing.T) {
	for _, c := range append(goldenCommits(), goldenTailCommit(), goldenAuthorTimeCommit()) {
		b, err := encodeCommit(c)
		if err != nil {
			t.Fatal(err)
		}
		d, err := DecodeCommit(chunks.Of(b), b)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := encodeCommit(d)
		if !bytes.Equal(again, b) || !d.Meta.Time.Equal(c.Meta.Time) || d.Meta != c.Meta || !slices.Equal(d.Tail, c.Tail) {
			t.Fatalf("round trip changed %+v into %+v", c, d)
		}
	}
}

func TestCommitRejects(t *testing.T) {
	ok := goldenCommits()[1]
	cases := map[string]func(c *Commit){
		"root commit with height 2":  func(c *Commit) { c.Parents = nil; c.Closure = chunks.Address{} },
		"root commit with a closure": func(c *Commit) { c.Parents = nil; c.Height = 1 },
		"height 1 with parents":      func(c *Commit) { c.Height = 1 },
		"no closure with parents":    func(c *Commit) { c.Closure = chunks.Address{} },
		"zero parent":                func(c *Commit) { c.Parents = []chunks.Address{{}} },
		"repeated parent":            func(c *Commit) { c.Parents = []chunks.Address{testAddr("a"), testAddr("a")} },
		"height above the maximum":   func(c *Commit) { c.Height = closure.MaxHeight + 1 },
	}
	tailCases := map[string]func(c *Commit){
		"a tail reaching below height 1": func(c *Commit) { c.Height = 3 },
		"no base above the root":         func(c *Commit) { c.Closure = chunks.Address{} },
		"a repeated tail commit":         func(c *Commit) { c.Tail[2] = c.Tail[1] },
		"a zero tail commit":             func(c *Commit) { c.Tail[1] = chunks.Address{} },
		"a tail longer than the longest": func(c *Commit) { c.Height = 40; c.Tail = append(c.Tail, make([]chunks.Address, closure.MaxTail)...) },
	}
	for name, mutate := range tailCases {
		c := goldenTailCommit()
		mutate(c)
		b, err := encodeCommit(c)
		if name == "a tail longer than the longest" {
			if err == nil {
				t.Errorf("%s: encoded", name)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeCommit(chunks.Of(b), b); !chunks.IsCorrupt(err) {
			t.Errorf("%s: error %v, want a corruption", name, err)
		}
	}
	if _, err := encodeCommit(&Commit{Root: testAddr("r"), Height: 3, Closure: testAddr("c"), Parents: []chunks.Address{testAddr("a"), testAddr("b")}, Tail: []chunks.Address{testAddr("a")}}); err == nil {
		t.Error("a tail on a merge was encoded")
	}
	for name, mutate := range cases {
		c := *ok
		mutate(&c)
		b, err := encodeCommit(&c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeCommit(chunks.Of(b), b); !chunks.IsCorrupt(err) {
			t.Errorf("%s: error %v, want a corruption", name, err)
		}
	}
	b, _ := encodeCommit(ok)
	for _, bad := range [][]byte{nil, b[:10], append(bytes.Clone(b), 0), append([]byte("VTAG"), b[4:]...), append([]byte("VCMT\x04"), b[5:]...), append([]byte("VCMT\x00"), b[5:]...)} {
		if _, err := DecodeCommit(chunks.Address{}, bad); !chunks.IsCorrupt(err) {
			t.Errorf("%q: error %v, want a corruption", bad, err)
		}
	}
	// The flags byte: an unknown bit, and an author time equal to the time
	// given explicitly (the canonical form leaves it out).
	at, _ := encodeCommit(goldenAuthorTimeCommit())
	flagsAt := len(at) - 4 - len("written a year ago") - 8 - 2 - len("bob@example.com") - 2 - len("Bob") - 1
	if at[flagsAt] != flagCommitter|flagAuthorTime {
		t.Fatalf("flags byte at %d is %#x", flagsAt, at[flagsAt])
	}
	unknown := bytes.Clone(at)
	unknown[flagsAt] |= 1 << 2
	same := bytes.Clone(at)
	binary.BigEndian.PutUint64(same[flagsAt+1+2+3+2+15:], uint64(goldenTime.UnixMilli()))
	for name, bad := range map[string][]byte{"unknown flag": unknown, "author time equal to the time": same} {
		if _, err := DecodeCommit(chunks.Of(bad), bad); !chunks.IsCorrupt(err) {
			t.Errorf("%s: error %v, want a corruption", name, err)
		}
	}
	long := *ok
	long.Meta.Author.Name = strings.Repeat("x", 1<<16)
	if _, err := encodeCommit(&long); err == nil {
		t.Error("a 64 KiB author name was encoded")
	}
}

func TestTagAndWorkingSetRoundTrip(t *testing.T) {
	tag := &Tag{Commit: testAddr("c"), Tagger: Signature{"Ada", "a@b"}, Time: goldenTime, Message: "m"}
	b, err := encodeTag(tag)
	if err != nil {
		t.Fatal(err)
	}
	d, err := DecodeTag(chunks.Of(b), b)
	if err != nil || d.Commit != tag.Commit || d.Tagger != tag.Tagger || !d.Time.Equal(tag.Time) || d.Message != tag.Message {
		t.Fatalf("tag round trip: %+v, %v", d, err)
	}
	sets := append(goldenWorkingSets(), WorkingSet{},
		WorkingSet{Working: testAddr("w"), Staged: testAddr("s"), Merge: &MergeState{Commit: testAddr("m")}},
		WorkingSet{Merge: &MergeState{Commit: testAddr("m"), Source: "feature"}})
	for _, ws := range sets {
		b, err := encodeWorkingSet(ws)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeWorkingSet(b)
		if err != nil || !got.Equal(ws) {
			t.Fatalf("working set round trip: %+v, %v", got, err)
		}
		if want := byte(1); ws.Merge != nil && (ws.Merge.Kind != KindMerge || ws.Merge.Source != "") {
			want = 2
			if b[4] != want {
				t.Errorf("working set %+v written in version %d, want %d", ws, b[4], want)
			}
		} else if b[4] != want {
			t.Errorf("working set %+v written in version %d, want %d", ws, b[4], want)
		}
	}
}

// TestWorkingSetNotCanonical: version 2 chunks that version 1 would write
// (no merge, or a merge without a source), and unknown kinds, are refused.
func TestWorkingSetNotCanonical(t *testing.T) {
	v1, err := encodeWorkingSet(WorkingSet{Working: testAddr("w")})
	if err != nil {
		t.Fatal(err)
	}
	noMerge := append([]byte(nil), v1...)
	noMerge[4] = 2
	merge := &MergeState{Commit: testAddr("m"), Kind: KindCherryPick, Source: "x"}
	b, err := encodeWorkingSet(WorkingSet{Merge: merge})
	if err != nil {
		t.Fatal(err)
	}
	plain := append([]byte(nil), b...)
	plain[4+1+4*chunks.AddressSize+1] = byte(KindMerge)
	plain = append(plain[:len(plain)-3], 0, 0) // no source
	badKind := append([]byte(nil), b...)
	badKind[4+1+4*chunks.AddressSize+1] = 7
	for name, c := range map[string][]byte{"no merge": noMerge, "plain merge": plain, "kind 7": badKind} {
		if _, err := DecodeWorkingSet(c); !chunks.IsCorrupt(err) {
			t.Errorf("%s: %v, want a corruption", name, err)
		}
	}
	if _, err := encodeWorkingSet(WorkingSet{Merge: &MergeState{Commit: testAddr("m"), Kind: 9}}); err == nil {
		t.Error("kind 9 was encoded")
	}
}

func FuzzDecodeCommit(f *testing.F) {
	for _, c := range goldenCommits() {
		b, _ := encodeCommit(c)
		f.Add(b)
	}
	at, _ := encodeCommit(goldenAuthorTimeCommit())
	f.Add(at)
	f.Add([]byte("VCMT\x01"))
	f.Add([]byte("VCMT\x02"))
	for _, c := range goldenCommits() {
		c.Version = commitVersion1
		b, _ := encodeCommit(c)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeCommit(chunks.Address{}, b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error %v is not a corruption", err)
			}
			return
		}
		again, err := encodeCommit(c)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("commit does not round-trip: %v", err)
		}
	})
}

func FuzzDecodeTag(f *testing.F) {
	b, _ := encodeTag(&Tag{Commit: testAddr("c"), Tagger: Signature{"Ada", "a@b"}, Time: goldenTime, Message: "m"})
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		tag, err := DecodeTag(chunks.Address{}, b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error %v is not a corruption", err)
			}
			return
		}
		again, err := encodeTag(tag)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("tag does not round-trip: %v", err)
		}
	})
}

func FuzzDecodeWorkingSet(f *testing.F) {
	for _, ws := range goldenWorkingSets() {
		b, _ := encodeWorkingSet(ws)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ws, err := DecodeWorkingSet(b)
		if err != nil {
			if !chunks.IsCorrupt(err) {
				t.Fatalf("error %v is not a corruption", err)
			}
			return
		}
		if again, err := encodeWorkingSet(ws); err != nil || !bytes.Equal(again, b) {
			t.Fatal("working set does not round-trip")
		}
	})
}
