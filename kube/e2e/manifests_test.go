package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"
)

// fieldManager is the server-side apply field manager of the test's
// applies (kubectl's would be "kubectl").
const fieldManager = "affinityq-e2e"

// A manifest is one object of deploy/.
type manifest struct {
	file string // the file's base name
	obj  *unstructured.Unstructured
}

func (m manifest) String() string {
	name := m.obj.GetName()
	if ns := m.obj.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return fmt.Sprintf("%s %s (%s)", m.obj.GetKind(), name, m.file)
}

// A deployment is what the test takes from deploy/: every object, and what
// running the scheduler as its Deployment does needs.
type deployment struct {
	// manifests are the objects in the order kubectl applies them: files in
	// name order, documents in file order.
	manifests []manifest
	// namespace and serviceAccount are the Deployment's namespace and
	// spec.template.spec.serviceAccountName.
	namespace, serviceAccount string
	// flags are the container's arguments: its command after the binary,
	// then its args. flags[configFlag] is the --config= flag.
	flags      []string
	configFlag int
	// config is the ConfigMap entry that --config names, through the
	// container's volume mount.
	config []byte
	// schedulerName is the configuration's only profile's.
	schedulerName string
	// leaseNamespace and leaseName are the configuration's leader-election
	// lease.
	leaseNamespace, leaseName string
}

// readDeployment reads the manifests in dir as `kubectl apply -f dir`
// does (the .yaml, .yml and .json files, not recursively) and checks that
// they hold one Deployment whose ServiceAccount and configuration they
// also hold.
func readDeployment(t *testing.T, dir string) *deployment {
	t.Helper()
	manifests, err := readManifests(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := newDeployment(manifests)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return d
}

// readManifests returns the objects of dir's manifest files, in name
// order (os.ReadDir's) and then document order.
func readManifests(dir string) ([]manifest, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("e2e: %w", err)
	}
	var out []manifest
	for _, e := range entries {
		if e.IsDir() || !slices.Contains([]string{".yaml", ".yml", ".json"}, filepath.Ext(e.Name())) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("e2e: %w", err)
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("e2e: %s: %w", e.Name(), err)
			}
			js, err := yaml.YAMLToJSON(doc)
			if err != nil {
				return nil, fmt.Errorf("e2e: %s: %w", e.Name(), err)
			}
			if s := string(bytes.TrimSpace(js)); s == "null" || s == "" {
				continue // an empty document: comments only
			}
			obj := &unstructured.Unstructured{}
			if err := obj.UnmarshalJSON(js); err != nil {
				return nil, fmt.Errorf("e2e: %s: %w", e.Name(), err)
			}
			out = append(out, manifest{file: e.Name(), obj: obj})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("e2e: %s: no manifests", dir)
	}
	return out, nil
}

// newDeployment finds the Deployment among manifests and what it refers to.
func newDeployment(manifests []manifest) (*deployment, error) {
	var deps []manifest
	for _, m := range manifests {
		if m.obj.GroupVersionKind().GroupKind() == appsv1.SchemeGroupVersion.WithKind("Deployment").GroupKind() {
			deps = append(deps, m)
		}
	}
	if len(deps) != 1 {
		return nil, fmt.Errorf("%d Deployments, want 1", len(deps))
	}
	var dep appsv1.Deployment
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(deps[0].obj.Object, &dep); err != nil {
		return nil, fmt.Errorf("%v: %w", deps[0], err)
	}
	pod := dep.Spec.Template.Spec
	d := &deployment{manifests: manifests, namespace: dep.Namespace, serviceAccount: pod.ServiceAccountName}
	if _, ok := find(manifests, "ServiceAccount", d.namespace, d.serviceAccount); !ok {
		return nil, fmt.Errorf("%v: no ServiceAccount %s/%s among the manifests", deps[0], d.namespace, d.serviceAccount)
	}
	if len(pod.Containers) != 1 {
		return nil, fmt.Errorf("%v: %d containers, want 1", deps[0], len(pod.Containers))
	}
	c := pod.Containers[0]
	if len(c.Command) > 1 {
		d.flags = append(d.flags, c.Command[1:]...)
	}
	d.flags = append(d.flags, c.Args...)
	d.configFlag = slices.IndexFunc(d.flags, func(f string) bool { return strings.HasPrefix(f, "--config=") })
	if d.configFlag < 0 {
		return nil, fmt.Errorf("%v: no --config=<file> argument in %q", deps[0], d.flags)
	}
	configPath := strings.TrimPrefix(d.flags[d.configFlag], "--config=")
	config, err := mountedConfigMapEntry(manifests, d.namespace, pod, c, configPath)
	if err != nil {
		return nil, fmt.Errorf("%v: --config=%s: %w", deps[0], configPath, err)
	}
	d.config = config

	var cfg configv1.KubeSchedulerConfiguration
	if err := yaml.UnmarshalStrict(config, &cfg); err != nil {
		return nil, fmt.Errorf("--config=%s: %w", configPath, err)
	}
	le := cfg.LeaderElection
	switch {
	case le.LeaderElect == nil || !*le.LeaderElect:
		return nil, fmt.Errorf("--config=%s: leaderElection.leaderElect is not true", configPath)
	case le.ResourceName == "" || le.ResourceName == "kube-scheduler" || le.ResourceNamespace == "":
		// kube-scheduler's defaults are kube-system/kube-scheduler, the
		// default scheduler's lease.
		return nil, fmt.Errorf("--config=%s: leaderElection names lease %q in %q, want a lease of its own", configPath, le.ResourceName, le.ResourceNamespace)
	case le.ResourceLock != "" && le.ResourceLock != "leases":
		return nil, fmt.Errorf("--config=%s: leaderElection.resourceLock %q, want leases", configPath, le.ResourceLock)
	}
	d.leaseNamespace, d.leaseName = le.ResourceNamespace, le.ResourceName
	if len(cfg.Profiles) != 1 || cfg.Profiles[0].SchedulerName == nil {
		return nil, fmt.Errorf("--config=%s: %d profiles, want 1 with a schedulerName", configPath, len(cfg.Profiles))
	}
	d.schedulerName = *cfg.Profiles[0].SchedulerName
	return d, nil
}

// mountedConfigMapEntry returns the entry of a ConfigMap among manifests
// that container c of pod sees at file.
func mountedConfigMapEntry(manifests []manifest, namespace string, pod v1.PodSpec, c v1.Container, file string) ([]byte, error) {
	for _, vm := range c.VolumeMounts {
		key, err := filepath.Rel(vm.MountPath, file)
		if err != nil || strings.HasPrefix(key, "..") || vm.SubPath != "" {
			continue
		}
		i := slices.IndexFunc(pod.Volumes, func(v v1.Volume) bool { return v.Name == vm.Name })
		if i < 0 || pod.Volumes[i].ConfigMap == nil {
			return nil, fmt.Errorf("volume %q, mounted at %s, is not a ConfigMap", vm.Name, vm.MountPath)
		}
		src := pod.Volumes[i].ConfigMap
		if len(src.Items) > 0 {
			return nil, fmt.Errorf("volume %q lists items; the test reads keys as file names", vm.Name)
		}
		m, ok := find(manifests, "ConfigMap", namespace, src.Name)
		if !ok {
			return nil, fmt.Errorf("no ConfigMap %s/%s among the manifests", namespace, src.Name)
		}
		data, ok, err := unstructured.NestedString(m.obj.Object, "data", key)
		if err != nil || !ok {
			return nil, fmt.Errorf("%v has no data key %q", m, key)
		}
		return []byte(data), nil
	}
	return nil, fmt.Errorf("no volume mounted there")
}

// find returns the object of kind named namespace/name.
func find(manifests []manifest, kind, namespace, name string) (manifest, bool) {
	for _, m := range manifests {
		if m.obj.GetKind() == kind && m.obj.GetNamespace() == namespace && m.obj.GetName() == name {
			return m, true
		}
	}
	return manifest{}, false
}

// apply applies every manifest server-side, in order, as
// `kubectl apply --server-side` does, through the RESTMapper of the
// cluster's discovery, and fails the test on any error and on any warning
// the API server returns (deprecations, Pod Security's verdict on a pod
// template).
func (c *cluster) apply(t *testing.T, manifests []manifest) {
	t.Helper()
	warnings := &warningRecorder{}
	cfg := rest.CopyConfig(c.config)
	cfg.WarningHandlerWithContext = warnings
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := restmapper.GetAPIGroupResources(disc)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	for _, m := range manifests {
		gvk := m.obj.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		var r dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			if m.obj.GetNamespace() == "" {
				t.Fatalf("%v: namespaced, but names no namespace: kubectl would put it in the current context's", m)
			}
			r = dyn.Resource(mapping.Resource).Namespace(m.obj.GetNamespace())
		}
		if _, err := r.Apply(t.Context(), m.obj.GetName(), m.obj, metav1.ApplyOptions{FieldManager: fieldManager}); err != nil {
			t.Fatalf("apply %v: %v", m, err)
		}
	}
	if w := warnings.get(); len(w) > 0 {
		t.Errorf("applying the manifests drew warnings:\n%s", strings.Join(w, "\n"))
	}
}

// A warningRecorder keeps the warnings of API responses.
type warningRecorder struct {
	mu    sync.Mutex // protects texts
	texts []string
}

// HandleWarningHeaderWithContext records a warning of code 299, the only
// code the API server sends, as client-go's own handlers do.
func (w *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, code int, _ string, text string) {
	if code != 299 || text == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.texts = append(w.texts, text)
}

func (w *warningRecorder) get() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.texts)
}
