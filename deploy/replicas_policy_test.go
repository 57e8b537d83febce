package deploy

import (
	"net"
	"path"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The policies of several replicas: what makes them safe together (a shared
// session store, a lock directory on the workspace's volume, a workspace
// every node mounts), spread and scaled, and their Redis and metrics.

const (
	redisName      = "redis"
	redisPort      = 6379
	hostnameTopo   = "kubernetes.io/hostname"
	scrapeAnnot    = "prometheus.io/scrape"
	scrapePortAnno = "prometheus.io/port"
)

// splitStore returns the objects labelled as Redis's apart from the rest.
func splitStore(r *rendered) (server, store *rendered) {
	server, store = &rendered{}, &rendered{}
	isStore := func(o metav1.Object) bool { return o.GetLabels()[nameLabelKey] == redisName }
	server.deployments, server.hpas, server.serviceAccounts, server.configMaps, server.secrets = r.deployments, r.hpas, r.serviceAccounts, r.configMaps, r.secrets
	store.statefulSets = r.statefulSets
	for _, o := range r.services {
		if isStore(o) {
			store.services = append(store.services, o)
		} else {
			server.services = append(server.services, o)
		}
	}
	for _, o := range r.netpols {
		if isStore(o) {
			store.netpols = append(store.netpols, o)
		} else {
			server.netpols = append(server.netpols, o)
		}
	}
	for _, o := range r.pdbs {
		if isStore(o) {
			store.pdbs = append(store.pdbs, o)
		} else {
			server.pdbs = append(server.pdbs, o)
		}
	}
	for _, o := range r.pvcs {
		if isStore(o) {
			store.pvcs = append(store.pvcs, o)
		} else {
			server.pvcs = append(server.pvcs, o)
		}
	}
	return server, store
}

// checkReplicas holds a Deployment that may run more than one server to
// what makes that safe, and wants it spread over nodes and scaled on CPU.
func checkReplicas(c *checker, r *rendered, d *appsv1.Deployment, ct *corev1.Container, cfg config) {
	hpa := checkHPA(c, r, d)
	n := replicas(r, d)
	if n <= 1 && hpa == nil {
		return
	}
	if cfg["TOOLGUARD_SESSION_STORE"] != "redis" {
		c.failf("%d replicas with the session store %q: each would count a session's mistakes apart; set TOOLGUARD_SESSION_STORE=redis", n, cfg["TOOLGUARD_SESSION_STORE"])
	}
	if cfg.has("TOOLGUARD_REDIS_URL") {
		c.failf("TOOLGUARD_REDIS_URL is in the ConfigMap: the URL holds the password, take it from a Secret")
	} else if !slices.ContainsFunc(ct.Env, func(e corev1.EnvVar) bool {
		return e.Name == "TOOLGUARD_REDIS_URL" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil
	}) {
		c.failf("TOOLGUARD_REDIS_URL is not taken from a Secret")
	}
	checkLockDir(c, n, ct, cfg)
	// gRPC keeps a connection on one pod: only clients balancing over every
	// pod's address (round_robin) reach the replicas an autoscaler adds.
	if !slices.ContainsFunc(r.services, func(s *corev1.Service) bool {
		return s.Spec.ClusterIP == corev1.ClusterIPNone && len(s.Spec.Selector) > 0 &&
			labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels))
	}) {
		c.failf("%d replicas without a headless Service: clients cannot balance calls over the pods, and a connection stays on one", n)
	}
	pod := &d.Spec.Template.Spec
	if !slices.ContainsFunc(pod.TopologySpreadConstraints, func(t corev1.TopologySpreadConstraint) bool {
		sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
		return t.TopologyKey == hostnameTopo && err == nil && !sel.Empty() && sel.Matches(labels.Set(d.Spec.Template.Labels))
	}) {
		c.failf("Deployment %s: no topologySpreadConstraint over %s selecting its pods: replicas could share a node", d.Name, hostnameTopo)
	}
	for _, v := range pod.Volumes {
		if v.Name == mountName(ct, workspacePath) && v.EmptyDir != nil {
			c.failf("%d replicas on an emptyDir workspace: each would see its own files", n)
		}
	}
}

// checkLockDir wants TOOLGUARD_LOCK_DIR on the workspace's volume (so every
// server sees the same lock files) and outside the workspace (where calls
// could remove them).
func checkLockDir(c *checker, n int32, ct *corev1.Container, cfg config) {
	dir, ok := cfg["TOOLGUARD_LOCK_DIR"]
	if !ok || dir == "" {
		c.failf("%d replicas without TOOLGUARD_LOCK_DIR: two servers editing one file could lose an update", n)
		return
	}
	dir = path.Clean(dir)
	if dir == workspacePath || strings.HasPrefix(dir, workspacePath+"/") {
		c.failf("TOOLGUARD_LOCK_DIR=%s is inside the workspace %s", dir, workspacePath)
		return
	}
	var lock *corev1.VolumeMount
	for i := range ct.VolumeMounts {
		m := &ct.VolumeMounts[i]
		if dir == m.MountPath || strings.HasPrefix(dir, strings.TrimSuffix(m.MountPath, "/")+"/") {
			if lock == nil || len(m.MountPath) > len(lock.MountPath) {
				lock = m
			}
		}
	}
	if ws := mountName(ct, workspacePath); lock == nil || lock.Name != ws {
		c.failf("TOOLGUARD_LOCK_DIR=%s is not on the workspace's volume %q: servers on other nodes would not see its locks", dir, ws)
	}
}

func mountName(ct *corev1.Container, at string) string {
	for _, m := range ct.VolumeMounts {
		if m.MountPath == at {
			return m.Name
		}
	}
	return ""
}

// checkHPA returns the HorizontalPodAutoscaler scaling d, if any, after
// checking it: on CPU, at least two replicas, and d with no count of its own.
func checkHPA(c *checker, r *rendered, d *appsv1.Deployment) *autoscalingv2.HorizontalPodAutoscaler {
	var found *autoscalingv2.HorizontalPodAutoscaler
	for _, h := range r.hpas {
		ref := h.Spec.ScaleTargetRef
		if ref.Kind != "Deployment" || ref.Name != d.Name || ref.APIVersion != "apps/v1" {
			c.failf("HorizontalPodAutoscaler %s scales %s %s (%s), not the Deployment %s", h.Name, ref.Kind, ref.Name, ref.APIVersion, d.Name)
			continue
		}
		found = h
		minR := int32(1)
		if h.Spec.MinReplicas != nil {
			minR = *h.Spec.MinReplicas
		}
		if minR < 2 {
			c.failf("HorizontalPodAutoscaler %s: minReplicas %d: one node's loss would take the service", h.Name, minR)
		}
		if h.Spec.MaxReplicas < minR {
			c.failf("HorizontalPodAutoscaler %s: maxReplicas %d below minReplicas %d", h.Name, h.Spec.MaxReplicas, minR)
		}
		// The autoscaler owns the count: a fixed one would scale the fleet
		// back to it at every apply.
		if d.Spec.Replicas != nil {
			c.failf("Deployment %s: spec.replicas %d beside HorizontalPodAutoscaler %s, which owns the count: every apply would scale the fleet back to %d; remove it", d.Name, *d.Spec.Replicas, h.Name, *d.Spec.Replicas)
		}
		if !slices.ContainsFunc(h.Spec.Metrics, func(m autoscalingv2.MetricSpec) bool {
			return m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Target.AverageUtilization != nil
		}) {
			c.failf("HorizontalPodAutoscaler %s: no CPU utilization target", h.Name)
		}
	}
	return found
}

// checkMetrics returns the metrics port the server listens on, or 0, after
// checking that the container declares it and the pods invite scraping.
func checkMetrics(c *checker, d *appsv1.Deployment, ct *corev1.Container, cfg config) int32 {
	v := cfg["TOOLGUARD_METRICS_LISTEN"]
	if v == "" {
		return 0
	}
	_, p, err := net.SplitHostPort(v)
	port, perr := strconv.ParseInt(p, 10, 32)
	if err != nil || perr != nil || port <= 0 {
		c.failf("TOOLGUARD_METRICS_LISTEN=%q: want host:port", v)
		return 0
	}
	if !slices.ContainsFunc(ct.Ports, func(cp corev1.ContainerPort) bool { return cp.Name == "metrics" && cp.ContainerPort == int32(port) }) {
		c.failf("container %s: no port named metrics on %d (TOOLGUARD_METRICS_LISTEN)", ct.Name, port)
	}
	a := d.Spec.Template.Annotations
	if a[scrapeAnnot] != "true" || a[scrapePortAnno] != p {
		c.failf("pod annotations %s=%q %s=%q, want \"true\" and %q", scrapeAnnot, a[scrapeAnnot], scrapePortAnno, a[scrapePortAnno], p)
	}
	return int32(port)
}

// onlyPort reports whether ports names port and no other.
func onlyPort(ports []networkingv1.NetworkPolicyPort, port int32) bool {
	return len(ports) > 0 && !slices.ContainsFunc(ports, func(p networkingv1.NetworkPolicyPort) bool {
		return p.Port == nil || p.Port.IntVal != port || p.EndPort != nil
	})
}

// checkScrapeRule wants the metrics port open to named scrapers only.
func checkScrapeRule(c *checker, name string, i int, rule networkingv1.NetworkPolicyIngressRule) {
	if len(rule.From) == 0 {
		c.failf("NetworkPolicy %s: ingress rule %d opens the metrics port to every source", name, i)
	}
	for _, peer := range rule.From {
		if peer.IPBlock != nil || peer.PodSelector == nil || len(peer.PodSelector.MatchLabels)+len(peer.PodSelector.MatchExpressions) == 0 {
			c.failf("NetworkPolicy %s: ingress rule %d opens the metrics port to %s, want labelled scraper pods", name, i, peerString(peer))
		}
	}
}

// checkRedis holds the overlay's own Redis to the policies: one StatefulSet
// with a password, non-root and read-only, probed and bounded; a Service;
// and a NetworkPolicy admitting only the toolguard pods, on its port, and
// letting nothing out.
func checkRedis(c *checker, r *rendered, serverPods, serverSelector labels.Set) {
	if len(r.statefulSets) != 1 {
		c.failf("want one Redis StatefulSet, have %d", len(r.statefulSets))
		return
	}
	s := r.statefulSets[0]
	pod := &s.Spec.Template.Spec
	podLabels := labels.Set(s.Spec.Template.Labels)
	if sel, err := metav1.LabelSelectorAsSelector(s.Spec.Selector); err != nil || sel.Empty() || !sel.Matches(podLabels) {
		c.failf("StatefulSet %s: selector does not select its own pods", s.Name)
	}
	if labels.SelectorFromSet(serverSelector).Matches(podLabels) {
		c.failf("StatefulSet %s: its pods carry the server's selector labels %v: the server's Service would send calls to Redis", s.Name, serverSelector)
	}
	if len(pod.Containers) != 1 {
		c.failf("StatefulSet %s: want one container, have %d", s.Name, len(pod.Containers))
		return
	}
	ct := &pod.Containers[0]
	checkImage(c, ct)
	checkResources(c, ct)
	ps, cs := pod.SecurityContext, ct.SecurityContext
	if ps == nil || cs == nil || !isTrue(first(cs.RunAsNonRoot, ps.RunAsNonRoot)) || !isFalse(cs.AllowPrivilegeEscalation) ||
		!isTrue(cs.ReadOnlyRootFilesystem) || cs.Capabilities == nil || !slices.Contains(cs.Capabilities.Drop, "ALL") {
		c.failf("StatefulSet %s: want a non-root, read-only container without privilege escalation or capabilities", s.Name)
	}
	if ct.ReadinessProbe == nil || ct.LivenessProbe == nil {
		c.failf("StatefulSet %s: want readiness and liveness probes", s.Name)
	}
	if !slices.Contains(ct.Args, "--requirepass") {
		c.failf("StatefulSet %s: Redis runs without --requirepass", s.Name)
	}
	if !isFalse(pod.AutomountServiceAccountToken) {
		c.failf("StatefulSet %s: the ServiceAccount token is mounted", s.Name)
	}
	if len(r.services) != 1 || !labels.SelectorFromSet(r.services[0].Spec.Selector).Matches(podLabels) || len(r.services[0].Spec.Selector) == 0 {
		c.failf("want one Service selecting Redis's pods")
	}
	checkRedisPolicy(c, r, podLabels, serverPods)
	checkRedisMemory(c, s.Name, ct)
	if !slices.ContainsFunc(r.pdbs, func(p *policyv1.PodDisruptionBudget) bool {
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		return err == nil && !sel.Empty() && sel.Matches(podLabels)
	}) {
		c.failf("StatefulSet %s: no PodDisruptionBudget selecting Redis's pods: a drain would take the session store without a word", s.Name)
	}
}

// checkRedisMemory wants --maxmemory at most 60% of the container's memory
// limit: an append-only file rewrite forks, and its copy-on-write pages,
// the client buffers and the allocator's overhead come on top of the data.
func checkRedisMemory(c *checker, name string, ct *corev1.Container) {
	i := slices.Index(ct.Args, "--maxmemory")
	if i < 0 || i+1 >= len(ct.Args) {
		c.failf("StatefulSet %s: Redis runs without --maxmemory", name)
		return
	}
	maxmem, err := redisBytes(ct.Args[i+1])
	if err != nil {
		c.failf("StatefulSet %s: --maxmemory %q: %v", name, ct.Args[i+1], err)
		return
	}
	limit, ok := ct.Resources.Limits[corev1.ResourceMemory]
	if !ok {
		return // checkResources reports it
	}
	if l := limit.Value(); maxmem*10 > l*6 {
		c.failf("StatefulSet %s: --maxmemory %s is over 60%% of the memory limit %s: a rewrite's fork could reach the limit", name, ct.Args[i+1], limit.String())
	}
}

// redisBytes reads a Redis memory size: 200mb, 1gb, 1048576.
func redisBytes(v string) (int64, error) {
	v = strings.ToLower(v)
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000}, {"b", 1}} {
		if num, ok := strings.CutSuffix(v, u.suffix); ok {
			n, err := strconv.ParseInt(num, 10, 64)
			return n * u.n, err
		}
	}
	return strconv.ParseInt(v, 10, 64)
}

func checkRedisPolicy(c *checker, r *rendered, podLabels, serverPods labels.Set) {
	if len(r.netpols) == 0 {
		c.failf("no NetworkPolicy for Redis")
	}
	for _, np := range r.netpols {
		if sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector); err != nil || sel.Empty() || !sel.Matches(podLabels) {
			c.failf("NetworkPolicy %s: podSelector does not select Redis's pods", np.Name)
		}
		if t := np.Spec.PolicyTypes; !slices.Contains(t, networkingv1.PolicyTypeIngress) || !slices.Contains(t, networkingv1.PolicyTypeEgress) {
			c.failf("NetworkPolicy %s: policyTypes %v, want Ingress and Egress", np.Name, t)
		}
		if len(np.Spec.Egress) > 0 {
			c.failf("NetworkPolicy %s: Redis needs no egress", np.Name)
		}
		if len(np.Spec.Ingress) == 0 {
			c.failf("NetworkPolicy %s: no ingress rule: the servers could not reach Redis", np.Name)
		}
		for i, rule := range np.Spec.Ingress {
			if !onlyPort(rule.Ports, redisPort) {
				c.failf("NetworkPolicy %s: ingress rule %d admits a port other than %d", np.Name, i, redisPort)
			}
			if len(rule.From) == 0 {
				c.failf("NetworkPolicy %s: ingress rule %d admits every source", np.Name, i)
			}
			for _, peer := range rule.From {
				sel, err := metav1.LabelSelectorAsSelector(peer.PodSelector)
				if peer.IPBlock != nil || peer.NamespaceSelector != nil || peer.PodSelector == nil || err != nil || sel.Empty() || !sel.Matches(serverPods) {
					c.failf("NetworkPolicy %s: ingress rule %d admits %s, want only the toolguard pods", np.Name, i, peerString(peer))
				}
			}
		}
	}
}
