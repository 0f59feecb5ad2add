package topics

import (
	"path"
	"slices"
	"strings"

	"github.com/codex7/codex7/markdown"
)

// languages are ISO 639-1 codes that documentation sites use for their
// translations' folders (en/, zh-cn/, pt_BR/, tldr's pages.fr/...).
var languages = map[string]bool{}

func init() {
	for _, l := range strings.Fields(`af am ar as az be bg bn bo bs ca cs cy da de el en eo es et eu fa fi fil fr
		ga gl gu he hi hr hu hy id is it ja ka kk km kn ko ku ky lo lt lv mk ml mn mr ms my nb ne nl nn no
		or pa pl ps pt ro ru si sk sl sq sr sv sw ta te tg th tk tl tr ug uk ur uz vi yi zh`) {
		languages[l] = true
	}
}

// isLocale reports whether a folder name or slug names a language: "fr",
// "pt-br", "zh_TW", "pages.ko", "en-us".
func isLocale(seg string) bool {
	s := strings.ToLower(seg)
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.ReplaceAll(s, "_", "-")
	base, region, hasRegion := strings.Cut(s, "-")
	if !languages[base] {
		return false
	}
	if !hasRegion {
		return true
	}
	if len(region) < 2 || len(region) > 4 {
		return false
	}
	for _, r := range region {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// localeLevel reports whether first-level folder names are translations of
// one tree: at least two of them, and (nearly) all languages, where a name
// that prefixes a language folder counts too ("pages" beside "pages.fr").
func localeLevel(segs map[string]bool) bool {
	langs, total := 0, 0
	for s := range segs {
		total++
		if isLocale(s) {
			langs++
			continue
		}
		for o := range segs {
			if strings.HasPrefix(o, s+".") && isLocale(o) {
				langs++
				break
			}
		}
	}
	return langs >= 2 && langs*10 >= total*9
}

// Translations reports, for each of docs, whether it is a translation: in
// a locale (a language folder such as docs/ru/, or a file suffix such as
// install.zh-cn.md) other than the version's primary one (see
// primaryLocale), or kept in a language folder inside the original's tree
// (see mirrored). Pages without a locale are never translations (a README
// beside docs/en/).
func Translations(docs []*markdown.Document) []bool {
	_, locale := relativePaths(docs)
	primary := primaryLocale(locale)
	out := make([]bool, len(docs))
	for i, l := range locale {
		out[i] = l != "" && l != primary
	}
	mirrored(docs, out)
	return out
}

// mirrored marks the translations that sites keep inside the original's
// tree rather than beside it, which relativePaths cannot see as a level
// of language folders: VitePress's docs/zh/guide/x.md beside
// docs/guide/x.md, Docusaurus's
// i18n/fr/docusaurus-plugin-content-docs/current/x.md beside docs/x.md.
// Such a page is under a folder named for a language other than English,
// and its path below that folder (below the plugin, and the docs' version,
// for Docusaurus) ends the path of a page under no such folder. The mirror is
// what makes it a translation: a folder named "it" or "id" that mirrors
// nothing is left alone. An index page (index.md, README.md) mirrors some
// page in every tree, the root's README at least, so it counts only in a
// language folder that a page other than an index mirrors.
func mirrored(docs []*markdown.Document, out []bool) {
	tails := map[string]bool{} // every path, and its ends at folder boundaries, of the pages under no language folder
	type candidate struct {
		doc          int
		folder, rest string
	}
	var candidates []candidate
	for i, d := range docs {
		if out[i] {
			continue
		}
		segs := strings.Split(d.Path, "/")
		k := slices.IndexFunc(segs[:len(segs)-1], func(s string) bool { return isLocale(s) && !isEnglish(s) })
		if k < 0 {
			for j := range segs {
				tails[strings.Join(segs[j:], "/")] = true
			}
			continue
		}
		rest := segs[k+1:]
		switch {
		case len(rest) > 2 && strings.HasPrefix(rest[0], "docusaurus-plugin-content-docs"):
			rest = rest[2:] // the docs plugin and its version ("current", "version-1.0")
		case len(rest) > 1 && strings.HasPrefix(rest[0], "docusaurus-plugin-content-"):
			rest = rest[1:] // the blog's or pages' plugin
		}
		candidates = append(candidates, candidate{i, strings.Join(segs[:k+1], "/"), strings.Join(rest, "/")})
	}
	translated := map[string]bool{} // language folders a page other than an index mirrors
	for _, c := range candidates {
		if tails[c.rest] && !isIndex(path.Base(c.rest)) {
			translated[c.folder] = true
		}
	}
	for _, c := range candidates {
		if tails[c.rest] && translated[c.folder] {
			out[c.doc] = true
		}
	}
}

// isIndex reports whether a file name is a folder's index page, which
// every folder of a documentation tree may have: index, _index (Hugo) or
// README, in any case and format.
func isIndex(name string) bool {
	stem, _, _ := strings.Cut(strings.ToLower(name), ".")
	return stem == "index" || stem == "_index" || stem == "readme"
}

// isEnglish reports whether a locale is English: en, en-us, pages.en.
func isEnglish(l string) bool {
	base := strings.ToLower(l)
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		base = base[i+1:]
	}
	return base == "en" || strings.HasPrefix(base, "en-") || strings.HasPrefix(base, "en_")
}
