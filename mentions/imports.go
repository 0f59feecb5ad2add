package mentions

import (
	"regexp"
	"strings"
)

var (
	// Python, anchored at the start of a line or inline code span (after
	// an interpreter prompt), with the grammar of the whole statement, so
	// that prose ("go ahead and import data from the CSV") never matches.
	pyFromRe     = regexp.MustCompile(`^\s*(?:(?:>>>|\.\.\.)\s+)?from\s+(\.*[A-Za-z_][\w.]*|\.+)\s+import\s+(.*)$`)
	pyImportList = regexp.MustCompile(`^(?:\*|\(\s*|\(?\s*[A-Za-z_]\w*(?:\s+as\s+[A-Za-z_]\w*)?(?:\s*,\s*[A-Za-z_]\w*(?:\s+as\s+[A-Za-z_]\w*)?)*\s*,?\s*\)?)\s*(?:#.*)?;?\s*$`)
	pyImportRe   = regexp.MustCompile(`^\s*(?:(?:>>>|\.\.\.)\s+)?import\s+([A-Za-z_][\w.]*(?:\s+as\s+[A-Za-z_]\w*)?(?:\s*,\s*[A-Za-z_][\w.]*(?:\s+as\s+[A-Za-z_]\w*)?)*)\s*(?:#.*)?;?\s*$`)
	pyModuleRe   = regexp.MustCompile(`[A-Za-z_][\w.]*`)
	// pyFromInlineRe is "from x import Name" inside a sentence: a lower-case
	// module and a capitalized name or *, as code is written.
	pyFromInlineRe = regexp.MustCompile(`\bfrom\s+([a-z_][\w]*(?:\.\w+)*)\s+import\s+(?:[A-Z]\w*|\*)`)

	// JavaScript and TypeScript, anywhere: the quoted specifier is what
	// makes them code.
	jsImportRe  = regexp.MustCompile(`\bimport\s+(?:type\s+)?(?:[\w$*{}\s,]+?\s+from\s*)?["']([^"'\s]+)["']`)
	jsExportRe  = regexp.MustCompile(`\bexport\s+(?:type\s+)?(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from\s*["']([^"'\s]+)["']`)
	jsRequireRe = regexp.MustCompile(`\b(?:require|import)\s*\(\s*["']([^"'\s]+)["']\s*\)`)

	// Go, anywhere: a single import or an import block.
	goImportRe      = regexp.MustCompile(`\bimport\s+(?:[\w.]+\s+)?"([^"\s]+)"`)
	goImportBlockRe = regexp.MustCompile(`\bimport\s*\(([^()]*)\)`)
	goBlockPathRe   = regexp.MustCompile(`(?m)^\s*(?:[\w.]+\s+)?"([^"\s]+)"`)

	// Rust, at the start of a line: `use crate_name::…` anywhere, and
	// `use crate_name;` or `extern crate crate_name;` in code.
	rustUseRe    = regexp.MustCompile(`^\s*(?:pub(?:\([\w:\s]+\))?\s+)?use\s+(?:::)?([a-z_][a-z0-9_]*)::`)
	rustUseBare  = regexp.MustCompile(`^\s*(?:pub(?:\([\w:\s]+\))?\s+)?use\s+([a-z_][a-z0-9_]*)\s*;`)
	rustExternRe = regexp.MustCompile(`^\s*extern\s+crate\s+([a-z_][a-z0-9_]*)`)
)

// imports finds import and require statements.
func (s *scan) imports() {
	for _, seg := range s.segs {
		line := s.text[seg.start:seg.end]
		stmt := strings.TrimSpace(line)
		if m := pyFromRe.FindStringSubmatchIndex(line); m != nil && pyImportList.MatchString(line[m[4]:m[5]]) {
			s.addPython(line[m[2]:m[3]], seg.start+m[2], stmt)
		} else if m := pyImportRe.FindStringSubmatchIndex(line); m != nil {
			list := line[m[2]:m[3]]
			for _, n := range pyModuleRe.FindAllStringIndex(list, -1) {
				if mod := list[n[0]:n[1]]; mod != "as" && !strings.HasSuffix(" "+strings.TrimSpace(list[:n[0]]), " as") {
					s.addPython(mod, seg.start+m[2]+n[0], stmt)
				}
			}
		} else if !seg.code {
			for _, m := range pyFromInlineRe.FindAllStringSubmatchIndex(line, -1) {
				s.addPython(line[m[2]:m[3]], seg.start+m[2], line[m[0]:m[1]])
			}
		}
		for _, re := range []*regexp.Regexp{rustUseRe, rustUseBare, rustExternRe} {
			if re == rustUseBare && !seg.code {
				continue
			}
			if m := re.FindStringSubmatchIndex(line); m != nil {
				if name := line[m[2]:m[3]]; !rustStd[name] {
					s.addPackage(ecoCargo, name, Found{Kind: KindImport, Via: "rust", Text: stmt, Offset: seg.start + m[2]})
				}
				break
			}
		}
	}
	for _, re := range []*regexp.Regexp{jsImportRe, jsExportRe, jsRequireRe} {
		for _, m := range re.FindAllStringSubmatchIndex(s.text, -1) {
			if name := jsPackage(s.text[m[2]:m[3]]); name != "" {
				s.addPackage(ecoNPM, name, Found{Kind: KindImport, Via: "js", Text: s.text[m[0]:m[1]], Offset: m[2]})
			}
		}
	}
	for _, m := range goImportRe.FindAllStringSubmatchIndex(s.text, -1) {
		s.addGo(s.text[m[2]:m[3]], m[2], s.text[m[0]:m[1]])
	}
	for _, m := range goImportBlockRe.FindAllStringSubmatchIndex(s.text, -1) {
		body := s.text[m[2]:m[3]]
		for _, p := range goBlockPathRe.FindAllStringSubmatchIndex(body, -1) {
			s.addGo(body[p[2]:p[3]], m[2]+p[2], strings.TrimSpace(body[p[0]:p[1]]))
		}
	}
}

// addPython records a Python module: its top-level package, unless it is
// relative or in the standard library.
func (s *scan) addPython(module string, off int, stmt string) {
	if strings.HasPrefix(module, ".") {
		return
	}
	top, _, _ := strings.Cut(module, ".")
	s.addPackage(ecoPyImport, top, Found{Kind: KindImport, Via: "python", Text: stmt, Offset: off})
}

// addGo records a Go import path's module, unless it is in the standard
// library (no dot in its first element).
func (s *scan) addGo(path string, off int, stmt string) {
	first, _, _ := strings.Cut(path, "/")
	if !strings.Contains(first, ".") || !goModRe.MatchString(path) {
		return
	}
	s.addPackage(ecoGo, moduleRoot(path), Found{Kind: KindImport, Via: "go", Text: stmt, Offset: off})
}

// goHostRe matches the first element of a Go import path that is a host:
// "github.com", "golang.org", "go.uber.org" (not "chart.js", "bn.js").
var goHostRe = regexp.MustCompile(`^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|in|dev|cc|me|co|sh|app|tech|ai|cloud|xyz|page|site|us|uk|de|fr)$`)

// jsPackage returns the npm package a JavaScript import specifier names:
// "react-dom/client" → react-dom, "@tanstack/react-query/devtools" →
// @tanstack/react-query. Relative paths, path aliases ("@/lib", "~/x",
// "#internal"), URLs, "node:" and other schemes, and Go import paths
// give "".
func jsPackage(spec string) string {
	spec = strings.TrimPrefix(spec, "npm:")
	if spec == "" || strings.ContainsAny(spec[:1], "./~#") || strings.HasPrefix(spec, "@/") || strings.Contains(spec, ":") {
		return ""
	}
	segs := strings.Split(spec, "/")
	if len(segs) >= 2 && goHostRe.MatchString(segs[0]) {
		return "" // a Go import path: see addGo
	}
	name := segs[0]
	if strings.HasPrefix(name, "@") {
		if len(segs) < 2 {
			return ""
		}
		name += "/" + segs[1]
	}
	n, ok := npmName(name)
	if !ok {
		return ""
	}
	return n
}

var (
	nodeModulesRe  = regexp.MustCompile(`node_modules/((?:@[\w.-]+/)?[\w.-]+)`)
	sitePackagesRe = regexp.MustCompile(`(?:site|dist)-packages/([A-Za-z_]\w*)`)
	goModCacheRe   = regexp.MustCompile(`pkg/mod/([a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/[^@\s"']+)@`)
)

// traces finds paths into installed packages, as stack traces and error
// messages print them.
func (s *scan) traces() {
	for _, m := range nodeModulesRe.FindAllStringSubmatchIndex(s.text, -1) {
		if name, ok := npmName(s.text[m[2]:m[3]]); ok && !strings.HasPrefix(name, ".") {
			s.addPackage(ecoNPM, name, Found{Kind: KindTrace, Via: "node_modules", Text: s.text[m[0]:m[1]], Offset: m[2]})
		}
	}
	for _, m := range sitePackagesRe.FindAllStringSubmatchIndex(s.text, -1) {
		s.addPackage(ecoPyImport, s.text[m[2]:m[3]], Found{Kind: KindTrace, Via: "site-packages", Text: s.text[m[0]:m[1]], Offset: m[2]})
	}
	for _, m := range goModCacheRe.FindAllStringSubmatchIndex(s.text, -1) {
		if path := s.text[m[2]:m[3]]; goModRe.MatchString(path) {
			s.addPackage(ecoGo, moduleRoot(path), Found{Kind: KindTrace, Via: "pkg/mod", Text: s.text[m[0]:m[1]], Offset: m[2]})
		}
	}
}
