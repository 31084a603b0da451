/**
 * The PostgreSQL store's names checked before any query (SPEC S2): schema and table names that
 * PostgreSQL would silently cut to 63 bytes (two tenants' stores would then share tables), and
 * session ids the database cannot hold. No server is needed: a pool that records what it is
 * asked shows that nothing reached it.
 */
import { describe, expect, it } from "vitest";
import { SessionIdError } from "../../src/session/session-errors.js";
import { PostgresSessionStore, type PostgresQueryable } from "../../src/session/stores/postgres-store.js";
import { created, failure } from "./store-contract.js";

/** A connection that records each query and answers none. */
function recordingConnection(): PostgresQueryable & { queries: string[] } {
  const queries: string[] = [];
  return {
    queries,
    query: async (text: string) => {
      queries.push(text);
      throw new Error("the test's connection answers no query");
    },
  };
}

describe("(X6) postgres store: identifiers PostgreSQL would cut short", () => {
  it("two 70-character schema names that differ after 63 characters are refused at construction, not merged", () => {
    const pool = recordingConnection();
    const base = "tenant_".padEnd(64, "x");
    for (const schema of [`${base}_alpha`, `${base}_bravo`]) {
      expect(() => new PostgresSessionStore({ pool, schema })).toThrow(/schema name .* is 70 bytes; PostgreSQL keeps at most 63 bytes of a name/);
    }
    expect(pool.queries).toEqual([]);
  });

  it("a table prefix that makes a table name over 63 bytes, and a schema of 64 bytes in UTF-8, are refused; 63 bytes are accepted", () => {
    const pool = recordingConnection();
    expect(() => new PostgresSessionStore({ pool, tablePrefix: "p".repeat(56) })).toThrow(/table name .*sessions" is 64 bytes/);
    expect(() => new PostgresSessionStore({ pool, schema: "é".repeat(32) })).toThrow(/is 64 bytes/);
    expect(() => new PostgresSessionStore({ pool, schema: "s".repeat(63), tablePrefix: "p".repeat(55) })).not.toThrow();
  });
});

describe("(X6) postgres store: session ids checked before any query", () => {
  it("an id with NUL, a lone surrogate, no character or over 512 characters is a SessionIdError; nothing reaches the database", async () => {
    const pool = recordingConnection();
    const store = new PostgresSessionStore({ pool });
    for (const [id, rule] of [
      ["a\u0000b", /NUL/],
      ["a\ud800", /well-formed UTF-16/],
      ["", /empty/],
      ["x".repeat(513), /at most 512 characters/],
    ] as const) {
      const calls = [
        () => store.load(id),
        () => store.append(id, [created(id)], { expectedSeq: 0, token: 0, ttlMs: 1000 }),
        () => store.acquire(id, { owner: "o", ttlMs: 1000 }),
        () => store.release(id, 1),
        () => store.delete(id),
      ];
      for (const call of calls) {
        const error = await failure(call);
        expect(error).toBeInstanceOf(SessionIdError);
        expect((error as Error).message).toMatch(rule);
      }
    }
    expect(pool.queries).toEqual([]);
  });
});
