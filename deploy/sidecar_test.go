package deploy

import (
	"net"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

const sidecarDir = "examples/sidecar"

// checkSidecar holds the sidecar example to its policies: toolguard is a
// native sidecar of the agent's pod, reachable on the loopback only, with
// the server's security and resources, sharing an emptyDir workspace with
// another container of the pod.
func checkSidecar(r *rendered, settings map[string]bool) []string {
	c := &checker{}
	if len(r.deployments) != 1 {
		c.failf("want exactly one Deployment, have %d", len(r.deployments))
		return c.problems
	}
	pod := &r.deployments[0].Spec.Template.Spec
	i := slices.IndexFunc(pod.InitContainers, func(ct corev1.Container) bool { return ct.Name == containerName })
	if i < 0 {
		c.failf("no init container %s: as a plain container it would neither start before the agent nor stop after it", containerName)
		return c.problems
	}
	ct := &pod.InitContainers[i]
	if ct.RestartPolicy == nil || *ct.RestartPolicy != corev1.ContainerRestartPolicyAlways {
		c.failf("init container %s: restartPolicy is not Always: not a native sidecar, the pod would wait for it to exit", ct.Name)
	}
	if got := append(slices.Clone(ct.Command), ct.Args...); !slices.Equal(got, serveCommand) {
		c.failf("container %s runs %q, want %q", ct.Name, got, serveCommand)
	}
	checkImage(c, ct)
	cfg := checkConfig(c, r, ct, settings, want{})
	if host, _, err := net.SplitHostPort(cfg["TOOLGUARD_LISTEN"]); err != nil || !isLoopback(host) {
		c.failf("TOOLGUARD_LISTEN=%q: a sidecar listens on the loopback only", cfg["TOOLGUARD_LISTEN"])
	}
	if len(ct.Ports) > 0 {
		c.failf("container %s declares ports: nothing outside the pod should reach it", ct.Name)
	}
	if len(r.services) > 0 {
		c.failf("a Service exposes the agent's pod")
	}
	checkShutdownTiming(c, pod, ct, cfg.duration(c, "TOOLGUARD_DRAIN_DELAY"), cfg.duration(c, "TOOLGUARD_SHUTDOWN_TIMEOUT"))
	checkSecurity(c, pod, ct)
	checkResources(c, ct)
	checkStreamBuffer(c, ct, cfg)
	checkSyntaxMemory(c, ct, cfg)
	checkUnaryMemory(c, ct, cfg)
	checkConnections(c, ct, cfg)
	checkReceiving(c, ct, cfg)
	checkSharedWorkspace(c, pod, ct, cfg)
	return c.problems
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// checkSharedWorkspace wants the workspace on an emptyDir that another
// container of the pod mounts writable, and /tmp writable.
func checkSharedWorkspace(c *checker, pod *corev1.PodSpec, ct *corev1.Container, cfg config) {
	ws := cfg["TOOLGUARD_WORKSPACE"]
	name := mountName(ct, ws)
	if name == "" {
		c.failf("no volume mounted at TOOLGUARD_WORKSPACE=%q", ws)
		return
	}
	vi := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == name })
	if vi < 0 || pod.Volumes[vi].EmptyDir == nil {
		c.failf("workspace volume %s is not an emptyDir of the pod", name)
	}
	shared := false
	for _, other := range pod.Containers {
		for _, m := range other.VolumeMounts {
			shared = shared || (m.Name == name && !m.ReadOnly)
		}
	}
	if !shared {
		c.failf("no container of the pod mounts the workspace volume %s writable: the agent would not see toolguard's files", name)
	}
	if tmp := mountName(ct, tmpPath); tmp == "" {
		c.failf("no writable emptyDir mounted at %s", tmpPath)
	}
}

func renderSidecar(t *testing.T) [][]byte {
	t.Helper()
	docs, err := render(filesys.MakeFsOnDisk(), sidecarDir)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func sidecar(r *rendered) *corev1.Container {
	return &r.deployments[0].Spec.Template.Spec.InitContainers[0]
}

func agent(r *rendered) *corev1.Container {
	return &r.deployments[0].Spec.Template.Spec.Containers[0]
}

// TestSidecar renders the sidecar example, decodes it strictly, holds it to
// its policies, then breaks it one way at a time.
func TestSidecar(t *testing.T) {
	settings := loadSettings(t)
	docs := renderSidecar(t)
	baseline, err := decodeAll(docs)
	if err != nil {
		t.Fatal(err)
	}
	if problems := checkSidecar(baseline, settings); len(problems) != 0 {
		t.Fatalf("the sidecar example breaks the policies: %q", problems)
	}
	tests := []struct {
		name   string
		break_ func(r *rendered)
		want   string
	}{
		{"listens on every interface", func(r *rendered) { r.configMaps[0].Data["TOOLGUARD_LISTEN"] = "0.0.0.0:7700" }, "a sidecar listens on the loopback only"},
		{"declares a port", func(r *rendered) {
			sidecar(r).Ports = []corev1.ContainerPort{{Name: "grpc", ContainerPort: 7700}}
		}, "declares ports"},
		{"a plain container", func(r *rendered) {
			pod := &r.deployments[0].Spec.Template.Spec
			pod.Containers = append(pod.Containers, pod.InitContainers[0])
			pod.InitContainers = nil
		}, "no init container toolguard"},
		{"an init container that must exit", func(r *rendered) { sidecar(r).RestartPolicy = nil }, "not a native sidecar"},
		{"workspace not shared", func(r *rendered) { agent(r).VolumeMounts = nil }, "no container of the pod mounts the workspace volume workspace writable"},
		{"workspace shared read-only", func(r *rendered) { agent(r).VolumeMounts[0].ReadOnly = true }, "mounts the workspace volume workspace writable"},
		{"workspace on a claim", func(r *rendered) {
			r.deployments[0].Spec.Template.Spec.Volumes[0].VolumeSource = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "x"}}
		}, "is not an emptyDir of the pod"},
		{"workspace setting elsewhere", func(r *rendered) { r.configMaps[0].Data["TOOLGUARD_WORKSPACE"] = "/data" }, `no volume mounted at TOOLGUARD_WORKSPACE="/data"`},
		{"writable root", func(r *rendered) { sidecar(r).SecurityContext.ReadOnlyRootFilesystem = ptr(false) }, "readOnlyRootFilesystem is not true"},
		{"no memory limit", func(r *rendered) { delete(sidecar(r).Resources.Limits, corev1.ResourceMemory) }, "no memory limit"},
		{"stream buffer past the memory limit", func(r *rendered) { r.configMaps[0].Data["TOOLGUARD_MAX_STREAM_BUFFER_BYTES"] = "67108864" }, "more than 1/8 of the memory limit 256Mi"},
		{"syntax memory past the memory limit", func(r *rendered) { r.configMaps[0].Data["TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY"] = "33554432" }, "TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY=33554432 is more than 1/16 of the memory limit 256Mi"},
		{"unary memory past the memory limit", func(r *rendered) { r.configMaps[0].Data["TOOLGUARD_MAX_UNARY_MEMORY_BYTES"] = "67108864" }, "more than 3/16 of the memory limit 256Mi"},
		{"unknown setting", func(r *rendered) { r.configMaps[0].Data["TOOLGUARD_LISTENN"] = "127.0.0.1:7700" }, "TOOLGUARD_LISTENN is not a toolguard serve setting"},
		{"grace period too short", func(r *rendered) { r.deployments[0].Spec.Template.Spec.TerminationGracePeriodSeconds = ptr(int64(5)) }, "terminationGracePeriodSeconds 5s is not longer"},
		{"exposed by a Service", func(r *rendered) { r.services = append(r.services, &corev1.Service{}) }, "a Service exposes the agent's pod"},
		{"image not pinned", func(r *rendered) { sidecar(r).Image = "toolguard" }, "is not pinned"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := decodeAll(docs)
			if err != nil {
				t.Fatal(err)
			}
			tt.break_(r)
			problems := checkSidecar(r, settings)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Errorf("want a problem containing %q, have %q", tt.want, problems)
			}
		})
	}
}
