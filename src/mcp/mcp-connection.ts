/**
 * A connected MCP server (SPEC MCP1, MCP2, MCP4): the SDK client, its tools as an Observable
 * list that follows `notifications/tools/list_changed`, and its end as a value, so the app
 * decides what a closed connection means (drop the tools, or reconnect).
 *
 * @module
 */
import { catchError, distinctUntilChanged, map, merge, type Observable, of, ReplaySubject, Subject, switchMap, takeUntil, throwError } from "rxjs";
import { Client, type ClientOptions } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ToolListChangedNotificationSchema, type ClientCapabilities, type Implementation, type ListChangedHandlers } from "@modelcontextprotocol/sdk/types.js";
import { describeError } from "../model/describe-error.js";
import { checkLimits, type McpLimits } from "./limits.js";
import { abortable, listAll } from "./list-tools.js";
import { mcpAgentTool, type McpAgentTool, type McpToolDefinition, type McpToolOptions } from "./mcp-tool.js";
import { uniqueToolNames } from "./tool-name.js";

/**
 * Options of {@link connectMcp} (and of the transport-specific connects). The limits
 * (`maxResultBytes`, `maxResultDepth`, `maxContentBlocks`, `maxListPages`, `maxTools`) bound what the server can
 * hand over; see {@link McpLimits}.
 */
export interface McpConnectOptions extends McpToolOptions, McpLimits {
  /** The server's name in tool details and error texts. Default: the name the server reports. */
  name?: string | undefined;
  /** How the client introduces itself. Default `{ name: "rxagent", version: "0.1.0" }`. */
  clientInfo?: Implementation | undefined;
  /** Capabilities the client declares (e.g. `roots`); default none. */
  capabilities?: ClientCapabilities | undefined;
  /**
   * Any other SDK client option (`jsonSchemaValidator` for a strict CSP, …). Not
   * `listChanged.tools`: the SDK would register it in place of the handler `tools$` follows
   * (subscribe to `tools$` instead); a connect given one rejects with a `TypeError`.
   */
  clientOptions?: Omit<ClientOptions, "capabilities" | "listChanged"> & { listChanged?: Omit<ListChangedHandlers, "tools"> | undefined } | undefined;
  /** How long the handshake may take. Default 60 000 ms (the SDK's). */
  connectTimeoutMs?: number | undefined;
  /**
   * How long `close()` waits for the server's goodbye (an HTTP session's `DELETE`) before it
   * closes the client anyway. Default {@link DEFAULT_CLOSE_TIMEOUT_MS}.
   */
  closeTimeoutMs?: number | undefined;
}

/** How long `close()` waits for the server to confirm the end of its session, by default. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;

/** How a connection ended. */
export interface McpClosed {
  /** `app`: `close()` was called; `server`: the transport closed by itself (the process exited, the stream ended). */
  by: "app" | "server";
}

/** The tools a plain `tools/call` can run: a tool that requires an MCP task cannot be called that way. */
const callable = (tool: McpToolDefinition): boolean => tool.execution?.taskSupport !== "required";

/**
 * A connected MCP server, made by {@link connectMcp} (or `connectMcpHttp`, `connectMcpStdio`).
 *
 * @example
 * ```ts
 * const server = await connectMcpHttp("http://127.0.0.1:3001/mcp", { prefix: "everything_" });
 * server.tools$.subscribe((tools) => (agent.state.tools = [...localTools, ...tools]));
 * await server.closed; // { by: "server" } when it went away
 * ```
 */
export class McpConnection<T extends Transport = Transport> {
  /**
   * The server's tools, now and after every change. Cold: each subscription lists the tools, then
   * lists again after every `notifications/tools/list_changed` (a listing still running is
   * cancelled by the next one), and emits when the list differs from the one before. Completes
   * when the connection closes; errors when a listing fails while it is open.
   *
   * ```text
   * list_changed   ─────────n──────────n─n──────────
   * tools/list     ─l───────────l──────────l────────
   * tools$         ─a───────────b──────────c───|      | : the connection closed
   * ```
   */
  readonly tools$: Observable<McpAgentTool[]>;
  /** Emits once, when the connection closes, then completes; replayed to late subscribers. */
  readonly closed$: Observable<McpClosed>;
  /** Resolves when the connection closes. */
  readonly closed: Promise<McpClosed>;
  /** Protocol errors the client reported (a line of garbage on stdout, a lost SSE stream, …). Hot. */
  readonly errors$: Observable<Error>;

  private readonly changes = new Subject<void>();
  private readonly ended = new ReplaySubject<McpClosed>(1);
  private readonly errors = new Subject<Error>();
  /** Set by `close()`: the transport closing now is the app's doing. */
  private closedByApp = false;
  private closing: Promise<void> | undefined;
  private open = true;

  /**
   * Made by `connectMcp` (and the transport-specific connects): the client is connected after
   * `start()`; `beforeClose` runs first in `close()` (an HTTP session's goodbye).
   *
   * @internal
   */
  constructor(
    /** The SDK client, for anything beyond tools (resources, prompts, …). */
    readonly client: Client,
    /** The transport the client speaks over. */
    readonly transport: T,
    private readonly options: McpConnectOptions = {},
    private readonly beforeClose?: () => Promise<void>,
    /** Credentials the transport sends (header values), kept out of failed calls' text. */
    private readonly secrets: readonly string[] = [],
  ) {
    this.closed$ = this.ended.asObservable();
    this.errors$ = this.errors.asObservable();
    this.closed = new Promise((resolve) => this.ended.subscribe(resolve));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.changes.next());
    client.onclose = () => this.end(this.closedByApp ? "app" : "server");
    client.onerror = (error) => this.errors.next(error);
    this.tools$ = merge(of(undefined), this.changes).pipe(
      switchMap(() => abortable((signal) => listAll(client, signal, options))),
      distinctUntilChanged((a, b) => JSON.stringify(a) === JSON.stringify(b)),
      map((definitions) => this.toTools(definitions)),
      takeUntil(this.ended),
      catchError((error: unknown) => throwError(() => new Error(`Could not list the tools of MCP server "${this.name}": ${describeError(error)}`))),
    );
  }

  /** The server's name: the `name` option, else what the server reported, else `"mcp"`. */
  get name(): string {
    return this.options.name ?? this.client.getServerVersion()?.name ?? "mcp";
  }

  /** Whether the connection is still open. */
  get isOpen(): boolean {
    return this.open;
  }

  /**
   * Connects the client over the transport (`connectMcp` does); rejects with the reason the handshake failed.
   *
   * @internal
   */
  async start(): Promise<this> {
    try {
      await this.client.connect(this.transport, this.options.connectTimeoutMs === undefined ? undefined : { timeout: this.options.connectTimeoutMs });
    } catch (error) {
      this.end("server");
      throw new Error(`Could not connect to MCP server${this.options.name ? ` "${this.options.name}"` : ""}: ${describeError(error)}`);
    }
    return this;
  }

  /**
   * The tools as they are now: one listing, as rxagent tools.
   *
   * @example
   * ```ts
   * agent.state.tools = await server.listTools();
   * ```
   */
  async listTools(signal?: AbortSignal): Promise<McpAgentTool[]> {
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal?.reason);
    // An aborted signal fires no more events: nothing is sent for it.
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort);
    try {
      return this.toTools(await listAll(this.client, controller.signal, this.options));
    } catch (error) {
      throw new Error(`Could not list the tools of MCP server "${this.name}": ${describeError(error)}`);
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Closes the connection (for stdio, the server process is ended; for HTTP, the session is
   * terminated: `close()` waits `closeTimeoutMs` at most for the server to confirm it). Calls
   * still running get an error result saying the app closed the connection; `closed` resolves
   * with `{ by: "app" }`.
   */
  close(): Promise<void> {
    if (!this.open) return Promise.resolve();
    if (!this.closing) {
      this.closedByApp = true;
      this.closing = this.shutDown();
    }
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    if (this.beforeClose) await this.sayGoodbye(this.beforeClose);
    try {
      await this.client.close();
    } finally {
      this.end("app");
    }
  }

  /**
   * Runs `goodbye`, waiting `closeTimeoutMs` at most: the HTTP session's `DELETE` shares the
   * transport's abort signal, which only closing the client aborts, so a server that never
   * answers it would hold `close()` forever. Failing or late, the connection closes anyway: a
   * server that cannot be told goodbye is gone for this client.
   */
  private async sayGoodbye(goodbye: () => Promise<void>): Promise<void> {
    const ms = this.options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.errors.next(new Error(`MCP server "${this.name}" did not confirm the end of its session within ${ms} ms; closing without it.`));
        resolve();
      }, ms);
    });
    const said = Promise.resolve()
      .then(goodbye)
      .catch(() => undefined);
    await Promise.race([said, late]);
    clearTimeout(timer);
  }

  private end(by: McpClosed["by"]): void {
    if (!this.open) return;
    this.open = false;
    this.ended.next({ by });
    this.ended.complete();
    this.changes.complete();
    this.errors.complete();
  }

  private toTools(definitions: McpToolDefinition[]): McpAgentTool[] {
    const { filter, prefix, timeoutMs, resetTimeoutOnProgress, maxTotalTimeoutMs, structuredContent, validator, maxResultBytes, maxResultDepth, maxContentBlocks } = this.options;
    const options: McpToolOptions = { prefix, timeoutMs, resetTimeoutOnProgress, maxTotalTimeoutMs, structuredContent, validator, maxResultBytes, maxResultDepth, maxContentBlocks };
    const offered = definitions.filter((tool) => callable(tool) && (filter ? filter(tool) : true));
    const names = uniqueToolNames(
      offered.map((tool) => tool.name),
      options.prefix,
    );
    const closedByApp = (): boolean => this.closedByApp;
    return offered.map((definition, index) => mcpAgentTool(this.client, definition, { ...options, server: this.name, name: names[index]!, closedByApp, secrets: this.secrets }));
  }
}

/**
 * Connects to an MCP server over any SDK transport and returns the connection. For the usual
 * transports see `connectMcpHttp` (this entry) and `connectMcpStdio` (`rxagent/mcp/stdio`).
 *
 * @example
 * ```ts
 * import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
 * const server = await connectMcp(new WebSocketClientTransport(new URL("ws://127.0.0.1:3002")), { prefix: "ws_" });
 * ```
 */
export async function connectMcp<T extends Transport>(transport: T, options: McpConnectOptions = {}): Promise<McpConnection<T>> {
  return new McpConnection(mcpClient(options), transport, options).start();
}

/**
 * The SDK client a connection uses, from the connect options; throws a `TypeError` for
 * `clientOptions.listChanged.tools` (see `McpConnectOptions.clientOptions`) and for a limit that
 * is not a positive integer.
 *
 * @internal
 */
export function mcpClient(options: McpConnectOptions): Client {
  checkLimits(options);
  if ((options.clientOptions?.listChanged as ListChangedHandlers | undefined)?.tools !== undefined) {
    throw new TypeError("clientOptions.listChanged.tools is not supported: the SDK would replace the handler McpConnection.tools$ follows. Subscribe to tools$ for the tool list as it changes.");
  }
  return new Client(options.clientInfo ?? { name: "rxagent", version: "0.1.0" }, { ...options.clientOptions, capabilities: options.capabilities ?? {} });
}
