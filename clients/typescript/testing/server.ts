/**
 * Test fixture: builds the toolguard server from this repository, runs it on
 * a free loopback port with a temporary workspace, and stops it with
 * SIGTERM, as scripts/e2e.sh does.
 *
 * It lives outside test/ because `node --test dist/test/` runs every .js
 * file under a test/ folder as a test file.
 */

import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** A running toolguard server. */
export interface ToolGuardServer {
  /** `host:port` the server listens on. */
  readonly address: string;
  /** The default workspace folder (`--workspace`). */
  readonly workspace: string;
  /** The server's temporary folder (holding the workspace, and what `prepare` wrote). */
  readonly dir: string;
  /** The repository root the server was built from. */
  readonly root: string;
  /** Everything the server has logged so far (JSON lines). */
  log(): string;
  /**
   * Sends SIGTERM and waits for the process to exit; returns its exit code
   * (null if a signal killed it). Removes the temporary folder.
   */
  stop(): Promise<number | null>;
}

const MODULE = "module github.com/toolguard/toolguard";

/** The repository root: the first folder above this file whose go.mod is toolguard's. */
export function findRepoRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const gomod = join(dir, "go.mod");
    if (existsSync(gomod) && readFileSync(gomod, "utf8").split("\n")[0]?.trim() === MODULE) {
      return dir;
    }
    if (dirname(dir) === dir) {
      throw new Error(`no go.mod of ${MODULE} above ${from}`);
    }
  }
}

/** The go command: $GO, else `go` on PATH, else /usr/local/go/bin/go. */
function goCommand(): string {
  if (process.env.GO) return process.env.GO;
  const onPath = (process.env.PATH ?? "").split(":").some((d) => d && existsSync(join(d, "go")));
  return onPath || !existsSync("/usr/local/go/bin/go") ? "go" : "/usr/local/go/bin/go";
}

function run(cmd: string, args: string[], cwd: string): Promise<void> {
  return new Promise((res, rej) => {
    const p = spawn(cmd, args, { cwd, stdio: ["ignore", "inherit", "pipe"] });
    let stderr = "";
    p.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    p.on("error", rej);
    p.on("exit", (code, signal) =>
      code === 0 ? res() : rej(new Error(`${cmd} ${args.join(" ")}: exit ${code ?? signal}\n${stderr}`)),
    );
  });
}

/**
 * Builds `./cmd/toolguard` of the repository at root into bin, unless
 * $TOOLGUARD_BIN names a binary already built (then bin is that one).
 */
export async function buildToolguard(bin: string, root: string = findRepoRoot()): Promise<void> {
  if (!process.env.TOOLGUARD_BIN) {
    await run(goCommand(), ["build", "-o", bin, "./cmd/toolguard"], root);
  }
}

/** Options of {@link startServer}. */
export interface StartOptions {
  /** More flags for `toolguard serve`. */
  args?: string[];
  /**
   * Called with the server's temporary folder before it starts, to write
   * the files its flags name (a tokens file, TLS certificates); returns
   * those flags, which follow `args`. The folder is removed at stop.
   */
  prepare?(dir: string): string[] | Promise<string[]>;
  /** How long to wait for the "serving gRPC" log line, in ms (default 30 s). */
  readyTimeoutMs?: number;
}

/**
 * Builds `./cmd/toolguard` (once per call, into a temporary folder; or uses
 * the binary named by $TOOLGUARD_BIN) and starts `toolguard serve --listen 127.0.0.1:0 --workspace <tmp>/workspace
 * --log-format json`, resolving once the server has logged its address.
 */
export async function startServer(options: StartOptions = {}): Promise<ToolGuardServer> {
  const root = findRepoRoot();
  const tmp = await mkdtemp(join(tmpdir(), "toolguard-ts-"));
  const bin = process.env.TOOLGUARD_BIN ? resolve(process.env.TOOLGUARD_BIN) : join(tmp, "toolguard");
  const workspace = join(tmp, "workspace");
  await mkdir(workspace);
  let prepared: string[] = [];
  try {
    await buildToolguard(bin, root);
    if (options.prepare) prepared = await options.prepare(tmp);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }

  const child = spawn(
    bin,
    [
      "serve",
      "--listen",
      "127.0.0.1:0",
      "--workspace",
      workspace,
      "--log-format",
      "json",
      ...(options.args ?? []),
      ...prepared,
    ],
    { cwd: tmp, stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  const exited = new Promise<number | null>((res) => child.on("exit", (code) => res(code)));

  const address = await new Promise<string>((res, rej) => {
    let pending = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      rej(new Error(`toolguard did not report its address in time; log:\n${log}`));
    }, options.readyTimeoutMs ?? 30_000);
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      log += chunk;
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const addr = servingAddress(line);
        if (addr) {
          clearTimeout(timer);
          res(addr);
        }
      }
    });
    child.on("error", (err) => {
      clearTimeout(timer);
      rej(err);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      rej(new Error(`toolguard exited early (${code}); log:\n${log}`));
    });
  }).catch(async (err) => {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  });

  let stopped: Promise<number | null> | undefined;
  const server: ToolGuardServer = {
    address,
    workspace,
    dir: tmp,
    root,
    log: () => log,
    stop(): Promise<number | null> {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
        const code = await exited;
        await rm(tmp, { recursive: true, force: true });
        return code;
      })();
      return stopped;
    },
  };
  return server;
}

/** The address of a `"msg":"serving gRPC"` JSON log line, else undefined. */
export function servingAddress(line: string): string | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const entry = JSON.parse(line) as { msg?: unknown; address?: unknown };
    if (entry.msg === "serving gRPC" && typeof entry.address === "string" && entry.address !== "") {
      return entry.address;
    }
  } catch {
    // Not JSON: ignore.
  }
  return undefined;
}
