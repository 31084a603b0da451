/**
 * SQL identifiers of the PostgreSQL store: its schema and table names, quoted so that any name is
 * taken literally, and refused when PostgreSQL would cut them short (it keeps 63 bytes of a name
 * and silently drops the rest, so two long names could name the same tables).
 *
 * @module
 */

/** PostgreSQL's NAMEDATALEN - 1: the bytes of a name it keeps. */
export const MAX_IDENTIFIER_BYTES = 63;

/**
 * `identifier`, quoted; throws `TypeError` for a name PostgreSQL cannot take as it is: empty,
 * holding NUL, or over {@link MAX_IDENTIFIER_BYTES} bytes of UTF-8.
 *
 * @param what What the name is, for the error: "schema name", "table name".
 * @example
 * ```ts
 * quoteIdentifier("my schema", "schema name"); // "\"my schema\""
 * ```
 */
export function quoteIdentifier(identifier: string, what: string): string {
  if (typeof identifier !== "string" || identifier === "" || identifier.includes("\u0000")) throw new TypeError(`PostgresSessionStore: ${JSON.stringify(identifier)} cannot be a ${what}: it must be a non-empty string without NUL.`);
  const bytes = new TextEncoder().encode(identifier).length;
  if (bytes > MAX_IDENTIFIER_BYTES) {
    throw new TypeError(`PostgresSessionStore: the ${what} ${JSON.stringify(identifier)} is ${bytes} bytes; PostgreSQL keeps at most ${MAX_IDENTIFIER_BYTES} bytes of a name and would silently cut it (two names alike in their first ${MAX_IDENTIFIER_BYTES} bytes would share tables). Use a shorter schema or tablePrefix.`);
  }
  return `"${identifier.replace(/"/g, '""')}"`;
}

/**
 * FNV-1a, as a signed 32-bit integer: a stable advisory lock key per schema and prefix.
 *
 * @example
 * ```ts
 * hash32("rxagent\u0000"); // the same number in every process
 * ```
 */
export function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193);
  return hash | 0;
}

/**
 * The SQLSTATE of a pg error, if it is one.
 *
 * @example
 * ```ts
 * if (pgCode(error) === "23505") retry();
 * ```
 */
export function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
