package remotes

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// The S3 backend runs against a real S3-compatible server when
// VERSO_S3_URL names a bucket on one (.ci/seaweedfs.sh starts SeaweedFS and
// prints it, with the credentials); each test run works under a new prefix
// of that URL and deletes it afterwards. Without VERSO_S3_URL these tests
// skip, unless VERSO_REQUIRE_S3=1, when they fail. The other tests here run
// an in-process fake S3 that can fail and stall on purpose.

func s3TestURL(t *testing.T) *url.URL {
	t.Helper()
	raw := os.Getenv("VERSO_S3_URL")
	if raw == "" {
		if os.Getenv("VERSO_REQUIRE_S3") == "1" {
			t.Fatal("VERSO_REQUIRE_S3=1 but VERSO_S3_URL is not set: start SeaweedFS with `eval \"$(bash .ci/seaweedfs.sh start)\"`")
		}
		t.Skip("VERSO_S3_URL is not set: no S3 server to test against (eval \"$(bash .ci/seaweedfs.sh start)\" starts one)")
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("VERSO_S3_URL: %v", err)
	}
	return u
}

// s3TestStore opens a new, empty prefix under VERSO_S3_URL and deletes what
// the test left there.
func s3TestStore(t *testing.T) *S3Blobstore {
	t.Helper()
	u := s3TestURL(t)
	var id [6]byte
	_, _ = rand.Read(id[:])
	u.Path = path.Join("/", u.Path, fmt.Sprintf("%s-%x", strings.ReplaceAll(t.Name(), "/", "-"), id))
	bs, err := OpenS3(context.Background(), u)
	if err != nil {
		t.Fatalf("OpenS3(%s): %v", u.Redacted(), err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		pages := s3.NewListObjectsV2Paginator(bs.client, &s3.ListObjectsV2Input{
			Bucket: &bs.bucket, Prefix: aws.String(bs.prefix + "/"),
		})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				t.Logf("cleaning up %s: %v", bs, err)
				break
			}
			for _, o := range page.Contents {
				if _, err := bs.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bs.bucket, Key: o.Key}); err != nil {
					t.Logf("cleaning up %s: %v", aws.ToString(o.Key), err)
				}
			}
		}
		bs.Close()
	})
	return bs
}

func TestS3Conformance(t *testing.T) {
	bs := s3TestStore(t)
	t.Logf("testing against %s at %s", bs, bs.endpoint)
	runBlobstoreConformance(t, bs)
}

// TestS3ConditionalWritesOnServer checks that the server itself honours
// If-None-Match and If-Match on PutObject, by raw requests through the SDK
// (without S3Blobstore's write-id check), so a server that ignores them
// fails here by name.
func TestS3ConditionalWritesOnServer(t *testing.T) {
	bs := s3TestStore(t)
	ctx := context.Background()
	key := bs.prefix + "/manifest"
	put := func(ifNoneMatch, ifMatch *string, body string) (*s3.PutObjectOutput, error) {
		return bs.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: &bs.bucket, Key: &key, Body: strings.NewReader(body),
			IfNoneMatch: ifNoneMatch, IfMatch: ifMatch,
		})
	}
	first, err := put(aws.String("*"), nil, "one")
	if err != nil {
		t.Fatalf("PutObject If-None-Match: * of a new key: %v", err)
	}
	if _, err := put(aws.String("*"), nil, "two"); s3TestStatus(err) != http.StatusPreconditionFailed {
		t.Fatalf("PutObject If-None-Match: * of an existing key: %v, want HTTP 412", err)
	}
	second, err := put(nil, first.ETag, "three")
	if err != nil {
		t.Fatalf("PutObject If-Match: the current ETag: %v", err)
	}
	if _, err := put(nil, first.ETag, "four"); s3TestStatus(err) != http.StatusPreconditionFailed {
		t.Fatalf("PutObject If-Match: a stale ETag: %v, want HTTP 412", err)
	}
	got, _, err := bs.Get(ctx, "manifest")
	if err != nil || string(got) != "three" {
		t.Fatalf("after the conditional writes the object holds %q (%v), want \"three\"", got, err)
	}
	t.Logf("ETags: %s then %s", aws.ToString(first.ETag), aws.ToString(second.ETag))
}

func s3TestStatus(err error) int {
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// TestS3ServerErrorMessages checks what a user reads when the bucket is
// missing or the credentials are wrong, from the real server.
func TestS3ServerErrorMessages(t *testing.T) {
	u := s3TestURL(t)
	ctx := context.Background()

	missing := *u
	missing.Host = "verso-no-such-bucket"
	bs, err := OpenS3(ctx, &missing)
	if err != nil {
		t.Fatal(err)
	}
	defer bs.Close()
	_, _, err = bs.Get(ctx, "manifest")
	t.Logf("missing bucket: %v", err)
	if err == nil || !strings.Contains(err.Error(), `bucket "verso-no-such-bucket" does not exist`) {
		t.Errorf("Get in a missing bucket: %v, want a message naming the bucket", err)
	}
	if err := bs.Put(ctx, "tables/x", []byte("x")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Put in a missing bucket: %v, want a message naming the bucket", err)
	}

	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-secret")
	bs, err = OpenS3(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer bs.Close()
	_, _, err = bs.Get(ctx, "manifest")
	t.Logf("wrong secret: %v", err)
	if err == nil || !strings.Contains(err.Error(), "refused the credentials") {
		t.Errorf("Get with a wrong secret: %v, want a message about the credentials", err)
	}

	t.Setenv("AWS_ACCESS_KEY_ID", "verso-unknown-key")
	bs, err = OpenS3(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer bs.Close()
	_, _, err = bs.Get(ctx, "manifest")
	t.Logf("unknown key: %v", err)
	if err == nil || !strings.Contains(err.Error(), "refused the credentials") {
		t.Errorf("Get with an unknown key: %v, want a message about the credentials", err)
	}
}

// ---- the fake S3 ----

// s3Fake is a small in-process S3 (path-style: PutObject with If-Match and
// If-None-Match, GetObject with Range, HeadObject, multipart uploads) whose
// fault hook can fail, stall or lose the answer of any request.
type s3Fake struct {
	srv      *httptest.Server
	done     chan struct{} // closed when the test ends: stalled handlers return
	requests atomic.Int64
	fault    atomic.Pointer[func(n int64, r *http.Request) s3Fault]

	mu      sync.Mutex
	objects map[string]s3FakeObject
	uploads map[string]map[int][]byte
	aborted int
	methods []string // "PUT", "GET", "HEAD", ... per request, in order
}

type s3FakeObject struct {
	data []byte
	etag string
	meta map[string]string
}

type s3Fault int

const (
	s3Pass        s3Fault = iota
	s3Fail500             // answer 500 InternalError
	s3Stall               // read the request, never answer (until the client gives up)
	s3StallUpload         // read nothing, never answer
	s3StallBody           // a GET: send the headers and half the body, then stall
	s3LoseAnswer          // do the request, then answer 500 as if the answer were lost
	s3RefuseCreds         // answer 403 InvalidAccessKeyId
)

func newS3Fake(t *testing.T) *s3Fake {
	f := &s3Fake{objects: map[string]s3FakeObject{}, uploads: map[string]map[int][]byte{}, done: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	t.Cleanup(func() { close(f.done) }) // runs first
	return f
}

func (f *s3Fake) setFault(fn func(n int64, r *http.Request) s3Fault) {
	if fn == nil {
		f.fault.Store(nil)
		return
	}
	f.fault.Store(&fn)
}

// open opens an S3Blobstore on the fake with short limits and fixed
// credentials, so no credential chain (nor a cloud metadata service) is asked.
func (f *s3Fake) open(t *testing.T, tune s3Tuning) *S3Blobstore {
	t.Helper()
	u, _ := url.Parse("s3://bucket/some/prefix?region=us-east-1&endpoint=" + url.QueryEscape(f.srv.URL))
	bs, err := openS3(context.Background(), u, tune,
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("AKIDTEST", "SECRETTEST", "")),
		config.WithSharedConfigFiles([]string{}), config.WithSharedCredentialsFiles([]string{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bs.Close() })
	return bs
}

func s3FastTuning() s3Tuning {
	return s3Tuning{
		attempts:    5,
		baseDelay:   10 * time.Millisecond,
		maxBackoff:  100 * time.Millisecond,
		timeout:     500 * time.Millisecond,
		uploadRate:  1 << 30,
		partSize:    64 << 10,
		multipartAt: 128 << 10,
		parallel:    3,
	}
}

func s3FakeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, msg)
}

func (f *s3Fake) serve(w http.ResponseWriter, r *http.Request) {
	n := f.requests.Add(1)
	f.mu.Lock()
	f.methods = append(f.methods, r.Method)
	f.mu.Unlock()
	fault := s3Pass
	if fn := f.fault.Load(); fn != nil {
		fault = (*fn)(n, r)
	}
	switch fault {
	case s3Fail500:
		io.Copy(io.Discard, r.Body)
		s3FakeError(w, http.StatusInternalServerError, "InternalError", "We encountered an internal error. Please try again.")
		return
	case s3Stall:
		io.Copy(io.Discard, r.Body) // then net/http notices when the client hangs up
		select {
		case <-r.Context().Done():
		case <-f.done:
		}
		return
	case s3StallUpload:
		<-f.done
		return
	case s3RefuseCreds:
		s3FakeError(w, http.StatusForbidden, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.")
		return
	}
	if fault == s3LoseAnswer {
		rec := httptest.NewRecorder()
		f.handle(rec, r, s3Pass)
		s3FakeError(w, http.StatusInternalServerError, "InternalError", "the answer was lost")
		return
	}
	f.handle(w, r, fault)
}

func (f *s3Fake) handle(w http.ResponseWriter, r *http.Request, fault s3Fault) {
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if bucket != "bucket" {
		s3FakeError(w, http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist")
		return
	}
	q := r.URL.Query()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	obj, exists := f.objects[key]
	switch {
	case r.Method == http.MethodPost && q.Has("uploads"):
		id := fmt.Sprintf("upload-%d", len(f.uploads)+f.aborted+1)
		f.uploads[id] = map[int][]byte{}
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><InitiateMultipartUploadResult><Bucket>bucket</Bucket><Key>%s</Key><UploadId>%s</UploadId></InitiateMultipartUploadResult>`, key, id)
	case r.Method == http.MethodPut && q.Has("uploadId"):
		parts, ok := f.uploads[q.Get("uploadId")]
		if !ok {
			s3FakeError(w, http.StatusNotFound, "NoSuchUpload", "no such upload")
			return
		}
		num, _ := strconv.Atoi(q.Get("partNumber"))
		parts[num] = body
		w.Header().Set("ETag", s3FakeETag(body))
	case r.Method == http.MethodPost && q.Has("uploadId"):
		parts, ok := f.uploads[q.Get("uploadId")]
		if !ok {
			s3FakeError(w, http.StatusNotFound, "NoSuchUpload", "no such upload")
			return
		}
		var req struct {
			Parts []struct{ PartNumber int } `xml:"Part"`
		}
		if err := xml.Unmarshal(body, &req); err != nil || len(req.Parts) != len(parts) {
			s3FakeError(w, http.StatusBadRequest, "InvalidPart", "parts do not match")
			return
		}
		nums := make([]int, 0, len(parts))
		for num := range parts {
			nums = append(nums, num)
		}
		sort.Ints(nums)
		var all []byte
		for _, num := range nums {
			all = append(all, parts[num]...)
		}
		delete(f.uploads, q.Get("uploadId"))
		o := s3FakeObject{data: all, etag: fmt.Sprintf(`"%x-%d"`, md5.Sum(all), len(parts))}
		f.objects[key] = o
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUploadResult><Bucket>bucket</Bucket><Key>%s</Key><ETag>%s</ETag></CompleteMultipartUploadResult>`, key, o.etag)
	case r.Method == http.MethodDelete && q.Has("uploadId"):
		delete(f.uploads, q.Get("uploadId"))
		f.aborted++
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodPut:
		if inm := r.Header.Get("If-None-Match"); inm == "*" && exists {
			s3FakeError(w, http.StatusPreconditionFailed, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold")
			return
		}
		if im := r.Header.Get("If-Match"); im != "" {
			if !exists {
				s3FakeError(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
				return
			}
			if im != obj.etag {
				s3FakeError(w, http.StatusPreconditionFailed, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold")
				return
			}
		}
		o := s3FakeObject{data: body, etag: s3FakeETag(body), meta: map[string]string{}}
		for k, v := range r.Header {
			if m, ok := strings.CutPrefix(strings.ToLower(k), "x-amz-meta-"); ok {
				o.meta[m] = v[0]
			}
		}
		f.objects[key] = o
		w.Header().Set("ETag", o.etag)
	case r.Method == http.MethodHead:
		if !exists {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		for k, v := range obj.meta {
			w.Header().Set("x-amz-meta-"+k, v)
		}
		w.Header().Set("ETag", obj.etag)
		w.Header().Set("Content-Length", strconv.Itoa(len(obj.data)))
	case r.Method == http.MethodGet:
		if !exists {
			s3FakeError(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
			return
		}
		data, status := obj.data, http.StatusOK
		if rng := r.Header.Get("Range"); rng != "" {
			var a, b int
			if _, err := fmt.Sscanf(rng, "bytes=%d-%d", &a, &b); err != nil || a > b {
				s3FakeError(w, http.StatusBadRequest, "InvalidArgument", "bad range")
				return
			}
			if a >= len(data) {
				s3FakeError(w, http.StatusRequestedRangeNotSatisfiable, "InvalidRange", "The requested range is not satisfiable")
				return
			}
			b = min(b, len(data)-1)
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(data)))
			data, status = data[a:b+1], http.StatusPartialContent
		}
		w.Header().Set("ETag", obj.etag)
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(status)
		if fault == s3StallBody {
			w.Write(data[:len(data)/2])
			w.(http.Flusher).Flush()
			f.mu.Unlock()
			select {
			case <-r.Context().Done():
			case <-f.done:
			}
			f.mu.Lock()
			return
		}
		w.Write(data)
	default:
		s3FakeError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", r.Method)
	}
}

func s3FakeETag(b []byte) string {
	sum := md5.Sum(b)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

// ---- tests over the fake ----

func TestS3FakeConformance(t *testing.T) {
	f := newS3Fake(t)
	tune := s3FastTuning()
	tune.timeout = 20 * time.Second // no stalls here, and -race is slow
	tune.partSize, tune.multipartAt = 1<<20, 2<<20
	runBlobstoreConformance(t, f.open(t, tune))
}

func TestS3RetriesServerErrors(t *testing.T) {
	f := newS3Fake(t)
	bs := f.open(t, s3FastTuning())
	ctx := context.Background()
	f.setFault(func(n int64, r *http.Request) s3Fault {
		if n <= 3 || (n >= 5 && n <= 7) {
			return s3Fail500
		}
		return s3Pass
	})
	if err := bs.Put(ctx, "tables/a", []byte("hello")); err != nil {
		t.Fatalf("Put through three 500s: %v", err)
	}
	if got := f.requests.Load(); got != 4 {
		t.Errorf("Put took %d requests, want 4 (three 500s and a success)", got)
	}
	got, _, err := bs.Get(ctx, "tables/a")
	if err != nil || string(got) != "hello" {
		t.Fatalf("Get through three 500s: %q, %v", got, err)
	}
	if got := f.requests.Load(); got != 8 {
		t.Errorf("Put and Get took %d requests, want 8", got)
	}
}

func TestS3GivesUpWithAClearError(t *testing.T) {
	f := newS3Fake(t)
	bs := f.open(t, s3FastTuning())
	ctx := context.Background()
	f.setFault(func(int64, *http.Request) s3Fault { return s3Fail500 })
	for _, c := range []struct {
		op  string
		run func() error
	}{
		{"put", func() error { return bs.Put(ctx, "tables/a", []byte("x")) }},
		{"get", func() error { _, _, err := bs.Get(ctx, "tables/a"); return err }},
		{"read", func() error { _, err := bs.ReadRange(ctx, "tables/a", 0, 1); return err }},
		{"replace", func() error { _, err := bs.CheckAndPut(ctx, "manifest", "", []byte("x")); return err }},
	} {
		before := f.requests.Load()
		start := time.Now()
		err := c.run()
		elapsed := time.Since(start)
		t.Logf("%s: %v (%s)", c.op, err, elapsed.Round(time.Millisecond))
		if err == nil {
			t.Fatalf("%s against a server that always fails: no error", c.op)
		}
		if errors.Is(err, ErrNotExist) || errors.Is(err, ErrPrecondition) {
			t.Errorf("%s: %v wraps a sentinel", c.op, err)
		}
		want := fmt.Sprintf("remotes: %s s3://bucket/some/prefix/", c.op)
		if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.Contains(msg, "InternalError") ||
			!strings.Contains(msg, "(after 5 tries)") || len(msg) > 300 {
			t.Errorf("%s: message %q: want it to start %q, name InternalError and the 5 tries, in under 300 bytes", c.op, msg, want)
		}
		if n := f.requests.Load() - before; n != 5 {
			t.Errorf("%s: %d requests, want 5", c.op, n)
		}
		if elapsed > 5*time.Second {
			t.Errorf("%s: gave up after %s", c.op, elapsed)
		}
	}
}

func TestS3StallsTimeOutAndRetry(t *testing.T) {
	f := newS3Fake(t)
	tune := s3FastTuning()
	bs := f.open(t, tune)
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789"), 10000)

	// Two stalled tries, then an answer.
	f.setFault(func(n int64, r *http.Request) s3Fault {
		if n <= 2 {
			return s3Stall
		}
		return s3Pass
	})
	start := time.Now()
	if err := bs.Put(ctx, "tables/a", data); err != nil {
		t.Fatalf("Put through two stalls: %v", err)
	}
	t.Logf("Put through two stalls: %s", time.Since(start).Round(time.Millisecond))
	if n := f.requests.Load(); n != 3 {
		t.Errorf("Put took %d requests, want 3", n)
	}

	for _, fault := range []s3Fault{s3Stall, s3StallBody} {
		first := f.requests.Load() + 1
		f.setFault(func(n int64, r *http.Request) s3Fault {
			if n < first+2 {
				return fault
			}
			return s3Pass
		})
		start := time.Now()
		got, _, err := bs.Get(ctx, "tables/a")
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("Get through two stalls (%d): %d bytes, %v", fault, len(got), err)
		}
		t.Logf("Get through two stalls (%d): %s", fault, time.Since(start).Round(time.Millisecond))
		if n := f.requests.Load() - first + 1; n != 3 {
			t.Errorf("Get took %d requests, want 3", n)
		}
	}

	// An upload that the server stops reading: the try's time limit (which
	// grows with the payload) ends it, and the next try goes through.
	big := make([]byte, 16<<20)
	first := f.requests.Load() + 1
	f.setFault(func(n int64, r *http.Request) s3Fault {
		if n < first+2 {
			return s3StallUpload
		}
		return s3Pass
	})
	slow := tune
	slow.multipartAt = 1 << 30
	// The try's limit is timeout + 16 MiB / uploadRate = 3 s. The timeout
	// is also how long the transport waits for the answer's headers once
	// the body is sent: the fake reads and hashes 16 MiB before it answers,
	// which under -race on a loaded machine took more than 500 ms.
	slow.timeout = 2 * time.Second
	slow.uploadRate = 16 << 20
	slowBS := f.open(t, slow)
	start = time.Now()
	if err := slowBS.Put(ctx, "tables/big", big); err != nil {
		t.Fatalf("Put of 16 MiB through two stalled uploads: %v", err)
	}
	t.Logf("Put of 16 MiB through two stalled uploads: %s", time.Since(start).Round(time.Millisecond))
	// Two stalled attempts and at least one more; a loaded machine may
	// need another try within the retry budget, which is what retries
	// are for.
	if n := f.requests.Load() - first + 1; n < 3 {
		t.Errorf("Put took %d requests, want at least 3 (two stalled)", n)
	}

	// A server that never answers: a clear error, in bounded time.
	for _, fault := range []s3Fault{s3Stall, s3StallBody} {
		f.setFault(func(int64, *http.Request) s3Fault { return fault })
		for _, c := range []struct {
			op  string
			run func() error
		}{
			{"put", func() error { return bs.Put(ctx, "tables/b", data) }},
			{"get", func() error { _, _, err := bs.Get(ctx, "tables/a"); return err }},
		} {
			if fault == s3StallBody && c.op != "get" {
				continue
			}
			start := time.Now()
			err := c.run()
			elapsed := time.Since(start)
			t.Logf("%s, always stalled (%d): %v (%s)", c.op, fault, err, elapsed.Round(time.Millisecond))
			if err == nil || !strings.Contains(err.Error(), "did not answer in time") || !strings.Contains(err.Error(), "(after 5 tries)") {
				t.Errorf("%s against a stalled server: %v, want a timeout after 5 tries", c.op, err)
			}
			// 5 tries of 0.5 s and the backoff between them.
			if limit := 5*tune.timeout + 4*tune.maxBackoff + 2*time.Second; elapsed > limit {
				t.Errorf("%s against a stalled server took %s, more than %s", c.op, elapsed, limit)
			}
		}
	}
}

func TestS3CallerCancels(t *testing.T) {
	f := newS3Fake(t)
	bs := f.open(t, s3FastTuning())
	f.setFault(func(int64, *http.Request) s3Fault { return s3Stall })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := bs.Get(ctx, "tables/a")
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("Get with a 200ms deadline on a stalled server: %v after %s", err, time.Since(start))
	}
	t.Logf("%v", err)
}

func TestS3LostAnswerOfConditionalWrite(t *testing.T) {
	f := newS3Fake(t)
	bs := f.open(t, s3FastTuning())
	ctx := context.Background()

	// The create lands but its answer is lost; the retry finds the object
	// there (412), and the write id shows it is this write's own.
	f.setFault(func(n int64, r *http.Request) s3Fault {
		if n == 1 {
			return s3LoseAnswer
		}
		return s3Pass
	})
	v1, err := bs.CheckAndPut(ctx, "manifest", "", []byte("root 1"))
	if err != nil {
		t.Fatalf("CheckAndPut whose first answer was lost: %v", err)
	}
	if _, v, _ := bs.Get(ctx, "manifest"); v != v1 {
		t.Fatalf("CheckAndPut returned version %q, the object has %q", v1, v)
	}
	// The same for a replace.
	first := f.requests.Load() + 1
	f.setFault(func(n int64, r *http.Request) s3Fault {
		if n == first {
			return s3LoseAnswer
		}
		return s3Pass
	})
	v2, err := bs.CheckAndPut(ctx, "manifest", v1, []byte("root 2"))
	if err != nil {
		t.Fatalf("replace whose first answer was lost: %v", err)
	}
	if got, v, _ := bs.Get(ctx, "manifest"); v != v2 || string(got) != "root 2" {
		t.Fatalf("after the replace: %q version %q, want \"root 2\" version %q", got, v, v2)
	}
	f.mu.Lock()
	t.Logf("requests: %v", f.methods)
	f.mu.Unlock()

	// Another writer's change is still a conflict.
	f.setFault(nil)
	if _, err := bs.CheckAndPut(ctx, "manifest", v1, []byte("stale")); !errors.Is(err, ErrPrecondition) {
		t.Fatalf("stale replace: %v, want ErrPrecondition", err)
	}
}

func TestS3Multipart(t *testing.T) {
	f := newS3Fake(t)
	tune := s3FastTuning()
	bs := f.open(t, tune)
	ctx := context.Background()
	data := make([]byte, 5*tune.partSize+123)
	_, _ = rand.Read(data)

	// One part fails once: retried, and the object is whole.
	var failed atomic.Bool
	f.setFault(func(n int64, r *http.Request) s3Fault {
		if r.URL.Query().Get("partNumber") == "3" && !failed.Swap(true) {
			return s3Fail500
		}
		return s3Pass
	})
	if err := bs.Put(ctx, "tables/big", data); err != nil {
		t.Fatalf("multipart Put: %v", err)
	}
	got, version, err := bs.Get(ctx, "tables/big")
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get of a multipart object: %d bytes, %v", len(got), err)
	}
	if !strings.HasSuffix(version, `-6"`) {
		t.Errorf("version %s: want the ETag of a 6-part upload", version)
	}
	f.mu.Lock()
	var parts int
	for _, m := range f.methods {
		if m == http.MethodPut {
			parts++
		}
	}
	f.mu.Unlock()
	if parts != 7 {
		t.Errorf("%d part uploads, want 6 and one retry", parts)
	}

	// The completion lands but its answer is lost: the retry finds no
	// upload (NoSuchUpload), and the object is there.
	f.setFault(func(n int64, r *http.Request) s3Fault {
		if r.Method == http.MethodPost && r.URL.Query().Has("uploadId") && !failed.Swap(true) {
			return s3LoseAnswer
		}
		return s3Pass
	})
	failed.Store(false)
	if err := bs.Put(ctx, "tables/big2", data); err != nil {
		t.Fatalf("multipart Put whose completion answer was lost: %v", err)
	}
	if got, _, err := bs.Get(ctx, "tables/big2"); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get after a lost completion answer: %d bytes, %v", len(got), err)
	}

	// A part that always fails: the upload is aborted and no object appears.
	f.setFault(func(n int64, r *http.Request) s3Fault {
		if r.URL.Query().Get("partNumber") == "2" {
			return s3Fail500
		}
		return s3Pass
	})
	err = bs.Put(ctx, "tables/never", data)
	t.Logf("failed multipart Put: %v", err)
	if err == nil || !strings.Contains(err.Error(), "(after 5 tries)") {
		t.Fatalf("multipart Put with a failing part: %v, want an error after 5 tries", err)
	}
	if _, _, err := bs.Get(ctx, "tables/never"); !errors.Is(err, ErrNotExist) {
		t.Errorf("a failed multipart upload left an object: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.aborted != 1 || len(f.uploads) != 0 {
		t.Errorf("after the failed upload: %d aborted, %d left open; want 1 and 0", f.aborted, len(f.uploads))
	}
}

func TestS3ErrorMessages(t *testing.T) {
	f := newS3Fake(t)
	bs := f.open(t, s3FastTuning())
	ctx := context.Background()

	f.setFault(func(int64, *http.Request) s3Fault { return s3RefuseCreds })
	_, _, err := bs.Get(ctx, "manifest")
	if err == nil || !strings.Contains(err.Error(), "refused the credentials (InvalidAccessKeyId): set AWS_ACCESS_KEY_ID") {
		t.Errorf("refused credentials: %v", err)
	}
	f.setFault(nil)

	other := *bs
	other.bucket = "nobucket"
	if _, _, err := other.Get(ctx, "manifest"); err == nil || !strings.Contains(err.Error(), `the bucket "nobucket" does not exist on http://127.0.0.1:`) {
		t.Errorf("missing bucket: %v", err)
	}

	// Nothing listens: a connection error, after the tries.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	u, _ := url.Parse("s3://bucket/p?endpoint=http://" + addr)
	closed, err := openS3(ctx, u, s3FastTuning(),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("AKIDTEST", "SECRETTEST", "")))
	if err != nil {
		t.Fatal(err)
	}
	defer closed.Close()
	start := time.Now()
	err = closed.Put(ctx, "tables/a", []byte("x"))
	t.Logf("nothing listening: %v (%s)", err, time.Since(start).Round(time.Millisecond))
	if err == nil || !strings.Contains(err.Error(), "cannot connect to http://"+addr) || !strings.Contains(err.Error(), "(after 5 tries)") {
		t.Errorf("Put with nothing listening: %v", err)
	}
}

func TestOpenS3URL(t *testing.T) {
	ctx := context.Background()
	creds := config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("AKIDTEST", "SECRETTEST", ""))
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	for _, c := range []struct {
		url, bucket, prefix, endpoint string
		pathStyle                     bool
		key                           string // of "tables/a.table"
	}{
		{"s3://b", "b", "", "", false, "tables/a.table"},
		{"s3://b/", "b", "", "", false, "tables/a.table"},
		{"s3://b/team/db/", "b", "team/db", "", false, "team/db/tables/a.table"},
		{"s3://b/p?endpoint=http://127.0.0.1:8333&region=us-east-1", "b", "p", "http://127.0.0.1:8333", true, "p/tables/a.table"},
		{"s3://b/p?endpoint=http://127.0.0.1:8333/&path-style=false", "b", "p", "http://127.0.0.1:8333", false, "p/tables/a.table"},
		{"s3://b/p?path-style=true", "b", "p", "", true, "p/tables/a.table"},
	} {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		bs, err := openS3(ctx, u, defaultS3Tuning(), creds)
		if err != nil {
			t.Errorf("openS3(%s): %v", c.url, err)
			continue
		}
		key, err := bs.key("tables/a.table")
		o := bs.client.Options()
		if bs.bucket != c.bucket || bs.prefix != c.prefix || bs.endpoint != c.endpoint || o.UsePathStyle != c.pathStyle || key != c.key || err != nil {
			t.Errorf("openS3(%s): bucket %q prefix %q endpoint %q path-style %v key %q (%v); want %q %q %q %v %q",
				c.url, bs.bucket, bs.prefix, bs.endpoint, o.UsePathStyle, key, err, c.bucket, c.prefix, c.endpoint, c.pathStyle, c.key)
		}
		bs.Close()
	}

	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9999")
	u, _ := url.Parse("s3://b/p")
	bs, err := openS3(ctx, u, defaultS3Tuning(), creds)
	if err != nil {
		t.Fatal(err)
	}
	if bs.endpoint != "http://127.0.0.1:9999" || !bs.client.Options().UsePathStyle {
		t.Errorf("with AWS_ENDPOINT_URL: endpoint %q, path-style %v", bs.endpoint, bs.client.Options().UsePathStyle)
	}
	bs.Close()
	t.Setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9998")
	if bs, err = openS3(ctx, u, defaultS3Tuning(), creds); err != nil {
		t.Fatal(err)
	}
	if bs.endpoint != "http://127.0.0.1:9998" || !bs.client.Options().UsePathStyle {
		t.Errorf("with AWS_ENDPOINT_URL_S3: endpoint %q, path-style %v", bs.endpoint, bs.client.Options().UsePathStyle)
	}
	bs.Close()

	for _, bad := range []string{
		"file:///tmp/x", "s3:///prefix", "s3://user@b/p", "s3://b:80/p", "s3://b/a//c", "s3://b/../c",
		"s3://b/p?endpoint=127.0.0.1:8333", "s3://b/p?endpoint=ftp://x", "s3://b/p?path-style=maybe", "s3://b/p?regoin=x",
	} {
		u, err := url.Parse(bad)
		if err != nil {
			continue
		}
		if bs, err := openS3(ctx, u, defaultS3Tuning(), creds); err == nil {
			bs.Close()
			t.Errorf("openS3(%s) accepted a bad URL", bad)
		} else {
			t.Logf("%s: %v", bad, err)
		}
	}
}
