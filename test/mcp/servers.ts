/**
 * The real MCP servers the tests start (`@modelcontextprotocol/server-everything` over stdio and
 * Streamable HTTP, `@modelcontextprotocol/server-filesystem` over stdio), and a wire tap: every
 * JSON-RPC message a client sends and receives, with the time, seen at the transport — below the
 * SDK, so what the server did (answered, withheld an answer, kept reporting progress) shows as it
 * happened on the wire.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ROOT } from "../examples/support.js";

export const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM = join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

/** Start server-everything over stdio: `node <bin> stdio` (its stderr piped, so the test output stays clean). */
export const everythingStdio = { command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "pipe" as const };

/** A port the OS says is free on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

/** server-everything over Streamable HTTP, listening on a free port. */
export interface HttpEverything {
  url: string;
  process: ChildProcess;
  /** What the server logged on stdout (one line per request it received, among others). */
  log(): string;
  stop(): Promise<void>;
}

/** Starts `node <bin> streamableHttp` with `PORT` set, and waits until it listens. */
export async function startEverythingHttp(): Promise<HttpEverything> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not start listening:\n${out}\n${err}`)), 20_000);
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
      if (/listening on port/.test(err)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}:\n${out}\n${err}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    process: child,
    log: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/** One message on the wire. */
export interface WireMessage {
  direction: "sent" | "received";
  at: number;
  message: JSONRPCMessage;
}

/** What a tap saw, with the questions the tests ask of it. */
export class Wire {
  readonly messages: WireMessage[] = [];

  record(direction: WireMessage["direction"], message: JSONRPCMessage): void {
    this.messages.push({ direction, at: Date.now(), message });
  }

  /** The id of the `tools/call` request sent for `tool` (the `nth`, from 0). */
  callId(tool: string, nth = 0): number | string | undefined {
    const calls = this.messages.filter((m) => m.direction === "sent" && "method" in m.message && m.message.method === "tools/call" && (m.message.params as { name?: string })?.name === tool);
    const message = calls[nth]?.message;
    return message && "id" in message ? message.id : undefined;
  }

  /** The response the server sent for request `id`, if one arrived. */
  response(id: number | string): WireMessage | undefined {
    return this.messages.find((m) => m.direction === "received" && "id" in m.message && m.message.id === id && !("method" in m.message));
  }

  /** The `notifications/cancelled` the client sent for request `id`. */
  cancellation(id: number | string): WireMessage | undefined {
    return this.messages.find((m) => m.direction === "sent" && "method" in m.message && m.message.method === "notifications/cancelled" && (m.message.params as { requestId?: unknown })?.requestId === id);
  }

  /** Progress notifications the server sent for the request whose token is `id` (the SDK uses the request id as the token). */
  progress(id: number | string): WireMessage[] {
    return this.messages.filter((m) => m.direction === "received" && "method" in m.message && m.message.method === "notifications/progress" && (m.message.params as { progressToken?: unknown })?.progressToken === id);
  }

  /** Every received message with `method`. */
  notifications(method: string): WireMessage[] {
    return this.messages.filter((m) => m.direction === "received" && "method" in m.message && m.message.method === method);
  }
}

/**
 * Taps a transport that is connected already (the SDK set its `onmessage`): wraps `send` and
 * `onmessage` in place.
 */
export function tapConnected(transport: Transport): Wire {
  const wire = new Wire();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    wire.record("sent", message);
    return send(message, options);
  };
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    wire.record("received", message);
    onmessage?.(message, extra);
  };
  return wire;
}

/** Options of {@link tapped}. */
export interface TapOptions {
  /**
   * Keep `notifications/initialized` back until `release()`: the connect still completes (the
   * SDK does not wait for an answer to a notification), and the server goes on as if the
   * client had not finished its handshake yet.
   */
  holdInitialized?: boolean;
  /** Rewrite what the server sent before the SDK reads it (a server that answers garbage). */
  rewrite?: (message: JSONRPCMessage) => unknown;
}

/** A transport around `inner` that records the wire; made before connecting. */
export function tapped<T extends Transport>(inner: T, options: TapOptions = {}): Transport & { wire: Wire; inner: T; release(): Promise<void> } {
  const wire = new Wire();
  let held: JSONRPCMessage | undefined;
  const outer: Transport & { wire: Wire; inner: T; release(): Promise<void> } = {
    wire,
    inner,
    start: () => {
      inner.onmessage = (message, extra) => {
        wire.record("received", message);
        outer.onmessage?.((options.rewrite ? options.rewrite(message) : message) as JSONRPCMessage, extra);
      };
      inner.onclose = () => outer.onclose?.();
      inner.onerror = (error) => outer.onerror?.(error);
      return inner.start();
    },
    send: (message, sendOptions) => {
      if (options.holdInitialized && "method" in message && message.method === "notifications/initialized" && !("id" in message)) {
        held = message;
        return Promise.resolve();
      }
      wire.record("sent", message);
      return inner.send(message, sendOptions);
    },
    close: () => inner.close(),
    setProtocolVersion: (version) => inner.setProtocolVersion?.(version),
    release: async () => {
      const message = held;
      held = undefined;
      if (!message) throw new Error("nothing was held back");
      wire.record("sent", message);
      await inner.send(message);
    },
  };
  return outer;
}

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `check()` holds, polling every 20 ms; rejects after `timeoutMs` with `what`. */
export async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** One HTTP exchange a {@link trackingFetch} saw. */
export interface HttpExchange {
  method: string;
  /** The `Last-Event-ID` header: a GET that resumes a stream. */
  lastEventId: string | null;
  /** The request body, when it was text. */
  body: string | undefined;
  status?: number;
  /** Whether the response body is still open: not read to its end, errored or cancelled. */
  open: boolean;
}

/**
 * The global `fetch`, recording every exchange and whether its response body is still open, as
 * seen by whoever reads it: the body ends when it is read to the end, errors or is cancelled.
 */
export function trackingFetch(): { fetch: FetchLike; exchanges: HttpExchange[]; open(): HttpExchange[] } {
  const exchanges: HttpExchange[] = [];
  const tracked: FetchLike = async (url, init) => {
    const exchange: HttpExchange = { method: (init?.method ?? "GET").toUpperCase(), lastEventId: new Headers(init?.headers).get("last-event-id"), body: typeof init?.body === "string" ? init.body : undefined, open: false };
    exchanges.push(exchange);
    const response = await fetch(url, init);
    exchange.status = response.status;
    if (!response.body) return response;
    exchange.open = true;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            exchange.open = false;
            controller.close();
          } else controller.enqueue(chunk.value);
        } catch (error) {
          exchange.open = false;
          controller.error(error);
        }
      },
      cancel(reason) {
        exchange.open = false;
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: tracked, exchanges, open: () => exchanges.filter((exchange) => exchange.open) };
}
