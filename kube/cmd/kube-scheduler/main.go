// Command kube-scheduler is kube-scheduler v1.37.2 with the affinityq
// plugins registered: AffinityqInterPodAffinity and
// AffinityqPodTopologySpread, the in-tree InterPodAffinity and
// PodTopologySpread with PreQueueingHints backed by an affinityq index.
// It takes kube-scheduler's flags; enable the plugins, in place of the
// in-tree pair, in the KubeSchedulerConfiguration (see kube/README.md) and
// turn on the SchedulerPreQueueingHints feature gate
// (--feature-gates=SchedulerPreQueueingHints=true).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // the JSON log format, as in upstream's binary
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/affinityq/affinityq/kube/prequeue"
)

func main() {
	plugins := prequeue.New()
	command := app.NewSchedulerCommand(
		app.WithPlugin(prequeue.InterPodAffinityName, plugins.NewInterPodAffinity),
		app.WithPlugin(prequeue.PodTopologySpreadName, plugins.NewPodTopologySpread),
	)
	os.Exit(cli.Run(command))
}
