package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/parse"
)

// Errors of the file calls (the original client's texts). They are returned before any request.
var (
	ErrFileNotSaved = errors.New("Cannot retrieve data for unsaved file")
	ErrFileUnnamed  = errors.New("Cannot delete an unnamed file")
	// ErrFileNoName is returned by the uploads when the file name is empty.
	ErrFileNoName = errors.New("moralis: a file needs a name")
)

// extraTypes covers common extensions that Go's built-in table lacks, for systems without a mime.types file.
var extraTypes = map[string]string{
	".txt": "text/plain; charset=utf-8", ".csv": "text/csv; charset=utf-8", ".md": "text/markdown; charset=utf-8",
	".mp3": "audio/mpeg", ".mp4": "video/mp4", ".zip": "application/zip", ".gz": "application/gzip",
	".jsonl": "application/jsonl", ".bin": "application/octet-stream",
}

// DetectContentType returns the content type of a file: from its name's extension when known (the system's
// table, then a few common ones built in), else sniffed from the first bytes of data (http.DetectContentType),
// which gives "application/octet-stream" when nothing fits.
func DetectContentType(name string, data []byte) string {
	if ext := strings.ToLower(filepath.Ext(name)); ext != "" {
		if ct := mime.TypeByExtension(ext); ct != "" {
			return ct
		}
		if ct, ok := extraTypes[ext]; ok {
			return ct
		}
	}
	return http.DetectContentType(data)
}

// UploadOptions are the optional settings of one upload. nil, or the zero value, means none: the file is sent
// as its bytes. The library copies what it needs and never changes the caller's value or maps.
type UploadOptions struct {
	// Metadata and Tags are key-value pairs stored with the file, as the Parse JS SDK's setMetadata and setTags
	// send them (fileData.metadata and fileData.tags of the upload); Files.Info reads them back. The server
	// refuses a key or value holding a keyword its requestKeywordDenylist denies. Default: none.
	Metadata map[string]string
	Tags     map[string]string
	// IPFS also stores the file content-addressed, as moralis-v1's saveIPFS (fileData.ipfs); see SaveIPFS.
	// Default false.
	IPFS bool
}

func (o *UploadOptions) plain() bool {
	return o == nil || (len(o.Metadata) == 0 && len(o.Tags) == 0 && !o.IPFS)
}

// ErrNoIPFS is returned, together with the stored File, by an upload that asked for IPFS (SaveIPFS,
// UploadOptions.IPFS) when the server stored the file but answered no hash or ipfs: it does not offer IPFS.
var ErrNoIPFS = errors.New("moralis: the server stored the file but answered no IPFS hash (it does not offer IPFS)")

// Upload stores data as a file named name (POST files/{name} with the view's session token or master key).
// contentType "" is detected with DetectContentType. The server makes the name unique (it prefixes a random
// part), so use the returned File's Name and URL, never the one passed in; Hash and IPFS are kept when the
// server sends them. Set the File on an object field to attach it.
//
// opts nil (or without metadata, tags or IPFS) sends the bytes as the body of a real HTTP request with X-Parse-*
// headers. Otherwise the body is the Parse JS SDK's JSON form ({base64, _ContentType, fileData: {metadata, tags,
// ipfs}} with the keys in the body), which is 4/3 the file's size against the server's upload limit (20 MB by
// default). An upload is sent again only when it provably never reached the server. Safe for concurrent use.
func (s *FilesService) Upload(ctx context.Context, name string, data []byte, contentType string, opts *UploadOptions) (*parse.File, error) {
	c := s.client
	if ctx == nil {
		return nil, errors.New("moralis: nil context")
	}
	if name == "" {
		return nil, ErrFileNoName
	}
	if contentType == "" {
		contentType = DetectContentType(name, data)
	}
	if data == nil {
		data = []byte{}
	}
	var res *rest.Result
	var err error
	if opts.plain() {
		res, err = c.t.DoFile(ctx, rest.FileRequest{
			Method:       http.MethodPost,
			Name:         name,
			ContentType:  contentType,
			Body:         data,
			SessionToken: c.sessionToken,
			UseMasterKey: c.useMaster,
		})
	} else {
		fileData := map[string]any{"metadata": stringMap(opts.Metadata), "tags": stringMap(opts.Tags)}
		if opts.IPFS {
			fileData["ipfs"] = true
		}
		// No X-Parse-Application-Id header: parse-server reads a JSON upload body (and its keys) only without it.
		res, err = c.t.Do(ctx, rest.Call{
			Method: http.MethodPost,
			Path:   "files/" + url.PathEscape(name),
			Params: map[string]any{
				"base64":       base64.StdEncoding.EncodeToString(data),
				"_ContentType": contentType,
				"fileData":     fileData,
			},
			SessionToken:  c.sessionToken,
			UseMasterKey:  c.useMaster,
			NoIdempotency: true, // the files route does not deduplicate
		})
	}
	if err != nil {
		return nil, err
	}
	var f parse.File
	if err := json.Unmarshal(res.Body, &f); err != nil || f.Name == "" || f.URL == "" {
		return nil, &parse.Error{Code: rest.CodeInvalidJSON, Status: res.Status, Op: "POST files/" + name,
			Message: "the upload answered no file name and url"}
	}
	if opts != nil && opts.IPFS && (f.Hash == "" || f.IPFS == "") {
		return &f, ErrNoIPFS
	}
	return &f, nil
}

// stringMap copies m into a JSON object value ({} for nil).
func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// SaveIPFS is Upload that also stores the file on IPFS, as moralis-v1's file.saveIPFS(): the returned File's Hash
// is the content's CID and IPFS its gateway URL. The hosted Moralis server answered a CIDv0 ("Qm…") on its
// gateway; the local stack answers a CIDv1 (raw, sha2-256, base32: "bafkrei…") served at
// {server origin}/ipfs/{cid}. Treat the hash as an opaque CID string. opts may add metadata and tags; its IPFS
// field is implied (opts is copied, never changed). A server that stores the file without IPFS gives the stored
// File and ErrNoIPFS. Safe for concurrent use.
func (s *FilesService) SaveIPFS(ctx context.Context, name string, data []byte, contentType string, opts *UploadOptions) (*parse.File, error) {
	o := UploadOptions{IPFS: true}
	if opts != nil {
		o.Metadata, o.Tags = opts.Metadata, opts.Tags
	}
	return s.Upload(ctx, name, data, contentType, &o)
}

// UploadReader is Upload for data read from r (read to its end into memory before sending, so that a retried
// upload resends the same bytes; the server's default upload limit is 20 MB). opts as for Upload.
func (s *FilesService) UploadReader(ctx context.Context, name string, r io.Reader, contentType string, opts *UploadOptions) (*parse.File, error) {
	if name == "" {
		return nil, ErrFileNoName
	}
	if r == nil {
		return nil, errors.New("moralis: UploadReader needs a reader")
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("moralis: reading file %s: %w", name, err)
	}
	return s.Upload(ctx, name, data, contentType, opts)
}

// UploadPath uploads the file at path, named by its base name. opts as for Upload.
func (s *FilesService) UploadPath(ctx context.Context, path, contentType string, opts *UploadOptions) (*parse.File, error) {
	if path == "" {
		return nil, ErrFileNoName
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("moralis: %w", err)
	}
	return s.Upload(ctx, filepath.Base(path), data, contentType, opts)
}

// FileInfo is what the server keeps with a stored file besides its bytes: the metadata and tags it was
// uploaded with (UploadOptions). Both maps are non-nil.
type FileInfo struct {
	Metadata map[string]string
	Tags     map[string]string
}

// Info reads the metadata and tags of a stored file (GET files/{appId}/metadata/{name}, through the SDK's HTTP
// layer and its retries; no key or token is sent, as for Data). A value that is not a string (set by another
// SDK) is given as its JSON text. parse-server answers {} for a file it does not have, so an unknown file gives
// empty maps, not an error. A File without a name gives "Cannot retrieve data for unsaved file" before any
// request. Safe for concurrent use.
func (s *FilesService) Info(ctx context.Context, f *parse.File) (*FileInfo, error) {
	c := s.client
	if f == nil || f.Name == "" {
		return nil, ErrFileNotSaved
	}
	if ctx == nil {
		return nil, errors.New("moralis: nil context")
	}
	u := c.t.ServerURL() + "/files/" + url.PathEscape(c.t.Config().AppID) + "/metadata/" + url.PathEscape(f.Name)
	res, err := c.t.Download(ctx, u)
	if err != nil {
		return nil, err
	}
	var body struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
		Tags     map[string]json.RawMessage `json:"tags"`
	}
	if err := json.Unmarshal(res.Body, &body); err != nil {
		return nil, &parse.Error{Code: rest.CodeInvalidJSON, Status: res.Status, Op: "GET files/metadata/" + f.Name,
			Message: "the file metadata answer is not a JSON object"}
	}
	return &FileInfo{Metadata: textMap(body.Metadata), Tags: textMap(body.Tags)}, nil
}

// textMap turns JSON values into text: a string as itself, anything else as its compact JSON.
func textMap(m map[string]json.RawMessage) map[string]string {
	out := make(map[string]string, len(m))
	for k, raw := range m {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out[k] = s
			continue
		}
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			out[k] = b.String()
		} else {
			out[k] = string(raw)
		}
	}
	return out
}

// Data downloads a stored file's contents (GET its URL through the SDK's HTTP layer, with its retries; no keys
// are sent). A File without a URL gives "Cannot retrieve data for unsaved file" before any request.
func (s *FilesService) Data(ctx context.Context, f *parse.File) ([]byte, error) {
	c := s.client
	if f == nil || f.URL == "" {
		return nil, ErrFileNotSaved
	}
	if ctx == nil {
		return nil, errors.New("moralis: nil context")
	}
	res, err := c.t.Download(ctx, f.URL)
	if err != nil {
		return nil, err
	}
	return res.Body, nil
}

// Delete deletes a stored file (a real HTTP DELETE files/{name} with the master key, which must be
// configured: else ErrMasterKeyRequired before any request). A File without a name gives "Cannot delete an
// unnamed file". Objects that still reference the file keep a dangling File value.
func (s *FilesService) Delete(ctx context.Context, f *parse.File) error {
	c := s.client
	if f == nil || f.Name == "" {
		return ErrFileUnnamed
	}
	if ctx == nil {
		return errors.New("moralis: nil context")
	}
	if !c.HasMasterKey() {
		return fmt.Errorf("moralis: DELETE files/%s: %w", f.Name, ErrMasterKeyRequired)
	}
	_, err := c.t.DoFile(ctx, rest.FileRequest{Method: http.MethodDelete, Name: f.Name, UseMasterKey: true})
	return err
}
