package upstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

var keep = flag.String("upstream.keep", "", "build the overlay and the test binaries in this directory and keep them (to rerun an upstream test by hand)")

// tableRun is one run of an upstream package's test binary.
type tableRun struct {
	pkg     upstreamPackage
	cluster bool // the binary's -affinityq.cluster (see package shim)
}

func (r tableRun) name() string {
	if r.cluster {
		return r.pkg.name + "/cluster"
	}
	return r.pkg.name + "/as-written"
}

var tableRuns = []tableRun{
	{pkg: upstreamPackages[0]},
	{pkg: upstreamPackages[0], cluster: true},
	{pkg: upstreamPackages[1]},
	{pkg: upstreamPackages[1], cluster: true},
}

// TestUpstreamTables runs kube-scheduler's own tests of both plugins
// through the wrappers (see the package documentation).
func TestUpstreamTables(t *testing.T) {
	start := time.Now()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	kubeDir := moduleDir(t, goTool)
	tmp := t.TempDir()
	if *keep != "" {
		if tmp, err = filepath.Abs(*keep); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	o := &overlay{Replace: map[string]string{}}
	var pkgDirs []string
	for _, pkg := range upstreamPackages {
		l := listPackage(t, goTool, kubeDir, pkg.importPath)
		dir := filepath.Join(kubeDir, "upstream", "internal", pkg.name)
		if err := o.addPackage(pkg, l, dir, tmp); err != nil {
			t.Fatal(err)
		}
		pkgDirs = append(pkgDirs, "./upstream/internal/"+pkg.name)
	}
	overlayPath := filepath.Join(tmp, "overlay.json")
	if err := o.write(overlayPath); err != nil {
		t.Fatal(err)
	}

	// One build of both test binaries, into tmp/<name>.test.
	build := exec.Command(goTool, append([]string{"test", "-c", "-tags=affinityq_upstream", "-overlay=" + overlayPath, "-o=" + tmp + "/"}, pkgDirs...)...)
	build.Dir = kubeDir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building upstream's tests through the wrappers: %v\n%s", err, out)
	}
	t.Logf("built in %v", time.Since(start).Round(time.Millisecond))

	for _, run := range tableRuns {
		t.Run(run.name(), func(t *testing.T) {
			bin := filepath.Join(tmp, run.pkg.name+".test")
			tests := listTests(t, bin)
			skips := skipped[run.pkg.name]
			for name := range skips {
				if !slices.Contains(tests, name) {
					t.Errorf("skipped %s is not among upstream's tests: remove it", name)
				}
			}
			known := knownFailing(run)
			results := map[string]*testResult{}
			for _, name := range tests {
				if _, ok := skips[name]; ok {
					continue
				}
				runTest(t, goTool, bin, run, name, results)
			}
			check(t, run, results, known)
			logAnswers(t, tests, results)
		})
	}
}

// moduleDir returns the kube module's root.
func moduleDir(t *testing.T, goTool string) string {
	t.Helper()
	out, err := exec.Command(goTool, "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// listPackage returns what `go list` says of an upstream package.
func listPackage(t *testing.T, goTool, kubeDir, importPath string) listedPackage {
	t.Helper()
	cmd := exec.Command(goTool, "list", "-json=Dir,GoFiles,TestGoFiles,XTestGoFiles", importPath)
	cmd.Dir = kubeDir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", importPath, err)
	}
	var l listedPackage
	if err := json.Unmarshal(out, &l); err != nil {
		t.Fatalf("go list %s: %v", importPath, err)
	}
	return l
}

// listTests returns the binary's top-level tests.
func listTests(t *testing.T, bin string) []string {
	t.Helper()
	out, err := exec.Command(bin, "-test.list=^Test").Output()
	if err != nil {
		t.Fatalf("%s -test.list: %v", bin, err)
	}
	return strings.Fields(string(out))
}

// testResult is what test2json reported of one (sub)test.
type testResult struct {
	action string // pass, fail or skip; "" when it never ended (a panic)
	output []string
}

// event is one line of test2json's output.
type event struct {
	Action string
	Test   string
	Output string
}

// runTest runs one top-level upstream test (and its subtests) in its own
// process, through test2json, adding what it reports to results.
func runTest(t *testing.T, goTool, bin string, run tableRun, name string, results map[string]*testResult) {
	t.Helper()
	args := []string{"tool", "test2json", "-p", run.name(), bin,
		"-test.v=test2json", "-test.run=^" + regexp.QuoteMeta(name) + "$", "-test.count=1", "-test.timeout=5m",
		fmt.Sprintf("-affinityq.cluster=%v", run.cluster)}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	cmd := exec.Command(goTool, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" {
			continue
		}
		r := results[e.Test]
		if r == nil {
			r = &testResult{}
			results[e.Test] = r
		}
		switch e.Action {
		case "output":
			r.output = append(r.output, e.Output)
		case "pass", "fail", "skip":
			r.action = e.Action
		}
	}
	if r := results[name]; r == nil || r.action == "" {
		// The process ended without saying how the test ended.
		if r == nil {
			r = &testResult{}
			results[name] = r
		}
		r.action = "fail"
		r.output = append(r.output, fmt.Sprintf("(the test process ended: %v)\n%s", err, stderr.String()))
	}
}

// check compares the failures with the known-failing list: each failed
// test without a failed subtest must be known (or have a known ancestor),
// and each known test must have failed.
func check(t *testing.T, run tableRun, results map[string]*testResult, known map[string]string) {
	t.Helper()
	var names []string
	for name := range results {
		names = append(names, name)
	}
	slices.Sort(names)
	matched := map[string]bool{}
	for _, name := range names {
		r := results[name]
		if r.action != "fail" || hasFailedSubtest(name, results) {
			continue
		}
		if k, ok := knownAncestor(name, known); ok {
			matched[k] = true
			continue
		}
		t.Errorf("%s fails through the wrapper (run %s):\n%s", name, run.name(), failureOutput(r))
	}
	for k, why := range known {
		if matched[k] {
			continue
		}
		if r := results[k]; r == nil {
			t.Errorf("known-failing %s (%s) did not run: remove it from knownFailing", k, why)
		} else {
			t.Errorf("known-failing %s (%s) passes now: remove it from knownFailing", k, why)
		}
	}
}

func hasFailedSubtest(name string, results map[string]*testResult) bool {
	for n, r := range results {
		if r.action == "fail" && strings.HasPrefix(n, name+"/") {
			return true
		}
	}
	return false
}

// knownAncestor returns the entry of known that is name or one of its
// ancestors.
func knownAncestor(name string, known map[string]string) (string, bool) {
	for {
		if _, ok := known[name]; ok {
			return name, true
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return "", false
		}
		name = name[:i]
	}
}

// failureOutput is a failed test's output, less test2json's framing.
func failureOutput(r *testResult) string {
	var b strings.Builder
	for _, line := range r.output {
		if strings.HasPrefix(strings.TrimSpace(line), "=== ") {
			continue
		}
		b.WriteString("\t" + line)
	}
	return b.String()
}

// answerLine matches the shim's log of who answered an extension point
// (after shim.Marker, which this test does not import: that would build
// the scheduler's packages into it, with -race where the test has it).
var answerLine = regexp.MustCompile(`affinityq-upstream"? point="(\w+)" by="([^"]+)"`)

// logAnswers logs, per top-level test, how many PreFilters and PreScores
// each of index and in-tree plugin answered.
func logAnswers(t *testing.T, tests []string, results map[string]*testResult) {
	t.Helper()
	for _, top := range tests {
		counts := map[string]int{}
		for name, r := range results {
			if name != top && !strings.HasPrefix(name, top+"/") {
				continue
			}
			for _, line := range r.output {
				if m := answerLine.FindStringSubmatch(line); m != nil {
					counts[m[1]+" by "+m[2]]++
				}
			}
		}
		if len(counts) == 0 {
			continue
		}
		var parts []string
		for k, n := range counts {
			parts = append(parts, fmt.Sprintf("%s: %d", k, n))
		}
		slices.Sort(parts)
		t.Logf("%s: %s", top, strings.Join(parts, ", "))
	}
}
