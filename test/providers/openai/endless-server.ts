/**
 * A hostile HTTP server on 127.0.0.1 for the memory-bound tests: it writes one piece over and
 * over, as fast as the client reads (it waits for `drain`, so its own memory stays flat), until
 * the client closes the connection or a ceiling is reached. It records whether the client
 * went away first, how many bytes it wrote, and the highest RSS of this process it saw.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { drainedOrClosed } from "../../../src/providers/proxy/node-listener.js";

/** What to send. */
export interface EndlessBody {
  status?: number;
  headers?: Record<string, string>;
  /** Written once, first. */
  head?: string;
  /** Written again and again. */
  piece: string;
  /** Stop after this many bytes (a ceiling so a client that never stops still ends). */
  ceilingBytes: number;
  /** Written after the ceiling, before ending the response. */
  tail?: string;
}

/** A running endless server. */
export interface EndlessServer {
  url: string;
  /** Bytes written to the current (last) response. */
  bytesWritten(): number;
  /** True when the client closed the connection before the response ended. */
  clientClosed(): boolean;
  /** Resolves when the response ended or the client closed it. */
  settled: Promise<void>;
  /** The highest `process.memoryUsage().rss` sampled while writing. */
  peakRss(): number;
  close(): Promise<void>;
}

/** Starts a server answering every request with `body`. */
export async function startEndlessServer(body: EndlessBody): Promise<EndlessServer> {
  let written = 0;
  let closedByClient = false;
  let peak = process.memoryUsage().rss;
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => void write(res));
  });

  async function write(res: ServerResponse): Promise<void> {
    let finished = false;
    res.on("finish", () => (finished = true));
    res.on("close", () => {
      if (!finished) closedByClient = true;
      settle();
    });
    res.writeHead(body.status ?? 200, body.headers ?? { "content-type": "text/event-stream" });
    const piece = Buffer.from(body.piece);
    const send = async (bytes: Buffer): Promise<boolean> => {
      if (res.destroyed) return false;
      written += bytes.length;
      if (!res.write(bytes)) await drainedOrClosed(res);
      return !res.destroyed;
    };
    if (body.head !== undefined && !(await send(Buffer.from(body.head)))) return;
    let sinceSample = 0;
    while (written < body.ceilingBytes) {
      if (!(await send(piece))) return;
      sinceSample += piece.length;
      if (sinceSample >= 1 << 20) {
        sinceSample = 0;
        peak = Math.max(peak, process.memoryUsage().rss);
      }
    }
    if (body.tail !== undefined && !(await send(Buffer.from(body.tail)))) return;
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bytesWritten: () => written,
    clientClosed: () => closedByClient,
    settled,
    peakRss: () => Math.max(peak, process.memoryUsage().rss),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
