package policy_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ontime-routing/ontime/engine/policy"
)

// A process started outside any checkout (a go-installed binary) still has
// the built-in networks' models: those the binary carries, unpacked into
// the user's cache. (The test binary lives outside the checkout; the
// working directory is moved out of it.)
func TestBuiltInModelsOutsideTheCheckout(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Chdir(t.TempDir())
	card, err := policy.ReadModelCard("", "twobranch", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(card.Path, cache) {
		t.Fatalf("model read from %s, not the unpacked copy under %s", card.Path, cache)
	}
	if st, err := os.Stat(card.Path); err != nil || st.Size() == 0 {
		t.Fatalf("unpacked model %s: %v", card.Path, err)
	}
}
