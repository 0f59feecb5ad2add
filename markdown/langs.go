package markdown

import (
	"path"
	"strings"
)

// LangOfFile returns the fence language of a file included as code by the
// file's extension ("python" for a.py), or "" for an extension it does not
// know. Readers use it for includes that name no language (Sphinx's
// literalinclude, VitePress's code imports, mdBook's playground).
func LangOfFile(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".py", ".pyi":
		return "python"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "jsx"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "tsx"
	case ".vue":
		return "vue"
	case ".json":
		return "json"
	case ".yaml", ".yml":
		return "yaml"
	case ".toml":
		return "toml"
	case ".ini", ".cfg":
		return "ini"
	case ".sh", ".bash":
		return "bash"
	case ".html":
		return "html"
	case ".css":
		return "css"
	case ".sql":
		return "sql"
	case ".go":
		return "go"
	case ".rs":
		return "rust"
	case ".c", ".h":
		return "c"
	case ".cpp", ".cc", ".hpp":
		return "cpp"
	case ".cs":
		return "csharp"
	case ".java":
		return "java"
	case ".kt":
		return "kotlin"
	case ".rb":
		return "ruby"
	case ".php":
		return "php"
	case ".txt":
		return "text"
	case ".rst":
		return "rst"
	case ".md", ".mdx", ".markdown":
		return "markdown"
	case ".xml":
		return "xml"
	case ".jinja", ".j2":
		return "jinja"
	case ".bat":
		return "batch"
	case ".ps1":
		return "powershell"
	}
	return ""
}
