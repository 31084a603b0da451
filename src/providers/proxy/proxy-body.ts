/**
 * Reading a proxy request's body within bounds: a size cap checked against `Content-Length`
 * before anything is read and again while reading, and a deadline for the whole read. Runs in
 * browsers' and workers' runtimes too (web streams and timers only).
 *
 * @module
 */

/** Why a body read was refused, as the status and text for the client. */
export interface BodyRefusal {
  status: 408 | 413;
  error: string;
}

/**
 * The `413` for a request whose declared `Content-Length` is over `maxBytes`, before any of it
 * is read; `undefined` when it is within the cap or not declared (chunked).
 */
export function declaredTooLarge(request: Request, maxBytes: number): BodyRefusal | undefined {
  const declared = request.headers.get("content-length");
  if (declared === null || !/^\s*\d+\s*$/.test(declared) || Number(declared) <= maxBytes) return undefined;
  return tooLarge(maxBytes);
}

function tooLarge(maxBytes: number): BodyRefusal {
  return { status: 413, error: `The request body is larger than ${maxBytes} bytes` };
}

/**
 * The body as text, read chunk by chunk: stops at `maxBytes` (413) or when `timeoutMs` passes
 * (408), cancelling the read so nothing more is taken from the client.
 *
 * @example
 * ```ts
 * const text = await readBodyText(request, 1 << 20, 30_000);
 * if (typeof text !== "string") return new Response(text.error, { status: text.status });
 * ```
 */
export async function readBodyText(request: Request, maxBytes: number, timeoutMs: number): Promise<string | BodyRefusal> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void reader.cancel().catch(() => undefined);
  }, timeoutMs);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (timedOut) return { status: 408, error: `The request body did not arrive within ${timeoutMs} ms` };
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        void reader.cancel().catch(() => undefined);
        return tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (timedOut) return { status: 408, error: `The request body did not arrive within ${timeoutMs} ms` };
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const all = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}
