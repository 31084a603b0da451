/**
 * What a finished session must look like, read back from its journal: its run closed, every
 * prompt of its job in the transcript once and in order, each answered once.
 *
 * @module
 */
import type { AssistantMessage, Message } from "../../src/index.js"; // in your app: from "rxagent"
import type { JournalEntry, LoadedJournal } from "../../src/session/index.js"; // "rxagent/session"
import type { AgentRunJob } from "./queue.js";
import { promptsIn } from "./run-session.js";
import { answerText } from "./scripted-model.js";

const answersIn = (messages: readonly Message[]): string[] =>
  messages.flatMap((m) => (m.role === "assistant" ? (m as AssistantMessage).content.flatMap((c) => (c.type === "text" ? [c.text] : [])) : []));

/** What this check needs of a journal, read from its public entries: the transcript, whether a run is open, the last error. */
function readJournal(entries: readonly JournalEntry[]): { messages: Message[]; runOpen: boolean; errorMessage: string | undefined } {
  let messages: Message[] = [];
  let runOpen = false;
  let errorMessage: string | undefined;
  for (const entry of entries) {
    if (entry.type === "transcript") messages = [...(entry.messages as Message[])];
    else if (entry.type === "message") messages.push(entry.message as Message);
    else if (entry.type === "run_started") runOpen = true;
    else if (entry.type === "run_ended") [runOpen, errorMessage] = [false, entry.errorMessage];
  }
  return { messages, runOpen, errorMessage };
}

/**
 * The problems of `job`'s session, as sentences; none when it is finished and whole.
 *
 * @example
 * ```ts
 * const problems = await checkSession(store, { sessionId: "s-1", prompts: ["a", "b"] });
 * ```
 */
export async function checkSession(store: { load(id: string): Promise<LoadedJournal | undefined> }, job: AgentRunJob): Promise<string[]> {
  const loaded = await store.load(job.sessionId);
  if (!loaded) return [`${job.sessionId}: no journal`];
  const image = readJournal(loaded.entries);
  const problems: string[] = [];
  if (image.runOpen) problems.push(`${job.sessionId}: its last run never ended`);
  if (image.errorMessage) problems.push(`${job.sessionId}: it ended with an error: ${image.errorMessage}`);
  const prompts = promptsIn(image.messages);
  if (JSON.stringify(prompts) !== JSON.stringify(job.prompts)) problems.push(`${job.sessionId}: its prompts are ${JSON.stringify(prompts)}, the job's ${JSON.stringify(job.prompts)}`);
  const answers = answersIn(image.messages);
  job.prompts.forEach((_, index) => {
    const count = answers.filter((text) => text === answerText(index + 1)).length;
    if (count !== 1) problems.push(`${job.sessionId}: prompt ${index + 1} is answered ${count} times`);
  });
  return problems;
}
