package topics

import (
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
// primaryLocale). Pages without a locale are never translations (a README
// beside docs/en/).
func Translations(docs []*markdown.Document) []bool {
	_, locale := relativePaths(docs)
	primary := primaryLocale(locale)
	out := make([]bool, len(docs))
	for i, l := range locale {
		out[i] = l != "" && l != primary
	}
	return out
}

// isEnglish reports whether a locale is English: en, en-us, pages.en.
func isEnglish(l string) bool {
	base := strings.ToLower(l)
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		base = base[i+1:]
	}
	return base == "en" || strings.HasPrefix(base, "en-") || strings.HasPrefix(base, "en_")
}
