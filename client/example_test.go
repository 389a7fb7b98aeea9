package client_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
)

// The wire body of a save holds only the changed fields, with Parse types and field operations encoded.
func ExampleObject_SaveBody() {
	o := parse.NewObject("GameScore")
	o.Set("player", "Ann")
	o.Set("at", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	o.Increment("score", 5)
	o.AddUnique("tags", "a", "b")
	body, err := o.SaveBody()
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(body)
	fmt.Println(string(b))
	// Output:
	// {"at":{"__type":"Date","iso":"2026-01-02T03:04:05.000Z"},"player":"Ann","score":{"__op":"Increment","amount":5},"tags":{"__op":"AddUnique","objects":["a","b"]}}
}

// An ACL in its wire form.
func ExampleNewACL() {
	acl := parse.NewACL()
	acl.SetPublicReadAccess(true)
	acl.SetRoleWriteAccess("Admins", true)
	b, _ := json.Marshal(acl)
	fmt.Println(string(b))
	// Output: {"*":{"read":true},"role:Admins":{"write":true}}
}

// GeoPoints are checked when made.
func ExampleNewGeoPoint() {
	_, err := parse.NewGeoPoint(91, 0)
	fmt.Println(err)
	p, _ := parse.NewGeoPoint(40.7, -74)
	fmt.Printf("%.1f %.1f\n", p.Latitude, p.Longitude)
	// Output:
	// GeoPoint latitude out of bounds: must be between -90.0 and 90.0
	// 40.7 -74.0
}

// Construction checks the configuration.
func ExampleNew() {
	_, err := client.New(client.Config{ServerURL: "http://127.0.0.1:1337/parse"})
	fmt.Println(err)
	// Output: moralis: AppID is required
}

// Backend errors match by their Parse code.
func ExampleError() {
	var err error = &parse.Error{Code: 101, Message: "Object not found.", Op: "GET classes/GameScore/x"}
	fmt.Println(errors.Is(err, parse.ErrObjectNotFound))
	fmt.Println(err)
	// Output:
	// true
	// moralis: GET classes/GameScore/x: Object not found. (code 101)
}
