/**
 * Client-side balancing, as gRPC's `round_robin`: a target naming a
 * resolver (`dns:///host:port`, `ipv4:a:p,b:p`, `ipv6:[a]:p,[b]:p`) gets one
 * HTTP/2 connection per address it resolves to, and each call goes to the
 * next address. A DNS name is resolved again periodically and when a call
 * fails with UNAVAILABLE, so the servers added behind a name (a headless
 * Service's pods) get calls without waiting for a connection's maximum age.
 *
 * @internal Not part of the package's API.
 */

import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import { lookup } from "node:dns/promises";
import type * as http2 from "node:http2";

import { createChannel, type Channel, type ChannelOptions } from "./transport.js";

/** A target naming a resolver, parsed. */
export interface BalancedTarget {
  /** The DNS name to resolve (dns:), or undefined for a fixed list (ipv4:, ipv6:). */
  host?: string;
  /** The port of the DNS name's addresses. */
  port?: number;
  /** The addresses of a fixed list, `ip:port` (IPv6 in brackets). */
  addresses?: string[];
}

/** The schemes of {@link parseBalancedTarget}. */
const SCHEMES = /^(dns|ipv4|ipv6):/i;

/** Whether an address names a resolver and so is balanced. */
export function isBalancedTarget(address: string): boolean {
  return SCHEMES.test(address);
}

/**
 * Parses `dns:///host:port` (also `dns:host:port`; an authority, the DNS
 * server of `dns://8.8.8.8/host:port`, is not supported), `ipv4:a:p,b:p`
 * and `ipv6:[a]:p,[b]:p`. A DNS name without a port gets 443, as in gRPC.
 *
 * @throws TypeError for a malformed target.
 */
export function parseBalancedTarget(address: string): BalancedTarget {
  const bad = (why: string) => new TypeError(`toolguard address "${address}": ${why}`);
  const scheme = address.slice(0, address.indexOf(":")).toLowerCase();
  let rest = address.slice(scheme.length + 1);
  if (scheme === "dns") {
    if (rest.startsWith("//")) {
      const slash = rest.indexOf("/", 2);
      if (slash !== 2) throw bad("a DNS authority (dns://server/) is not supported; write dns:///host:port");
      rest = rest.slice(3);
    }
    const { host, port } = splitHostPort(rest, 443, bad);
    return { host, port };
  }
  const list = rest.split(",").filter((a) => a !== "");
  if (list.length === 0) throw bad(`want ${scheme}:address:port[,address:port...]`);
  return {
    addresses: list.map((a) => {
      const { host, port } = splitHostPort(a, 443, bad);
      return joinHostPort(host, port);
    }),
  };
}

function splitHostPort(s: string, defaultPort: number, bad: (why: string) => TypeError): { host: string; port: number } {
  let host = s;
  let port = defaultPort;
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(s) ?? /^([^:[\]]+)(?::(\d+))?$/.exec(s);
  if (!m) throw bad("want host:port");
  host = m[1]!;
  if (m[2] !== undefined) port = Number(m[2]);
  if (!(port > 0 && port < 65536) || /[/\s]/.test(host)) throw bad("want host:port with a port from 1 to 65535");
  return { host, port };
}

function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Resolves a DNS name to its addresses (A and AAAA). */
export type Resolve = (host: string) => Promise<string[]>;

const resolveByDns: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Options of {@link createBalancedChannel}. */
export interface BalancedOptions extends Omit<ChannelOptions, "baseUrl"> {
  /** `http` or `https` (TLS, checked against the target's name). */
  scheme: "http" | "https";
  /** Resolves the DNS name; default: the system's resolver (`dns.lookup`, A and AAAA). */
  resolve?: Resolve;
  /** How often a DNS name is resolved again, in ms (default 30 s). */
  refreshMs?: number;
  /** The least time between two resolutions caused by failed calls, in ms (default 1 s). */
  minRefreshMs?: number;
}

/** A channel over every address a balanced target resolves to, one call each in turn. */
export function createBalancedChannel(target: BalancedTarget, options: BalancedOptions): Channel {
  return new Balancer(target, options).channel();
}

/** One address's connection; `failedAt` marks a call that found it unavailable. */
interface Sub {
  address: string;
  channel: Channel;
  failedAt: number;
}

class Balancer {
  readonly #target: BalancedTarget;
  readonly #options: BalancedOptions;
  readonly #resolve: Resolve;
  #subs: Sub[] = [];
  #next = 0;
  #resolving: Promise<void> | undefined;
  #resolvedAt = -Infinity;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(target: BalancedTarget, options: BalancedOptions) {
    this.#target = target;
    this.#options = options;
    this.#resolve = options.resolve ?? resolveByDns;
  }

  channel(): Channel {
    const call = <T>(run: (t: Transport) => Promise<T>): Promise<T> => {
      const sub = this.#pick();
      const p = sub ? run(sub.channel.transport) : this.#refresh().then(() => {
        const s = this.#pick();
        if (!s) throw this.#none();
        return this.#watch(s, run(s.channel.transport));
      });
      return sub ? this.#watch(sub, p) : p;
    };
    const transport: Transport = {
      unary: (method, signal, timeoutMs, header, input, contextValues) =>
        call((t) => t.unary(method, signal, timeoutMs, header, input, contextValues)),
      stream: (method, signal, timeoutMs, header, input, contextValues) =>
        call((t) => t.stream(method, signal, timeoutMs, header, input, contextValues)),
    };
    return {
      transport,
      close: () => this.#close((c) => c.close()),
      drain: () => this.#close((c) => c.drain()),
    };
  }

  /** The next address in turn, skipping those just found unavailable while others are not. */
  #pick(): Sub | undefined {
    const subs = this.#subs;
    if (subs.length === 0) return undefined;
    const now = performance.now();
    for (let i = 0; i < subs.length; i++) {
      const s = subs[this.#next++ % subs.length]!;
      if (now - s.failedAt >= RETRY_MS) return s;
    }
    return subs[this.#next++ % subs.length];
  }

  /** Marks the address of a call failing with UNAVAILABLE, and resolves again. */
  #watch<T>(sub: Sub, p: Promise<T>): Promise<T> {
    return p.catch((err: unknown) => {
      if (err instanceof ConnectError && err.code === Code.Unavailable) {
        sub.failedAt = performance.now();
        if (performance.now() - this.#resolvedAt >= (this.#options.minRefreshMs ?? 1000)) void this.#refresh().catch(() => {});
      }
      throw err;
    });
  }

  #none(): ConnectError {
    const t = this.#target;
    return new ConnectError(`no address for ${t.host ?? t.addresses?.join(",")}`, Code.Unavailable);
  }

  /** Resolves the target (once at a time) and keeps a connection per address. */
  #refresh(): Promise<void> {
    this.#resolving ??= this.#addresses()
      .then((addresses) => this.#update(addresses))
      .finally(() => {
        this.#resolving = undefined;
        this.#resolvedAt = performance.now();
        this.#schedule();
      });
    return this.#resolving;
  }

  async #addresses(): Promise<string[]> {
    const t = this.#target;
    if (t.addresses) return t.addresses;
    try {
      const ips = await this.#resolve(t.host!);
      return [...new Set(ips)].map((ip) => joinHostPort(ip, t.port!));
    } catch (err) {
      // Keep the addresses known; with none, the call fails UNAVAILABLE.
      if (this.#subs.length > 0) return this.#subs.map((s) => s.address);
      throw new ConnectError(`resolving ${t.host}: ${(err as Error).message}`, Code.Unavailable, undefined, undefined, err);
    }
  }

  #update(addresses: string[]): void {
    if (this.#closed) return;
    const old = new Map(this.#subs.map((s) => [s.address, s]));
    this.#subs = addresses.map((address) => {
      const kept = old.get(address);
      if (kept) {
        old.delete(address);
        return kept;
      }
      return { address, channel: this.#connect(address), failedAt: -Infinity };
    });
    // Gone from the name: closed once their open calls are done.
    for (const s of old.values()) s.channel.drain();
  }

  #connect(address: string): Channel {
    const { scheme, resolve: _r, refreshMs: _f, minRefreshMs: _m, nodeOptions, ...rest } = this.#options;
    let tls: http2.SecureClientSessionOptions | undefined = nodeOptions;
    // TLS checks the certificate against the target's name, not the address.
    if (scheme === "https" && this.#target.host && nodeOptions?.servername === undefined) {
      tls = { ...nodeOptions, servername: this.#target.host };
    }
    return createChannel({ ...rest, baseUrl: `${scheme}://${address}`, ...(tls ? { nodeOptions: tls } : {}) });
  }

  /** Resolves a DNS name again every refreshMs; the timer does not keep the process alive. */
  #schedule(): void {
    if (this.#closed || this.#target.addresses || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#refresh().catch(() => {});
    }, this.#options.refreshMs ?? 30_000);
    this.#timer.unref();
  }

  #close(how: (c: Channel) => void): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    for (const s of this.#subs) how(s.channel);
    this.#subs = [];
  }
}

/** How long an address that failed a call is passed over while others are up, in ms. */
const RETRY_MS = 1000;
