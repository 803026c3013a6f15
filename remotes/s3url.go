package remotes

import (
	"context"
	"net/url"
)

// openS3URL opens an s3:// remote.
func openS3URL(ctx context.Context, u *url.URL) (Blobstore, error) {
	bs, err := OpenS3(ctx, u)
	if err != nil {
		return nil, err
	}
	return bs, nil
}
