package loader

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"maps"
	"os"
	"sync"
)

// Reads are the files a run read, or looked for, by absolute path, each with what it held:
// "sha256 <hex>" of the bytes read, "absent" when the file was not there, or "" when only
// the name was kept (a dependency's file, whose module the go.sum names). The result cache
// keys on them (cmd/apigen/cli), so a file apigen comes to read is in the key without being
// listed anywhere: every read of the project's files goes through ReadFile or Record. A nil
// *Reads records nothing.
type Reads struct {
	mu    sync.Mutex
	files map[string]string
}

// Changed is what Reads holds for a file the run read twice and found different.
const Changed = "changed during the run"

// ReadFile is os.ReadFile, recorded.
func (r *Reads) ReadFile(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	switch {
	case err == nil:
		r.Record(name, data)
	case errors.Is(err, fs.ErrNotExist):
		r.record(name, "absent")
	}
	return data, err
}

// Record notes that the run read data from the file name.
func (r *Reads) Record(name string, data []byte) {
	sum := sha256.Sum256(data)
	r.record(name, "sha256 "+hex.EncodeToString(sum[:]))
}

// RecordName notes that the run read the file name, without keeping what it held.
func (r *Reads) RecordName(name string) { r.record(name, "") }

func (r *Reads) record(name, fact string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.files == nil {
		r.files = map[string]string{}
	}
	switch old, ok := r.files[name]; {
	case ok && (fact == "" || old == fact):
	case ok && old != "":
		r.files[name] = Changed // read twice, differently: no key holds such a run
	default:
		r.files[name] = fact
	}
}

// Files returns every file recorded, by absolute path, with what it held (see Reads).
func (r *Reads) Files() map[string]string {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.files)
}

// MergeReads returns the files of two records of one run (as Files returns them), a file in
// both held as Reads holds a file read twice.
func MergeReads(a, b map[string]string) map[string]string {
	r := &Reads{files: maps.Clone(a)}
	for name, fact := range b {
		r.record(name, fact)
	}
	return r.Files()
}
