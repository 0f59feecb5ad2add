package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/codex7/codex7/access"
)

// deployDir holds the Kubernetes manifests, relative to this package.
const deployDir = "../../deploy/kubernetes"

// wantObjects are the objects deploy/kubernetes/base applies, by kind and
// name, with the API version each must use.
var wantObjects = []struct{ kind, apiVersion, name string }{
	{"ConfigMap", "v1", "codex7"},
	{"Deployment", "apps/v1", "codex7"},
	{"HorizontalPodAutoscaler", "autoscaling/v2", "codex7"},
	{"PodDisruptionBudget", "policy/v1", "codex7"},
	{"Service", "v1", "codex7"},
}

// TestKubernetesManifests checks deploy/kubernetes against the real code:
// the kustomizations list what exists, the Deployment passes only real
// flags of indexer serve with values they accept, its probes hit real
// routes of the real handler, ports, volumes, the Secret and the
// ConfigMap agree with the args, and the HPA and PDB select the
// Deployment. With kubectl or kustomize on the PATH it also renders the
// base and the example overlay and checks what they render.
func TestKubernetesManifests(t *testing.T) {
	flags, help := serveHelpFlags(t)
	docs := readManifestDir(t, deployDir)
	base := readKustomization(t, filepath.Join(deployDir, "base"))
	overlay := readKustomization(t, filepath.Join(deployDir, "overlays", "example"))

	// The Secret is made by hand, from the example.
	secret := docs["base/secret.example.yaml"]
	if len(secret) != 1 || secret[0].Kind != "Secret" || secret[0].APIVersion != "v1" {
		t.Fatalf("base/secret.example.yaml: want one v1 Secret, got %s", describeDocs(secret))
	}
	if slices.Contains(base.Resources, "secret.example.yaml") {
		t.Errorf("base/kustomization.yaml lists secret.example.yaml: its placeholders would overwrite the real Secret on every apply")
	}
	example := checkSecretExample(t, secret[0])

	// Every manifest of the base is listed, and what is listed exists.
	objects := map[string]*k8sDoc{}
	listed := map[string]bool{"base/kustomization.yaml": true, "base/secret.example.yaml": true}
	for _, r := range base.Resources {
		rel := path.Join("base", r)
		listed[rel] = true
		ds, ok := docs[rel]
		if !ok {
			t.Errorf("base/kustomization.yaml lists %s, which is not a YAML file under deploy/kubernetes/base", r)
			continue
		}
		for _, d := range ds {
			key := d.Kind + "/" + d.Metadata.Name
			if prev, dup := objects[key]; dup {
				t.Errorf("%s: %s also defined at %s", d.src, key, prev.src)
			}
			objects[key] = d
		}
	}
	for rel := range docs {
		if strings.HasPrefix(rel, "base/") && !listed[rel] {
			t.Errorf("deploy/kubernetes/%s is not listed in base/kustomization.yaml resources: kubectl apply -k would skip it", rel)
		}
	}
	checkObjectSet(t, "base/kustomization.yaml", objects)

	// The overlay builds on the base and names what is in it; its other
	// files are patches it uses.
	checkOverlay(t, overlay, objects)
	for rel := range docs {
		dir, file := path.Split(rel)
		if strings.HasPrefix(rel, "overlays/") && file != "kustomization.yaml" &&
			!(dir == "overlays/example/" && slices.ContainsFunc(overlay.Patches, func(p k8sPatch) bool { return p.Path == file })) {
			t.Errorf("deploy/kubernetes/%s is used by no kustomization", rel)
		}
	}

	probes := newProbeHandlers(t, example.policy)
	t.Run("base", func(t *testing.T) {
		checkDeployObjects(t, objects, flags, help, example, probes)
	})

	// What kustomize renders passes the same checks.
	render := kustomizeRenderer(t)
	if render == nil {
		t.Log("neither kubectl nor kustomize on PATH: not rendering the kustomizations")
		return
	}
	for _, dir := range []string{"base", "overlays/example"} {
		t.Run("kustomize "+dir, func(t *testing.T) {
			out := render(t, filepath.Join(deployDir, filepath.FromSlash(dir)))
			rendered := map[string]*k8sDoc{}
			for _, d := range parseYAMLDocs(t, "kustomize "+dir, out) {
				rendered[d.Kind+"/"+d.Metadata.Name] = d
			}
			checkObjectSet(t, "kustomize "+dir, rendered)
			checkDeployObjects(t, rendered, flags, help, example, probes)
			if dir != "overlays/example" {
				return
			}
			dep := decodeDoc[k8sDeployment](t, rendered["Deployment/codex7"])
			if c := dep.container("indexer"); c != nil {
				for _, img := range overlay.Images {
					if want := img.Name + ":" + img.NewTag; img.NewTag != "" && c.Image != want {
						t.Errorf("overlay image: rendered %q, want %q from overlays/example/kustomization.yaml", c.Image, want)
					}
				}
			}
			for _, r := range overlay.Replicas {
				if dep.Spec.Replicas == nil || *dep.Spec.Replicas != r.Count {
					t.Errorf("overlay replicas: rendered %v, want %d from overlays/example/kustomization.yaml", orZero(dep.Spec.Replicas), r.Count)
				}
			}
		})
	}
}

// serveHelpFlags runs `indexer serve --help` and returns its flags by name,
// each with the type --help prints ("string", "int", "duration", "value";
// "" for a bool), and the whole help text.
func serveHelpFlags(t *testing.T) (map[string]string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"serve", "--help"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("indexer serve --help: exit %d: %s", code, stderr.String())
	}
	help := stdout.String()
	_, list, ok := strings.Cut(help, "\nFlags:\n")
	if !ok {
		t.Fatalf("indexer serve --help has no Flags: section:\n%s", help)
	}
	// The flag package prints "  -name type", then the usage on the next
	// line, or "  -x\tusage" for a one-letter bool.
	line := regexp.MustCompile(`^  -([A-Za-z0-9][A-Za-z0-9_.-]*)(?: ([a-z0-9]+))?(?:\t.*)?$`)
	flags := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(list))
	for sc.Scan() {
		if m := line.FindStringSubmatch(sc.Text()); m != nil {
			flags[m[1]] = m[2]
		}
	}
	for _, name := range []string{"http", "artifacts", "cache-dir", "auth"} {
		if _, ok := flags[name]; !ok {
			t.Fatalf("parsing indexer serve --help found no -%s flag; found %v", name, flags)
		}
	}
	return flags, help
}

// k8sDoc is one YAML document of a manifest.
type k8sDoc struct {
	APIVersion string        `yaml:"apiVersion"`
	Kind       string        `yaml:"kind"`
	Metadata   k8sObjectMeta `yaml:"metadata"`

	src  string     // file:line, for messages
	node *yaml.Node // the whole document
}

type k8sObjectMeta struct {
	Name        string            `yaml:"name"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// readManifestDir parses every YAML file under dir, by path relative to
// dir with slashes, each into its documents. kustomization.yaml files are
// parsed but have no documents here (readKustomization reads them).
func readManifestDir(t *testing.T, dir string) map[string][]*k8sDoc {
	t.Helper()
	docs := map[string][]*k8sDoc{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || (path.Ext(p) != ".yaml" && path.Ext(p) != ".yml") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if path.Base(rel) == "kustomization.yaml" {
			docs[rel] = nil
			return nil
		}
		docs[rel] = parseYAMLDocs(t, rel, data)
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	return docs
}

// parseYAMLDocs splits data into its YAML documents and reads each one's
// kind and name; name is the source for messages.
func parseYAMLDocs(t *testing.T, name string, data []byte) []*k8sDoc {
	t.Helper()
	var docs []*k8sDoc
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: not YAML: %v", name, err)
		}
		if len(n.Content) == 0 || n.Content[0].Tag == "!!null" {
			continue // an empty document, as after a trailing ---
		}
		d := &k8sDoc{src: name + ":" + strconv.Itoa(n.Line), node: &n}
		if err := n.Decode(d); err != nil {
			t.Fatalf("%s: %v", d.src, err)
		}
		if d.APIVersion == "" || d.Kind == "" || d.Metadata.Name == "" {
			t.Errorf("%s: a document without apiVersion, kind or metadata.name", d.src)
		}
		docs = append(docs, d)
	}
	return docs
}

func describeDocs(docs []*k8sDoc) string {
	var s []string
	for _, d := range docs {
		s = append(s, d.APIVersion+" "+d.Kind+" "+d.Metadata.Name)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// decodeDoc decodes the document d into a T; nil d gives a zero T.
func decodeDoc[T any](t *testing.T, d *k8sDoc) *T {
	t.Helper()
	v := new(T)
	if d == nil {
		return v
	}
	if err := d.node.Decode(v); err != nil {
		t.Fatalf("%s: %s %s: %v", d.src, d.Kind, d.Metadata.Name, err)
	}
	return v
}

// k8sKustomization is the part of a kustomization.yaml the test reads.
type k8sKustomization struct {
	APIVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Resources  []string `yaml:"resources"`
	Images     []struct {
		Name    string `yaml:"name"`
		NewName string `yaml:"newName"`
		NewTag  string `yaml:"newTag"`
		Digest  string `yaml:"digest"`
	} `yaml:"images"`
	Replicas []struct {
		Name  string `yaml:"name"`
		Count int    `yaml:"count"`
	} `yaml:"replicas"`
	Patches []k8sPatch `yaml:"patches"`

	dir string
}

type k8sPatch struct {
	Path   string `yaml:"path"`
	Patch  string `yaml:"patch"`
	Target *struct {
		Kind string `yaml:"kind"`
		Name string `yaml:"name"`
	} `yaml:"target"`
}

// readKustomization reads dir/kustomization.yaml and checks that every
// resource and patch file it names exists.
func readKustomization(t *testing.T, dir string) *k8sKustomization {
	t.Helper()
	file := filepath.Join(dir, "kustomization.yaml")
	name := strings.TrimPrefix(filepath.ToSlash(file), "../../")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read %v", err)
	}
	k := &k8sKustomization{dir: dir}
	if err := yaml.Unmarshal(data, k); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		t.Errorf("%s: apiVersion %q, kind %q; want kustomize.config.k8s.io/v1beta1 Kustomization", name, k.APIVersion, k.Kind)
	}
	if len(k.Resources) == 0 {
		t.Errorf("%s: no resources", name)
	}
	for _, r := range k.Resources {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(r)))
		switch {
		case err != nil:
			t.Errorf("%s: resource %s does not exist", name, r)
		case fi.IsDir():
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(r), "kustomization.yaml")); err != nil {
				t.Errorf("%s: resource %s is a directory without kustomization.yaml", name, r)
			}
		}
	}
	for _, p := range k.Patches {
		if p.Path != "" {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p.Path))); err != nil {
				t.Errorf("%s: patch %s does not exist", name, p.Path)
			}
		}
		if p.Path == "" && p.Patch == "" {
			t.Errorf("%s: a patch with neither path nor patch", name)
		}
	}
	return k
}

// checkObjectSet checks that objects are exactly wantObjects.
func checkObjectSet(t *testing.T, src string, objects map[string]*k8sDoc) {
	t.Helper()
	want := map[string]bool{}
	for _, w := range wantObjects {
		key := w.kind + "/" + w.name
		want[key] = true
		d, ok := objects[key]
		switch {
		case !ok:
			t.Errorf("%s: no %s %s", src, w.kind, w.name)
		case d.APIVersion != w.apiVersion:
			t.Errorf("%s: %s has apiVersion %s, want %s", d.src, key, d.APIVersion, w.apiVersion)
		}
	}
	for key, d := range objects {
		if !want[key] {
			t.Errorf("%s: unexpected %s: add it to wantObjects in deploy_test.go if it belongs", d.src, key)
		}
	}
}

// checkOverlay checks that the example overlay builds on the base and
// that its image and replica edits name things the base has: kustomize
// silently ignores an edit that matches nothing.
func checkOverlay(t *testing.T, k *k8sKustomization, base map[string]*k8sDoc) {
	t.Helper()
	name := strings.TrimPrefix(filepath.ToSlash(filepath.Join(k.dir, "kustomization.yaml")), "../../")
	if !slices.Contains(k.Resources, "../../base") {
		t.Errorf("%s: resources %v do not include ../../base", name, k.Resources)
	}
	dep := decodeDoc[k8sDeployment](t, base["Deployment/codex7"])
	var image string
	if c := dep.container("indexer"); c != nil {
		image, _ = splitImageRef(c.Image)
	}
	if len(k.Images) == 0 || len(k.Replicas) == 0 {
		t.Errorf("%s: want images: (the tag) and replicas: set", name)
	}
	for _, img := range k.Images {
		if img.Name != image {
			t.Errorf("%s: images name %q matches no image of the base (%q)", name, img.Name, image)
		}
		if img.NewTag == "" && img.Digest == "" {
			t.Errorf("%s: images %q sets neither newTag nor digest", name, img.Name)
		}
	}
	for _, r := range k.Replicas {
		if base["Deployment/"+r.Name] == nil {
			t.Errorf("%s: replicas name %q is no Deployment of the base", name, r.Name)
		}
		if r.Count < 1 {
			t.Errorf("%s: replicas count %d", name, r.Count)
		}
	}
	for _, p := range k.Patches {
		if p.Target != nil && p.Target.Name != "" && base[p.Target.Kind+"/"+p.Target.Name] == nil {
			t.Errorf("%s: patch target %s %s is not in the base", name, p.Target.Kind, p.Target.Name)
		}
	}
}

// secretExample is what base/secret.example.yaml provides.
type secretExample struct {
	name   string
	keys   map[string]string
	policy *access.Policy
}

// checkSecretExample checks the example Secret: its tokens.yaml parses as
// the access policy indexer serve --auth reads, and it has the registry
// credentials' keys.
func checkSecretExample(t *testing.T, d *k8sDoc) secretExample {
	t.Helper()
	s := decodeDoc[struct {
		StringData map[string]string `yaml:"stringData"`
		Data       map[string]string `yaml:"data"`
	}](t, d)
	if len(s.Data) > 0 {
		t.Errorf("%s: use stringData (plain text) in the example, not data", d.src)
	}
	ex := secretExample{name: d.Metadata.Name, keys: s.StringData}
	if ex.name != "codex7" {
		t.Errorf("%s: Secret named %q, want codex7", d.src, ex.name)
	}
	for _, k := range []string{"tokens.yaml", "CODEX7_REGISTRY_USERNAME", "CODEX7_REGISTRY_PASSWORD"} {
		if _, ok := s.StringData[k]; !ok {
			t.Errorf("%s: stringData has no %s", d.src, k)
		}
	}
	p, err := access.Parse(strings.NewReader(s.StringData["tokens.yaml"]), "tokens.yaml")
	if err != nil {
		t.Fatalf("%s: stringData tokens.yaml is not a tokens file indexer serve --auth accepts: %v", d.src, err)
	}
	ex.policy = p
	return ex
}

// Kubernetes objects, as far as the test reads them.
type (
	k8sDeployment struct {
		Spec struct {
			Replicas *int        `yaml:"replicas"`
			Selector k8sSelector `yaml:"selector"`
			Template struct {
				Metadata k8sObjectMeta `yaml:"metadata"`
				Spec     k8sPodSpec    `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	k8sSelector struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	}
	k8sPodSpec struct {
		TerminationGracePeriodSeconds *int               `yaml:"terminationGracePeriodSeconds"`
		SecurityContext               k8sSecurityContext `yaml:"securityContext"`
		TopologySpreadConstraints     []struct {
			TopologyKey   string      `yaml:"topologyKey"`
			LabelSelector k8sSelector `yaml:"labelSelector"`
		} `yaml:"topologySpreadConstraints"`
		Affinity struct {
			PodAntiAffinity struct {
				Preferred []struct {
					PodAffinityTerm struct {
						LabelSelector k8sSelector `yaml:"labelSelector"`
						TopologyKey   string      `yaml:"topologyKey"`
					} `yaml:"podAffinityTerm"`
				} `yaml:"preferredDuringSchedulingIgnoredDuringExecution"`
			} `yaml:"podAntiAffinity"`
		} `yaml:"affinity"`
		Containers []k8sContainer `yaml:"containers"`
		Volumes    []k8sVolume    `yaml:"volumes"`
	}
	k8sSecurityContext struct {
		RunAsNonRoot             *bool  `yaml:"runAsNonRoot"`
		RunAsUser                *int64 `yaml:"runAsUser"`
		RunAsGroup               *int64 `yaml:"runAsGroup"`
		FSGroup                  *int64 `yaml:"fsGroup"`
		ReadOnlyRootFilesystem   *bool  `yaml:"readOnlyRootFilesystem"`
		AllowPrivilegeEscalation *bool  `yaml:"allowPrivilegeEscalation"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
		SeccompProfile struct {
			Type string `yaml:"type"`
		} `yaml:"seccompProfile"`
	}
	k8sContainer struct {
		Name    string      `yaml:"name"`
		Image   string      `yaml:"image"`
		Command []string    `yaml:"command"`
		Args    []string    `yaml:"args"`
		Env     []k8sEnvVar `yaml:"env"`
		Ports   []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
		} `yaml:"ports"`
		StartupProbe   *k8sProbe `yaml:"startupProbe"`
		LivenessProbe  *k8sProbe `yaml:"livenessProbe"`
		ReadinessProbe *k8sProbe `yaml:"readinessProbe"`
		Lifecycle      struct {
			PreStop struct {
				Sleep *struct {
					Seconds int `yaml:"seconds"`
				} `yaml:"sleep"`
			} `yaml:"preStop"`
		} `yaml:"lifecycle"`
		Resources struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
		SecurityContext k8sSecurityContext `yaml:"securityContext"`
		VolumeMounts    []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
			SubPath   string `yaml:"subPath"`
			ReadOnly  bool   `yaml:"readOnly"`
		} `yaml:"volumeMounts"`
	}
	k8sEnvVar struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			ConfigMapKeyRef  *k8sKeyRef `yaml:"configMapKeyRef"`
			SecretKeyRef     *k8sKeyRef `yaml:"secretKeyRef"`
			ResourceFieldRef *struct {
				Resource string `yaml:"resource"`
				Divisor  string `yaml:"divisor"`
			} `yaml:"resourceFieldRef"`
		} `yaml:"valueFrom"`
	}
	k8sKeyRef struct {
		Name     string `yaml:"name"`
		Key      string `yaml:"key"`
		Optional bool   `yaml:"optional"`
	}
	k8sProbe struct {
		HTTPGet *struct {
			Path string         `yaml:"path"`
			Port k8sIntOrString `yaml:"port"`
		} `yaml:"httpGet"`
	}
	k8sVolume struct {
		Name     string `yaml:"name"`
		EmptyDir *struct {
			SizeLimit string `yaml:"sizeLimit"`
			Medium    string `yaml:"medium"`
		} `yaml:"emptyDir"`
		Secret *struct {
			SecretName string `yaml:"secretName"`
			Items      []struct {
				Key  string `yaml:"key"`
				Path string `yaml:"path"`
			} `yaml:"items"`
		} `yaml:"secret"`
		PersistentVolumeClaim *struct{} `yaml:"persistentVolumeClaim"`
	}
	k8sService struct {
		Spec struct {
			Type     string            `yaml:"type"`
			Selector map[string]string `yaml:"selector"`
			Ports    []k8sServicePort  `yaml:"ports"`
		} `yaml:"spec"`
	}
	k8sServicePort struct {
		Name       string         `yaml:"name"`
		Port       int            `yaml:"port"`
		TargetPort k8sIntOrString `yaml:"targetPort"`
	}
	k8sPDB struct {
		Spec struct {
			MinAvailable   *k8sIntOrString `yaml:"minAvailable"`
			MaxUnavailable *k8sIntOrString `yaml:"maxUnavailable"`
			Selector       k8sSelector     `yaml:"selector"`
		} `yaml:"spec"`
	}
	k8sHPA struct {
		Spec struct {
			ScaleTargetRef struct {
				APIVersion string `yaml:"apiVersion"`
				Kind       string `yaml:"kind"`
				Name       string `yaml:"name"`
			} `yaml:"scaleTargetRef"`
			MinReplicas *int `yaml:"minReplicas"`
			MaxReplicas int  `yaml:"maxReplicas"`
			Metrics     []struct {
				Type     string `yaml:"type"`
				Resource struct {
					Name   string `yaml:"name"`
					Target struct {
						Type               string `yaml:"type"`
						AverageUtilization int    `yaml:"averageUtilization"`
					} `yaml:"target"`
				} `yaml:"resource"`
			} `yaml:"metrics"`
		} `yaml:"spec"`
	}
	k8sConfigMap struct {
		Data map[string]string `yaml:"data"`
	}
)

// k8sIntOrString is a port or count given as a number or a name.
type k8sIntOrString string

func (v *k8sIntOrString) UnmarshalYAML(n *yaml.Node) error {
	*v = k8sIntOrString(n.Value)
	return nil
}

func (d *k8sDeployment) container(name string) *k8sContainer {
	for i, c := range d.Spec.Template.Spec.Containers {
		if c.Name == name {
			return &d.Spec.Template.Spec.Containers[i]
		}
	}
	return nil
}

// port resolves a probe's or Service's port, a number or a port name, to
// a container port number, or 0.
func (c *k8sContainer) port(p k8sIntOrString) int {
	if n, err := strconv.Atoi(string(p)); err == nil {
		return n
	}
	for _, cp := range c.Ports {
		if cp.Name == string(p) {
			return cp.ContainerPort
		}
	}
	return 0
}

// checkDeployObjects checks the objects of one rendering of the base against
// the flags and help of indexer serve, the example Secret and the real
// HTTP handler.
