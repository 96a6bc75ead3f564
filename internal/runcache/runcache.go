// Package runcache lets apigen verify and generate skip their go/packages load, nearly all of
// their time, when a run's inputs are byte-identical to those of a run that found (or left) the
// tree current: the common case of a pre-commit hook. Like go test's cache it is
// content-addressed, in two parts. The key is a SHA-256 over apigen's own executable, the
// caller's facts (the flags), the go environment the load sees, the effective build context of
// apigen's own parsing, and the module's tree: every file's path and kind, and the content of
// go.mod, go.sum and every Go (and cgo/assembly) source file. The entry stored under it
// holds, beside the generated paths, every other file the run read (its header file,
// kubebuilder's PROJECT file, the generated YAML and Markdown it compared, whatever its search
// for stale files looked into in the directories the project's layout and output give it,
// whatever a later apigen comes to read), as the run recorded it (loader.Reads,
// engine.Plan.Reads), and a lookup hits only while each holds what the run read: no list of
// inputs or of directories is kept by hand (Snapshot.Inputs, Entry.Current). Only successes
// are stored.
//
// Directories that replace directives in go.mod name are hashed the same way. Take refuses, with
// a Bypass, when some input lies outside what it hashes: a go.work, a vendor directory, a
// symlink to a directory, a go/packages driver, GOFLAGS naming other files (-modfile, -overlay),
// or APIGEN_CACHE=off.
package runcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/apigen-dev/apigen/internal/cachefile"
)

// version changes whenever the meaning of a key changes.
const version = "apigen-runcache/3"

// Bypass is Take's answer when a run's inputs cannot all be fingerprinted: the run must go ahead
// without the cache.
type Bypass struct{ Reason string }

func (b *Bypass) Error() string { return b.Reason }

func bypass(format string, args ...any) error { return &Bypass{Reason: fmt.Sprintf(format, args...)} }

// Snapshot is what Take saw: every input of a run, by name, and the key hashed over them.
type Snapshot struct {
	Key string
	// entries are "meta/<name>" for facts, "tree/<slash path>" for the module's files and
	// directories and "replace/<module>/<slash path>" for those of local replacements, each
	// mapped to what was seen: a kind and, for hashed files, a content hash.
	entries map[string]string
}

// Disabled returns why the environment turns the cache off, or "".
func Disabled() string {
	switch strings.ToLower(os.Getenv("APIGEN_CACHE")) {
	case "off", "0", "false", "no":
		return "disabled by APIGEN_CACHE=" + os.Getenv("APIGEN_CACHE")
	}
	return ""
}

// goEnv are the go env variables that decide what the go command's load of the module sees:
// the toolchain and its standard library, the platform and its feature tags, experiments,
// GOFLAGS (-tags, -mod), module mode and where modules come from. GOWORK and GOMOD are also
// checked, and GOCACHE says where the go command keeps the cgo-processed files it hands the
// load (see Snapshot.Covers). (All of "go env -json" costs three times as much, and GOGCCFLAGS differs on every
// call.)
var goEnv = []string{
	"GOVERSION", "GOROOT", "GOTOOLCHAIN", "GOOS", "GOARCH", "GO386", "GOAMD64", "GOARM",
	"GOARM64", "GOMIPS", "GOMIPS64", "GOPPC64", "GORISCV64", "GOWASM", "CGO_ENABLED",
	"GOEXPERIMENT", "GOFIPS140", "GOFLAGS", "GO111MODULE", "GOWORK", "GOMOD", "GOMODCACHE",
	"GOPATH", "GODEBUG", "GOCACHE",
}

// Take fingerprints a run of apigen on the module at root (absolute, holding go.mod). facts
// are the caller's other inputs (flags, the header file's content), by name.
func Take(root string, facts map[string]string) (*Snapshot, error) {
	if why := Disabled(); why != "" {
		return nil, &Bypass{Reason: why}
	}
	// go/packages hands the load to GOPACKAGESDRIVER, or to a gopackagesdriver on PATH, unless
	// it is "off"; what such a driver reads is unknowable.
	if d := os.Getenv("GOPACKAGESDRIVER"); d != "off" {
		if d != "" {
			return nil, bypass("GOPACKAGESDRIVER is set")
		}
		if p, err := exec.LookPath("gopackagesdriver"); err == nil {
			return nil, bypass("go/packages would use %s", p)
		}
	}
	s := &Snapshot{entries: map[string]string{"meta/version": version, "meta/root": root}}
	for name, v := range facts {
		s.entries["meta/fact/"+name] = v
	}

	exe, err := cachefile.Executable()
	if err != nil {
		return nil, bypass("identifying apigen's executable: %v", err)
	}
	s.entries["meta/executable"] = exe

	// apigen parses API packages itself too, with go/build's default context (file name
	// suffixes, build constraints), and type-checks with go/types, which GODEBUG tunes.
	ctxt := build.Default
	s.entries["meta/build"] = fmt.Sprintf("%s/%s cgo=%t tags=%q tool=%q release=%q",
		ctxt.GOOS, ctxt.GOARCH, ctxt.CgoEnabled, ctxt.BuildTags, ctxt.ToolTags, ctxt.ReleaseTags)
	s.entries["meta/GODEBUG"] = os.Getenv("GODEBUG")

	env, err := goEnvAt(root)
	if err != nil {
		return nil, err
	}
	for name, v := range env {
		s.entries["meta/go env/"+name] = v
	}
	if w := env["GOWORK"]; w != "" && w != "off" {
		return nil, bypass("go.work in use (%s)", w)
	}
	if m := env["GOMOD"]; m != filepath.Join(root, "go.mod") {
		return nil, bypass("go env GOMOD is %q, not this module's go.mod", m)
	}
	for _, f := range strings.Fields(env["GOFLAGS"]) {
		if name := strings.TrimLeft(f, "-"); strings.HasPrefix(name, "modfile") || strings.HasPrefix(name, "overlay") {
			return nil, bypass("GOFLAGS sets %s", f)
		}
	}
	replaces, err := localReplaces(root)
	if err != nil {
		return nil, err
	}

	w := &walker{root: root, prefix: "tree/", main: true, entries: s.entries}
	if err := w.dir(""); err != nil {
		return nil, err
	}
	for old, dir := range replaces {
		s.entries["meta/replace/"+old] = dir
		w := &walker{root: dir, prefix: "replace/" + old + "/", entries: s.entries}
		if err := w.dir(""); err != nil {
			return nil, err
		}
	}
	s.Key = s.hash()
	return s, nil
}

func goEnvAt(root string) (map[string]string, error) {
	cmd := exec.Command("go", append([]string{"env", "-json"}, goEnv...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, bypass("go env: %v %s", err, strings.TrimSpace(stderr.String()))
	}
	env := map[string]string{}
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, bypass("go env: %v", err)
	}
	return env, nil
}

// localReplaces returns the directories that go.mod's replace directives put in place of
// modules, by module path: their go.mod takes part in the module graph and their packages may
// be loaded, so they are hashed like the module itself (a scaffolded --apigen-module-replace
// project has one, a checkout of apigen).
func localReplaces(root string) (map[string]string, error) {
	name := filepath.Join(root, "go.mod")
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, bypass("%v", err)
	}
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, bypass("%v", err)
	}
	dirs := map[string]string{}
	for _, r := range f.Replace {
		if r.New.Version != "" {
			continue
		}
		dir := r.New.Path
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, dir)
		}
		old := r.Old.Path
		if r.Old.Version != "" {
			old += "@" + r.Old.Version
		}
		dirs[old] = filepath.Clean(dir)
	}
	return dirs, nil
}

// hash is the key: a SHA-256 over the entries in name order, each length-prefixed so that no
// two sets of entries serialize alike.
func (s *Snapshot) hash() string {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	put := func(v string) {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(v)))])
		h.Write([]byte(v))
	}
	for _, name := range slices.Sorted(maps.Keys(s.entries)) {
		put(name)
		put(s.entries[name])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Holds reports whether the snapshot hashed the file at rel (slash-separated, relative to the
// root) and saw exactly content there. A run stores its result only when, for every file it
// generates, this holds or the entry's inputs hold the file with that content (Fact), so that
// a hit vouches for them.
func (s *Snapshot) Holds(rel string, content []byte) bool {
	sum := sha256.Sum256(content)
	v := s.entries["tree/"+rel]
	return v == "file "+hex.EncodeToString(sum[:]) || strings.HasPrefix(v, "link ") && strings.HasSuffix(v, " "+hex.EncodeToString(sum[:]))
}

// SameExcept reports whether later saw the same inputs as s, apart from the files at the given
// paths and the directories above them, which the run itself wrote or deleted. A run compares
// the snapshots before and after itself to know that nobody changed its inputs meanwhile.
func (s *Snapshot) SameExcept(later *Snapshot, paths []string) bool {
	touched := map[string]bool{}
	for _, p := range paths {
		for ; p != "." && p != "/" && p != ""; p = path.Dir(p) {
			touched["tree/"+p] = true
		}
	}
	for name, v := range s.entries {
		if !touched[name] && later.entries[name] != v {
			return false
		}
	}
	for name := range later.entries {
		if _, ok := s.entries[name]; !ok && !touched[name] {
			return false
		}
	}
	return true
}

// Covers reports whether the key holds the content of the file name (absolute): a file of the
// module or of a local replacement whose content the snapshot hashed, a file of the toolchain
// (GOROOT) or the module cache (GOMODCACHE), which the go environment and go.sum in the key
// name and nobody edits, or one of the go command's build cache (GOCACHE), where it puts what
// cgo made of such sources, named by content.
func (s *Snapshot) Covers(name string) bool {
	within := func(dir string) (string, bool) {
		if dir == "" {
			return "", false
		}
		rel, err := filepath.Rel(dir, name)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			return "", false
		}
		return filepath.ToSlash(rel), true
	}
	hashed := func(v string) bool {
		return strings.HasPrefix(v, "file ") || strings.HasPrefix(v, "link ") && len(strings.Fields(v)) == 3
	}
	for _, dir := range []string{s.entries["meta/go env/GOROOT"], s.entries["meta/go env/GOMODCACHE"], s.entries["meta/go env/GOCACHE"]} {
		if _, ok := within(dir); ok {
			return true
		}
	}
	// A local replacement may lie inside the module, so it goes first.
	for name, dir := range s.entries {
		if old, ok := strings.CutPrefix(name, "meta/replace/"); ok {
			if rel, ok := within(dir); ok {
				return hashed(s.entries["replace/"+old+"/"+rel])
			}
		}
	}
	if rel, ok := within(s.entries["meta/root"]); ok {
		return hashed(s.entries["tree/"+rel])
	}
	return false
}

// Inputs returns the files a run read (by absolute path, with what each held, as
// loader.Reads records them) that the key does not cover: what a lookup must check besides
// the key. A file recorded by name only is described as it is now. It fails when a file
// changed during the run.
func (s *Snapshot) Inputs(reads map[string]string) (map[string]string, error) {
	inputs := map[string]string{}
	for name, fact := range reads {
		if s.Covers(name) {
			continue
		}
		switch {
		case fact == "":
			v, err := FileFact(name)
			if err != nil {
				return nil, err
			}
			inputs[name] = v
		case fact == "absent" || strings.HasPrefix(fact, "sha256 "):
			inputs[name] = fact
		default:
			return nil, fmt.Errorf("%s: %s", name, fact)
		}
	}
	return inputs, nil
}

// FileFact describes a file whose content the key does not hold that a run reads: its
// content hash (Fact), or "absent".
func FileFact(name string) (string, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "absent", nil
	}
	if err != nil {
		return "", err
	}
	return Fact(data), nil
}

// Fact is how FileFact, and loader.Reads, describe a file that holds data.
func Fact(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256 " + hex.EncodeToString(sum[:])
}
