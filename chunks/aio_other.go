//go:build !linux

package chunks

import (
	"errors"
	"os"
)

var errAsyncSyncUnsupported = errors.New("asynchronous syncs are Linux's")

// aioContext is Linux's; elsewhere SyncQueue syncs in Wait.
type aioContext struct{}

func newAIOContext() *aioContext { return nil }

func newAsyncSyncs() asyncSyncs { return nil }

func (c *aioContext) submitDataSync(*os.File, uint64) error { panic("unreachable") }

func (c *aioContext) wait(done []syncDone) ([]syncDone, error) { panic("unreachable") }

func (c *aioContext) close() {}
