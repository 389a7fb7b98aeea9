package doccheck_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/c13f5054/moralis-go/internal/modroot"
)

// documents are the files whose ```go blocks must compile, relative to the module root.
var documents = []string{
	"README.md",
}

// imports are the packages a block may name without importing them, by the name they have in the README.
var imports = []string{
	"context",
	"crypto/ed25519",
	"errors",
	"fmt",
	"log/slog",
	"math/big",
	"net/http",
	"net/netip",
	"os",
	"testing",
	"time",
	"github.com/c13f5054/moralis-go",
	"github.com/c13f5054/moralis-go/analytics",
	"github.com/c13f5054/moralis-go/auth",
	"github.com/c13f5054/moralis-go/authserver",
	"github.com/c13f5054/moralis-go/client",
	"github.com/c13f5054/moralis-go/parse",
	"github.com/c13f5054/moralis-go/query",
	"github.com/c13f5054/moralis-go/query/live",
	"github.com/c13f5054/moralis-go/signer",
	"github.com/c13f5054/moralis-go/store",
	"github.com/c13f5054/moralis-go/transfer",
	"github.com/c13f5054/moralis-go/units",
	"github.com/c13f5054/moralis-go/web3api",
	"github.com/c13f5054/moralis-go/web3api/web3apitest",
	"github.com/ethereum/go-ethereum/common",
	"github.com/ethereum/go-ethereum/ethclient",
}

// preamble declares the free variables the snippets share: what a user's own code would already hold where the
// snippet is pasted. A snippet that makes one of them itself (c, err := client.New(...)) shadows it.
const preamble = `
var (
	ctx     context.Context
	c       *client.Client // a backend client (client.New)
	err     error
	t       *testing.T

	serverURL, appID, jsKey, masterKey string // the backend's address and keys
	apiKey                             string // a chain-data API key
	liveURL, rpcURL, redisURL          string
	hexKey, solSecret                  string // an Ethereum key in hex, a Solana secret in base58
	storage                            client.Storage

	key     *signer.Key           // signer.NewKeyFromHex
	addr    string                // a wallet address, 0x hex
	token   string                // a token contract's address, 0x hex
	to      string                // a receiver's address
	abiJSON string                // a contract's ABI
	eth     *ethclient.Client     // ethclient.Dial(rpcURL)
	backend authserver.Backend    // authserver.NewClientBackend(...)
	obj     *parse.Object         // an object of the app's
	objs    []*parse.Object
	st      *store.Store          // store.Open
)
`

// TestDocumentGoBlocksCompile type-checks every ```go block of the documents against the module as it is.
func TestDocumentGoBlocksCompile(t *testing.T) {
	root := moduleRoot(t)
	total := 0
	for _, doc := range documents {
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := goBlocks(text)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if len(blocks) == 0 {
			t.Fatalf("%s: no ```go block found; the extraction is broken or the document lost its code", doc)
		}
		for _, b := range blocks {
			for _, msg := range checkBlock(t, doc, b) {
				t.Errorf("%s", msg)
			}
		}
		total += len(blocks)
	}
	t.Logf("%d ```go blocks type-checked in %s", total, strings.Join(documents, ", "))
}

// TestDocCheckFindsAStaleBlock keeps the check itself honest: a block calling a method that does not exist, or
// passing a value of the wrong type, is reported at its line in the document; a correct one is not.
func TestDocCheckFindsAStaleBlock(t *testing.T) {
	doc := "intro\n\n```go\nerr = c.Objects.Save(ctx, obj)\n```\n\n```go\nerr = c.Objects.SaveEverything(ctx, obj)\n```\n\n" +
		"```go\nq := query.New[*parse.Object](\"GameScore\").Limit(\"ten\")\n```\n"
	blocks, err := goBlocks([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 {
		t.Fatalf("found %d blocks, want 3", len(blocks))
	}
	if msgs := checkBlock(t, "doc.md", blocks[0]); len(msgs) != 0 {
		t.Errorf("a correct block is reported: %v", msgs)
	}
	msgs := checkBlock(t, "doc.md", blocks[1])
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "doc.md:8:") || !strings.Contains(msgs[0], "SaveEverything") {
		t.Errorf("a call of a missing method is reported as %q, want one error at doc.md:8", msgs)
	}
	msgs = checkBlock(t, "doc.md", blocks[2])
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "doc.md:12:") {
		t.Errorf("a wrong argument type is reported as %q, want one error at doc.md:12", msgs)
	}
}

// block is one ```go block: its text and the document line of its first line.
type block struct {
	line int
	text string
}

var fence = regexp.MustCompile("^( *)```(.*)$")

// unused matches go/types' texts for a variable or an import a snippet does not use.
var unused = regexp.MustCompile(`^declared and not used|^".*" imported (as \w+ )?and not used`)

// goBlocks returns the ```go blocks of a markdown text, unindented by their fence's indentation.
func goBlocks(text []byte) ([]block, error) {
	var (
		out     []block
		cur     *block
		indent  string
		inFence bool
		n       int
	)
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		n++
		line := sc.Text()
		if m := fence.FindStringSubmatch(line); m != nil {
			switch {
			case !inFence:
				inFence = true
				indent = m[1]
				if strings.TrimSpace(m[2]) == "go" {
					cur = &block{line: n + 1}
				}
			case strings.TrimSpace(m[2]) == "":
				inFence = false
				if cur != nil {
					out = append(out, *cur)
					cur = nil
				}
			}
			continue
		}
		if cur != nil {
			cur.text += strings.TrimPrefix(line, indent) + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if inFence {
		return nil, fmt.Errorf("a code block is not closed")
	}
	return out, nil
}

var (
	loadOnce sync.Once
	loadErr  error
	fset     = token.NewFileSet()
	imp      types.Importer
)

// importerFor returns one importer for every check, reading the export data `go list -export` gives for the
// imports and their dependencies (the go command builds them, or takes them from the build cache).
func importerFor(t *testing.T) types.Importer {
	t.Helper()
	loadOnce.Do(func() {
		args := append([]string{"list", "-export", "-deps", "-f", "{{if .Export}}{{.ImportPath}}={{.Export}}{{end}}"}, imports...)
		cmd := exec.Command("go", args...)
		cmd.Dir, _ = modroot.Dir() // not found: the working directory, and go list says what is wrong
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			loadErr = fmt.Errorf("go list -export: %v\n%s", err, stderr.String())
			return
		}
		exports := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if path, file, ok := strings.Cut(l, "="); ok {
				exports[path] = file
			}
		}
		imp = importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			file, ok := exports[path]
			if !ok {
				return nil, fmt.Errorf("no export data for %q (add it to imports in doccheck_test.go)", path)
			}
			return os.Open(file)
		})
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return imp
}

// checkBlock type-checks one block and returns go/types' errors at their document positions, leaving out only
// variables and imports the snippet does not use.
func checkBlock(t *testing.T, doc string, b block) []string {
	t.Helper()
	imp := importerFor(t)
	var src strings.Builder
	directive := fmt.Sprintf("//line %s:%d\n", doc, b.line)
	if strings.HasPrefix(strings.TrimSpace(b.text), "package ") {
		src.WriteString(directive + b.text)
	} else {
		src.WriteString("package readme\n\nimport (\n")
		for _, p := range imports {
			fmt.Fprintf(&src, "\t%q\n", p)
		}
		src.WriteString(")\n" + preamble)
		if topLevel(b.text) {
			src.WriteString(directive + b.text)
		} else {
			src.WriteString("func _() error {\n" + directive + b.text + "\treturn nil\n}\n")
		}
	}
	f, err := parser.ParseFile(fset, doc, src.String(), parser.SkipObjectResolution)
	if err != nil {
		return []string{err.Error()}
	}
	var msgs []string
	conf := types.Config{
		Importer: imp,
		Error: func(err error) {
			te, ok := err.(types.Error)
			if ok && unused.MatchString(te.Msg) {
				return
			}
			msgs = append(msgs, err.Error())
		},
	}
	_, _ = conf.Check("readme", fset, []*ast.File{f}, nil)
	return msgs
}

// topLevel tells a block of declarations (a func at the left margin) from a list of statements.
func topLevel(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "func ") {
			return true
		}
	}
	return false
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := modroot.Dir()
	if err != nil {
		t.Fatal(err)
	}
	return root
}
