package netfile_test

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/builtin"
	"github.com/ontime-routing/ontime/engine/netfile"
	"github.com/ontime-routing/ontime/engine/verify"
)

// ReadStored reads what WriteJSON wrote into the same network ReadJSON
// reads, field for field, on every generated network of the invariant
// battery (fitted laws, skewed laws, one-way streets, zero variances,
// explicit and spatial correlations) and on the built-ins; and a stored copy
// its decoder refuses gets ReadJSON's error, naming the line.
func TestReadStoredEqualsReadJSON(t *testing.T) {
	var nets = map[string][]byte{}
	for _, c := range verify.Generated(false) {
		var b bytes.Buffer
		if err := netfile.WriteJSON(&b, c.Net); err != nil {
			t.Fatal(err)
		}
		nets[c.Name] = b.Bytes()
	}
	for _, name := range builtin.Names {
		net, err := builtin.Load(name, os.Getenv("ONTIME_DATA"))
		if err != nil {
			continue // Sioux Falls and Anaheim come from the data directory
		}
		var b bytes.Buffer
		if err := netfile.WriteJSON(&b, net); err != nil {
			t.Fatal(err)
		}
		nets[name] = b.Bytes()
	}
	for name, data := range nets {
		want, err := netfile.ReadJSON(bytes.NewReader(data), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := netfile.ReadStored(data, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ReadStored and ReadJSON read different networks", name)
		}
	}
	data := string(nets["asymmetric"])
	for _, bad := range []string{
		data[:len(data)/2],
		strings.Replace(data, `"mean"`, `"mean_min"`, 1),
		strings.Replace(data, `"variance":`, `"variance":"x",`, 1),
		strings.Replace(data, `"ontime-network"`, `"other"`, 1),
	} {
		if bad == data {
			t.Fatal("a damaged copy is not damaged")
		}
		_, want := netfile.ReadJSON(strings.NewReader(bad), "stored network x")
		_, got := netfile.ReadStored([]byte(bad), "stored network x")
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("a damaged copy: ReadStored says %v, ReadJSON %v", got, want)
		}
	}
}
