//go:build !linux

package chunks

import "testing"

// asyncBackends is Linux's; elsewhere syncs run in Wait.
func asyncBackends(*testing.T) map[string]asyncSyncs { return nil }
