package eventindex

import (
	"context"
	"fmt"
)

// Stream returns the state of stream as the Batch sees it: its stored
// record with the Batch's own appends, deletes and metadata applied, or
// ErrStreamNotFound for a stream with no record in either. Callers that
// check more than an ExpectedVersion can express (the SQL layer's
// INSERT with an explicit event number) read it before Append.
func (b *Batch) Stream(ctx context.Context, stream string) (StreamInfo, error) {
	m, ok, err := b.meta(ctx, stream)
	if err != nil {
		return StreamInfo{}, err
	}
	if !ok {
		return StreamInfo{}, fmt.Errorf("%w: %q", ErrStreamNotFound, stream)
	}
	return m.info(stream), nil
}
