package doltargs

// The options of the versioning commands that both the SQL procedures and
// the command line have (dolt_add and verso add, ...): one list each, so
// the two take the same arguments. Each call returns a new Spec.

// Add is dolt_add's: tables, '.', or -A; -f stages tables dolt_ignore
// ignores.
func Add() Spec {
	return Spec{Opts: map[string]bool{"all": false, "force": false}, Shorts: map[byte]string{'A': "all", 'f': "force"}}
}

// Commit is dolt_commit's.
func Commit() Spec {
	return Spec{
		Opts: map[string]bool{
			"message": true, "all": false, "ALL": false, "allow-empty": false, "skip-empty": false,
			"author": true, "date": true, "amend": false, "force": false,
		},
		Shorts: map[byte]string{'m': "message", 'a': "all", 'A': "ALL", 'f': "force"},
	}
}

// Branch is dolt_branch's.
func Branch() Spec {
	return Spec{
		Opts:   map[string]bool{"copy": false, "move": false, "delete": false, "D": false, "force": false, "track": false},
		Shorts: map[byte]string{'c': "copy", 'm': "move", 'd': "delete", 'D': "D", 'f': "force", 't': "track"},
	}
}

// Checkout is dolt_checkout's.
func Checkout() Spec {
	return Spec{Opts: map[string]bool{"b": true, "B": true}, Shorts: map[byte]string{'b': "b", 'B': "B"}}
}

// Tag is dolt_tag's; -v (verbose) is the listing's, which dolt_tag
// refuses with a hint at dolt_tags.
func Tag() Spec {
	return Spec{
		Opts:   map[string]bool{"message": true, "delete": false, "author": true, "verbose": false},
		Shorts: map[byte]string{'m': "message", 'd': "delete", 'v': "verbose"},
	}
}

// Reset is dolt_reset's.
func Reset() Spec {
	return Spec{Opts: map[string]bool{"soft": false, "hard": false}, Shorts: map[byte]string{}}
}

// Merge is dolt_merge's.
func Merge() Spec {
	return Spec{
		Opts: map[string]bool{
			"message": true, "no-ff": false, "ff-only": false, "squash": false, "no-commit": false,
			"abort": false, "author": true,
		},
		Shorts: map[byte]string{'m': "message"},
	}
}

// GC is dolt_gc's: --shallow / -s, --full / -f, and Dolt's
// --archive-level, which the caller refuses (verso writes no archives).
func GC() Spec {
	return Spec{
		Opts:   map[string]bool{"shallow": false, "full": false, "archive-level": true},
		Shorts: map[byte]string{'s': "shallow", 'f': "full"},
	}
}
