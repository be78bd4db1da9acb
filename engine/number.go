package engine

import (
	"errors"
	"math"
	"strconv"
)

// ParseNumber reads a finite number: strconv.ParseFloat also reads "NaN",
// "Inf" and numbers too large for a float64 (as ±Inf), which every
// comparison after passes or fails the wrong way (b=NaN reached a
// benchmark and answered 500).
func ParseNumber(s string) (float64, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, errors.New("not a finite number")
	}
	return x, nil
}
