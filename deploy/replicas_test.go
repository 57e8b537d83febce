package deploy

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func mount(r *rendered, at string) *corev1.VolumeMount {
	c := container(r)
	i := slices.IndexFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == at })
	return &c.VolumeMounts[i]
}

func redisContainer(r *rendered) *corev1.Container {
	return &r.statefulSets[0].Spec.Template.Spec.Containers[0]
}

func netpol(r *rendered, name string) *networkingv1.NetworkPolicy {
	return byName(r.netpols, name)
}

// TestReplicasPolicyViolations breaks the rendered replicas overlay one way
// at a time, each a way several replicas would lose updates, count apart,
// sit on one node or open Redis, and expects the policies to say so.
func TestReplicasPolicyViolations(t *testing.T) {
	settings := loadSettings(t)
	w := wantFor(t, "replicas")
	docs := renderOverlay(t, "replicas")
	baseline, err := decodeAll(docs)
	if err != nil {
		t.Fatal(err)
	}
	if problems := checkPolicies(baseline, settings, w); len(problems) != 0 {
		t.Fatalf("replicas breaks the policies before any change: %q", problems)
	}
	const lockDir = "/var/lib/toolguard/locks"
	tests := []struct {
		name   string
		break_ func(r *rendered)
		want   string
	}{
		// Safe together.
		{"memory session store", func(r *rendered) { configData(r)["TOOLGUARD_SESSION_STORE"] = "memory" }, `3 replicas with the session store "memory"`},
		{"Redis URL in the ConfigMap", func(r *rendered) { configData(r)["TOOLGUARD_REDIS_URL"] = "redis://:pw@toolguard-redis:6379/0" }, "take it from a Secret"},
		{"Redis URL not from a Secret", func(r *rendered) { container(r).Env = nil }, "TOOLGUARD_REDIS_URL is not taken from a Secret"},
		{"no lock directory", func(r *rendered) { delete(configData(r), "TOOLGUARD_LOCK_DIR") }, "3 replicas without TOOLGUARD_LOCK_DIR"},
		{"lock directory in the workspace", func(r *rendered) { configData(r)["TOOLGUARD_LOCK_DIR"] = "/workspace/.locks" }, "is inside the workspace /workspace"},
		{"lock directory on the pod's /tmp", func(r *rendered) { configData(r)["TOOLGUARD_LOCK_DIR"] = "/tmp/locks" }, `TOOLGUARD_LOCK_DIR=/tmp/locks is not on the workspace's volume "workspace"`},
		{"lock directory on another volume", func(r *rendered) { mount(r, lockDir).Name = "tmp" }, "is not on the workspace's volume"},
		{"lock directory on the root file system", func(r *rendered) {
			c := container(r)
			c.VolumeMounts = slices.DeleteFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == lockDir })
		}, "is not on the workspace's volume"},
		{"ReadWriteOnce claim", func(r *rendered) {
			r.pvcs[0].Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
		}, "3 replicas on the ReadWriteOnce claim"},
		{"emptyDir workspace", func(r *rendered) {
			volume(r, "workspace").VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
		}, "3 replicas on an emptyDir workspace"},
		{"no spread over nodes", func(r *rendered) { podSpec(r).TopologySpreadConstraints = nil }, "no topologySpreadConstraint over kubernetes.io/hostname"},
		{"spread selecting other pods", func(r *rendered) {
			podSpec(r).TopologySpreadConstraints[0].LabelSelector.MatchLabels[nameLabelKey] = "other"
		}, "no topologySpreadConstraint"},

		// Scaling and disruptions.
		{"autoscaler down to one", func(r *rendered) { r.hpas[0].Spec.MinReplicas = ptr(int32(1)) }, "minReplicas 1"},
		{"autoscaler on another Deployment", func(r *rendered) { r.hpas[0].Spec.ScaleTargetRef.Name = "other" }, "not the Deployment toolguard"},
		{"autoscaler without CPU", func(r *rendered) { r.hpas[0].Spec.Metrics = nil }, "no CPU utilization target"},
		{"replicas beside the autoscaler", func(r *rendered) { r.deployments[0].Spec.Replicas = ptr(int32(3)) }, "spec.replicas 3 beside HorizontalPodAutoscaler toolguard, which owns the count"},
		{"no headless Service", func(r *rendered) {
			r.services = slices.DeleteFunc(r.services, func(s *corev1.Service) bool { return s.Spec.ClusterIP == corev1.ClusterIPNone })
		}, "3 replicas without a headless Service"},
		{"Redis without a PodDisruptionBudget", func(r *rendered) {
			r.pdbs = slices.DeleteFunc(r.pdbs, func(p *policyv1.PodDisruptionBudget) bool { return p.Name == "toolguard-redis" })
		}, "StatefulSet toolguard-redis: no PodDisruptionBudget selecting Redis's pods"},
		{"Redis's maxmemory at its limit", func(r *rendered) {
			args := r.statefulSets[0].Spec.Template.Spec.Containers[0].Args
			args[slices.Index(args, "--maxmemory")+1] = "400mb"
		}, "--maxmemory 400mb is over 60% of the memory limit 512Mi"},
		{"PodDisruptionBudget lets all go", func(r *rendered) { r.pdbs[0].Spec.MaxUnavailable = ptr(intstr.FromString("100%")) }, "allows evicting all 3 replicas"},

		// Metrics.
		{"metrics port not declared", func(r *rendered) {
			c := container(r)
			c.Ports = slices.DeleteFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.Name == "metrics" })
		}, "no port named metrics on 9464"},
		{"no scrape annotation", func(r *rendered) { delete(r.deployments[0].Spec.Template.Annotations, scrapeAnnot) }, "pod annotations prometheus.io/scrape"},
		{"scrape annotation on another port", func(r *rendered) { r.deployments[0].Spec.Template.Annotations[scrapePortAnno] = "7700" }, `want "true" and "9464"`},
		{"metrics open to every source", func(r *rendered) { netpol(r, "toolguard").Spec.Ingress[1].From = nil }, "opens the metrics port to every source"},
		{"metrics open to an address block", func(r *rendered) {
			netpol(r, "toolguard").Spec.Ingress[1].From = []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0"}}}
		}, "opens the metrics port to ipBlock 0.0.0.0/0"},

		// Egress to Redis.
		{"egress to Redis's port anywhere", func(r *rendered) { netpol(r, "toolguard").Spec.Egress[1].To = nil }, "allows port 6379 to every destination"},
		{"egress to another port", func(r *rendered) { netpol(r, "toolguard").Spec.Egress[1].Ports[0].Port = ptr(intstr.FromInt32(6380)) }, "allows a port other than [53 6379]"},

		// Redis.
		{"Redis without a password", func(r *rendered) { redisContainer(r).Args = []string{"redis-server"} }, "Redis runs without --requirepass"},
		{"Redis as root", func(r *rendered) {
			redisContainer(r).SecurityContext.RunAsNonRoot = nil
			r.statefulSets[0].Spec.Template.Spec.SecurityContext.RunAsNonRoot = nil
		}, "want a non-root, read-only container"},
		{"Redis writable root", func(r *rendered) { redisContainer(r).SecurityContext.ReadOnlyRootFilesystem = ptr(false) }, "want a non-root, read-only container"},
		{"Redis unprobed", func(r *rendered) { redisContainer(r).ReadinessProbe = nil }, "want readiness and liveness probes"},
		{"Redis unbounded", func(r *rendered) { delete(redisContainer(r).Resources.Limits, corev1.ResourceMemory) }, "container redis: no memory limit"},
		{"Redis image not pinned", func(r *rendered) { redisContainer(r).Image = "redis" }, `image "redis" is not pinned`},
		{"Redis pods labelled as the server", func(r *rendered) {
			maps := r.statefulSets[0].Spec.Template.Labels
			maps[nameLabelKey], maps["app.kubernetes.io/instance"] = "toolguard", "toolguard"
		}, "the server's Service would send calls to Redis"},
		{"Redis open to every pod", func(r *rendered) { netpol(r, "toolguard-redis").Spec.Ingress[0].From = nil }, "ingress rule 0 admits every source"},
		{"Redis open to other pods", func(r *rendered) {
			netpol(r, "toolguard-redis").Spec.Ingress[0].From[0].PodSelector.MatchLabels = map[string]string{"role": "other"}
		}, "want only the toolguard pods"},
		{"Redis on every port", func(r *rendered) { netpol(r, "toolguard-redis").Spec.Ingress[0].Ports = nil }, "admits a port other than 6379"},
		{"Redis may call out", func(r *rendered) {
			netpol(r, "toolguard-redis").Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{}}
		}, "Redis needs no egress"},
		{"Redis without a NetworkPolicy", func(r *rendered) {
			r.netpols = slices.DeleteFunc(r.netpols, func(np *networkingv1.NetworkPolicy) bool { return np.Name == "toolguard-redis" })
		}, "no NetworkPolicy for Redis"},
		{"Redis Service selects nothing", func(r *rendered) {
			byName(r.services, "toolguard-redis").Spec.Selector = map[string]string{nameLabelKey: "other"}
		}, "want one Service selecting Redis's pods"},
		{"no Redis", func(r *rendered) { r.statefulSets = nil }, "want one Redis StatefulSet, have 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := decodeAll(docs)
			if err != nil {
				t.Fatal(err)
			}
			tt.break_(r)
			problems := checkPolicies(r, settings, w)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Errorf("want a problem containing %q, have %q", tt.want, problems)
			}
		})
	}
}

// TestRedisInOtherOverlays: a Redis object in an overlay not meant to run
// one is reported, not passed over unchecked.
func TestRedisInOtherOverlays(t *testing.T) {
	r, err := decodeAll(renderOverlay(t, "replicas"))
	if err != nil {
		t.Fatal(err)
	}
	w := wantFor(t, "replicas")
	w.redis = false
	problems := checkPolicies(r, loadSettings(t), w)
	if !slices.ContainsFunc(problems, func(p string) bool {
		return strings.Contains(p, "Service toolguard-redis: a Redis object in an overlay without Redis")
	}) {
		t.Errorf("problems %q do not report the Redis Service", problems)
	}
}
