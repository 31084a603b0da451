/// <reference types="node" />
/**
 * Serving a fetch-style handler from Node's `http` module (Node-only).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { redactSecrets } from "../../model/redact-secrets.js";
import { requestBodyStream } from "./node-body.js";

/** A fetch-style handler. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/**
 * Adapts `handler` to a Node `(req, res)` listener. The web `Request` gets a signal that fires
 * when the client disconnects, and a body that is a stream read from the socket only as the
 * handler reads it: nothing is buffered before the handler asks (so it can refuse a token or a
 * size first). A response sent before the body was read whole closes the connection, so an
 * unread upload ends with it. The `Response` body is streamed with backpressure, and cancelled
 * when the client goes away (so the proxy aborts its upstream request).
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { createProxyHandler } from "rxagent/proxy";
 * import { toNodeListener } from "rxagent/proxy/node";
 *
 * createServer(toNodeListener(createProxyHandler({ streamFn, models, token: process.env.PROXY_TOKEN }))).listen(8787);
 * ```
 * @param handler - The fetch-style handler.
 * @return A listener for `http.createServer` (or `app.post("/api/stream", listener)`).
 */
export function toNodeListener(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(handler, req, res).catch((error: unknown) => {
      // The handler's own words may hold secrets or internals: log them redacted, answer generically.
      console.error(`rxagent toNodeListener: ${redactSecrets(error instanceof Error ? error.message : String(error))}`);
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json", ...(req.complete ? {} : { connection: "close" }) });
        res.end(JSON.stringify({ error: "Internal server error" }));
      } else {
        res.destroy();
      }
    });
  };
}

async function handle(handler: FetchHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const clientGone = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) clientGone.abort();
  });

  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? "GET";
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  const hasBody = method !== "GET" && method !== "HEAD";
  // `duplex: "half"` is what fetch requires of a streamed request body.
  const init = { method, headers, body: hasBody ? requestBodyStream(req) : null, signal: clientGone.signal, duplex: "half" };
  const request = new Request(url, init as RequestInit);

  const response = await handler(request);
  const responseHeaders: string[] = [];
  response.headers.forEach((value, name) => responseHeaders.push(name, value));
  // Node would read and discard the rest of an unread upload to keep the connection: close it instead.
  if (!req.complete) responseHeaders.push("connection", "close");
  res.writeHead(response.status, response.statusText || undefined, responseHeaders);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  // One signal for the body's end, whatever the number of waits (each wait removes its listener).
  const bodyEnded = new AbortController();
  reader.closed.then(
    () => bodyEnded.abort(),
    () => bodyEnded.abort(),
  );
  clientGone.signal.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      // A body that ends with an error while the client does not read (a stream that drops a
      // slow reader) ends the response now, not when the client reads again.
      if (!res.write(value)) await drainedOrClosed(res, bodyEnded.signal);
    }
  } finally {
    clientGone.signal.removeEventListener("abort", cancel);
  }
  if (res.destroyed) cancel();
  else res.end();
}

/** What {@link drainedOrClosed} listens on: a response, a client request, any writable stream. */
interface Waitable {
  on(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
}

/**
 * Resolves when a writable stream (a response, a client request) drains or closes, leaving no
 * listener behind: a long stream waits many times.
 *
 * @internal
 * @example
 * ```ts
 * if (!res.write(chunk)) await drainedOrClosed(res);
 * ```
 */
export function drainedOrClosed(stream: Waitable, until?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (until?.aborted) return resolve();
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      until?.removeEventListener("abort", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
    until?.addEventListener("abort", done, { once: true });
  });
}
