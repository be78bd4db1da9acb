// Package assets holds the front end as esbuild bundled it from web/src
// (committed, as templ's own examples commit theirs; `make test` checks it
// is current) and embeds it in the binary.
package assets

import (
	"embed"
	"io/fs"
)

//go:embed dist
var dist embed.FS

// FS is the bundle: app.js, app.css and what they reference.
var FS, _ = fs.Sub(dist, "dist")
