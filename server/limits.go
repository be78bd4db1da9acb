package server

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// Default bounds on concurrent streams (comparisons and live runs): each
// holds a goroutine, a websocket and its computation. The total suits a
// class (the load target is 200 sessions); one client may hold a few tabs.
const (
	// DefaultStepDelay paces a comparison's animation: a step every 350
	// ms reads as a race on the map.
	DefaultStepDelay           = 350 * time.Millisecond
	DefaultMaxStreams          = 256
	DefaultMaxStreamsPerClient = 8
)

// streamLimit counts open streams (or uploads: what) in total and per
// client address.
type streamLimit struct {
	mu        sync.Mutex
	total     int
	perClient map[string]int
	max, per  int    // 0: no bound
	what      string // "" : streams
	doing     string // the verb of what: "receiving" uploads, "computing" plans
}

// clientOf is the address a request came from, without its port: the key
// of the per-client bounds (streams here, jobs in the jobs service).
func clientOf(r *http.Request) string {
	client, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return client
}

// held is how many slots are taken.
func (l *streamLimit) held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// acquire takes a slot for r's client, or says which bound is reached.
func (l *streamLimit) acquire(r *http.Request) (release func(), err error) {
	client := clientOf(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max > 0 && l.total >= l.max {
		if l.what != "" {
			return nil, engine.Errorf(engine.ETOOMANY, "the dashboard is %s %d %s, its limit: try again in a minute", l.doing, l.total, l.what)
		}
		return nil, engine.Errorf(engine.ETOOMANY, "the dashboard is running %d streams, its limit: try again when one ends", l.total)
	}
	if l.per > 0 && l.perClient[client] >= l.per {
		if l.what != "" {
			return nil, engine.Errorf(engine.ETOOMANY, "you are sending %d %s at once, the limit for one address: wait for one to finish", l.perClient[client], l.what)
		}
		return nil, engine.Errorf(engine.ETOOMANY, "you have %d streams open, the limit for one address: close a comparison or live run first", l.perClient[client])
	}
	if l.perClient == nil {
		l.perClient = map[string]int{}
	}
	l.total++
	l.perClient[client]++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.total--
		if l.perClient[client]--; l.perClient[client] == 0 {
			delete(l.perClient, client)
		}
	}, nil
}

// MaxPlans and MaxPlansPerClient bound the plans (/api/plan, its routes)
// computed at once: a plan of 200,000 days is minutes of CPU and up to
// lab.PlanPoolBytes of pools, and fifty at once took the server from 3.4 to
// 6.6 GB. A plan waits for nothing: past a bound it is answered 429 with
// Retry-After.
const (
	MaxPlans          = 4
	MaxPlansPerClient = 2
)

// ReadTimeout bounds how long a request may take to arrive (ontime serve's
// http.Server); an upload gets UploadReadTime instead, and at most
// MaxUploadsPerClient of them run at once from one address.
const (
	ReadTimeout         = 30 * time.Second
	UploadReadTime      = 5 * time.Minute
	MaxUploads          = 8
	MaxUploadsPerClient = 2
)

// uploadForm is a received multipart form: its fields, and its files' names
// and contents by field.
type uploadForm struct {
	values url.Values
	files  map[string][]netfile.File
}

// receiveUpload takes an upload slot for r's client, gives the body
// UploadReadTime to arrive and reads the multipart form, files past a
// megabyte spooled to temporary files (not memory) while the body arrives,
// then read and removed before it returns: no temporary file outlives the
// reading, whatever the handler does after. The caller must call release,
// which frees the slot.
func (s *server) receiveUpload(w http.ResponseWriter, r *http.Request, maxBytes int64) (up *uploadForm, release func(), err error) {
	release, err = s.uploads.acquire(r)
	if err != nil {
		return nil, nil, err
	}
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(UploadReadTime)) // not every writer supports it (tests)
	r.Body = http.MaxBytesReader(w, r.Body, maxBytes)
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		if r.MultipartForm != nil {
			r.MultipartForm.RemoveAll()
		}
		release()
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, nil, engine.Errorf(engine.ETOOLARGE, "the upload is over %d MB, the limit", maxBytes>>20)
		}
		return nil, nil, engine.Errorf(engine.EINVALID, "the upload could not be read (at most %d MB in all): %v", maxBytes>>20, err)
	}
	defer r.MultipartForm.RemoveAll()
	up = &uploadForm{values: url.Values(r.MultipartForm.Value), files: map[string][]netfile.File{}}
	for field, fhs := range r.MultipartForm.File {
		for _, fh := range fhs {
			data, err := readPart(fh)
			if err != nil {
				release()
				return nil, nil, engine.Errorf(engine.EINVALID, "upload %s: %v", engine.Excerpt(fh.Filename), err)
			}
			up.files[field] = append(up.files[field], netfile.File{Name: fh.Filename, Data: data})
		}
	}
	return up, release, nil
}

func readPart(fh *multipart.FileHeader) ([]byte, error) {
	f, err := fh.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// MaxFormBytes bounds the body of a change that takes no upload (a rename,
// a delete, a job's settings): its fields fit in a few kB.
const MaxFormBytes = 16 << 10

// formBody bounds a change's body before anything reads it: at most limit
// bytes of form fields (tooBig, with the limit in KB, says so), and no
// multipart body, whose file parts would be spooled to temporary files
// that outlive a request whose handler sees a copy of it. The form is
// parsed here; handlers read r.Form.
func (s *server) formBody(limit int64, tooBig string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); strings.HasPrefix(mt, "multipart/") {
				s.fail(w, r, engine.Errorf(engine.EUNSUPPORTED, "this change takes form fields (application/x-www-form-urlencoded), not files"))
				return
			}
			if r.ContentLength > limit {
				s.fail(w, r, engine.Errorf(engine.ETOOLARGE, tooBig, limit>>10))
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			if err := r.ParseForm(); err != nil {
				var over *http.MaxBytesError
				if errors.As(err, &over) {
					s.fail(w, r, engine.Errorf(engine.ETOOLARGE, tooBig, limit>>10))
					return
				}
				s.fail(w, r, engine.Errorf(engine.EINVALID, "the form could not be read: %v", err))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
