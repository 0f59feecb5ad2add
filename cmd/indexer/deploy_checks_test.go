package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/access"
	"github.com/codex7/codex7/oci"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
)

func checkDeployObjects(t *testing.T, objects map[string]*k8sDoc, flags map[string]string, help string, secret secretExample, probes probeHandlers) {
	t.Helper()
	depDoc := objects["Deployment/codex7"]
	if depDoc == nil {
		t.Fatal("no Deployment codex7")
	}
	dep := decodeDoc[k8sDeployment](t, depDoc)
	cm := decodeDoc[k8sConfigMap](t, objects["ConfigMap/codex7"])
	errorf := func(format string, args ...any) {
		t.Helper()
		t.Errorf("%s: Deployment codex7: "+format, append([]any{depDoc.src}, args...)...)
	}
	pod := &dep.Spec.Template.Spec
	labels := dep.Spec.Template.Metadata.Labels
	if len(dep.Spec.Selector.MatchLabels) == 0 || !labelsMatch(dep.Spec.Selector.MatchLabels, labels) {
		errorf("selector %v does not match the pod template's labels %v", dep.Spec.Selector.MatchLabels, labels)
	}
	c := dep.container("indexer")
	if c == nil || len(pod.Containers) != 1 {
		t.Fatalf("%s: Deployment codex7: want one container named indexer, got %d", depDoc.src, len(pod.Containers))
	}

	// The image and its entry point.
	repo, _ := splitImageRef(c.Image)
	if !strings.HasSuffix(repo, "codex7/indexer") {
		errorf("image %q: want the repository ghcr.io/codex7/indexer (or a mirror of it ending in codex7/indexer)", c.Image)
	}
	if len(c.Command) > 0 && !slices.Equal(c.Command, []string{"indexer"}) {
		errorf("command %q: leave it to the image's ENTRYPOINT [indexer]", c.Command)
	}

	// The args: real flags of indexer serve, with values they accept,
	// after Kubernetes expands $(VAR) from env.
	env := map[string]string{}
	for _, e := range c.Env {
		if v, ok := k8sEnvValue(e, cm, secret); ok {
			env[e.Name] = v
		}
	}
	args, unresolved := expandK8sVars(c.Args, env)
	for _, v := range unresolved {
		errorf("args refer to $(%s), but the container's env has no %s with a value, a ConfigMap key or a Secret key", v, v)
	}
	given := checkServeArgs(t, depDoc.src, args, flags)
	for _, f := range []string{"http", "artifacts", "cache-dir", "auth"} {
		if len(given[f]) == 0 {
			errorf("args give no --%s", f)
		}
	}
	one := func(flag string) string {
		if v := given[flag]; len(v) > 0 {
			return v[len(v)-1] // the last wins
		}
		return ""
	}

	// The env: what the binary reads, from objects that exist.
	argRefs := strings.Join(c.Args, " ")
	for _, e := range c.Env {
		if e.Name != "GOMEMLIMIT" && !strings.Contains(argRefs, "$("+e.Name+")") && !strings.Contains(help, e.Name) {
			errorf("env %s is neither used in args nor named in indexer serve --help", e.Name)
		}
		if e.ValueFrom == nil {
			continue
		}
		if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
			if r.Name != "codex7" || objects["ConfigMap/"+r.Name] == nil {
				errorf("env %s reads ConfigMap %q, which the base does not define", e.Name, r.Name)
			} else if _, ok := cm.Data[r.Key]; !ok {
				errorf("env %s reads key %q of ConfigMap codex7, which has only %v", e.Name, r.Key, keysOf(cm.Data))
			}
		}
		if r := e.ValueFrom.SecretKeyRef; r != nil {
			if r.Name != secret.name {
				errorf("env %s reads Secret %q; the example Secret is %q", e.Name, r.Name, secret.name)
			}
			if _, ok := secret.keys[r.Key]; !ok && !r.Optional {
				errorf("env %s reads key %q of the Secret, which secret.example.yaml lacks: add it there or make the reference optional", e.Name, r.Key)
			}
		}
	}
	for _, name := range []string{"CODEX7_REGISTRY_USERNAME", "CODEX7_REGISTRY_PASSWORD"} {
		i := slices.IndexFunc(c.Env, func(e k8sEnvVar) bool { return e.Name == name })
		if i < 0 || c.Env[i].ValueFrom == nil || c.Env[i].ValueFrom.SecretKeyRef == nil || !c.Env[i].ValueFrom.SecretKeyRef.Optional {
			errorf("env %s: want it from the Secret with optional: true (anonymous pulls need no credentials)", name)
		}
	}

	// Each --artifacts is a registry reference or a mounted directory.
	for _, a := range given["artifacts"] {
		if oci.IsReference(a) {
			if _, err := oci.ParseReference(a); err != nil {
				errorf("--artifacts %q (from the ConfigMap): %v", a, err)
			}
		} else if _, _, ok := volumeAt(c, pod, a); !ok {
			errorf("--artifacts %q is neither oci://HOST/REPO[:TAG] nor under a volume mount", a)
		}
	}
	for _, k := range keysOf(cm.Data) {
		if v := cm.Data[k]; strings.TrimSpace(v) != v {
			t.Errorf("ConfigMap codex7: key %s: %q has leading or trailing space, which becomes part of the argument", k, v)
		}
	}

	// Ports: the container port is the one --http listens on, on every
	// interface, and the Service targets it.
	httpAddr := one("http")
	_, portStr, err := net.SplitHostPort(httpAddr)
	httpPort, _ := strconv.Atoi(portStr)
	switch {
	case err != nil || httpPort == 0:
		errorf("--http %q: want HOST:PORT, e.g. 0.0.0.0:8080", httpAddr)
	case server.IsLoopback(httpAddr):
		errorf("--http %q listens on loopback only: the kubelet and the Service could not reach it; give 0.0.0.0:%d", httpAddr, httpPort)
	}
	if c.port("http") != httpPort {
		errorf("container port named http is %d, --http listens on %d", c.port("http"), httpPort)
	}
	if svcDoc := objects["Service/codex7"]; svcDoc != nil {
		svc := decodeDoc[k8sService](t, svcDoc)
		if svc.Spec.Type != "" && svc.Spec.Type != "ClusterIP" {
			t.Errorf("%s: Service codex7: type %s, want ClusterIP", svcDoc.src, svc.Spec.Type)
		}
		if len(svc.Spec.Selector) == 0 || !labelsMatch(svc.Spec.Selector, labels) {
			t.Errorf("%s: Service codex7: selector %v does not match the pod labels %v", svcDoc.src, svc.Spec.Selector, labels)
		}
		i := slices.IndexFunc(svc.Spec.Ports, func(p k8sServicePort) bool { return p.Name == "http" })
		if i < 0 {
			t.Errorf("%s: Service codex7: no port named http", svcDoc.src)
		} else if p := svc.Spec.Ports[i]; c.port(p.TargetPort) != httpPort {
			t.Errorf("%s: Service codex7: port http targets %q (port %d), but the server listens on %d", svcDoc.src, p.TargetPort, c.port(p.TargetPort), httpPort)
		}
	}

	// Probes: real routes of the real handler, on the --http port. The
	// handler has nothing loaded and the example's tokens, and the kubelet
	// sends no token: liveness must still answer 200 (or the kubelet kills
	// a server waiting for its registry), readiness 503.
	route := func(p string) bool { return probeStatus(probes.open, p, httpPort) != http.StatusNotFound }
	for _, p := range []struct {
		kind  string
		probe *k8sProbe
		want  []int
	}{
		{"startupProbe", c.StartupProbe, []int{http.StatusOK}},
		{"livenessProbe", c.LivenessProbe, []int{http.StatusOK}},
		{"readinessProbe", c.ReadinessProbe, []int{http.StatusOK, http.StatusServiceUnavailable}},
	} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			errorf("no %s with httpGet", p.kind)
			continue
		}
		g := p.probe.HTTPGet
		if port := c.port(g.Port); port != httpPort {
			errorf("%s port %q is %d, the server listens on %d", p.kind, g.Port, port, httpPort)
		}
		code := probeStatus(probes.guarded, g.Path, httpPort)
		switch {
		case !route(g.Path):
			errorf("%s: GET %s is not a route of the server (404): /healthz is liveness, /readyz readiness", p.kind, g.Path)
		case code == http.StatusUnauthorized:
			errorf("%s: GET %s needs a token under --auth, which the kubelet does not send: /healthz is liveness, /readyz readiness", p.kind, g.Path)
		case !slices.Contains(p.want, code):
			errorf("%s: GET %s answers %d (%s) before artifacts are loaded, want %v: /healthz is liveness, /readyz readiness", p.kind, g.Path, code, http.StatusText(code), p.want)
		case p.kind == "readinessProbe" && code == http.StatusOK:
			errorf("readinessProbe: GET %s answers 200 before any artifacts are loaded: point it at /readyz, which answers 503 until they are", g.Path)
		}
	}

	// Prometheus annotations name the metrics route and port.
	ann := dep.Spec.Template.Metadata.Annotations
	if ann["prometheus.io/scrape"] != "true" {
		errorf("pod annotation prometheus.io/scrape is %q, want \"true\"", ann["prometheus.io/scrape"])
	}
	if ann["prometheus.io/port"] != strconv.Itoa(httpPort) {
		errorf("pod annotation prometheus.io/port is %q, the server listens on %d", ann["prometheus.io/port"], httpPort)
	}
	if p := ann["prometheus.io/path"]; p == "" || !route(p) {
		errorf("pod annotation prometheus.io/path %q is not a route of the server (/metrics)", p)
	}

	// Security: a non-root user, read-only root, no capabilities.
	sc, psc := c.SecurityContext, pod.SecurityContext
	if !orZero(sc.RunAsNonRoot) && !orZero(psc.RunAsNonRoot) {
		errorf("securityContext.runAsNonRoot is not true")
	}
	for _, uid := range []*int64{sc.RunAsUser, psc.RunAsUser, sc.RunAsGroup, psc.RunAsGroup} {
		if uid != nil && *uid != 65532 {
			errorf("runs as uid/gid %d; the image's user is 65532", *uid)
		}
	}
	if !orZero(sc.ReadOnlyRootFilesystem) {
		errorf("securityContext.readOnlyRootFilesystem is not true")
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		errorf("securityContext.allowPrivilegeEscalation is not false")
	}
	if !slices.Contains(sc.Capabilities.Drop, "ALL") {
		errorf("securityContext.capabilities.drop %v lacks ALL", sc.Capabilities.Drop)
	}
	if sc.SeccompProfile.Type != "RuntimeDefault" && psc.SeccompProfile.Type != "RuntimeDefault" {
		errorf("seccompProfile is not RuntimeDefault")
	}
	if orZero(psc.FSGroup) != 65532 {
		errorf("pod securityContext.fsGroup is %v, want 65532: the Secret's files (mode 0440) are readable through it", orZero(psc.FSGroup))
	}

	// Volumes: the cache is an emptyDir at --cache-dir; everything the
	// server writes is on a writable volume (the root is read-only); the
	// tokens file is a key of the Secret.
	cacheDir := one("cache-dir")
	if v, m, ok := volumeAt(c, pod, cacheDir); !ok || m != cacheDir || v.EmptyDir == nil {
		errorf("--cache-dir %s: want an emptyDir volume mounted exactly there", cacheDir)
	} else if v.EmptyDir.SizeLimit == "" {
		errorf("volume %s: give the emptyDir a sizeLimit", v.Name)
	}
	writes := []string{"cache-dir", "context7-cache-dir", "audit-log", "cpuprofile", "memprofile"}
	for _, f := range writes {
		if f == "context7-cache-dir" && len(given[f]) == 0 && one("context7-cache-mem") != "true" {
			errorf("no --context7-cache-dir: its default is under $HOME, on the read-only root; give a directory on the cache volume or --context7-cache-mem")
		}
		for _, p := range given[f] {
			v, _, ok := volumeAt(c, pod, p)
			if !ok || (v.EmptyDir == nil && v.PersistentVolumeClaim == nil) || mountedReadOnly(c, v.Name) {
				errorf("--%s %s is not on a writable volume, and the root file system is read-only", f, p)
			}
		}
	}
	authFile := one("auth")
	if v, m, ok := volumeAt(c, pod, authFile); !ok || v.Secret == nil {
		errorf("--auth %s is not under a mounted Secret volume", authFile)
	} else {
		if v.Secret.SecretName != secret.name {
			errorf("volume %s mounts Secret %q; the example Secret is %q", v.Name, v.Secret.SecretName, secret.name)
		}
		if !mountedReadOnly(c, v.Name) {
			errorf("volume %s (the tokens) is not mounted readOnly", v.Name)
		}
		rel := strings.TrimPrefix(authFile, m+"/")
		key := rel
		if len(v.Secret.Items) > 0 {
			key = ""
			for _, it := range v.Secret.Items {
				if it.Path == rel {
					key = it.Key
				}
			}
		}
		if _, ok := secret.keys[key]; !ok {
			errorf("--auth %s: volume %s has no item at %s backed by a key of the Secret (keys %v)", authFile, v.Name, rel, keysOf(secret.keys))
		}
	}
	for _, m := range c.VolumeMounts {
		if !slices.ContainsFunc(pod.Volumes, func(v k8sVolume) bool { return v.Name == m.Name }) {
			errorf("volumeMount %s names no volume", m.Name)
		}
	}

	// Resources, sized from docs/BENCHMARKS.md, and the Go memory limit
	// below the container's.
	req, lim := c.Resources.Requests, c.Resources.Limits
	for _, r := range []struct {
		m    map[string]string
		what string
		key  string
	}{{req, "requests", "cpu"}, {req, "requests", "memory"}, {lim, "limits", "memory"}} {
		if _, err := parseK8sQuantity(r.m[r.key]); err != nil {
			errorf("resources.%s.%s %q: %v", r.what, r.key, r.m[r.key], err)
		}
	}
	reqMem, _ := parseK8sQuantity(req["memory"])
	limMem, _ := parseK8sQuantity(lim["memory"])
	if reqMem > limMem {
		errorf("resources: requests.memory %s above limits.memory %s", req["memory"], lim["memory"])
	}
	if cpu, ok := lim["cpu"]; ok {
		reqCPU, _ := parseK8sQuantity(req["cpu"])
		if limCPU, err := parseK8sQuantity(cpu); err != nil || limCPU < reqCPU {
			errorf("resources: limits.cpu %q is not a quantity at least requests.cpu", cpu)
		}
	}
	if i := slices.IndexFunc(c.Env, func(e k8sEnvVar) bool { return e.Name == "GOMEMLIMIT" }); i >= 0 {
		e := c.Env[i]
		switch {
		case e.ValueFrom != nil && e.ValueFrom.ResourceFieldRef != nil:
			if r := e.ValueFrom.ResourceFieldRef; r.Resource != "limits.memory" || (r.Divisor != "" && r.Divisor != "1") {
				errorf("GOMEMLIMIT from resource %s with divisor %q: want limits.memory in bytes (GOMEMLIMIT reads a bare number as bytes)", r.Resource, r.Divisor)
			}
		default:
			n, err := parseGoMemLimit(e.Value)
			if err != nil {
				errorf("GOMEMLIMIT %q: %v", e.Value, err)
			} else if n >= limMem {
				errorf("GOMEMLIMIT %s is not below limits.memory %s", e.Value, lim["memory"])
			}
		}
	}

	// Shutdown: the grace period outlasts the preStop pause.
	if pod.TerminationGracePeriodSeconds == nil {
		errorf("no terminationGracePeriodSeconds")
	} else if s := c.Lifecycle.PreStop.Sleep; s != nil && *pod.TerminationGracePeriodSeconds <= s.Seconds {
		errorf("terminationGracePeriodSeconds %d leaves no time after the preStop sleep of %d s", *pod.TerminationGracePeriodSeconds, s.Seconds)
	}

	// Spread across nodes.
	spread := false
	for _, tsc := range pod.TopologySpreadConstraints {
		if !labelsMatch(tsc.LabelSelector.MatchLabels, labels) || len(tsc.LabelSelector.MatchLabels) == 0 {
			errorf("topologySpreadConstraint on %s selects %v, not the pod labels %v", tsc.TopologyKey, tsc.LabelSelector.MatchLabels, labels)
		}
		spread = spread || tsc.TopologyKey == "kubernetes.io/hostname"
	}
	for _, a := range pod.Affinity.PodAntiAffinity.Preferred {
		spread = spread || a.PodAffinityTerm.TopologyKey == "kubernetes.io/hostname" && labelsMatch(a.PodAffinityTerm.LabelSelector.MatchLabels, labels)
	}
	if !spread {
		errorf("nothing spreads the pods across nodes: add a topologySpreadConstraint or a preferred podAntiAffinity on kubernetes.io/hostname")
	}

	// The HPA scales this Deployment on CPU; the PDB lets a drain proceed.
	replicas := orZero(dep.Spec.Replicas)
	minReplicas := replicas
	if hpaDoc := objects["HorizontalPodAutoscaler/codex7"]; hpaDoc != nil {
		hpa := decodeDoc[k8sHPA](t, hpaDoc)
		ref := hpa.Spec.ScaleTargetRef
		if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != depDoc.Metadata.Name {
			t.Errorf("%s: HPA targets %s %s %s, want apps/v1 Deployment %s", hpaDoc.src, ref.APIVersion, ref.Kind, ref.Name, depDoc.Metadata.Name)
		}
		minReplicas = orZero(hpa.Spec.MinReplicas)
		if minReplicas < 1 || minReplicas > hpa.Spec.MaxReplicas {
			t.Errorf("%s: HPA replicas %d..%d", hpaDoc.src, minReplicas, hpa.Spec.MaxReplicas)
		}
		if minReplicas != replicas {
			t.Errorf("%s: HPA minReplicas %d, Deployment replicas %d: the HPA owns the count once it runs, so keep them equal", hpaDoc.src, minReplicas, replicas)
		}
		cpu := false
		for _, m := range hpa.Spec.Metrics {
			if m.Type == "Resource" && m.Resource.Name == "cpu" && m.Resource.Target.Type == "Utilization" {
				cpu = true
				if u := m.Resource.Target.AverageUtilization; u < 1 || u > 100 {
					t.Errorf("%s: HPA averageUtilization %d", hpaDoc.src, u)
				}
			}
		}
		if !cpu {
			t.Errorf("%s: HPA has no CPU utilization metric", hpaDoc.src)
		}
		if req["cpu"] == "" {
			errorf("no requests.cpu, which the HPA's CPU utilization is relative to")
		}
	}
	if pdbDoc := objects["PodDisruptionBudget/codex7"]; pdbDoc != nil {
		pdb := decodeDoc[k8sPDB](t, pdbDoc)
		if len(pdb.Spec.Selector.MatchLabels) == 0 || !labelsMatch(pdb.Spec.Selector.MatchLabels, labels) {
			t.Errorf("%s: PDB selector %v does not match the Deployment's pod labels %v", pdbDoc.src, pdb.Spec.Selector.MatchLabels, labels)
		}
		if pdb.Spec.MinAvailable == nil {
			t.Errorf("%s: PDB has no minAvailable", pdbDoc.src)
		} else if n, err := strconv.Atoi(string(*pdb.Spec.MinAvailable)); err != nil || n < 1 || n >= minReplicas {
			t.Errorf("%s: PDB minAvailable %s: want a number at least 1 and below minReplicas %d, or a drain could evict no pod", pdbDoc.src, *pdb.Spec.MinAvailable, minReplicas)
		}
	}
}

// checkServeArgs walks args as `indexer serve` parses them and returns
// the values given per flag. Each flag must be one --help lists; values
// of int, float and duration flags must parse; there must be no
// positional argument, since the flag package stops at the first one and
// ignores every flag after it.
func checkServeArgs(t *testing.T, src string, args []string, flags map[string]string) map[string][]string {
	t.Helper()
	given := map[string][]string{}
	if len(args) == 0 || args[0] != "serve" {
		t.Errorf("%s: container args %q: want the command serve first", src, args)
		return given
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		name, ok := strings.CutPrefix(a, "-")
		name = strings.TrimPrefix(name, "-")
		if !ok || name == "" || strings.HasPrefix(name, "-") {
			t.Errorf("%s: arg %q: indexer serve takes no positional argument, and flag parsing stops at it", src, a)
			continue
		}
		name, val, hasVal := strings.Cut(name, "=")
		typ, known := flags[name]
		if !known {
			t.Errorf("%s: arg %s is not a flag of indexer serve (see indexer serve --help)", src, a)
			continue
		}
		switch {
		case typ == "" && !hasVal:
			val = "true"
		case !hasVal && i+1 < len(args):
			i++
			val = args[i]
		case !hasVal:
			t.Errorf("%s: arg %s has no value", src, a)
			continue
		}
		var err error
		switch typ {
		case "":
			_, err = strconv.ParseBool(val)
		case "int", "uint":
			_, err = strconv.ParseInt(val, 0, 64)
		case "float":
			_, err = strconv.ParseFloat(val, 64)
		case "duration":
			_, err = time.ParseDuration(val)
		}
		if err != nil {
			if typ == "" {
				typ = "bool"
			}
			t.Errorf("%s: --%s %q is not a valid %s: %v", src, name, val, typ, err)
		}
		given[name] = append(given[name], val)
	}
	return given
}

// k8sEnvValue is the value the container sees for e, when the manifests say
// it: a literal, or a key of the ConfigMap or of the example Secret.
func k8sEnvValue(e k8sEnvVar, cm *k8sConfigMap, secret secretExample) (string, bool) {
	switch {
	case e.ValueFrom == nil:
		return e.Value, true
	case e.ValueFrom.ConfigMapKeyRef != nil:
		v, ok := cm.Data[e.ValueFrom.ConfigMapKeyRef.Key]
		return v, ok
	case e.ValueFrom.SecretKeyRef != nil:
		v, ok := secret.keys[e.ValueFrom.SecretKeyRef.Key]
		return v, ok
	}
	return "", false
}

// expandK8sVars expands $(VAR) in args as Kubernetes does ($$ escapes a $)
// and returns the names it could not resolve, which Kubernetes would
// leave as written.
func expandK8sVars(args []string, env map[string]string) (out, unresolved []string) {
	ref := regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`)
	for _, a := range args {
		out = append(out, ref.ReplaceAllStringFunc(a, func(m string) string {
			if m == "$$" {
				return "$"
			}
			name := m[2 : len(m)-1]
			v, ok := env[name]
			if !ok {
				unresolved = append(unresolved, name)
				return m
			}
			return v
		}))
	}
	return out, unresolved
}

// volumeAt returns the volume mounted at the longest mount path holding
// p, and that mount path.
func volumeAt(c *k8sContainer, pod *k8sPodSpec, p string) (*k8sVolume, string, bool) {
	best := ""
	var name string
	for _, m := range c.VolumeMounts {
		mp := strings.TrimSuffix(m.MountPath, "/")
		if (p == mp || strings.HasPrefix(p, mp+"/")) && len(mp) > len(best) {
			best, name = mp, m.Name
		}
	}
	for i, v := range pod.Volumes {
		if best != "" && v.Name == name {
			return &pod.Volumes[i], best, true
		}
	}
	return nil, "", false
}

func mountedReadOnly(c *k8sContainer, volume string) bool {
	for _, m := range c.VolumeMounts {
		if m.Name == volume && !m.ReadOnly {
			return false
		}
	}
	return true
}

// splitImageRef splits an image reference into its repository and its tag
// (or digest).
func splitImageRef(image string) (repo, tag string) {
	if r, d, ok := strings.Cut(image, "@"); ok {
		return r, d
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		return image[:i], image[i+1:]
	}
	return image, ""
}

// parseK8sQuantity parses a Kubernetes quantity (250m, 192Mi, 1G, 2) into
// its value in base units (cores, bytes).
func parseK8sQuantity(s string) (float64, error) {
	if s == "" {
		return 0, errors.New("missing")
	}
	for _, u := range []struct {
		suffix string
		mult   float64
	}{
		{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"Pi", 1 << 50}, {"Ei", 1 << 60},
		{"m", 1e-3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18},
	} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(num, 64)
			if err != nil || f <= 0 {
				return 0, errors.New("not a quantity such as 250m or 192Mi")
			}
			return f * u.mult, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		return 0, errors.New("not a quantity such as 250m or 192Mi")
	}
	return f, nil
}

// parseGoMemLimit parses GOMEMLIMIT as the Go runtime does: bytes, with
// an optional B, KiB, MiB, GiB or TiB suffix.
func parseGoMemLimit(s string) (float64, error) {
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseUint(num, 10, 64)
			if err != nil {
				break
			}
			return float64(n) * u.mult, nil
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, errors.New("want bytes with an optional B, KiB, MiB, GiB or TiB suffix, e.g. 128MiB (Mi or M is not Go's syntax)")
	}
	return float64(n), nil
}

// probeHandlers are the server's real HTTP handler over an empty
// artifact directory (not ready): open, without access control, says
// which routes exist (a request outside the routes gets 404); guarded,
// with the example's tokens as --auth gives them, what a request without
// a token gets (401 for anything but /healthz and /readyz).
type probeHandlers struct{ open, guarded http.Handler }

func newProbeHandlers(t *testing.T, policy *access.Policy) probeHandlers {
	t.Helper()
	engine, err := search.OpenWith(t.TempDir(), search.Options{AllowEmpty: true})
	if err != nil {
		t.Fatalf("open an empty engine: %v", err)
	}
	t.Cleanup(func() { engine.Close() })
	log := slog.New(slog.DiscardHandler)
	return probeHandlers{
		open:    server.Handler(engine, "test", log, server.HTTPOptions{}),
		guarded: server.Handler(engine, "test", log, server.HTTPOptions{Auth: func() *access.Policy { return policy }}),
	}
}

// probeStatus is the status h answers a GET of p with, sent as the kubelet
// sends a probe: to the pod's address, without a token.
func probeStatus(h http.Handler, p string, port int) int {
	r := httptest.NewRequest(http.MethodGet, p, nil)
	r.Host = net.JoinHostPort("10.0.0.7", strconv.Itoa(port))
	r.RemoteAddr = "10.0.0.1:40000"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

// kustomizeRenderer returns a function running kubectl kustomize (or kustomize
// build) on a directory, or nil when neither is installed.
func kustomizeRenderer(t *testing.T) func(t *testing.T, dir string) []byte {
	t.Helper()
	var args []string
	bin, err := exec.LookPath("kubectl")
	if err == nil {
		args = []string{"kustomize"}
	} else if bin, err = exec.LookPath("kustomize"); err == nil {
		args = []string{"build"}
	} else {
		return nil
	}
	return func(t *testing.T, dir string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		var stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, bin, append(args, dir)...)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), dir, err, stderr.String())
		}
		return out
	}
}

func labelsMatch(sub, of map[string]string) bool {
	for k, v := range sub {
		if w, ok := of[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func orZero[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
