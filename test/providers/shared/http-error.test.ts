/**
 * httpFailure: the status line and the provider's message, read from at most a bounded start
 * of the body, with the caller's secrets redacted.
 */
import { describe, expect, it } from "vitest";
import { httpFailure, MAX_ERROR_BODY_BYTES } from "../../../src/providers/shared/http-error.js";

describe("(X5) httpFailure", () => {
  it("redacts the caller's secrets and credential shapes from the detail", async () => {
    const response = new Response("proxy token my-proxy-token-1 refused, Bearer abc.def.ghi", { status: 403, statusText: "Forbidden" });
    const failure = await httpFailure(response, 0, "Proxy error: ", ["my-proxy-token-1"]);
    expect(failure.message).toBe("Proxy error: HTTP 403 Forbidden: proxy token [redacted] refused, Bearer [redacted]");
    expect(failure.failure).toEqual({ kind: "http", status: 403, retryable: false });
  });

  it("an endless error body: reads at most MAX_ERROR_BODY_BYTES (64 KiB), then cancels it", async () => {
    let pulled = 0;
    let cancelled = false;
    const piece = new TextEncoder().encode("y".repeat(4096));
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += piece.length;
        controller.enqueue(piece);
      },
      cancel() {
        cancelled = true;
      },
    });
    const failure = await httpFailure(new Response(body, { status: 502, statusText: "Bad Gateway" }), 0);
    expect(MAX_ERROR_BODY_BYTES).toBe(64 * 1024);
    // One unbroken word: the cut never splits a word (a key cut in two would escape redaction), so none of it is shown.
    expect(failure.message).toBe("HTTP 502 Bad Gateway: …");
    expect(failure.failure).toMatchObject({ status: 502, retryable: true });
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES + 2 * piece.length);
  });

  it("a key that straddles the cut of a long message is redacted whole, no prefix of it left", async () => {
    const key = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6";
    for (const at of [985, 990, 995, 999]) {
      const message = `${"word ".repeat(at / 5)}`.slice(0, at) + key + " and more text after it";
      const failure = await httpFailure(new Response(JSON.stringify({ error: { message } }), { status: 401 }), 0, "", [key]);
      expect(failure.message).not.toContain(key.slice(0, 6));
    }
  });

  it("a body that fails mid-read still gives the status", async () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error("socket hang up"));
      },
    });
    const failure = await httpFailure(new Response(body, { status: 503, statusText: "Service Unavailable" }), 0);
    expect(failure.message).toBe("HTTP 503 Service Unavailable");
  });
});
