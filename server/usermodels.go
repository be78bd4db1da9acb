// Models uploaded for a network: the upload, rename, delete and download
// routes.

package server

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/netfile"
)

// handleUploadModel accepts an ONNX policy for a network after checking it
// (lab.AddUserModel) and returns to the models page.
// Route: POST /models/upload.
func (s *server) handleUploadModel(w http.ResponseWriter, r *http.Request) {
	up, release, err := s.receiveUpload(w, r, maxModelUpload+1<<20)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer release()
	n, err := s.network(up.values)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	models := up.files["model"]
	if len(models) == 0 {
		s.fail(w, r, engine.Errorf(engine.EINVALID, "choose an ONNX file to upload (field model)"))
		return
	}
	file, data := models[0].Name, models[0].Data
	name := strings.TrimSpace(up.values.Get("name"))
	if name == "" {
		name = netfileName(file)
	}
	m, err := s.Lab.AddUserModel(r.Context(), n, name, file, data)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if wantsJSON(r) {
		writeJSONStatus(w, http.StatusCreated, m)
		return
	}
	http.Redirect(w, r, "/models?net="+url.QueryEscape(n.Net.Name)+"#user-"+n.Net.Name, http.StatusSeeOther)
}

// netfileName makes a model name from a file name ("My Policy.onnx" → my-policy).
func netfileName(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	return netfile.SanitizeName(strings.ReplaceAll(base, " ", "-"))
}

func (s *server) userModelNet(w http.ResponseWriter, r *http.Request) (*lab.Net, string, bool) {
	n, err := s.Lab.Open(chi.URLParam(r, "net"))
	if err != nil {
		s.fail(w, r, err)
		return nil, "", false
	}
	return n, chi.URLParam(r, "name"), true
}

// handleRenameUserModel answers POST /models/user/{net}/{name}/rename.
func (s *server) handleRenameUserModel(w http.ResponseWriter, r *http.Request) {
	n, name, ok := s.userModelNet(w, r)
	if !ok {
		return
	}
	if err := s.Lab.RenameUserModel(n, name, strings.TrimSpace(r.FormValue("name"))); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/models?net="+url.QueryEscape(n.Net.Name)+"#user-"+n.Net.Name, http.StatusSeeOther)
}

// handleDeleteUserModel answers POST /models/user/{net}/{name}/delete.
func (s *server) handleDeleteUserModel(w http.ResponseWriter, r *http.Request) {
	n, name, ok := s.userModelNet(w, r)
	if !ok {
		return
	}
	if err := s.Lab.DeleteUserModel(n, name); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/models?net="+url.QueryEscape(n.Net.Name)+"#user-"+n.Net.Name, http.StatusSeeOther)
}

// handleDownloadUserModel serves an uploaded model (NAME.onnx) or its card
// (NAME.json).
// Route: GET /models/user/{net}/{file}.
func (s *server) handleDownloadUserModel(w http.ResponseWriter, r *http.Request) {
	n, err := s.Lab.Open(chi.URLParam(r, "net"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	file := chi.URLParam(r, "file")
	name, ext := strings.TrimSuffix(file, filepath.Ext(file)), filepath.Ext(file)
	model, card, err := s.Lab.UserModelFile(n, name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	path := map[string]string{".onnx": model, ".json": card}[ext]
	if path == "" {
		s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "download NAME.onnx or NAME.json"))
		return
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s%s"`, n.Net.Name, name, ext))
	http.ServeFile(w, r, path)
}
