package deploy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"go/version"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// overlays lists every overlay under overlays/ with what the policies expect
// of it in particular. TestEveryOverlayIsChecked keeps it complete.
var overlays = []struct {
	name string
	want want
}{
	{"dev", want{
		workspace:   "EmptyDir",
		egressPorts: []int32{53},
	}},
	{"prod", want{
		workspace:       "PersistentVolumeClaim",
		externalSecrets: []string{"toolguard-secrets"},
		egressPorts:     []int32{53},
	}},
	{"replicas", want{
		workspace:       "PersistentVolumeClaim",
		externalSecrets: []string{"toolguard-secrets", "toolguard-redis"},
		egressPorts:     []int32{53, redisPort},
		redis:           true,
	}},
}

func wantFor(t *testing.T, name string) want {
	t.Helper()
	for _, o := range overlays {
		if o.name == name {
			return o.want
		}
	}
	t.Fatalf("overlay %s is not in the overlays table", name)
	return want{}
}

// renderOverlay renders overlays/name from disk.
func renderOverlay(t *testing.T, name string) [][]byte {
	t.Helper()
	docs, err := render(filesys.MakeFsOnDisk(), "overlays/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// decodeOverlay renders and decodes overlays/name.
func decodeOverlay(t *testing.T, name string) *rendered {
	t.Helper()
	r, err := decodeAll(renderOverlay(t, name))
	if err != nil {
		t.Fatalf("overlay %s: %v", name, err)
	}
	return r
}

func loadSettings(t *testing.T) map[string]bool {
	t.Helper()
	settings, err := knownSettings(settingsDir)
	if err != nil {
		t.Fatalf("read the toolguard serve settings: %v", err)
	}
	return settings
}

func ptr[T any](v T) *T { return &v }

func TestEveryOverlayIsChecked(t *testing.T) {
	dirs, err := overlayDirs()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range overlays {
		names = append(names, o.name)
	}
	slices.Sort(names)
	if !slices.Equal(dirs, names) {
		t.Errorf("overlays on disk %v, in the overlays table %v: add the new overlay to the table", dirs, names)
	}
}

func TestKnownSettings(t *testing.T) {
	settings := loadSettings(t)
	for _, k := range requiredSettings {
		if !settings[k] {
			t.Errorf("%s is not a setting in %s: the deployment relies on it", k, settingsDir)
		}
	}
}

// TestOverlays renders each overlay and holds it to the policies.
func TestOverlays(t *testing.T) {
	settings := loadSettings(t)
	for _, o := range overlays {
		t.Run(o.name, func(t *testing.T) {
			r := decodeOverlay(t, o.name)
			for _, p := range checkPolicies(r, settings, o.want) {
				t.Error(p)
			}
			var objs []string
			for _, obj := range r.objects() {
				objs = append(objs, describe(obj))
			}
			t.Logf("%s: %d objects: %s", o.name, len(objs), strings.Join(objs, ", "))
		})
	}
}

// TestOverlayDifferences checks what each overlay is for beyond the common
// policies.
func TestOverlayDifferences(t *testing.T) {
	dev, prod := decodeOverlay(t, "dev"), decodeOverlay(t, "prod")

	if len(dev.pvcs) != 0 {
		t.Errorf("dev renders PersistentVolumeClaims %v; its workspace is an emptyDir", dev.pvcs)
	}
	if len(dev.secrets) != 1 {
		t.Errorf("dev renders %d Secrets, want its placeholder", len(dev.secrets))
	}
	if len(prod.secrets) != 0 {
		t.Errorf("prod renders %d Secrets, want none: its Secret is created outside kustomize", len(prod.secrets))
	}
	if len(prod.pvcs) != 1 {
		t.Errorf("prod renders %d PersistentVolumeClaims, want the workspace's", len(prod.pvcs))
	}
	for _, r := range []*rendered{dev, prod} {
		if ns := r.deployments[0].Namespace; ns == "" {
			t.Errorf("Deployment has no namespace")
		}
	}
	if dev.deployments[0].Namespace == prod.deployments[0].Namespace {
		t.Errorf("dev and prod share the namespace %s", dev.deployments[0].Namespace)
	}
	if a, b := dev.deployments[0].Spec.Template.Spec.Containers[0].Image, prod.deployments[0].Spec.Template.Spec.Containers[0].Image; a == b {
		t.Errorf("dev and prod run the same image %s", a)
	}
}

// The negative tests take the rendered prod objects, break one thing, and
// expect the policies to say so.

func container(r *rendered) *corev1.Container {
	return &r.deployments[0].Spec.Template.Spec.Containers[0]
}

func podSpec(r *rendered) *corev1.PodSpec { return &r.deployments[0].Spec.Template.Spec }

func volume(r *rendered, name string) *corev1.Volume {
	vs := podSpec(r).Volumes
	i := slices.IndexFunc(vs, func(v corev1.Volume) bool { return v.Name == name })
	return &vs[i]
}

func configData(r *rendered) map[string]string { return r.configMaps[0].Data }

func TestPolicyViolations(t *testing.T) {
	settings := loadSettings(t)
	w := wantFor(t, "prod")
	docs := renderOverlay(t, "prod")
	baseline, err := decodeAll(docs)
	if err != nil {
		t.Fatal(err)
	}
	if problems := checkPolicies(baseline, settings, w); len(problems) != 0 {
		t.Fatalf("prod breaks the policies before any change: %q", problems)
	}

	tests := []struct {
		name   string
		break_ func(r *rendered)
		want   string
	}{
		// Probes.
		{"no readiness probe", func(r *rendered) { container(r).ReadinessProbe = nil }, "readinessProbe: missing"},
		{"no liveness probe", func(r *rendered) { container(r).LivenessProbe = nil }, "livenessProbe: missing"},
		{"readiness probe over HTTP", func(r *rendered) {
			container(r).ReadinessProbe.ProbeHandler = corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(7700)}}
		}, "readinessProbe: not a native gRPC probe"},
		{"liveness probe on another port", func(r *rendered) { container(r).LivenessProbe.GRPC.Port = 7701 }, "livenessProbe: gRPC port 7701"},
		{"startup probe on another port", func(r *rendered) { container(r).StartupProbe.GRPC.Port = 7701 }, "startupProbe: gRPC port 7701"},
		{"probe asks an unknown health service", func(r *rendered) { container(r).ReadinessProbe.GRPC.Service = ptr("toolguard") }, `health service "toolguard"`},
		{"no port named grpc", func(r *rendered) { container(r).Ports[0].Name = "api" }, "no port named grpc"},

		// Security.
		{"runAsNonRoot removed", func(r *rendered) {
			podSpec(r).SecurityContext.RunAsNonRoot = nil
			container(r).SecurityContext.RunAsNonRoot = nil
		}, "runAsNonRoot is not true"},
		{"runAsNonRoot false in the container", func(r *rendered) { container(r).SecurityContext.RunAsNonRoot = ptr(false) }, "runAsNonRoot is not true"},
		{"runs as root", func(r *rendered) { podSpec(r).SecurityContext.RunAsUser = ptr(int64(0)) }, "runAsUser is not 65532"},
		{"readOnlyRootFilesystem removed", func(r *rendered) { container(r).SecurityContext.ReadOnlyRootFilesystem = nil }, "readOnlyRootFilesystem is not true"},
		{"readOnlyRootFilesystem false", func(r *rendered) { container(r).SecurityContext.ReadOnlyRootFilesystem = ptr(false) }, "readOnlyRootFilesystem is not true"},
		{"container securityContext removed", func(r *rendered) { container(r).SecurityContext = nil }, "container toolguard: securityContext is missing"},
		{"pod securityContext removed", func(r *rendered) { podSpec(r).SecurityContext = nil }, "pod securityContext is missing"},
		{"privilege escalation allowed", func(r *rendered) { container(r).SecurityContext.AllowPrivilegeEscalation = ptr(true) }, "allowPrivilegeEscalation is not false"},
		{"capabilities kept", func(r *rendered) { container(r).SecurityContext.Capabilities.Drop = nil }, "capabilities do not drop ALL"},
		{"capability added", func(r *rendered) {
			container(r).SecurityContext.Capabilities.Add = []corev1.Capability{"NET_ADMIN"}
		}, "capabilities add"},
		{"seccomp unconfined", func(r *rendered) {
			podSpec(r).SecurityContext.SeccompProfile.Type = corev1.SeccompProfileTypeUnconfined
		}, "seccompProfile is not RuntimeDefault"},
		{"host network", func(r *rendered) { podSpec(r).HostNetwork = true }, "host namespace"},
		{"service links on", func(r *rendered) { podSpec(r).EnableServiceLinks = ptr(true) }, "enableServiceLinks is not false"},
		{"default ServiceAccount", func(r *rendered) { podSpec(r).ServiceAccountName = "" }, "default ServiceAccount"},
		{"API token mounted", func(r *rendered) { podSpec(r).AutomountServiceAccountToken = ptr(true) }, "token is mounted"},

		// Resources and image.
		{"no memory limit", func(r *rendered) { delete(container(r).Resources.Limits, corev1.ResourceMemory) }, "no memory limit"},
		{"no CPU request", func(r *rendered) { delete(container(r).Resources.Requests, corev1.ResourceCPU) }, "no cpu request"},
		{"request above the limit", func(r *rendered) { container(r).Resources.Requests[corev1.ResourceCPU] = quantity("4") }, "cpu request 4 is above the limit 2"},
		{"image not overridden", func(r *rendered) { container(r).Image = "toolguard" }, "is not pinned"},
		{"image latest", func(r *rendered) { container(r).Image = "ghcr.io/toolguard/toolguard:latest" }, "is not pinned"},
		{"a flag hides the ConfigMap", func(r *rendered) { container(r).Args = append(container(r).Args, "--listen=127.0.0.1:7700") }, "settings belong in the ConfigMap"},

		// Settings.
		{"unknown ConfigMap key", func(r *rendered) { configData(r)["TOOLGUARD_LISTENN"] = "0.0.0.0:7700" }, "key TOOLGUARD_LISTENN is not a toolguard serve setting"},
		{"unknown env setting", func(r *rendered) {
			container(r).Env = append(container(r).Env, corev1.EnvVar{Name: "TOOLGUARD_PORT", Value: "7700"})
		}, "env TOOLGUARD_PORT is not a toolguard serve setting"},
		{"max connection age unset", func(r *rendered) { delete(configData(r), "TOOLGUARD_MAX_CONNECTION_AGE") }, "TOOLGUARD_MAX_CONNECTION_AGE is not set"},
		{"max connection age grace unset", func(r *rendered) { delete(configData(r), "TOOLGUARD_MAX_CONNECTION_AGE_GRACE") }, "TOOLGUARD_MAX_CONNECTION_AGE_GRACE is not set"},
		{"max connection age zero", func(r *rendered) { configData(r)["TOOLGUARD_MAX_CONNECTION_AGE"] = "0s" }, "never rebalance"},
		{"stream buffer unset", func(r *rendered) { delete(configData(r), "TOOLGUARD_MAX_STREAM_BUFFER_BYTES") }, "TOOLGUARD_MAX_STREAM_BUFFER_BYTES is not set"},
		{"stream buffer past the memory limit", func(r *rendered) { configData(r)["TOOLGUARD_MAX_STREAM_BUFFER_BYTES"] = "268435456" }, "more than 1/8 of the memory limit 1Gi"},
		{"stream buffer with a unit", func(r *rendered) { configData(r)["TOOLGUARD_MAX_STREAM_BUFFER_BYTES"] = "64Mi" }, `TOOLGUARD_MAX_STREAM_BUFFER_BYTES="64Mi"`},
		{"syntax memory unset", func(r *rendered) { delete(configData(r), "TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY") }, "TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY is not set"},
		{"syntax memory past the memory limit", func(r *rendered) { configData(r)["TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY"] = "134217728" }, "more than 1/16 of the memory limit 1Gi"},
		{"syntax memory with a unit", func(r *rendered) { configData(r)["TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY"] = "128Mi" }, `TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY="128Mi"`},
		{"unary memory unset", func(r *rendered) { delete(configData(r), "TOOLGUARD_MAX_UNARY_MEMORY_BYTES") }, "TOOLGUARD_MAX_UNARY_MEMORY_BYTES is not set"},
		{"unary memory past the memory limit", func(r *rendered) { configData(r)["TOOLGUARD_MAX_UNARY_MEMORY_BYTES"] = "268435456" }, "more than 3/16 of the memory limit 1Gi"},
		{"unary memory under three largest requests", func(r *rendered) { configData(r)["TOOLGUARD_MAX_RECV_MSG_BYTES"] = "134217728" }, "less than 3 times TOOLGUARD_MAX_RECV_MSG_BYTES"},
		{"memory limit lowered under the stream buffer", func(r *rendered) { container(r).Resources.Limits[corev1.ResourceMemory] = quantity("512Mi") }, "more than 1/8 of the memory limit 512Mi"},
		{"duration without unit", func(r *rendered) { configData(r)["TOOLGUARD_DRAIN_DELAY"] = "5" }, `TOOLGUARD_DRAIN_DELAY="5"`},
		{"listen on loopback", func(r *rendered) { configData(r)["TOOLGUARD_LISTEN"] = "127.0.0.1:7700" }, "cannot reach 127.0.0.1"},
		{"listen on another port", func(r *rendered) { configData(r)["TOOLGUARD_LISTEN"] = "0.0.0.0:8080" }, "port 8080 is not the container port"},
		{"workspace setting elsewhere", func(r *rendered) { configData(r)["TOOLGUARD_WORKSPACE"] = "/data" }, "is not the workspace mount"},
		{"ConfigMap reference without the hash suffix", func(r *rendered) {
			container(r).EnvFrom[0].ConfigMapRef.Name = "toolguard-config"
		}, `envFrom ConfigMap "toolguard-config" is not rendered`},

		// Shutdown timing.
		{"grace period not longer than drain + shutdown", func(r *rendered) { podSpec(r).TerminationGracePeriodSeconds = ptr(int64(25)) }, "terminationGracePeriodSeconds 25s is not longer"},
		{"grace period unset", func(r *rendered) { podSpec(r).TerminationGracePeriodSeconds = nil }, "terminationGracePeriodSeconds is not set"},
		{"shutdown timeout raised past the grace period", func(r *rendered) { configData(r)["TOOLGUARD_SHUTDOWN_TIMEOUT"] = "30s" }, "is not longer than TOOLGUARD_DRAIN_DELAY 5s + TOOLGUARD_SHUTDOWN_TIMEOUT 30s"},
		{"liveness could kill a draining server", func(r *rendered) { container(r).LivenessProbe.FailureThreshold = 2 }, "livenessProbe fails after 20s"},

		// Volumes.
		{"workspace on an emptyDir in prod", func(r *rendered) {
			volume(r, "workspace").VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
		}, "source [EmptyDir], want PersistentVolumeClaim"},
		{"workspace with two sources", func(r *rendered) { volume(r, "workspace").EmptyDir = &corev1.EmptyDirVolumeSource{} }, "want one source"},
		{"PVC not rendered", func(r *rendered) { r.pvcs = nil }, `PersistentVolumeClaim "toolguard-workspace" is not rendered`},
		{"two replicas on a ReadWriteOnce claim", func(r *rendered) { r.deployments[0].Spec.Replicas = ptr(int32(2)) }, "2 replicas on the ReadWriteOnce claim"},
		{"rolling update on a ReadWriteOnce claim", func(r *rendered) {
			r.deployments[0].Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType}
		}, "want Recreate"},
		{"no /tmp", func(r *rendered) {
			c := container(r)
			c.VolumeMounts = slices.DeleteFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == tmpPath })
		}, "no writable emptyDir mounted at /tmp"},
		{"mount of a missing volume", func(r *rendered) {
			podSpec(r).Volumes = slices.DeleteFunc(podSpec(r).Volumes, func(v corev1.Volume) bool { return v.Name == "tmp" })
		}, "mount /tmp: no volume tmp"},
		{"external Secret not optional", func(r *rendered) { volume(r, "secrets").Secret.Optional = ptr(false) }, `external Secret "toolguard-secrets" is not optional`},
		{"unknown Secret", func(r *rendered) { volume(r, "secrets").Secret.SecretName = "other" }, `Secret "other" is not rendered`},
		{"Secret mounted writable", func(r *rendered) {
			c := container(r)
			i := slices.IndexFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == secretsPath })
			c.VolumeMounts[i].ReadOnly = false
		}, "Secret mount /etc/toolguard/secrets is not read-only"},

		// Labels and selectors.
		{"Deployment selector misses its pods", func(r *rendered) {
			r.deployments[0].Spec.Selector.MatchLabels["app.kubernetes.io/instance"] = "other"
		}, "does not select its own pod labels"},
		{"object without the common labels", func(r *rendered) { delete(r.services[0].Labels, nameLabelKey) }, "Service toolguard: no app.kubernetes.io/name label"},

		// Service.
		{"Service selects other pods", func(r *rendered) { r.services[0].Spec.Selector["app.kubernetes.io/instance"] = "other" }, "Service toolguard: selector"},
		{"Service targets another port", func(r *rendered) { r.services[0].Spec.Ports[0].TargetPort = intstr.FromInt32(8080) }, "targets 8080"},
		{"Service without appProtocol", func(r *rendered) { r.services[0].Spec.Ports[0].AppProtocol = nil }, "no appProtocol grpc"},
		{"Service exposed outside the cluster", func(r *rendered) { r.services[0].Spec.Type = corev1.ServiceTypeLoadBalancer }, "want ClusterIP"},

		// PodDisruptionBudget.
		{"no PodDisruptionBudget", func(r *rendered) { r.pdbs = nil }, "no PodDisruptionBudget"},
		{"PodDisruptionBudget blocks node drains", func(r *rendered) {
			r.pdbs[0].Spec.MaxUnavailable = nil
			r.pdbs[0].Spec.MinAvailable = ptr(intstr.FromInt32(1))
		}, "allows no eviction of 1 replicas"},
		{"PodDisruptionBudget with both bounds", func(r *rendered) { r.pdbs[0].Spec.MinAvailable = ptr(intstr.FromString("50%")) }, "exactly one of minAvailable and maxUnavailable"},
		{"PodDisruptionBudget selects other pods", func(r *rendered) {
			r.pdbs[0].Spec.Selector.MatchLabels[nameLabelKey] = "other"
		}, "PodDisruptionBudget toolguard: selector does not select the pods"},

		// NetworkPolicy.
		{"no NetworkPolicy", func(r *rendered) { r.netpols = nil }, "no NetworkPolicy"},
		{"NetworkPolicy selects other pods", func(r *rendered) {
			r.netpols[0].Spec.PodSelector.MatchLabels[nameLabelKey] = "other"
		}, "NetworkPolicy toolguard: podSelector does not select the pods"},
		{"ingress from anywhere", func(r *rendered) { r.netpols[0].Spec.Ingress[0].From = nil }, "admits every source"},
		{"ingress from every namespace", func(r *rendered) {
			r.netpols[0].Spec.Ingress[0].From[0].NamespaceSelector = ptr(r.netpols[0].Spec.PodSelector)
		}, "want only pods labelled toolguard-client"},
		{"selector labels leaked into the from selector", func(r *rendered) {
			r.netpols[0].Spec.Ingress[0].From[0].PodSelector.MatchLabels[nameLabelKey] = "toolguard"
		}, "want only pods labelled toolguard-client"},
		{"ingress on every port", func(r *rendered) { r.netpols[0].Spec.Ingress[0].Ports = nil }, "admits every port"},
		{"no ingress rule", func(r *rendered) { r.netpols[0].Spec.Ingress = nil }, "no ingress rule"},
		{"egress beyond DNS", func(r *rendered) {
			r.netpols[0].Spec.Egress = append(r.netpols[0].Spec.Egress, networkingv1.NetworkPolicyEgressRule{
				Ports: []networkingv1.NetworkPolicyPort{{Port: ptr(intstr.FromInt32(443))}},
			})
		}, "allows a port other than [53]"},
		{"egress unrestricted", func(r *rendered) {
			r.netpols[0].Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		}, "want Ingress and Egress"},
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

// validDeployment is a small Deployment that decodes; the strict-decoding
// tests break it one way each.
const validDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: toolguard
spec:
  selector:
    matchLabels:
      app: toolguard
  template:
    metadata:
      labels:
        app: toolguard
    spec:
      containers:
        - name: toolguard
          image: toolguard:dev
          readinessProbe:
            grpc:
              port: 7700
          securityContext:
            readOnlyRootFilesystem: true
`

func TestStrictDecoding(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		// wantErr is a substring of the error; "" means no error.
		wantErr string
	}{
		{"valid", "", "", ""},
		{"misspelled field", "readinessProbe:", "readinessProbee:", `unknown field "spec.template.spec.containers[0].readinessProbee"`},
		{"field in the wrong case", "readOnlyRootFilesystem:", "readonlyRootFilesystem:", `unknown field "spec.template.spec.containers[0].securityContext.readonlyRootFilesystem"`},
		{"misspelled top-level field", "spec:\n  selector:", "spec:\n  selectors:", `unknown field "spec.selectors"`},
		{"wrong type", "port: 7700", `port: "7700"`, "port"},
		{"duplicate key", "  name: toolguard\n", "  name: toolguard\n  name: other\n", `"name"`},
		{"unknown kind", "kind: Deployment", "kind: Deploymnet", `unknown kind "Deploymnet"`},
		{"unknown apiVersion", "apiVersion: apps/v1", "apiVersion: apps/v1beta1", `unknown kind "Deployment" of apiVersion "apps/v1beta1"`},
		{"no kind", "kind: Deployment\n", "", `unknown kind ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := validDeployment
			if tt.old != "" {
				if !strings.Contains(doc, tt.old) {
					t.Fatalf("%q is not in the valid Deployment", tt.old)
				}
				doc = strings.Replace(doc, tt.old, tt.new, 1)
			}
			obj, err := decode([]byte(doc))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("decode: %v", err)
			case tt.wantErr == "":
				if _, ok := obj.(*appsv1.Deployment); !ok {
					t.Fatalf("decoded a %T, want *appsv1.Deployment", obj)
				}
			case err == nil:
				t.Fatalf("decoded %q without error, want one containing %q", doc, tt.wantErr)
			case !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

// TestKustomizeKeepsMisspelledFields shows why the rendered objects are
// decoded strictly: kustomize renders a misspelled field without complaint,
// and the API server would drop it with a warning.
func TestKustomizeKeepsMisspelledFields(t *testing.T) {
	tests := []struct {
		name, old, new, wantErr string
	}{
		{"valid", "", "", ""},
		{"misspelled probe", "readinessProbe:", "readinessProbee:", "readinessProbee"},
		{"misspelled security field", "readOnlyRootFilesystem:", "readOnlyRootFileSystem:", "readOnlyRootFileSystem"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fSys := filesys.MakeFsInMemory()
			deployment := strings.Replace(validDeployment, tt.old, tt.new, 1)
			files := map[string]string{
				"/app/kustomization.yaml": "resources:\n  - deployment.yaml\nnamespace: test\n",
				"/app/deployment.yaml":    deployment,
			}
			for _, name := range slices.Sorted(maps.Keys(files)) {
				if err := fSys.WriteFile(name, []byte(files[name])); err != nil {
					t.Fatal(err)
				}
			}
			docs, err := render(fSys, "/app")
			if err != nil {
				t.Fatalf("kustomize rejected it itself: %v", err)
			}
			if len(docs) != 1 || (tt.old != "" && !bytes.Contains(docs[0], []byte(tt.new))) {
				t.Fatalf("rendered %q, want the Deployment with %q", docs, tt.new)
			}
			_, err = decodeAll(docs)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("decode: %v", err)
			case tt.wantErr == "":
			case err == nil:
				t.Fatalf("decoded without error, want one containing %q", tt.wantErr)
			case !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

// dockerfile is what TestDockerfile reads from deploy/Dockerfile.
type dockerfile struct {
	args       map[string]string // ARG defaults
	froms      []string          // FROM images, in order
	user       string            // the last stage's USER
	expose     []string
	entrypoint []string
}

func parseDockerfile(t *testing.T, name string) dockerfile {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	df := dockerfile{args: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	var line string
	for sc.Scan() {
		text := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(text, "#") {
			continue
		}
		// Join continuation lines.
		if strings.HasSuffix(text, `\`) {
			line += strings.TrimSuffix(text, `\`) + " "
			continue
		}
		line += text
		fields := strings.Fields(line)
		rest := strings.TrimSpace(strings.TrimPrefix(line, firstOr(fields, "")))
		line = ""
		if len(fields) == 0 {
			continue
		}
		switch strings.ToUpper(fields[0]) {
		case "ARG":
			for _, f := range fields[1:] {
				k, v, _ := strings.Cut(f, "=")
				df.args[k] = v
			}
		case "FROM":
			for _, f := range fields[1:] {
				if !strings.HasPrefix(f, "--") {
					df.froms = append(df.froms, f)
					df.user = ""
					break
				}
			}
		case "USER":
			df.user = rest
		case "EXPOSE":
			df.expose = append(df.expose, fields[1:]...)
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(rest), &df.entrypoint); err != nil {
				t.Fatalf("ENTRYPOINT %s: want the exec (JSON) form: %v", rest, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return df
}

func firstOr(s []string, def string) string {
	if len(s) == 0 {
		return def
	}
	return s[0]
}

// goDirective returns the go line of the module's go.mod.
func goDirective(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("go.mod has no go line")
	return ""
}

// TestDockerfile checks that the image agrees with the manifests and can
// build the module: the user the pods run as, the gRPC port, the command,
// and a Go at least as new as go.mod asks (the golang images set
// GOTOOLCHAIN=local, so an older one fails).
func TestDockerfile(t *testing.T) {
	df := parseDockerfile(t, "Dockerfile")
	r := decodeOverlay(t, "prod")
	ct := container(r)
	port := grpcPort(&checker{}, ct)

	goVersion := df.args["GO_VERSION"]
	if goVersion == "" {
		t.Errorf("no ARG GO_VERSION default")
	} else if mod := goDirective(t); version.Compare("go"+goVersion, "go"+mod) < 0 {
		t.Errorf("GO_VERSION %s is older than go.mod's go %s", goVersion, mod)
	}
	if len(df.froms) < 2 {
		t.Errorf("FROM %v: want a build stage and a final stage", df.froms)
	} else if final := df.froms[len(df.froms)-1]; !strings.HasPrefix(final, "gcr.io/distroless/static") || !strings.Contains(final, "nonroot") {
		t.Errorf("final stage FROM %s: want gcr.io/distroless/static...:nonroot", final)
	}
	if want := "65532:65532"; df.user != want {
		t.Errorf("final stage USER %q, want %q (the pods' runAsUser and runAsGroup)", df.user, want)
	}
	if !slices.Contains(df.expose, "7700") || port != 7700 {
		t.Errorf("EXPOSE %v, container port %d: want both 7700", df.expose, port)
	}
	if !slices.Equal(df.entrypoint, serveCommand) || !slices.Equal(append(slices.Clone(ct.Command), ct.Args...), serveCommand) {
		t.Errorf("ENTRYPOINT %q, container command %q %q: want both %q", df.entrypoint, ct.Command, ct.Args, serveCommand)
	}
}
