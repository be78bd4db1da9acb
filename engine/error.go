// Package engine holds ontime's domain types: road networks with random link
// times, origin-destination tasks, the information a traveller observes, and
// the policy interface every router implements. It knows nothing of HTTP;
// implementations live in sub-packages named for what they do (netfile reads
// and writes files, linktime samples link times, sim runs episodes, …).
package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Error codes, in the style of benbjohnson/wtf: a small closed set that the
// CLI and the HTTP layer map to exit messages and statuses in one place.
const (
	EINVALID   = "invalid"
	ENOTFOUND  = "not_found"
	EINTERNAL  = "internal"
	ECONFLICT  = "conflict"  // the request does not fit the present state (a finished job canceled)
	ETOOMANY   = "too_many"  // a bound on concurrent work is reached; try again later
	EFORBIDDEN = "forbidden" // a change without the server's access token
	ESTORAGE   = "storage"   // the state directory cannot be written (a full disk); nothing stored was lost
	ETOOLARGE  = "too_large" // an upload over its size limit
	EBUSY      = "busy"      // the thing asked for is being prepared (a model being built); ask again shortly
	// EUNSUPPORTED: a body of a kind the route does not take (a file
	// sent to a change that takes form fields).
	EUNSUPPORTED = "unsupported"
)

// Error is an application error with a code and a message meant for people.
// File, Line and Field locate bad input when it came from a file.
//
// As JSON it takes the one error shape every answer uses (docs/api.md):
// lower-case keys, the message under "error".
type Error struct {
	Code    string `json:"code,omitempty"`
	Message string `json:"error"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"` // 1-based; 0 when unknown
	Field   string `json:"field,omitempty"`
	// Err is the optional cause; it is not encoded (an interface does not
	// decode), its text is in Message where it matters, so an Error written
	// as JSON (stored reports, worker answers) reads back whole.
	Err error `json:"-"`
}

func (e *Error) Error() string {
	loc := ""
	switch {
	case e.File != "" && e.Line > 0:
		loc = fmt.Sprintf("%s:%d: ", e.File, e.Line)
	case e.File != "":
		loc = e.File + ": "
	}
	if e.Field != "" {
		loc += "field " + e.Field + ": "
	}
	return loc + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// UnmarshalJSON reads the error shape, and the capitalised keys reports
// stored before it (Message) were written with.
func (e *Error) UnmarshalJSON(b []byte) error {
	type plain Error
	var v struct {
		plain
		Legacy string `json:"Message"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*e = Error(v.plain)
	if e.Message == "" {
		e.Message = v.Legacy
	}
	return nil
}

// Errorf returns an *Error with the given code. Every value a %q verb
// quotes is what somebody sent (a name, a field, a query value), so it is
// quoted as an Excerpt: a 600 kB field must not make a 3 MB message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: boundMessage(code, fmt.Sprintf(format, excerptQuoted(format, args)...))}
}

// InputError reports bad input at a place in a file (values quoted with %q
// are excerpts, as in Errorf).
func InputError(file string, line int, field, format string, args ...any) *Error {
	return &Error{Code: EINVALID, File: Excerpt(file), Line: line, Field: Excerpt(field), Message: boundMessage(EINVALID, fmt.Sprintf(format, excerptQuoted(format, args)...))}
}

// MaxMessage bounds a message meant for people, whatever it quotes or
// nests: past it the text is cut (an internal error keeps its whole stack
// for the log).
const MaxMessage = 2000

func boundMessage(code, msg string) string {
	if code == EINTERNAL {
		return msg
	}
	return Clip(msg, MaxMessage)
}

// Clip cuts s to at most max bytes on a rune boundary, marking the cut.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len(" …")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " …"
}

// excerptQuoted replaces the string arguments of format's %q verbs by
// their excerpts (and each of a []string's); other arguments pass as they
// are. It reads verbs as fmt does: flags, width and precision, %% taking
// no argument.
func excerptQuoted(format string, args []any) []any {
	var out []any
	n := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.", format[i]) >= 0 {
			i++
		}
		if i >= len(format) || format[i] == '%' {
			continue
		}
		if format[i] == 'q' && n < len(args) {
			if out == nil {
				out = slices.Clone(args)
			}
			switch a := args[n].(type) {
			case string:
				out[n] = quotedExcerpt(a)
			case []string:
				out[n] = excerpts(a)
			}
		}
		n++
	}
	if out == nil {
		return args
	}
	return out
}

// quotedExcerpt is the part of s whose quoted form (%q) takes at most 80
// characters, marked when cut: a field of control characters quotes each
// as \x01, four times as wide, and must not make a message four times as
// long.
func quotedExcerpt(s string) string {
	const max = 80
	width := 0
	for i, r := range s {
		if width += len(strconv.QuoteRune(r)) - 2; width > max {
			return s[:i] + "…"
		}
	}
	return s
}

// excerpts keeps the first few of a list, each an excerpt.
func excerpts(list []string) []string {
	const max = 10
	out := make([]string, 0, min(len(list), max+1))
	for i, s := range list {
		if i == max {
			out = append(out, fmt.Sprintf("… and %d more", len(list)-max))
			break
		}
		out = append(out, quotedExcerpt(s))
	}
	return out
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for
// any other non-nil error and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message of the first *Error in err's chain, or a
// generic text for other errors, which may hold details unfit for users.
func ErrorMessage(err error) string {
	var ps Problems
	if errors.As(err, &ps) {
		return ps.Error()
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	if err == nil {
		return ""
	}
	return "internal error"
}

// Problems is every problem found in one input (a file or a set of files),
// each naming its file, line and field: validation reports them all at
// once rather than stopping at the first. It is an EINVALID error.
type Problems []*Error

// maxShown bounds how many problems an error message lists.
const maxShown = 25

func (p Problems) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problem", len(p))
	if len(p) != 1 {
		b.WriteString("s")
	}
	b.WriteString(" in the input:")
	for i, e := range p {
		if i == maxShown {
			fmt.Fprintf(&b, "\n  … and %d more", len(p)-maxShown)
			break
		}
		b.WriteString("\n  " + e.Error())
	}
	return b.String()
}

// Unwrap lets errors.As find the first *Error (code EINVALID).
func (p Problems) Unwrap() []error {
	out := make([]error, len(p))
	for i, e := range p {
		out[i] = e
	}
	return out
}

// ProblemsOf is err as the problems a person is shown: a list as it is,
// one *Error as a list of one; ok is false for any other error (a fault,
// not the input's), which is passed on as it is.
func ProblemsOf(err error) (ps Problems, ok bool) {
	var e *Error
	switch {
	case errors.As(err, &ps):
		return ps, true
	case errors.As(err, &e):
		return Problems{e}, true
	}
	return nil, false
}

// Err returns p as an error, or nil when there are none.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return p
}

// PanicError turns a panic recovered in a worker goroutine into an internal
// error carrying its stack, so the panic fails that request or job instead
// of the whole process (a goroutine's panic cannot be recovered by the
// request's own middleware).
func PanicError(where string, p any) error {
	return Errorf(EINTERNAL, "%s: panic: %v\n%s", where, p, debug.Stack())
}

// DiskError names a file write the disk refused (full, over quota, over the
// process's file-size limit) as ESTORAGE, so that it is answered 507 with
// the reason; other errors pass unchanged.
func DiskError(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EFBIG) {
		why := err // the system's words, without the server's path
		var pe *fs.PathError
		if errors.As(err, &pe) {
			why = pe.Err
		}
		return &Error{Code: ESTORAGE, Err: err, Message: fmt.Sprintf("the state directory could not be written (is its disk full?): %v; nothing stored before was lost", why)}
	}
	return err
}

// Excerpt keeps text a client sent short enough to quote in a message: a
// 100 kB name must not make a 600 kB page.
// It reads no further than it keeps.
func Excerpt(s string) string {
	const max = 80
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// JoinOr lists choices for a message: "a, b or c".
func JoinOr(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
