/**
 * A real HTTP server on 127.0.0.1 (port 0) for provider tests: it records every request and
 * answers from a script, writing recorded bodies byte-for-byte in the pieces the test chose,
 * with pauses between them so they reach the client as separate reads.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { afterEach } from "vitest";

/** A request the server received. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  json(): any;
}

/** How to answer one request. */
export interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  /** The body, written piece by piece. */
  chunks?: (string | Uint8Array)[];
  /** Pause between pieces, in ms. Default 2. */
  delayMs?: number;
  /** Destroy the connection before sending anything (a network failure for the client). */
  dropConnection?: boolean;
  /** After the pieces, destroy the socket instead of ending the response. */
  destroy?: boolean;
  /** After the pieces, keep writing `drip` every `delayMs` until the client goes away. */
  drip?: string;
}

/** A running test server. */
export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  /** Requests whose connection the client closed before the response ended, by index. */
  clientClosed: number[];
  /** Resolves when the client closes the connection of request `index` before the response ended. */
  waitForClientClose(index: number): Promise<void>;
  close(): Promise<void>;
}

const FIXTURES = new URL("../fixtures/", import.meta.url);

/** The bytes of a recorded fixture. */
export function fixture(name: string): Buffer {
  return readFileSync(new URL(name, FIXTURES));
}

/** Splits bytes into pieces at the given offsets. */
export function splitAt(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const offset of [...offsets].sort((a, b) => a - b)) {
    if (offset <= start || offset >= bytes.length) continue;
    pieces.push(bytes.subarray(start, offset));
    start = offset;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

/** An SSE response from a fixture, optionally split into pieces. */
export function sseResponse(name: string, pieces?: (bytes: Buffer) => Uint8Array[]): ScriptedResponse {
  const bytes = fixture(name);
  return {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
    chunks: pieces ? pieces(bytes) : [bytes],
  };
}

/** A JSON error response from a fixture. */
export function errorResponse(status: number, name: string, headers: Record<string, string> = {}): ScriptedResponse {
  return { status, headers: { "content-type": "application/json", ...headers }, chunks: [fixture(name)] };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Starts a server that answers request `i` with `script(request, i)`.
 */
export async function startTestServer(script: (request: RecordedRequest, index: number) => ScriptedResponse | Promise<ScriptedResponse>): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const clientClosed: number[] = [];
  const closeWaiters = new Map<number, () => void>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const body = Buffer.concat(parts).toString("utf8");
      const recorded: RecordedRequest = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, json: () => JSON.parse(body) };
      const index = requests.push(recorded) - 1;
      let finished = false;
      res.on("finish", () => (finished = true));
      res.on("close", () => {
        if (!finished) {
          clientClosed.push(index);
          closeWaiters.get(index)?.();
        }
      });
      void respond(res, script, recorded, index).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    clientClosed,
    waitForClientClose(index) {
      if (clientClosed.includes(index)) return Promise.resolve();
      return new Promise<void>((resolve) => closeWaiters.set(index, resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function respond(
  res: ServerResponse,
  script: (request: RecordedRequest, index: number) => ScriptedResponse | Promise<ScriptedResponse>,
  request: RecordedRequest,
  index: number,
): Promise<void> {
  const answer = await script(request, index);
  if (answer.dropConnection) {
    res.socket?.destroy();
    return;
  }
  res.writeHead(answer.status ?? 200, answer.headers ?? {});
  res.flushHeaders();
  const delay = answer.delayMs ?? 2;
  for (const piece of answer.chunks ?? []) {
    if (res.destroyed) return;
    res.write(piece);
    await sleep(delay);
  }
  if (answer.drip !== undefined) {
    while (!res.destroyed) {
      res.write(answer.drip);
      await sleep(delay);
    }
    return;
  }
  if (answer.destroy) res.destroy();
  else res.end();
}

/**
 * For the tests of one file: `serve(...responses)` starts a server answering request `i` with
 * `responses[i]` (the last one repeats), and each test's server is closed after it.
 */
export function scriptedServers(): (...responses: ScriptedResponse[]) => Promise<TestServer> {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async (...responses) => (server = await startTestServer((_request, index) => responses[Math.min(index, responses.length - 1)]!));
}
