//go:build integration

package client_test

import (
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cidV1Raw computes the CIDv1 of data the way IPFS names a single raw block, independently of the server: the
// bytes 0x01 (CID version 1), 0x55 (multicodec raw), 0x12 (multihash sha2-256), 0x20 (digest length 32), then
// the SHA-256 digest, written in multibase base32 (prefix "b", RFC 4648 lower case, no padding).
func cidV1Raw(data []byte) string {
	sum := sha256.Sum256(data)
	b := append([]byte{0x01, 0x55, 0x12, 0x20}, sum[:]...)
	return "b" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

func TestCIDV1RawKnownAnswer(t *testing.T) {
	// The CID `ipfs add --cid-version=1 --raw-leaves` gives the 5 bytes "hello".
	assert.Equal(t, "bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq", cidV1Raw([]byte("hello")))
}

func TestFilesMetadataAndTagsRoundTrip(t *testing.T) {
	ctx := t.Context()
	c := newClient(t)
	opts := &client.UploadOptions{
		Metadata: map[string]string{"owner": "alice", "note": "a b&c=d/é"},
		Tags:     map[string]string{"kind": "doc", "v": "2"},
	}
	content := []byte("file with metadata " + uniqueClass("m"))
	f, err := c.Files.Upload(ctx, "meta.txt", content, "", opts)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(f.Name, "_meta.txt"), f.Name)
	assert.Empty(t, f.Hash, "a plain upload is not stored on IPFS")

	// The bytes arrive as sent (the JSON form carries them in base64), with the detected content type.
	data, err := c.Files.Data(ctx, f)
	require.NoError(t, err)
	assert.Equal(t, content, data)
	resp, err := http.Get(f.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain"), resp.Header.Get("Content-Type"))

	// Metadata and tags read back, from the other server instance too.
	info, err := c.Files.Info(ctx, f)
	require.NoError(t, err)
	assert.Equal(t, &client.FileInfo{Metadata: opts.Metadata, Tags: opts.Tags}, info)
	c2 := newClient(t, func(cfg *client.Config) { cfg.ServerURL = devstackServerURL2(t) })
	info2, err := c2.Files.Info(ctx, f)
	require.NoError(t, err)
	assert.Equal(t, info, info2)

	// A user's upload (session token in the body) keeps them too; a plain upload has none.
	u := client.NewUser()
	u.SetUsername(uniqueClass("fileuser"))
	u.SetPassword("pw-123456")
	require.NoError(t, c.Users.SignUp(ctx, u))
	fu, err := c.WithSessionToken(u.SessionToken()).Files.UploadReader(ctx, "u.bin", strings.NewReader("by a user"), "", &client.UploadOptions{Tags: map[string]string{"by": "user"}})
	require.NoError(t, err)
	info, err = c.Files.Info(ctx, fu)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"by": "user"}, info.Tags)
	assert.Empty(t, info.Metadata)
	fp, err := c.Files.Upload(ctx, "plain.txt", []byte("plain"), "", nil)
	require.NoError(t, err)
	info, err = c.Files.Info(ctx, fp)
	require.NoError(t, err)
	assert.Empty(t, info.Metadata)
	assert.Empty(t, info.Tags)

	// Deleting the file forgets them.
	require.NoError(t, c.Files.Delete(ctx, f))
	info, err = c.Files.Info(ctx, f)
	require.NoError(t, err)
	assert.Empty(t, info.Metadata)
	assert.Empty(t, info.Tags)

	// The server's keyword denylist applies to metadata as to objects.
	_, err = c.Files.Upload(ctx, "bad.txt", []byte("x"), "", &client.UploadOptions{Metadata: map[string]string{"__proto__": "x"}})
	var perr *parse.Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, parse.CodeInvalidKeyName, perr.Code)
}

func TestFilesSaveIPFS(t *testing.T) {
	ctx := t.Context()
	c := newClient(t)
	content := []byte("ipfs content " + uniqueClass("c"))
	f, err := c.Files.SaveIPFS(ctx, "doc.json", content, "", &client.UploadOptions{Metadata: map[string]string{"a": "1"}})
	require.NoError(t, err)

	// The hash is the content's CID, computed here independently; the gateway URL serves the same bytes.
	cid := cidV1Raw(content)
	assert.Equal(t, cid, f.Hash)
	u, err := url.Parse(c.ServerURL())
	require.NoError(t, err)
	assert.Equal(t, u.Scheme+"://"+u.Host+"/ipfs/"+cid, f.IPFS)
	got, err := c.Files.Data(ctx, &parse.File{Name: f.Name, URL: f.IPFS})
	require.NoError(t, err)
	assert.Equal(t, content, got)
	// The file is also a normal Parse file, with its metadata.
	got, err = c.Files.Data(ctx, f)
	require.NoError(t, err)
	assert.Equal(t, content, got)
	info, err := c.Files.Info(ctx, f)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a": "1"}, info.Metadata)

	// Both server instances serve the block; the answer is not sniffed as a page.
	u2, err := url.Parse(devstackServerURL2(t))
	require.NoError(t, err)
	resp, err := http.Get(u2.Scheme + "://" + u2.Host + "/ipfs/" + cid)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, content, body)
	assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))

	// Same bytes, same CID (another name); different bytes, another CID.
	f2, err := c.Files.SaveIPFS(ctx, "again.txt", content, "text/plain", nil)
	require.NoError(t, err)
	assert.Equal(t, f.Hash, f2.Hash)
	assert.NotEqual(t, f.Name, f2.Name)
	f3, err := c.Files.SaveIPFS(ctx, "other.txt", append(content, '!'), "", nil)
	require.NoError(t, err)
	assert.Equal(t, cidV1Raw(append(content, '!')), f3.Hash)

	// The gateway refuses what is not a CID and answers 404 for one it does not have.
	for path, status := range map[string]int{
		"/ipfs/" + cidV1Raw([]byte("never stored "+uniqueClass("x"))): http.StatusNotFound,
		"/ipfs/../files/x": http.StatusBadRequest, "/ipfs/QmNotACid": http.StatusBadRequest,
		"/ipfs/" + strings.ToUpper(cid): http.StatusBadRequest,
	} {
		resp, err := http.Get(u.Scheme + "://" + u.Host + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, status, resp.StatusCode, path)
	}
}

func TestPluginsCall(t *testing.T) {
	ctx := t.Context()
	c := newClient(t)
	p, err := c.Cloud.Plugins(ctx)
	require.NoError(t, err)
	assert.True(t, p.Has("devstack", "echo"))
	assert.False(t, p.Has("devstack", "nope"))
	assert.Equal(t, []client.PluginSpec{{Name: "devstack", Functions: []string{"echo", "refuse"}}}, p.Specs())

	var res struct {
		Data     map[string]any `json:"data"`
		Triggers []any          `json:"triggers"`
	}
	require.NoError(t, p.Call(ctx, "devstack", "echo", map[string]any{"x": 1.5, "s": "hi"}, &res))
	assert.Equal(t, map[string]any{"x": 1.5, "s": "hi"}, res.Data)
	assert.NotNil(t, res.Triggers)

	err = p.Call(ctx, "devstack", "refuse", map[string]any{"why": "test"}, nil)
	var pe *client.PluginError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "Something went wrong\n{\n  \"message\": \"refused\",\n  \"params\": {\n    \"why\": \"test\"\n  }\n}", err.Error())

	err = p.Call(ctx, "devstack", "nope", nil, nil)
	assert.True(t, errors.Is(err, client.ErrUnknownPlugin), "%v", err)
	err = p.Call(ctx, "other", "echo", nil, nil)
	assert.True(t, errors.Is(err, client.ErrUnknownPlugin), "%v", err)
}

// devstackServerURL2 is the second parse-server instance of the local stack (same database, same files).
func devstackServerURL2(t *testing.T) string {
	t.Helper()
	return devstack.MustLoad(t).RequireServerURL2(t)
}
