package eventindex

import (
	"context"

	"github.com/verso-db/verso/prolly"
)

// EventChange is one event added to or removed from the log between two
// revisions.
type EventChange struct {
	Event Event
	Added bool // false: removed
}

// Diff calls fn for each event added or removed from the log from to the
// log to, in position order (a position that holds different events on
// the two sides, as after a merge renumbered them, gives a removal then an
// addition). Its cost follows the size of the change: it walks the two
// logs' trees and skips every shared subtree.
func Diff(ctx context.Context, from, to Log, fn func(EventChange) error) error {
	return prolly.DiffMaps(ctx, from.log, to.log, func(d prolly.Diff) error {
		p, err := decodeLogKey(d.Key)
		if err != nil {
			return err
		}
		if d.Type == prolly.Removed || d.Type == prolly.Modified {
			e, err := decodeEvent(p, d.From)
			if err != nil {
				return err
			}
			if err := fn(EventChange{Event: e}); err != nil {
				return err
			}
		}
		if d.Type == prolly.Added || d.Type == prolly.Modified {
			e, err := decodeEvent(p, d.To)
			if err != nil {
				return err
			}
			return fn(EventChange{Event: e, Added: true})
		}
		return nil
	})
}
