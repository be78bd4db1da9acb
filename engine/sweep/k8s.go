package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ontime-routing/ontime/internal/atomicfile"
)

// K8sOptions shape the Kubernetes manifests.
type K8sOptions struct {
	Image     string // an image with ontime on its PATH
	Volume    string // a PersistentVolumeClaim holding the sweep directory
	MountPath string // where the claim is mounted in the pods (the sweep directory's path there)
	CPU       string // requests and limits, e.g. "2"
	Memory    string // e.g. "4Gi"
	Parallel  int    // the evaluation Job's parallelism (0: 4)
	Env       map[string]string
}

// WriteK8s writes DIR/k8s/sweep.yaml: three Jobs on the same contract as
// the Slurm scripts — an Indexed Job for the training phase (completions =
// instances), an Indexed Job for the evaluation (completions = tasks; each
// pod's JOB_COMPLETION_INDEX is its task), and a one-pod merge. Kubernetes
// has no dependencies between Jobs: apply them one after another, waiting
// for each (`kubectl wait --for=condition=complete job/NAME`).
func WriteK8s(dir string, o K8sOptions) (string, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return "", err
	}
	if o.Image == "" || o.Volume == "" || o.MountPath == "" {
		return "", fmt.Errorf("k8s: give the image, the volume claim and its mount path")
	}
	if o.Parallel == 0 {
		o.Parallel = 4
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# ontime sweep %s (%s) as Kubernetes Jobs on the volume claim %s, mounted at %s.\n", m.Name, m.Sweep, o.Volume, o.MountPath)
	b.WriteString("# Apply one Job at a time and wait for it: train, then eval, then merge, e.g.\n")
	for _, name := range []string{"train", "eval", "merge"} {
		fmt.Fprintf(&b, "#   kubectl apply -f sweep.yaml -l ontime-step=%s && kubectl wait --for=condition=complete --timeout=24h job/ontime-%s-%s\n", name, name, m.Sweep[:8])
	}
	b.WriteString("# A failed index is retried by the Job (backoffLimitPerIndex); a rerun skips the parts already verified.\n")
	o.job(&b, m, "train", len(m.Instances), min(o.Parallel, len(m.Instances)), "sweep train")
	o.job(&b, m, "eval", len(m.Tasks), o.Parallel, "sweep run")
	o.job(&b, m, "merge", 1, 1, "sweep merge")
	path := filepath.Join(dir, "k8s", "sweep.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return path, atomicfile.WriteFile(path, []byte(b.String()))
}

func (o K8sOptions) job(b *strings.Builder, m *Manifest, name string, completions, parallel int, command string) {
	fmt.Fprintf(b, "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ontime-%s-%s\n  labels:\n    ontime-step: %s\n    ontime-sweep: %q\n", name, m.Sweep[:8], name, m.Sweep)
	fmt.Fprintf(b, "spec:\n  completions: %d\n  parallelism: %d\n", completions, max(1, parallel))
	if name != "merge" {
		b.WriteString("  completionMode: Indexed\n  backoffLimitPerIndex: 2\n")
	} else {
		b.WriteString("  backoffLimit: 2\n")
	}
	b.WriteString("  template:\n    spec:\n      restartPolicy: Never\n      containers:\n")
	fmt.Fprintf(b, "        - name: ontime\n          image: %q\n", o.Image)
	args := append([]string{"ontime"}, strings.Fields(command)...)
	args = append(args, o.MountPath)
	fmt.Fprintf(b, "          command: [%s]\n", quoteList(args))
	if len(o.Env) > 0 {
		b.WriteString("          env:\n")
		for _, k := range sortedKeys(o.Env) {
			fmt.Fprintf(b, "            - name: %s\n              value: %q\n", k, o.Env[k])
		}
	}
	if o.CPU != "" || o.Memory != "" {
		b.WriteString("          resources:\n")
		for _, kind := range []string{"requests", "limits"} {
			fmt.Fprintf(b, "            %s:\n", kind)
			if o.CPU != "" {
				fmt.Fprintf(b, "              cpu: %q\n", o.CPU)
			}
			if o.Memory != "" {
				fmt.Fprintf(b, "              memory: %q\n", o.Memory)
			}
		}
	}
	fmt.Fprintf(b, "          volumeMounts:\n            - name: sweep\n              mountPath: %q\n", o.MountPath)
	fmt.Fprintf(b, "      volumes:\n        - name: sweep\n          persistentVolumeClaim:\n            claimName: %q\n", o.Volume)
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}
