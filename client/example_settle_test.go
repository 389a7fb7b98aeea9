package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
)

// lossyBackend is a parse-server in memory for GameScore (creates and updates, alone and in /batch; finds by
// player) that applies the first /batch and then loses its answer (502), as a dropped connection would.
func lossyBackend() *httptest.Server {
	var mu sync.Mutex
	rows := map[string]map[string]any{}
	lost := false
	write := func(method, path string, body map[string]any) map[string]any {
		id, existing := strings.CutPrefix(path, "classes/GameScore/")
		if !existing {
			id = fmt.Sprintf("gs%d", len(rows)+1)
			rows[id] = map[string]any{"objectId": id}
		}
		for k, v := range body {
			if op, ok := v.(map[string]any); ok && op["__op"] == "Increment" {
				n, _ := rows[id][k].(float64)
				v = n + op["amount"].(float64)
			}
			if !strings.HasPrefix(k, "_") {
				rows[id][k] = v
			}
		}
		return map[string]any{"objectId": id, "createdAt": "2026-11-24T10:00:00.000Z", "updatedAt": "2026-11-24T10:00:00.000Z"}
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		path := strings.TrimPrefix(r.URL.Path, "/parse/")
		w.Header().Set("Content-Type", "application/json")
		switch {
		case path == "batch":
			var out []any
			for _, q := range body["requests"].([]any) {
				sub := q.(map[string]any)
				b, _ := sub["body"].(map[string]any)
				out = append(out, map[string]any{"success": write(sub["method"].(string), strings.TrimPrefix(sub["path"].(string), "/parse/"), b)})
			}
			if !lost {
				lost = true
				w.WriteHeader(http.StatusBadGateway) // applied, and the answer lost
				return
			}
			_ = json.NewEncoder(w).Encode(out)
		case body["_method"] == "GET" && strings.HasPrefix(path, "classes/GameScore/"): // a get by id
			_ = json.NewEncoder(w).Encode(rows[strings.TrimPrefix(path, "classes/GameScore/")])
		case body["_method"] == "GET": // a find by player
			var results []any
			where, _ := body["where"].(map[string]any)
			for _, row := range rows {
				if row["player"] == where["player"] {
					results = append(results, row)
				}
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"results": results})
		default:
			method, _ := body["_method"].(string)
			_ = json.NewEncoder(w).Encode(write(method, path, body))
		}
	}))
}

// settleHeld is the app's half of the settle flow, the same after Save, SaveAll and SaveAll with Atomic: for an
// object whose create is held (its save was in doubt and the server chose the id), find the stored row by a field
// the app set, and settle the object with that row's id, or with "" when nothing was stored.
func settleHeld(ctx context.Context, c *client.Client, o *parse.Object) error {
	row, err := query.New[*parse.Object]("GameScore").EqualTo("player", o.String("player")).First(ctx, c)
	switch {
	case err == nil:
		return c.Objects.Settle(ctx, o, row.ID()) // it was stored: the object takes the row
	case errors.Is(err, parse.ErrObjectNotFound):
		return c.Objects.Settle(ctx, o, "") // nothing stored: the next save creates it
	}
	return err
}

// A write whose outcome is unknown is settled the same way on every save path. Here a SaveAll's answer is lost
// after the server stored both objects: each item is in doubt, and each new object is held (saving it again
// could store it twice, since its id was in the lost answer). The app keeps editing; the next save refuses the
// held objects and sends nothing. The app finds each stored row by a field it set and settles the object with its
// id; the next save then sends the changes made meanwhile as an update, and the server holds exactly what the app
// meant, one row per object. (An update in doubt is not held: its sent changes are no longer pending, and Fetch
// shows what the server stored.)
func ExampleObjectsService_Settle() {
	srv := lossyBackend()
	defer srv.Close()
	c, _ := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "myApp"})
	ctx := context.Background()

	scores := []*parse.Object{parse.NewObject("GameScore"), parse.NewObject("GameScore")}
	for i, player := range []string{"ann", "bob"} {
		scores[i].Set("player", player)
		scores[i].Set("score", 10*(i+1))
	}
	err := c.Objects.SaveAll(ctx, scores)
	var be *client.BatchError
	if errors.As(err, &be) {
		fmt.Println("in doubt:", be.InDoubtItems())
	}

	scores[0].Increment("score", 5) // edits go on meanwhile
	err = c.Objects.SaveAll(ctx, scores)
	fmt.Println("held:", errors.Is(err, client.ErrCreateHeld))

	for _, o := range scores {
		if err := settleHeld(ctx, c, o); err != nil {
			fmt.Println(err)
			return
		}
	}
	err = c.Objects.SaveAll(ctx, scores)
	fmt.Println("saved:", err, scores[0].ID(), scores[0].Int("score"), scores[1].ID(), scores[1].Int("score"))
	// Output:
	// in doubt: [0 1]
	// held: true
	// saved: <nil> gs1 15 gs2 20
}
