package notebook

import (
	"path"
	"strings"
)

// Twin names the text twin of a notebook, if the repository has one: the
// markdown page or Python script (jupytext's paired formats) that holds
// the same content, which discovery should index instead of, or besides,
// only once. notebookPath is slash-separated; exists reports whether a
// repository path is a file.
//
// The candidates, in order: the same stem with .md, then .py, in the
// notebook's folder; and, for a notebook in a folder named ipynb (the
// keras-io layout: guides/ipynb/x.ipynb, guides/md/x.md, guides/x.py),
// md/<stem>.md beside that folder, then <stem>.py in its parent. The first
// that exists is returned. Twin does no I/O of its own.
func Twin(notebookPath string, exists func(string) bool) (string, bool) {
	if !strings.EqualFold(path.Ext(notebookPath), ".ipynb") {
		return "", false
	}
	dir, file := path.Split(notebookPath)
	stem := strings.TrimSuffix(file, path.Ext(file))
	if stem == "" {
		return "", false
	}
	candidates := []string{dir + stem + ".md", dir + stem + ".py"}
	if d := strings.TrimSuffix(dir, "/"); path.Base(d) == "ipynb" {
		parent := path.Dir(d)
		candidates = append(candidates,
			path.Join(parent, "md", stem+".md"),
			path.Join(parent, stem+".py"))
	}
	for _, c := range candidates {
		if exists(c) {
			return c, true
		}
	}
	return "", false
}
