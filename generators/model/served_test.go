package model

import "testing"

// TestServed: every resource, with its group and version, in the model's order; a loop that
// breaks stops the walk.
func TestServed(t *testing.T) {
	toy, car, ship := &Resource{Kind: "Toy"}, &Resource{Kind: "Car"}, &Resource{Kind: "Ship"}
	v1 := &Version{Name: "v1", Resources: []*Resource{toy, car}}
	v2 := &Version{Name: "v2"}
	p := &Project{Groups: []*Group{
		{Name: "toys.example.com", Versions: []*Version{v1, v2}},
		{Name: "sea.example.com", Versions: []*Version{{Name: "v1beta1", Resources: []*Resource{ship}}}},
	}}
	var got []string
	for r := range p.Served() {
		got = append(got, r.Group.Name+"/"+r.Version.Name+"/"+r.Kind)
	}
	want := []string{"toys.example.com/v1/Toy", "toys.example.com/v1/Car", "sea.example.com/v1beta1/Ship"}
	if len(got) != len(want) {
		t.Fatalf("Served() = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Served()[%d] = %s, want %s", i, got[i], want[i])
		}
	}
	n := 0
	for range p.Served() {
		n++
		break
	}
	if n != 1 {
		t.Errorf("a loop over Served() that breaks ran %d times", n)
	}
}
