package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/codex7/codex7/internal/registrytest"
)

// actionPath is the composite GitHub Action at the repository root.
const actionPath = "../../action.yml"

// action is the part of an action.yml the tests read; unknown keys are
// refused so that a misspelt key (enviroment:) fails here, not on a runner.
type action struct {
	Name        string                  `yaml:"name"`
	Description string                  `yaml:"description"`
	Author      string                  `yaml:"author"`
	Branding    map[string]string       `yaml:"branding"`
	Inputs      map[string]actionInput  `yaml:"inputs"`
	Outputs     map[string]actionOutput `yaml:"outputs"`
	Runs        struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionInput struct {
	Description string `yaml:"description"`
	Default     string `yaml:"default"`
	Required    bool   `yaml:"required"`
}

type actionOutput struct {
	Description string `yaml:"description"`
	Value       string `yaml:"value"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	With  map[string]any    `yaml:"with"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
}

func loadAction(t *testing.T) *action {
	t.Helper()
	data, err := os.ReadFile(actionPath)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var a action
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("%s: %v", actionPath, err)
	}
	return &a
}

var (
	// inputRef finds the inputs an expression or script names.
	inputRef = regexp.MustCompile(`inputs\.([A-Za-z0-9_-]+)`)
	// expression finds ${{ … }} expressions.
	expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
	// digestRE is a manifest digest as push prints it.
	digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

// TestActionDefinition checks action.yml without running it: every input
// a step or output uses is declared and every declared input is used, no
// run: script has an expression pasted into it (script injection), every
// script is bash with set -euo pipefail, the install steps are skipped for
// a preinstalled indexer, and the outputs come from the push step.
func TestActionDefinition(t *testing.T) {
	a := loadAction(t)
	if a.Name != "Codex7 docs" || a.Runs.Using != "composite" {
		t.Errorf("name %q, runs.using %q; want \"Codex7 docs\", composite", a.Name, a.Runs.Using)
	}
	used := map[string]bool{}
	for _, o := range a.Outputs {
		for _, m := range inputRef.FindAllStringSubmatch(o.Value, -1) {
			used[m[1]] = true
		}
	}
	ids := map[string]bool{}
	for i, s := range a.Runs.Steps {
		name := fmt.Sprintf("step %d (%s)", i, s.Name)
		var texts []string
		texts = append(texts, s.If, s.Run)
		for _, v := range s.Env {
			texts = append(texts, v)
		}
		for _, v := range s.With {
			texts = append(texts, fmt.Sprint(v))
		}
		for _, text := range texts {
			for _, m := range inputRef.FindAllStringSubmatch(text, -1) {
				used[m[1]] = true
			}
		}
		if s.ID != "" {
			ids[s.ID] = true
		}
		switch {
		case s.Uses != "" && s.Run != "":
			t.Errorf("%s has both uses: and run:", name)
		case s.Uses != "":
			if !strings.Contains(s.If, "inputs.version != 'preinstalled'") {
				t.Errorf("%s (uses %s) runs even for a preinstalled indexer: if: %q", name, s.Uses, s.If)
			}
		case s.Run == "":
			t.Errorf("%s has neither uses: nor run:", name)
		default:
			if strings.Contains(s.Run, "${{") {
				t.Errorf("%s pastes an expression into its script (script injection): read it through env: instead\n%s", name, s.Run)
			}
			if s.Shell != "bash" {
				t.Errorf("%s: shell %q, want bash", name, s.Shell)
			}
			if first, _, _ := strings.Cut(strings.TrimSpace(s.Run), "\n"); first != "set -euo pipefail" {
				t.Errorf("%s starts with %q, want set -euo pipefail", name, first)
			}
			if s.ID == "install" {
				if !strings.Contains(s.If, "inputs.version != 'preinstalled'") {
					t.Errorf("the install step runs even for a preinstalled indexer: if: %q", s.If)
				}
				if !strings.Contains(s.Run, "go install \"github.com/codex7/codex7/cmd/indexer@${VERSION}\"") {
					t.Errorf("the install step does not go install the indexer at $VERSION:\n%s", s.Run)
				}
			} else if s.If != "" {
				// The emulator in runAction does not evaluate expressions;
				// conditions live in the scripts, where they are tested.
				t.Errorf("%s has if: %q; put the condition in its script", name, s.If)
			}
		}
	}
	for name := range used {
		if _, ok := a.Inputs[name]; !ok {
			t.Errorf("input %q is used but not declared", name)
		}
	}
	for name := range a.Inputs {
		if !used[name] {
			t.Errorf("input %q is declared but no step uses it", name)
		}
	}
	wantDefaults := map[string]string{"config": "codex7.yaml", "artifacts": "dist", "reference": "", "tags": "", "registry-username": "",
		"registry-password": "", "version": "latest", "incremental": "true", "git-token": ""}
	for name, def := range wantDefaults {
		if in, ok := a.Inputs[name]; !ok || in.Default != def || in.Required || in.Description == "" {
			t.Errorf("input %s: %+v (declared %v); want default %q, optional, described", name, in, ok, def)
		}
	}
	if len(a.Inputs) != len(wantDefaults) {
		t.Errorf("%d inputs, want %d", len(a.Inputs), len(wantDefaults))
	}
	if !ids["install"] || !ids["push"] {
		t.Errorf("step ids %v; want install and push", ids)
	}
	for _, name := range []string{"digest", "pinned"} {
		if got, want := a.Outputs[name].Value, "${{ steps.push.outputs."+name+" }}"; got != want {
			t.Errorf("output %s = %q, want %q", name, got, want)
		}
	}
}

// actionRun is the outcome of runAction.
type actionRun struct {
	// Ran names the steps that ran, in order; the last one failed when
	// Failed is set.
	Ran    []string
	Failed bool
	// Log is every step's stdout and stderr, as the runner shows it.
	Log string
	// Commands are the indexer subcommands the steps ran, in order.
	Commands []string
	// Outputs are the action's outputs.
	Outputs map[string]string
}

// runAction runs action.yml's run: steps with bash the way a runner does
// for a composite action: each step's env: with ${{ inputs.NAME }}
// resolved from inputs (else the input's default) and ${{ github.workspace
// }} from workspace, a fresh $GITHUB_OUTPUT per step, $GITHUB_PATH applied
// to later steps, bash --noprofile --norc -eo pipefail, the workspace as
// working directory, a failed step ending the run. uses: steps (setup-go)
// and the install step are skipped: version must be "preinstalled", and
// bin, when not "", is put on PATH as indexer, behind a shim that records
// the subcommands.
func runAction(t *testing.T, a *action, bin, workspace string, inputs map[string]string) actionRun {
	t.Helper()
	if inputs["version"] != "preinstalled" {
		t.Fatal("runAction needs version: preinstalled; it cannot go install")
	}
	values := map[string]string{}
	for name, in := range a.Inputs {
		values[name] = in.Default
	}
	for name, v := range inputs {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("the test gives input %q, which action.yml does not declare", name)
		}
		values[name] = v
	}
	runner := t.TempDir()
	commands := filepath.Join(runner, "commands")
	pathDirs := []string{}
	if bin != "" {
		shimDir := filepath.Join(runner, "bin")
		shim := fmt.Sprintf("#!/bin/sh\necho \"$1\" >> '%s'\nexec '%s' \"$@\"\n", commands, bin)
		if err := os.MkdirAll(shimDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shimDir, "indexer"), []byte(shim), 0o755); err != nil {
			t.Fatal(err)
		}
		pathDirs = append(pathDirs, shimDir)
	}
	pathDirs = append(pathDirs, os.Getenv("PATH"))
	var base []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "PATH" || name == "DOCKER_CONFIG" || strings.HasPrefix(name, "CODEX7_") || strings.HasPrefix(name, "GITHUB_") || strings.HasPrefix(name, "RUNNER_") {
			continue
		}
		base = append(base, kv)
	}
	base = append(base, "CI=true", "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE="+workspace,
		"RUNNER_TEMP="+t.TempDir(), "DOCKER_CONFIG="+t.TempDir())

	resolve := func(s string, steps map[string]map[string]string) string {
		return expression.ReplaceAllStringFunc(s, func(e string) string {
			expr := expression.FindStringSubmatch(e)[1]
			switch parts := strings.Split(expr, "."); {
			case len(parts) == 2 && parts[0] == "inputs":
				return values[parts[1]]
			case expr == "github.workspace":
				return workspace
			case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
				return steps[parts[1]][parts[3]]
			}
			t.Fatalf("the emulator cannot evaluate ${{ %s }}", expr)
			return ""
		})
	}

	var run actionRun
	var log strings.Builder
	stepOutputs := map[string]map[string]string{}
	githubPath := filepath.Join(runner, "github_path")
	for i, s := range a.Runs.Steps {
		if s.Uses != "" || s.ID == "install" {
			continue
		}
		script := filepath.Join(runner, fmt.Sprintf("step%d.sh", i))
		output := filepath.Join(runner, fmt.Sprintf("step%d.out", i))
		for _, f := range []string{script, output} {
			body := ""
			if f == script {
				body = s.Run
			}
			if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		added, _ := os.ReadFile(githubPath)
		path := slices.Concat(slices.DeleteFunc(strings.Split(string(added), "\n"), func(s string) bool { return s == "" }), pathDirs)
		env := append(slices.Clone(base), "PATH="+strings.Join(path, string(os.PathListSeparator)),
			"GITHUB_OUTPUT="+output, "GITHUB_PATH="+githubPath)
		for name, v := range s.Env {
			env = append(env, name+"="+resolve(v, stepOutputs))
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = workspace
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = &log, &log
		fmt.Fprintf(&log, "##[step] %s\n", s.Name)
		run.Ran = append(run.Ran, s.Name)
		err := cmd.Run()
		if s.ID != "" {
			stepOutputs[s.ID] = readOutputFile(t, output)
		}
		if err != nil {
			fmt.Fprintf(&log, "##[error] %s: %v\n", s.Name, err)
			run.Failed = true
			break
		}
	}
	run.Log = log.String()
	if data, err := os.ReadFile(commands); err == nil {
		run.Commands = strings.Fields(string(data))
	}
	run.Outputs = map[string]string{}
	for name, o := range a.Outputs {
		run.Outputs[name] = resolve(o.Value, stepOutputs)
	}
	return run
}

// readOutputFile parses a $GITHUB_OUTPUT file: name=value lines and
// name<<DELIMITER heredocs.
func readOutputFile(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var body []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				body = append(body, lines[i])
			}
			if i == len(lines) {
				t.Fatalf("%s: heredoc %s never ends", path, delim)
			}
			out[name] = strings.Join(body, "\n")
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: line %q is neither name=value nor name<<DELIMITER", path, line)
		}
		out[name] = value
	}
	return out
}

// actionWorkspace makes a runner's workspace: a fresh directory holding
// the config as codex7.yaml, with no dist yet, as after actions/checkout.
func actionWorkspace(t *testing.T, cfg string) string {
	t.Helper()
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "codex7.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

func needBash(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found: the action's steps are bash scripts")
	}
}

// TestActionRegistry runs the action's steps as a runner would against a
// registry with basic auth: a first run with nothing pushed yet, a second
// run after a new edition that pulls the first and pushes only what
// changed, and failures that must fail the step without showing the
// password.
func TestActionRegistry(t *testing.T) {
	needBash(t)
	a := loadAction(t)
	bin := testBinary(t)
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthBasic})
	site := newEditions(t, bin, "/acme/site", "/acme/other")
	repo := "oci://" + reg.Host + "/codex7/docs"
	creds := []string{"CODEX7_REGISTRY_USERNAME=" + reg.Username, "CODEX7_REGISTRY_PASSWORD=" + reg.Password, "DOCKER_CONFIG=" + t.TempDir()}
	inputs := func(more ...string) map[string]string {
		in := map[string]string{"version": "preinstalled", "reference": repo + ":latest",
			"registry-username": reg.Username, "registry-password": reg.Password}
		for i := 0; i < len(more); i += 2 {
			in[more[i]] = more[i+1]
		}
		return in
	}
	// digestOf pulls ref into a fresh directory and returns the digest
	// the pull names.
	digestOf := func(t *testing.T, ref string) string {
		t.Helper()
		code, out, errOut := cli(t, bin, creds, "pull", ref, "--artifacts", filepath.Join(t.TempDir(), "dist"))
		if code != 0 {
			t.Fatalf("pull %s: exit %d\n%s%s", ref, code, out, errOut)
		}
		for line := range strings.Lines(out) {
			if d, ok := strings.CutPrefix(strings.TrimSpace(line), "digest "); ok {
				return d
			}
		}
		t.Fatalf("pull %s printed no digest:\n%s", ref, out)
		return ""
	}

	var first string
	t.Run("first run", func(t *testing.T) {
		ws := actionWorkspace(t, site.cfg)
		run := runAction(t, a, bin, ws, inputs("tags", " run-1\n  release-1 "))
		if run.Failed {
			t.Fatalf("the action failed in %s:\n%s", run.Ran[len(run.Ran)-1], run.Log)
		}
		if want := []string{"version", "pull", "build", "verify", "push"}; !slices.Equal(run.Commands, want) {
			t.Errorf("indexer commands %v, want %v\n%s", run.Commands, want, run.Log)
		}
		for _, want := range []string{"no such artifact", "first run, building from scratch", "built 2, up to date 0",
			"2 versions pushed, 0 already there", "tagged " + repo + ":run-1", "tagged " + repo + ":release-1"} {
			if !strings.Contains(run.Log, want) {
				t.Errorf("the log lacks %q:\n%s", want, run.Log)
			}
		}
		first = run.Outputs["digest"]
		if !digestRE.MatchString(first) {
			t.Fatalf("output digest %q, want sha256:…\n%s", first, run.Log)
		}
		if got, want := run.Outputs["pinned"], repo+"@"+first; got != want {
			t.Errorf("output pinned %q, want %q", got, want)
		}
		dst := filepath.Join(t.TempDir(), "dist")
		code, out, errOut := cli(t, bin, creds, "pull", run.Outputs["pinned"], "--artifacts", dst)
		if code != 0 || !strings.Contains(out, "2 versions pulled") {
			t.Fatalf("pull of the pinned output: exit %d\n%s%s", code, out, errOut)
		}
		if code, out, _ := cli(t, bin, nil, "verify", dst); code != 0 {
			t.Errorf("verify after pulling the pinned output: exit %d\n%s", code, out)
		}
		if got := digestOf(t, repo+":release-1"); got != first {
			t.Errorf("release-1 names %s, want %s", got, first)
		}
	})
	if first == "" {
		t.FailNow()
	}

	t.Run("second run", func(t *testing.T) {
		// Only /acme/site has a new edition; a fresh workspace, as on a
		// new runner, so /acme/other can only come from the pull.
		delete(site.libs, "/acme/other")
		site.edition(2)
		ws := actionWorkspace(t, site.cfg)
		run := runAction(t, a, bin, ws, inputs("tags", "run-2"))
		if run.Failed {
			t.Fatalf("the action failed in %s:\n%s", run.Ran[len(run.Ran)-1], run.Log)
		}
		for _, want := range []string{"2 versions pulled, 0 unchanged", "built 1, up to date 1", "pushed         /acme/site@main",
			"already there  /acme/other@main", "1 versions pushed, 1 already there"} {
			if !strings.Contains(run.Log, want) {
				t.Errorf("the log lacks %q:\n%s", want, run.Log)
			}
		}
		second := run.Outputs["digest"]
		if !digestRE.MatchString(second) || second == first {
			t.Errorf("output digest %q after a new edition; want a new sha256:… (first run: %s)", second, first)
		}
		if got := digestOf(t, repo+":latest"); got != second {
			t.Errorf("latest names %s, want the second run's %s", got, second)
		}
		if got := digestOf(t, repo+":release-1"); got != first {
			t.Errorf("release-1 names %s after the second run, want still %s", got, first)
		}
	})

	t.Run("failures", func(t *testing.T) {
		const wrong = "hunter2-wrong"
		for _, c := range []struct {
			name     string
			inputs   map[string]string
			step     string   // the step that fails
			commands []string // the indexer commands run
			want     string   // in the log
		}{
			{"wrong password", inputs("registry-password", wrong), "Pull the previous artifacts", []string{"version", "pull"}, "CODEX7_REGISTRY_PASSWORD"},
			{"wrong password, not incremental", inputs("registry-password", wrong, "incremental", "false"), "Push",
				[]string{"version", "build", "verify", "push"}, "refused the credentials"},
			{"registry down", inputs("reference", "oci://127.0.0.1:1/codex7/docs:latest"), "Pull the previous artifacts", []string{"version", "pull"}, "registry unreachable"},
			{"bad reference", inputs("reference", "ghcr.io/acme/docs"), "Pull the previous artifacts", []string{"version", "pull"}, "must start with oci://"},
			{"incremental neither true nor false", inputs("incremental", "yes"), "Pull the previous artifacts", []string{"version"}, "incremental must be"},
		} {
			t.Run(c.name, func(t *testing.T) {
				run := runAction(t, a, bin, actionWorkspace(t, site.cfg), c.inputs)
				if !run.Failed || run.Ran[len(run.Ran)-1] != c.step {
					t.Errorf("ran %v (failed %v), want a failure in %s\n%s", run.Ran, run.Failed, c.step, run.Log)
				}
				if !slices.Equal(run.Commands, c.commands) {
					t.Errorf("indexer commands %v, want %v", run.Commands, c.commands)
				}
				if !strings.Contains(run.Log, c.want) {
					t.Errorf("the log lacks %q:\n%s", c.want, run.Log)
				}
				if strings.Contains(run.Log, wrong) || strings.Contains(run.Log, reg.Password) {
					t.Errorf("the log shows a password:\n%s", run.Log)
				}
				if run.Outputs["digest"] != "" || run.Outputs["pinned"] != "" {
					t.Errorf("outputs %v after a failure, want none", run.Outputs)
				}
			})
		}
	})
}

// TestActionBuildOnly runs the action without a reference: it builds and
// verifies, speaks to no registry and sets no outputs. Hostile input
// values stay data, and a missing preinstalled indexer is named.
func TestActionBuildOnly(t *testing.T) {
	needBash(t)
	a := loadAction(t)
	bin := testBinary(t)
	site := newEditions(t, bin, "/acme/site")

	t.Run("no reference", func(t *testing.T) {
		ws := actionWorkspace(t, site.cfg)
		run := runAction(t, a, bin, ws, map[string]string{"version": "preinstalled", "artifacts": "out/docs", "git-token": "unused-token"})
		if run.Failed {
			t.Fatalf("the action failed in %s:\n%s", run.Ran[len(run.Ran)-1], run.Log)
		}
		if want := []string{"version", "build", "verify"}; !slices.Equal(run.Commands, want) {
			t.Errorf("indexer commands %v, want %v\n%s", run.Commands, want, run.Log)
		}
		for _, want := range []string{"no reference: nothing to pull", "built 1, up to date 0", "no reference: built and verified, nothing pushed"} {
			if !strings.Contains(run.Log, want) {
				t.Errorf("the log lacks %q:\n%s", want, run.Log)
			}
		}
		if run.Outputs["digest"] != "" || run.Outputs["pinned"] != "" {
			t.Errorf("outputs %v without a reference, want none", run.Outputs)
		}
		if code, out, _ := cli(t, bin, nil, "verify", filepath.Join(ws, "out", "docs")); code != 0 {
			t.Errorf("verify of the workspace's artifacts: exit %d\n%s", code, out)
		}
	})

	t.Run("hostile config input", func(t *testing.T) {
		ws := actionWorkspace(t, site.cfg)
		run := runAction(t, a, bin, ws, map[string]string{"version": "preinstalled", "config": `codex7.yaml"; touch PWNED; echo "$(touch PWNED2)`})
		if !run.Failed || run.Ran[len(run.Ran)-1] != "Build" {
			t.Errorf("ran %v (failed %v), want a failure in Build\n%s", run.Ran, run.Failed, run.Log)
		}
		for _, f := range []string{"PWNED", "PWNED2"} {
			if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
				t.Errorf("the config input ran as code: %s was created", f)
			}
		}
	})

	t.Run("preinstalled but missing", func(t *testing.T) {
		if p, err := exec.LookPath("indexer"); err == nil {
			t.Skipf("an indexer is on this machine's PATH (%s)", p)
		}
		run := runAction(t, a, "", actionWorkspace(t, site.cfg), map[string]string{"version": "preinstalled"})
		if !run.Failed || run.Ran[len(run.Ran)-1] != "Check indexer" || !strings.Contains(run.Log, "no indexer on PATH") {
			t.Errorf("ran %v (failed %v), want Check indexer to fail naming the missing indexer\n%s", run.Ran, run.Failed, run.Log)
		}
	})
}

// gitlabJob is the part of deploy/ci/gitlab-ci.yml's job the test runs.
type gitlabJob struct {
	Variables map[string]string `yaml:"variables"`
	Script    []string          `yaml:"script"`
}

// TestActionGitLabScript runs the script of the example GitLab CI job the
// way a runner's bash shell does (one script, set -eo pipefail, variables
// expanded against the predefined ones), with the indexer on PATH instead
// of its go install line: a first run with nothing pushed, a second run
// pulling the first, and a wrong password failing the job.
func TestActionGitLabScript(t *testing.T) {
	needBash(t)
	data, err := os.ReadFile("../../deploy/ci/gitlab-ci.yml")
	if err != nil {
		t.Fatal(err)
	}
	var jobs map[string]gitlabJob
	if err := yaml.Unmarshal(data, &jobs); err != nil {
		t.Fatal(err)
	}
	job, ok := jobs["codex7-docs"]
	if !ok {
		t.Fatal("deploy/ci/gitlab-ci.yml has no job codex7-docs")
	}
	var script []string
	for _, line := range job.Script {
		if strings.Contains(line, "go install \"github.com/codex7/codex7/cmd/indexer@${INDEXER_VERSION}\"") {
			continue
		}
		script = append(script, line)
	}
	if len(script) != len(job.Script)-1 {
		t.Fatalf("the job does not go install the indexer at $INDEXER_VERSION once:\n%s", strings.Join(job.Script, "\n"))
	}
	for _, want := range []string{"CODEX7_REGISTRY_USERNAME", "CODEX7_REGISTRY_PASSWORD", "REF"} {
		if _, ok := job.Variables[want]; !ok {
			t.Errorf("the job does not set %s", want)
		}
	}

	bin := testBinary(t)
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthBasic})
	site := newEditions(t, bin, "/acme/site")
	image := reg.Host + "/group/project"
	run := func(t *testing.T, password string) (string, string, error) {
		t.Helper()
		predefined := map[string]string{"CI_REGISTRY_IMAGE": image, "CI_REGISTRY_USER": reg.Username,
			"CI_REGISTRY_PASSWORD": password, "CI_PIPELINE_IID": "7"}
		env := []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
			"HOME=" + t.TempDir(), "DOCKER_CONFIG=" + t.TempDir(), "CI=true", "GITLAB_CI=true"}
		for name, v := range predefined {
			env = append(env, name+"="+v)
		}
		for name, v := range job.Variables {
			env = append(env, name+"="+os.Expand(v, func(n string) string { return predefined[n] }))
		}
		ws := actionWorkspace(t, site.cfg)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-c", "set -eo pipefail\n"+strings.Join(script, "\n"))
		cmd.Dir, cmd.Env = ws, env
		out, err := cmd.CombinedOutput()
		env2, _ := os.ReadFile(filepath.Join(ws, "codex7.env"))
		return string(out), string(env2), err
	}

	out, dotenv, err := run(t, reg.Password)
	if err != nil || !strings.Contains(out, "first run, building from scratch") || !strings.Contains(out, "tagged oci://"+image+"/docs:pipeline-7") {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	pinned := regexp.MustCompile(`^CODEX7_PINNED=oci://` + regexp.QuoteMeta(image) + `/docs@sha256:[0-9a-f]{64}\n$`)
	if !pinned.MatchString(dotenv) {
		t.Errorf("codex7.env = %q, want CODEX7_PINNED=oci://%s/docs@sha256:…", dotenv, image)
	}
	site.edition(2)
	out, _, err = run(t, reg.Password)
	if err != nil || !strings.Contains(out, "1 versions pulled") || !strings.Contains(out, "1 versions pushed, 0 already there") {
		t.Errorf("second run: %v\n%s", err, out)
	}
	out, _, err = run(t, "hunter2-wrong")
	if err == nil || !strings.Contains(out, "refused the credentials") || strings.Contains(out, "building codex7.yaml") {
		t.Errorf("wrong password: %v, want the job to fail at the pull\n%s", err, out)
	}
	if strings.Contains(out, "hunter2-wrong") || strings.Contains(out, reg.Password) {
		t.Errorf("the job's log shows a password:\n%s", out)
	}
}

// TestActionExamples checks the example workflows in deploy/ci against
// action.yml: every with: key of a codex7/codex7 step is an input, and no
// run: script has an expression pasted into it.
func TestActionExamples(t *testing.T) {
	a := loadAction(t)
	for _, name := range []string{"github-central.yml", "github-library.yml"} {
		data, err := os.ReadFile(filepath.Join("../../deploy/ci", name))
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []actionStep `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		uses := 0
		for job, j := range wf.Jobs {
			for i, s := range j.Steps {
				if strings.HasPrefix(s.Uses, "codex7/codex7@") {
					uses++
					for key := range s.With {
						if _, ok := a.Inputs[key]; !ok {
							t.Errorf("%s: job %s step %d gives with: %s, which action.yml does not declare", name, job, i, key)
						}
					}
				}
				if strings.Contains(s.Run, "${{") {
					t.Errorf("%s: job %s step %d pastes an expression into its script:\n%s", name, job, i, s.Run)
				}
			}
		}
		if uses == 0 {
			t.Errorf("%s uses no codex7/codex7 action", name)
		}
	}
}
