package remotes

import (
	"context"
	"fmt"
	"net/url"
)

// openS3URL opens an s3:// remote.
func openS3URL(ctx context.Context, u *url.URL) (Blobstore, error) {
	return nil, fmt.Errorf("remotes: %s: s3:// remotes are not supported by this build yet; use a file:// remote", u.Redacted())
}
