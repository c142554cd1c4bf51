// Command etcd is etcd's own server, built from the go.etcd.io/etcd/server/v3
// module that k8s.io/kubernetes v1.37.2 requires, so that kube-scheduler's
// scheduler_perf harness (kube/perf), which runs an "etcd" binary found on
// PATH for every workload, needs nothing but the Go module proxy.
// `make etcd` builds it into bin/etcd.
//
// It is etcdmain.Main and nothing else: the same flags, the same behaviour,
// the same version as the module's own main package.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
