package netfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/ontime-routing/ontime/engine"
)

func sortIDs(ids []string) { slices.SortFunc(ids, engine.CompareIDs) }

// lineOf returns the 1-based line of byte offset off in data.
func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// jsonLine finds the line where the value at path (object keys as strings,
// array indices as ints) starts, by walking the token stream; 0 if absent.
// It lets semantic errors found after decoding still name a line.
func jsonLine(data []byte, path ...any) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if off, ok := seek(dec, path); ok {
		return lineOf(data, off)
	}
	return 0
}

func seek(dec *json.Decoder, path []any) (int64, bool) {
	if len(path) == 0 {
		// skip whitespace and the separator before the value
		off := dec.InputOffset()
		rest, _ := io2bytes(dec)
		for i, b := range rest {
			if b != ' ' && b != '\t' && b != '\n' && b != '\r' && b != ',' && b != ':' {
				return off + int64(i), true
			}
		}
		return off, true
	}
	tok, err := dec.Token()
	if err != nil {
		return 0, false
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return 0, false
	}
	switch want := path[0].(type) {
	case string:
		if d != '{' {
			return 0, false
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return 0, false
			}
			if k == want {
				return seek(dec, path[1:])
			}
			if err := skipValue(dec); err != nil {
				return 0, false
			}
		}
	case int:
		if d != '[' {
			return 0, false
		}
		for i := 0; dec.More(); i++ {
			if i == want {
				return seek(dec, path[1:])
			}
			if err := skipValue(dec); err != nil {
				return 0, false
			}
		}
	}
	return 0, false
}

func skipValue(dec *json.Decoder) error {
	var v json.RawMessage
	return dec.Decode(&v)
}

func io2bytes(dec *json.Decoder) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(dec.Buffered())
	return b.Bytes(), err
}

// jsonSyntaxError turns a decoding error into an input error with a line.
func jsonSyntaxError(file string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &engine.Error{Code: engine.EINVALID, File: file, Line: lineOf(data, se.Offset), Message: "invalid JSON: " + se.Error(), Err: err}
	case errors.As(err, &te):
		return &engine.Error{Code: engine.EINVALID, File: file, Line: lineOf(data, te.Offset), Field: te.Field,
			Message: "expected " + te.Type.String() + ", got JSON " + te.Value, Err: err}
	}
	return &engine.Error{Code: engine.EINVALID, File: file, Message: err.Error(), Err: err}
}
