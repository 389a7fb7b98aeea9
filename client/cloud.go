package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/c13f5054/moralis-go/parse"
)

// Call runs the cloud function name with params (encoded with the Parse codecs, so time.Time, Pointer
// and the like are allowed) and decodes the answer's "result" into out (skipped when out is nil). A
// *map[string]any or *any out receives decoded Parse values (time.Time, Pointer, ...).
func (s *CloudService) Call(ctx context.Context, name string, params map[string]any, out any) error {
	res, err := s.callRaw(ctx, name, params)
	if err != nil {
		return err
	}
	return decodeResult(name, res, out)
}

// callRaw runs the cloud function name and returns the answer's "result" as sent.
func (s *CloudService) callRaw(ctx context.Context, name string, params map[string]any) (json.RawMessage, error) {
	c := s.client
	if name == "" {
		return nil, errors.New("moralis: CallFunction needs a function name")
	}
	enc, err := parse.Encode(params)
	if err != nil {
		return nil, fmt.Errorf("moralis: function %s: %w", name, err)
	}
	body, _ := enc.(map[string]any)
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	if err := c.do(ctx, c.call(http.MethodPost, "functions/"+name, body), &resp); err != nil {
		return nil, err
	}
	return resp.Result, nil
}

// decodeResult decodes the result of function name into out as Call documents.
func decodeResult(name string, result json.RawMessage, out any) error {
	if out == nil || len(result) == 0 {
		return nil
	}
	switch o := out.(type) {
	case *any:
		var v any
		if err := json.Unmarshal(result, &v); err != nil {
			return fmt.Errorf("moralis: function %s: %w", name, err)
		}
		*o = parse.Decode(v)
		return nil
	}
	if err := parse.Unmarshal(result, out); err != nil {
		return fmt.Errorf("moralis: function %s: decoding the result: %w", name, err)
	}
	return nil
}

// StartJob starts the background job name with the master key and returns its job status id (the
// X-Parse-Job-Status-Id header), which identifies its _JobStatus row.
func (s *CloudService) StartJob(ctx context.Context, name string, params map[string]any) (string, error) {
	c := s.client
	if name == "" {
		return "", errors.New("moralis: StartJob needs a job name")
	}
	if !c.HasMasterKey() {
		return "", fmt.Errorf("moralis: job %s: %w", name, ErrMasterKeyRequired)
	}
	enc, err := parse.Encode(params)
	if err != nil {
		return "", fmt.Errorf("moralis: job %s: %w", name, err)
	}
	body, _ := enc.(map[string]any)
	rc := c.call(http.MethodPost, "jobs/"+name, body)
	rc.UseMasterKey = true
	res, err := c.t.Do(ctx, rc)
	if err != nil {
		return "", err
	}
	return res.Header.Get("X-Parse-Job-Status-Id"), nil
}

// The states of a job's _JobStatus row (JobStatus.Status).
const (
	JobRunning   = "running"
	JobSucceeded = "succeeded"
	JobFailed    = "failed"
)

// JobStatus is the _JobStatus row of one run of a background job: what the original's Parse.Cloud.getJobStatus
// returns, with typed fields.
type JobStatus struct {
	// ID is the job status id (StartJob's answer).
	ID string
	// JobName is the name of the job.
	JobName string
	// Source is how the job was started ("api" for StartJob).
	Source string
	// Status is JobRunning, JobSucceeded or JobFailed.
	Status string
	// Message is the job's last progress message (request.message in cloud code), or the text of its error once
	// it failed, or a string the job returned.
	Message string
	// CreatedAt is when the job started; FinishedAt when it ended (zero while it runs).
	CreatedAt, FinishedAt time.Time
	// Object is the whole row, for fields this type does not name.
	Object *parse.Object
}

// Done reports whether the job has ended (succeeded or failed).
func (s *JobStatus) Done() bool { return s.Status == JobSucceeded || s.Status == JobFailed }

// JobStatus reads the status of a job run by its job status id (StartJob's answer), with the master key, as the
// original's Parse.Cloud.getJobStatus does (a _JobStatus row is readable with the master key only). Without a
// configured master key it fails with ErrMasterKeyRequired before any request; an unknown id gives
// parse.ErrObjectNotFound.
func (s *CloudService) JobStatus(ctx context.Context, jobStatusID string) (*JobStatus, error) {
	c := s.client
	if jobStatusID == "" {
		return nil, errors.New("moralis: JobStatus needs a job status id")
	}
	if !c.HasMasterKey() {
		return nil, fmt.Errorf("moralis: job status %s: %w", jobStatusID, ErrMasterKeyRequired)
	}
	o, err := c.WithMasterKey().Objects.Get(ctx, JobStatusClass, jobStatusID)
	if err != nil {
		return nil, err
	}
	return &JobStatus{
		ID: o.ID(), JobName: o.String("jobName"), Source: o.String("source"), Status: o.String("status"),
		Message: o.String("message"), CreatedAt: o.CreatedAt(), FinishedAt: o.Time("finishedAt"), Object: o,
	}, nil
}

// JobStatusClass is the class of the rows that record job runs.
const JobStatusClass = "_JobStatus"

// JobsData is what the server knows of the app's jobs (GET cloud_code/jobs/data).
type JobsData struct {
	// Jobs are the names of the jobs the server's cloud code defines.
	Jobs []string `json:"jobs"`
	// InUse are the names of the jobs a schedule (_JobSchedule) uses.
	InUse []string `json:"in_use"`
}

// JobsData lists the jobs the server's cloud code defines and those a schedule uses, with the master key, as the
// original's Parse.Cloud.getJobsData does. Without a configured master key it fails with ErrMasterKeyRequired
// before any request. Absent lists are empty, never nil.
func (s *CloudService) JobsData(ctx context.Context) (*JobsData, error) {
	c := s.client
	if !c.HasMasterKey() {
		return nil, fmt.Errorf("moralis: jobs data: %w", ErrMasterKeyRequired)
	}
	rc := c.call(http.MethodGet, "cloud_code/jobs/data", nil)
	rc.UseMasterKey = true
	var out JobsData
	if err := c.do(ctx, rc, &out); err != nil {
		return nil, err
	}
	if out.Jobs == nil {
		out.Jobs = []string{}
	}
	if out.InUse == nil {
		out.InUse = []string{}
	}
	return &out, nil
}

// ServerTime calls the getServerTime cloud function and returns its dateTime.
func (s *CloudService) ServerTime(ctx context.Context) (time.Time, error) {
	c := s.client
	var r struct {
		DateTime string `json:"dateTime"`
	}
	if err := c.Cloud.Call(ctx, "getServerTime", nil, &r); err != nil {
		return time.Time{}, err
	}
	t, err := parse.ParseDate(r.DateTime)
	if err != nil {
		return time.Time{}, fmt.Errorf("moralis: getServerTime answered an unreadable time %q", r.DateTime)
	}
	return t, nil
}

// ChainParams are the parameters of the cloud chain helpers. Chain defaults to "eth", Order to "desc".
type ChainParams struct {
	Chain        string
	Address      string
	Symbol       string
	TokenAddress string
	Order        string
}

func (p ChainParams) encode(withOrder bool, extra ...string) map[string]any {
	m := map[string]any{"chain": p.Chain, "address": p.Address}
	if p.Chain == "" {
		m["chain"] = DefaultChain
	}
	if withOrder {
		m["order"] = p.Order
		if p.Order == "" {
			m["order"] = DefaultOrder
		}
	}
	for _, k := range extra {
		switch k {
		case "symbol":
			if p.Symbol != "" {
				m["symbol"] = p.Symbol
			}
		case "tokenAddress":
			if p.TokenAddress != "" {
				m["tokenAddress"] = p.TokenAddress
			}
		}
	}
	return m
}

// GetAllERC20 calls the getAllERC20 cloud function (chain, address) and decodes its result into out.
func (s *CloudService) GetAllERC20(ctx context.Context, p ChainParams, out any) error {
	c := s.client
	return c.Cloud.Call(ctx, "getAllERC20", p.encode(false), out)
}

// GetERC20 calls getERC20 (chain, address, symbol, tokenAddress).
func (s *CloudService) GetERC20(ctx context.Context, p ChainParams, out any) error {
	c := s.client
	return c.Cloud.Call(ctx, "getERC20", p.encode(false, "symbol", "tokenAddress"), out)
}

// GetNFTsOld calls getNFTs_old (chain, address).
func (s *CloudService) GetNFTsOld(ctx context.Context, p ChainParams, out any) error {
	c := s.client
	return c.Cloud.Call(ctx, "getNFTs_old", p.encode(false), out)
}

// GetNFTsCountOld calls getNFTsCount_old (chain, address).
func (s *CloudService) GetNFTsCountOld(ctx context.Context, p ChainParams, out any) error {
	c := s.client
	return c.Cloud.Call(ctx, "getNFTsCount_old", p.encode(false), out)
}

// GetTransactions calls getTransactions (chain, address, order).
func (s *CloudService) GetTransactions(ctx context.Context, p ChainParams, out any) error {
	c := s.client
	return c.Cloud.Call(ctx, "getTransactions", p.encode(true), out)
}

// GetTransactionsCount calls getTransactionsCount (chain, address).
func (s *CloudService) GetTransactionsCount(ctx context.Context, p ChainParams, out any) error {
	c := s.client
	return c.Cloud.Call(ctx, "getTransactionsCount", p.encode(false), out)
}

// PluginSpec describes one plugin the server offers: an entry of getPluginSpecs' answer.
type PluginSpec struct {
	// Name is the plugin's name, e.g. "opensea".
	Name string `json:"name"`
	// Functions are the names of its functions.
	Functions []string `json:"functions"`
}

// PluginSpecs calls getPluginSpecs and returns the plugins the server offers (none: an empty slice).
func (s *CloudService) PluginSpecs(ctx context.Context) ([]PluginSpec, error) {
	var out []PluginSpec
	if err := s.Call(ctx, "getPluginSpecs", nil, &out); err != nil {
		return nil, err
	}
	if out == nil {
		out = []PluginSpec{}
	}
	return out, nil
}

// ErrUnknownPlugin is returned by Plugins.Call, before any request, for a plugin or function the server's
// getPluginSpecs did not list (the original's Moralis.Plugins[plugin][function] would be undefined).
var ErrUnknownPlugin = errors.New("moralis: no such plugin function")

// Plugins are the plugins a server offers, callable as the original's Moralis.Plugins[plugin][function](params):
// function f of plugin p is the cloud function "p_f". Get them with CloudService.Plugins. A Plugins value is
// immutable and safe for concurrent use; it keeps the view (session token, master key) it was made from.
type Plugins struct {
	cloud *CloudService
	specs []PluginSpec
	index map[string]map[string]bool
}

// Plugins calls getPluginSpecs (as moralis-v1's Moralis.start did) and returns the plugins it lists. The list is
// read once: make a new Plugins to see plugins installed later.
func (s *CloudService) Plugins(ctx context.Context) (*Plugins, error) {
	specs, err := s.PluginSpecs(ctx)
	if err != nil {
		return nil, err
	}
	p := &Plugins{cloud: s, specs: specs, index: make(map[string]map[string]bool, len(specs))}
	for _, sp := range specs {
		fns := p.index[sp.Name]
		if fns == nil {
			fns = map[string]bool{}
			p.index[sp.Name] = fns
		}
		for _, f := range sp.Functions {
			fns[f] = true
		}
	}
	return p, nil
}

// Specs returns the plugin specifications (a copy; changing it changes nothing).
func (p *Plugins) Specs() []PluginSpec {
	out := make([]PluginSpec, len(p.specs))
	for i, sp := range p.specs {
		out[i] = PluginSpec{Name: sp.Name, Functions: append([]string(nil), sp.Functions...)}
	}
	return out
}

// Has reports whether the server listed function of plugin.
func (p *Plugins) Has(plugin, function string) bool { return p.index[plugin][function] }

// PluginError is a plugin function's answer {data: {success: false, data}}. Error() is the original's text:
// "Something went wrong" and a new line, then Data as JSON indented by two spaces ("undefined" when absent).
type PluginError struct {
	Plugin, Function string
	// Data is the answer's data.data, as sent (nil when absent).
	Data json.RawMessage
}

// Error returns the original client's text (see PluginError).
func (e *PluginError) Error() string {
	detail := "undefined"
	var b bytes.Buffer
	if len(e.Data) > 0 && json.Indent(&b, e.Data, "", "  ") == nil {
		detail = b.String()
	}
	return "Something went wrong\n" + detail
}

// Call runs function of plugin with params (the cloud function "{plugin}_{function}", as the original) and
// decodes the plugin's result into out as CloudService.Call does (skipped when out is nil). A plugin function
// answers {data: {success, result}}; out receives result whole. The original client also ran result.triggers
// (browser actions: open a URL, send or sign a transaction, call another plugin function); this client does
// not run them: read them from out. An answer with success false gives a *PluginError; a plugin or function
// getPluginSpecs did not list gives ErrUnknownPlugin before any request.
func (p *Plugins) Call(ctx context.Context, plugin, function string, params map[string]any, out any) error {
	if !p.Has(plugin, function) {
		return fmt.Errorf("%w: %s.%s", ErrUnknownPlugin, plugin, function)
	}
	name := plugin + "_" + function
	raw, err := p.cloud.callRaw(ctx, name, params)
	if err != nil {
		return err
	}
	var env struct {
		Data *struct {
			Success bool            `json:"success"`
			Result  json.RawMessage `json:"result"`
			Data    json.RawMessage `json:"data"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil || env.Data == nil {
		return &parse.Error{Code: parse.CodeInvalidJSON, Op: "POST functions/" + name,
			Message: "the plugin function answered no data object"}
	}
	if !env.Data.Success {
		return &PluginError{Plugin: plugin, Function: function, Data: env.Data.Data}
	}
	return decodeResult(name, env.Data.Result, out)
}
