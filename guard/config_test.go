package guard

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateSessionStore(t *testing.T) {
	const secret = "hunter2"
	tests := []struct {
		name    string
		edit    func(c *Config)
		wantErr string // "" means valid
	}{
		{"memory by default", func(*Config) {}, ""},
		{"redis with a URL", func(c *Config) { c.SessionStore, c.RedisURL = "redis", "redis://:"+secret+"@redis:6379/0" }, ""},
		{"rediss", func(c *Config) { c.SessionStore, c.RedisURL = "redis", "rediss://user:"+secret+"@redis.example:6380" }, ""},
		{"redis needs a URL", func(c *Config) { c.SessionStore = "redis" }, "needs a Redis URL"},
		{"a URL needs redis", func(c *Config) { c.RedisURL = "redis://redis:6379" }, "session store is memory"},
		{"unknown store", func(c *Config) { c.SessionStore = "etcd" }, `session store "etcd": want memory or redis`},
		{"bad URL, password not quoted", func(c *Config) { c.SessionStore, c.RedisURL = "redis", "redis://:"+secret+"@redis:port" }, "invalid Redis URL"},
		{"bad scheme, password not quoted", func(c *Config) { c.SessionStore, c.RedisURL = "redis", "http://:"+secret+"@redis:6379" }, "invalid Redis URL"},
		{"empty prefix", func(c *Config) { c.SessionStore, c.RedisURL, c.RedisKeyPrefix = "redis", "redis://redis", "" }, "key prefix"},
		{"timeout", func(c *Config) { c.RedisTimeout = 0 }, "Redis timeout"},
		{"cluster hosts", func(c *Config) { c.SessionStore, c.RedisURL = "redis", "redis://:"+secret+"@a:6379,b:6379,c" }, ""},
		{"sentinel", func(c *Config) {
			c.SessionStore, c.RedisURL, c.RedisMode, c.RedisMasterName = "redis", "redis://s1:26379,s2:26379", "sentinel", "m"
		}, ""},
		{"sentinel in auto mode", func(c *Config) { c.SessionStore, c.RedisURL, c.RedisMasterName = "redis", "redis://s1:26379", "m" }, ""},
		{"sentinel needs a master name", func(c *Config) { c.SessionStore, c.RedisURL, c.RedisMode = "redis", "redis://s1", "sentinel" }, "master's name"},
		{"unknown mode", func(c *Config) { c.SessionStore, c.RedisURL, c.RedisMode = "redis", "redis://r", "ring" }, `Redis mode "ring"`},
		{"single with several hosts", func(c *Config) { c.SessionStore, c.RedisURL, c.RedisMode = "redis", "redis://a,b", "single" }, "takes one host"},
		{"master name in cluster mode", func(c *Config) {
			c.SessionStore, c.RedisURL, c.RedisMode, c.RedisMasterName = "redis", "redis://a,b", "cluster", "m"
		}, "master name is for Sentinel"},
		{"empty host, password not quoted", func(c *Config) { c.SessionStore, c.RedisURL = "redis", "redis://:"+secret+"@a,,b" }, "empty host"},
		{"bad second host, password not quoted", func(c *Config) { c.SessionStore, c.RedisURL = "redis", "redis://:"+secret+"@a:1,b:port" }, "invalid Redis URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.edit(&cfg)
			err := errors.Join(cfg.validateSessionStore()...)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("err = %q quotes the password", err)
			}
			// Config.Validate reports it too.
			if verr := cfg.Validate(); verr == nil || !strings.Contains(verr.Error(), tt.wantErr) {
				t.Fatalf("Validate = %v, want it to mention %q", verr, tt.wantErr)
			}
		})
	}
}
