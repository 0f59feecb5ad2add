package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed static templates
var files embed.FS

// assets are the site's static files, each served under a name carrying a
// hash of its content ("site.3f2a9c1b.css"), so that a browser may keep it
// for a year and still never runs a stale script after an upgrade.
type assets struct {
	hashed map[string]string // "site.css" -> "site.3f2a9c1b.css"
	byName map[string][]byte // hashed name -> content
}

// loadAssets reads the embedded static files. It panics on an embedded
// file it cannot read: the binary itself would be broken.
func loadAssets() *assets {
	a := &assets{hashed: map[string]string{}, byName: map[string][]byte{}}
	entries, err := fs.ReadDir(files, "static")
	if err != nil {
		panic(fmt.Sprintf("web: embedded static files: %v", err))
	}
	for _, e := range entries {
		data, err := fs.ReadFile(files, "static/"+e.Name())
		if err != nil {
			panic(fmt.Sprintf("web: embedded static file %s: %v", e.Name(), err))
		}
		sum := sha256.Sum256(data)
		ext := path.Ext(e.Name())
		name := strings.TrimSuffix(e.Name(), ext) + "." + hex.EncodeToString(sum[:6]) + ext
		a.hashed[e.Name()] = name
		a.byName[name] = data
	}
	return a
}

// url is the path of the static file name under its hashed name.
func (a *assets) url(name string) (string, error) {
	h, ok := a.hashed[name]
	if !ok {
		return "", fmt.Errorf("no static file %q", name)
	}
	return "/-/static/" + h, nil
}

// serve answers GET /-/static/{name}: an immutable file cached for a year,
// or 404 for a name (or an old hash) it does not have.
func (a *assets) serve(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	data, ok := a.byName[name]
	if !ok {
		http.Error(w, "no such file: the page that linked it is older than this server; reload it", http.StatusNotFound)
		return
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Header().Set("ETag", `"`+strings.TrimSuffix(name, path.Ext(name))+`"`)
	if r.Header.Get("If-None-Match") == w.Header().Get("ETag") {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(data)
}
