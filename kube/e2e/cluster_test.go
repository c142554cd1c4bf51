package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
	apiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/test/integration/framework"
	"k8s.io/utils/ptr"
)

// A cluster is an etcd and a kube-apiserver, running for one test.
type cluster struct {
	// config is the API server's loopback client configuration
	// (system:masters); client is built from it.
	config *rest.Config
	client kubernetes.Interface
	// host is the API server's URL (https://127.0.0.1:<port>), caData the
	// PEM bundle that verifies its serving certificate.
	host   string
	caData []byte
}

// startCluster starts etcd and kube-apiserver, both stopped when the test
// ends: etcd as a process (the "etcd" on PATH, as upstream's integration
// framework runs it), kube-apiserver in the test process, with RBAC
// enforced (authorization Node,RBAC, as clusters run it) and the default
// admission plugins.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	if _, err := exec.LookPath("etcd"); err != nil {
		t.Fatalf("no etcd on PATH (%v): `make etcd` builds bin/etcd, and `make kube-test` puts bin/ on PATH", err)
	}
	framework.StartEtcd(klog.Background(), t, true)
	server := apiservertesting.StartTestServerOrDie(t, nil, []string{"--authorization-mode=Node,RBAC"}, framework.SharedEtcd())
	t.Cleanup(server.TearDownFn)
	// The serving certificate and its CA, as the test server writes them
	// into its certificate directory (PairName "apiserver").
	ca, err := os.ReadFile(filepath.Join(server.TmpDir, "apiserver.crt"))
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(server.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{config: server.ClientConfig, client: client, host: server.ClientConfig.Host, caData: ca}
}

// token mints a token for ServiceAccount namespace/name (TokenRequest).
func (c *cluster) token(t *testing.T, namespace, name string) string {
	t.Helper()
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	resp, err := c.client.CoreV1().ServiceAccounts(namespace).CreateToken(t.Context(), name, req, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for ServiceAccount %s/%s: %v", namespace, name, err)
	}
	return resp.Status.Token
}

// writeKubeconfig writes a kubeconfig for the API server with token to
// path.
func (c *cluster) writeKubeconfig(path, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: c.host, CertificateAuthorityData: c.caData}
	cfg.AuthInfos["e2e"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "e2e"}
	cfg.CurrentContext = "e2e"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	return nil
}

// checkServiceAccount checks that kubeconfig authenticates as
// ServiceAccount namespace/name and that RBAC holds it to its grants: it
// may read the extension-apiserver-authentication ConfigMap (deploy/'s
// RoleBinding in kube-system) and may not list kube-system's secrets.
func checkServiceAccount(t *testing.T, kubeconfig, namespace, name string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	review, err := client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("SelfSubjectReview: %v", err)
	}
	if got, want := review.Status.UserInfo.Username, serviceaccount.MakeUsername(namespace, name); got != want {
		t.Fatalf("the kubeconfig authenticates as %q, want %q", got, want)
	}
	if _, err := client.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, "extension-apiserver-authentication", metav1.GetOptions{}); err != nil {
		t.Errorf("%s: get ConfigMap kube-system/extension-apiserver-authentication: %v", name, err)
	}
	if _, err := client.CoreV1().Secrets(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("%s: list kube-system's secrets: error %v, want Forbidden (is RBAC enforced?)", name, err)
	}
}

// createNamespace creates namespace name and its default ServiceAccount,
// which the ServiceAccount admission plugin requires of every pod (there is
// no controller manager to create it).
func (c *cluster) createNamespace(t *testing.T, name string) {
	t.Helper()
	ctx := t.Context()
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sa := &v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := c.client.CoreV1().ServiceAccounts(name).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createNodes creates perZone nodes in each zone, with hostname and zone
// labels, Ready, with room for a few hundred of the test's pods each, and
// returns each node's zone. There is no kubelet and no node controller:
// the test sets the status and removes the not-ready taint that the
// TaintNodesByCondition admission plugin puts on every new node.
func (c *cluster) createNodes(t *testing.T, zones []string, perZone int) map[string]string {
	t.Helper()
	ctx := t.Context()
	nodes := c.client.CoreV1().Nodes()
	capacity := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("4"),
		v1.ResourceMemory: resource.MustParse("16Gi"),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	zoneOf := make(map[string]string)
	for _, zone := range zones {
		for i := range perZone {
			name := fmt.Sprintf("node-%s-%d", zone, i)
			node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
				v1.LabelHostname:     name,
				v1.LabelTopologyZone: zone,
			}}}
			node, err := nodes.Create(ctx, node, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			now := metav1.NewTime(time.Now())
			node.Status = v1.NodeStatus{
				Capacity:    capacity,
				Allocatable: capacity,
				Conditions: []v1.NodeCondition{{
					Type: v1.NodeReady, Status: v1.ConditionTrue, Reason: "KubeletReady",
					LastHeartbeatTime: now, LastTransitionTime: now,
				}},
			}
			if node, err = nodes.UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			node.Spec.Taints = nil
			if _, err := nodes.Update(ctx, node, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			zoneOf[name] = zone
		}
	}
	return zoneOf
}
