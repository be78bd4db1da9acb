package lab

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ontime-routing/ontime/engine"
)

// Quota bounds what a state directory stores for its users: stored
// networks, uploaded models, and the bytes of both (networks' data and
// reports in the database, every model file under models/). A save past
// it is refused (507) and nothing stored is touched. 0 takes the default;
// a negative value, no bound.
//
// The quota is the state directory's: ontime serve keeps the one it runs
// with in the database (KeepQuota), and every other door that stores (the
// command line's networks add and fit) is held to it.
type Quota struct {
	Networks int
	Models   int
	Bytes    int64
	// NetworksPerClient is one dashboard client's share of Networks (the
	// command line's saves count toward Networks only): one address saved
	// 20 networks in 2.1 s, and would have filled the default 200 for
	// everyone in 21 s.
	NetworksPerClient int
}

// DefaultQuota suits a class server: a network each, a few models each,
// within a couple of gigabytes, a tenth of the networks for any one
// client.
var DefaultQuota = Quota{Networks: 200, Models: 200, Bytes: 2 << 30, NetworksPerClient: 20}

// limits is q with its defaults filled in.
func (q Quota) limits() Quota {
	if q.Networks == 0 {
		q.Networks = DefaultQuota.Networks
	}
	if q.Models == 0 {
		q.Models = DefaultQuota.Models
	}
	if q.Bytes == 0 {
		q.Bytes = DefaultQuota.Bytes
	}
	if q.NetworksPerClient == 0 {
		q.NetworksPerClient = DefaultQuota.NetworksPerClient
	}
	return q
}

// quotaKey is the quota's key among the store's settings.
const quotaKey = "quota"

// KeepQuota stores the lab's quota (Options.Quota, its defaults filled in)
// as the state directory's, for every process that stores to it.
func (l *Lab) KeepQuota(ctx context.Context) error {
	st, err := l.store()
	if err != nil {
		return err
	}
	return st.SetSetting(ctx, quotaKey, l.opts.Quota.limits())
}

// quota is the state directory's quota: the one a server kept, else the
// lab's own.
func (l *Lab) quota(ctx context.Context) (Quota, error) {
	st, err := l.store()
	if err != nil {
		return Quota{}, err
	}
	var q Quota
	ok, err := st.Setting(ctx, quotaKey, &q)
	if err != nil || !ok {
		return l.opts.Quota.limits(), err
	}
	return q, nil
}

// Usage is what a state directory stores now.
type Usage struct {
	Networks, Models int
	Bytes            int64
}

// Usage counts the stored networks and uploaded models and their bytes.
func (l *Lab) Usage(ctx context.Context) (Usage, error) {
	st, err := l.store()
	if err != nil {
		return Usage{}, err
	}
	var u Usage
	if u.Networks, u.Bytes, err = st.NetworkUsage(ctx); err != nil {
		return Usage{}, err
	}
	filepath.WalkDir(filepath.Join(st.Dir, "models"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			u.Bytes += info.Size()
		}
		if strings.HasSuffix(path, ".onnx") && filepath.Base(filepath.Dir(filepath.Dir(path))) == "user" {
			u.Models++
		}
		return nil
	})
	return u, nil
}

// checkQuota refuses to store one more network or model (adding bytes)
// when the state directory would pass its quota.
// owner is the dashboard client storing ("": the command line, held to
// the totals only).
func (l *Lab) checkQuota(ctx context.Context, owner string, networks, models int, bytes int64) error {
	q, err := l.quota(ctx)
	if err != nil {
		return err
	}
	u, err := l.Usage(ctx)
	if err != nil {
		return err
	}
	if owner != "" && networks > 0 && q.NetworksPerClient > 0 {
		st, err := l.store()
		if err != nil {
			return err
		}
		mine, err := st.OwnerNetworks(ctx, owner)
		if err != nil {
			return err
		}
		if mine+networks > q.NetworksPerClient {
			return engine.Errorf(engine.ESTORAGE, "you have stored %d networks on this dashboard, the share of one address (%d of its %d: ontime serve --max-networks-per-client): delete one of yours before saving another; nothing stored was changed", mine, q.NetworksPerClient, q.Networks)
		}
	}
	switch {
	case q.Networks > 0 && networks > 0 && u.Networks+networks > q.Networks:
		return engine.Errorf(engine.ESTORAGE, "this dashboard stores %d networks, its limit (ontime serve --max-networks): delete one before saving another; nothing stored was changed", u.Networks)
	case q.Models > 0 && models > 0 && u.Models+models > q.Models:
		return engine.Errorf(engine.ESTORAGE, "this dashboard stores %d uploaded models, its limit (ontime serve --max-models): delete one before adding another; nothing stored was changed", u.Models)
	case q.Bytes > 0 && u.Bytes+bytes > q.Bytes:
		return engine.Errorf(engine.ESTORAGE, "this would take the dashboard's stored networks and models to %d MB, over its limit of %d MB (ontime serve --max-stored-mb): delete some first; nothing stored was changed",
			(u.Bytes+bytes)>>20, q.Bytes>>20)
	}
	return nil
}
