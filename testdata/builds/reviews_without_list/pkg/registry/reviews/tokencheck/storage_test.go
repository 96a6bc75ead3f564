package tokencheck

import (
	"context"
	"testing"

	v1 "example.com/wardle/pkg/apis/reviews/v1"
	"example.com/wardle/pkg/cmd/server"
)

// The storage serves exactly the verb +genclient:onlyVerbs declares (the check the server
// runs when it starts), and answers a check.
func TestCreate(t *testing.T) {
	s, err := NewStorage(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := server.CheckVerbs("tokenchecks", s, "create"); err != nil {
		t.Fatal(err)
	}
	out, err := s.(*Storage).Create(context.Background(), &v1.TokenCheck{Spec: v1.TokenCheckSpec{Token: "valid"}}, nil, nil)
	if err != nil || !out.(*v1.TokenCheck).Status.Valid {
		t.Fatalf("a valid token: %v, %+v", err, out)
	}
}
