// Package config reads and validates codex7.yaml, the list of libraries to
// index, and the context7.json files that repositories may carry.
//
// Loading is strict: unknown keys, duplicate or malformed ids, bad globs and
// missing repos are errors that name the file, the line, the field and the fix.
// Secrets never live here: private repositories get their credentials from the
// environment at fetch time.
package config

// Config is a whole codex7.yaml.
type Config struct {
	// Libraries are in file order.
	Libraries []Library `yaml:"libraries"`
	// Allow says which repositories a build may fetch.
	Allow Allow `yaml:"allow,omitempty"`
	// File is the path the config was read from (not a YAML key).
	File string `yaml:"-"`
	// Dir is the directory relative repo paths are resolved against (not a YAML key).
	Dir string `yaml:"-"`

	// lines maps field paths such as "libraries[2].id" to their line in File,
	// for error messages; nil for a Config built in code.
	lines map[string]int
}

// Allow is the allow: mapping: which repositories a build may fetch. The
// build checks every repo: against it, in Validate and again before
// contacting the repository.
type Allow struct {
	// Transports are the transports repo: addresses may use: https, http,
	// ssh (also git@host:path), git, and file (local paths and file://
	// URLs). Empty means https and file: plain-text http and git, and ssh
	// (which signs in with the SSH agent's keys), must be listed to be used.
	Transports []string `yaml:"transports,omitempty"`
	// LocalRoots are directories local repositories may lie in, besides the
	// config file's own directory (which always may); relative ones are
	// resolved against the config file's directory.
	LocalRoots []string `yaml:"local_roots,omitempty"`
}

// Library is one entry of libraries:.
type Library struct {
	// ID is /org/project: letters, digits, '.', '_' and '-', unique
	// (case-insensitively) within the file.
	ID          string `yaml:"id"`
	Title       string `yaml:"title,omitempty"`
	Description string `yaml:"description,omitempty"`
	// Aliases are other names agents may use for the library (e.g. "nextjs").
	Aliases []string `yaml:"aliases,omitempty"`
	// Repo is any git URL, a local path (relative to the config file's
	// directory) or a file:// URL.
	Repo string `yaml:"repo"`
	// Versions are git refs; each becomes an artifact. Empty means the repo's
	// default branch plus what its context7.json lists.
	Versions []Version `yaml:"versions,omitempty"`
	// Latest names the version agents get when they ask for none. Empty means
	// the highest semver tag, else the first version.
	Latest string `yaml:"latest,omitempty"`
	// Docs are include globs (doublestar syntax, relative to the repo root).
	// Empty means every markdown file (or context7.json's folders). Parse
	// turns backslashes written as Windows separators into slashes, here
	// and in Exclude and topics' Paths (see slashGlob): in a glob without
	// a slash every backslash is a separator, so escape a metacharacter
	// there with a class ("[*].md") instead.
	Docs []string `yaml:"docs,omitempty"`
	// Exclude are globs removed from Docs, added to the built-in defaults.
	Exclude []string `yaml:"exclude,omitempty"`
	// Formats lists the documentation formats read (markdown, and the
	// others package formats knows); empty reads every one. A format left
	// out is not discovered at all.
	Formats []string `yaml:"formats,omitempty"`
	// Topics overrides or extends the generated topic tree.
	Topics []TopicOverride `yaml:"topics,omitempty"`
	// TokenEnv names the environment variable holding an HTTPS token for
	// this repo; default CODEX7_GIT_TOKEN. The token itself never goes in YAML.
	TokenEnv string `yaml:"token_env,omitempty"`
	// Line is the line of the entry in File, for error messages (not a YAML key).
	Line int `yaml:"-"`
}

// Version is one git ref to index.
type Version struct {
	// Ref is a branch or tag name (or a full refs/... name).
	Ref string `yaml:"ref"`
	// Name is the version's name in artifacts and ids; default: the ref with
	// refs/heads/ or refs/tags/ removed and every character other than
	// letters, digits, '.', '_' and '-' replaced by '-'.
	Name string `yaml:"name,omitempty"`
}

// TopicOverride adds a topic to the generated tree, or replaces the generated
// topic of the same name.
type TopicOverride struct {
	// Name is the topic's display name; its slug is its identity.
	Name string `yaml:"name"`
	// Category is the category the topic is listed under; default "guides".
	Category string `yaml:"category,omitempty"`
	// Paths are doublestar globs of documents whose sections the topic covers.
	Paths []string `yaml:"paths,omitempty"`
	// Headings are words or phrases; a section whose heading path contains one
	// (case-insensitively) is covered.
	Headings []string `yaml:"headings,omitempty"`
}

// Context7 is the subset of a repository's context7.json that Codex7 honours
// where codex7.yaml is silent.
type Context7 struct {
	ProjectTitle     string            `json:"projectTitle,omitempty"`
	Branch           string            `json:"branch,omitempty"`
	Description      string            `json:"description,omitempty"`
	Folders          []string          `json:"folders,omitempty"`
	ExcludeFolders   []string          `json:"excludeFolders,omitempty"`
	ExcludeFiles     []string          `json:"excludeFiles,omitempty"`
	PreviousVersions []Context7Version `json:"previousVersions,omitempty"`
	BranchVersions   []Context7Branch  `json:"branchVersions,omitempty"`
}

// Context7Version is a tagged older version listed in context7.json.
type Context7Version struct {
	Tag   string `json:"tag"`
	Title string `json:"title,omitempty"`
}

// Context7Branch is a branch version listed in context7.json.
type Context7Branch struct {
	Branch string `json:"branch"`
	Title  string `json:"title,omitempty"`
}
