/**
 * The browser side of the proxy against a proxy that never stops (a compromised or broken
 * server): the same caps as `openaiCompatible`, the request cancelled, memory bounded.
 */
import { lastValueFrom, reduce } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import type { AssistantMessageEvent } from "../../../src/model/messages.js";
import { streamProxy } from "../../../src/providers/proxy/index.js";
import { getProviderFailure } from "../../../src/providers/shared/provider-failure.js";
import { events$, finalMessage, weatherContext } from "../support/collect.js";
import { startEndlessServer, type EndlessServer } from "../openai/endless-server.js";

const MiB = 1 << 20;
let server: EndlessServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("(X3) streamProxy: memory bounds", () => {
  it("a line that never ends stops at maxLineBytes with a non-retryable error naming streamProxy; the proxy sees the cancel; RSS stays bounded", async () => {
    const s = (server = await startEndlessServer({ head: "data: ", piece: "x".repeat(64 * 1024), ceilingBytes: 50 * MiB, tail: "\n\n" }));
    const before = process.memoryUsage().rss;
    const streamFn = streamProxy({ url: `${s.url}/api/stream`, authToken: "t", maxLineBytes: MiB });
    const last = await lastValueFrom(events$(streamFn, weatherContext()).pipe(reduce((_, event: AssistantMessageEvent) => event, undefined as AssistantMessageEvent | undefined)));
    await s.settled;
    const message = finalMessage([last!]);
    expect(message.errorMessage).toBe("A line of the event stream exceeded maxLineBytes (1048576 bytes) without ending; raise the limit with streamProxy({ maxLineBytes })");
    expect(getProviderFailure(message)).toEqual({ kind: "protocol", retryable: false });
    expect(s.clientClosed()).toBe(true);
    expect(s.peakRss() - before).toBeLessThan(100 * MiB);
  });

  it("a cap that is not a positive number is refused when the StreamFn is created", () => {
    expect(() => streamProxy({ url: "/api/stream", maxResponseBytes: 0 })).toThrow("streamProxy: maxResponseBytes must be a positive number of bytes (or Infinity), got 0");
  });
});
