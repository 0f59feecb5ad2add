package web

import (
	"io/fs"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestContrast reads the stylesheet's colours, light and dark, and checks
// WCAG 2's contrast ratios: 4.5:1 for text on every background it is
// shown on, 3:1 for the focus ring.
func TestContrast(t *testing.T) {
	css, err := fs.ReadFile(files, "static/site.css")
	if err != nil {
		t.Fatal(err)
	}
	src := string(css)
	dark := strings.Index(src, "@media (prefers-color-scheme: dark)")
	if dark < 0 {
		t.Fatal("no dark scheme in the stylesheet")
	}
	for scheme, block := range map[string]string{"light": src[:dark], "dark": src[dark:]} {
		vars := map[string]string{}
		for _, m := range regexp.MustCompile(`--([a-z-]+):\s*(#[0-9a-fA-F]{6})`).FindAllStringSubmatch(block[:strings.Index(block, "}")+1], -1) {
			vars[m[1]] = m[2]
		}
		for _, c := range []struct {
			fg, bg string
			min    float64
		}{
			{"fg", "bg", 4.5}, {"fg", "card", 4.5}, {"fg", "note-bg", 4.5}, {"fg", "code-bg", 4.5},
			{"muted", "bg", 4.5}, {"muted", "card", 4.5},
			{"link", "bg", 4.5}, {"link", "card", 4.5}, {"link", "code-bg", 4.5},
			{"error", "bg", 4.5},
			{"bg", "accent", 4.5}, // button labels
			{"focus", "bg", 3}, {"focus", "card", 3},
		} {
			fg, bg := vars[c.fg], vars[c.bg]
			if fg == "" || bg == "" {
				t.Errorf("%s: --%s or --%s not set", scheme, c.fg, c.bg)
				continue
			}
			if r := contrast(fg, bg); r < c.min {
				t.Errorf("%s: --%s %s on --%s %s has contrast %.2f, want at least %.1f", scheme, c.fg, fg, c.bg, bg, r, c.min)
			}
		}
	}
}

// contrast is WCAG 2's contrast ratio of two #rrggbb colours.
func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

func luminance(hex string) float64 {
	var ch [3]float64
	for i := range ch {
		v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		c := float64(v) / 255
		if c <= 0.03928 {
			ch[i] = c / 12.92
		} else {
			ch[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*ch[0] + 0.7152*ch[1] + 0.0722*ch[2]
}
