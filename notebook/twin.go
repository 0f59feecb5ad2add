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
// notebook's folder; and, for a notebook under a folder named ipynb (the
// keras-io layout: guides/ipynb/keras_cv/x.ipynb has the twins
// guides/md/keras_cv/x.md and guides/keras_cv/x.py), the same path with
// that folder replaced by md, then with it removed. The first that exists
// is returned. Twin does no I/O of its own.
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
	// The keras-io layout: the last folder named ipynb stands for md in
	// the markdown twin's path, and for nothing in the script's.
	elems := strings.Split(strings.TrimSuffix(dir, "/"), "/")
	for k := len(elems) - 1; k >= 0; k-- {
		if elems[k] != "ipynb" {
			continue
		}
		before, after := path.Join(elems[:k]...), path.Join(elems[k+1:]...)
		candidates = append(candidates,
			path.Join(before, "md", after, stem+".md"),
			path.Join(before, after, stem+".py"))
		break
	}
	for _, c := range candidates {
		if exists(c) {
			return c, true
		}
	}
	return "", false
}
