package session

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Redis deployments the store connects to (RedisOptions.Mode).
const (
	// RedisAuto: Sentinel when a master name is given, a cluster when the
	// URL names several hosts or its one host is a cluster node (INFO
	// cluster), else a single server.
	RedisAuto = "auto"
	// RedisSingle: one server, or a proxy in front of several.
	RedisSingle = "single"
	// RedisCluster: Redis Cluster; the URL's hosts are seed nodes.
	RedisCluster = "cluster"
	// RedisSentinel: the URL's hosts are Sentinels watching the master
	// named by RedisOptions.MasterName.
	RedisSentinel = "sentinel"
)

// RedisModes are the valid values of RedisOptions.Mode ("" is auto).
var RedisModes = []string{RedisAuto, RedisSingle, RedisCluster, RedisSentinel}

// redisTarget is a parsed Redis URL: the options of its first host, and
// all its hosts.
type redisTarget struct {
	opts  *redis.Options
	addrs []string
}

// parseRedisTarget parses redis[s]://[user:password@]host[:port][,host[:port]...][/db][?options],
// never quoting the URL in errors: it may hold a password.
func parseRedisTarget(rawURL string) (redisTarget, error) {
	if rawURL == "" {
		return redisTarget{}, errors.New("session store: a Redis URL is required")
	}
	// url.Parse takes one host: parse the URL with the first in place of
	// the list, then each host in place of that one.
	hostList, rest := splitHosts(rawURL)
	u, err := url.Parse(rest)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return redisTarget{}, fmt.Errorf("session store: invalid Redis URL: %w", err)
	}
	hosts := strings.Split(hostList, ",")
	for _, h := range hosts {
		if h == "" {
			return redisTarget{}, errors.New("session store: invalid Redis URL: an empty host in its list")
		}
	}
	// Each host parsed alone gets go-redis's defaults (the port 6379).
	var addrs []string
	var first *redis.Options
	for _, h := range hosts {
		one := *u
		one.Host = h
		ro, err := redis.ParseURL(one.String())
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			return redisTarget{}, fmt.Errorf("session store: invalid Redis URL: %w", err)
		}
		if first == nil {
			first = ro
		}
		addrs = append(addrs, ro.Addr)
	}
	return redisTarget{opts: first, addrs: addrs}, nil
}

// splitHosts returns the host list of a URL, and the URL with its first
// host in place of the list.
func splitHosts(rawURL string) (hosts, rest string) {
	scheme, after, ok := strings.Cut(rawURL, "://")
	if !ok {
		return "", rawURL
	}
	end := strings.IndexAny(after, "/?#")
	if end < 0 {
		end = len(after)
	}
	authority := after[:end]
	at := strings.LastIndex(authority, "@") + 1
	hosts = authority[at:]
	first, _, _ := strings.Cut(hosts, ",")
	return hosts, scheme + "://" + authority[:at] + first + after[end:]
}

// universal returns the options of go-redis's universal client for mode.
func (t redisTarget) universal(mode, masterName string) (*redis.UniversalOptions, error) {
	ro := t.opts
	uo := &redis.UniversalOptions{
		Addrs: t.addrs, DB: ro.DB, Username: ro.Username, Password: ro.Password, TLSConfig: ro.TLSConfig,
		DialTimeout: ro.DialTimeout, ReadTimeout: ro.ReadTimeout, WriteTimeout: ro.WriteTimeout,
		PoolSize: ro.PoolSize, MinIdleConns: ro.MinIdleConns, MaxIdleConns: ro.MaxIdleConns,
		ClientName: ro.ClientName, Protocol: ro.Protocol,
		// One dial and no retry per operation, whatever the URL asks: a
		// call waits about one timeout before it goes on uncounted, and a
		// Record is never applied twice. A cluster still follows MOVED.
		DialerRetries: 1, MaxRetries: -1,
		// No maintenance-notification handshake: plain servers refuse it.
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
	switch mode {
	case "", RedisAuto:
		if masterName != "" {
			uo.MasterName = masterName
		}
	case RedisSingle:
		if len(t.addrs) > 1 {
			return nil, errors.New("session store: a single Redis server takes one host, the URL names several")
		}
	case RedisCluster:
		uo.IsClusterMode = true
	case RedisSentinel:
		if masterName == "" {
			return nil, errors.New("session store: Redis Sentinel needs the master's name")
		}
		uo.MasterName = masterName
		// The Sentinels' own password, if any, is the servers'.
		uo.SentinelUsername, uo.SentinelPassword = ro.Username, ro.Password
	default:
		return nil, fmt.Errorf("session store: Redis mode %q: want one of %s", mode, strings.Join(RedisModes, ", "))
	}
	if masterName != "" && mode != RedisSentinel && mode != "" && mode != RedisAuto {
		return nil, fmt.Errorf("session store: a Redis master name is for Sentinel, not the %s mode", mode)
	}
	if uo.MasterName == "" && len(t.addrs) > 1 {
		uo.IsClusterMode = true
	}
	return uo, nil
}

// kind names the deployment uo connects to, for logs.
func kind(uo *redis.UniversalOptions) string {
	switch {
	case uo.MasterName != "":
		return RedisSentinel
	case uo.IsClusterMode:
		return RedisCluster
	}
	return RedisSingle
}

// clusterNode reports whether the single server the client reaches is a
// cluster node (auto mode), so that its keys are routed by slot.
func clusterNode(ctx context.Context, c redis.UniversalClient) (bool, error) {
	info, err := c.Info(ctx, "cluster").Result()
	if err != nil {
		return false, err
	}
	return strings.Contains(info, "cluster_enabled:1"), nil
}

func fnv64(s string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return h.Sum64()
}

// CheckRedisOptions reports what NewRedis would refuse in a URL, mode and
// master name before connecting, never quoting the URL.
func CheckRedisOptions(rawURL, mode, masterName string) error {
	t, err := parseRedisTarget(rawURL)
	if err != nil {
		return err
	}
	_, err = t.universal(mode, masterName)
	return err
}
