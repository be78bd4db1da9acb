package lab

import (
	"github.com/ontime-routing/ontime/engine"
	"github.com/ontime-routing/ontime/engine/linktime"
)

// ImportCorrFields are the add-network form's names for the correlation
// settings (the command line's are linktime.CorrFlagNames).
var ImportCorrFields = linktime.CorrFieldNames{"corr", "corr_seed", "strength", "length", "factors"}

// ParseImportCorr reads the add-network form's correlation settings (value
// returns a field's text by its form name) with the parser the command line
// uses: the correlation an import should state, Model "" for the default.
func ParseImportCorr(value func(field string) string) (engine.Correlation, error) {
	c, err := linktime.ParseCorrChoice(func(f linktime.CorrField) string { return value(ImportCorrFields[f]) }, ImportCorrFields)
	return c.Correlation(), err
}

// CorrChoices are the correlation models a user can choose, for the pages'
// menus.
func CorrChoices() []linktime.CorrModel { return linktime.ChoosableCorrModels() }

// Defaults and limits the import form states.
const (
	DefaultCorrFactors  = linktime.DefaultFactors
	MaxCorrFactors      = linktime.MaxFactors
	DefaultCorrStrength = linktime.DefaultStrength
)
