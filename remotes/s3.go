package remotes

// S3Blobstore: a remote in an S3 bucket, on AWS or on an S3-compatible store
// (SeaweedFS, MinIO, Cloudflare R2, Ceph RGW), through the AWS SDK for Go v2.
//
// # URL
//
//	s3://BUCKET[/PREFIX][?region=REGION][&endpoint=URL][&path-style=true|false]
//
// region defaults to the SDK's (AWS_REGION, the profile), then us-east-1.
// endpoint points at an S3-compatible server (http://127.0.0.1:8333); without
// it the SDK's own endpoint applies: AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3,
// then AWS. Requests use path-style addressing (http://host/BUCKET/KEY) when
// an endpoint is given either way, virtual-hosted (http://BUCKET.host/KEY)
// otherwise; path-style= overrides that. Credentials come from the SDK's
// standard chain: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with
// AWS_SESSION_TOKEN), AWS_PROFILE and ~/.aws/{config,credentials}, SSO, web
// identity, then the EC2 or container role.
//
// # Names and keys
//
// A name maps onto the key PREFIX + "/" + name in BUCKET, or onto name itself
// when the URL has no prefix: the remote at s3://verso-test/team/db keeps
// "manifest" at the key "team/db/manifest" and "tables/abc.table" at
// "team/db/tables/abc.table". The prefix is the URL's path without its
// leading and trailing slashes; names are relative, slash-separated paths
// with no empty, "." or ".." part (S3 has no folders: nothing is made for
// "tables/"). A key is at most 1024 bytes, S3's limit.
//
// # Writes
//
// Put sends an object smaller than 16 MiB in one PutObject, a larger one as a
// multipart upload of 8 MiB parts, 4 at a time; S3 shows the object only when
// the upload completes, so a reader never sees part of it. A failed multipart
// upload is aborted (best effort: a bucket lifecycle rule that aborts
// incomplete uploads after a day cleans up what an abort could not). A
// completion whose answer was lost is retried, finds the upload gone
// (NoSuchUpload) and then counts as done if the key holds an object of the
// right size: names are content addresses. Uploads carry CRC32 checksums,
// which the server checks (the SDK's default; whole objects and each part).
//
// CheckAndPut is one PutObject with If-None-Match: * (expected "") or
// If-Match: <expected ETag>; the version is the object's ETag, quotes
// included, as S3 returns it. The server answers 412 PreconditionFailed or 409
// ConditionalRequestConflict when another writer got there first; both wrap
// ErrPrecondition. Each CheckAndPut stores a random write id in the object's
// metadata (x-amz-meta-verso-write-id): when a retried request finds the
// object changed, the id tells whether the change is this request's own
// earlier try, whose answer was lost, and then it counts as a success.
//
// # Retries and timeouts
//
// Each request is tried up to 5 times (the SDK's standard retryer:
// connection errors, timeouts, 5xx, throttling), with jittered exponential
// backoff between tries from 0.2 s up to 5 s. A try without payload must
// finish within 60 s; an upload gets a second more for each 256 KiB it sends.
// A download fails when no byte arrives for 60 s and is then tried again: Get
// and ReadRange retry downloads themselves, since a body that stalls or
// breaks after the answer began is outside the SDK's retryer. Errors say
// what failed, on which s3:// name, and what to do (a missing bucket, refused
// credentials, a wrong region, a server that cannot be reached or does not
// answer), with the number of tries; the SDK's error stays in the chain for
// errors.As.
//
// # Caveats
//
// The version is the ETag, which S3 derives from the contents: replacing an
// object with the same bytes keeps its version (as FileBlobstore's hash of
// the contents does), so a CheckAndPut expecting it still succeeds. Only
// equal contents can pass for one another this way.
//
// A CheckAndPut whose request reached the server but whose answer was lost,
// and whose object another writer then replaced before the retry, reports
// ErrPrecondition although its write landed (and was built upon). Only a
// lost answer and a concurrent writer together make this; the remote is
// consistent either way.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"golang.org/x/sync/errgroup"
)

var _ Blobstore = (*S3Blobstore)(nil)

// S3Blobstore is a Blobstore in an S3 bucket under a key prefix. Open one
// with OpenS3. It is safe for concurrent use.
type S3Blobstore struct {
	client    *s3.Client
	retryer   aws.Retryer
	transport *http.Transport
	bucket    string
	prefix    string // "" or a prefix without leading or trailing slash
	endpoint  string // for messages: the endpoint URL, or "" for AWS
	tune      s3Tuning
}

// s3Tuning holds the limits of an S3Blobstore; tests shorten them.
type s3Tuning struct {
	attempts    int           // tries of one request, the first included
	baseDelay   time.Duration // backoff before the second try (then doubled, jittered)
	maxBackoff  time.Duration // longest wait between two tries
	timeout     time.Duration // a try without payload; the longest silence of a download
	uploadRate  int64         // bytes a second an upload must reach (its time limit grows with size)
	partSize    int64         // multipart part size
	multipartAt int64         // Put sends objects of this size or more in parts
	parallel    int           // parts in flight at once
}

func defaultS3Tuning() s3Tuning {
	return s3Tuning{
		attempts:    5,
		baseDelay:   200 * time.Millisecond,
		maxBackoff:  5 * time.Second,
		timeout:     60 * time.Second,
		uploadRate:  256 << 10,
		partSize:    8 << 20,
		multipartAt: 16 << 20,
		parallel:    4,
	}
}

const (
	s3MaxKeyLen     = 1024
	s3MaxParts      = 10000
	s3WriteIDMeta   = "verso-write-id" // x-amz-meta-verso-write-id
	s3DefaultRegion = "us-east-1"
)

// OpenS3 opens the remote at an s3:// URL (see the top of s3.go for its
// form). It checks the URL and that credentials can be found, but does not
// contact the bucket: a missing bucket or refused credentials show on the
// first request, with an error that says so.
func OpenS3(ctx context.Context, u *url.URL) (*S3Blobstore, error) {
	return openS3(ctx, u, defaultS3Tuning())
}

func openS3(ctx context.Context, u *url.URL, tune s3Tuning, loadOpts ...func(*config.LoadOptions) error) (*S3Blobstore, error) {
	if u.Scheme != "s3" {
		return nil, fmt.Errorf("remotes: %s is not an s3:// URL", u.Redacted())
	}
	bucket := u.Host
	if bucket == "" || u.User != nil || u.Port() != "" {
		return nil, fmt.Errorf("remotes: %s: want s3://BUCKET/PREFIX", u.Redacted())
	}
	prefix := strings.Trim(u.Path, "/")
	if prefix != "" && !s3ValidName(prefix) {
		return nil, fmt.Errorf("remotes: %s: the prefix %q has an empty, \".\" or \"..\" part", u.Redacted(), prefix)
	}
	q := u.Query()
	var region, endpoint string
	pathStyle := -1 // unset
	for k, vs := range q {
		v := vs[len(vs)-1]
		switch k {
		case "region":
			region = v
		case "endpoint":
			e, err := url.Parse(v)
			if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
				return nil, fmt.Errorf("remotes: %s: endpoint %q is not an http:// or https:// URL", u.Redacted(), v)
			}
			endpoint = strings.TrimRight(v, "/")
		case "path-style":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("remotes: %s: path-style=%q: want true or false", u.Redacted(), v)
			}
			pathStyle = 0
			if b {
				pathStyle = 1
			}
		default:
			return nil, fmt.Errorf("remotes: %s: unknown parameter %q (known: region, endpoint, path-style)", u.Redacted(), k)
		}
	}

	if region != "" {
		loadOpts = append(loadOpts, config.WithRegion(region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return nil, fmt.Errorf("remotes: %s: loading the AWS configuration: %w", u.Redacted(), err)
	}
	if cfg.Region == "" {
		cfg.Region = s3DefaultRegion
	}
	if cfg.Credentials == nil {
		return nil, fmt.Errorf("remotes: %s: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE", u.Redacted())
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
		return nil, fmt.Errorf("remotes: %s: no AWS credentials found (%s): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE naming a profile in ~/.aws",
			u.Redacted(), s3Shorten(err.Error()))
	}

	tr := awshttp.NewBuildableClient().GetTransport()
	tr.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	tr.ResponseHeaderTimeout = tune.timeout
	tr.MaxIdleConnsPerHost = max(16, 2*tune.parallel)
	httpClient := &http.Client{
		Transport: tr,
		// S3 answers a wrong region with a redirect: report it, do not follow.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	retryer := retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = tune.attempts
		o.BaseDelay = tune.baseDelay
		o.MaxBackoff = tune.maxBackoff
	})
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		// o.BaseEndpoint holds AWS_ENDPOINT_URL(_S3) or the profile's
		// endpoint_url already; the URL's endpoint= overrides them.
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		endpoint = aws.ToString(o.BaseEndpoint)
		o.UsePathStyle = endpoint != ""
		if pathStyle >= 0 {
			o.UsePathStyle = pathStyle == 1
		}
		o.HTTPClient = httpClient
		o.Retryer = retryer
		o.DisableLogOutputChecksumValidationSkipped = true
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Finalize.Insert(s3AttemptTimeout{tune}, "Retry", middleware.After)
		})
	})
	return &S3Blobstore{
		client:    client,
		retryer:   retryer,
		transport: tr,
		bucket:    bucket,
		prefix:    prefix,
		endpoint:  endpoint,
		tune:      tune,
	}, nil
}

// Close releases the idle connections.
func (s *S3Blobstore) Close() error {
	s.transport.CloseIdleConnections()
	return nil
}

func (s *S3Blobstore) String() string {
	if s.prefix == "" {
		return "s3://" + s.bucket
	}
	return "s3://" + s.bucket + "/" + s.prefix
}

// key maps a name onto its key (see "Names and keys" above).
func (s *S3Blobstore) key(name string) (string, error) {
	if !s3ValidName(name) {
		return "", fmt.Errorf("remotes: %q is not an object name (a relative, slash-separated path without empty, \".\" or \"..\" parts)", name)
	}
	k := name
	if s.prefix != "" {
		k = s.prefix + "/" + name
	}
	if len(k) > s3MaxKeyLen {
		return "", fmt.Errorf("remotes: the key of %q in %s is longer than S3's %d bytes", name, s, s3MaxKeyLen)
	}
	return k, nil
}

func s3ValidName(name string) bool {
	if name == "" {
		return false
	}
	for part := range strings.SplitSeq(name, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

// Get implements Blobstore.
func (s *S3Blobstore) Get(ctx context.Context, name string) ([]byte, string, error) {
	key, err := s.key(name)
	if err != nil {
		return nil, "", err
	}
	got, err := s.download(ctx, "get", name, key, "")
	if err != nil {
		return nil, "", err
	}
	return got.data, got.etag, nil
}

// ReadRange implements Blobstore.
func (s *S3Blobstore) ReadRange(ctx context.Context, name string, off, n int64) ([]byte, error) {
	key, err := s.key(name)
	if err != nil {
		return nil, err
	}
	if off < 0 || n < 0 || off > math.MaxInt64-n {
		return nil, fmt.Errorf("remotes: read %s: bad range: %d bytes at %d", s.uri(name), n, off)
	}
	if n == 0 {
		// "bytes=off-(off-1)" is no range: ask for the size instead.
		head, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &key})
		if err != nil {
			return nil, s.fail(ctx, "read", name, err, 0)
		}
		if size := aws.ToInt64(head.ContentLength); off > size {
			return nil, s.pastEnd(name, off, n, size)
		}
		return []byte{}, nil
	}
	got, err := s.download(ctx, "read", name, key, fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	if err != nil {
		var se *s3Error
		if errors.As(err, &se) && se.status == http.StatusRequestedRangeNotSatisfiable {
			return nil, s.pastEnd(name, off, n, -1)
		}
		return nil, err
	}
	data := got.data
	if !got.partial {
		// The server ignored the range and sent the whole object.
		if off+n > int64(len(data)) {
			return nil, s.pastEnd(name, off, n, int64(len(data)))
		}
		return data[off : off+n : off+n], nil
	}
	if int64(len(data)) != n {
		return nil, s.pastEnd(name, off, n, got.size)
	}
	return data, nil
}

func (s *S3Blobstore) pastEnd(name string, off, n, size int64) error {
	if size >= 0 {
		return fmt.Errorf("remotes: read %s: %d bytes at %d end past the end of the object (%d bytes)", s.uri(name), n, off, size)
	}
	return fmt.Errorf("remotes: read %s: %d bytes at %d end past the end of the object", s.uri(name), n, off)
}

// Put implements Blobstore.
func (s *S3Blobstore) Put(ctx context.Context, name string, data []byte) error {
	return s.PutFrom(ctx, name, bytes.NewReader(data), int64(len(data)))
}

// PutFrom implements Blobstore. Each try of a request reads its bytes
// again from r (a section of it: seekable, as the SDK's signing and
// retries need).
func (s *S3Blobstore) PutFrom(ctx context.Context, name string, r io.ReaderAt, size int64) error {
	key, err := s.key(name)
	if err != nil {
		return err
	}
	if size < s.tune.multipartAt {
		_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket:        &s.bucket,
			Key:           &key,
			Body:          io.NewSectionReader(r, 0, size),
			ContentLength: aws.Int64(size),
		})
	} else {
		err = s.putMultipart(ctx, key, r, size)
	}
	if err != nil {
		return s.fail(ctx, "put", name, err, 0)
	}
	return nil
}

// putMultipart uploads the size bytes of r in parts, tune.parallel at a
// time, and aborts the upload if a part or the completion fails.
func (s *S3Blobstore) putMultipart(ctx context.Context, key string, r io.ReaderAt, size int64) error {
	partSize := max(s.tune.partSize, (size+s3MaxParts-1)/s3MaxParts)
	created, err := s.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{
		Bucket:            &s.bucket,
		Key:               &key,
		ChecksumAlgorithm: types.ChecksumAlgorithmCrc32,
	})
	if err != nil {
		return err
	}
	parts := make([]types.CompletedPart, (size+partSize-1)/partSize)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(s.tune.parallel)
	for i := range parts {
		lo := int64(i) * partSize
		hi := min(lo+partSize, size)
		number := aws.Int32(int32(i + 1))
		g.Go(func() error {
			out, err := s.client.UploadPart(gctx, &s3.UploadPartInput{
				Bucket:            &s.bucket,
				Key:               &key,
				UploadId:          created.UploadId,
				PartNumber:        number,
				Body:              io.NewSectionReader(r, lo, hi-lo),
				ContentLength:     aws.Int64(hi - lo),
				ChecksumAlgorithm: types.ChecksumAlgorithmCrc32,
			})
			if err != nil {
				return err
			}
			parts[i] = types.CompletedPart{PartNumber: number, ETag: out.ETag, ChecksumCRC32: out.ChecksumCRC32}
			return nil
		})
	}
	err = g.Wait()
	if err == nil {
		_, err = s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
			Bucket:          &s.bucket,
			Key:             &key,
			UploadId:        created.UploadId,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
		})
		var noUpload *types.NoSuchUpload
		if errors.As(err, &noUpload) || s3ErrorCode(err) == "NoSuchUpload" {
			// A retry of a completion whose answer was lost finds the
			// upload gone: the object is there if the first try made it.
			// (Names are content addresses: an object of that size at
			// this key holds these bytes.)
			head, herr := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &key})
			if herr == nil && aws.ToInt64(head.ContentLength) == size {
				return nil
			}
		}
	}
	if err != nil {
		// Abort even when ctx is done; the parts would cost storage until a
		// lifecycle rule removes them.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.tune.timeout)
		defer cancel()
		_, _ = s.client.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{
			Bucket: &s.bucket, Key: &key, UploadId: created.UploadId,
		})
		return err
	}
	return nil
}

// CheckAndPut implements Blobstore.
func (s *S3Blobstore) CheckAndPut(ctx context.Context, name, expected string, data []byte) (string, error) {
	key, err := s.key(name)
	if err != nil {
		return "", err
	}
	var idBytes [16]byte
	_, _ = rand.Read(idBytes[:]) // crypto/rand.Read never fails
	id := hex.EncodeToString(idBytes[:])
	in := &s3.PutObjectInput{
		Bucket:        &s.bucket,
		Key:           &key,
		Body:          bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))),
		Metadata:      map[string]string{s3WriteIDMeta: id},
	}
	if expected == "" {
		in.IfNoneMatch = aws.String("*")
	} else {
		in.IfMatch = aws.String(expected)
	}
	out, err := s.client.PutObject(ctx, in)
	if err == nil {
		return aws.ToString(out.ETag), nil
	}
	failed := s.fail(ctx, "replace", name, err, 0)
	if !errors.Is(failed, ErrPrecondition) {
		return "", failed
	}
	// A try whose answer was lost may have written the object, and the
	// retry then found it changed: by this very write if the id is ours.
	head, herr := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &key})
	if herr == nil && head.Metadata[s3WriteIDMeta] == id {
		return aws.ToString(head.ETag), nil
	}
	return "", failed
}

func (s *S3Blobstore) uri(name string) string {
	return s.String() + "/" + name
}

// s3Download is one answer to a GetObject.
type s3Download struct {
	data    []byte
	etag    string
	partial bool  // a 206 with Content-Range
	size    int64 // the whole object's size from Content-Range, or -1
}

// download gets key, or a range of it ("bytes=a-b"), retrying as the SDK's
// retryer would, and also when the body stalls or breaks after the answer
// began (the SDK returns before the body is read, so its retries end there).
func (s *S3Blobstore) download(ctx context.Context, op, name, key, rng string) (s3Download, error) {
	for attempt := 1; ; attempt++ {
		got, err := s.downloadOnce(ctx, key, rng)
		if err == nil {
			return got, nil
		}
		if attempt >= s.tune.attempts || ctx.Err() != nil || !s.retryable(err) {
			tries := attempt
			if tries == 1 {
				tries = 0
			}
			return s3Download{}, s.fail(ctx, op, name, err, tries)
		}
		delay, derr := s.retryer.RetryDelay(attempt, err)
		if derr != nil {
			return s3Download{}, s.fail(ctx, op, name, err, attempt)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return s3Download{}, s.fail(ctx, op, name, ctx.Err(), attempt)
		case <-t.C:
		}
	}
}

func (s *S3Blobstore) retryable(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	return s.retryer.IsErrorRetryable(err)
}

// downloadOnce is one try of a GetObject. A watchdog cancels it when
// tune.timeout passes without the answer or a byte of the body arriving.
func (s *S3Blobstore) downloadOnce(ctx context.Context, key, rng string) (s3Download, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dog := newS3Watchdog(s.tune.timeout, cancel)
	defer dog.stop()

	in := &s3.GetObjectInput{Bucket: &s.bucket, Key: &key}
	if rng != "" {
		in.Range = aws.String(rng)
	}
	// One try here: download is the retry loop, around the body as well.
	out, err := s.client.GetObject(wctx, in, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	if err != nil {
		if dog.fired() && ctx.Err() == nil {
			return s3Download{}, &s3TimeoutError{fmt.Sprintf("no answer within %s", s.tune.timeout)}
		}
		return s3Download{}, err
	}
	defer out.Body.Close()
	dog.kick()

	got := s3Download{etag: aws.ToString(out.ETag), size: -1}
	if cr := aws.ToString(out.ContentRange); cr != "" {
		got.partial = true
		if i := strings.LastIndexByte(cr, '/'); i >= 0 {
			if n, err := strconv.ParseInt(cr[i+1:], 10, 64); err == nil {
				got.size = n
			}
		}
	}
	want := aws.ToInt64(out.ContentLength)
	if want < 0 || out.ContentLength == nil {
		want = 0
	}
	buf := bytes.NewBuffer(make([]byte, 0, want))
	_, err = buf.ReadFrom(s3KickReader{out.Body, dog})
	if err != nil {
		if dog.fired() && ctx.Err() == nil {
			return s3Download{}, &s3TimeoutError{fmt.Sprintf("the object's bytes stopped coming for %s", s.tune.timeout)}
		}
		return s3Download{}, err
	}
	if out.ContentLength != nil && int64(buf.Len()) != *out.ContentLength {
		return s3Download{}, fmt.Errorf("the answer ended after %d of %d bytes: %w", buf.Len(), *out.ContentLength, io.ErrUnexpectedEOF)
	}
	got.data = buf.Bytes()
	return got, nil
}

// s3Watchdog calls cancel when kick has not been called for a while.
type s3Watchdog struct {
	timer   *time.Timer
	limit   time.Duration
	mu      sync.Mutex
	didFire bool
}

func newS3Watchdog(limit time.Duration, cancel context.CancelFunc) *s3Watchdog {
	d := &s3Watchdog{limit: limit}
	d.timer = time.AfterFunc(limit, func() {
		d.mu.Lock()
		d.didFire = true
		d.mu.Unlock()
		cancel()
	})
	return d
}

func (d *s3Watchdog) kick() { d.timer.Reset(d.limit) }
func (d *s3Watchdog) stop() { d.timer.Stop() }
func (d *s3Watchdog) fired() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.didFire
}

type s3KickReader struct {
	r   io.Reader
	dog *s3Watchdog
}

func (k s3KickReader) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	if n > 0 {
		k.dog.kick()
	}
	return n, err
}

// s3AttemptTimeout bounds each try of a request other than GetObject (whose
// body is read after the SDK returns: downloadOnce guards it). It sits after
// the retryer in the stack, so a try that runs out of time is retried.
type s3AttemptTimeout struct{ tune s3Tuning }

func (s3AttemptTimeout) ID() string { return "verso/AttemptTimeout" }

func (m s3AttemptTimeout) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
	if awsmiddleware.GetOperationName(ctx) == "GetObject" {
		return next.HandleFinalize(ctx, in)
	}
	limit := m.tune.timeout
	if req, ok := in.Request.(*smithyhttp.Request); ok && m.tune.uploadRate > 0 {
		size := req.ContentLength
		if n, known, err := req.StreamLength(); err == nil && known {
			size = max(size, n)
		}
		limit += time.Duration(size) * time.Second / time.Duration(m.tune.uploadRate)
	}
	actx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	out, md, err := next.HandleFinalize(actx, in)
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		// Not the caller's cancellation (which the retryer does not retry).
		err = &s3TimeoutError{fmt.Sprintf("no answer within %s", limit.Round(time.Millisecond))}
	}
	return out, md, err
}

// s3TimeoutError: a try ran out of time. The SDK's retryer retries it.
type s3TimeoutError struct{ msg string }

func (e *s3TimeoutError) Error() string        { return e.msg }
func (e *s3TimeoutError) RetryableError() bool { return true }
func (e *s3TimeoutError) Timeout() bool        { return true }

// s3Error is what S3Blobstore's methods return for a failed request: a
// short message that says what failed and what to do, wrapping a sentinel
// (ErrNotExist, ErrPrecondition) where one applies and the SDK's error.
type s3Error struct {
	msg      string
	sentinel error
	cause    error
	status   int // the HTTP status, or 0
}

func (e *s3Error) Error() string { return e.msg }
func (e *s3Error) Unwrap() []error {
	if e.sentinel != nil {
		return []error{e.sentinel, e.cause}
	}
	return []error{e.cause}
}

// fail describes err, the failure of op ("get", "read", "put", "replace")
// on name, called with op's context. tries is the number of tries made, or 0 to take it from err.
func (s *S3Blobstore) fail(ctx context.Context, op, name string, err error, tries int) error {
	e := &s3Error{cause: err}
	var apiErr smithy.APIError
	code, msg := "", ""
	if errors.As(err, &apiErr) {
		code, msg = apiErr.ErrorCode(), apiErr.ErrorMessage()
	}
	var respErr *smithyhttp.ResponseError
	if errors.As(err, &respErr) {
		e.status = respErr.HTTPStatusCode()
	}
	if tries == 0 {
		var maxErr *retry.MaxAttemptsError
		if errors.As(err, &maxErr) {
			tries = maxErr.Attempt
		}
	}
	server := "AWS S3"
	if s.endpoint != "" {
		server = s.endpoint
	}
	var timeout interface{ Timeout() bool }
	var opErr *net.OpError
	var what string
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
		e.cause = err
		if errors.Is(err, context.Canceled) {
			what = "canceled"
		} else {
			what = "the caller's deadline passed"
		}
	case code == "NoSuchBucket":
		what = fmt.Sprintf("the bucket %q does not exist on %s: create it, or correct the bucket in the URL", s.bucket, server)
	case (code == "NoSuchKey" || code == "NotFound" || (code == "" && e.status == http.StatusNotFound)) && op == "replace":
		// If-Match on a missing object: it is not at the expected version.
		e.sentinel = ErrPrecondition
		what = "the object does not exist any more (another writer removed it)"
	case code == "NoSuchKey" || code == "NotFound" || (code == "" && e.status == http.StatusNotFound):
		e.sentinel = ErrNotExist
		what = "object does not exist"
	case code == "PreconditionFailed" || code == "ConditionalRequestConflict" ||
		e.status == http.StatusPreconditionFailed || (op == "replace" && e.status == http.StatusConflict):
		e.sentinel = ErrPrecondition
		what = "the object changed since it was read (another writer replaced it first)"
	case code == "InvalidRange" || e.status == http.StatusRequestedRangeNotSatisfiable:
		what = "the range ends past the end of the object"
	case code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" || code == "ExpiredToken" ||
		code == "InvalidToken" || code == "TokenRefreshRequired" || code == "InvalidSecurity":
		what = fmt.Sprintf("%s refused the credentials (%s): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) to a key it knows", server, code)
	case code == "AccessDenied" || code == "AllAccessDisabled" || e.status == http.StatusForbidden:
		what = fmt.Sprintf("access denied by %s (%s): the credentials may not %s here; check the bucket's policy and the key's permissions", server, s3Or(code, "HTTP 403"), op)
	case code == "PermanentRedirect" || code == "AuthorizationHeaderMalformed" || code == "IncorrectEndpoint" ||
		e.status == http.StatusMovedPermanently:
		what = fmt.Sprintf("the bucket %q is in another region (%s): set region= in the URL, or AWS_REGION", s.bucket, s3Or(code, "HTTP 301"))
	case errors.As(err, &opErr) && opErr.Op == "dial":
		what = fmt.Sprintf("cannot connect to %s (%s): is the server running, and the endpoint right?", server, opErr.Err)
	case errors.As(err, &timeout) && timeout.Timeout():
		what = fmt.Sprintf("%s did not answer in time (%s): the server is overloaded or unreachable", server, s3TimeoutText(err))
	case code != "":
		what = fmt.Sprintf("%s: %s", code, s3Shorten(msg))
		if e.status != 0 {
			what += fmt.Sprintf(" (HTTP %d)", e.status)
		}
	case e.status != 0:
		what = fmt.Sprintf("HTTP %d from %s", e.status, server)
	default:
		what = s3Shorten(err.Error())
	}
	if tries > 1 {
		what += fmt.Sprintf(" (after %d tries)", tries)
	} else if errors.As(err, new(ratelimit.QuotaExceededError)) {
		what += " (not retried: too many requests to this store failed lately)"
	}
	e.msg = fmt.Sprintf("remotes: %s %s: %s", op, s.uri(name), what)
	return e
}

func s3ErrorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

func s3TimeoutText(err error) string {
	var te *s3TimeoutError
	if errors.As(err, &te) {
		return te.Error()
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return s3Shorten(ne.Error())
	}
	return "timeout"
}

func s3Or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// s3Shorten keeps messages from the SDK or a server to one short line.
func s3Shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const limit = 200
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return s
}
