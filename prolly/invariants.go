package prolly

import (
	"context"
	"fmt"
)

// checkWritten verifies a map just written when invariants are enabled.
func checkWritten(ctx context.Context, m Map, what string) (Map, error) {
	if !invariantsEnabled {
		return m, nil
	}
	if err := m.Check(ctx); err != nil {
		return Map{}, fmt.Errorf("prolly: invariants: the map written by %s: %w", what, err)
	}
	return m, nil
}

// InvariantsEnabled reports whether this build runs the expensive
// self-checks (-tags invariants). Tests that count node reads consult it:
// the checks read what they verify.
const InvariantsEnabled = invariantsEnabled
