package cachefile

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"io"
	"os"
	"strings"
)

// Executable identifies the running apigen binary, whose templates and generators decide the
// output, for the caches keyed on what apigen computes: by the Go build ID when go build
// derived it from the binary's content (reading it costs nothing), otherwise by a SHA-256 of
// the binary (tens of milliseconds).
func Executable() (string, error) {
	// On Linux this is the image that is running, even if its path has been replaced since.
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		name, err := os.Executable()
		if err != nil {
			return "", err
		}
		if f, err = os.Open(name); err != nil {
			return "", err
		}
	}
	defer f.Close()
	if id := goBuildID(f); id != "" {
		return "buildid " + id, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil { // goBuildID only uses ReadAt: f is at offset 0
		return "", err
	}
	return "sha256 " + hex.EncodeToString(h.Sum(nil)), nil
}

// goBuildID returns the binary's Go build ID when it has the form go build gives executables,
// whose last part is a hash of the binary's content, and "" otherwise (as with
// -ldflags=-buildid=..., which some build systems set to a constant). It is in an ELF note on
// ELF systems and at the start of the text section elsewhere.
func goBuildID(f *os.File) string {
	var id string
	if ef, err := elf.NewFile(f); err == nil {
		if s := ef.Section(".note.go.buildid"); s != nil {
			if data, err := s.Data(); err == nil {
				id = elfNote(data, ef.ByteOrder)
			}
		}
	} else {
		buf := make([]byte, 32<<10)
		n, _ := f.ReadAt(buf, 0)
		const prefix, suffix = "\xff Go build ID: \"", "\"\n \xff"
		if _, rest, ok := bytes.Cut(buf[:n], []byte(prefix)); ok {
			if v, _, ok := bytes.Cut(rest, []byte(suffix)); ok {
				id = string(v)
			}
		}
	}
	if !contentDerived(id) {
		return ""
	}
	return id
}

// elfNote returns the description of the "Go" note of type 4 (the build ID) in a note section.
func elfNote(data []byte, order interface{ Uint32([]byte) uint32 }) string {
	align := func(n uint32) int { return int((n + 3) &^ 3) }
	for len(data) >= 12 {
		namesz, descsz, typ := order.Uint32(data), order.Uint32(data[4:]), order.Uint32(data[8:])
		data = data[12:]
		if len(data) < align(namesz)+int(descsz) {
			return ""
		}
		name := strings.TrimRight(string(data[:namesz]), "\x00")
		desc := data[align(namesz) : align(namesz)+int(descsz)]
		if name == "Go" && typ == 4 {
			return string(desc)
		}
		if len(data) < align(namesz)+align(descsz) {
			return ""
		}
		data = data[align(namesz)+align(descsz):]
	}
	return ""
}

// contentDerived reports whether id looks like the build ID go build gives an executable:
// actionID(binary)/actionID(main.a)/contentID(main.a)/contentID(binary), each part 20
// characters of base64url.
func contentDerived(id string) bool {
	parts := strings.Split(id, "/")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if len(p) != 20 || strings.Trim(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return false
		}
	}
	return true
}
