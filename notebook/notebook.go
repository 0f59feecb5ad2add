// Package notebook reads Jupyter notebooks (.ipynb, nbformat 4) into the
// same Document the markdown reader makes, so that a notebook's sections
// are indexed, ranked and cited like a markdown page's.
//
// A notebook is translated into markdown: markdown cells as they are, code
// cells as fenced blocks in the kernel's language, each followed by its
// small text outputs as ```text blocks (binary outputs, attachments and
// data: URIs are dropped, an output is cut to 40 lines and 4 KiB with a
// line saying how many lines were cut). markdown.Split then splits the
// result, so titles, heading paths and GitHub anchors follow the markdown
// reader's rules, and each Section.Line is set to the 1-based index of the
// notebook cell the section starts in (nbformat's cells array, and tools
// such as nbclient, count cells from 0: cell = Line-1).
//
// Twin names a notebook's text twin (jupytext's paired .md or .py, or
// keras-io's md/ and script copies), so that discovery can index the
// content once.
//
// Splitting is a pure function of a path and the file's bytes: no I/O, no
// global state, safe for concurrent use.
package notebook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"unicode/utf8"

	"github.com/codex7/codex7/markdown"
)

var (
	// ErrNotDocumentation is returned (wrapped), with a Document that has
	// no sections, for a notebook with no markdown text: a notebook that
	// is only code is a program, not documentation, and callers skip it.
	ErrNotDocumentation = errors.New("notebook has no markdown cell: not documentation")
	// ErrInvalidNotebook is returned (wrapped) for a file that is not a
	// JSON notebook object of nbformat 4 (nbformat 3 and older, with
	// worksheets, are not read); callers skip such files.
	ErrInvalidNotebook = errors.New("not a Jupyter notebook of nbformat 4")
)

// Split reads one Jupyter notebook (.ipynb) file of a repository into the
// same Document the markdown reader makes. repo is the repository's tree
// (fetch.Snapshot implements fs.FS; tests may pass fstest.MapFS or
// os.DirFS), for includes: notebooks have none, so it is not read and may
// be nil. path is the file's slash-separated repository path.
//
// Each Section.Line is the 1-based index of the notebook cell holding the
// section's heading (or its first line): cell i of nbformat's 0-based
// cells array gives Line i+1. The title is the first H1 (normally that of
// the first markdown cell), else the file's name.
//
// Errors, all wrapped: markdown.ErrInvalidUTF8 and ErrInvalidNotebook,
// with a nil Document; ErrNotDocumentation, with a Document that has no
// sections. The returned Document shares no memory with src.
func Split(path string, src []byte, repo fs.FS, opts markdown.Options) (*markdown.Document, error) {
	_ = repo // notebooks include nothing
	if !utf8.Valid(src) {
		return nil, fmt.Errorf("split notebook %s: %w", path, markdown.ErrInvalidUTF8)
	}
	nb, err := decode(src)
	if err != nil {
		return nil, fmt.Errorf("split notebook %s: %w", path, err)
	}
	r := render(nb)
	if !r.hasMarkdown {
		doc, err := markdown.Split(path, nil, opts)
		if err != nil {
			return nil, fmt.Errorf("split notebook %s: %w", path, err)
		}
		return doc, fmt.Errorf("split notebook %s: %w", path, ErrNotDocumentation)
	}
	doc, err := markdown.Split(path, r.text, opts)
	if err != nil {
		return nil, fmt.Errorf("split notebook %s: %w", path, err)
	}
	for i := range doc.Sections {
		doc.Sections[i].Line = r.cellLine(doc.Sections[i].Line)
	}
	return doc, nil
}

// cell is one notebook cell. Fields of an unexpected JSON type are read
// as empty, so that one odd cell does not sink the notebook.
type cell struct {
	Type     string
	Source   string
	Format   string // a raw cell's target format (metadata.format or raw_mimetype)
	Outputs  []output
	Language string // a code cell's own language from its metadata, if any
}

// output is one output of a code cell, reduced to what Split keeps: its
// type, a stream's name and its text (a stream's text, text/plain of a
// result or display, "ename: evalue" of an error).
type output struct {
	Type string
	Name string
	Text string
}

// decode parses a notebook. Only a JSON object whose nbformat is 4 (or
// absent, with a cells array) is accepted.
func decode(src []byte) ([]cell, error) {
	var raw struct {
		Format   int               `json:"nbformat"`
		Metadata json.RawMessage   `json:"metadata"`
		Cells    []json.RawMessage `json:"cells"`
	}
	if err := json.Unmarshal(src, &raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidNotebook, err)
	}
	if raw.Format != 4 && (raw.Format != 0 || raw.Cells == nil) {
		return nil, fmt.Errorf("%w: nbformat %d", ErrInvalidNotebook, raw.Format)
	}
	lang := kernelLanguage(raw.Metadata)
	cells := make([]cell, 0, len(raw.Cells))
	for _, rc := range raw.Cells {
		c := decodeCell(rc)
		if c.Type == "code" && c.Language == "" {
			c.Language = lang
		}
		cells = append(cells, c)
	}
	return cells, nil
}

// kernelLanguage returns the notebook's language: metadata.kernelspec.language,
// else metadata.language_info.name, else "python" (IPython's, the default
// kernel).
func kernelLanguage(metadata json.RawMessage) string {
	var meta struct {
		Kernelspec struct {
			Language any `json:"language"`
		} `json:"kernelspec"`
		LanguageInfo struct {
			Name any `json:"name"`
		} `json:"language_info"`
	}
	if len(metadata) > 0 && json.Unmarshal(metadata, &meta) == nil {
		if l := firstString(meta.Kernelspec.Language, meta.LanguageInfo.Name); l != "" {
			return l
		}
	}
	return "python"
}

// decodeCell reads one cell; a cell that is not a JSON object reads as a
// cell of no type, which render skips.
func decodeCell(b json.RawMessage) cell {
	var rc struct {
		Type     string            `json:"cell_type"`
		Source   multiline         `json:"source"`
		Outputs  []json.RawMessage `json:"outputs"`
		Metadata json.RawMessage   `json:"metadata"`
	}
	if json.Unmarshal(b, &rc) != nil {
		// A field of the wrong type: read the fields one by one.
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return cell{}
		}
		_ = json.Unmarshal(m["cell_type"], &rc.Type)
		_ = json.Unmarshal(m["source"], &rc.Source)
		_ = json.Unmarshal(m["outputs"], &rc.Outputs)
		rc.Metadata = m["metadata"]
	}
	c := cell{Type: rc.Type, Source: string(rc.Source)}
	var meta struct {
		Format      any `json:"format"`
		RawMimetype any `json:"raw_mimetype"`
		VSCode      struct {
			LanguageID any `json:"languageId"`
		} `json:"vscode"`
		DotnetInteractive struct {
			Language any `json:"language"`
		} `json:"dotnet_interactive"`
	}
	if len(rc.Metadata) > 0 && json.Unmarshal(rc.Metadata, &meta) == nil {
		c.Format = firstString(meta.Format, meta.RawMimetype)
		c.Language = firstString(meta.VSCode.LanguageID, meta.DotnetInteractive.Language)
	}
	for _, ro := range rc.Outputs {
		if o, ok := decodeOutput(ro); ok {
			c.Outputs = append(c.Outputs, o)
		}
	}
	return c
}

// firstString returns the first of vs that is a non-empty string.
func firstString(vs ...any) string {
	for _, v := range vs {
		if s, ok := v.(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// decodeOutput reads the text of one output, and reports false for an
// output with no text to keep (images and other binary or rich data).
func decodeOutput(b json.RawMessage) (output, bool) {
	var ro struct {
		Type   string               `json:"output_type"`
		Name   any                  `json:"name"`
		Text   multiline            `json:"text"`
		Data   map[string]multiline `json:"data"`
		Ename  any                  `json:"ename"`
		Evalue any                  `json:"evalue"`
	}
	if json.Unmarshal(b, &ro) != nil {
		return output{}, false
	}
	o := output{Type: ro.Type}
	switch ro.Type {
	case "stream":
		o.Name = firstString(ro.Name)
		o.Text = string(ro.Text)
	case "execute_result", "display_data":
		o.Text = string(ro.Data["text/plain"])
	case "error":
		name, value := firstString(ro.Ename), firstString(ro.Evalue)
		switch {
		case name != "" && value != "":
			o.Text = name + ": " + value
		default:
			o.Text = name + value
		}
	}
	return o, o.Text != ""
}

// multiline is nbformat's multiline string: a string, or a list of
// strings to be joined with "". Any other JSON value reads as "" (a
// mime bundle's JSON data, for instance).
type multiline string

// UnmarshalJSON implements json.Unmarshaler.
func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*m = multiline(s)
		return nil
	}
	var parts []any
	if json.Unmarshal(b, &parts) == nil {
		var out []byte
		for _, p := range parts {
			if s, ok := p.(string); ok {
				out = append(out, s...)
			}
		}
		*m = multiline(out)
		return nil
	}
	*m = ""
	return nil
}
