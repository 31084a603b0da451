/**
 * The `fetch` `connectMcpHttp` gives the SDK's Streamable HTTP transport (SPEC MCP4): it ends the
 * HTTP exchange of every request the client cancels or times out.
 *
 * Over Streamable HTTP a request is a POST whose response stays open until the server answers,
 * and a server told of a cancellation never answers. The SDK sends `notifications/cancelled` but
 * reads each response with the transport's one abort signal, so the POST would stay open until
 * `close()`; a browser on HTTP/1.1 runs out of connections after a few Stop presses. Here each
 * request's POST gets a signal of its own, keyed by the JSON-RPC id in its body, and the POST
 * that carries `notifications/cancelled` for that id ends it.
 *
 * The SDK resumes a response stream that ends before its answer when the stream carried event
 * ids (GET with `Last-Event-ID`), which would open the same never-answered stream again. The
 * ids a cancelled stream carried are kept, and such a GET is answered here with 405, the
 * answer the SDK takes as "no stream to resume".
 *
 * @module
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

type RequestId = string | number;

/** One request's POST, from the fetch to the end of its response body. */
interface Exchange {
  readonly controller: AbortController;
  cancelled: boolean;
  /** Ends the body the SDK reads as a server that closed it would; set once the response came. */
  end?: () => void;
  /** The last event ids the response carried: the SDK resumes a stream from its last one. */
  readonly eventIds: string[];
}

/** How many ids the bounded sets below keep: enough for any burst of cancels, never a leak. */
const KEPT = 256;
/** Event ids kept per stream (the SDK resumes from the last one it parsed; a few cover a partly read event). */
const IDS_PER_STREAM = 8;

function remember<T>(set: Set<T>, value: T): void {
  set.add(value);
  if (set.size > KEPT) set.delete(set.values().next().value as T);
}

/** What a POST body is to this fetch: a request (its id), a cancellation (the id it cancels), or anything else. */
function classify(body: unknown): { request: RequestId } | { cancels: RequestId } | undefined {
  // The SDK sends each message as its own JSON text; a batch (an array) or a form (OAuth) is left alone.
  if (typeof body !== "string" || !body.startsWith("{")) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  const { method, id, params } = message as { method?: unknown; id?: unknown; params?: { requestId?: unknown } };
  if (typeof method !== "string") return undefined;
  const isId = (value: unknown): value is RequestId => typeof value === "string" || typeof value === "number";
  if (isId(id)) return { request: id };
  if (method === "notifications/cancelled" && isId(params?.requestId)) return { cancels: params.requestId };
  return undefined;
}

/** Collects the `id:` fields of a server-sent event stream as its bytes pass. */
class EventIdReader {
  private readonly decoder = new TextDecoder();
  private partial = "";

  constructor(private readonly ids: string[]) {}

  read(chunk: Uint8Array): void {
    const lines = (this.partial + this.decoder.decode(chunk, { stream: true })).split(/\r\n|\r|\n/);
    this.partial = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("id:")) continue;
      const id = line.slice(line.startsWith("id: ") ? 4 : 3);
      if (id === "" || id.includes("\0")) continue;
      this.ids.push(id);
      if (this.ids.length > IDS_PER_STREAM) this.ids.shift();
    }
  }
}

/** `source` as the SDK reads it, with the exchange able to end it; `done` runs once, when it ends either way. */
function watchedBody(source: ReadableStream<Uint8Array>, exchange: Exchange, done: () => void): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const ids = new EventIdReader(exchange.eventIds);
  let over = false;
  const finish = (): boolean => {
    if (over) return false;
    over = true;
    done();
    return true;
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      exchange.end = () => {
        if (!finish()) return;
        // A clean end, not an error: the SDK reports a stream that errors as a lost connection.
        controller.close();
        reader.cancel().catch(() => undefined);
      };
    },
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (finish()) controller.error(error);
        return;
      }
      if (over) return;
      if (chunk.done) {
        finish();
        controller.close();
        return;
      }
      ids.read(chunk.value);
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
}

/** The answer for a request the client gave up on before its response: no body, which the SDK reads as "nothing to wait for". */
const accepted = (): Response => new Response(null, { status: 202 });

/**
 * `base` (default: the global `fetch`, looked up per call) with each request's POST ended when
 * the client cancels that request, and no resumption of a stream ended that way.
 *
 * @internal
 */
export function cancellingFetch(base?: FetchLike): FetchLike {
  const open = new Map<RequestId, Exchange>();
  /** Cancellations that came before their request reached this fetch (an auth provider's await can reorder them). */
  const cancelledEarly = new Set<RequestId>();
  /** Event ids of cancelled streams: a GET resuming from one is refused. */
  const refused = new Set<string>();

  const cancel = (id: RequestId): void => {
    const exchange = open.get(id);
    if (!exchange) {
      remember(cancelledEarly, id);
      return;
    }
    exchange.cancelled = true;
    for (const eventId of exchange.eventIds) remember(refused, eventId);
    exchange.controller.abort();
    exchange.end?.();
  };

  const send = async (fetchFn: FetchLike, id: RequestId, url: string | URL, init: RequestInit | undefined): Promise<Response> => {
    if (cancelledEarly.delete(id)) return accepted();
    const controller = new AbortController();
    const exchange: Exchange = { controller, cancelled: false, eventIds: [] };
    // The transport's own signal (its close()) still ends every exchange.
    const outer = init?.signal;
    const forward = (): void => controller.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener("abort", forward, { once: true });
    open.set(id, exchange);
    const done = (): void => {
      outer?.removeEventListener("abort", forward);
      if (open.get(id) === exchange) open.delete(id);
    };
    let response: Response;
    try {
      response = await fetchFn(url, { ...init, signal: controller.signal });
    } catch (error) {
      done();
      if (exchange.cancelled) return accepted();
      throw error;
    }
    if (exchange.cancelled) {
      done();
      response.body?.cancel().catch(() => undefined);
      return accepted();
    }
    // A response that answers a request is a 200 with a body (a stream or JSON); anything else is the SDK's to read as is.
    if (response.status !== 200 || !response.body) {
      done();
      return response;
    }
    return new Response(watchedBody(response.body, exchange, done), { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  return (url, init) => {
    const fetchFn = base ?? fetch;
    const method = (init?.method ?? "GET").toUpperCase();
    if (method === "GET") {
      const resumeFrom = new Headers(init?.headers).get("last-event-id");
      if (resumeFrom !== null && refused.delete(resumeFrom)) return Promise.resolve(new Response(null, { status: 405 }));
      return fetchFn(url, init);
    }
    const message = method === "POST" ? classify(init?.body) : undefined;
    if (message && "request" in message) return send(fetchFn, message.request, url, init);
    if (message && "cancels" in message) {
      // The cancellation is on its way first; ending the POST it cancels then frees a connection
      // for it, should the browser have none left.
      const sent = fetchFn(url, init);
      cancel(message.cancels);
      return sent;
    }
    return fetchFn(url, init);
  };
}
