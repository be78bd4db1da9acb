// Package store keeps users' data — uploaded networks and background jobs
// with their results — in an embedded SQLite database (pure Go,
// modernc.org/sqlite) inside a state directory, apart from the read-only
// benchmark data. Every write is one transaction in WAL mode with full
// synchronous commits: a crash loses nothing already committed.
package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite" // the "sqlite" driver

	"github.com/ontime-routing/ontime/engine"
)

// FileName is the database's name inside the state directory.
const FileName = "ontime.db"

// Store is the state directory's database.
type Store struct {
	db   *sql.DB
	Dir  string
	lock *os.File // Claim's lock, held while open
}

// migrations are the schema's versions, applied in order; PRAGMA
// user_version records how many ran. Append, never edit.
var migrations = []string{
	// 1: uploaded networks and background jobs.
	`CREATE TABLE networks (
		name        TEXT PRIMARY KEY,
		description TEXT NOT NULL DEFAULT '',
		created     TEXT NOT NULL,
		nodes       INTEGER NOT NULL,
		links       INTEGER NOT NULL,
		settings    TEXT NOT NULL, -- the import options, JSON
		report      TEXT NOT NULL, -- the import report, JSON
		data        BLOB NOT NULL  -- the network in ontime's JSON format
	);
	CREATE TABLE jobs (
		id       TEXT PRIMARY KEY,
		kind     TEXT NOT NULL,
		network  TEXT NOT NULL,
		state    TEXT NOT NULL, -- running, done, failed, interrupted
		error    TEXT NOT NULL DEFAULT '',
		spec     TEXT NOT NULL, -- JSON
		started  TEXT NOT NULL,
		seconds  REAL NOT NULL DEFAULT 0,
		result   BLOB           -- JSON, when done
	);
	CREATE INDEX jobs_network ON jobs (network, kind, started);`,
	// 2: jobs of every kind keep their progress events (a learning curve)
	// and the tail of their log.
	`ALTER TABLE jobs ADD COLUMN events TEXT NOT NULL DEFAULT ''; -- JSON lines
	ALTER TABLE jobs ADD COLUMN log TEXT NOT NULL DEFAULT '';`,
	// 3: which process runs a job (the dashboard or a command line), and a
	// cancel asked for by another process, which the runner carries out.
	`ALTER TABLE jobs ADD COLUMN runner TEXT NOT NULL DEFAULT '';
	ALTER TABLE jobs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;`,
	// 4: who stored a network (a dashboard client's address; '' for the
	// command line), for each client's share of the quota; and the state
	// directory's own settings (its quota, which every door that writes
	// to it keeps).
	`ALTER TABLE networks ADD COLUMN owner TEXT NOT NULL DEFAULT '';
	CREATE TABLE settings (
		key   TEXT PRIMARY KEY,
		value TEXT NOT NULL -- JSON
	);`,
}

// Open opens (creating it if needed) the database in dir and brings its
// schema up to date. Other processes (the CLI beside a running server) may
// open it too; only the one that runs jobs calls MarkInterrupted.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, engine.Errorf(engine.EINVALID, "state directory %s: %v", dir, err)
	}
	path := filepath.Join(dir, FileName)
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{db: db, Dir: dir}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Version is the schema version the database is at.
func (s *Store) Version() (int, error) {
	var v int
	err := s.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	return v, err
}

func (s *Store) migrate() error {
	v, err := s.Version()
	if err != nil {
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("database schema version %d is newer than this ontime knows (%d): use a newer ontime", v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		tx, err := s.db.Begin()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(migrations[i]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
		if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, i+1)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error {
	if s.lock != nil {
		s.lock.Close() // releases the claim
		s.lock = nil
	}
	return s.db.Close()
}

// Network is a stored network.
type Network struct {
	Name        string
	Description string
	Created     time.Time
	Nodes       int
	Links       int
	Settings    []byte // JSON
	Report      []byte // JSON
	Data        []byte // ontime's JSON format (empty in listings)
	Owner       string // the dashboard client that stored it ("": the command line)
}

const timeFormat = time.RFC3339Nano

// PutNetwork stores a new network; a name already taken is refused.
func (s *Store) PutNetwork(ctx context.Context, n Network) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO networks (name, description, created, nodes, links, settings, report, data, owner)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, n.Name, n.Description, n.Created.UTC().Format(timeFormat), n.Nodes, n.Links,
		string(n.Settings), string(n.Report), n.Data, n.Owner)
	if err != nil && s.hasNetwork(ctx, n.Name) {
		return engine.Errorf(engine.EINVALID, "a network called %q is already stored: choose another name", n.Name)
	}
	return writeErr(err)
}

// NetworkUsage counts the stored networks and the bytes they take (their
// data, settings and import reports).
func (s *Store) NetworkUsage(ctx context.Context) (count int, bytes int64, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(LENGTH(data) + LENGTH(settings) + LENGTH(report)), 0) FROM networks`).Scan(&count, &bytes)
	return count, bytes, err
}

// OwnerNetworks counts the stored networks owner stored.
func (s *Store) OwnerNetworks(ctx context.Context, owner string) (count int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM networks WHERE owner = ?`, owner).Scan(&count)
	return count, err
}

// Setting reads the state directory's setting key into v (JSON); ok is
// false when it was never set.
func (s *Store) Setting(ctx context.Context, key string, v any) (ok bool, err error) {
	var text string
	switch err := s.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&text); {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, json.Unmarshal([]byte(text), v)
}

// SetSetting stores the state directory's setting key as v (JSON).
func (s *Store) SetSetting(ctx context.Context, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, string(b))
	return writeErr(err)
}

// writeErr names a write the disk refused (full, or failing) for people;
// SQLite rolled it back, so what was stored before is intact.
func writeErr(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff { // the primary result code
		case 13, 10: // SQLITE_FULL, SQLITE_IOERR
			return &engine.Error{Code: engine.ESTORAGE, Err: err,
				Message: fmt.Sprintf("the state directory could not be written (is its disk full?): %v; nothing stored before was lost", err)}
		}
	}
	return err
}

func (s *Store) hasNetwork(ctx context.Context, name string) bool {
	var one int
	return s.db.QueryRowContext(ctx, `SELECT 1 FROM networks WHERE name = ?`, name).Scan(&one) == nil
}

// Network returns a stored network with its data.
func (s *Store) Network(ctx context.Context, name string) (*Network, error) {
	return s.network(ctx, name, true)
}

// NetworkInfo is Network without its data: what a page says of a stored
// network (a city's data is tens of megabytes, read on every view).
func (s *Store) NetworkInfo(ctx context.Context, name string) (*Network, error) {
	return s.network(ctx, name, false)
}

func (s *Store) network(ctx context.Context, name string, withData bool) (*Network, error) {
	var n Network
	var created, settings, report string
	data := "x''"
	if withData {
		data = "data"
	}
	err := s.db.QueryRowContext(ctx, `SELECT name, description, created, nodes, links, settings, report, `+data+` FROM networks WHERE name = ?`, name).
		Scan(&n.Name, &n.Description, &created, &n.Nodes, &n.Links, &settings, &report, &n.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, engine.Errorf(engine.ENOTFOUND, "no stored network %q", name)
	}
	if err != nil {
		return nil, err
	}
	n.Created, _ = time.Parse(timeFormat, created)
	n.Settings, n.Report = []byte(settings), []byte(report)
	return &n, nil
}

// Networks lists the stored networks by name, without their data.
func (s *Store) Networks(ctx context.Context) ([]Network, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, description, created, nodes, links FROM networks ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Network
	for rows.Next() {
		var n Network
		var created string
		if err := rows.Scan(&n.Name, &n.Description, &created, &n.Nodes, &n.Links); err != nil {
			return nil, err
		}
		n.Created, _ = time.Parse(timeFormat, created)
		out = append(out, n)
	}
	return out, rows.Err()
}

// RenameNetwork renames a network and its jobs in one transaction.
func (s *Store) RenameNetwork(ctx context.Context, old, name string, data []byte) error {
	if s.hasNetwork(ctx, name) {
		return engine.Errorf(engine.EINVALID, "a network called %q is already stored: choose another name", name)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE networks SET name = ?, data = ? WHERE name = ?`, name, data, old)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return engine.Errorf(engine.ENOTFOUND, "no stored network %q", old)
		}
		_, err = tx.ExecContext(ctx, `UPDATE jobs SET network = ? WHERE network = ?`, name, old)
		return err
	})
}

// DeleteNetwork removes a network and its jobs.
func (s *Store) DeleteNetwork(ctx context.Context, name string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM networks WHERE name = ?`, name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return engine.Errorf(engine.ENOTFOUND, "no stored network %q", name)
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM jobs WHERE network = ?`, name)
		return err
	})
}

func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return writeErr(err)
	}
	return writeErr(tx.Commit())
}

// Job is a background job's record.
type Job struct {
	ID      string
	Kind    string // "bench", "train", …
	Network string
	State   string // queued, running, done, failed, canceled, interrupted
	Error   string
	Spec    []byte // JSON
	Started time.Time
	Seconds float64
	Result  []byte // JSON, when done
	Events  []byte // JSON lines: progress worth keeping (a learning curve)
	Log     string // the tail of the job's log
	Runner  string // the process running it, "host:pid" (see jobs)
}

const jobColumns = `id, kind, network, state, error, spec, started, seconds, result, events, log, runner`

// PutJob inserts or updates a job's record. A cancel another process asked
// for stays asked while the job is queued or running, and is forgotten
// when it ends: a job started again under the same id starts unasked.
func (s *Store) PutJob(ctx context.Context, j Job) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO jobs (`+jobColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, network = excluded.network, state = excluded.state,
			error = excluded.error, spec = excluded.spec, started = excluded.started, seconds = excluded.seconds,
			result = excluded.result, events = excluded.events, log = excluded.log, runner = excluded.runner,
			cancel_requested = CASE WHEN excluded.state IN ('queued', 'running') THEN cancel_requested ELSE 0 END`,
		j.ID, j.Kind, j.Network, j.State, j.Error, string(j.Spec),
		j.Started.UTC().Format(timeFormat), j.Seconds, j.Result, string(j.Events), j.Log, j.Runner)
	return writeErr(err)
}

// RequestCancel asks the process running a queued or running job to cancel
// it; false when the job is in neither state.
func (s *Store) RequestCancel(ctx context.Context, id string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE jobs SET cancel_requested = 1 WHERE id = ? AND state IN ('queued', 'running')`, id)
	if err != nil {
		return false, writeErr(err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// CancelRequested reports whether another process asked to cancel a job.
func (s *Store) CancelRequested(ctx context.Context, id string) (bool, error) {
	var asked bool
	err := s.db.QueryRowContext(ctx, `SELECT cancel_requested FROM jobs WHERE id = ?`, id).Scan(&asked)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return asked, err
}

// Job returns a job by id.
func (s *Store) Job(ctx context.Context, id string) (*Job, error) {
	return scanJob(s.db.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = ?`, id), id)
}

// MarkInterrupted marks the jobs a stopped process left queued or running
// as interrupted (they can be started again): those whose runner alive
// says is gone. The process that runs the dashboard's jobs calls it once
// at its start; a command line's job running beside it is left alone.
func (s *Store) MarkInterrupted(ctx context.Context, alive func(runner string) bool) (int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, runner FROM jobs WHERE state IN ('running', 'queued')`)
	if err != nil {
		return 0, err
	}
	var gone []string
	for rows.Next() {
		var id, runner string
		if err := rows.Scan(&id, &runner); err != nil {
			rows.Close()
			return 0, err
		}
		if !alive(runner) {
			gone = append(gone, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, id := range gone {
		if _, err := s.db.ExecContext(ctx, `UPDATE jobs SET state = 'interrupted', error = 'the process running this job stopped while it ran or waited',
			cancel_requested = 0 WHERE id = ? AND state IN ('running', 'queued')`, id); err != nil {
			return 0, writeErr(err)
		}
	}
	return len(gone), nil
}

// Jobs lists jobs, newest first, of a kind and network ("" for any), at
// most limit of them.
func (s *Store) Jobs(ctx context.Context, kind, network string, limit int) ([]Job, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE (? = '' OR kind = ?) AND (? = '' OR network = ?)
		ORDER BY started DESC LIMIT ?`, kind, kind, network, network, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		j, err := scanJob(rows, "")
		if err != nil {
			return nil, err
		}
		out = append(out, *j)
	}
	return out, rows.Err()
}

// EvictJobs deletes the finished jobs of a kind beyond the newest keep;
// queued and running ones stay. It returns how many went.
func (s *Store) EvictJobs(ctx context.Context, kind string, keep int) (int, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM jobs WHERE kind = ? AND state NOT IN ('queued', 'running') AND id NOT IN
		(SELECT id FROM jobs WHERE kind = ? AND state NOT IN ('queued', 'running') ORDER BY started DESC LIMIT ?)`, kind, kind, keep)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

type scanner interface{ Scan(dest ...any) error }

func scanJob(row scanner, what string) (*Job, error) {
	var j Job
	var spec, started, events string
	err := row.Scan(&j.ID, &j.Kind, &j.Network, &j.State, &j.Error, &spec, &started, &j.Seconds, &j.Result, &events, &j.Log, &j.Runner)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, engine.Errorf(engine.ENOTFOUND, "no job for %s", engine.Excerpt(what))
	}
	if err != nil {
		return nil, err
	}
	j.Spec, j.Events = []byte(spec), []byte(events)
	j.Started, _ = time.Parse(timeFormat, started)
	return &j, nil
}
