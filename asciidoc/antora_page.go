package asciidoc

import "strings"

// NotPage says why the file at the slash path p, in an Antora component's
// layout (modules/NAME/...), is not a page Antora publishes, or "": its
// modules' partials and examples are included into pages, and nav files
// order them.
func NotPage(p string) string {
	segs := strings.Split(p, "/")
	for i := 0; i+2 < len(segs); i++ {
		if segs[i] != "modules" {
			continue
		}
		switch family := segs[i+2]; {
		case family == "partials" || family == "examples":
			return "an Antora " + strings.TrimSuffix(family, "s") + ", included into pages"
		case i+3 == len(segs) && strings.HasPrefix(strings.ToLower(family), "nav"):
			return "an Antora nav file"
		}
	}
	return ""
}
