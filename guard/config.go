package guard

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/internal/lifecycle"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/syntax"
	"github.com/toolguard/toolguard/workspace"
)

// Config is the core's settings: the server's configuration embeds it (one
// flag each, cmd/toolguard); the proxy maps its own onto it.
type Config struct {
	ToolsFile string

	// Workspace is the default workspace's directory; empty opens none.
	Workspace  string
	Workspaces []string
	// AgentRoot is the workspace root as the agent sees it.
	AgentRoot    string
	MaxFileBytes int64
	// MaxMediaBytes bounds a file read_media_file returns.
	MaxMediaBytes int64
	// Deny holds gitignore-style patterns no call may touch.
	Deny           []string
	FuzzyThreshold float64
	// LockDir, when set, holds the lock files that serialise edits of a path
	// across every process sharing the workspaces; a folder per workspace.
	LockDir string
	// LockTimeout bounds the wait for a path another call is changing.
	LockTimeout time.Duration

	// MistakeLimit: requests may lower it, never raise it.
	MistakeLimit uint32
	SessionTTL   time.Duration
	MaxSessions  int
	// SessionStore: SessionStoreRedis shares counters between replicas.
	SessionStore string
	// RedisURL may hold a password: only its host is ever logged.
	RedisURL       string
	RedisKeyPrefix string
	// RedisMode is one of session.RedisModes; RedisMasterName names
	// Sentinel's master.
	RedisMode       string
	RedisMasterName string
	// RedisTimeout: a count that times out is answered uncounted.
	RedisTimeout time.Duration

	// UndoSessionBytes, UndoTotalBytes and UndoTTL bound undo_edit's
	// history: the before-images one session keeps, those every session
	// keeps together (the memory store; Redis is bounded by its TTL and
	// maxmemory), and how long one is kept. The history lives where the
	// sessions do (SessionStore).
	UndoSessionBytes int64
	UndoTotalBytes   int64
	UndoTTL          time.Duration

	// IdempotencyReplyBytes, IdempotencyKeys and IdempotencyTTL bound the
	// answers kept for idempotency keys (Once): one answer's bytes, the keys
	// one session keeps, and how long one is kept; 0 is the default. They
	// live where the sessions do.
	IdempotencyReplyBytes int
	IdempotencyKeys       int
	IdempotencyTTL        time.Duration

	// Mode is ModeEnforce or ModeObserve: a stream with execute on
	// complete executes nothing, its verdicts computed all the same.
	// Empty is enforce.
	Mode string

	// SearchMaxResults, SearchMaxFiles, SearchMaxBytes and SearchTimeout
	// bound each search_files call (SearchLimits).
	SearchMaxResults int
	SearchMaxFiles   int
	SearchMaxBytes   int64
	SearchTimeout    time.Duration

	// SyntaxCheck is SyntaxReport (empty too), SyntaxRefuse or SyntaxOff,
	// for every workspace (syntax.go); SyntaxMaxBytes and SyntaxTimeout
	// bound one check (0: syntax.DefaultLimits).
	SyntaxCheck    string
	SyntaxMaxBytes int64
	SyntaxTimeout  time.Duration

	// SyntaxMaxMemory bounds the memory the checks running at once hold
	// together, server-wide (0: DefaultSyntaxMaxMemory).
	SyntaxMaxMemory int64
}

// DefaultSyntaxMaxMemory is the memory the syntax checks of a server hold
// at once by default: three checks of a file of the largest size (4 MiB),
// before and after, in Python, C or shell (320 MiB each), or one in
// JavaScript (720 MiB). docs/limits.md#memory-of-syntax-checks.
const DefaultSyntaxMaxMemory = 1 << 30

// The modes of Config.Mode.
const (
	ModeEnforce = "enforce"
	ModeObserve = "observe"
)

// The session stores Config.SessionStore selects.
const (
	SessionStoreMemory = "memory"
	SessionStoreRedis  = "redis"
)

// DefaultWorkspaceName names Config.Workspace.
const DefaultWorkspaceName = "default"

// DefaultConfig returns the core's defaults: no workspace, memory sessions.
func DefaultConfig() Config {
	return Config{
		MaxFileBytes:   10 << 20,
		MaxMediaBytes:  DefaultMaxMediaBytes,
		FuzzyThreshold: 0.9,
		LockTimeout:    workspace.DefaultLockTimeout,
		MistakeLimit:   3,
		SessionTTL:     time.Hour,
		MaxSessions:    100_000,
		SessionStore:   SessionStoreMemory,
		RedisKeyPrefix: session.DefaultRedisKeyPrefix,
		RedisMode:      session.RedisAuto,
		RedisTimeout:   session.DefaultRedisTimeout,
		Mode:           ModeEnforce,
		SyntaxCheck:    SyntaxReport,
		SyntaxMaxBytes: int64(syntax.DefaultLimits.MaxBytes),
		SyntaxTimeout:  syntax.DefaultLimits.Timeout,

		SyntaxMaxMemory: DefaultSyntaxMaxMemory,

		UndoSessionBytes: session.DefaultHistorySessionBytes,
		UndoTotalBytes:   session.DefaultHistoryTotalBytes,
		UndoTTL:          session.DefaultHistoryTTL,

		IdempotencyReplyBytes: session.DefaultReplyBytes,
		IdempotencyKeys:       session.DefaultSessionReplies,
		IdempotencyTTL:        session.DefaultReplyTTL,
	}.withSearchLimits(DefaultSearchLimits())
}

// Validate reports every setting that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.MistakeLimit == 0 {
		errs = append(errs, errors.New("mistake limit must be at least 1"))
	}
	if c.SessionTTL <= 0 {
		errs = append(errs, errors.New("session TTL must be positive"))
	}
	if c.MaxSessions <= 0 {
		errs = append(errs, errors.New("max sessions must be positive"))
	}
	errs = append(errs, c.validateSessionStore()...)
	if dirs, err := c.WorkspaceDirs(); err != nil {
		errs = append(errs, err)
	} else if err := c.checkLockDir(dirs); err != nil {
		errs = append(errs, err)
	}
	if c.AgentRoot != "" && !filepath.IsAbs(c.AgentRoot) {
		errs = append(errs, fmt.Errorf("agent root %q must be an absolute path", c.AgentRoot))
	}
	if c.MaxFileBytes <= 0 {
		errs = append(errs, errors.New("max file bytes must be positive"))
	}
	if c.UndoSessionBytes < 0 || c.UndoTotalBytes < 0 || c.UndoTTL < 0 {
		errs = append(errs, errors.New("undo history bounds must not be negative (0 keeps no history)"))
	}
	if c.IdempotencyReplyBytes < 0 || c.IdempotencyKeys < 0 || c.IdempotencyTTL < 0 {
		errs = append(errs, errors.New("idempotency bounds must not be negative"))
	}
	if c.MaxMediaBytes < 0 {
		errs = append(errs, errors.New("max media bytes must not be negative"))
	}
	if c.FuzzyThreshold <= 0 || c.FuzzyThreshold > 1 {
		errs = append(errs, errors.New("fuzzy threshold must be in (0, 1]"))
	}
	if c.Mode != "" && c.Mode != ModeEnforce && c.Mode != ModeObserve {
		errs = append(errs, fmt.Errorf("mode %q: want %s or %s", c.Mode, ModeEnforce, ModeObserve))
	}
	if !validSyntaxMode(c.SyntaxCheck) {
		errs = append(errs, fmt.Errorf("syntax check %q: want %s, %s or %s", c.SyntaxCheck, SyntaxReport, SyntaxRefuse, SyntaxOff))
	}
	if c.SyntaxMaxBytes < 0 || c.SyntaxTimeout < 0 || c.SyntaxMaxMemory < 0 {
		errs = append(errs, errors.New("syntax check bounds must not be negative (0 is the default)"))
	}
	if c.LockTimeout <= 0 {
		errs = append(errs, errors.New("lock timeout must be positive"))
	}
	errs = append(errs, c.searchLimits().validate()...)
	return errors.Join(errs...)
}

func (c Config) validateSessionStore() []error {
	var errs []error
	switch c.SessionStore {
	case SessionStoreMemory:
		if c.RedisURL != "" {
			// Meant to share sessions, it would count per replica silently.
			errs = append(errs, errors.New("a Redis URL is set but the session store is memory: set the session store to redis, or unset the URL"))
		}
	case SessionStoreRedis:
		if c.RedisURL == "" {
			errs = append(errs, errors.New("the redis session store needs a Redis URL"))
		} else if err := session.CheckRedisOptions(c.RedisURL, c.RedisMode, c.RedisMasterName); err != nil {
			errs = append(errs, err)
		}
		if c.RedisKeyPrefix == "" {
			errs = append(errs, errors.New("the Redis key prefix must not be empty"))
		}
	default:
		errs = append(errs, fmt.Errorf("session store %q: want %s or %s", c.SessionStore, SessionStoreMemory, SessionStoreRedis))
	}
	if c.RedisTimeout <= 0 {
		errs = append(errs, errors.New("the Redis timeout must be positive"))
	}
	return errs
}

// checkLockDir refuses a lock directory whose folder for any workspace
// would lie inside any workspace: there calls could remove its lock files.
// A workspace checks only its own folder when it opens.
func (c Config) checkLockDir(dirs map[string]string) error {
	if c.LockDir == "" {
		return nil
	}
	names := slices.Sorted(maps.Keys(dirs))
	for _, in := range names {
		switch inside, err := workspace.LockDirInside(c.LockDir, dirs[in]); {
		case err != nil:
			return fmt.Errorf("lock directory %s: %w", c.LockDir, err)
		case inside:
			return fmt.Errorf("lock directory %s is inside workspace %q (%s), where calls could remove its lock files; put it beside the workspaces, on the same volume", c.LockDir, in, dirs[in])
		}
	}
	for _, name := range names {
		lock := filepath.Join(c.LockDir, workspace.LockDirName(name))
		for _, in := range names {
			if inside, err := workspace.LockDirInside(lock, dirs[in]); err == nil && inside {
				return fmt.Errorf("lock directory %s: the folder of workspace %q's lock files, %s, is workspace %q (%s) or inside it, where calls could remove them; put the lock directory beside the workspaces, on the same volume", c.LockDir, name, lock, in, dirs[in])
			}
		}
	}
	return nil
}

func (c Config) WorkspaceDirs() (map[string]string, error) {
	dirs := map[string]string{}
	if c.Workspace != "" {
		dirs[DefaultWorkspaceName] = c.Workspace
	}
	for _, w := range c.Workspaces {
		name, dir, ok := strings.Cut(w, "=")
		name, dir = strings.TrimSpace(name), strings.TrimSpace(dir)
		if !ok || name == "" || dir == "" {
			return nil, fmt.Errorf("workspace %q: want name=dir", w)
		}
		if _, dup := dirs[name]; dup {
			return nil, fmt.Errorf("workspace %q is defined twice", name)
		}
		dirs[name] = dir
	}
	return dirs, nil
}

// Options are what a front end adds to the settings.
type Options struct {
	// NoBuiltinTools checks calls only against each request's tools (proxy).
	NoBuiltinTools bool
	// Observe builds the observer from the tool registry; nil: none.
	Observe func(*repair.Registry) (Observer, error)
	// Uncounted learns calls the store could not count; it must be cheap.
	Uncounted func(sessionID string, err error)
	// MaxResponseBytes is the send limit execution answers fit (elide.go).
	MaxResponseBytes int
	// MaxVerdictBytes bounds an answer that executes nothing (verdict.go),
	// whatever the call's size; 0: the arguments come back whole, unknown
	// parameters included, unless MaxResponseBytes is passed (the proxy
	// forwards them).
	MaxVerdictBytes int
	// Log learns the session store in use; nil logs nothing.
	Log *zap.Logger
	// Sessions, when set, replaces the store cfg selects; it is not closed.
	Sessions session.Store
	// History, when set, replaces undo_edit's history cfg selects; it is
	// not closed.
	History session.History
	// Replies, when set, replaces the idempotency answers' store cfg
	// selects; it is not closed.
	Replies session.Replies
}

// New builds a guard from its settings (Redis must answer now); front ends
// validate cfg first. The cleanup releases all, last acquired first.
func New(cfg Config, opts Options) (_ *Guard, cleanup func() error, err error) {
	log := opts.Log
	if log == nil {
		log = zap.NewNop()
	}
	if cfg.MistakeLimit == 0 {
		return nil, nil, errors.New("guard: mistake limit must be at least 1")
	}
	reg, err := newRegistry(cfg.ToolsFile, opts.NoBuiltinTools)
	if err != nil {
		return nil, nil, err
	}
	var cleanups lifecycle.Cleanups
	var opened []*workspace.Workspace
	defer func() {
		if err != nil {
			_ = cleanups.Run()
			// A refused start leaves no lock folder it made behind.
			for _, ws := range slices.Backward(opened) {
				_ = ws.Discard()
			}
		}
	}()
	readTool, err := reg.Compile(readToolDef)
	if err != nil {
		return nil, nil, fmt.Errorf("tool registry: %w", err)
	}
	workspaces, err := openWorkspaces(cfg, log, &cleanups, &opened)
	if err != nil {
		return nil, nil, err
	}
	cleanups.Add("temporary file sweeps", startSweeper(workspaces))
	store := opts.Sessions
	if store == nil {
		if store, err = openSessionStore(cfg, log); err != nil {
			return nil, nil, err
		}
		cleanups.Add("session store", store.Close)
	}
	history := opts.History
	if history == nil {
		history = openHistory(cfg, store)
	}
	replies := opts.Replies
	if replies == nil {
		replies = openReplies(cfg, store)
	}
	var observer Observer
	if opts.Observe != nil {
		if observer, err = opts.Observe(reg); err != nil {
			return nil, nil, err
		}
	}
	if observer == nil {
		observer = NopObserver{}
	}
	g := &Guard{
		reg: reg, sessions: store, limit: cfg.MistakeLimit, tools: newToolCache(512),
		workspaces: workspaces, defaultWorkspace: DefaultWorkspaceName,
		match:       edit.MatchOptions{FuzzyThreshold: cfg.FuzzyThreshold},
		maxResponse: opts.MaxResponseBytes, maxVerdict: opts.MaxVerdictBytes, observer: observer, uncounted: opts.Uncounted, readTool: readTool,
		observeOnly: cfg.Mode == ModeObserve, history: history, replies: replies, log: log,
		maxMedia:   cfg.MaxMediaBytes,
		syntaxMode: cmp.Or(cfg.SyntaxCheck, SyntaxReport), syntaxLimits: cfg.SyntaxLimits(),
		syntaxCache: newSyntaxCache(syntaxCacheEntries, syntaxCacheBytes),
		search:      cfg.searchLimits().orDefaults(), maxFileBytes: cmp.Or(cfg.MaxFileBytes, DefaultConfig().MaxFileBytes),
	}
	g.syntaxBudget, g.syntaxParse = syntax.NewBudget(cmp.Or(cfg.SyntaxMaxMemory, DefaultSyntaxMaxMemory)), syntax.Check
	return g, cleanups.Run, nil
}

func newRegistry(toolsFile string, noBuiltins bool) (*repair.Registry, error) {
	var files []repair.ToolsFile
	if toolsFile != "" {
		f, err := loadToolsFile(toolsFile)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	var reg *repair.Registry
	var err error
	if noBuiltins {
		if len(files) > 0 {
			return nil, errors.New("tool registry: a tools file needs the built-in tools")
		}
		reg, err = repair.NewRegistryWithoutTools()
	} else {
		reg, err = repair.NewRegistry(files...)
	}
	if err != nil {
		return nil, fmt.Errorf("tool registry: %w", err)
	}
	return reg, nil
}

// loadToolsFile reads and parses a tools file; repair, which does no I/O,
// parses it.
func loadToolsFile(path string) (repair.ToolsFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return repair.ToolsFile{}, fmt.Errorf("read tools file: %w", err)
	}
	f, err := repair.ParseToolsFile(data)
	if err != nil {
		return repair.ToolsFile{}, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// openWorkspaces opens cfg's workspaces, each appended to opened (for a
// failed setup to discard) and its Close to cleanups, and logs each.
func openWorkspaces(cfg Config, log *zap.Logger, cleanups *lifecycle.Cleanups, opened *[]*workspace.Workspace) (map[string]*workspace.Workspace, error) {
	dirs, err := cfg.WorkspaceDirs()
	if err != nil {
		return nil, err
	}
	// Again now that every folder exists: Validate may have run before.
	if err := cfg.checkLockDir(dirs); err != nil {
		return nil, err
	}
	out := make(map[string]*workspace.Workspace, len(dirs))
	for _, name := range slices.Sorted(maps.Keys(dirs)) { // an error names the same one each time
		dir := dirs[name]
		opts := workspace.Options{AgentRoot: cfg.AgentRoot, MaxFileBytes: cfg.MaxFileBytes, Deny: cfg.Deny, LockTimeout: cfg.LockTimeout}
		if cfg.LockDir != "" {
			opts.LockDir = filepath.Join(cfg.LockDir, workspace.LockDirName(name))
		}
		ws, err := workspace.Open(dir, opts)
		if err != nil {
			return nil, fmt.Errorf("workspace %q: %w", name, err)
		}
		// Which lock directory, with its identity and file system: what
		// tells replicas that would lose writes apart in their logs.
		log.Info("workspace", zap.String("workspace", name), zap.String("dir", dir),
			zap.String("lock_dir", ws.LockDir()), zap.String("lock_dir_id", ws.LockDirID()),
			zap.String("lock_dir_fs", ws.LockDirFileSystem()))
		out[name] = ws
		cleanups.Add(fmt.Sprintf("workspace %q", name), ws.Close)
		*opened = append(*opened, ws)
	}
	return out, nil
}

// openSessionStore opens cfg's store ("" is memory); Redis is pinged first.
func openSessionStore(cfg Config, log *zap.Logger) (session.Store, error) {
	switch cfg.SessionStore {
	case "", SessionStoreMemory:
		log.Info("session store", zap.String("store", SessionStoreMemory), zap.Int("max_sessions", cfg.MaxSessions))
		return session.NewMemory(session.MemoryOptions{TTL: cfg.SessionTTL, MaxSessions: cfg.MaxSessions}), nil
	case SessionStoreRedis:
		timeout := cfg.RedisTimeout
		if timeout <= 0 {
			timeout = session.DefaultRedisTimeout
		}
		// Debug: the front ends warn about an unreachable store themselves.
		redisLog := log.Named("redis")
		r, err := session.NewRedis(context.Background(), session.RedisOptions{
			URL: cfg.RedisURL, Mode: cfg.RedisMode, MasterName: cfg.RedisMasterName, TTL: cfg.SessionTTL, KeyPrefix: cfg.RedisKeyPrefix,
			DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout,
			Log:              func(msg string) { redisLog.Debug(msg) },
			StartUnreachable: true,
		})
		if err != nil {
			return nil, err
		}
		if err := r.Ping(context.Background()); err != nil {
			// Serving uncounted beats crash-looping through an outage.
			log.Error("session store unreachable at start: serving degraded, every call answered with mistakes.not_counted until Redis answers",
				zap.String("redis_addr", r.Addr()), zap.String("redis_mode", r.Mode()), zap.Error(err))
		}
		log.Info("session store", zap.String("store", SessionStoreRedis), zap.String("redis_addr", r.Addr()), zap.String("redis_mode", r.Mode()),
			zap.String("key_prefix", cfg.RedisKeyPrefix), zap.Duration("timeout", timeout))
		return r, nil
	default:
		return nil, fmt.Errorf("session store %q: want %s or %s", cfg.SessionStore, SessionStoreMemory, SessionStoreRedis)
	}
}

// openHistory returns undo_edit's history where the sessions live: Redis
// when the store is Redis, else memory; nil when a bound is 0.
func openHistory(cfg Config, store session.Store) session.History {
	if cfg.UndoSessionBytes == 0 || cfg.UndoTotalBytes == 0 || cfg.UndoTTL == 0 {
		return nil
	}
	opts := session.HistoryOptions{SessionBytes: cfg.UndoSessionBytes, TotalBytes: cfg.UndoTotalBytes, TTL: cfg.UndoTTL}
	if r, ok := store.(*session.Redis); ok {
		return r.History(opts)
	}
	return session.NewMemoryHistory(opts)
}
