package loader

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/apigen-dev/apigen/internal/cachefile"
	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
	gengotypes "k8s.io/gengo/v2/types"
)

// StdCache keeps the standard library's types as export data, so that a load reads them
// instead of parsing and type-checking three quarters of its source again. The standard
// library does not change for a given toolchain, platform and apigen binary (the key), and
// each package's entry holds the names, sizes and modification times of the files it was
// checked from (checked again on every use). After a load from source, the packages'
// types are written with gcexportdata; later loads import them in the order of the import
// graph into one map, so that each package exists once.
//
// Export data holds a package's exported declarations (and what they refer to) and their
// positions (file and line), not its comments, unexported declarations or syntax. gengo's
// universe reads more of some packages: the comments of every package it holds declarations
// of (time.Time, math/big's Int through resource.Quantity, what their methods name), by the
// file and line they end on, and the unexported declarations and doc.go of every package it
// processes fully. So each entry keeps the package's comment groups too, which go into gengo's
// comment index for the packages whose declarations the universe held before (Comments), keyed
// by the file names the positions of the package's export data carry, and the packages it
// processed fully are taken from source (Source). A run that finds the
// universe reading more of a package that came from export data than that (Result.StdTouched)
// is thrown away and loaded again with that package from source (Options.Previous, pipeline.Run; a
// load that shows it, the packages the API types refer to, before any generator runs), and
// the package joins the lists. So the cache can make a load faster, never its output
// different: a missing, stale, corrupt or foreign entry is a load from source.
//
// What the entry lacks (the first run of an apigen binary, a new toolchain, a changed file)
// is read from the export data the go command keeps in its build cache when it has it: any
// machine that has built a Go program has most of the standard library there. The load's own
// go list names those files (asksList), or, for what an entry lacks, the go command is asked
// as go/packages asks it for the load (the same environment, directory and build tags); both
// with -n, so that it never compiles anything: a package it would have to build is loaded
// from source, as before. Which packages need more than their types on such a run
// comes from stdSeed, as there is no entry to tell; the run writes the entry. The comments
// of a package read from export data that the entry lacks are scanned from its files (only
// their tokens, see scanComments), so that of the standard library only the packages gengo
// processes fully, and those whose export data does not declare what their source does
// (see export), are parsed and type-checked.
type StdCache struct {
	// Dir holds one file per key, kept as cachefile keeps entries.
	Dir string
	// Identity names the apigen binary (its build ID: cachefile.Executable), which decides how
	// packages are parsed and type-checked; it is part of the key.
	Identity string
}

// NewStdCache returns the cache in dir for the running apigen binary, or nil when dir is ""
// or the binary cannot be identified (the load then takes the standard library from source).
func NewStdCache(dir string) *StdCache {
	if dir == "" {
		return nil
	}
	exe, err := cachefile.Executable()
	if err != nil {
		return nil
	}
	return &StdCache{Dir: dir, Identity: exe}
}

// stdCacheFormat changes whenever the entries' meaning or encoding does.
const stdCacheFormat = "apigen-stdtypes/2"

// DefaultStdCacheDir is os.UserCacheDir()/apigen/std, unless APIGEN_STDCACHE=off turns the
// cache off (""), beside the result cache's apigen/verify.
func DefaultStdCacheDir() string {
	switch strings.ToLower(os.Getenv("APIGEN_STDCACHE")) {
	case "off", "0", "false", "no":
		return ""
	}
	dir, err := cachefile.Dir("std")
	if err != nil {
		return ""
	}
	return dir
}

// stdFile is what an entry holds.
type stdFile struct {
	Format string
	// Source are the packages gengo has processed fully, which loads take from source;
	// Comments are those whose declarations its universe held, whose comment groups go into
	// gengo's comment index. (controller-tools needs no syntax of the others: it reads the
	// load's type information, and the load seals them, see Result.sealStd.)
	Source, Comments []string
	// Typed is set once a run of a project with API types has written the entry. The lists
	// of an entry that only runs without API types wrote (apigen init's, before the user adds
	// types) say nothing of what a project with types reads, so loads add stdSeed's to them,
	// as a load without an entry decides from stdSeed: such a project's first run with types
	// is otherwise done again for time and math/big. stdSeed is not written into the lists,
	// so that a project that does not need a seed package never takes it from source for it.
	Typed bool
	// Packages are the standard library's packages, by path.
	Packages map[string]stdPackage
}

// stdSeed are the lists of an entry (see stdFile) as a run of examples/wardle leaves them,
// with math/big among Source, which the loads decide from while there is no entry: the first
// run of an apigen binary reads the packages but Source's from the go build cache, and scans
// the files of Comments' for their comments, and so do those whose entry no run of a project
// with API types wrote (see stdFile.Typed). A project that needs more is loaded again once
// (StdTouched), as with an entry that has not learned a package yet; the entry it writes keeps
// what the project needs, not the seed. TestRunStdCacheCold keeps the seed current.
// math/big: an API type with a resource.Quantity field (most real APIs: every k8s.io/api
// group with resources or capacities) makes gengo process it fully (Quantity's inf.Dec holds
// a big.Int, see Result.referenced), so such a project's first run loaded everything again
// for it; wardle reads only its comments, which it then takes from source too.
var stdSeed = stdFile{
	Source: []string{"math/big", "time"},
	Comments: []string{"bytes", "context", "encoding/json", "fmt", "go/ast", "go/doc", "go/doc/comment", "go/token",
		"internal/abi", "internal/godebug", "internal/godebugs", "internal/runtime/maps", "internal/sync", "io", "iter",
		"math/rand", "net/http", "net/url", "reflect", "regexp", "regexp/syntax", "strings", "sync", "sync/atomic"},
}

// stdPackage is one package's types.
type stdPackage struct {
	// Files are the package's Go files as the go command listed them (cgo's included), with
	// the size and modification time each had when they were checked.
	Files []fileStamp
	// Export is gcexportdata's encoding of the package's types, as apigen checked them or as
	// it read them from the go build cache (whose positions name the files as the compiler
	// does, $GOROOT/src/..., where a load from source has the files' own names).
	Export []byte
	// Comments is the gob encoding of the package's comment groups ([]commentGroup), kept for
	// the packages in the entry's Comments, their files named as Export's positions name them,
	// so that gengo finds them where it looks them up. They are written with the export data.
	Comments []byte
}

// commentGroup is a comment group where gengo's comment index keeps it: by the file and line
// it ends on (as the load's file set places its end), with the text of each of its comments.
type commentGroup struct {
	File  string
	Line  int
	Texts []string
}

type fileStamp struct {
	Name    string
	Size    int64
	ModTime int64
}

// stdLoad is what one load knows of the standard library: which of its packages are in the
// load, which it read from export data, and the entry.
type stdLoad struct {
	cache *StdCache
	// name is the entry's file ("" when there is no cache); use is false when the load takes
	// every package from source all the same (it still writes what the entry lacks). lists
	// are the entry's, or stdSeed without one.
	name  string
	entry *stdFile
	lists *stdFile
	use   bool
	// std are the standard library's packages of the load, by path.
	std map[string]*packages.Package
	// stamps are the std packages' files as they are now; valid are the packages whose entry
	// holds them, as do all their imports'.
	stamps map[string][]fileStamp
	valid  map[string]bool
	source map[string]bool
	// comments are the comment groups of the packages read from export data whose comments
	// go into gengo's index; syntaxComments those of the packages checked from source that the
	// entry lacks, to be written.
	comments       map[string][]commentGroup
	syntaxComments map[string][]commentGroup
	// fromExport are the packages read from export data, fromGo those of them the go build
	// cache gave; failed is set when one did not read.
	fromExport map[string]bool
	fromGo     map[string]bool
	failed     bool
	// scanned are the comment groups of the packages read from export data whose comments
	// the entry lacks, scanned from their files (by base name) as the load reads them;
	// fromScan those of them that went into comments, to be written.
	mu       sync.Mutex
	scanned  map[string][]commentGroup
	fromScan map[string]bool
	// goq is the go command's answer of what its build cache has of the std packages the
	// entry lacks (nil: it was not asked).
	goq *goQuery
	// types are the std packages' types as the load made them (controller-tools replaces
	// Types in the records it type-checks again).
	types map[string]*types.Package
	// encoded is closed once exports holds the export data save is to write of the packages
	// the entry lacks, encoded in the background (see encode); nil when not started.
	encoded chan struct{}
	exports map[string][]byte
}

// stdAgain is what a load done again (Options.Previous) keeps of the load that read too little: the
// packages to take from source, and where that load found the export data the entry lacks
// (the go command's answer), so that the go command is not asked again.
type stdAgain struct {
	source map[string]bool
	goq    *goQuery
}

// newStdLoad finds the standard library's packages among those of roots and reads the
// entry for them when cache is not nil; use says whether the load may read packages from it.
// When the entry lacks packages, early is the go command's answer for them (listedExports), or it
// asks the go command in dir (the load's) for their export data in the background; a load
// done again (again not nil) reads them where the first load found them instead, and takes
// again's packages from source.
func newStdLoad(cache *StdCache, roots []*packages.Package, use bool, dir string, early *goQuery, again *stdAgain, without Without) *stdLoad {
	s := &stdLoad{cache: cache, use: use, std: map[string]*packages.Package{}, fromExport: map[string]bool{}, fromGo: map[string]bool{}, types: map[string]*types.Package{},
		comments: map[string][]commentGroup{}, syntaxComments: map[string][]commentGroup{}, scanned: map[string][]commentGroup{}, fromScan: map[string]bool{},
		goq: early}
	var all []*packages.Package
	packages.Visit(roots, nil, func(p *packages.Package) { all = append(all, p) })
	goroot := ""
	for _, p := range all {
		if p.PkgPath == "unsafe" && len(p.GoFiles) > 0 {
			goroot = strings.TrimSuffix(filepath.Dir(p.GoFiles[0]), filepath.Join("src", "unsafe"))
		}
	}
	if goroot == "" {
		return s
	}
	var sizes string
	for _, p := range all {
		if p.Module == nil && p.PkgPath != "unsafe" && len(p.Errors) == 0 && len(p.GoFiles) > 0 &&
			filepath.Dir(p.GoFiles[0]) == filepath.Join(goroot, "src", filepath.FromSlash(p.PkgPath)) {
			s.std[p.PkgPath] = p
			if sizes == "" && p.TypesSizes != nil {
				sizes = fmt.Sprintf("%d %d", p.TypesSizes.Sizeof(types.Typ[types.Uintptr]), p.TypesSizes.Alignof(types.Typ[types.Int64]))
			}
		}
	}
	if cache == nil || cache.Dir == "" || cache.Identity == "" || len(s.std) == 0 {
		return s
	}
	s.name = filepath.Join(cache.Dir, cache.prefix()+"-"+hashHex(runtime.Version(), goroot, sizes))
	if !without.Entry {
		s.entry = readStdFile(s.name)
	}
	s.stamps = map[string][]fileStamp{}
	for path, p := range s.std {
		// The Go files, cgo's included: what go list names whether or not it lists the
		// compiled files (notCompiled), so that loads of both kinds agree on an entry.
		s.stamps[path] = stamp(p.GoFiles)
	}
	s.valid = map[string]bool{}
	s.source = map[string]bool{}
	switch {
	case s.entry == nil && without.Seed:
		s.lists = &stdFile{}
	case s.entry == nil:
		s.lists = &stdSeed
	case !s.entry.Typed:
		s.lists = &stdFile{Source: union(s.entry.Source, stdSeed.Source), Comments: union(s.entry.Comments, stdSeed.Comments)}
	default:
		s.lists = s.entry
	}
	for _, path := range s.lists.Source {
		s.source[path] = true
	}
	if again != nil {
		maps.Copy(s.source, again.source)
		s.goq = again.goq
	}
	var lacking []string
	for path := range s.std {
		if (s.entry == nil || !s.isValid(path, map[string]bool{})) && !s.source[path] {
			lacking = append(lacking, path)
		}
	}
	if use && len(lacking) > 0 && s.goq == nil && again == nil && goListDriver() {
		slices.Sort(lacking)
		s.goq = startGoQuery(dir, lacking)
		s.goq.asked = map[string]bool{}
		for _, path := range lacking {
			s.goq.asked[path] = true
		}
	}
	return s
}

// union returns, sorted, the strings of a and b, each once.
func union(a, b []string) []string {
	return slices.Compact(slices.Sorted(slices.Values(slices.Concat(a, b))))
}

// current reports whether held has a package, with its files as they are now, and all its
// imports, transitively (memo holds the answers so far; visiting breaks import cycles).
func (s *stdLoad) current(path string, held func(path string) (files []fileStamp, ok bool), memo, visiting map[string]bool) bool {
	if v, ok := memo[path]; ok {
		return v
	}
	p := s.std[path]
	files, ok := held(path)
	ok = ok && p != nil && slices.Equal(files, s.stamps[path]) && !visiting[path]
	visiting[path] = true
	if ok {
		for _, imp := range p.Imports {
			if ok = imp.PkgPath == "unsafe" || s.current(imp.PkgPath, held, memo, visiting); !ok {
				break
			}
		}
	}
	memo[path] = ok
	return ok
}

// hashHex returns the first 16 hexadecimal digits of the SHA-256 of parts.
func hashHex(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return hex.EncodeToString(sum[:8])
}

// prefix starts the names of the cache's entries for this apigen binary; the rest of an
// entry's name is the toolchain and platform of the load.
func (c *StdCache) prefix() string { return hashHex(stdCacheFormat, c.Identity, BuildTag) }

// asksList reports whether the load's go list is to name, too, the export data the go build
// cache has of the standard library (listedExports): when the cache holds no entry of this
// apigen binary. The go command then works out the build of the
// load's whole graph once (as a separate question, beside go/packages' go list, it loaded the
// module graph and the packages a second time, on the same two cores: its answer came
// ~0.2 s after the list's). A package it would have to compile is named without export data
// and never compiled (-n, see goExportData), and the load takes it from source.
// Without the entry (Without.Entry) it always does.
func (c *StdCache) asksList(withoutEntry bool) bool {
	if c == nil || c.Dir == "" || c.Identity == "" || !goListDriver() {
		return false
	}
	if withoutEntry {
		return true
	}
	names, err := filepath.Glob(filepath.Join(c.Dir, c.prefix()+"-*"))
	return err == nil && len(names) == 0
}

// goQuery is a question to the go command about its build cache, running in the background,
// or answered by the load's go list (listedExports).
type goQuery struct {
	done chan struct{}
	// asked are the packages asked for; nil: every standard library package of the load
	// (the load's go list).
	asked map[string]bool
	// export names the files in the build cache that hold the export data of the standard
	// library's packages, once done is closed (each package's is read as the load reaches it).
	export map[string]string
}

// startGoQuery asks the go command in the background for the export data of the standard
// library's packages patterns name.
func startGoQuery(dir string, patterns []string) *goQuery {
	q := &goQuery{done: make(chan struct{})}
	go func() {
		defer close(q.done)
		q.export = goExportData(dir, patterns)
	}()
	return q
}

// wait waits for the go command's answer (nothing for a nil query).
func (q *goQuery) wait() {
	if q != nil {
		<-q.done
	}
}

// waitGo waits for the go command's answer, if it was asked.
func (s *stdLoad) waitGo() { s.goq.wait() }

// goExport returns the go build cache's export data of a package, or nil (call waitGo first).
func (s *stdLoad) goExport(path string) []byte {
	if s.goq == nil || s.goq.export[path] == "" {
		return nil
	}
	data, err := readExportFile(s.goq.export[path])
	if err != nil {
		return nil // trimmed from the cache since, or not export data: loaded from source
	}
	return data
}

// isValid reports whether the entry holds the package as its files are now, and its imports.
func (s *stdLoad) isValid(path string, visiting map[string]bool) bool {
	return s.current(path, func(path string) ([]fileStamp, bool) {
		e := s.entry.Packages[path]
		return e.Files, e.Export != nil
	}, s.valid, visiting)
}

// export returns the export data to read a package from (the entry's, or the go build
// cache's for a package the entry lacks), or nil to load it from source. When gengo's index
// is to hold the package's comments and the entry lacks them, it scans them from the
// package's files first (scanComments; nil when they do not scan, or the export data is not
// what gengo is to read).
func (s *stdLoad) export(p *packages.Package) []byte {
	path := p.PkgPath
	if !s.use || s.name == "" || s.std[path] == nil || s.source[path] {
		return nil
	}
	var data []byte
	if s.entry != nil && s.valid[path] {
		data = s.entry.Packages[path].Export
	} else {
		s.waitGo()
		data = s.goExport(path)
	}
	if data != nil && s.needsComments(path) {
		// gengo reads the package's declarations, which export data may declare otherwise
		// (see assume_exportdata.go): such a package is loaded from source.
		if namesResults(data) {
			return nil
		}
		groups, ok := scanPackageComments(p.GoFiles)
		if !ok {
			return nil
		}
		s.mu.Lock()
		s.scanned[path] = groups
		s.mu.Unlock()
	}
	return data
}

// needsComments reports whether the entry lacks the comments of a package gengo's index is to
// hold: they are scanned from its files, or taken from its syntax when it is loaded from
// source (export data has none), and written.
func (s *stdLoad) needsComments(path string) bool {
	return slices.Contains(s.lists.Comments, path) && (s.entry == nil || !s.valid[path] || len(s.entry.Packages[path].Comments) == 0)
}

// imported notes how a package's export data read (see checkGraph), and reads its comment
// groups when gengo's index is to hold them: the entry's, or those export scanned, named as
// the positions of the export data name the package's files (exportFileNames; left out when
// they cannot be, so that a run that looks them up is done again from source). It runs for
// one package at a time.
func (s *stdLoad) imported(p *packages.Package, err error) {
	s.mu.Lock()
	scanned, isScanned := s.scanned[p.PkgPath]
	s.mu.Unlock()
	switch {
	case err != nil:
	case isScanned:
		if prefix, ok := exportFileNames(p.Fset, p.Types, p.GoFiles); ok {
			for i := range scanned {
				scanned[i].File = prefix + scanned[i].File
			}
			s.comments[p.PkgPath] = scanned
			s.fromScan[p.PkgPath] = true
		}
	case s.entry != nil && s.valid[p.PkgPath] && slices.Contains(s.entry.Comments, p.PkgPath):
		var groups []commentGroup
		if err = gob.NewDecoder(bytes.NewReader(s.entry.Packages[p.PkgPath].Comments)).Decode(&groups); err == nil {
			s.comments[p.PkgPath] = groups
		}
	}
	if err != nil {
		s.failed = true
		return
	}
	s.fromExport[p.PkgPath] = true
	if s.entry == nil || !s.valid[p.PkgPath] {
		s.fromGo[p.PkgPath] = true
	}
}

// checked keeps the comment groups of the std packages the load checked from source that the
// entry lacks, to write them with the package.
func (s *stdLoad) checked(fset *token.FileSet) {
	s.waitGo()
	if s.name == "" {
		return
	}
	for path, p := range s.std {
		if s.fromExport[path] || s.valid[path] && !s.failed && len(s.entry.Packages[path].Comments) > 0 {
			continue
		}
		var groups []commentGroup
		for _, f := range p.Syntax {
			for _, c := range f.Comments {
				g := commentGroup{Texts: make([]string, len(c.List))}
				g.File, g.Line = commentKey(fset, c)
				for i, cm := range c.List {
					g.Texts[i] = cm.Text
				}
				groups = append(groups, g)
			}
		}
		s.syntaxComments[path] = groups
	}
}

// indexed returns the comment groups gengo's index holds for a package read from export
// data, as gengo's parser keeps them: by file and line. Only their text is read (gengo reads
// the position of a group only for a package it processes fully, which comes from source).
func (s *stdLoad) indexed(path string) []commentGroup {
	if s == nil {
		return nil
	}
	return s.comments[path]
}

// stamp returns the names, sizes and modification times of files (nil for a file that is
// not there).
func stamp(files []string) []fileStamp {
	out := make([]fileStamp, 0, len(files))
	for _, name := range files {
		fi, err := os.Stat(name)
		if err != nil {
			return nil
		}
		out = append(out, fileStamp{Name: name, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()})
	}
	return out
}

// stdHeader starts every entry, followed by the SHA-256 of the rest: an entry that was cut
// short or altered is not read.
const stdHeader = stdCacheFormat + "\n"

func readStdFile(name string) *stdFile {
	var f stdFile
	if !readCacheFile(name, &f) || f.Format != stdCacheFormat {
		return nil
	}
	return &f
}

// readCacheFile decodes a file of the cache (an entry) into v, and reports
// whether it could.
func readCacheFile(name string, v any) bool {
	data, err := os.ReadFile(name)
	if err != nil || !bytes.HasPrefix(data, []byte(stdHeader)) || len(data) < len(stdHeader)+sha256.Size {
		return false
	}
	sum, body := data[len(stdHeader):len(stdHeader)+sha256.Size], data[len(stdHeader)+sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return false
	}
	if err := gob.NewDecoder(bytes.NewReader(body)).Decode(v); err != nil {
		return false
	}
	cachefile.Used(name)
	return true
}

// encode starts encoding, in the background, the export data save writes of the packages the
// entry lacks whatever the run goes on to read (those read from the go build cache, those
// checked from source that the entry lacks or has with no comments, as the lists stand),
// gcexportdata.Write being most of save's cost: it runs beside the generators, which read the
// same types (go/types' objects are safe for concurrent reads once checked, and so is the
// file set). save waits for it, and encodes what it lacks itself.
func (s *stdLoad) encode(fset *token.FileSet) {
	if s == nil || s.name == "" || s.failed || s.encoded != nil {
		return
	}
	var todo []string
	for path := range s.fromGo {
		todo = append(todo, path)
	}
	for path := range s.syntaxComments {
		e, ok := s.entry.packages()[path]
		if !ok || !s.valid[path] || len(e.Comments) == 0 && slices.Contains(s.lists.Comments, path) {
			todo = append(todo, path)
		}
	}
	todo = slices.DeleteFunc(todo, func(path string) bool { return s.types[path] == nil || s.stamps[path] == nil })
	if len(todo) == 0 {
		return
	}
	s.encoded = make(chan struct{})
	exports := make(map[string][]byte, len(todo))
	go func() {
		defer close(s.encoded)
		for _, path := range todo {
			var export bytes.Buffer
			if err := gcexportdata.Write(&export, fset, s.types[path]); err == nil {
				exports[path] = export.Bytes()
			}
		}
		s.exports = exports
	}()
}

// exportData returns gcexportdata's encoding of a package's types: encode's, or encoded now.
func (s *stdLoad) exportData(fset *token.FileSet, path string) ([]byte, error) {
	if data, ok := s.exports[path]; ok {
		return data, nil
	}
	var export bytes.Buffer
	if err := gcexportdata.Write(&export, fset, s.types[path]); err != nil {
		return nil, err
	}
	return export.Bytes(), nil
}

// packages returns the entry's packages (nil without an entry).
func (f *stdFile) packages() map[string]stdPackage {
	if f == nil {
		return nil
	}
	return f.Packages
}

// save writes the entry again when the load checked std packages from source that it lacks,
// or when processed or held name packages that are not in its Source or Comments yet. It
// never fails a run: the cache is a speed-up.
func (s *stdLoad) save(fset *token.FileSet, processed, held []string, typed bool) {
	if s == nil || s.name == "" {
		return
	}
	if s.encoded != nil {
		<-s.encoded
	}
	f := &stdFile{Format: stdCacheFormat, Packages: map[string]stdPackage{}, Typed: typed}
	if s.entry != nil && !s.failed {
		f.Source, f.Comments = slices.Clone(s.entry.Source), slices.Clone(s.entry.Comments)
		f.Typed = f.Typed || s.entry.Typed
		maps.Copy(f.Packages, s.entry.Packages)
	}
	changed := s.entry == nil || f.Typed != s.entry.Typed
	// The packages read from the go build cache join the entry in gcexportdata's encoding, a
	// quarter of the compiler's size (which keeps inlinable function bodies).
	for path := range s.fromGo {
		if s.stamps[path] == nil || s.failed {
			continue
		}
		export, err := s.exportData(fset, path)
		if err != nil {
			continue
		}
		f.Packages[path] = stdPackage{Files: s.stamps[path], Export: export}
		changed = true
	}
	for _, add := range []struct {
		list  *[]string
		paths []string
	}{{&f.Source, processed}, {&f.Comments, held}} {
		for _, path := range add.paths {
			if !slices.Contains(*add.list, path) {
				*add.list = append(*add.list, path)
				changed = true
			}
		}
		slices.Sort(*add.list)
	}
	// Comments scanned beside export data go with that export data (the entry's, or the go
	// build cache's, written above), whose positions name the files as they are keyed.
	for path := range s.fromScan {
		e, ok := f.Packages[path]
		if !ok || s.failed || !slices.Contains(f.Comments, path) {
			continue
		}
		var comments bytes.Buffer
		if err := gob.NewEncoder(&comments).Encode(s.comments[path]); err != nil {
			continue
		}
		e.Comments = comments.Bytes()
		f.Packages[path] = e
		changed = true
	}
	for path, groups := range s.syntaxComments {
		tp := s.types[path]
		if tp == nil || s.stamps[path] == nil {
			continue
		}
		e, ok := f.Packages[path]
		stale := !ok || !s.valid[path] || s.failed
		wantComments := slices.Contains(f.Comments, path)
		if !stale && (len(e.Comments) > 0 || !wantComments) {
			continue
		}
		e.Files = s.stamps[path]
		// A package's comments go with the export data of the types they were checked with
		// (see stdPackage.Export).
		if stale || wantComments {
			export, err := s.exportData(fset, path)
			if err != nil {
				continue
			}
			e.Export, e.Comments = export, nil
		}
		if wantComments {
			var comments bytes.Buffer
			if err := gob.NewEncoder(&comments).Encode(groups); err != nil {
				continue
			}
			e.Comments = comments.Bytes()
		}
		f.Packages[path] = e
		changed = true
	}
	if !changed {
		return
	}
	_ = writeStdFile(s.cache.Dir, s.name, f)
}

// writeStdFile writes an entry whole or not at all (cachefile.Write).
func writeStdFile(dir, name string, f *stdFile) error { return writeCacheFile(dir, name, f) }

// writeCacheFile writes a file of the cache (an entry) whole or not at all.
func writeCacheFile(dir, name string, v any) error {
	var body bytes.Buffer
	if err := gob.NewEncoder(&body).Encode(v); err != nil {
		return err
	}
	sum := sha256.Sum256(body.Bytes())
	data := slices.Concat([]byte(stdHeader), sum[:], body.Bytes())
	return cachefile.Write(dir, filepath.Base(name), data)
}

// touched returns, sorted, the packages read from export data that the universe read more of
// than the load gave it: processed fully, or held without their comments indexed.
func (s *stdLoad) touched(u gengotypes.Universe, processed map[string]bool) []string {
	if s == nil || len(s.fromExport) == 0 {
		return nil
	}
	full, held := read(u, processed, s.fromExport)
	for _, path := range held {
		if _, ok := s.comments[path]; !ok {
			full = append(full, path)
		}
	}
	slices.Sort(full)
	return full
}

// Forget makes the entries in the cache's directory forget that loads need more of the given
// packages than their types, as if no run had found out yet: the next run that needs more reads
// them from export data, finds out and is done again. For tests of that run.
func (c *StdCache) Forget(pkgPaths ...string) error {
	names, err := filepath.Glob(filepath.Join(c.Dir, "[0-9a-f]*"))
	if err != nil {
		return err
	}
	for _, name := range names {
		f := readStdFile(name)
		if f == nil {
			continue
		}
		for _, list := range []*[]string{&f.Source, &f.Comments} {
			*list = slices.DeleteFunc(*list, func(p string) bool { return slices.Contains(pkgPaths, p) })
		}
		if err := writeStdFile(c.Dir, name, f); err != nil {
			return err
		}
	}
	return nil
}
