/**
 * Who may use the proxy: the bearer token of a request, compared in constant time with the
 * configured one, and how many streams each token may hold open. Web Crypto only, so it runs
 * wherever the handler does.
 *
 * @module
 */

/**
 * The bearer token of a request, or `undefined` when there is none, or it is blank after
 * trimming (a `Bearer` header of only spaces or U+00A0 is no token).
 */
export function bearerToken(request: Request): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "");
  const token = match?.[1]!.trim();
  return token ? token : undefined;
}

/**
 * Checks a configured token and returns a matcher for it. Throws on an empty or blank token:
 * `PROXY_TOKEN=` in an env file must not mean "any blank bearer".
 *
 * @example
 * ```ts
 * const matches = tokenMatcher(process.env.PROXY_TOKEN!);
 * if (!(await matches(bearerToken(request)))) return unauthorized();
 * ```
 */
export function tokenMatcher(configured: string): (token: string | undefined) => Promise<boolean> {
  if (typeof configured !== "string" || configured.trim() === "") {
    throw new TypeError("createProxyHandler: `token` is empty; set a non-blank token (e.g. PROXY_TOKEN) or use `authorize`");
  }
  const expected = digest(configured);
  return async (token) => {
    if (token === undefined) return false;
    // Equal-length digests compared without an early exit: the time says nothing of where they differ.
    const [a, b] = await Promise.all([expected, digest(token)]);
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
    return diff === 0;
  };
}

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/**
 * Open streams per bearer token (or per `slotKey`). `acquire` takes a slot, or returns `undefined` when the key
 * already holds `limit`; the returned release frees it once, however often it is called.
 */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(readonly limit: number) {}

  /** Takes a slot for `token`, or `undefined` when it holds `limit` already. */
  acquire(token: string | undefined): (() => void) | undefined {
    const key = token ?? "";
    const held = this.open.get(key) ?? 0;
    if (held >= this.limit) return undefined;
    this.open.set(key, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    };
  }
}
