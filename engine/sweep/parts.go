package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ontime-routing/ontime/internal/atomicfile"
)

// envelope is a part on disk: the payload, the sweep it belongs to and the
// payload's SHA-256, so that a truncated or foreign part is found out.
type envelope struct {
	Sweep   string          `json:"sweep"`
	Kind    string          `json:"kind"` // "train" or "task"
	ID      int             `json:"id"`   // the instance or task
	SHA256  string          `json:"sha256"`
	Payload json.RawMessage `json:"payload"`
}

func trainPath(dir string, instance int) string {
	return filepath.Join(dir, trainDir, fmt.Sprintf("instance-%04d.json", instance))
}

func partPath(dir string, task int) string {
	return filepath.Join(dir, partsDir, fmt.Sprintf("task-%06d.json", task))
}

// writePart writes v as the part kind/id of sweep, atomically (temporary
// file, then rename): a reader sees the whole part or none.
func writePart(path, sweep, kind string, id int, v any) error {
	payload, err := json.Marshal(v)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(payload)
	b, err := json.Marshal(envelope{Sweep: sweep, Kind: kind, ID: id, SHA256: hex.EncodeToString(sum[:]), Payload: payload})
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}

// errMissing is a part not written yet.
var errMissing = fmt.Errorf("missing")

// readPart reads and verifies the part kind/id of sweep into v: errMissing
// when there is none, an error saying what is wrong when it is truncated,
// altered or another sweep's.
func readPart(path, sweep, kind string, id int, v any) error {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return errMissing
	}
	if err != nil {
		return err
	}
	var e envelope
	if err := json.Unmarshal(b, &e); err != nil {
		return fmt.Errorf("%s: not a whole part (%v)", path, err)
	}
	sum := sha256.Sum256(e.Payload)
	switch {
	case e.Sweep != sweep:
		return fmt.Errorf("%s: a part of sweep %s, not of this sweep %s", path, e.Sweep, sweep)
	case e.Kind != kind || e.ID != id:
		return fmt.Errorf("%s: holds %s %d, not %s %d", path, e.Kind, e.ID, kind, id)
	case hex.EncodeToString(sum[:]) != e.SHA256:
		return fmt.Errorf("%s: its checksum does not match its contents", path)
	}
	dec := json.NewDecoder(bytes.NewReader(e.Payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}
