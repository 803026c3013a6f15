package remotes

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// OpenURL opens the Blobstore a remote's URL names:
//
//	file:///abs/path     a folder (file://rel/path is relative to the
//	                     process's working folder)
//	s3://bucket/prefix   S3 or an S3-compatible store (OpenS3)
func OpenURL(ctx context.Context, raw string) (Blobstore, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("remotes: %q is not a URL: %v", raw, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		p := u.Host + u.Path
		if p == "" {
			return nil, fmt.Errorf("remotes: %q names no folder", raw)
		}
		if !filepath.IsAbs(p) {
			if p, err = filepath.Abs(p); err != nil {
				return nil, fmt.Errorf("remotes: %w", err)
			}
		}
		return OpenFile(filepath.FromSlash(p))
	case "s3":
		return openS3URL(ctx, u)
	case "":
		return nil, fmt.Errorf("remotes: %q has no scheme: use file:///path or s3://bucket/prefix", raw)
	default:
		return nil, fmt.Errorf("remotes: %q: the scheme %s is not supported; use file:///path or s3://bucket/prefix", raw, u.Scheme)
	}
}
