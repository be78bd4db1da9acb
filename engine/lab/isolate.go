package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/ort"
	"github.com/ontime-routing/ontime/engine/worker"
)

// An upload is read in a worker process when the lab has one
// (Options.Worker, set by ontime serve): parsing, the automatic layout and
// the covariance checks cannot be interrupted in place, so the child is
// killed when the uploader leaves or the time limit passes, and a file
// that would exhaust memory ends the child, not the server.

// importWork is the "import" worker's request and answer.
const importWork = "import"

type importRequest struct {
	Files            []netfile.File        `json:"files"`
	Options          netfile.ImportOptions `json:"options"`
	MaxExplicitLinks int                   `json:"max_explicit_links"`
}

type importAnswer struct {
	Network json.RawMessage       `json:"network,omitempty"` // ontime JSON; absent when refused
	Report  *netfile.ImportReport `json:"report"`
	Err     engine.Problems       `json:"err,omitempty"`  // the error, each problem
	List    bool                  `json:"list,omitempty"` // the error was a problem list
}

func init() {
	worker.Register(importWork, func(in []byte) (any, error) {
		var req importRequest
		if err := json.Unmarshal(in, &req); err != nil {
			return nil, err
		}
		req.Options.MaxExplicitLinks = req.MaxExplicitLinks
		net, rep, err := netfile.Import(req.Files, req.Options)
		ans := importAnswer{Report: rep}
		if err != nil {
			ans.List = errors.As(err, &ans.Err)
			if !ans.List {
				var e *engine.Error
				if !errors.As(err, &e) {
					e = &engine.Error{Code: engine.EINVALID, Message: err.Error()}
				}
				ans.Err = engine.Problems{e}
			}
			return ans, nil
		}
		var b bytes.Buffer
		if err := netfile.WriteJSON(&b, net); err != nil {
			return nil, err
		}
		ans.Network = b.Bytes()
		return ans, nil
	})
}

// importIn reads files in the lab's worker, as netfile.Import does in
// process.
func (l *Lab) importIn(ctx context.Context, files []netfile.File, o netfile.ImportOptions) (*engine.Network, *netfile.ImportReport, error) {
	var ans importAnswer
	if err := l.opts.Worker.Run(ctx, importWork, importRequest{Files: files, Options: o, MaxExplicitLinks: o.MaxExplicitLinks}, &ans); err != nil {
		return nil, nil, err
	}
	if len(ans.Err) > 0 {
		if !ans.List {
			return nil, ans.Report, ans.Err[0]
		}
		return nil, ans.Report, ans.Err
	}
	net, err := netfile.ReadJSON(bytes.NewReader(ans.Network), "the upload")
	if err != nil {
		return nil, ans.Report, err
	}
	return net, ans.Report, nil
}

// An uploaded model's trial run is done in a worker too (Options.Worker):
// killed at AcceptTime or when the uploader leaves, and a graph that
// allocates without bound ends the child, not the server.
const trialWork = "model-trial"

type trialRequest struct {
	Network  json.RawMessage `json:"network"` // ontime JSON
	Model    string          `json:"model"`   // the uploaded file
	ORTLib   string          `json:"ort_lib,omitempty"`
	CacheDir string          `json:"cache_dir,omitempty"` // dense factors
}

func init() {
	worker.Register(trialWork, func(in []byte) (any, error) {
		var req trialRequest
		if err := json.Unmarshal(in, &req); err != nil {
			return nil, err
		}
		net, err := netfile.ReadJSON(bytes.NewReader(req.Network), "the network")
		if err != nil {
			return nil, err
		}
		model, err := linktime.NewCached(net, req.CacheDir)
		if err != nil {
			return nil, err
		}
		var opts []ort.Option
		if req.ORTLib != "" {
			opts = append(opts, ort.WithLibrary(req.ORTLib))
		}
		check, err := trialRun(context.Background(), net, model, req.Model, opts)
		if err != nil {
			return nil, engine.Errorf(engine.EINVALID, "%v", err)
		}
		return check, nil
	})
}

// trialIn is trialRun in the lab's worker process.
func (l *Lab) trialIn(ctx context.Context, n *Net, path string) (string, error) {
	var b bytes.Buffer
	if err := netfile.WriteJSON(&b, n.Net); err != nil {
		return "", err
	}
	var check string
	w := *l.opts.Worker
	w.Time = 0 // the trial's own limit (AcceptTime) is in ctx
	err := w.Run(ctx, trialWork, trialRequest{Network: b.Bytes(), Model: path, ORTLib: n.env.ORTLib, CacheDir: l.opts.CacheDir}, &check)
	return check, err
}
