/** truncate: error texts are cut to a readable size, never inside a word (docs/security.md, "Secrets stay out of error text"). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonText, truncate } from "../../../src/providers/shared/stream-failure.js";
import { redactSecrets } from "../../../src/model/redact-secrets.js";

describe("(X5) truncate", () => {
  it("keeps a short text, cuts a long one at the last break before the limit", () => {
    expect(truncate("short", 10)).toBe("short");
    expect(truncate("one two three four", 10)).toBe("one two …");
    expect(truncate("Incorrect API key provided: sk-abcdefghijklmnopqrstuvwxyz", 40)).toBe("Incorrect API key provided: …");
  });

  it("a secret anywhere in the text leaves no 6-character prefix of itself once cut and redacted (property)", () => {
    const secret = "Zq9xW2vB7nM4kL1p";
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 }), fc.integer({ min: 1, max: 200 }), (before, after, max) => {
        const shown = redactSecrets(truncate(`${before} ${secret} ${after}`, max), [secret]);
        expect(shown).not.toContain(secret.slice(0, 6));
      }),
    );
  });
});

describe("(X5) jsonText", () => {
  it("renders JSON, and names what JSON cannot render instead of throwing (a 100 000-deep value, a BigInt, a cycle)", () => {
    expect(jsonText({ a: 1 })).toBe('{"a":1}');
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const value of [deep, 1n, cycle]) expect(jsonText(value)).toBe("(a value that cannot be shown as JSON)");
  });
});
