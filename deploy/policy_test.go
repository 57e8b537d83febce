package deploy

import (
	"fmt"
	"maps"
	"net"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The deployment's fixed points.
const (
	containerName  = "toolguard"
	grpcPortName   = "grpc"
	nonRootID      = 65532
	workspacePath  = "/workspace"
	tmpPath        = "/tmp"
	secretsPath    = "/etc/toolguard/secrets"
	clientLabelKey = "toolguard-client"
	nameLabelKey   = "app.kubernetes.io/name"
	// healthService is the one service name the server's health service
	// reports besides "" (the whole server).
	healthService = "toolguard.v1.ToolGuardService"
)

// The command the container must run.
var serveCommand = []string{"/toolguard", "serve"}

// The settings the ConfigMap must set explicitly rather than rely on the
// binary's defaults: where to listen and keep files, the timing the
// termination grace period and client rebalancing depend on, and the
// streams' buffer, the unary calls' memory and the syntax checks' memory,
// which must fit the memory limit.
var requiredSettings = []string{
	"TOOLGUARD_LISTEN",
	"TOOLGUARD_WORKSPACE",
	"TOOLGUARD_DRAIN_DELAY",
	"TOOLGUARD_SHUTDOWN_TIMEOUT",
	"TOOLGUARD_MAX_CONNECTION_AGE",
	"TOOLGUARD_MAX_CONNECTION_AGE_GRACE",
	"TOOLGUARD_MAX_STREAM_BUFFER_BYTES",
	"TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY",
	"TOOLGUARD_MAX_UNARY_MEMORY_BYTES",
	"TOOLGUARD_MAX_CONNECTIONS",
}

// streamBufferShare is the part of the memory limit the streams' buffer
// may take, as a divisor: open calls hold up to twice their text (slices
// grow by doubling) and the Go heap grows to twice what is live before it
// is collected, so the buffer can cost four times its bytes, and that gets
// at most half the pod (docs/limits.md).
const streamBufferShare = 8

// syntaxMemoryShare is the part of the memory limit the syntax checks
// running at once may hold, as a divisor: the binary's default (1 GiB) is
// for a machine, not a pod. With the streams' half and the unary calls'
// 3/16, a sixteenth leaves a quarter of the pod to the runtime and what no
// setting bounds (docs/limits.md).
const syntaxMemoryShare = 16

// The unary calls' memory budget is measured peak memory, the collector's
// headroom included: at most 3/16 of the memory limit, which with the
// streams' half leaves 5/16 to the runtime and what no setting bounds
// (docs/limits.md).
const unaryMemoryShareNum, unaryMemoryShareDen = 3, 16

// connectionsShare is the part of the memory limit the client connections
// may take when idle, as a divisor, at connectionBytes each: an idle
// plaintext gRPC connection holds 12 to 16 KiB of the server's memory (its
// transport's goroutines and buffers, docs/limits.md#connections). A
// hundred-and-twenty-eighth fits, with the collector's headroom, in what
// the other shares leave to the runtime.
const connectionsShare, connectionBytes = 128, 16 << 10

// receivingShare is the part of the memory limit the requests being
// received may hold when TOOLGUARD_MAX_RECEIVING_CALLS bounds them, as a
// divisor: they are heap, doubled by the collector's headroom.
const receivingShare = 8

// defaultMaxRecvMsgBytes is --max-recv-msg-bytes' default: the unary
// budget must be at least 3 times the largest request (the server refuses
// to start otherwise).
const defaultMaxRecvMsgBytes = 16 << 20

// want is what the policies expect of one overlay beyond what they expect of
// all.
type want struct {
	// workspace is the one source of the workspace volume, by its field name
	// in corev1.VolumeSource: "EmptyDir" or "PersistentVolumeClaim".
	workspace string
	// externalSecrets are Secrets the manifests reference but do not render
	// (created outside kustomize). Their references must be optional.
	externalSecrets []string
	// egressPorts are the ports egress may reach (DNS: 53); any but DNS
	// only to named peers.
	egressPorts []int32
	// redis: the overlay runs its own Redis (redis_policy_test.go).
	redis bool
}

// checker collects policy violations.
type checker struct{ problems []string }

func (c *checker) failf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// checkPolicies returns every way r breaks the deployment policies; settings
// are the known TOOLGUARD_* variables.
func checkPolicies(r *rendered, settings map[string]bool, w want) []string {
	c := &checker{}
	if len(r.deployments) != 1 {
		c.failf("want exactly one Deployment, have %d", len(r.deployments))
		return c.problems
	}
	d := r.deployments[0]
	pod := &d.Spec.Template.Spec
	podLabels := labels.Set(d.Spec.Template.Labels)

	checkLabels(c, r, d)
	// The Redis objects have policies of their own; the rest are the server's.
	all := r
	r, store := splitStore(r)
	if w.redis {
		var selector labels.Set
		if d.Spec.Selector != nil {
			selector = d.Spec.Selector.MatchLabels
		}
		checkRedis(c, store, podLabels, selector)
	} else {
		for _, o := range store.objects() {
			c.failf("%s: a Redis object in an overlay without Redis", describe(o))
		}
	}

	i := slices.IndexFunc(pod.Containers, func(ct corev1.Container) bool { return ct.Name == containerName })
	if i < 0 {
		c.failf("Deployment %s: no container named %s", d.Name, containerName)
		return c.problems
	}
	ct := &pod.Containers[i]

	if got := append(slices.Clone(ct.Command), ct.Args...); !slices.Equal(got, serveCommand) {
		c.failf("container %s runs %q, want %q (settings belong in the ConfigMap, not in flags)", ct.Name, got, serveCommand)
	}
	checkImage(c, ct)

	port := grpcPort(c, ct)
	config := checkConfig(c, r, ct, settings, w)
	drain, shutdown := config.duration(c, "TOOLGUARD_DRAIN_DELAY"), config.duration(c, "TOOLGUARD_SHUTDOWN_TIMEOUT")
	if port != 0 {
		checkListen(c, config, port)
		checkProbe(c, "readinessProbe", ct.ReadinessProbe, port, true)
		checkProbe(c, "livenessProbe", ct.LivenessProbe, port, true)
		checkProbe(c, "startupProbe", ct.StartupProbe, port, false)
	}
	if age := config.duration(c, "TOOLGUARD_MAX_CONNECTION_AGE"); config.has("TOOLGUARD_MAX_CONNECTION_AGE") && age <= 0 {
		c.failf("TOOLGUARD_MAX_CONNECTION_AGE is %s: clients would never reconnect, so never rebalance over replicas", age)
	}
	config.duration(c, "TOOLGUARD_MAX_CONNECTION_AGE_GRACE")
	checkShutdownTiming(c, pod, ct, drain, shutdown)

	checkSecurity(c, pod, ct)
	checkResources(c, ct)
	checkStreamBuffer(c, ct, config)
	checkSyntaxMemory(c, ct, config)
	checkUnaryMemory(c, ct, config)
	checkConnections(c, ct, config)
	checkReceiving(c, ct, config)
	checkServiceAccount(c, r, pod)
	checkVolumes(c, r, d, ct, config, w)
	metricsPort := checkMetrics(c, d, ct, config)
	if port != 0 {
		checkServices(c, r, podLabels, ct, port)
		checkNetworkPolicies(c, r, podLabels, port, metricsPort, w)
	}
	checkPDBs(c, r, podLabels, replicas(all, d))
	checkReplicas(c, all, d, ct, config)
	return c.problems
}

// checkLabels checks the selector against the pod labels and that every
// object carries the common labels.
func checkLabels(c *checker, r *rendered, d *appsv1.Deployment) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	switch {
	case err != nil:
		c.failf("Deployment %s: selector: %v", d.Name, err)
	case sel.Empty() || !sel.Matches(labels.Set(d.Spec.Template.Labels)):
		c.failf("Deployment %s: selector %q does not select its own pod labels %v", d.Name, sel, d.Spec.Template.Labels)
	}
	if d.Spec.Template.Labels[nameLabelKey] == "" {
		c.failf("Deployment %s: pod template has no %s label", d.Name, nameLabelKey)
	}
	for _, o := range r.objects() {
		if o.GetLabels()[nameLabelKey] == "" {
			c.failf("%s: no %s label", describe(o), nameLabelKey)
		}
	}
}

// checkImage wants a pinned image: a digest, or a tag other than latest.
func checkImage(c *checker, ct *corev1.Container) {
	img := ct.Image
	if strings.Contains(img, "@sha256:") {
		return
	}
	tag := ""
	if i := strings.LastIndex(img, ":"); i > strings.LastIndex(img, "/") {
		tag = img[i+1:]
	}
	if tag == "" || tag == "latest" {
		c.failf("container %s: image %q is not pinned (no tag, latest, or no digest): the overlay's images: entry is missing", ct.Name, img)
	}
}

// grpcPort returns the container port named grpc, or 0 after reporting
// that there is none.
func grpcPort(c *checker, ct *corev1.Container) int32 {
	for _, p := range ct.Ports {
		if p.Name == grpcPortName {
			if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
				c.failf("container %s: port %s is %s, want TCP", ct.Name, p.Name, p.Protocol)
			}
			return p.ContainerPort
		}
	}
	c.failf("container %s: no port named %s", ct.Name, grpcPortName)
	return 0
}

// checkProbe wants a native gRPC probe on the gRPC port, asking about the
// whole server or the ToolGuardService.
func checkProbe(c *checker, name string, p *corev1.Probe, port int32, required bool) {
	if p == nil {
		if required {
			c.failf("%s: missing", name)
		}
		return
	}
	h := p.ProbeHandler
	if h.GRPC == nil {
		c.failf("%s: not a native gRPC probe (grpc.health.v1)", name)
		return
	}
	if h.Exec != nil || h.HTTPGet != nil || h.TCPSocket != nil {
		c.failf("%s: more than one handler", name)
	}
	if h.GRPC.Port != port {
		c.failf("%s: gRPC port %d is not the container port named %s (%d)", name, h.GRPC.Port, grpcPortName, port)
	}
	if s := h.GRPC.Service; s != nil && *s != "" && *s != healthService {
		c.failf("%s: health service %q is not reported by the server (want \"\" or %q)", name, *s, healthService)
	}
}

// config is the environment the container gets from its ConfigMaps.
type config map[string]string

func (cfg config) has(key string) bool { _, ok := cfg[key]; return ok }

// duration parses a duration setting, reporting a bad one; a missing one is
// reported by checkConfig.
func (cfg config) duration(c *checker, key string) time.Duration {
	v, ok := cfg[key]
	if !ok {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		c.failf("%s=%q: %v", key, v, err)
		return 0
	}
	if d < 0 {
		c.failf("%s=%q is negative", key, v)
	}
	return d
}

// checkConfig checks the container's envFrom and env: every ConfigMap and
// Secret they name is rendered, every key is a known setting, and the
// required settings are there. It returns the settings.
func checkConfig(c *checker, r *rendered, ct *corev1.Container, settings map[string]bool, w want) config {
	cfg := config{}
	for _, src := range ct.EnvFrom {
		if src.Prefix != "" {
			c.failf("envFrom prefix %q: the keys must be the settings' names as they are", src.Prefix)
		}
		if ref := src.SecretRef; ref != nil && byName(r.secrets, ref.Name) == nil {
			c.failf("envFrom Secret %q is not rendered", ref.Name)
		}
		ref := src.ConfigMapRef
		if ref == nil {
			continue
		}
		cm := byName(r.configMaps, ref.Name)
		if cm == nil {
			c.failf("envFrom ConfigMap %q is not rendered", ref.Name)
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
			if !settings[k] {
				c.failf("ConfigMap %s: key %s is not a toolguard serve setting (see %s)", cm.Name, k, settingsDir)
			}
			cfg[k] = cm.Data[k]
		}
		for k := range cm.BinaryData {
			c.failf("ConfigMap %s: binary key %s cannot be an environment variable", cm.Name, k)
		}
	}
	for _, e := range ct.Env {
		if strings.HasPrefix(e.Name, "TOOLGUARD_") && !settings[e.Name] {
			c.failf("env %s is not a toolguard serve setting", e.Name)
		}
		if e.ValueFrom == nil {
			continue
		}
		if ref := e.ValueFrom.ConfigMapKeyRef; ref != nil {
			if cm := byName(r.configMaps, ref.Name); cm == nil {
				c.failf("env %s: ConfigMap %q is not rendered", e.Name, ref.Name)
			} else if _, ok := cm.Data[ref.Key]; !ok {
				c.failf("env %s: ConfigMap %s has no key %s", e.Name, ref.Name, ref.Key)
			}
		}
		if ref := e.ValueFrom.SecretKeyRef; ref != nil && byName(r.secrets, ref.Name) == nil && !slices.Contains(w.externalSecrets, ref.Name) {
			c.failf("env %s: Secret %q is not rendered", e.Name, ref.Name)
		}
	}
	for _, k := range requiredSettings {
		if !cfg.has(k) {
			c.failf("ConfigMap: %s is not set", k)
		}
	}
	return cfg
}

// checkListen wants the server on every interface of the pod, on the gRPC
// port.
func checkListen(c *checker, cfg config, port int32) {
	v, ok := cfg["TOOLGUARD_LISTEN"]
	if !ok {
		return
	}
	host, p, err := net.SplitHostPort(v)
	if err != nil {
		c.failf("TOOLGUARD_LISTEN=%q: %v", v, err)
		return
	}
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		c.failf("TOOLGUARD_LISTEN=%q: the Service and the probes cannot reach %s; listen on 0.0.0.0", v, host)
	}
	if p != strconv.Itoa(int(port)) {
		c.failf("TOOLGUARD_LISTEN=%q: port %s is not the container port named %s (%d)", v, p, grpcPortName, port)
	}
}

// checkShutdownTiming wants the kubelet to wait out the server's whole
// drain, and the liveness probe not to kill it while it drains.
func checkShutdownTiming(c *checker, pod *corev1.PodSpec, ct *corev1.Container, drain, shutdown time.Duration) {
	if pod.TerminationGracePeriodSeconds == nil {
		c.failf("terminationGracePeriodSeconds is not set")
	} else if grace := time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second; grace <= drain+shutdown {
		c.failf("terminationGracePeriodSeconds %s is not longer than TOOLGUARD_DRAIN_DELAY %s + TOOLGUARD_SHUTDOWN_TIMEOUT %s: SIGKILL would cut the drain short",
			grace, drain, shutdown)
	}
	if p := ct.LivenessProbe; p != nil {
		period, failures := p.PeriodSeconds, p.FailureThreshold
		if period == 0 {
			period = 10
		}
		if failures == 0 {
			failures = 3
		}
		if window := time.Duration(period*failures) * time.Second; window <= drain+shutdown {
			c.failf("livenessProbe fails after %s, not longer than drain %s + shutdown %s: a draining server (NOT_SERVING) could be killed",
				window, drain, shutdown)
		}
	}
}

// first returns the first non-nil pointer: the container's setting wins
// over the pod's.
func first[T any](ps ...*T) *T {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}

func isTrue(p *bool) bool  { return p != nil && *p }
func isFalse(p *bool) bool { return p != nil && !*p }

// checkSecurity wants a non-root, unprivileged, read-only container with no
// capabilities and the runtime's seccomp profile, and no host namespaces.
func checkSecurity(c *checker, pod *corev1.PodSpec, ct *corev1.Container) {
	ps := pod.SecurityContext
	if ps == nil {
		c.failf("pod securityContext is missing")
		ps = &corev1.PodSecurityContext{}
	}
	cs := ct.SecurityContext
	if cs == nil {
		c.failf("container %s: securityContext is missing", ct.Name)
		cs = &corev1.SecurityContext{}
	}
	if !isTrue(first(cs.RunAsNonRoot, ps.RunAsNonRoot)) {
		c.failf("runAsNonRoot is not true")
	}
	if u := first(cs.RunAsUser, ps.RunAsUser); u == nil || *u != nonRootID {
		c.failf("runAsUser is not %d", nonRootID)
	}
	if g := first(cs.RunAsGroup, ps.RunAsGroup); g == nil || *g != nonRootID {
		c.failf("runAsGroup is not %d", nonRootID)
	}
	if sp := first(cs.SeccompProfile, ps.SeccompProfile); sp == nil || sp.Type != corev1.SeccompProfileTypeRuntimeDefault {
		c.failf("seccompProfile is not RuntimeDefault")
	}
	if !isFalse(cs.AllowPrivilegeEscalation) {
		c.failf("container %s: allowPrivilegeEscalation is not false", ct.Name)
	}
	if isTrue(cs.Privileged) {
		c.failf("container %s: privileged", ct.Name)
	}
	if !isTrue(cs.ReadOnlyRootFilesystem) {
		c.failf("container %s: readOnlyRootFilesystem is not true", ct.Name)
	}
	if caps := cs.Capabilities; caps == nil || !slices.Contains(caps.Drop, "ALL") {
		c.failf("container %s: capabilities do not drop ALL", ct.Name)
	} else if len(caps.Add) > 0 {
		c.failf("container %s: capabilities add %v", ct.Name, caps.Add)
	}
	if pod.HostNetwork || pod.HostPID || pod.HostIPC {
		c.failf("pod shares a host namespace")
	}
	if !isFalse(pod.EnableServiceLinks) {
		c.failf("enableServiceLinks is not false: a Service named toolguard injects TOOLGUARD_PORT and TOOLGUARD_SERVICE_* into the server's settings namespace")
	}
}

// checkResources wants CPU and memory requests and limits, requests no
// larger than limits.
func checkResources(c *checker, ct *corev1.Container) {
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, hasReq := ct.Resources.Requests[name]
		lim, hasLim := ct.Resources.Limits[name]
		if !hasReq || req.IsZero() {
			c.failf("container %s: no %s request", ct.Name, name)
		}
		if !hasLim || lim.IsZero() {
			c.failf("container %s: no %s limit", ct.Name, name)
		}
		if hasReq && hasLim && req.Cmp(lim) > 0 {
			c.failf("container %s: %s request %s is above the limit %s", ct.Name, name, req.String(), lim.String())
		}
	}
}

// checkStreamBuffer wants the streams' buffer to fit the memory limit.
func checkStreamBuffer(c *checker, ct *corev1.Container, cfg config) {
	checkMemoryShare(c, ct, cfg, "TOOLGUARD_MAX_STREAM_BUFFER_BYTES", 1, streamBufferShare, "streams buffering their calls")
}

// checkSyntaxMemory wants the syntax checks' memory to fit the memory limit.
func checkSyntaxMemory(c *checker, ct *corev1.Container, cfg config) {
	checkMemoryShare(c, ct, cfg, "TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY", 1, syntaxMemoryShare, "large files checked at once")
}

// checkUnaryMemory wants the unary calls' memory to fit the memory limit
// and to hold a request of the largest size.
func checkUnaryMemory(c *checker, ct *corev1.Container, cfg config) {
	const key = "TOOLGUARD_MAX_UNARY_MEMORY_BYTES"
	n, ok := checkMemoryShare(c, ct, cfg, key, unaryMemoryShareNum, unaryMemoryShareDen, "large unary calls handled at once")
	recv := int64(defaultMaxRecvMsgBytes)
	if r, set := cfg["TOOLGUARD_MAX_RECV_MSG_BYTES"]; set {
		recv, _ = strconv.ParseInt(r, 10, 64)
	}
	if ok && n < 3*recv {
		c.failf("%s=%d is less than 3 times TOOLGUARD_MAX_RECV_MSG_BYTES (%d): the server would not start", key, n, recv)
	}
}

// checkConnections wants the idle connections' memory to fit the memory
// limit.
func checkConnections(c *checker, ct *corev1.Container, cfg config) {
	const key = "TOOLGUARD_MAX_CONNECTIONS"
	v, ok := cfg[key]
	lim, hasLim := ct.Resources.Limits[corev1.ResourceMemory]
	if !ok || !hasLim {
		return // reported by checkConfig and checkResources
	}
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil || n <= 0:
		c.failf("%s=%q: want a positive whole number", key, v)
	case n*connectionBytes*connectionsShare > lim.Value():
		c.failf("%s=%d is more than the 1/%d of the memory limit %s holds at %d KiB a connection (%d): open connections could take the pod past it",
			key, n, connectionsShare, lim.String(), connectionBytes>>10, lim.Value()/connectionsShare/connectionBytes)
	}
}

// checkReceiving wants the requests being received, when bounded (the
// setting is optional: off by default, docs/limits.md), to fit the memory
// limit.
func checkReceiving(c *checker, ct *corev1.Container, cfg config) {
	const key = "TOOLGUARD_MAX_RECEIVING_CALLS"
	v, ok := cfg[key]
	lim, hasLim := ct.Resources.Limits[corev1.ResourceMemory]
	if !ok || !hasLim {
		return
	}
	n, err := strconv.ParseInt(v, 10, 64)
	recv := int64(defaultMaxRecvMsgBytes)
	if r, set := cfg["TOOLGUARD_MAX_RECV_MSG_BYTES"]; set {
		recv, _ = strconv.ParseInt(r, 10, 64)
	}
	switch {
	case err != nil || n < 0:
		c.failf("%s=%q: want a whole number (0: no bound)", key, v)
	case n*recv*receivingShare > lim.Value():
		c.failf("%s=%d times TOOLGUARD_MAX_RECV_MSG_BYTES (%d) is more than 1/%d of the memory limit %s: requests being received could take the pod past it",
			key, n, recv, receivingShare, lim.String())
	}
}

// checkMemoryShare wants the byte count the setting key holds to be at
// most num/den of the container's memory limit, where what would take the
// pod past it; it returns the count, and whether it was a valid one within
// its share.
func checkMemoryShare(c *checker, ct *corev1.Container, cfg config, key string, num, den int64, what string) (int64, bool) {
	v, ok := cfg[key]
	lim, hasLim := ct.Resources.Limits[corev1.ResourceMemory]
	if !ok || !hasLim {
		return 0, false // reported by checkConfig and checkResources
	}
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil || n <= 0:
		c.failf("%s=%q: want a positive whole number of bytes", key, v)
		return 0, false
	case n*den > lim.Value()*num:
		c.failf("%s=%d is more than %d/%d of the memory limit %s (%d bytes): %s could take the pod past it",
			key, n, num, den, lim.String(), lim.Value()*num/den, what)
		return n, false
	}
	return n, true
}

// checkServiceAccount wants a dedicated, rendered ServiceAccount and no API
// token in the pod.
func checkServiceAccount(c *checker, r *rendered, pod *corev1.PodSpec) {
	name := pod.ServiceAccountName
	if name == "" || name == "default" {
		c.failf("pod runs as the namespace's default ServiceAccount")
		return
	}
	sa := byName(r.serviceAccounts, name)
	if sa == nil {
		c.failf("ServiceAccount %q is not rendered", name)
		return
	}
	if !isFalse(first(pod.AutomountServiceAccountToken, sa.AutomountServiceAccountToken)) {
		c.failf("the ServiceAccount token is mounted: toolguard never calls the Kubernetes API")
	}
}

// volumeSources returns the names of the sources set in v (one, if valid).
func volumeSources(v corev1.VolumeSource) []string {
	var names []string
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		if !rv.Field(i).IsNil() {
			names = append(names, rv.Type().Field(i).Name)
		}
	}
	return names
}

// checkVolumes checks the mounts (workspace, /tmp, the Secret), that every
// volume's ConfigMap, Secret and claim is rendered, and that the replica
// count and strategy suit the workspace volume.
func checkVolumes(c *checker, r *rendered, d *appsv1.Deployment, ct *corev1.Container, cfg config, w want) {
	pod := &d.Spec.Template.Spec
	volumes := map[string]*corev1.Volume{}
	for i := range pod.Volumes {
		v := &pod.Volumes[i]
		volumes[v.Name] = v
		if src := volumeSources(v.VolumeSource); len(src) != 1 {
			c.failf("volume %s: want one source, have %v", v.Name, src)
		}
		if cm := v.ConfigMap; cm != nil && byName(r.configMaps, cm.Name) == nil {
			c.failf("volume %s: ConfigMap %q is not rendered", v.Name, cm.Name)
		}
		if s := v.Secret; s != nil && byName(r.secrets, s.SecretName) == nil {
			switch {
			case !slices.Contains(w.externalSecrets, s.SecretName):
				c.failf("volume %s: Secret %q is not rendered", v.Name, s.SecretName)
			case !isTrue(s.Optional):
				c.failf("volume %s: external Secret %q is not optional: the pod cannot start before it exists", v.Name, s.SecretName)
			}
		}
		if pvc := v.PersistentVolumeClaim; pvc != nil && byName(r.pvcs, pvc.ClaimName) == nil {
			c.failf("volume %s: PersistentVolumeClaim %q is not rendered", v.Name, pvc.ClaimName)
		}
	}
	mounted := func(path string) (*corev1.VolumeMount, *corev1.Volume) {
		for i := range ct.VolumeMounts {
			if m := &ct.VolumeMounts[i]; m.MountPath == path {
				return m, volumes[m.Name]
			}
		}
		return nil, nil
	}
	for _, m := range ct.VolumeMounts {
		if volumes[m.Name] == nil {
			c.failf("mount %s: no volume %s", m.MountPath, m.Name)
		}
	}

	// The workspace.
	if v := cfg["TOOLGUARD_WORKSPACE"]; cfg.has("TOOLGUARD_WORKSPACE") && v != workspacePath {
		c.failf("TOOLGUARD_WORKSPACE=%q is not the workspace mount %s", v, workspacePath)
	}
	m, v := mounted(workspacePath)
	switch {
	case m == nil || v == nil:
		c.failf("no workspace volume mounted at %s", workspacePath)
	default:
		if m.ReadOnly {
			c.failf("workspace mount %s is read-only", workspacePath)
		}
		if src := volumeSources(v.VolumeSource); !slices.Equal(src, []string{w.workspace}) {
			c.failf("workspace volume %s: source %v, want %s", v.Name, src, w.workspace)
		}
		if v.PersistentVolumeClaim != nil {
			checkClaim(c, r, d, v.PersistentVolumeClaim)
		}
	}

	// /tmp, since the root file system is read-only.
	if m, v := mounted(tmpPath); m == nil || v == nil || v.EmptyDir == nil || m.ReadOnly {
		c.failf("no writable emptyDir mounted at %s", tmpPath)
	}

	// The Secret files.
	m, v = mounted(secretsPath)
	switch {
	case m == nil || v == nil || v.Secret == nil:
		c.failf("no Secret volume mounted at %s", secretsPath)
	default:
		if !m.ReadOnly {
			c.failf("Secret mount %s is not read-only", secretsPath)
		}
		if !isTrue(v.Secret.Optional) {
			c.failf("Secret volume %s is not optional: the pod cannot start without the Secret", v.Name)
		}
	}
}

// checkClaim checks the workspace claim against the Deployment: a volume
// that attaches to one node at a time wants one replica, replaced with
// Recreate.
func checkClaim(c *checker, r *rendered, d *appsv1.Deployment, src *corev1.PersistentVolumeClaimVolumeSource) {
	if src.ReadOnly {
		c.failf("workspace claim %s is mounted read-only", src.ClaimName)
	}
	pvc := byName(r.pvcs, src.ClaimName)
	if pvc == nil {
		return // reported with the volumes
	}
	modes := pvc.Spec.AccessModes
	if len(modes) == 0 {
		c.failf("PersistentVolumeClaim %s: no access mode", pvc.Name)
	}
	if _, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; !ok {
		c.failf("PersistentVolumeClaim %s: no storage request", pvc.Name)
	}
	if slices.Contains(modes, corev1.ReadWriteMany) {
		return
	}
	if n := replicas(r, d); n != 1 {
		c.failf("Deployment %s: %d replicas on the ReadWriteOnce claim %s: want 1", d.Name, n, pvc.Name)
	}
	if d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		c.failf("Deployment %s: strategy %q on the ReadWriteOnce claim %s: want Recreate (a surge pod on another node cannot attach it)",
			d.Name, d.Spec.Strategy.Type, pvc.Name)
	}
}

// replicas returns the least replica count of the Deployment: its
// autoscaler's minimum when one scales it, else its own (1 when unset).
func replicas(r *rendered, d *appsv1.Deployment) int32 {
	for _, h := range r.hpas {
		if ref := h.Spec.ScaleTargetRef; ref.Kind == "Deployment" && ref.Name == d.Name {
			if h.Spec.MinReplicas == nil {
				return 1
			}
			return *h.Spec.MinReplicas
		}
	}
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// checkServices wants every Service to select the pods and expose only the
// gRPC port, and at least one Service.
func checkServices(c *checker, r *rendered, podLabels labels.Set, ct *corev1.Container, port int32) {
	if len(r.services) == 0 {
		c.failf("no Service")
	}
	for _, s := range r.services {
		if len(s.Spec.Selector) == 0 || !labels.SelectorFromSet(s.Spec.Selector).Matches(podLabels) {
			c.failf("Service %s: selector %v does not select the pods %v", s.Name, s.Spec.Selector, podLabels)
		}
		if t := s.Spec.Type; t != "" && t != corev1.ServiceTypeClusterIP {
			c.failf("Service %s: type %s, want ClusterIP", s.Name, t)
		}
		if len(s.Spec.Ports) == 0 {
			c.failf("Service %s: no ports", s.Name)
		}
		for _, p := range s.Spec.Ports {
			if p.Name != grpcPortName {
				c.failf("Service %s: port %q is not named %s", s.Name, p.Name, grpcPortName)
			}
			if !targetsPort(p.TargetPort, port, p.Port) {
				c.failf("Service %s: port %s targets %s, not the container port named %s (%d)", s.Name, p.Name, p.TargetPort.String(), grpcPortName, port)
			}
			if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
				c.failf("Service %s: port %s is %s, want TCP", s.Name, p.Name, p.Protocol)
			}
			if p.AppProtocol == nil || *p.AppProtocol != "grpc" {
				c.failf("Service %s: port %s has no appProtocol grpc", s.Name, p.Name)
			}
		}
	}
}

// targetsPort reports whether a Service or NetworkPolicy port names the
// container's gRPC port; an unset targetPort means the Service port.
func targetsPort(target intstr.IntOrString, port, servicePort int32) bool {
	switch {
	case target.Type == intstr.String:
		return target.StrVal == grpcPortName
	case target.IntVal == 0:
		return servicePort == port
	default:
		return target.IntVal == port
	}
}

// checkPDBs wants every PodDisruptionBudget to select the pods, at least one
// of them, and each to let at least one pod be evicted (a node drain must not
// hang) while keeping one when there are several.
func checkPDBs(c *checker, r *rendered, podLabels labels.Set, n int32) {
	if len(r.pdbs) == 0 {
		c.failf("no PodDisruptionBudget")
	}
	for _, p := range r.pdbs {
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		if err != nil || p.Spec.Selector == nil || sel.Empty() || !sel.Matches(podLabels) {
			c.failf("PodDisruptionBudget %s: selector does not select the pods %v", p.Name, podLabels)
		}
		minA, maxU := p.Spec.MinAvailable, p.Spec.MaxUnavailable
		if (minA == nil) == (maxU == nil) {
			c.failf("PodDisruptionBudget %s: want exactly one of minAvailable and maxUnavailable", p.Name)
			continue
		}
		var allowed int
		if minA != nil {
			v, err := intstr.GetScaledValueFromIntOrPercent(minA, int(n), true)
			if err != nil {
				c.failf("PodDisruptionBudget %s: minAvailable: %v", p.Name, err)
				continue
			}
			allowed = int(n) - v
		} else {
			v, err := intstr.GetScaledValueFromIntOrPercent(maxU, int(n), true)
			if err != nil {
				c.failf("PodDisruptionBudget %s: maxUnavailable: %v", p.Name, err)
				continue
			}
			allowed = min(v, int(n))
		}
		if allowed < 1 {
			c.failf("PodDisruptionBudget %s: allows no eviction of %d replicas: node drains would hang", p.Name, n)
		}
		if n > 1 && allowed >= int(n) {
			c.failf("PodDisruptionBudget %s: allows evicting all %d replicas", p.Name, n)
		}
	}
}

// checkNetworkPolicies wants every NetworkPolicy to select the pods, at least
// one, restricting both directions: ingress only to the gRPC port and only
// from toolguard-client pods, egress only to the allowed ports.
func checkNetworkPolicies(c *checker, r *rendered, podLabels labels.Set, port, metricsPort int32, w want) {
	if len(r.netpols) == 0 {
		c.failf("no NetworkPolicy")
	}
	clientSelector := map[string]string{clientLabelKey: "true"}
	for _, np := range r.netpols {
		sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
		if err != nil || sel.Empty() || !sel.Matches(podLabels) {
			c.failf("NetworkPolicy %s: podSelector does not select the pods %v", np.Name, podLabels)
		}
		types := np.Spec.PolicyTypes
		if !slices.Contains(types, networkingv1.PolicyTypeIngress) || !slices.Contains(types, networkingv1.PolicyTypeEgress) {
			c.failf("NetworkPolicy %s: policyTypes %v, want Ingress and Egress", np.Name, types)
		}
		if len(np.Spec.Ingress) == 0 {
			c.failf("NetworkPolicy %s: no ingress rule: no client could call", np.Name)
		}
		for i, rule := range np.Spec.Ingress {
			if metricsPort != 0 && onlyPort(rule.Ports, metricsPort) {
				checkScrapeRule(c, np.Name, i, rule)
				continue
			}
			if len(rule.From) == 0 {
				c.failf("NetworkPolicy %s: ingress rule %d admits every source", np.Name, i)
			}
			for _, peer := range rule.From {
				if peer.IPBlock != nil || peer.NamespaceSelector != nil || peer.PodSelector == nil ||
					len(peer.PodSelector.MatchExpressions) > 0 || !maps.Equal(peer.PodSelector.MatchLabels, clientSelector) {
					c.failf("NetworkPolicy %s: ingress rule %d admits %s, want only pods labelled %s: \"true\"", np.Name, i, peerString(peer), clientLabelKey)
				}
			}
			if len(rule.Ports) == 0 {
				c.failf("NetworkPolicy %s: ingress rule %d admits every port", np.Name, i)
			}
			for _, p := range rule.Ports {
				if p.Port == nil || !targetsPort(*p.Port, port, -1) || p.EndPort != nil || (p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP) {
					c.failf("NetworkPolicy %s: ingress rule %d admits a port other than TCP %d", np.Name, i, port)
				}
			}
		}
		for i, rule := range np.Spec.Egress {
			if len(rule.Ports) == 0 {
				c.failf("NetworkPolicy %s: egress rule %d allows every port", np.Name, i)
			}
			for _, p := range rule.Ports {
				if p.Port == nil || p.Port.Type != intstr.Int || !slices.Contains(w.egressPorts, p.Port.IntVal) || p.EndPort != nil {
					c.failf("NetworkPolicy %s: egress rule %d allows a port other than %v", np.Name, i, w.egressPorts)
				} else if p.Port.IntVal != 53 && len(rule.To) == 0 {
					c.failf("NetworkPolicy %s: egress rule %d allows port %d to every destination, want only the peers that serve it", np.Name, i, p.Port.IntVal)
				}
			}
		}
	}
}

func peerString(p networkingv1.NetworkPolicyPeer) string {
	var parts []string
	if p.PodSelector != nil {
		parts = append(parts, fmt.Sprintf("pods %v", metav1.FormatLabelSelector(p.PodSelector)))
	}
	if p.NamespaceSelector != nil {
		parts = append(parts, fmt.Sprintf("namespaces %v", metav1.FormatLabelSelector(p.NamespaceSelector)))
	}
	if p.IPBlock != nil {
		parts = append(parts, "ipBlock "+p.IPBlock.CIDR)
	}
	return strings.Join(parts, " in ")
}

// quantity is a shorthand for tests.
func quantity(s string) resource.Quantity { return resource.MustParse(s) }
