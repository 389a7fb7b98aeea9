package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/google/uuid"
)

// Storage keeps small strings between calls (and, for FileStorage, between runs): the current user and the
// installation id. Implementations must be safe for concurrent use.
type Storage interface {
	Get(key string) (value string, ok bool, err error)
	Set(key, value string) error
	Remove(key string) error
}

// CurrentUserKey returns the storage key of the current user for an application: the original's key
// "currentUser", scoped per application id.
func CurrentUserKey(appID string) string { return "Parse/" + appID + "/currentUser" }

func installationKey(appID string) string { return "Parse/" + appID + "/installationId" }

func installationID(s Storage, appID string) (string, error) {
	key := installationKey(appID)
	if v, ok, err := s.Get(key); err != nil {
		return "", fmt.Errorf("moralis: reading the installation id: %w", err)
	} else if ok && v != "" {
		return v, nil
	}
	id := uuid.NewString()
	if err := s.Set(key, id); err != nil {
		return "", fmt.Errorf("moralis: keeping the installation id: %w", err)
	}
	return id, nil
}

// MemoryStorage keeps values in memory for the life of the process. Safe for concurrent use.
type MemoryStorage struct {
	mu sync.Mutex
	m  map[string]string
}

// NewMemoryStorage returns an empty MemoryStorage.
func NewMemoryStorage() *MemoryStorage { return &MemoryStorage{m: map[string]string{}} }

// Get returns the value of key.
func (s *MemoryStorage) Get(key string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return v, ok, nil
}

// Set stores value under key.
func (s *MemoryStorage) Set(key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = value
	return nil
}

// Remove deletes key.
func (s *MemoryStorage) Remove(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// FileStorage keeps values in one JSON file (mode 0600), so a command-line program stays signed in between runs.
// Writes replace the file atomically. Safe for concurrent use within one process.
type FileStorage struct {
	mu   sync.Mutex
	path string
}

// NewFileStorage returns a FileStorage at path (its folder is made when missing).
func NewFileStorage(path string) (*FileStorage, error) {
	if path == "" {
		return nil, errors.New("moralis: FileStorage needs a path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("moralis: FileStorage: %w", err)
	}
	s := &FileStorage{path: path}
	if _, err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *FileStorage) load() (map[string]string, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("moralis: FileStorage: %w", err)
	}
	m := map[string]string{}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("moralis: FileStorage: %s is not a storage file: %w", s.path, err)
		}
	}
	return m, nil
}

func (s *FileStorage) save(m map[string]string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("moralis: FileStorage: %w", err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return fmt.Errorf("moralis: FileStorage: %w", err)
	}
	return nil
}

// Get returns the value of key.
func (s *FileStorage) Get(key string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return "", false, err
	}
	v, ok := m[key]
	return v, ok, nil
}

// Set stores value under key.
func (s *FileStorage) Set(key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return err
	}
	m[key] = value
	return s.save(m)
}

// Remove deletes key.
func (s *FileStorage) Remove(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.load()
	if err != nil {
		return err
	}
	delete(m, key)
	return s.save(m)
}
