package perf

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"sigs.k8s.io/yaml"
)

// inTreeNames maps each affinityq plug-in to the in-tree plug-in it replaces.
var inTreeNames = map[string]string{
	interPodAffinityName:  names.InterPodAffinity,
	podTopologySpreadName: names.PodTopologySpread,
}

// loadSchedulerConfig decodes and defaults a scheduler configuration as the
// harness does (scheduler_perf.go, loadSchedulerConfig), and validates it.
func loadSchedulerConfig(t *testing.T, path string) *config.KubeSchedulerConfiguration {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	cfg, ok := obj.(*config.KubeSchedulerConfiguration)
	if !ok {
		t.Fatalf("%s: decoded a %T, want a KubeSchedulerConfiguration", path, obj)
	}
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return cfg
}

// TestSchedulerConfigs checks that the affinityq profile is the default
// profile with the affinityq plug-ins in place of the two they replace: same
// plug-ins, same order (Filter order decides which plug-in rejects a pod,
// and so whose queueing hints run), same weights, under the gates the
// workloads set.
func TestSchedulerConfigs(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.SchedulerPreQueueingHints, true)
	byName := map[string]*config.KubeSchedulerConfiguration{}
	for _, p := range profiles {
		cfg := loadSchedulerConfig(t, p.schedulerConfigPath)
		if len(cfg.Profiles) != 1 || cfg.Profiles[0].SchedulerName != "default-scheduler" {
			t.Fatalf("%s: want one profile named default-scheduler (the harness's pods and progress counter use it), got %d", p.schedulerConfigPath, len(cfg.Profiles))
		}
		byName[p.name] = cfg
	}
	want := byName["default"].Profiles[0].Plugins.MultiPoint.Enabled
	t.Logf("kube-scheduler's default multiPoint plug-ins: %v", want)

	registry := outOfTreeRegistry()
	var got []config.Plugin
	for _, pl := range byName["affinityq"].Profiles[0].Plugins.MultiPoint.Enabled {
		if inTree, ok := inTreeNames[pl.Name]; ok {
			if _, ok := registry[pl.Name]; !ok {
				t.Errorf("outOfTreeRegistry() has no %s", pl.Name)
			}
			pl.Name = inTree
		}
		got = append(got, pl)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("affinityq profile's multiPoint plug-ins, wrappers renamed, differ from the defaults (-want +got):\n%s", diff)
	}
}

// TestPerformanceConfig checks the workloads file as far as it can be
// checked without running it: each profile's copy names the profile's
// scheduler configuration, every workload is labelled for exactly one of
// the make targets, and every file it names exists.
func TestPerformanceConfig(t *testing.T) {
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			path, err := writeProfileConfig(t.TempDir(), performanceConfig, p)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var testCases []struct {
				Name                string
				SchedulerConfigPath string
				Workloads           []struct {
					Name   string
					Labels []string
				}
			}
			if err := yaml.Unmarshal(data, &testCases); err != nil {
				t.Fatal(err)
			}
			if len(testCases) == 0 {
				t.Fatalf("%s: no test cases", path)
			}
			for _, tc := range testCases {
				if tc.SchedulerConfigPath != p.schedulerConfigPath {
					t.Errorf("%s: schedulerConfigPath = %q, want %q", tc.Name, tc.SchedulerConfigPath, p.schedulerConfigPath)
				}
				for _, w := range tc.Workloads {
					smoke, measured := slices.Contains(w.Labels, "integration-test"), slices.Contains(w.Labels, "performance")
					if smoke == measured {
						t.Errorf("%s/%s: labels %v, want exactly one of integration-test and performance", tc.Name, w.Name, w.Labels)
					}
				}
			}
			var generic any
			if err := yaml.Unmarshal(data, &generic); err != nil {
				t.Fatal(err)
			}
			for _, file := range referencedFiles(generic) {
				if _, err := os.Stat(file); err != nil {
					t.Errorf("named in %s: %v", performanceConfig, err)
				}
			}
		})
	}
}

// referencedFiles returns the values of every key ending in "Path" in a
// decoded YAML document: the files the harness will read.
func referencedFiles(v any) []string {
	var files []string
	switch v := v.(type) {
	case map[string]any:
		for key, value := range v {
			if s, ok := value.(string); ok && strings.HasSuffix(key, "Path") {
				files = append(files, filepath.FromSlash(s))
				continue
			}
			files = append(files, referencedFiles(value)...)
		}
	case []any:
		for _, value := range v {
			files = append(files, referencedFiles(value)...)
		}
	}
	return files
}

func TestWriteProfileConfig(t *testing.T) {
	p := profile{name: "x", schedulerConfigPath: "config/x.yaml"}
	for _, tc := range []struct {
		name, in string
		want     string // "" when an error is wanted
	}{
		{
			name: "sets the path",
			in:   "- name: A\n  workloads: [{name: w, params: {measurePods: 10}}]\n",
			want: "- name: A\n  schedulerConfigPath: config/x.yaml\n  workloads:\n  - name: w\n    params:\n      measurePods: 10\n",
		},
		{
			name: "keeps anchors' values",
			in:   "- name: A\n  featureGates: &g {G: true}\n- name: B\n  featureGates: *g\n",
			want: "- featureGates:\n    G: true\n  name: A\n  schedulerConfigPath: config/x.yaml\n- featureGates:\n    G: true\n  name: B\n  schedulerConfigPath: config/x.yaml\n",
		},
		{
			name: "drops thresholds",
			in:   "- name: A\n  workloads: [{name: w, threshold: 70, params: {measurePods: 10}}]\n",
			want: "- name: A\n  schedulerConfigPath: config/x.yaml\n  workloads:\n  - name: w\n    params:\n      measurePods: 10\n",
		},
		{name: "refuses a path of its own", in: "- name: A\n  schedulerConfigPath: y.yaml\n"},
		{name: "in any case", in: "- name: A\n  SchedulerConfigPath: y.yaml\n"},
		{name: "refuses a non-list", in: "name: A\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "in.yaml")
			if err := os.WriteFile(src, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			path, err := writeProfileConfig(dir, src, p)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("writeProfileConfig(%q) = %s, want an error", tc.in, path)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("writeProfileConfig(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestOrderedProfiles(t *testing.T) {
	names := func(ps []profile) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.name)
		}
		return out
	}
	for _, tc := range []struct {
		env     string
		want    []string
		wantErr string
	}{
		{env: "", want: []string{"default", "affinityq"}},
		{env: "affinityq,default", want: []string{"affinityq", "default"}},
		{env: " affinityq ", want: []string{"affinityq", "default"}},
		{env: "default", want: []string{"default", "affinityq"}},
		{env: "affinityq,nosuch", wantErr: `no profile "nosuch"`},
		{env: "affinityq,affinityq", wantErr: `profile "affinityq" named twice`},
	} {
		t.Setenv(orderEnv, tc.env)
		got, err := orderedProfiles()
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s=%q: error %v, want one containing %q", orderEnv, tc.env, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s=%q: %v", orderEnv, tc.env, err)
			continue
		}
		if diff := cmp.Diff(tc.want, names(got)); diff != "" {
			t.Errorf("%s=%q: order (-want +got):\n%s", orderEnv, tc.env, diff)
		}
	}
}

func TestPodsTimeout(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want time.Duration
		err  bool
	}{
		{env: "", want: podsSchedulingTimeout},
		{env: "4h", want: 4 * time.Hour},
		{env: "90m", want: 90 * time.Minute},
		{env: "0s", err: true},
		{env: "-1h", err: true},
		{env: "four hours", err: true},
	} {
		t.Setenv(podsTimeoutEnv, tc.env)
		got, err := podsTimeout()
		switch {
		case tc.err && err == nil:
			t.Errorf("%s=%q: %v, want an error", podsTimeoutEnv, tc.env, got)
		case tc.err && !strings.HasPrefix(err.Error(), "perf: "+podsTimeoutEnv):
			t.Errorf("%s=%q: error %q, want one prefixed %q", podsTimeoutEnv, tc.env, err, "perf: "+podsTimeoutEnv)
		case !tc.err && (err != nil || got != tc.want):
			t.Errorf("%s=%q: %v, %v, want %v", podsTimeoutEnv, tc.env, got, err, tc.want)
		}
	}
}
