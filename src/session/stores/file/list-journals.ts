/**
 * `FileSessionStore.list()`: which files of the directory are journals, of which session. One bad
 * file — a name that is no session id's encoding, a journal copied in under another id, a corrupt
 * journal, a link — is skipped and reported, and the rest is still listed.
 *
 * @module
 */
import type { SessionSummary } from "../../session-store.js";
import { fileNameOf, JOURNAL_SUFFIX, meaningOfName } from "./file-names.js";

/** What {@link listJournals} needs of the store. */
export interface ListJournalsHooks {
  /** The journal's last seq and time of its last write, checking every line; `undefined` for an empty one. */
  count(id: string, file: string): Promise<{ seq: number; updatedAt: number } | undefined>;
  /** The journal's first line, parsed. */
  firstLine(file: string): Promise<Record<string, unknown> | undefined>;
  onSkipped(file: string, error: Error): void;
}

/**
 * The sessions of the directory whose entries are `files`, by id.
 *
 * @example
 * ```ts
 * const sessions = await listJournals(await readdir(directory), hooks);
 * ```
 */
export async function listJournals(files: readonly string[], hooks: ListJournalsHooks): Promise<SessionSummary[]> {
  const found = new Map<string, { summary: SessionSummary; legacy: boolean }>();
  for (const file of files) {
    if (!file.endsWith(JOURNAL_SUFFIX)) continue;
    try {
      const { id, legacy } = await idOfJournal(file, hooks);
      // A journal under an earlier release's name is listed unless one under this release's name is too.
      if (legacy && found.has(id)) continue;
      const counted = await hooks.count(id, file);
      if (counted) found.set(id, { summary: { id, ...counted }, legacy });
    } catch (error) {
      hooks.onSkipped(file, error instanceof Error ? error : new Error(String(error)));
    }
  }
  const summaries = [...found.values()].map((f) => f.summary);
  return summaries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The session a journal file is of, by its name, or (for a hashed name) by its created entry. */
async function idOfJournal(file: string, hooks: ListJournalsHooks): Promise<{ id: string; legacy: boolean }> {
  const name = file.slice(0, -JOURNAL_SUFFIX.length);
  const meaning = meaningOfName(name);
  if (meaning.kind === "stray") throw new Error(meaning.reason);
  if (meaning.kind === "id") return { id: meaning.id, legacy: meaning.legacy };
  const first = await hooks.firstLine(file);
  const id = first?.type === "created" ? first.sessionId : undefined;
  if (typeof id !== "string" || fileNameOf(id) !== name) throw new Error("its name is a hashed session id, but its first line is not the created entry of that session");
  return { id, legacy: false };
}
