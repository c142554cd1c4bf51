// Package e2e tests the kube-scheduler binary (kube/cmd/kube-scheduler)
// end to end, as deploy/ runs it in a cluster: a separate process against a
// real kube-apiserver and etcd, with the manifests' configuration, flags and
// RBAC. It is test code only (TestKubeScheduler); this file holds the
// documentation.
//
// # What it proves
//
// TestKubeScheduler starts etcd (an "etcd" binary on PATH: `make etcd`
// builds bin/etcd) and kube-apiserver v1.37.2 in the test process
// (cmd/kube-apiserver/app/testing) with authorization Node,RBAC and the
// default admission plugins, and then shows that:
//
//   - every manifest of deploy/ is accepted by that API server, applied
//     server-side as `kubectl apply --server-side -f deploy/` would apply
//     it (each file in name order, each document in file order), twice,
//     without a warning (the namespace enforces Pod Security "restricted",
//     which also judges the Deployment's pod template). The Deployment does
//     not run: there is no kubelet.
//   - the binary starts and schedules with exactly the RBAC of deploy/: it
//     runs with a token minted (TokenRequest) for the affinityq-scheduler
//     ServiceAccount, which the test first checks is that identity, can
//     read the extension-apiserver-authentication ConfigMap and cannot list
//     kube-system's secrets. It runs with the ConfigMap's config.yaml and
//     the Deployment container's arguments (--config pointed at a copy,
//     plus the kubeconfig, 127.0.0.1, a free --secure-port and
//     --affinityq-self-check-every=1); with
//     --authentication-tolerate-lookup-failure=false from the Deployment, a
//     missing RoleBinding would stop it at start.
//   - it takes the lease the configuration names (the holder is set) and
//     leaves the default scheduler's kube-system/kube-scheduler alone.
//   - /healthz, /livez and /readyz answer 200 without credentials (the
//     kubelet's probes); /metrics answers 403 without them and 200 with the
//     token of a ServiceAccount bound to system:monitoring, as
//     deploy/README.md tells operators to scrape it.
//   - pods with schedulerName affinityq-scheduler bind where their rules
//     allow, on nodes with hostname and zone labels:
//     (1) pods with required pod affinity to a label no pod has yet are
//     rejected as unschedulable, and bind in the partner's zone once the
//     partner pod is created and bound (an assigned pod added);
//     (2) pods with required zone anti-affinity against blockers in every
//     zone are rejected, and bind in the one zone whose blocker is then
//     relabelled (an assigned pod relabelled, the pre-hint path);
//     (3) pods with a DoNotSchedule spread constraint (maxSkew 1 over
//     zones) all bind with per-zone counts at most 1 apart.
//     The requeued pods must bind within a minute: a wake-up check, not a
//     speed assertion, well under the 5 minutes after which kube-scheduler
//     would flush them from the unschedulable pool anyway.
//   - /metrics then serves affinityq_prehint_calls_total (with narrowed
//     answers: the feature gate reached the binary and the wrappers
//     narrowed events), affinityq_cycle_answers_total (cycles answered
//     from the placed index), affinityq_index_pending_pods and
//     affinityq_placed_pods, and the self-check has checked every
//     narrowed answer against the pending pods evaluated without the
//     index and found no pod the index missed.
//   - on SIGTERM it releases the lease and exits with status 0 within 30
//     seconds (kube-scheduler exits 0 when asked to stop while it leads).
//   - its output never says "forbidden": deploy/'s RBAC allowed every
//     request it made, its informers' lists and watches included (which
//     retry and log a refusal rather than fail).
//
// Under -short it creates 6 nodes and 16 pods, otherwise 12 nodes and 74.
// The scheduler's output is logged when the test fails.
//
// # What it needs
//
// `make kube-test` builds bin/etcd and bin/kube-scheduler, puts bin/ on
// PATH and names the binary in AFFINITYQ_KUBE_SCHEDULER; the test fails,
// naming those targets, when either is missing. By hand, from kube/:
//
//	go build -o ../bin/kube-scheduler ./cmd/kube-scheduler
//	PATH=$PWD/../bin:$PATH AFFINITYQ_KUBE_SCHEDULER=$PWD/../bin/kube-scheduler go test -v ./e2e
//
// Do not build it with -trimpath: the test kube-apiserver locates its
// certificate fixtures through its source path. It waits on real processes,
// so it polls the API server and the scheduler's endpoints (every 200 ms,
// with deadlines) rather than using a fake clock.
package e2e
