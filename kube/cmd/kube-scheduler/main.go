// Command kube-scheduler is kube-scheduler v1.37.2 with the affinityq
// plugins registered: AffinityqInterPodAffinity and
// AffinityqPodTopologySpread, the in-tree InterPodAffinity and
// PodTopologySpread with PreQueueingHints backed by an affinityq index.
// It takes kube-scheduler's flags; enable the plugins, in place of the
// in-tree pair, in the KubeSchedulerConfiguration (see kube/README.md) and
// turn on the SchedulerPreQueueingHints feature gate
// (--feature-gates=SchedulerPreQueueingHints=true).
//
// One flag of its own: --affinityq-self-check-every=N checks one in N
// answers of the pending index (pre-hints', gates') against every pending pod evaluated without
// the index (affinityq.WithSelfCheck), counting misses in
// affinityq_index_selfcheck_divergences_total; 0, the default, checks
// none.
package main

import (
	"context"
	"os"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // the JSON log format, as in upstream's binary
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/affinityq/affinityq/kube/affinityq"
)

func main() {
	var selfCheckEvery int
	// The plugin factories run after the flags are parsed: the Plugins
	// value both share is built on the first of them.
	plugins := sync.OnceValue(func() *affinityq.Plugins {
		return affinityq.New(affinityq.WithSelfCheck(selfCheckEvery))
	})
	command := app.NewSchedulerCommand(
		app.WithPlugin(affinityq.InterPodAffinityName, func(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			return plugins().NewInterPodAffinity(ctx, args, h)
		}),
		app.WithPlugin(affinityq.PodTopologySpreadName, func(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			return plugins().NewPodTopologySpread(ctx, args, h)
		}),
	)
	command.Flags().IntVar(&selfCheckEvery, "affinityq-self-check-every", 0,
		"Check one in this many answers of the pending index (pre-hints', gates') against every pending pod evaluated without the index, "+
			"counting misses in affinityq_index_selfcheck_divergences_total (0: never).")
	os.Exit(cli.Run(command))
}
