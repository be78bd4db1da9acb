package server

import (
	_ "embed"
	"net/http"
)

// openAPI describes every /api/ route (and the probes): written by hand,
// checked against the route table and the responses by the tests
// (openapi_test.go).
//
//go:embed openapi.json
var openAPI []byte

// handleOpenAPI answers GET /api/openapi.json.
func (s *server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openAPI)
}
