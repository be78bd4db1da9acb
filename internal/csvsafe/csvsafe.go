// Package csvsafe writes CSV that a spreadsheet opens as data: every cell
// a spreadsheet would read as a formula (it starts with =, +, -, @, a tab
// or a carriage return, as OWASP's CSV injection advice lists) is written
// with a leading apostrophe, unless it is a number ("-0.5" stays a
// number). Every CSV ontime writes goes through it: node ids and names
// from an upload reach the first character of cells.
package csvsafe

import (
	"encoding/csv"
	"io"
	"strconv"
)

// Writer is encoding/csv's Writer with every cell neutralised (Cell).
type Writer struct {
	*csv.Writer
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{csv.NewWriter(w)} }

// Write writes one record, each cell neutralised.
func (w *Writer) Write(record []string) error {
	safe := make([]string, len(record))
	for i, c := range record {
		safe[i] = Cell(c)
	}
	return w.Writer.Write(safe)
}

// WriteAll writes records, each cell neutralised, and flushes.
func (w *Writer) WriteAll(records [][]string) error {
	for _, r := range records {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}

// Cell is c as a spreadsheet reads it as text: a leading apostrophe where
// c starts like a formula and is not a number.
func Cell(c string) string {
	if c == "" {
		return c
	}
	switch c[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if _, err := strconv.ParseFloat(c, 64); err == nil {
			return c
		}
		return "'" + c
	}
	return c
}
