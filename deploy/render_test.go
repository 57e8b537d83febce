package deploy

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// render builds the kustomization in dir as `kustomize build dir` does, with
// the default options (load restrictions on, no plugins, no Helm), and
// returns the YAML of each object.
func render(fSys filesys.FileSystem, dir string) ([][]byte, error) {
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fSys, dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	var docs [][]byte
	for _, r := range m.Resources() {
		doc, err := r.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("kustomize build %s: %s: %w", dir, r.CurId(), err)
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

// typeKey is an object's apiVersion and kind.
type typeKey struct{ apiVersion, kind string }

// kinds maps every apiVersion and kind the manifests may contain onto a new
// value of its k8s.io/api type. Anything else fails to decode: a kind the
// policies do not know is a kind nobody checks.
var kinds = map[typeKey]func() any{
	{"apps/v1", "Deployment"}:                     func() any { return new(appsv1.Deployment) },
	{"apps/v1", "StatefulSet"}:                    func() any { return new(appsv1.StatefulSet) },
	{"autoscaling/v2", "HorizontalPodAutoscaler"}: func() any { return new(autoscalingv2.HorizontalPodAutoscaler) },
	{"v1", "Service"}:                             func() any { return new(corev1.Service) },
	{"v1", "ServiceAccount"}:                      func() any { return new(corev1.ServiceAccount) },
	{"v1", "ConfigMap"}:                           func() any { return new(corev1.ConfigMap) },
	{"v1", "Secret"}:                              func() any { return new(corev1.Secret) },
	{"v1", "PersistentVolumeClaim"}:               func() any { return new(corev1.PersistentVolumeClaim) },
	{"policy/v1", "PodDisruptionBudget"}:          func() any { return new(policyv1.PodDisruptionBudget) },
	{"networking.k8s.io/v1", "NetworkPolicy"}:     func() any { return new(networkingv1.NetworkPolicy) },
}

// decode decodes one YAML document strictly into the k8s.io/api type of its
// kind. Strict means what the API server's strict field validation means:
// field names match case-sensitively (encoding/json alone would take
// readonlyRootFilesystem for readOnlyRootFilesystem, a field the API server
// drops), and an unknown or duplicate field is an error.
func decode(doc []byte) (any, error) {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, err
	}
	var head struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.UnmarshalCaseSensitivePreserveInts(js, &head); err != nil {
		return nil, fmt.Errorf("read apiVersion, kind and name: %w", err)
	}
	newObj, ok := kinds[typeKey{head.APIVersion, head.Kind}]
	if !ok {
		return nil, fmt.Errorf("%s: unknown kind %q of apiVersion %q", head.Metadata.Name, head.Kind, head.APIVersion)
	}
	obj := newObj()
	strictErrs, err := json.UnmarshalStrict(js, obj)
	if err == nil {
		err = errors.Join(strictErrs...)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", head.Kind, head.Metadata.Name, err)
	}
	return obj, nil
}

// rendered is one overlay's objects, by type.
type rendered struct {
	deployments     []*appsv1.Deployment
	statefulSets    []*appsv1.StatefulSet
	hpas            []*autoscalingv2.HorizontalPodAutoscaler
	services        []*corev1.Service
	serviceAccounts []*corev1.ServiceAccount
	configMaps      []*corev1.ConfigMap
	secrets         []*corev1.Secret
	pvcs            []*corev1.PersistentVolumeClaim
	pdbs            []*policyv1.PodDisruptionBudget
	netpols         []*networkingv1.NetworkPolicy
}

// decodeAll decodes every document.
func decodeAll(docs [][]byte) (*rendered, error) {
	r := &rendered{}
	var errs []error
	for i, doc := range docs {
		obj, err := decode(doc)
		if err != nil {
			errs = append(errs, fmt.Errorf("object %d: %w", i, err))
			continue
		}
		switch o := obj.(type) {
		case *appsv1.Deployment:
			r.deployments = append(r.deployments, o)
		case *appsv1.StatefulSet:
			r.statefulSets = append(r.statefulSets, o)
		case *autoscalingv2.HorizontalPodAutoscaler:
			r.hpas = append(r.hpas, o)
		case *corev1.Service:
			r.services = append(r.services, o)
		case *corev1.ServiceAccount:
			r.serviceAccounts = append(r.serviceAccounts, o)
		case *corev1.ConfigMap:
			r.configMaps = append(r.configMaps, o)
		case *corev1.Secret:
			r.secrets = append(r.secrets, o)
		case *corev1.PersistentVolumeClaim:
			r.pvcs = append(r.pvcs, o)
		case *policyv1.PodDisruptionBudget:
			r.pdbs = append(r.pdbs, o)
		case *networkingv1.NetworkPolicy:
			r.netpols = append(r.netpols, o)
		default:
			errs = append(errs, fmt.Errorf("object %d: %T has no place in rendered", i, obj))
		}
	}
	return r, errors.Join(errs...)
}

// objects returns the metadata of every object.
func (r *rendered) objects() []metav1.Object {
	var objs []metav1.Object
	for _, o := range r.deployments {
		objs = append(objs, o)
	}
	for _, o := range r.statefulSets {
		objs = append(objs, o)
	}
	for _, o := range r.hpas {
		objs = append(objs, o)
	}
	for _, o := range r.services {
		objs = append(objs, o)
	}
	for _, o := range r.serviceAccounts {
		objs = append(objs, o)
	}
	for _, o := range r.configMaps {
		objs = append(objs, o)
	}
	for _, o := range r.secrets {
		objs = append(objs, o)
	}
	for _, o := range r.pvcs {
		objs = append(objs, o)
	}
	for _, o := range r.pdbs {
		objs = append(objs, o)
	}
	for _, o := range r.netpols {
		objs = append(objs, o)
	}
	return objs
}

// describe names an object with its kind: "Service toolguard".
func describe(o metav1.Object) string {
	return reflect.TypeOf(o).Elem().Name() + " " + o.GetName()
}

// byName returns the object of objs named name, or nil.
func byName[T metav1.Object](objs []T, name string) T {
	for _, o := range objs {
		if o.GetName() == name {
			return o
		}
	}
	var zero T
	return zero
}

// settingsDir is the package of `toolguard serve`, relative to this one.
const settingsDir = "../cmd/toolguard"

var settingEnvRE = regexp.MustCompile(`^TOOLGUARD_[A-Z0-9_]+$`)

// settingTables are the package-level tables that declare `toolguard
// serve`'s settings: the core's and the server's own.
var settingTables = map[string]bool{"coreSettings": true, "serverSettings": true}

// knownSettings returns the environment variable of every `toolguard serve`
// setting. Package main cannot be imported, so it reads the source: the
// package-level tables of settingTables, whose entries are composite
// literals with the variable name as their second field (or as field env).
// It fails rather than guess when the tables are not found in that shape.
func knownSettings(dir string) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var tables []*ast.CompositeLit
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.VAR {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if settingTables[id.Name] && i < len(vs.Values) {
						if table, ok := vs.Values[i].(*ast.CompositeLit); ok {
							tables = append(tables, table)
						}
					}
				}
			}
		}
	}
	if len(tables) != len(settingTables) {
		return nil, fmt.Errorf("found %d of the composite literals %v in %s", len(tables), settingTables, dir)
	}

	settings := map[string]bool{}
	for _, elt := range slices.Concat(tables[0].Elts, tables[1].Elts) {
		entry, ok := elt.(*ast.CompositeLit)
		if !ok {
			return nil, fmt.Errorf("%s: a serveSettings entry is not a composite literal", fset.Position(elt.Pos()))
		}
		var env ast.Expr
		for i, field := range entry.Elts {
			if kv, ok := field.(*ast.KeyValueExpr); ok {
				if key, ok := kv.Key.(*ast.Ident); ok && key.Name == "env" {
					env = kv.Value
				}
			} else if i == 1 {
				env = field
			}
		}
		lit, ok := env.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return nil, fmt.Errorf("%s: the environment variable of a serveSettings entry is not a string literal", fset.Position(entry.Pos()))
		}
		name, err := strconv.Unquote(lit.Value)
		if err != nil {
			return nil, err
		}
		if !settingEnvRE.MatchString(name) {
			return nil, fmt.Errorf("%s: %q is not a TOOLGUARD_* variable name", fset.Position(lit.Pos()), name)
		}
		settings[name] = true
	}
	if len(settings) == 0 {
		return nil, fmt.Errorf("serveSettings in %s is empty", dir)
	}
	return settings, nil
}

// overlayDirs returns the directories under overlays/.
func overlayDirs() ([]string, error) {
	entries, err := os.ReadDir("overlays")
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	slices.Sort(dirs)
	return dirs, nil
}
