//go:build !cgo || !linux

package linktime

import "gonum.org/v1/gonum/mat"

// Without cgo every decomposition is gonum's.
func lapackLibrary() string { return "" }

func lapackEigen(*mat.SymDense) ([]float64, *mat.Dense, bool) { return nil, nil, false }

func lapackGram(*mat.Dense) ([]float64, bool) { return nil, false }
