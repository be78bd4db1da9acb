package server

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/web"
)

// maxUpload bounds an upload's total size (Chicago Regional's three TNTP
// files are 4 MB).
const maxUpload = 64 << 20

// handleAddNetworkForm answers GET /networks/add.
func (s *server) handleAddNetworkForm(w http.ResponseWriter, r *http.Request) {
	render(w, r, web.AddNetwork(s.page(r, "networks", "Add a network"), web.ImportForm{ReadLimit: s.Lab.ReadTime()}, nil))
}

// handleAddNetworkPreview reads the uploaded files with the form's
// settings and shows the validation report, the settings and a preview map;
// nothing is stored until the user saves.
// Route: POST /networks/add.
func (s *server) handleAddNetworkPreview(w http.ResponseWriter, r *http.Request) {
	form, _, imp, err := s.previewUpload(w, r)
	if imp == nil {
		s.fail(w, r, err)
		return
	}
	v := &web.ImportView{Report: imp.ReportHead(maxShownProblems), ProblemsTotal: imp.ProblemsTotal()}
	if err == nil {
		v.Token, v.Name = imp.Token, imp.Name
		v.Nodes, v.Links, v.Correlation, v.StepCap = len(imp.Net.Nodes), len(imp.Net.Links), imp.Net.Correlation.Model, imp.Net.StepCap
		for _, od := range imp.Net.ODs {
			v.ODs = append(v.ODs, imp.Net.ODString(od))
		}
	} else if imp == nil || imp.Report == nil || len(imp.Report.Problems) == 0 {
		s.fail(w, r, err)
		return
	}
	if form.Name == "" {
		form.Name = v.Name
	}
	form.ReadLimit = s.Lab.ReadTime()
	if v.Token == "" {
		w.WriteHeader(http.StatusUnprocessableEntity)
	}
	render(w, r, web.AddNetwork(s.page(r, "networks", "Add a network"), form, v))
}

// previewUpload receives an upload and reads it as a preview (the Add page
// and the API): the form's settings and fields, and the import, whose
// report lists the problems when it was refused (imp nil: nothing was
// read, err says why).
func (s *server) previewUpload(w http.ResponseWriter, r *http.Request) (web.ImportForm, url.Values, *lab.Import, error) {
	up, release, err := s.receiveUpload(w, r, maxUpload)
	if err != nil {
		return web.ImportForm{}, nil, nil, err
	}
	defer release()
	form, opts, err := importForm(up.values)
	if err != nil {
		// A bad setting is a problem of the report, beside the form as
		// typed (it was a bare error page that lost them).
		return form, up.values, settingProblem(up, err), err
	}
	files, err := uploadedFiles(up)
	if err != nil {
		return form, nil, nil, err
	}
	imp, err := s.Lab.Preview(r.Context(), clientOf(r), files, opts)
	return form, up.values, imp, err
}

// settingProblem is an import whose report lists err, a bad setting (nil
// when err is not bad input).
func settingProblem(up *uploadForm, err error) *lab.Import {
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.EINVALID {
		return nil
	}
	rep := &netfile.ImportReport{Problems: engine.Problems{e}}
	for _, fs := range up.files {
		for _, f := range fs {
			rep.Files = append(rep.Files, f.Name)
		}
	}
	return &lab.Import{Report: rep}
}

// uploadedFiles are an upload's network files, then its observed times
// (marked as such: a header that does not say so is reported with the
// import's other problems, the form kept).
func uploadedFiles(up *uploadForm) ([]netfile.File, error) {
	files := up.files["files"]
	for _, obs := range up.files["observations"] {
		obs.Observed = true
		files = append(files, obs)
	}
	return files, nil
}

// importForm reads the import settings (lab.ImportSettings, the table the
// command line's flags come from); a bad value names its field.
func importForm(f url.Values) (web.ImportForm, netfile.ImportOptions, error) {
	form := web.ImportForm{Name: strings.TrimSpace(f.Get("name")), Values: map[string]string{}}
	for _, st := range netfile.ImportSettings {
		form.Values[st.Name] = strings.TrimSpace(f.Get(st.FormField()))
	}
	var o netfile.ImportOptions
	err := netfile.ApplySettings(&o, func(st netfile.ImportSetting) string { return form.Values[st.Name] },
		func(st netfile.ImportSetting) string { return st.FormField() })
	o.Name = form.Name
	return form, o, err
}

// handleAddNetworkSave answers POST /networks/add/{token}.
func (s *server) handleAddNetworkSave(w http.ResponseWriter, r *http.Request) {
	imp, err := s.Lab.Pending(chi.URLParam(r, "token"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	name := strings.TrimSpace(r.FormValue("name"))
	// OD pairs picked on the preview map (or typed) replace the checked ones.
	if ods := engine.SplitList(r.FormValue("ods")); len(ods) > 0 && strings.Join(ods, ",") != strings.Join(imp.ODStrings(), ",") {
		if imp, err = imp.WithODs(ods); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	if err := s.Lab.Save(r.Context(), imp, name); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/networks/"+url.PathEscape(name), http.StatusSeeOther)
}

// handleImportJSON answers GET /api/imports/{token}.
func (s *server) handleImportJSON(w http.ResponseWriter, r *http.Request) {
	layout, err := mapLayoutByName(r.URL.Query().Get("layout"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	imp, err := s.Lab.Pending(chi.URLParam(r, "token"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, layout.build(imp.Net))
}

// handleRenameNetwork answers POST /networks/{name}/rename.
func (s *server) handleRenameNetwork(w http.ResponseWriter, r *http.Request) {
	old := chi.URLParam(r, "name")
	name := strings.TrimSpace(r.FormValue("name"))
	if err := s.Lab.RenameNetwork(r.Context(), old, name); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/networks/"+url.PathEscape(name), http.StatusSeeOther)
}

// handleDeleteNetwork deletes a stored network once the form repeats its
// name (the confirmation).
// Route: POST /networks/{name}/delete.
func (s *server) handleDeleteNetwork(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "name")
	if r.FormValue("confirm") != name {
		s.fail(w, r, engine.Errorf(engine.EINVALID, "to delete %s, type its name to confirm", name))
		return
	}
	if err := s.Lab.DeleteNetwork(r.Context(), name); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// handleExportNetwork sends a network in a netfile.Exports format
// (?format=, default ontime JSON): one file as itself, several as a zip,
// or the one named by ?file= (GMNS's link.csv alone, for a script).
// Route: GET /networks/{name}/export.
func (s *server) handleExportNetwork(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "name")
	x, files, err := s.Lab.ExportNetwork(r.Context(), name, r.URL.Query().Get("format"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if want := r.URL.Query().Get("file"); want != "" {
		var names []string
		for i, f := range files {
			if f.Name == want {
				files = files[i : i+1]
				break
			}
			names = append(names, f.Name)
		}
		if len(files) != 1 || files[0].Name != want {
			s.fail(w, r, engine.Errorf(engine.ENOTFOUND, "the %s export has no file %q (it has %s)", x.Name, want, strings.Join(names, ", ")))
			return
		}
	}
	if len(files) == 1 {
		ct := "text/plain; charset=utf-8"
		switch {
		case strings.HasSuffix(files[0].Name, ".geojson"):
			ct = "application/geo+json"
		case strings.HasSuffix(files[0].Name, ".json"):
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, files[0].Name))
		w.Write(files[0].Data)
		return
	}
	var zb bytes.Buffer
	if err := netfile.Zip(&zb, name+"-"+x.Name, files); err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s.zip"`, name, x.Name))
	w.Write(zb.Bytes())
}

// storedInfo adds a stored network's import report to its page.
func (s *server) storedInfo(r *http.Request, name string, v *web.NetworkView) {
	rep, _, err := s.Lab.StoredReport(r.Context(), name)
	if err != nil {
		return
	}
	v.Stored, v.Notes, v.Fitted = true, rep.Notes, rep.Fit != nil
}
