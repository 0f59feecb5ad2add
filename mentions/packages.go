package mentions

import (
	"regexp"
	"strings"
)

// Ecosystems a package name belongs to; they decide how it is parsed,
// which standard library filters it and how it is looked up.
const (
	ecoNPM      = "npm"
	ecoPyPI     = "pypi"
	ecoPyImport = "pyimport" // a Python import name ("sklearn"), not a distribution
	ecoGo       = "go"
	ecoCargo    = "cargo"
)

// Actions of a package-manager subcommand.
const (
	actAdd    = iota + 1 // every argument is a package
	actCreate            // the first argument is a starter kit: "npm create vite" is create-vite
	actRun               // the first argument is a package's binary: counted only when known
)

// manager describes a package-manager command.
type manager struct {
	eco        string
	subs       map[string]int  // subcommand → action; nil when the tool takes packages directly (npx)
	valueFlags map[string]bool // flags that take the next word as their value
}

var (
	npmValueFlags   = wordSet(`--registry --prefix --cache --loglevel --tag --workspace -w --omit --install-strategy --userconfig`)
	yarnValueFlags  = wordSet(`--registry --cwd --cache-folder --modules-folder --network-timeout`)
	pnpmValueFlags  = wordSet(`--registry --filter -F --dir -C --store-dir --reporter`)
	bunValueFlags   = wordSet(`--registry --cwd --cache-dir --backend --filter`)
	pipValueFlags   = wordSet(`-r --requirement -c --constraint -e --editable -i --index-url --extra-index-url -f --find-links -t --target --prefix --root --python-version --platform --implementation --abi --only-binary --no-binary --upgrade-strategy --src --python -p --group -G --source --extras -E --extra --index --rev --tag --branch --package --optional --markers --channel -n --name --with`)
	cargoValueFlags = wordSet(`-F --features -p --package --rename --registry --git --branch --tag --rev --path --target --manifest-path --root --profile --bin --example --version --vers --index -j --jobs --config`)
)

func subs(add, create, run string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.Fields(add) {
		m[w] = actAdd
	}
	for _, w := range strings.Fields(create) {
		m[w] = actCreate
	}
	for _, w := range strings.Fields(run) {
		m[w] = actRun
	}
	return m
}

// managers are the package-manager commands recognized, by the name
// toolRe captures (spaces collapsed).
var managers = map[string]manager{
	"npm":  {ecoNPM, subs("install i in ins inst insta instal isntall isnt add update up upgrade uninstall remove rm un r", "create init", "exec x"), npmValueFlags},
	"yarn": {ecoNPM, subs("add remove upgrade up", "create", "dlx"), yarnValueFlags},
	"pnpm": {ecoNPM, subs("add install i update up upgrade remove rm un uninstall", "create", "dlx exec"), pnpmValueFlags},
	"bun":  {ecoNPM, subs("add a install i remove rm update", "create", "x"), bunValueFlags},
	"npx":  {ecoNPM, nil, npmValueFlags},
	"bunx": {ecoNPM, nil, bunValueFlags},

	"pip":           {ecoPyPI, subs("install uninstall download", "", ""), pipValueFlags},
	"pip3":          {ecoPyPI, subs("install uninstall download", "", ""), pipValueFlags},
	"python -m pip": {ecoPyPI, subs("install uninstall download", "", ""), pipValueFlags},
	"uv pip":        {ecoPyPI, subs("install uninstall", "", ""), pipValueFlags},
	"uv tool":       {ecoPyPI, subs("install", "", "run"), pipValueFlags},
	"uv":            {ecoPyPI, subs("add remove", "", ""), pipValueFlags},
	"pipx":          {ecoPyPI, subs("install", "", "run"), pipValueFlags},
	"poetry":        {ecoPyPI, subs("add remove", "", ""), pipValueFlags},
	"pipenv":        {ecoPyPI, subs("install uninstall", "", ""), pipValueFlags},
	"conda":         {ecoPyPI, subs("install remove", "", ""), pipValueFlags},
	"mamba":         {ecoPyPI, subs("install remove", "", ""), pipValueFlags},

	"go":    {ecoGo, subs("get install", "", ""), nil},
	"cargo": {ecoCargo, subs("add install remove", "", ""), cargoValueFlags},
}

// toolRe finds a package-manager command: the tool after the start of a
// segment or a character that can precede a command.
var toolRe = regexp.MustCompile("(?:^|[\\s(`\"'$>;&|])((?:python3?|py)\\s+-m\\s+pip|uv\\s+pip|uv\\s+tool|npm|pnpm|yarn|bunx|bun|npx|pip3|pip|pipx|uv|poetry|pipenv|conda|mamba|go|cargo)[ \\t]+")

// installs finds package-manager commands. In a fenced block or an inline
// code span the arguments run to the end of the command; elsewhere they
// also end at punctuation and at the first word of prose ("run npm
// install react-query and then…", "npm install fails with EACCES").
func (s *scan) installs() {
	for _, seg := range s.segs {
		line := s.text[seg.start:seg.end]
		for _, m := range toolRe.FindAllStringSubmatchIndex(line, -1) {
			tool := strings.Join(strings.Fields(line[m[2]:m[3]]), " ")
			if tool == "py -m pip" || tool == "python3 -m pip" {
				tool = "python -m pip"
			}
			mg, ok := managers[tool]
			if !ok {
				continue
			}
			words := shellWords(line[m[1]:], seg.start+m[1], seg.code)
			s.command(tool, mg, words, seg.start+m[2], seg.code)
		}
	}
}

// word is one argument of a command.
type word struct {
	text     string
	off, end int
}

// shellWords splits the rest of a command line into words (quotes
// removed), up to a shell separator or, outside code, a word that ends a
// clause (one with trailing punctuation is the last).
func shellWords(s string, base int, code bool) []word {
	var out []word
	for i := 0; i < len(s) && len(out) < 32; {
		c := s[i]
		if c == ' ' || c == '\t' {
			i++
			continue
		}
		if strings.IndexByte(";|&`)\n#<", c) >= 0 {
			break
		}
		if c == '"' || c == '\'' {
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				break
			}
			out = append(out, word{s[i+1 : i+1+j], base + i + 1, base + i + 1 + j})
			i += j + 2
			continue
		}
		j := i
		for j < len(s) && strings.IndexByte(" \t;|&`)\n\"'<", s[j]) < 0 {
			j++
		}
		w := s[i:j]
		last := false
		if !code {
			if t := strings.TrimRight(w, ",.?!:"); t != w {
				w, last = t, true
			}
		}
		if w != "" {
			out = append(out, word{w, base + i, base + i + len(w)})
		}
		if last {
			break
		}
		i = j
	}
	return out
}

// command reads a package-manager command's words and records the
// packages it names.
// fenced says it is in a fenced block or an inline code span: only there
// do words of prose ("fails", "and") count as package names.
func (s *scan) command(via string, mg manager, words []word, start int, fenced bool) {
	i := 0
	skipFlags := func() {
		for i < len(words) && strings.HasPrefix(words[i].text, "-") {
			if mg.valueFlags[words[i].text] {
				i++
			}
			i++
		}
	}
	action := actRun
	if mg.subs != nil {
		skipFlags()
		if i < len(words) && words[i].text == "global" && via == "yarn" {
			i++
		}
		if i >= len(words) {
			return
		}
		action = mg.subs[words[i].text]
		if action == 0 {
			return
		}
		i++
	}
	switch strings.Fields(via)[0] {
	case "python":
		via = "pip"
	default:
		via = strings.Fields(via)[0]
	}
	type pkg struct {
		name string
		off  int
	}
	var found []pkg
	end := start
	for i < len(words) {
		w := words[i]
		if strings.HasPrefix(w.text, "-") {
			if mg.valueFlags[w.text] {
				i++
			}
			i++
			continue
		}
		i++
		if !fenced {
			lw := strings.ToLower(w.text)
			if proseStop[lw] {
				break
			}
			if skipInProse[lw] {
				continue
			}
		}
		name, ok := parsePackage(mg.eco, w.text)
		if !ok {
			if !fenced {
				break
			}
			continue
		}
		if action == actCreate || action == actRun {
			if mg.eco == ecoNPM && (action == actCreate || strings.HasPrefix(name, "create-")) {
				name = starterOf(name)
			} else if s.x.lookup(s.keysOf(mg.eco, name)...) < 0 {
				return // a binary of an unknown package: npx tsc, pipx run black
			}
			found = append(found, pkg{name, w.off})
			end = w.end
			break
		}
		found = append(found, pkg{name, w.off})
		end = w.end
	}
	text := s.text[start:end]
	for _, p := range found {
		s.addPackage(mg.eco, p.name, Found{Kind: KindInstall, Via: via, Text: text, Offset: p.off})
	}
}

// starterOf names the library of a starter kit: "create-vite" and "vite"
// are vite, "create-next-app" is next, "create-react-app" is react.
func starterOf(name string) string {
	if strings.HasPrefix(name, "@") {
		return name
	}
	name = strings.TrimPrefix(name, "create-")
	if n := strings.TrimSuffix(name, "-app"); n != "" {
		name = n
	}
	return name
}

var (
	npmNameRe   = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)
	pypiSpecRe  = regexp.MustCompile(`^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*(?:(?:===|==|>=|<=|~=|!=|<|>|=)\s*[^\s;]*(?:\s*,\s*(?:===|==|>=|<=|~=|!=|<|>)\s*[^\s;,]*)*)?\s*(?:;.*)?$`)
	pypiSepRe   = regexp.MustCompile(`[-_.]+`)
	goModRe     = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?:/[A-Za-z0-9._~+-]+)+$`)
	crateRe     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
	majorSuffix = regexp.MustCompile(`^v[0-9]+$`)
)

// parsePackage turns a command's argument into a package name of eco,
// without version, extras or specifiers; ok is false for what is not a
// package (a path, a URL, a requirements file).
func parsePackage(eco, w string) (string, bool) {
	switch eco {
	case ecoNPM:
		return npmName(w)
	case ecoPyPI:
		return pypiName(w)
	case ecoGo:
		if i := strings.IndexByte(w, '@'); i >= 0 {
			w = w[:i]
		}
		w = strings.TrimSuffix(w, "/...")
		if !goModRe.MatchString(w) {
			return "", false
		}
		return moduleRoot(w), true
	case ecoCargo:
		if i := strings.IndexByte(w, '@'); i >= 0 {
			w = w[:i]
		}
		if !crateRe.MatchString(w) {
			return "", false
		}
		return strings.ToLower(w), true
	}
	return "", false
}

// npmName parses "react@18", "@tanstack/react-query@^5", "npm:express".
func npmName(w string) (string, bool) {
	w = strings.ToLower(strings.TrimPrefix(w, "npm:"))
	for _, p := range []string{"git+", "git:", "github:", "gitlab:", "bitbucket:", "file:", "link:", "workspace:", "http:", "https:"} {
		if strings.HasPrefix(w, p) {
			return "", false
		}
	}
	if strings.HasPrefix(w, "@") {
		if i := strings.IndexByte(w[1:], '@'); i >= 0 {
			w = w[:i+1]
		}
	} else if i := strings.IndexByte(w, '@'); i > 0 {
		w = w[:i]
	}
	if len(w) > 214 || !npmNameRe.MatchString(w) {
		return "", false
	}
	return w, true
}

// pypiName parses `fastapi[all]>=0.100`, normalized as PEP 503 does.
func pypiName(w string) (string, bool) {
	if strings.Contains(w, "/") || strings.Contains(w, "://") || strings.HasSuffix(w, ".whl") || strings.HasSuffix(w, ".gz") || strings.HasSuffix(w, ".zip") {
		return "", false
	}
	if i := strings.IndexByte(w, '@'); i > 0 {
		w = w[:i] // poetry add "flask@^3.0"
	}
	m := pypiSpecRe.FindStringSubmatch(w)
	if m == nil {
		return "", false
	}
	return pypiSepRe.ReplaceAllString(strings.ToLower(m[1]), "-"), true
}

// forges are the hosts whose module paths are host/owner/repo.
var forges = wordSet(`github.com gitlab.com bitbucket.org codeberg.org gitee.com`)

// moduleRoot returns the module of a Go import path, without a major
// version suffix: "github.com/go-chi/chi/v5/middleware" → "github.com/go-chi/chi".
func moduleRoot(path string) string {
	segs := strings.Split(path, "/")
	n := 2
	switch {
	case forges[segs[0]], segs[0] == "golang.org":
		n = 3
	case segs[0] == "gopkg.in" && !strings.Contains(segs[1], ".v"):
		n = 3
	}
	if len(segs) < n {
		n = len(segs)
	}
	for n > 2 && majorSuffix.MatchString(segs[n-1]) {
		n--
	}
	return strings.Join(segs[:n], "/")
}

// ownerRepo returns "owner/repo" of a forge path ("github.com/owner/repo/…").
func ownerRepo(path string) string {
	segs := strings.Split(strings.ToLower(path), "/")
	if len(segs) < 3 || !forges[segs[0]] || segs[1] == "" || segs[2] == "" {
		return ""
	}
	return segs[1] + "/" + strings.TrimSuffix(segs[2], ".git")
}

// builtin reports whether name is part of eco's language or standard
// library (or its tooling).
func builtin(eco, name string) bool {
	switch eco {
	case ecoNPM:
		return nodeBuiltins[name] || strings.HasPrefix(name, "node:")
	case ecoPyPI, ecoPyImport:
		return pythonStdlib[strings.ReplaceAll(strings.ToLower(name), "-", "_")]
	case ecoCargo:
		return rustStd[name]
	}
	return false
}

// keysOf returns the index keys a package name of eco may be known by,
// most specific first.
func (s *scan) keysOf(eco, name string) []string {
	switch eco {
	case ecoNPM:
		keys := []string{name, compact(name)}
		if scope, pkg, ok := splitScope(name); ok {
			if !isAmbiguous(compact(pkg)) {
				keys = append(keys, pkg, compact(pkg))
			}
			keys = append(keys, scope, compact(scope))
		}
		return keys
	case ecoPyImport:
		mod := strings.ToLower(name)
		if dist := pythonDist[mod]; dist != "" {
			return []string{dist, compact(dist), mod, compact(mod)}
		}
		return []string{mod, compact(mod)}
	case ecoGo:
		keys := []string{strings.ToLower(name)}
		if or := ownerRepo(name); or != "" {
			keys = append(keys, "/"+or, or)
		}
		return keys
	default:
		n := strings.ToLower(name)
		return []string{n, compact(n), strings.ReplaceAll(n, "_", "-")}
	}
}

// splitScope splits "@scope/pkg".
func splitScope(name string) (scope, pkg string, ok bool) {
	if !strings.HasPrefix(name, "@") {
		return "", "", false
	}
	scope, pkg, ok = strings.Cut(name[1:], "/")
	return scope, pkg, ok && scope != "" && pkg != ""
}

// unscoped returns what identifies a package across spellings:
// "@tanstack/react-query" is react-query, but "@angular/core" stays
// whole ("core" says nothing).
func unscoped(name string) string {
	if _, pkg, ok := splitScope(name); ok && !isAmbiguous(compact(pkg)) {
		return pkg
	}
	return name
}

// addPackage records a package found by a statement (a command, an import,
// a manifest line): under its library when the index knows it, else
// under its own name; never a standard-library module.
func (s *scan) addPackage(eco, name string, f Found) {
	if eco == ecoNPM && strings.HasPrefix(name, "@types/") {
		name = typesTarget(name)
	}
	if name == "" || builtin(eco, name) {
		return
	}
	display := name
	switch eco {
	case ecoPyImport:
		if dist := pythonDist[strings.ToLower(name)]; dist != "" {
			display = dist
		} else {
			display = pypiSepRe.ReplaceAllString(strings.ToLower(name), "-")
		}
	case ecoCargo:
		display = strings.ReplaceAll(name, "_", "-")
	}
	s.add(s.x.lookup(s.keysOf(eco, name)...), display, weightStatement, f)
}

// typesTarget returns the package DefinitelyTyped types are for:
// "@types/react" → react, "@types/babel__core" → @babel/core.
func typesTarget(name string) string {
	t := strings.TrimPrefix(name, "@types/")
	if scope, pkg, ok := strings.Cut(t, "__"); ok {
		return "@" + scope + "/" + pkg
	}
	return t
}

// Manifests.
var (
	// pkgJSONDepsRe finds the dependency objects of a package.json.
	pkgJSONDepsRe = regexp.MustCompile(`"(?:dev|peer|optional|bundled)?[dD]ependencies"\s*:\s*\{([^{}]*)\}`)
	pkgJSONPairRe = regexp.MustCompile(`"([^"\s]+)"\s*:\s*"[^"]*"`)
	// goModRequireRe matches a go.mod require line.
	goModRequireRe = regexp.MustCompile(`^\s*(?:require\s+)?([a-z0-9][a-z0-9.-]*\.[a-z]{2,}(?:/[A-Za-z0-9._~+-]+)+)\s+v\d+\.\d+\.\d+\S*\s*(?://.*)?$`)
	// requirementRe matches a pinned requirements.txt line.
	requirementRe = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*(?:===|==|>=|<=|~=|!=|<|>)\s*[0-9][\w.*+!-]*(?:\s*,\s*(?:===|==|>=|<=|~=|!=|<|>)\s*[\w.*+!-]+)*\s*(?:;.*)?(?:#.*)?$`)
	// tomlHeaderRe and tomlDepRe read dependency tables of Cargo.toml and
	// pyproject.toml (Poetry).
	tomlHeaderRe = regexp.MustCompile(`^\s*\[([^\[\]]+)\]\s*$`)
	tomlDepRe    = regexp.MustCompile(`^\s*([A-Za-z0-9][\w.-]*)\s*=\s*(?:"[^"]*"|'[^']*'|\{[^}]*\}?)`)
)

// manifests finds dependencies in manifests pasted into the prompt:
// package.json dependency objects and go.mod require lines anywhere;
// requirements.txt lines and TOML dependency tables in code blocks.
func (s *scan) manifests() {
	for _, m := range pkgJSONDepsRe.FindAllStringSubmatchIndex(s.text, -1) {
		body := s.text[m[2]:m[3]]
		for _, p := range pkgJSONPairRe.FindAllStringSubmatchIndex(body, -1) {
			if name, ok := npmName(body[p[2]:p[3]]); ok {
				s.addPackage(ecoNPM, name, Found{Kind: KindManifest, Via: "package.json", Text: body[p[0]:p[1]], Offset: m[2] + p[2]})
			}
		}
	}
	table, tableFence := "", 0
	for _, seg := range s.segs {
		line := s.text[seg.start:seg.end]
		if m := goModRequireRe.FindStringSubmatchIndex(line); m != nil {
			s.addPackage(ecoGo, moduleRoot(line[m[2]:m[3]]), Found{Kind: KindManifest, Via: "go.mod", Text: strings.TrimSpace(line), Offset: seg.start + m[2]})
			continue
		}
		if seg.fence == 0 {
			continue
		}
		if seg.fence != tableFence {
			table, tableFence = "", seg.fence
		}
		if m := tomlHeaderRe.FindStringSubmatch(line); m != nil {
			table = strings.TrimSpace(m[1])
			continue
		}
		if strings.HasSuffix(table, "dependencies") {
			if m := tomlDepRe.FindStringSubmatchIndex(line); m != nil {
				eco, via := ecoCargo, "Cargo.toml"
				if strings.Contains(table, "poetry") || strings.HasPrefix(table, "project") {
					eco, via = ecoPyPI, "pyproject.toml"
				}
				name := line[m[2]:m[3]]
				if eco == ecoPyPI {
					name = pypiSepRe.ReplaceAllString(strings.ToLower(name), "-")
				}
				s.addPackage(eco, name, Found{Kind: KindManifest, Via: via, Text: strings.TrimSpace(line), Offset: seg.start + m[2]})
			}
			continue
		}
		if m := requirementRe.FindStringSubmatchIndex(line); m != nil {
			name, _ := pypiName(line[m[2]:m[3]])
			s.addPackage(ecoPyPI, name, Found{Kind: KindManifest, Via: "requirements.txt", Text: strings.TrimSpace(line), Offset: seg.start + m[2]})
		}
	}
}
