// Package models carries the committed trained models (ONNX files and their
// cards) inside the binary: a dashboard installed anywhere (go install, a
// copied binary) keeps GPG-HT on the built-in networks. A models/ directory
// beside or above the binary or the working directory still comes first
// (a model just trained there).
package models

import "embed"

// Files holds every committed model and card.
//
//go:embed *.onnx *.card.json
var Files embed.FS
