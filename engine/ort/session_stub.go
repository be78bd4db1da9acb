//go:build !cgo

package ort

import "errors"

// Open fails: this binary was built without cgo.
func Open(model string, opts ...Option) (Session, error) {
	return nil, errors.New("ontime was built with CGO_ENABLED=0: ONNX policies (gpght, onnx:PATH) need cgo and the ONNX Runtime 1.24.3 library; rebuild with CGO_ENABLED=1")
}

// CheckInterface fails: this binary was built without cgo.
func CheckInterface(model []byte, links int, opts ...Option) error {
	_, err := Open("", opts...)
	return err
}

// Version is "": no ONNX Runtime is loaded without cgo.
func Version() string { return "" }

// Stages fails: this binary was built without cgo.
func Stages(s Session) (TwoStage, error) {
	_, err := Open("")
	return nil, err
}
