package server

import (
	"io/fs"
	"net/http"

	"github.com/ontime-routing/ontime/engine"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// routes lists every route of the dashboard.
func (s *server) routes(r chi.Router) {
	// No RealIP: it trusts X-Forwarded-For from anyone (spoofable). Changes
	// (POST) from another origin are refused: any web page could otherwise
	// start jobs or delete networks on a dashboard its visitor can reach.
	// Scripts and the CLI (no Origin, no Sec-Fetch-Site) may change things;
	// with a class token they need it (docs/security.md).
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, engine.Errorf(engine.EFORBIDDEN, "a change from another site's page is refused (Origin %q): use this dashboard's own pages, or a script without an Origin header", engine.Excerpt(r.Header.Get("Origin"))))
	}))
	r.Use(middleware.RequestID, s.logRequests, s.metrics.count, middleware.Recoverer, s.checkHost, s.securityHeaders, cop.Handler, s.requireToken, middleware.GetHead)
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	r.Get("/readyz", s.handleReady)
	r.Get("/metrics", s.handleMetrics)
	// The bundle is served compressed (gzip or deflate as the browser asks):
	// 124 KiB a page to save uncompressed.
	r.With(middleware.Compress(5, "text/css", "text/javascript", "application/javascript", "image/svg+xml")).
		Handle("/assets/*", http.StripPrefix("/assets/", assetHandler(s.Assets)))

	// Websocket streams: no compression or timeout middleware around them.
	r.Get("/ws/compare", s.handleCompareWS)
	r.Get("/ws/live", s.handleLiveWS)

	// A change that takes no upload reads a few kB of form fields and no
	// file part; the two upload routes bound theirs in receiveUpload.
	form := s.formBody(MaxFormBytes, "the form is over %d KB, the limit for a change that takes no file")
	r.Group(func(r chi.Router) {
		r.Use(middleware.Compress(5))
		r.Get("/", s.handleHome)
		// The networks' list is on the home page: /networks is a path people type.
		r.Get("/networks", http.RedirectHandler("/#networks", http.StatusFound).ServeHTTP)
		r.Get("/networks/add", s.handleAddNetworkForm)
		r.Get("/networks/draw", s.handleSketchPage)
		r.Post("/networks/add", s.handleAddNetworkPreview)
		r.With(form).Post("/networks/add/{token}", s.handleAddNetworkSave)
		r.Get("/networks/{name}", s.handleNetwork)
		r.Get("/networks/{name}/export", s.handleExportNetwork)
		r.Get("/networks/{name}/data", s.handleFitData)
		r.Get("/networks/{name}/data/{figure}.svg", s.handleFitFigure)
		r.Get("/networks/{name}/data/{table}.csv", s.handleFitCSV)
		r.With(form).Post("/networks/{name}/rename", s.handleRenameNetwork)
		r.With(form).Post("/networks/{name}/delete", s.handleDeleteNetwork)
		r.Get("/compare", s.handleCompare)
		r.Get("/live", s.handleLive)
		r.Get("/teach", s.handleLessons)
		r.Get("/teach/{lesson}", s.handleLesson)
		r.Get("/bench", s.handleBench)
		r.Get("/models", s.handleModels)
		r.Get("/about", s.handleAbout)
		r.Get("/plots/model/{file}", s.handleModelPlot)
		r.Get("/plots/job/{file}", s.handleJobPlot)
		r.Post("/models/upload", s.handleUploadModel)
		r.With(form).Post("/models/user/{net}/{name}/rename", s.handleRenameUserModel)
		r.With(form).Post("/models/user/{net}/{name}/delete", s.handleDeleteUserModel)
		r.Get("/models/user/{net}/{file}", s.handleDownloadUserModel)
		r.Get("/jobs", s.handleJobs)
		r.Get("/jobs/{id}", s.handleJobPage)

		r.Get("/api/openapi.json", s.handleOpenAPI)
		r.Get("/api/networks", s.handleNetworksJSON)
		r.Post("/api/networks", s.handleNetworkCreate)
		r.Get("/api/networks/{name}", s.handleNetworkJSON)
		r.With(form).Delete("/api/networks/{name}", s.handleNetworkDelete)
		r.Get("/api/compare", s.handleCompareJSON)
		r.Get("/api/networks/{name}/model", s.handleModelStatus)
		r.Get("/api/imports/{token}", s.handleImportJSON)
		r.Get("/api/teach", s.handleTeachJSON)
		r.Get("/api/story", s.handleStoryJSON)
		r.Get("/api/plan", s.handlePlanJSON)
		r.Get("/api/plan/routes", s.handlePlanRoutes)
		r.Get("/api/depart", s.handleDepartJSON)
		r.Get("/api/routes", s.handleRoutes)
		r.With(s.formBody(maxSketchBytes, "the sketch is over %d KB, the limit (upload a larger network as a file)")).Post("/api/sketch", s.handleSketchRun)
		r.Get("/api/lessons/adapt", s.handleLessonAdapt)
		r.Get("/api/lessons/learning", s.handleLessonLearning)
		r.Get("/api/lessons/data", s.handleLessonData)
		r.With(form).Post("/api/bench", s.handleBenchStart)
		r.Get("/api/bench/{file}", s.handleBenchJob)
		r.Get("/api/bench/published/{file}", s.handleBenchPublished)
		r.With(form).Post("/api/train", s.handleTrainStart)
		r.With(form).Post("/api/learners", s.handleLearnersStart)
		r.Get("/api/jobs/{id}", s.handleJobJSON)
		r.Get("/api/jobs/{id}/log", s.handleJobLog)
		r.With(form).Post("/api/jobs/{id}/cancel", s.handleJobCancel)
		r.With(form).Post("/api/jobs/{id}/restart", s.handleJobRestart)
		r.NotFound(s.handleNotFound)
	})
}

// securityHeaders keeps every page self-contained: nothing is loaded from
// another origin (but the tile server the user named, for map images), so
// the dashboard works offline and leaks nothing.
func (s *server) securityHeaders(next http.Handler) http.Handler {
	img := "'self' data: blob:"
	if s.tileOrigin != "" {
		img += " " + s.tileOrigin
	}
	csp := "default-src 'self'; img-src " + img + "; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

func assetHandler(assets fs.FS) http.Handler {
	if assets == nil {
		return http.NotFoundHandler()
	}
	fsrv := http.FileServerFS(assets)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache") // revalidate: the bundle changes with the binary
		fsrv.ServeHTTP(w, r)
	})
}
