package query

import (
	"errors"
	"fmt"

	"github.com/c13f5054/moralis-go/parse"
)

// Errors of query building and decoding. Their texts are the original client's, letter for letter; the errors a
// query returns wrap them with the call that failed, so test them with errors.Is.
var (
	// ErrInvalidKey is returned for a key name a query cannot use.
	ErrInvalidKey = errors.New("Invalid Key name for queries")
	// ErrNotString is returned when a text constraint (contains, startsWith, endsWith, fullText, $regex) gets a
	// value that is not a string.
	ErrNotString = errors.New("The value being searched for must be a string.")
	// ErrSkip is returned for a negative or non-numeric skip.
	ErrSkip = errors.New("You can only skip by a positive number")
	// ErrLimit is returned for a non-numeric limit.
	ErrLimit = errors.New("You can only set the limit to a numeric value")
	// ErrWithCount is returned for a count flag that is not a boolean.
	ErrWithCount = errors.New("You can only set withCount to a boolean value")
	// ErrExplain is returned for an explain flag that is not a boolean.
	ErrExplain = errors.New("You can only set explain to a boolean value")
	// ErrSearchTermRequired is returned by FullText for an empty term.
	ErrSearchTermRequired = errors.New("A search term is required")
	// ErrKeyRequired is returned by FullText for an empty key.
	ErrKeyRequired = errors.New("A key is required.")
	// ErrSameClass is returned by Or, And and Nor for queries on different classes.
	ErrSameClass = errors.New("All queries must be for the same class.")
	// ErrCannotIterate is returned by All for a query with its own order, skip or limit.
	ErrCannotIterate = errors.New("Cannot iterate on a query with sort, skip, or limit.")
	// ErrPipeline is returned by Aggregate for a pipeline that is neither a list of stages nor one stage.
	ErrPipeline = errors.New("Invalid pipeline must be Array or Object")
	// ErrPipelineOrder is returned by Aggregate for a pipeline given as a Go map with several stages: a map has
	// no order, and the order of stages changes the result. Give a list of stages, or JSON text (json.RawMessage),
	// whose key order is kept.
	ErrPipelineOrder = errors.New("query: a pipeline map with several stages has no order; give a list of stages or JSON text")
	// ErrPipelineStage is returned by Aggregate for a stage that is not an object with exactly one key, the stage
	// name (the server's rule: "Pipeline stages should only have one key").
	ErrPipelineStage = errors.New("query: a pipeline stage must be an object with exactly one key, the stage name")
	// ErrInvalidClassName is returned for an empty or malformed class name (the original's text for a query
	// made without a class).
	ErrInvalidClassName = errors.New("A ParseQuery must be constructed with a ParseObject or class name.")
	// ErrNilQuery is returned when a method is called on a nil *Query.
	ErrNilQuery = errors.New("query: nil query")
	// ErrNilRunner is returned when a query is run with a nil parse.QueryRunner.
	ErrNilRunner = errors.New("query: nil Runner")
	// ErrReadPreference is returned for a read preference the server does not know.
	ErrReadPreference = errors.New("Not supported read preference.")
	// ErrObjectNotFound is parse.ErrObjectNotFound, matched (errors.Is) by the error First and Get return when
	// nothing matches: a *parse.Error with code 101, "Object not found.", naming the class in Op.
	ErrObjectNotFound = parse.ErrObjectNotFound
)

// UnknownOptionError is returned for a full-text option other than language, caseSensitive and
// diacriticSensitive.
type UnknownOptionError struct {
	Option string
}

// Error returns "Unknown option: {option}".
func (e *UnknownOptionError) Error() string { return fmt.Sprintf("Unknown option: %s", e.Option) }
