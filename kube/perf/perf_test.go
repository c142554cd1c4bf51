package perf

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "k8s.io/component-base/logs/json/register" // -logging-format=json, as upstream's suites offer
	perf "k8s.io/kubernetes/test/integration/scheduler_perf"
	"sigs.k8s.io/yaml"
)

// performanceConfig holds the workloads, for every profile.
const performanceConfig = "config/performance-config.yaml"

// podsSchedulingTimeout bounds a createPods op that waits for its pods
// (upstream's default is 10 minutes). It is the harness's own per-workload
// limit, so that a slow profile at 10,000 pods fails only where the harness
// would fail it anyway. Barriers keep their fixed 10 minutes.
const podsSchedulingTimeout = 30 * time.Minute

// podsTimeoutEnv replaces podsSchedulingTimeout (a Go duration), for the
// one-off runs of a profile that needs hours, in a suite built with the
// harness's own fixed waits raised as well (make perf-long-build).
const podsTimeoutEnv = "AFFINITYQ_PERF_PODS_TIMEOUT"

// podsTimeout returns the createPods wait: podsTimeoutEnv's, or
// podsSchedulingTimeout.
func podsTimeout() (time.Duration, error) {
	v := os.Getenv(podsTimeoutEnv)
	if v == "" {
		return podsSchedulingTimeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("perf: %s=%q: want a duration > 0", podsTimeoutEnv, v)
	}
	return d, nil
}

// A profile is one way to run every workload: a scheduler configuration.
type profile struct {
	// name is the sub-benchmark's profile=<name>, the harness's topic name
	// (in the names of the JSON, .dat and profile files) and the derived
	// config's file name.
	name string
	// schedulerConfigPath is the KubeSchedulerConfiguration (v1), relative to
	// the package directory.
	schedulerConfigPath string
	// wrapped says the profile enables the affinityq wrappers: its
	// workloads report their cycle counters (cycleRecorder).
	wrapped bool
}

// profiles run in this order within a run, unless orderEnv says otherwise.
var profiles = []profile{
	{name: "default", schedulerConfigPath: "config/scheduler-default.yaml"},
	{name: "affinityq", schedulerConfigPath: "config/scheduler-affinityq.yaml", wrapped: true},
}

func TestMain(m *testing.M) {
	// InitTests parses the command line, the harness's flags and the testing
	// package's; flags of our own would have to be registered before it.
	if err := perf.InitTests(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if w, ok, err := parseCPUWindow(os.Getenv(cpuWindowEnv)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	} else if ok {
		if err := w.start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// suiteEnv names a performance-config.yaml to run instead of ours:
// upstream's suites (test/integration/scheduler_perf/affinity,
// topology_spreading) as the k8s.io/kubernetes module holds them, read in
// place. Their template paths are relative to their own directory, which
// the benchmark then runs in. (Flags of our own would have to be
// registered before the harness parses the command line; an environment
// variable needs no such care.)
const suiteEnv = "AFFINITYQ_PERF_CONFIG"

// suite returns the workloads' file and the directory to run them from
// ("" for the package's).
func suite() (config, dir string, err error) {
	path := os.Getenv(suiteEnv)
	if path == "" {
		return performanceConfig, "", nil
	}
	if path, err = filepath.Abs(path); err != nil {
		return "", "", fmt.Errorf("perf: %s: %w", suiteEnv, err)
	}
	return path, filepath.Dir(path), nil
}

// orderEnv orders the profiles within a run: comma-separated names, which
// run first and in that order, the others after them as profiles lists
// them. A run is one process that starts a kube-apiserver after another,
// and the later workloads of a long run can read slower than the earlier
// ones; make perf-runs alternates the order between rounds so that such
// drift weighs on both profiles alike.
const orderEnv = "AFFINITYQ_PERF_ORDER"

// orderedProfiles returns profiles in the order orderEnv names.
func orderedProfiles() ([]profile, error) {
	v := os.Getenv(orderEnv)
	if v == "" {
		return profiles, nil
	}
	var out []profile
	for name := range strings.SplitSeq(v, ",") {
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(profiles, func(p profile) bool { return p.name == name })
		switch {
		case i < 0:
			return nil, fmt.Errorf("perf: %s=%q: no profile %q", orderEnv, v, name)
		case slices.Contains(out, profiles[i]):
			return nil, fmt.Errorf("perf: %s=%q: profile %q named twice", orderEnv, v, name)
		}
		out = append(out, profiles[i])
	}
	for _, p := range profiles {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// BenchmarkPerfScheduling runs every workload of the suite (ours, or the
// one suiteEnv names) that the label filter and -bench select, under each
// profile.
func BenchmarkPerfScheduling(b *testing.B) {
	if _, err := exec.LookPath("etcd"); err != nil {
		b.Fatalf("no etcd on PATH (%v): `make etcd` builds bin/etcd, and the perf targets put bin/ on PATH", err)
	}
	src, dir, err := suite()
	if err != nil {
		b.Fatal(err)
	}
	ordered, err := orderedProfiles()
	if err != nil {
		b.Fatal(err)
	}
	timeout, err := podsTimeout()
	if err != nil {
		b.Fatal(err)
	}
	suiteName := "affinityq"
	if dir != "" {
		suiteName = filepath.Base(dir)
	}
	// The harness's flag; resolved here, as the suite's workloads run from
	// their own directory.
	var itemsDir string
	if f := flag.Lookup("data-items-dir"); f != nil {
		itemsDir = f.Value.String()
	}
	if itemsDir != "" {
		if itemsDir, err = filepath.Abs(itemsDir); err != nil {
			b.Fatal(err)
		}
	}
	run := time.Now().UTC().Format(time.RFC3339)
	for _, p := range ordered {
		b.Run("profile="+p.name, func(b *testing.B) {
			if dir != "" {
				abs, err := filepath.Abs(p.schedulerConfigPath)
				if err != nil {
					b.Fatal(err)
				}
				p.schedulerConfigPath = abs
			}
			config, err := writeProfileConfig(b.TempDir(), src, p)
			if err != nil {
				b.Fatal(err)
			}
			if dir != "" {
				b.Chdir(dir) // the suite's template paths are relative to it; restored after the sub-benchmark
			}
			opts := []perf.SchedulerPerfOption{perf.WithPodsSchedulingTimeout(timeout)}
			if p.wrapped {
				opts = append(opts, perf.WithPrepareFn(newCycleRecorder(suiteName, p.name, run, itemsDir).prepare))
			}
			perf.RunBenchmarkPerfScheduling(b, config, p.name, outOfTreeRegistry(), opts...)
		})
	}
}

// dropThresholds removes the throughput thresholds of a test case's
// workloads: upstream calibrates them for its CI machines, where a
// 2-core machine misses them under either profile, and the harness fails a
// workload that misses its threshold. What is compared here is the two
// profiles in the same run.
func dropThresholds(tc map[string]any) {
	for key, v := range tc {
		if !strings.EqualFold(key, "workloads") {
			continue
		}
		workloads, _ := v.([]any)
		for _, w := range workloads {
			if m, ok := w.(map[string]any); ok {
				for k := range m {
					if strings.EqualFold(k, "threshold") {
						delete(m, k)
					}
				}
			}
		}
	}
}

// writeProfileConfig writes src into dir with every test case's
// schedulerConfigPath set to p's, and returns the new file's path. One file
// holds the workloads, so the profiles cannot drift apart; the harness reads
// the copy, and resolves its relative paths against the working directory,
// not against the file.
func writeProfileConfig(dir, src string, p profile) (string, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return "", fmt.Errorf("perf: %w", err)
	}
	var testCases []map[string]any
	if err := yaml.Unmarshal(data, &testCases); err != nil {
		return "", fmt.Errorf("perf: %s: %w", src, err)
	}
	for i, tc := range testCases {
		for key := range tc {
			// The harness matches keys case-insensitively.
			if strings.EqualFold(key, "schedulerConfigPath") {
				return "", fmt.Errorf("perf: %s: test case %d (%v) sets schedulerConfigPath; the profile sets it", src, i, tc["name"])
			}
		}
		tc["schedulerConfigPath"] = p.schedulerConfigPath
		dropThresholds(tc)
	}
	out, err := yaml.Marshal(testCases)
	if err != nil {
		return "", fmt.Errorf("perf: %s: %w", src, err)
	}
	dst := filepath.Join(dir, "performance-config-"+p.name+".yaml")
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		return "", fmt.Errorf("perf: %w", err)
	}
	return dst, nil
}
