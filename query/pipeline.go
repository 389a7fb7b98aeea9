package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// pipelineStages turns an Aggregate pipeline into the list of stages the server takes (see Aggregate): each a
// map with one key, the stage name with its "$".
func pipelineStages(pipeline any) ([]any, error) {
	var stages []any
	switch x := pipeline.(type) {
	case nil:
		return nil, ErrPipeline
	case json.RawMessage:
		var err error
		if stages, err = stagesFromJSON(x); err != nil {
			return nil, err
		}
	default:
		v, err := normalize(pipeline)
		if err != nil {
			return nil, fmt.Errorf("query: Aggregate: %w", err)
		}
		switch y := v.(type) {
		case []any:
			stages = y
		case map[string]any:
			if len(y) > 1 {
				return nil, fmt.Errorf("query: Aggregate: stages %s: %w", strings.Join(sortedKeys(y), ", "), ErrPipelineOrder)
			}
			stages = []any{y}
		default:
			return nil, ErrPipeline
		}
	}
	out := make([]any, len(stages))
	for i, st := range stages {
		m, ok := st.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("query: Aggregate: stage %d is %s: %w", i, jsonType(st), ErrPipelineStage)
		}
		if len(m) != 1 {
			return nil, fmt.Errorf("query: Aggregate: stage %d has the keys [%s]: %w", i, strings.Join(sortedKeys(m), ", "), ErrPipelineStage)
		}
		for name, body := range m {
			stage, err := normalizeStage(name, body)
			if err != nil {
				return nil, fmt.Errorf("query: Aggregate: stage %d: %w", i, err)
			}
			out[i] = stage
		}
	}
	return out, nil
}

// normalizeStage gives a stage name its "$" and turns the moralis-v1 form of group ({"objectId": ...} without
// "_id") into the server's.
func normalizeStage(name string, body any) (map[string]any, error) {
	bare := strings.TrimPrefix(name, "$")
	if bare == "" || strings.HasPrefix(bare, "$") {
		return nil, fmt.Errorf("%w: stage name %q", ErrPipelineStage, name)
	}
	if name == "group" {
		// body is the pipeline's own copy (normalize or the JSON decoder made it): changing it is safe.
		if g, ok := body.(map[string]any); ok {
			if id, has := g["objectId"]; has {
				if _, hasID := g["_id"]; !hasID {
					delete(g, "objectId")
					g["_id"] = id
				}
			}
		}
	}
	return map[string]any{"$" + bare: body}, nil
}

// stagesFromJSON reads a pipeline given as JSON text: an array of stages, or an object whose keys are stages in
// the order they appear.
func stagesFromJSON(raw json.RawMessage) ([]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("query: Aggregate: %w", err)
	}
	var stages []any
	switch tok {
	case json.Delim('['):
		var list []any
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("query: Aggregate: %w", err)
		}
		return list, nil
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("query: Aggregate: %w", err)
			}
			name, _ := kt.(string)
			if seen[name] {
				return nil, fmt.Errorf("query: Aggregate: stage %q appears twice: %w", name, ErrPipelineStage)
			}
			seen[name] = true
			var body any
			if err := dec.Decode(&body); err != nil {
				return nil, fmt.Errorf("query: Aggregate: stage %q: %w", name, err)
			}
			stages = append(stages, map[string]any{name: body})
		}
		if _, err := dec.Token(); err != nil { // the closing brace
			return nil, fmt.Errorf("query: Aggregate: %w", err)
		}
	default:
		return nil, ErrPipeline
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("query: Aggregate: trailing data after the pipeline")
	}
	return stages, nil
}
