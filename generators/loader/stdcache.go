package loader

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/apigen-dev/apigen/internal/cachefile"
	"golang.org/x/tools/go/packages"
	gengotypes "k8s.io/gengo/v2/types"
)

// StdCache says that a load reads the standard library's types as export data instead of
// parsing and type-checking three quarters of its source again: the export data the go command
// keeps in its build cache, which any machine that has built a Go program holds. The load's own
// go list names those files (asksList), or, for a load that lists the compiled files, the go
// command is asked as go/packages asks it for the load (the same environment, directory and
// build tags); both with -n, so that it never compiles anything: a package it would have to
// build is loaded from source, as before. Dir keeps what a load learns of a project's go list
// (listCompiled), not the types.
//
// Export data holds a package's exported declarations (and what they refer to) and their
// positions (file and line), not its comments, unexported declarations or syntax. gengo's
// universe reads more of some packages: the comments of every package it holds declarations
// of (time.Time, math/big's Int through resource.Quantity, what their methods name), by the
// file and line they end on, and the unexported declarations and doc.go of every package it
// processes fully. Which packages those are comes from stdSeed: the comments of its Comments'
// are scanned from their files (only their tokens, see scanComments) and go into gengo's
// comment index, keyed by the file names the positions of the package's export data carry, and
// its Source's are taken from source. A run that finds the universe reading more of a package
// that came from export data than that (Result.StdTouched) is thrown away and loaded again
// with that package from source (Options.Previous, pipeline.Run; a load that shows it, the
// packages the API types refer to, before any generator runs). So export data can make a load
// faster, never its output different. Of the standard library only the packages gengo
// processes fully, and those whose export data does not declare what their source does (see
// export), are parsed and type-checked.
type StdCache struct {
	// Dir holds the loader's notes of projects (listCompiled), kept as cachefile keeps
	// entries.
	Dir string
	// Identity names the apigen binary (its build ID: cachefile.Executable); the notes are
	// its own.
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

// stdCacheFormat changes whenever the notes' meaning does.
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

// stdSeed are the standard library's packages gengo's universe reads more of than their
// types on a run of examples/wardle, with math/big among Source: the loads take Source's from
// source, and scan the files of Comments' for their comments, beside their export data. A
// project that needs more is loaded again (StdTouched) with what it needs from source.
// TestRunStdSeed (generators/pipeline) keeps the seed current.
// math/big: an API type with a resource.Quantity field (most real APIs: every k8s.io/api
// group with resources or capacities) makes gengo process it fully (Quantity's inf.Dec holds
// a big.Int, see Result.referenced), so without it every run of such a project would load
// everything again for it; wardle reads only its comments, which it then takes from source too.
var stdSeed = stdLists{
	Source: []string{"math/big", "time"},
	Comments: []string{"bytes", "context", "encoding/json", "fmt", "go/ast", "go/doc", "go/doc/comment", "go/token",
		"internal/abi", "internal/godebug", "internal/godebugs", "internal/runtime/maps", "internal/sync", "io", "iter",
		"math/rand", "net/http", "net/url", "reflect", "regexp", "regexp/syntax", "strings", "sync", "sync/atomic"},
}

// stdLists name the standard library's packages gengo processes fully (Source: loads take
// them from source) and those whose declarations its universe holds (Comments: their comment
// groups go into gengo's comment index). controller-tools needs no syntax of the others: it
// reads the load's type information, and the load seals them, see Result.sealStd.
type stdLists struct {
	Source, Comments []string
}

// commentGroup is a comment group where gengo's comment index keeps it: by the file and line
// it ends on (as the load's file set places its end), with the text of each of its comments.
type commentGroup struct {
	File  string
	Line  int
	Texts []string
}

// stdLoad is what one load knows of the standard library: which of its packages are in the
// load and which it read from export data.
type stdLoad struct {
	// use is set when the load reads packages from the go build cache's export data (a cache,
	// not from source); lists are stdSeed's (empty lists with Without.Seed).
	use   bool
	lists *stdLists
	// std are the standard library's packages of the load, by path; source those taken from
	// source all the same.
	std    map[string]*packages.Package
	source map[string]bool
	// comments are the comment groups of the packages read from export data whose comments
	// go into gengo's index.
	comments map[string][]commentGroup
	// fromExport are the packages read from export data.
	fromExport map[string]bool
	// scanned are the comment groups of the packages read from export data whose comments
	// gengo's index is to hold, scanned from their files (by base name) as the load reads them.
	mu      sync.Mutex
	scanned map[string][]commentGroup
	// goq is the go command's answer of what its build cache has of the std packages (nil: it
	// was not asked).
	goq *goQuery
}

// stdAgain is what a load done again (Options.Previous) keeps of the load that read too little: the
// packages to take from source, and where that load found the export data (the go command's
// answer), so that the go command is not asked again.
type stdAgain struct {
	source map[string]bool
	goq    *goQuery
}

// newStdLoad finds the standard library's packages among those of roots; with a cache and
// use, the load reads them from the go build cache's export data: early is the go command's
// answer for them (listedExports), or it asks the go command in dir (the load's) for their
// export data in the background; a load done again (again not nil) reads them where the first
// load found them instead, and takes again's packages from source.
func newStdLoad(cache *StdCache, roots []*packages.Package, use bool, dir string, early *goQuery, again *stdAgain, without Without) *stdLoad {
	s := &stdLoad{std: map[string]*packages.Package{}, fromExport: map[string]bool{}, comments: map[string][]commentGroup{},
		scanned: map[string][]commentGroup{}, source: map[string]bool{}, goq: early}
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
	for _, p := range all {
		if p.Module == nil && p.PkgPath != "unsafe" && len(p.Errors) == 0 && len(p.GoFiles) > 0 &&
			filepath.Dir(p.GoFiles[0]) == filepath.Join(goroot, "src", filepath.FromSlash(p.PkgPath)) {
			s.std[p.PkgPath] = p
		}
	}
	if !use || cache == nil || cache.Dir == "" || cache.Identity == "" || len(s.std) == 0 {
		return s
	}
	s.use = true
	s.lists = &stdSeed
	if without.Seed {
		s.lists = &stdLists{}
	}
	for _, path := range s.lists.Source {
		s.source[path] = true
	}
	if again != nil {
		maps.Copy(s.source, again.source)
		s.goq = again.goq
	}
	if s.goq == nil && again == nil && goListDriver() {
		var lacking []string
		for path := range s.std {
			if !s.source[path] {
				lacking = append(lacking, path)
			}
		}
		if len(lacking) > 0 {
			slices.Sort(lacking)
			s.goq = startGoQuery(dir, lacking)
			s.goq.asked = map[string]bool{}
			for _, path := range lacking {
				s.goq.asked[path] = true
			}
		}
	}
	return s
}

// hashHex returns the first 16 hexadecimal digits of the SHA-256 of parts.
func hashHex(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return hex.EncodeToString(sum[:8])
}

// prefix starts the names of the cache's notes for this apigen binary.
func (c *StdCache) prefix() string { return hashHex(stdCacheFormat, c.Identity, BuildTag) }

// asksList reports whether the load's go list is to name, too, the export data the go build
// cache has of the standard library (listedExports): whenever there is a cache. The go
// command then works out the build of the load's whole graph once (as a separate question,
// beside go/packages' go list, it loaded the module graph and the packages a second time, on
// the same two cores: its answer came ~0.2 s after the list's). A package it would have to
// compile is named without export data and never compiled (-n, see goExportData), and the
// load takes it from source.
func (c *StdCache) asksList() bool {
	return c != nil && c.Dir != "" && c.Identity != "" && goListDriver()
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

// export returns the export data to read a package from (the go build cache's), or nil to load
// it from source. When gengo's index is to hold the package's comments, it scans them from
// the package's files first (scanComments; nil when they do not scan, or the export data is
// not what gengo is to read).
func (s *stdLoad) export(p *packages.Package) []byte {
	path := p.PkgPath
	if !s.use || s.std[path] == nil || s.source[path] {
		return nil
	}
	s.waitGo()
	data := s.goExport(path)
	if data != nil && slices.Contains(s.lists.Comments, path) {
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

// imported notes how a package's export data read (see checkGraph), and keeps the comment
// groups export scanned, named as the positions of the export data name the package's files
// (exportFileNames; left out when they cannot be, so that a run that looks them up is done
// again from source). It runs for one package at a time.
func (s *stdLoad) imported(p *packages.Package, err error) {
	if err != nil {
		return
	}
	s.mu.Lock()
	scanned, isScanned := s.scanned[p.PkgPath]
	s.mu.Unlock()
	if isScanned {
		if prefix, ok := exportFileNames(p.Fset, p.Types, p.GoFiles); ok {
			for i := range scanned {
				scanned[i].File = prefix + scanned[i].File
			}
			s.comments[p.PkgPath] = scanned
		}
	}
	s.fromExport[p.PkgPath] = true
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
