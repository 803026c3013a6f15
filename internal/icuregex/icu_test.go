//go:build cgo && !gms_pure_go

package icuregex

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	engine "github.com/dolthub/go-icu-regex"
)

// TestSameAsEngine runs each operation on this package and on the
// engine's binding, which the SQL functions used before, and wants the
// same answers.
func TestSameAsEngine(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		pattern, text string
		flags         Flags
	}{
		{"b", "abcabc", 0},
		{"[a-z]+", "abc def ghi", 0},
		{"(\\w)(\\w)", "ab cd ef", 0},
		{"a", "ba", 0},
		{"x*", "abc", 0},
		{"é", "café crème", 0},
		{"😀", "a😀b😀c", 0},
		{"ABC", "abc ABC", CaseInsensitive},
		{"^b", "a\nb\nc", Multiline},
		{"a.c", "a\nc", DotAll},
		{"nomatch", "abc", 0},
		{"o", "", 0},
	} {
		ours, err := Compile(tc.pattern, tc.flags, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		theirs := engine.CreateRegex(1024)
		if err := theirs.SetRegexString(ctx, tc.pattern, engine.RegexFlags(tc.flags)); err != nil {
			t.Fatal(err)
		}
		n := len(tc.text) + 2
		for start := 0; start <= n; start++ {
			for occ := 0; occ <= 3; occ++ {
				check := func(op string, a, b any, ea, eb error) {
					t.Helper()
					if (ea == nil) != (eb == nil) || a != b {
						t.Errorf("%s(%q on %q, start %d, occurrence %d): ours %v, %v; the engine's %v, %v", op, tc.pattern, tc.text, start, occ, a, ea, b, eb)
					}
				}
				ours.SetText(tc.text)
				theirs.SetMatchString(ctx, tc.text)
				a, ea := ours.Matches(ctx, start, occ)
				b, eb := theirs.Matches(ctx, start, occ)
				check("Matches", a, b, ea, eb)
				if start == 0 {
					continue // positions count from 1 below
				}
				for _, end := range []bool{false, true} {
					a, ea := ours.IndexOf(ctx, start, occ, end)
					b, eb := theirs.IndexOf(ctx, start, occ, end)
					check("IndexOf", a, b, ea, eb)
				}
				sa, oka, ea := ours.Substring(ctx, start, occ)
				sb, okb, eb := theirs.Substring(ctx, start, occ)
				check("Substring", [2]any{sa, oka}, [2]any{sb, okb}, ea, eb)
				for _, repl := range []string{"", "X", "<$0>", "$2$1", strings.Repeat("long", 50)} {
					if repl == "$2$1" && !strings.Contains(tc.pattern, "(") {
						continue
					}
					a, ea := ours.Replace(ctx, repl, start, occ)
					b, eb := theirs.Replace(ctx, repl, start, occ)
					check("Replace "+repl, a, b, ea, eb)
				}
			}
		}
		ours.Close()
		theirs.Close()
	}
}

// TestStops: a match that would run for ages ends soon after its context
// does, with the context's cause, and at a time limit with ErrTimeOut.
func TestStops(t *testing.T) {
	text := strings.Repeat("a", 40) + "b"
	r, err := Compile("^(a+)+$", 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.SetText(text); err != nil {
		t.Fatal(err)
	}
	cause := errors.New("the statement was killed")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(200*time.Millisecond, func() { cancel(cause) })
	start := time.Now()
	if _, err := r.Matches(ctx, 0, 0); !errors.Is(err, cause) {
		t.Fatalf("Matches: %v, want %v", err, cause)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("stopped %v after the context was cancelled", d)
	}
	// The same Regex works afterwards.
	r.SetText("aaa")
	if ok, err := r.Matches(context.Background(), 0, 0); err != nil || !ok {
		t.Fatalf("after: %v, %v", ok, err)
	}

	limited, err := Compile("^(a+)+$", 0, 32, 8000000)
	if err != nil {
		t.Fatal(err)
	}
	defer limited.Close()
	limited.SetText(text)
	if _, err := limited.Matches(context.Background(), 0, 0); err != ErrTimeOut {
		t.Fatalf("with a time limit: %v, want ErrTimeOut", err)
	}
	if _, err := Compile("(", 0, 0, 0); err != ErrInvalid {
		t.Fatalf("invalid pattern: %v", err)
	}
}
