package affinityq

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// The wrappers take the in-tree plugins' arguments. kube-scheduler decodes a
// pluginConfig entry whose args name their apiVersion and kind
// (kubescheduler.config.k8s.io/v1, InterPodAffinityArgs) into the internal
// type and defaults it; it leaves any other args, and args of a plugin name
// it does not know, as *runtime.Unknown, and passes nil when there are none.

// interPodAffinityArgs returns the internal InterPodAffinityArgs of obj,
// defaulted as kube-scheduler defaults the in-tree plugin's.
func interPodAffinityArgs(obj runtime.Object) (*config.InterPodAffinityArgs, error) {
	if a, ok := obj.(*config.InterPodAffinityArgs); ok {
		return a, nil
	}
	var ext configv1.InterPodAffinityArgs
	out := &config.InterPodAffinityArgs{}
	if err := decodeArgs(InterPodAffinityName, obj, &ext, out); err != nil {
		return nil, err
	}
	return out, nil
}

// podTopologySpreadArgs returns the internal PodTopologySpreadArgs of obj,
// defaulted as kube-scheduler defaults the in-tree plugin's.
func podTopologySpreadArgs(obj runtime.Object) (*config.PodTopologySpreadArgs, error) {
	if a, ok := obj.(*config.PodTopologySpreadArgs); ok {
		return a, nil
	}
	var ext configv1.PodTopologySpreadArgs
	out := &config.PodTopologySpreadArgs{}
	if err := decodeArgs(PodTopologySpreadName, obj, &ext, out); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeArgs decodes obj (nil or *runtime.Unknown) into the versioned ext,
// defaults it and converts it into the internal out.
func decodeArgs(plugin string, obj runtime.Object, ext, out runtime.Object) error {
	switch obj.(type) {
	case nil, *runtime.Unknown:
	default:
		return fmt.Errorf("affinityq: %s: args of type %T, want %T", plugin, obj, out)
	}
	if err := frameworkruntime.DecodeInto(obj, ext); err != nil {
		return fmt.Errorf("affinityq: %s: decoding args: %w", plugin, err)
	}
	scheme.Scheme.Default(ext)
	if err := scheme.Scheme.Convert(ext, out, nil); err != nil {
		return fmt.Errorf("affinityq: %s: converting args: %w", plugin, err)
	}
	return nil
}

// hardDefaultConstraints reports whether PodTopologySpread arguments give
// pods without constraints of their own DoNotSchedule constraints, derived
// from the services and controllers that select them: the index does not
// see those. The system defaults are ScheduleAnyway only.
func hardDefaultConstraints(a *config.PodTopologySpreadArgs) bool {
	if a.DefaultingType != config.ListDefaulting {
		return false
	}
	for _, c := range a.DefaultConstraints {
		if c.WhenUnsatisfiable == v1.DoNotSchedule {
			return true
		}
	}
	return false
}
