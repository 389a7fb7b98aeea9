package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
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

// UploadFile stores data as a file named name (POST files/{name}, a real HTTP request with X-Parse-* headers and
// the view's session token or master key). contentType "" is detected with DetectContentType. The server makes
// the name unique (it prefixes a random part), so use the returned File's Name and URL, never the one passed
// in; Hash and IPFS are kept when the server sends them. Set the File on an object field to attach it.
func (c *Client) UploadFile(ctx context.Context, name string, data []byte, contentType string) (*parse.File, error) {
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
	res, err := c.t.DoFile(ctx, rest.FileRequest{
		Method:       http.MethodPost,
		Name:         name,
		ContentType:  contentType,
		Body:         data,
		SessionToken: c.sessionToken,
		UseMasterKey: c.useMaster,
	})
	if err != nil {
		return nil, err
	}
	var f parse.File
	if err := json.Unmarshal(res.Body, &f); err != nil || f.Name == "" || f.URL == "" {
		return nil, &parse.Error{Code: rest.CodeInvalidJSON, Status: res.Status, Op: "POST files/" + name,
			Message: "the upload answered no file name and url"}
	}
	return &f, nil
}

// UploadFileFromReader is UploadFile for data read from r (read to its end into memory before sending, so that a
// retried upload resends the same bytes; the server's default upload limit is 20 MB).
func (c *Client) UploadFileFromReader(ctx context.Context, name string, r io.Reader, contentType string) (*parse.File, error) {
	if name == "" {
		return nil, ErrFileNoName
	}
	if r == nil {
		return nil, errors.New("moralis: UploadFileFromReader needs a reader")
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("moralis: reading file %s: %w", name, err)
	}
	return c.Files.Upload(ctx, name, data, contentType)
}

// UploadFileFromPath uploads the file at path, named by its base name.
func (c *Client) UploadFileFromPath(ctx context.Context, path, contentType string) (*parse.File, error) {
	if path == "" {
		return nil, ErrFileNoName
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("moralis: %w", err)
	}
	return c.Files.Upload(ctx, filepath.Base(path), data, contentType)
}

// FileData downloads a stored file's contents (GET its URL through the SDK's HTTP layer, with its retries; no keys
// are sent). A File without a URL gives "Cannot retrieve data for unsaved file" before any request.
func (c *Client) FileData(ctx context.Context, f *parse.File) ([]byte, error) {
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

// DeleteFile deletes a stored file (a real HTTP DELETE files/{name} with the master key, which must be
// configured: else ErrMasterKeyRequired before any request). A File without a name gives "Cannot delete an
// unnamed file". Objects that still reference the file keep a dangling File value.
func (c *Client) DeleteFile(ctx context.Context, f *parse.File) error {
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
