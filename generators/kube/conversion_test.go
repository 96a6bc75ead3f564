package kube

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/generators/model"
)

// conversionGroup is a group with versions v1 and v2 of CronJob, converted the
// controller-runtime way with its hub in hubVersion, and of Schedule, stored in hubVersion and
// converted by conversion-gen.
func conversionGroup(hubVersion string) *model.Project {
	versions := map[string]*model.Version{}
	for _, name := range []string{"v1", "v2"} {
		cron := &model.Resource{Kind: "CronJob", ListKind: "CronJobList", Conversion: model.ConversionSpoke}
		schedule := &model.Resource{Kind: "Schedule", ListKind: "ScheduleList"}
		if name == hubVersion {
			cron.Conversion, cron.Storage, schedule.Storage = model.ConversionHub, true, true
		}
		versions[name] = &model.Version{Name: name, Package: "example.com/p/api/" + name, Resources: []*model.Resource{cron, schedule}}
	}
	return &model.Project{Groups: []*model.Group{{Name: "batch.example.com", Versions: []*model.Version{versions["v1"], versions["v2"]}}}}
}

// conversion-gen's functions between two versions go where the user's ConvertTo already
// imports the hub from: into v1 when v2 is the hub (as priority would have it anyway), and
// into v2 when v1 is the hub (kubebuilder's tutorial), so v1 never imports v2.
func TestConversionPeersFollowTheSpokesImports(t *testing.T) {
	for hub, want := range map[string]map[string][]string{
		"v2": {"example.com/p/api/v1": {"example.com/p/api/v2"}},
		"v1": {"example.com/p/api/v2": {"example.com/p/api/v1"}},
	} {
		if diff := cmp.Diff(want, conversionGroup(hub).ConversionPeers()); diff != "" {
			t.Errorf("hub %s: peers (-want +got):\n%s", hub, diff)
		}
	}
}

// A version whose kinds all convert with their own methods is no input of conversion-gen.
func TestConversionPeersLeaveMethodsOut(t *testing.T) {
	p := conversionGroup("v2")
	for _, v := range p.Groups[0].Versions {
		v.Resources = v.Resources[:1] // CronJob only
	}
	if got := p.ConversionPeers(); len(got) != 0 {
		t.Errorf("peers %v, want none", got)
	}
}
