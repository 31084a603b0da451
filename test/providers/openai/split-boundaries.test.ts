/**
 * Property: however a recorded stream is cut into network writes, the provider produces the
 * same events (chunks split at arbitrary byte boundaries). Real HTTP on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { openaiCompatible } from "../../../src/providers/openai/index.js";
import type { AssistantMessageEvent } from "../../../src/model/messages.js";
import { collect, weatherContext } from "../support/collect.js";
import { fixture, splitAt, startTestServer, type TestServer } from "../support/http-server.js";

const untimed = (events: AssistantMessageEvent[]) => JSON.parse(JSON.stringify(events, (key, value) => (key === "timestamp" ? 0 : value)));

let server: TestServer;
let next: Uint8Array[] = [];
beforeAll(async () => {
  server = await startTestServer(() => ({ status: 200, headers: { "content-type": "text/event-stream" }, chunks: next, delayMs: 1 }));
});
afterAll(() => server.close());

describe("arbitrary byte boundaries over real HTTP", () => {
  for (const name of ["text-crlf.sse", "parallel-tool-calls.sse", "reasoning.sse"]) {
    it(`${name}: any split into writes gives the events of the unsplit stream`, async () => {
      const bytes = fixture(name);
      const streamFn = openaiCompatible({ baseUrl: `${server.url}/v1` });
      next = [bytes];
      const expected = untimed(await collect(streamFn, weatherContext()));
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }), async (offsets) => {
          next = splitAt(bytes, offsets);
          expect(untimed(await collect(streamFn, weatherContext()))).toEqual(expected);
        }),
        { numRuns: 15 },
      );
    });
  }
});
