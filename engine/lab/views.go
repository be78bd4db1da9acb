package lab

import (
	"github.com/ontime-routing/ontime/engine/bench"
	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/jobs"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/policy"
	"github.com/ontime-routing/ontime/engine/train"
)

// What the dashboard reads of the engine's packages (networks, imports,
// models, benchmarks, jobs, training) comes through lab, its one door
// (server and web import only engine and lab): the same values, under the
// names the pages use.
type (
	ModelCard     = policy.ModelCard
	ImportOptions = netfile.ImportOptions
	ImportReport  = netfile.ImportReport
	File          = netfile.File
	DataFile      = builtin.DataFile
	Report        = bench.Report     // a benchmark's report
	ReportMethod  = bench.MethodInfo // a method as a report describes it
	ReportOD      = bench.ODInfo     // an OD pair as a report describes it
	ReportSummary = bench.Summary    // a method's mean over pools at one budget
	ODSummary     = bench.ODSummary  // the same on one OD pair
	PairedRow     = bench.Paired     // one paired comparison
	Cell          = bench.Cell       // a table cell: mean, interval, mark
	Mark          = bench.Mark       // best, tied or plain
	Status        = jobs.Status      // a job's status
	TrainRequest  = train.Request    // a training run as a person states it
)

// The marks of a benchmark table's cells.
const (
	MarkPlain = bench.Plain
	MarkBest  = bench.Best
	MarkTied  = bench.Tied
)

// The states of a job.
const (
	Queued      = jobs.Queued
	Running     = jobs.Running
	Done        = jobs.Done
	Failed      = jobs.Failed
	Canceled    = jobs.Canceled
	Interrupted = jobs.Interrupted
)

// Finished reports whether a job in this state has ended.
func Finished(state string) bool { return jobs.Finished(state) }

// SanitizeName turns text into a name a network can be stored under.
func SanitizeName(s string) string { return netfile.SanitizeName(s) }
