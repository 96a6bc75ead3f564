package v1

import (
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	v2 "example.com/wardle/api/v2"
)

// ConvertTo converts this CronJob to the Hub version (v2).
func (src *CronJob) ConvertTo(dstRaw conversion.Hub) error {
	dst := dstRaw.(*v2.CronJob)
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.Cron = src.Spec.Schedule
	dst.Spec.ConcurrencyPolicy = src.Spec.ConcurrencyPolicy
	dst.Status.LastScheduleTime = src.Status.LastScheduleTime
	return nil
}

// ConvertFrom converts from the Hub version (v2) to this version.
func (dst *CronJob) ConvertFrom(srcRaw conversion.Hub) error {
	src := srcRaw.(*v2.CronJob)
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.Schedule = src.Spec.Cron
	dst.Spec.ConcurrencyPolicy = src.Spec.ConcurrencyPolicy
	dst.Status.LastScheduleTime = src.Status.LastScheduleTime
	return nil
}
