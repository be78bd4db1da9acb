package lab

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/store"
)

// LoadNetworkOrFile reads a network by name (LoadNetwork) or, for the
// command line only, a network file by path. Nothing a dashboard visitor
// sends reaches it: a name is never opened as a path there.
func (l *Lab) LoadNetworkOrFile(ctx context.Context, name string) (*engine.Network, error) {
	if netfile.LooksLikePath(name) {
		return netfile.OpenFile(name, netfile.ImportOptions{})
	}
	return l.LoadNetwork(ctx, name)
}

// LoadNetwork reads a network by name without building its link-time model:
// a built-in, or a stored network. A name that looks like a file path is no
// network's name (names are checked by CheckName): it is never opened.
func (l *Lab) LoadNetwork(ctx context.Context, name string) (*engine.Network, error) {
	if builtin.IsBuiltin(name) {
		return builtin.Load(name, l.opts.DataDir)
	}
	if checkName("network", name) != nil {
		return nil, engine.Errorf(engine.ENOTFOUND, "no network %q: network names are lower-case letters, digits, '-' and '_' (built-ins: %s)",
			engine.Excerpt(name), strings.Join(builtin.Names, ", "))
	}
	st, err := l.store()
	if err != nil {
		return nil, engine.Errorf(engine.ENOTFOUND, "no network %q: the built-ins are %s, and stored networks cannot be read (%s)",
			name, strings.Join(builtin.Names, ", "), engine.ErrorMessage(err))
	}
	rec, err := st.Network(ctx, name)
	if err != nil {
		if engine.ErrorCode(err) == engine.ENOTFOUND {
			return nil, engine.Errorf(engine.ENOTFOUND, "no network %q (built-ins: %s; stored: see `ontime networks list`)",
				name, strings.Join(builtin.Names, ", "))
		}
		return nil, err
	}
	return netfile.ReadStored(rec.Data, "stored network "+name)
}

// store opens the state directory's database on first use.
func (l *Lab) store() (*store.Store, error) {
	l.storeOnce.Do(func() {
		if l.opts.Store != nil {
			l.st = l.opts.Store
			return
		}
		if l.opts.StateDir == "" {
			l.stErr = engine.Errorf(engine.ENOTFOUND, "no state directory set (--state or ONTIME_STATE)")
			return
		}
		l.st, l.stErr = store.Open(l.opts.StateDir)
		if l.stErr == nil {
			// Uploads tried when the last process ended (killed, or the
			// disk full) left their temporary files: nothing lists them.
			left, _ := filepath.Glob(filepath.Join(l.st.Dir, "models", "user", "*", ".upload-*"))
			for _, f := range left {
				os.Remove(f)
			}
		}
	})
	return l.st, l.stErr
}

// ClaimState makes this process the one that runs jobs on the state
// directory (ontime serve) and marks the jobs a previous process left
// queued or running as interrupted; a directory another server holds is
// refused (ECONFLICT), before anything of its jobs is touched.
func (l *Lab) ClaimState() (interrupted int, err error) {
	st, err := l.store()
	if err != nil {
		return 0, err
	}
	if err := st.Claim(); err != nil {
		return 0, err
	}
	return l.Jobs().Recover()
}

// StateError says why the state directory cannot be used (nil when it can):
// the dashboard then works with the built-in networks only.
func (l *Lab) StateError() error {
	_, err := l.store()
	return err
}

// Close stops background jobs and closes the state database if the lab
// opened it.
func (l *Lab) Close() error {
	l.cancel()
	// Jobs record their end before the store closes; one stuck inside a
	// long computation (a city's DOT table) does not hold the shutdown past
	// closeWait: it stays "running" in the store and the next start marks
	// it interrupted.
	done := make(chan struct{})
	go func() { l.Jobs().Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(closeWait):
		l.logf("closing with jobs still stopping after %s; the next start marks them interrupted", closeWait)
		return nil // the store stays open for them; the process is ending
	}
	if l.st != nil && l.opts.Store == nil {
		return l.st.Close()
	}
	return nil
}

// closeWait bounds how long Close waits for running jobs to stop.
const closeWait = 10 * time.Second

// StoredNetworks lists the networks in the state directory.
func (l *Lab) storedNetworks() []NetworkInfo {
	st, err := l.store()
	if err != nil {
		return nil
	}
	recs, err := st.Networks(context.Background())
	if err != nil {
		l.logf("listing stored networks: %v", err)
		return nil
	}
	var out []NetworkInfo
	for _, r := range recs {
		out = append(out, NetworkInfo{Name: r.Name, Description: r.Description, Available: true, Stored: true, Nodes: r.Nodes, Links: r.Links})
	}
	return out
}

func (l *Lab) logf(format string, args ...any) {
	if l.opts.Logf != nil {
		l.opts.Logf(format, args...)
	}
}

// Import is a network read from files and validated, not yet stored.
type Import struct {
	Token   string // names it until it is saved (dashboard previews)
	Name    string // the name it would be saved under
	Net     *engine.Network
	Report  *netfile.ImportReport
	Options netfile.ImportOptions
	made    time.Time
	owner   string // the client that previewed it
}

// pending keeps dashboard previews for a while, a few per client.
type pending struct {
	mu    sync.Mutex
	items map[string]*Import
	work  chan struct{} // a slot per import being read at once
}

// Bounds on previews: each client keeps its newest maxPendingPerClient,
// the dashboard at most maxPending in all (then new ones are refused, not
// others' dropped), and maxImportsAtOnce are read at the same time.
// MaxPreviewLinks bounds the explicit covariance a preview checks.
const (
	previewTTL          = 30 * time.Minute
	maxPending          = 64
	maxPendingPerClient = 4
	maxImportsAtOnce    = 2
	MaxPreviewLinks     = 1000
)

// turn waits for one of the slots of work at once (maxImportsAtOnce),
// shared by previews and sketches, and returns its release; a caller that
// gives up first gets ETOOMANY with why.
func (p *pending) turn(ctx context.Context, why string) (release func(), err error) {
	select {
	case p.work <- struct{}{}:
		return func() { <-p.work }, nil
	case <-ctx.Done():
		return nil, engine.Errorf(engine.ETOOMANY, "%s (%v)", why, ctx.Err())
	}
}

// ReadImport reads and validates files into a network (nothing is stored).
// When the files are rejected the error lists every problem and the report
// says the same.
func (l *Lab) ReadImport(files []netfile.File, o netfile.ImportOptions) (*Import, error) {
	net, rep, err := netfile.Import(files, o)
	imp := &Import{Report: rep, Options: o, Net: net}
	if err != nil {
		return imp, err
	}
	return l.named(imp), nil
}

// ReadImportIn is ReadImport in the lab's worker process (Options.Worker:
// killed when ctx ends or its time passes, its memory limited), or here
// when the lab has none.
func (l *Lab) ReadImportIn(ctx context.Context, files []netfile.File, o netfile.ImportOptions) (*Import, error) {
	if l.opts.Worker == nil {
		return untilDone(ctx, func() (*Import, error) { return l.ReadImport(files, o) })
	}
	net, rep, err := l.importIn(ctx, files, o)
	imp := &Import{Report: rep, Options: o, Net: net}
	if err != nil {
		return imp, err
	}
	return l.named(imp), nil
}

// named sets the name an import would be saved under.
func (l *Lab) named(imp *Import) *Import {
	imp.Name = imp.Net.Name
	if builtin.IsBuiltin(imp.Name) {
		imp.Name += "-upload"
	}
	return imp
}

// Preview reads files as ReadImport does, for a dashboard visitor (owner:
// their address), and keeps an accepted network for previewTTL under a
// token, for the "save" step. At most maxImportsAtOnce are read at once;
// a request that waits for its turn gives up when ctx ends.
func (l *Lab) Preview(ctx context.Context, owner string, files []netfile.File, o netfile.ImportOptions) (*Import, error) {
	done, err := l.pend.turn(ctx, "the dashboard is reading other uploads; this one gave up waiting")
	if err != nil {
		return nil, err
	}
	defer done()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	o.MaxExplicitLinks = MaxPreviewLinks
	imp, err := l.ReadImportIn(ctx, files, o)
	if err != nil {
		return imp, err
	}
	if note := l.denseCostNote(imp.Net); note != "" {
		imp.Report.Notes = append(imp.Report.Notes, note)
	}
	b := make([]byte, 12)
	rand.Read(b)
	imp.Token, imp.made, imp.owner = hex.EncodeToString(b), time.Now(), owner
	l.pend.mu.Lock()
	defer l.pend.mu.Unlock()
	if l.pend.items == nil {
		l.pend.items = map[string]*Import{}
	}
	mine := 0
	var oldest string
	for k, p := range l.pend.items {
		switch {
		case time.Since(p.made) > previewTTL:
			delete(l.pend.items, k)
		case p.owner == owner:
			mine++
			if oldest == "" || p.made.Before(l.pend.items[oldest].made) {
				oldest = k
			}
		}
	}
	if mine >= maxPendingPerClient {
		delete(l.pend.items, oldest) // the client's own oldest preview
	} else if len(l.pend.items) >= maxPending {
		return nil, engine.Errorf(engine.ETOOMANY, "the dashboard holds %d previews not yet saved, its limit: try again in a few minutes", len(l.pend.items))
	}
	l.pend.items[imp.Token] = imp
	return imp, nil
}

// Pending returns a previewed import by its token.
func (l *Lab) Pending(token string) (*Import, error) {
	l.pend.mu.Lock()
	defer l.pend.mu.Unlock()
	imp, ok := l.pend.items[token]
	if !ok || time.Since(imp.made) > previewTTL {
		return nil, engine.Errorf(engine.ENOTFOUND, "this preview has expired (previews are kept %v): upload the files again", previewTTL)
	}
	return imp, nil
}

// WithODs is the import with its OD pairs replaced by ods (picked on the
// preview map before saving); the preview itself is left as it was.
func (imp *Import) WithODs(ods []string) (*Import, error) {
	net := *imp.Net
	rep := *imp.Report
	rep.Notes = slices.Clone(rep.Notes)
	if err := netfile.ReplaceODs(&net, ods, imp.Options.StepCap > 0, &rep); err != nil {
		return nil, err
	}
	out := *imp
	out.Net, out.Report = &net, &rep
	out.Options.ODs = ods
	return &out, nil
}

// ExportFormat is a format a network can be downloaded in.
type ExportFormat struct{ Name, Label, Keeps string }

// ExportFormats are netfile's export formats, ontime's JSON first.
func ExportFormats() []ExportFormat {
	var out []ExportFormat
	for _, x := range netfile.Exports {
		out = append(out, ExportFormat{x.Name, x.Label, x.Keeps})
	}
	return out
}

// ReportHead is the import's report with max of its problems only, the
// first ones and the last (which says where reading stopped, when it did):
// an answer that quotes it stays small; the count is len(Report.Problems).
func (imp *Import) ReportHead(max int) *netfile.ImportReport {
	if imp.Report == nil {
		return nil // refused before anything was read (a worker's limit)
	}
	ps := imp.Report.Problems
	if len(ps) <= max {
		return imp.Report
	}
	out := *imp.Report
	out.Problems = append(slices.Clone(ps[:max-1]), ps[len(ps)-1])
	return &out
}

// ProblemsTotal counts the import's problems, however many a report
// shows.
func (imp *Import) ProblemsTotal() int {
	if imp.Report == nil {
		return 0
	}
	return len(imp.Report.Problems)
}

// ODStrings are the import's OD pairs as "O-D" texts.
func (imp *Import) ODStrings() []string {
	var out []string
	for _, od := range imp.Net.ODs {
		out = append(out, imp.Net.ODString(od))
	}
	return out
}

// CheckName says whether a name can be given to a stored network.
func CheckName(name string) error {
	if err := checkName("network", name); err != nil {
		return err
	}
	if builtin.IsBuiltin(name) {
		return engine.Errorf(engine.EINVALID, "%q is a built-in network's name: choose another", name)
	}
	return nil
}

// checkName is the rule for the names a user gives (networks, uploaded
// models): lower-case letters, digits, '-' and '_', at most 64.
func checkName(what, name string) error {
	switch {
	case name == "":
		return engine.Errorf(engine.EINVALID, "give the %s a name", what)
	case netfile.SanitizeName(name) != name:
		return engine.Errorf(engine.EINVALID, "name %q: use lower-case letters, digits, '-' and '_' (for example %q)", name, netfile.SanitizeName(name))
	case len(name) > 64:
		return engine.Errorf(engine.EINVALID, "name %q is longer than 64 characters", name)
	}
	return nil
}

// Save stores an accepted import under name.
func (l *Lab) Save(ctx context.Context, imp *Import, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	st, err := l.store()
	if err != nil {
		return err
	}
	net := *imp.Net
	net.Name = name
	var data bytes.Buffer
	if err := netfile.WriteJSON(&data, &net); err != nil {
		return err
	}
	settings, _ := json.Marshal(imp.Options)
	report, _ := json.Marshal(imp.Report)
	l.quotaMu.Lock() // the count checked is the count stored against
	defer l.quotaMu.Unlock()
	if err := l.checkQuota(ctx, imp.owner, 1, 0, int64(data.Len()+len(settings)+len(report))); err != nil {
		return err
	}
	dense := l.denseInWorker(&net)
	if dense {
		if err := l.denseAllowed(imp.owner); err != nil {
			return err
		}
	}
	err = st.PutNetwork(ctx, store.Network{Name: name, Description: net.Description, Created: time.Now(), Nodes: len(net.Nodes),
		Links: len(net.Links), Settings: settings, Report: report, Data: data.Bytes(), Owner: imp.owner})
	if err != nil {
		return err
	}
	if imp.Token != "" {
		l.pend.mu.Lock()
		delete(l.pend.items, imp.Token)
		l.pend.mu.Unlock()
	}
	if dense { // its model is built now, counted against its saver
		l.mu.Lock()
		l.denseBy[name] = imp.owner
		l.mu.Unlock()
		go l.Open(name)
	}
	return nil
}

// StoredReport returns a stored network's import report and settings.
func (l *Lab) StoredReport(ctx context.Context, name string) (*netfile.ImportReport, *netfile.ImportOptions, error) {
	st, err := l.store()
	if err != nil {
		return nil, nil, err
	}
	rec, err := st.NetworkInfo(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	var rep netfile.ImportReport
	var o netfile.ImportOptions
	json.Unmarshal(rec.Report, &rep)
	json.Unmarshal(rec.Settings, &o)
	return &rep, &o, nil
}

// RenameNetwork renames a stored network (its jobs follow it).
func (l *Lab) RenameNetwork(ctx context.Context, old, name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	st, err := l.store()
	if err != nil {
		return err
	}
	net, err := l.LoadNetwork(ctx, old)
	if err != nil {
		return err
	}
	if builtin.IsBuiltin(old) {
		return engine.Errorf(engine.EINVALID, "%s is built in: it cannot be renamed", old)
	}
	net.Name = name
	var data bytes.Buffer
	if err := netfile.WriteJSON(&data, net); err != nil {
		return err
	}
	if err := st.RenameNetwork(ctx, old, name, data.Bytes()); err != nil {
		return err
	}
	l.forget(old)
	// Its trained and uploaded models follow it (the fingerprint does not
	// depend on the name).
	models := filepath.Join(st.Dir, "models")
	files, _ := filepath.Glob(filepath.Join(models, old+".*"))
	for _, f := range files {
		if err := os.Rename(f, filepath.Join(models, name+strings.TrimPrefix(filepath.Base(f), old))); err != nil {
			l.logf("moving model %s: %v", f, err)
		}
	}
	if err := os.Rename(filepath.Join(models, "user", old), filepath.Join(models, "user", name)); err != nil && !os.IsNotExist(err) {
		l.logf("moving uploaded models of %s: %v", old, err)
	}
	return nil
}

// DeleteNetwork removes a stored network and its jobs.
func (l *Lab) DeleteNetwork(ctx context.Context, name string) error {
	if builtin.IsBuiltin(name) {
		return engine.Errorf(engine.EINVALID, "%s is built in: it cannot be deleted", name)
	}
	st, err := l.store()
	if err != nil {
		return err
	}
	if _, err := st.Network(ctx, name); err != nil {
		return err
	}
	// Its jobs first: canceled and forgotten, so that none stores a result
	// after the rows are gone (a new network of this name starts clean).
	l.Jobs().DropNetwork(name, 5*time.Second)
	if err := st.DeleteNetwork(ctx, name); err != nil {
		return err
	}
	l.forget(name)
	models := filepath.Join(st.Dir, "models")
	files, _ := filepath.Glob(filepath.Join(models, name+".*"))
	for _, f := range files {
		os.Remove(f)
	}
	os.RemoveAll(filepath.Join(models, "user", name))
	return nil
}

// ExportNetwork writes a network in one of netfile.Exports' formats ("":
// ontime's JSON), as the files that format has.
func (l *Lab) ExportNetwork(ctx context.Context, name, format string) (netfile.Export, []netfile.File, error) {
	if format == "" {
		format = "json"
	}
	x, err := netfile.ExportByName(format)
	if err != nil {
		return x, nil, err
	}
	net, err := l.LoadNetwork(ctx, name)
	if err != nil {
		return x, nil, err
	}
	files, err := x.Write(net)
	return x, files, err
}

// forget drops an opened network (renamed or deleted).
// A dense model being built for it is stopped: the network it was for is
// gone under that name.
func (l *Lab) forget(name string) {
	l.mu.Lock()
	e := l.nets[name]
	delete(l.nets, name)
	l.mu.Unlock()
	if e != nil {
		e.mu.Lock()
		if e.cancel != nil {
			e.cancel()
		}
		e.mu.Unlock()
	}
}
