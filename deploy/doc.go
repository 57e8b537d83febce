// Package deploy holds toolguard's Kubernetes deployment: a kustomize base
// (base/), the dev and prod overlays (overlays/) and the container build file
// (Dockerfile). It has no Go API.
//
// Its tests check the deployment without a cluster: they render every overlay
// with kustomize's Go API, decode each rendered object strictly into its
// k8s.io/api type (a misspelled field or an unknown kind fails), and hold the
// result to the deployment policies: native gRPC probes on the gRPC port, a
// non-root, read-only, capability-free container, resources (and a streams'
// buffer that fits the memory limit), the workspace volume of each overlay,
// references that resolve, a Service, a PodDisruptionBudget and a
// NetworkPolicy that select the pods, a termination grace period longer than
// the server's drain, and ConfigMap keys that are all `toolguard serve`
// settings.
package deploy
