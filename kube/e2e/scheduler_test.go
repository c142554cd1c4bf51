package e2e

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	metricstestutil "k8s.io/component-base/metrics/testutil"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// schedulerEnv names the kube-scheduler binary under test, built from
// kube/cmd/kube-scheduler; `make kube-test` sets it.
const schedulerEnv = "AFFINITYQ_KUBE_SCHEDULER"

// schedulerBinary returns the binary schedulerEnv names, or fails the test
// saying how to build it.
func schedulerBinary(t *testing.T) string {
	t.Helper()
	const how = "`make kube-test` builds bin/kube-scheduler and bin/etcd (`make etcd`) and sets it; by hand, from kube/: " +
		"go build -o ../bin/kube-scheduler ./cmd/kube-scheduler && " +
		"PATH=$PWD/../bin:$PATH " + schedulerEnv + "=$PWD/../bin/kube-scheduler go test ./e2e"
	bin := os.Getenv(schedulerEnv)
	if bin == "" {
		t.Fatalf("%s is not set: %s", schedulerEnv, how)
	}
	info, err := os.Stat(bin)
	if err != nil {
		t.Fatalf("%s: %v: %s", schedulerEnv, err, how)
	}
	if !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		t.Fatalf("%s=%s is not an executable file: %s", schedulerEnv, bin, how)
	}
	return bin
}

// A scheduler is the binary under test, running as a process.
type scheduler struct {
	cmd *exec.Cmd
	// url is its secure serving address, https://127.0.0.1:<port>.
	url string
	// http skips TLS verification: the scheduler serves a self-signed
	// certificate it generates in memory at start, as in the Deployment.
	http *http.Client
	// logPath holds its stdout and stderr.
	logPath string
	// exited is closed once the process has exited; waitErr is then
	// cmd.Wait's error.
	exited  chan struct{}
	waitErr error
	// leaseNamespace and leaseName are the lease its configuration names.
	leaseNamespace, leaseName string
}

// startScheduler runs bin as d's Deployment would, as d's ServiceAccount,
// and waits until it is ready. It is killed, if still running, when the
// test ends, and its output is logged if the test failed.
//
// The flags are the container's, with --config pointed at a copy of the
// ConfigMap's configuration that adds clientConnection.kubeconfig: in a pod
// kube-scheduler uses the in-cluster configuration, which a process outside
// one cannot, and it ignores --kubeconfig when --config is given. Then the
// same kubeconfig for delegated authentication and authorization (in-cluster
// too in the pod), 127.0.0.1 and a free --secure-port.
func startScheduler(t *testing.T, c *cluster, d *deployment, bin string) *scheduler {
	t.Helper()
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := c.writeKubeconfig(kubeconfig, c.token(t, d.namespace, d.serviceAccount)); err != nil {
		t.Fatal(err)
	}
	checkServiceAccount(t, kubeconfig, d.namespace, d.serviceAccount)
	config, err := withKubeconfig(d.config, kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	configPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(configPath, config, 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	args := slices.Clone(d.flags)
	args[d.configFlag] = "--config=" + configPath
	args = append(args,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		// Not in the Deployment (a check costs a pass over the pending
		// pods): every narrowed event is checked against the pending pods
		// evaluated without the index, and the test reads the divergences.
		"--affinityq-self-check-every=1",
	)

	s := &scheduler{
		url: "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		http: &http.Client{
			Timeout:   10 * time.Second,
			Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
		},
		logPath:        filepath.Join(dir, "kube-scheduler.log"),
		exited:         make(chan struct{}),
		leaseNamespace: d.leaseNamespace,
		leaseName:      d.leaseName,
	}
	logFile, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	// A process left behind by a test binary that dies without its
	// cleanups (a -timeout panic) exits by itself once it loses its lease,
	// the in-process API server being gone.
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	t.Logf("starting %s %s", bin, strings.Join(args, " "))
	if err := s.cmd.Start(); err != nil {
		logFile.Close()
		t.Fatal(err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		logFile.Close()
		close(s.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
		if t.Failed() {
			s.logOutput(t)
		}
	})

	err = wait.PollUntilContextTimeout(t.Context(), pollInterval, startTimeout, true, func(ctx context.Context) (bool, error) {
		if err := s.exitErr(); err != nil {
			return false, err
		}
		code, _, err := s.get(ctx, "/readyz", "")
		return err == nil && code == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("kube-scheduler not ready: %v", err)
	}
	return s
}

// withKubeconfig returns the KubeSchedulerConfiguration config with
// clientConnection.kubeconfig set to kubeconfig, and fails if config sets
// it already (the Deployment relies on the in-cluster configuration).
func withKubeconfig(config []byte, kubeconfig string) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(config, &doc); err != nil {
		return nil, fmt.Errorf("e2e: scheduler configuration: %w", err)
	}
	cc, _ := doc["clientConnection"].(map[string]any)
	if cc == nil {
		cc = make(map[string]any)
		doc["clientConnection"] = cc
	}
	if v, ok := cc["kubeconfig"]; ok {
		return nil, fmt.Errorf("e2e: scheduler configuration sets clientConnection.kubeconfig (%v); in a pod it would use the in-cluster configuration", v)
	}
	cc["kubeconfig"] = kubeconfig
	out, err := yaml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("e2e: scheduler configuration: %w", err)
	}
	return out, nil
}

// freePort returns a TCP port free on 127.0.0.1 now. Another process may
// take it before the scheduler listens; the scheduler then fails to start
// and the test says so.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// exitErr returns an error if the process has exited, nil while it runs.
func (s *scheduler) exitErr() error {
	select {
	case <-s.exited:
		if s.waitErr == nil {
			return fmt.Errorf("kube-scheduler exited: %s", s.cmd.ProcessState)
		}
		return fmt.Errorf("kube-scheduler exited: %w", s.waitErr)
	default:
		return nil
	}
}

// get fetches path from the scheduler's secure port, with token as a
// bearer token unless it is "".
func (s *scheduler) get(ctx context.Context, path, token string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+path, nil)
	if err != nil {
		return 0, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// checkHealth checks that the endpoints the kubelet's probes use answer
// 200 without credentials.
func (s *scheduler) checkHealth(t *testing.T) {
	t.Helper()
	for _, path := range []string{"/healthz", "/livez", "/readyz"} {
		code, body, err := s.get(t.Context(), path, "")
		if err != nil || code != http.StatusOK {
			t.Errorf("GET %s without credentials: %d %q, %v; want 200", path, code, body, err)
		}
	}
}

// waitLeader waits until the scheduler holds its lease, and checks that
// the default scheduler's lease, which it must not contend for, does not
// exist.
func (s *scheduler) waitLeader(t *testing.T, c *cluster) {
	t.Helper()
	var holder string
	err := wait.PollUntilContextTimeout(t.Context(), pollInterval, startTimeout, true, func(ctx context.Context) (bool, error) {
		if err := s.exitErr(); err != nil {
			return false, err
		}
		lease, err := c.client.CoordinationV1().Leases(s.leaseNamespace).Get(ctx, s.leaseName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		holder = ptr.Deref(lease.Spec.HolderIdentity, "")
		return holder != "", nil
	})
	if err != nil {
		t.Fatalf("lease %s/%s: no holder: %v", s.leaseNamespace, s.leaseName, err)
	}
	t.Logf("lease %s/%s held by %s", s.leaseNamespace, s.leaseName, holder)
	if _, err := c.client.CoordinationV1().Leases(metav1.NamespaceSystem).Get(t.Context(), "kube-scheduler", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("lease kube-system/kube-scheduler: error %v, want NotFound (the default scheduler's lease is not ours to take)", err)
	}
}

// metricsReaderRole is the bootstrap ClusterRole that deploy/README.md
// tells operators to bind their scraper to: it may get /metrics.
const metricsReaderRole = "system:monitoring"

// checkMetrics scrapes /metrics as deploy/README.md says to, with the token
// of a ServiceAccount of namespace bound to metricsReaderRole, checks that
// an anonymous request is refused, and checks that the affinityq series
// are there and that the pre-hints narrowed events and the placed index
// answered cycles.
func (s *scheduler) checkMetrics(t *testing.T, c *cluster, namespace string) {
	t.Helper()
	ctx := t.Context()
	const scraper = "metrics-scraper"
	sa := &v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: scraper}}
	if _, err := c.client.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e:" + scraper},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: metricsReaderRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: scraper}},
	}
	if _, err := c.client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	token := c.token(t, namespace, scraper)

	// Until RBAC's caches and the scheduler's authorization cache (a denial
	// is cached for 10 seconds) have caught up, the scrape may be refused.
	var body []byte
	var code int
	err := wait.PollUntilContextTimeout(ctx, pollInterval, startTimeout, true, func(ctx context.Context) (bool, error) {
		if err := s.exitErr(); err != nil {
			return false, err
		}
		var err error
		code, body, err = s.get(ctx, "/metrics", token)
		return err == nil && code == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("GET /metrics with a %s token: %d %q: %v", metricsReaderRole, code, body, err)
	}
	if code, _, err := s.get(ctx, "/metrics", ""); err != nil || code != http.StatusForbidden {
		t.Errorf("GET /metrics without credentials: %d, %v; want 403", code, err)
	}

	metrics := metricstestutil.NewMetrics()
	if err := metricstestutil.ParseMetrics(string(body), &metrics); err != nil {
		t.Fatalf("/metrics: %v", err)
	}
	for _, name := range []string{
		"affinityq_prehint_calls_total",
		"affinityq_cycle_answers_total",
		"affinityq_index_pending_pods",
		"affinityq_placed_pods",
		"affinityq_index_selfchecks_total",
		"affinityq_index_selfcheck_divergences_total",
	} {
		if len(metrics[name]) == 0 {
			t.Errorf("/metrics has no %s", name)
		}
	}
	var narrowed, answers float64
	for _, sample := range metrics["affinityq_prehint_calls_total"] {
		if sample.Metric["answer"] == "narrowed" {
			narrowed += float64(sample.Value)
		}
	}
	for _, sample := range metrics["affinityq_cycle_answers_total"] {
		answers += float64(sample.Value)
	}
	if narrowed == 0 {
		t.Errorf("affinityq_prehint_calls_total{answer=\"narrowed\"} = 0, want > 0: no event was narrowed (%v)", metrics["affinityq_prehint_calls_total"])
	}
	if answers == 0 {
		t.Errorf("affinityq_cycle_answers_total = 0, want > 0: the placed index answered no cycle")
	}
	sum := func(name string) float64 {
		var v float64
		for _, sample := range metrics[name] {
			v += float64(sample.Value)
		}
		return v
	}
	if n := sum("affinityq_index_selfchecks_total"); n < narrowed {
		t.Errorf("affinityq_index_selfchecks_total = %v, want every narrowed answer (%v) checked", n, narrowed)
	}
	if n := sum("affinityq_index_selfcheck_divergences_total"); n != 0 {
		t.Errorf("affinityq_index_selfcheck_divergences_total = %v, want 0: the index missed pods an event affects (see the scheduler's log)", n)
	}
}

// stop sends SIGTERM and checks that the scheduler exits within
// stopTimeout, with status 0 (kube-scheduler exits 0 when its context is
// cancelled while it leads), having released its lease (ReleaseOnCancel:
// the holder cleared).
func (s *scheduler) stop(t *testing.T, c *cluster) {
	t.Helper()
	// Its secure server waits for open connections, up to 5 seconds, before
	// it exits.
	s.http.CloseIdleConnections()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	timer := time.NewTimer(stopTimeout)
	defer timer.Stop()
	select {
	case <-s.exited:
	case <-timer.C:
		t.Fatalf("kube-scheduler still running %v after SIGTERM", stopTimeout)
	}
	var exit *exec.ExitError
	if s.waitErr != nil && !errors.As(s.waitErr, &exit) {
		t.Fatalf("waiting for kube-scheduler: %v", s.waitErr)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("kube-scheduler exited with %s after SIGTERM, want exit status 0", s.cmd.ProcessState)
	}
	lease, err := c.client.CoordinationV1().Leases(s.leaseNamespace).Get(t.Context(), s.leaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if holder := ptr.Deref(lease.Spec.HolderIdentity, ""); holder != "" {
		t.Errorf("lease %s/%s still held by %s after the scheduler exited, want it released", s.leaseNamespace, s.leaseName, holder)
	}
	s.checkNoForbidden(t)
}

// checkNoForbidden checks that the scheduler's output has no "forbidden":
// every request it made, its informers' lists and watches among them, was
// allowed by deploy/'s RBAC. Reflectors retry and log a refused list
// rather than fail, so an RBAC gap shows only there.
func (s *scheduler) checkNoForbidden(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	var refused []string
	for line := range strings.Lines(string(data)) {
		if strings.Contains(line, "forbidden") {
			refused = append(refused, strings.TrimSpace(line))
		}
	}
	if len(refused) > 0 {
		t.Errorf("kube-scheduler was refused requests (RBAC):\n%s", strings.Join(refused, "\n"))
	}
}

// logOutput logs the scheduler's stdout and stderr, the last maxLog bytes
// of them.
func (s *scheduler) logOutput(t *testing.T) {
	const maxLog = 1 << 20
	data, err := os.ReadFile(s.logPath)
	if err != nil {
		t.Logf("kube-scheduler's output: %v", err)
		return
	}
	if len(data) > maxLog {
		data = data[len(data)-maxLog:]
		t.Logf("kube-scheduler's output, its last %d bytes:\n%s", maxLog, data)
		return
	}
	t.Logf("kube-scheduler's output:\n%s", data)
}
