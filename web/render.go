package web

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
)

// page is what every template gets: the title, whether a person signed in
// (to offer signing out), and the page's own data.
type page struct {
	Title    string
	SignedIn bool
	Data     any
}

// pageNames are the templates under templates/, each rendered inside
// base.html.
var pageNames = []string{"catalog", "library", "query", "document", "resolve", "login", "error"}

// parseTemplates parses each page with the layout. It panics on a
// template that does not parse: the binary itself would be broken, and
// TestTemplatesParse says so first.
func parseTemplates(a *assets) map[string]*template.Template {
	funcs := template.FuncMap{
		"asset": a.url,
		"short": shortCommit,
		"join":  strings.Join,
		"count": count,
		"num":   num,
	}
	out := map[string]*template.Template{}
	for _, name := range pageNames {
		t := template.New("base").Funcs(funcs)
		for _, f := range []string{"base", "partials", name} {
			src, err := fs.ReadFile(files, "templates/"+f+".html")
			if err != nil {
				panic(fmt.Sprintf("web: %v", err))
			}
			t = template.Must(t.New(f).Parse(string(src)))
		}
		out[name] = t
	}
	return out
}

// render writes the page name with data. The page is rendered into a
// buffer first, so that a template error gives a whole 500 page rather
// than half a page.
func (s *Site) render(w http.ResponseWriter, r *http.Request, status int, name, title string, data any) {
	g, _ := s.grant(r)
	var b bytes.Buffer
	if err := s.pages[name].ExecuteTemplate(&b, "base", page{Title: title, SignedIn: g != nil, Data: data}); err != nil {
		s.log.Error("web page not rendered", "page", name, "err", err)
		http.Error(w, "internal server error: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// Pages show what a token may see: no shared cache may keep them.
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// fail renders the error page.
func (s *Site) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.render(w, r, status, "error", http.StatusText(status), msg)
}

// count is n and the noun, plural unless n is 1: "1 section", "3 sections".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return num(n) + " " + noun + "s"
}

// num writes n with its thousands grouped by commas (1,399,763): token
// counts of large libraries run to millions.
func num(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// shortCommit is a commit's first 12 characters.
func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
