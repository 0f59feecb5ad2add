package notebook

import "testing"

func TestTwin(t *testing.T) {
	tests := []struct {
		name   string
		nb     string
		files  []string
		want   string
		wantOK bool
	}{
		{"md beside", "docs/intro.ipynb", []string{"docs/intro.md", "docs/intro.py"}, "docs/intro.md", true},
		{"py beside", "docs/intro.ipynb", []string{"docs/intro.py"}, "docs/intro.py", true},
		{"none", "docs/intro.ipynb", []string{"docs/other.md", "intro.md"}, "", false},
		{"top level", "intro.ipynb", []string{"intro.py"}, "intro.py", true},
		{"keras-io md", "guides/ipynb/functional_api.ipynb", []string{"guides/md/functional_api.md", "guides/functional_api.py"}, "guides/md/functional_api.md", true},
		{"keras-io nested md", "guides/ipynb/keras_cv/coco.ipynb", []string{"guides/keras_cv/coco.py", "guides/md/keras_cv/coco.md"}, "guides/md/keras_cv/coco.md", true},
		{"keras-io nested py", "guides/ipynb/keras_cv/coco.ipynb", []string{"guides/keras_cv/coco.py"}, "guides/keras_cv/coco.py", true},
		{"last ipynb folder", "ipynb/x/ipynb/a.ipynb", []string{"ipynb/x/md/a.md"}, "ipynb/x/md/a.md", true},
		{"keras-io py top", "guides/ipynb/coco.ipynb", []string{"guides/coco.py"}, "guides/coco.py", true},
		{"ipynb folder at root", "ipynb/a.ipynb", []string{"md/a.md"}, "md/a.md", true},
		{"same folder wins", "guides/ipynb/a.ipynb", []string{"guides/ipynb/a.py", "guides/md/a.md"}, "guides/ipynb/a.py", true},
		{"upper-case extension", "x/A.IPYNB", []string{"x/A.md"}, "x/A.md", true},
		{"not a notebook", "docs/intro.md", []string{"docs/intro.md", "docs/intro.py"}, "", false},
		{"no stem", "docs/.ipynb", []string{"docs/.md"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			exists := func(p string) bool {
				asked = append(asked, p)
				for _, f := range tt.files {
					if f == p {
						return true
					}
				}
				return false
			}
			got, ok := Twin(tt.nb, exists)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Twin(%q) = %q, %v, want %q, %v (asked %q)", tt.nb, got, ok, tt.want, tt.wantOK, asked)
			}
		})
	}
}
