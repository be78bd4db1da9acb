package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/ontime-routing/ontime/assets"
	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/jobs"
	"github.com/ontime-routing/ontime/engine/lab"
	"github.com/ontime-routing/ontime/engine/train"
	"github.com/ontime-routing/ontime/server"
)

// runServe starts the dashboard and serves until ctx ends.
func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (port 0 picks a free one)")
	data := fs.String("data", "", "benchmark data directory (default $ONTIME_DATA)")
	state := registerState(fs)
	models := fs.String("models", "", "directory of trained models (default: models/ found upwards)")
	cache := fs.String("cache", "", "directory for trained learners (default $ONTIME_CACHE or the user cache dir)")
	noCache := fs.Bool("no-cache", false, "train learners afresh instead of reusing cached ones")
	device := fs.String("device", "cpu", "ONNX policies: cpu or cuda (falls back to cpu with a log line)")
	delay := fs.Duration("step-delay", server.DefaultStepDelay, "pause between animated steps of a comparison")
	verbose := fs.Bool("v", false, "log every request (method, path, status, bytes, milliseconds, id) at debug level")
	logJSON := fs.Bool("log-json", false, "write the log as JSON lines (one object per event) instead of text")
	jobsN := fs.Int("jobs", 1, "background jobs (benchmarks, training) running at once; the rest queue")
	python := fs.String("python", "/usr/bin/python3", "Python with PyTorch 1.13+ and onnx, for training jobs")
	trainer := fs.String("trainer", "", "models/train/train.py for training jobs (default: $ONTIME_TRAINER, else found above the ontime binary; never the working directory: it is code the dashboard runs)")
	maxStreams := fs.Int("max-streams", server.DefaultMaxStreams, "comparisons and live runs streaming at once, in total (-1: no bound)")
	perClient := fs.Int("max-streams-per-client", server.DefaultMaxStreamsPerClient, "streams at once from one client address (-1: no bound)")
	maxJobs := fs.Int("max-jobs", jobs.DefaultMaxActive, "background jobs queued or running at once, in total (-1: no bound)")
	jobsPerClient := fs.Int("max-jobs-per-client", jobs.DefaultMaxPerOwner, "jobs queued or running at once for one client address (-1: no bound)")
	noToken := fs.Bool("no-token", false, "serve an address other machines reach (--addr 0.0.0.0:8080) without --token: anyone who reaches it may change what it stores (it warns at start)")
	token := fs.String("token", "", "access token for a class server: changes (uploads, jobs, deletions) need it, viewing does not (default $ONTIME_TOKEN); hand out http://HOST/?token=TOKEN")
	hosts := fs.String("host", "", "comma-separated names the dashboard is reached by besides its IP addresses and localhost (a public or LAN name); requests for any other name are refused")
	uploadMemory := fs.Int("upload-memory", lab.DefaultWorkerMemoryMB, "memory limit in MB of the child process that reads one upload (0: read uploads in the server process)")
	readTimeout := fs.Duration("read-timeout", server.ReadTimeout, "time a request (other than an upload) has to arrive whole; slow senders are cut off")
	uploadTime := fs.Duration("upload-time", lab.DefaultWorkerTime, "time limit for reading and checking one upload")
	tileURL := fs.String("tiles", "", "map tile server for longitude/latitude networks, a template like https://tile.example.org/{z}/{x}/{y}.png (default $ONTIME_TILES; none: the network is drawn alone, offline)")
	tileCredit := fs.String("tiles-attribution", "", "the credit the tile server asks for, shown on the maps (default $ONTIME_TILES_ATTRIBUTION)")
	maxNetworks := fs.Int("max-networks", lab.DefaultQuota.Networks, "networks the state directory stores at most (-1: no bound)")
	maxModels := fs.Int("max-models", lab.DefaultQuota.Models, "uploaded models the state directory stores at most (-1: no bound)")
	maxPerClient := fs.Int("max-networks-per-client", lab.DefaultQuota.NetworksPerClient, "networks one client address may store at most (-1: no bound)")
	maxStoredMB := fs.Int64("max-stored-mb", lab.DefaultQuota.Bytes>>20, "megabytes of stored networks and models at most (-1: no bound)")
	warm := fs.Bool("warm", true, "solve DOT tables and build the default methods for the benchmark OD pairs in the background at start")
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	accessToken := orEnv(*token, getenv, "ONTIME_TOKEN")
	public := !loopback(*addr)
	if public && accessToken == "" && !*noToken {
		return engine.Errorf(engine.EINVALID, "--addr %s serves other machines, and without --token (or $ONTIME_TOKEN) anyone who reaches it may upload, start jobs and delete networks: give a token, or --no-token to serve them all the same", engine.Excerpt(*addr))
	}
	tiles := server.Tiles{URL: orEnv(*tileURL, getenv, "ONTIME_TILES"), Attribution: orEnv(*tileCredit, getenv, "ONTIME_TILES_ATTRIBUTION")}
	if _, err := tiles.Origin(); err != nil {
		return usageErr(err)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	var handler slog.Handler = slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})
	if *logJSON {
		handler = slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level})
	}
	log := slog.New(handler)
	cacheDir := ""
	if !*noCache {
		cacheDir = learnerCache(*cache, getenv)
	}
	// Uploads are read in a child process of this same binary: killed when
	// the uploader leaves or --upload-time passes, limited to
	// --upload-memory (docs/security.md).
	uploads := workerCommand(*uploadMemory, *uploadTime)
	l := newLab(getenv, *state, lab.Options{DataDir: orEnv(*data, getenv, "ONTIME_DATA"), ModelsDir: *models, CacheDir: cacheDir, Worker: uploads,
		Device: *device, ORTLib: getenv("ONTIME_ORT_LIB"), Version: version, Commit: buildCommit(), Logf: func(f string, a ...any) { log.Warn(fmt.Sprintf(f, a...)) },
		Concurrency: *jobsN, MaxJobs: *maxJobs, MaxJobsPerClient: *jobsPerClient,
		Quota: lab.Quota{Networks: *maxNetworks, Models: *maxModels, Bytes: megabytes(*maxStoredMB), NetworksPerClient: *maxPerClient},
		// The trainer runs at a lower priority: pages stay interactive on two cores.
		Trainer: train.Trainer{Python: *python, Script: orEnv(*trainer, getenv, train.ScriptEnv), Nice: 10}})
	defer l.Close()
	if err := l.StateError(); err != nil {
		log.Warn("state directory unusable: your networks and results cannot be stored", "err", err)
	} else {
		log.Info("state directory", "dir", stateDir(*state, getenv))
		n, err := l.ClaimState()
		if engine.ErrorCode(err) == engine.ECONFLICT {
			return err // another server runs this directory's jobs
		}
		if err != nil || n > 0 {
			log.Warn("jobs of the previous run marked interrupted (start them again from their pages)", "jobs", n, "err", err)
		}
		// The quota is the state directory's: the command line's saves
		// are held to it too.
		if err := l.KeepQuota(ctx); err != nil {
			log.Warn("the quota could not be kept in the state directory", "err", err)
		}
	}
	for _, n := range l.Networks() {
		if !n.Available {
			log.Warn("network unavailable", "network", n.Name, "reason", n.Reason)
		}
	}
	h := server.NewServer(server.Deps{Lab: l, Log: log, Version: version + " (" + buildCommit() + ")", Assets: assets.FS, StepDelay: *delay,
		MaxStreams: *maxStreams, MaxStreamsPerClient: *perClient, Token: accessToken,
		Hosts: hostList(*hosts), Tiles: tiles})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	// A request has ReadTimeout to arrive whole (uploads extend their own
	// deadline: server.UploadReadTime); an idle keep-alive connection is
	// closed after IdleTimeout. No write timeout: streams and big pages
	// end with their request's context instead.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: *readTimeout, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(stdout, "ontime dashboard on http://%s/ (Ctrl-C stops it)\n", ln.Addr())
	if public && accessToken == "" {
		log.Warn("serving other machines without an access token: anyone who reaches this address may upload, start jobs and delete networks (give --token or $ONTIME_TOKEN)", "addr", ln.Addr().String())
	}
	if *warm {
		go func() {
			t0 := time.Now()
			l.Warm(ctx, 1.2)
			log.Info("warmed up: tables solved for the benchmark OD pairs", "seconds", time.Since(t0).Seconds())
		}()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// hostList reads --host: lower-case names, never nil (an empty list still
// turns the host check on).
func hostList(s string) []string {
	out := []string{}
	for _, h := range strings.Split(s, ",") {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// megabytes is n MB in bytes; a negative n stays negative (no bound).
func megabytes(n int64) int64 {
	if n < 0 {
		return -1
	}
	return n << 20
}

// loopback says whether addr (HOST:PORT) listens on this machine only:
// localhost or a loopback address; an empty host, 0.0.0.0, :: or any
// other address serves other machines.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
