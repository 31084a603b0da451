/** Credentials never leave in error text (docs/security.md, "Secrets in errors"). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, redactSecrets } from "../../src/model/redact-secrets.js";

describe("(X5) redactSecrets", () => {
  it("replaces a configured secret wherever it appears", () => {
    expect(redactSecrets("key my-server-key was refused (my-server-key)", ["my-server-key"])).toBe(`key ${REDACTED} was refused (${REDACTED})`);
  });

  it("replaces bearer and basic credentials and common key shapes without being told them", () => {
    expect(redactSecrets("Authorization: Bearer abc.def-ghi, retry")).toBe(`Authorization: Bearer ${REDACTED}, retry`);
    expect(redactSecrets("basic dXNlcjpwYXNz")).toBe(`basic ${REDACTED}`);
    expect(redactSecrets("Incorrect API key provided: sk-proj-abcdefghijklmnop.")).toBe(`Incorrect API key provided: ${REDACTED}.`);
    expect(redactSecrets("x sk-ant-api03-AAAAAAAAAAAAAAAA y")).toBe(`x ${REDACTED} y`);
  });

  it("leaves prose about bearer tokens alone", () => {
    expect(redactSecrets("Missing bearer token")).toBe("Missing bearer token");
    expect(redactSecrets("Invalid Bearer authentication")).toBe("Invalid Bearer authentication");
  });

  it("leaves ordinary text and too-short secrets alone", () => {
    expect(redactSecrets("HTTP 500 Internal Server Error: the model is overloaded", ["ab", undefined, ""])).toBe("HTTP 500 Internal Server Error: the model is overloaded");
  });

  it("replaces a secret that contains another one whole", () => {
    expect(redactSecrets("secret-long-one", ["secret", "secret-long-one"])).toBe(REDACTED);
  });

  it("never leaves a configured secret in the result (property)", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 6, maxLength: 40 }).filter((s) => s.trim().length >= 6), fc.string(), fc.string(), (secret, before, after) => {
        expect(redactSecrets(`${before}${secret}${after}`, [secret])).not.toContain(secret);
      }),
    );
  });
});
