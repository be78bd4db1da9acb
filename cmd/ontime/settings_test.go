package main

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/server"
)

// The command line and the Add-a-network form read the import settings
// from one table: fed the same bad value, both refuse it with the same
// message (the field named as each door spells it); fed the same good
// values, both accept. Every setting of the table has a bad value here.
func TestBothDoorsRefuseTheSameSettings(t *testing.T) {
	dir := t.TempDir()
	net := filepath.Join(dir, "grid.csv")
	csv := "From,To,Cost,Var\n1,2,10,4\n2,4,10,4\n1,3,9,16\n3,4,9,16\n"
	os.WriteFile(net, []byte(csv), 0o644)
	l := lab.New(lab.Options{StateDir: t.TempDir()})
	ts := httptest.NewServer(server.NewServer(server.Deps{Lab: l, Version: "test", Assets: assets.FS}))
	t.Cleanup(func() { ts.Close(); l.Close() })
	bad := map[string]string{"mean": "median", "cv": "lots", "corr": "wavelet", "corr-seed": "-3", "corr-strength": "2",
		"corr-length": "-1", "corr-factors": "5000", "cap": "2.5", "ods": "", "highways": "", "zones": "everywhere", "coords": "polar",
		"time-unit": "fortnight", "law": "fitted", "period": "7-9", "skip-bad-rows": "maybe", "psd": "clip"}
	for _, st := range netfile.ImportSettings {
		v, ok := bad[st.Name]
		if !ok {
			t.Errorf("no bad value tried for setting %s", st.Name)
			continue
		}
		if v == "" {
			continue // free text the import reads later (an OD pair, a road class): no value is bad here
		}
		_, _, cliErr := runCLI(t, map[string]string{"ONTIME_STATE": filepath.Join(dir, "state")}, "networks", "add", net, "--dry-run", "--"+st.Name+"="+v)
		code, body := postImport(t, ts.URL, csv, map[string]string{st.FormField(): v})
		if cliErr == nil || code != http.StatusUnprocessableEntity { // the form kept, the problem in its report
			t.Errorf("%s=%q: the command line says %v, the form %d", st.Name, v, cliErr, code)
			continue
		}
		// the same message, the field named as each door spells it, and a
		// message that says what is wrong
		want := strings.Replace(cliErr.Error(), "--"+st.Name, st.FormField(), 1)
		if strings.Contains(want, "internal error") {
			t.Errorf("%s=%q: %q says nothing", st.Name, v, want)
		}
		if !strings.Contains(body, htmlEscape(want)) {
			t.Errorf("%s=%q: the command line says %q; the form's page does not", st.Name, v, want)
		}
	}
	good := map[string]string{"mean": "freeflow", "cv": "0.2", "corr": "independent", "cap": "9", "ods": "1-4", "zones": "through",
		"time-unit": "s", "law": "lognormal", "skip-bad-rows": "true", "psd": "project"}
	args := []string{"networks", "add", net, "--dry-run"}
	form := map[string]string{}
	for k, v := range good {
		args = append(args, "--"+k+"="+v)
		form[strings.ReplaceAll(k, "-", "_")] = v
	}
	if _, _, err := runCLI(t, map[string]string{"ONTIME_STATE": filepath.Join(dir, "state")}, args...); err != nil {
		t.Errorf("good settings, command line: %v", err)
	}
	if code, _ := postImport(t, ts.URL, csv, form); code != http.StatusOK {
		t.Errorf("good settings, form: %d", code)
	}
}

func postImport(t *testing.T, base, csv string, fields map[string]string) (int, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("files", "grid.csv")
	io.WriteString(w, csv)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	mw.Close()
	res, err := http.Post(base+"/networks/add", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}
