/**
 * A server process (bench/server-load/server.mjs) started and spoken to over IPC.
 *
 * @example
 * ```js
 * const server = await startServer();
 * const { heapUsed } = await server.ask({ type: "memory" });
 * server.stop();
 * ```
 */
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "server.mjs");

/**
 * Starts a server process with --expose-gc; resolves once it listens (with `backlog`: that listen
 * backlog, else Node's default). An unexpected end of it ends this process.
 */
export function startServer(backlog) {
  const child = fork(script, backlog ? [`--backlog=${backlog}`] : [], { execArgv: ["--expose-gc"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const waiting = new Map();
  let stopping = false;
  child.on("message", (message) => {
    const resolve = waiting.get(message.type);
    waiting.delete(message.type);
    resolve?.(message);
  });
  child.on("exit", (code, signal) => {
    if (stopping) return;
    process.stderr.write(`the server process ended (${code ?? signal}) before the benchmark did\n`);
    process.exit(1);
  });
  const ready = new Promise((resolve) => waiting.set("ready", resolve));
  return ready.then(({ port }) => ({
    port,
    /** Sends `message`; resolves with the server's answer of type `answer`. */
    ask: (message, answer = message.type) =>
      new Promise((resolve) => {
        waiting.set(answer, resolve);
        child.send(message);
      }),
    stop() {
      stopping = true;
      child.kill();
    },
  }));
}

/** The machine's count of connections its listen queues dropped (Linux, /proc/net/netstat); `undefined` elsewhere. */
export function listenOverflows() {
  try {
    const lines = readFileSync("/proc/net/netstat", "utf8").split("\n").filter((line) => line.startsWith("TcpExt:"));
    const names = lines[0].split(/\s+/);
    const values = lines[1].split(/\s+/);
    const value = Number(values[names.indexOf("ListenOverflows")]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
