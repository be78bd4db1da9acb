package lab

import (
	"github.com/ontime-routing/ontime/engine/netfile"
)

// ImportSetting is one import setting (netfile's table): the command
// line's flags and the Add-a-network form's fields are its rows.
type ImportSetting = netfile.ImportSetting

// ImportSettings lists the import settings in the form's order.
func ImportSettings() []ImportSetting { return netfile.ImportSettings }

// ApplyImportSettings reads every import setting (netfile.ApplySettings).
func ApplyImportSettings(o *ImportOptions, value, field func(ImportSetting) string) error {
	return netfile.ApplySettings(o, value, field)
}

// NetworkFormats lists how each network format is given (netfile.Formats),
// for the upload page's hint.
func NetworkFormats() string { return netfile.FormatList() }
