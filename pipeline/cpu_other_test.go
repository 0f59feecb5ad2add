//go:build !unix

package pipeline

// processCPU is not measured here; the benchmark reports wall time only.
func processCPU() int64 { return 0 }
