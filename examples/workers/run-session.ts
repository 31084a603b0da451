/**
 * One job: bring a session up to date with the job's prompts. Any worker may run it, any number
 * of times: it resumes the session from its journal (finishing what a dead worker left open),
 * then sends the prompts the transcript does not have yet, in order. It returns only when the
 * session has answered every prompt, so pg-boss marks a job completed only then; any other
 * ending throws, and pg-boss runs the job again.
 *
 * @module
 */
import type { Agent, AgentMessage, AgentTool, Message } from "../../src/index.js"; // in your app: from "rxagent"
import { SessionLeaseHeldError, type SessionStore } from "../../src/session/index.js"; // "rxagent/session"
import type { AgentRunJob } from "./queue.js";
import { sessionAgent } from "./session-agent.js";
import type { JobEvent } from "./worker-log.js";

/** What {@link runSession} needs of its worker. */
export interface RunSessionOptions {
  store: SessionStore;
  /** The worker's name: the lease owner. */
  owner: string;
  leaseTtlMs: number;
  tools: AgentTool[];
  /** Epoch ms after which waiting for another worker's lease is pointless: pg-boss has given the job up by then. */
  deadline: number;
  log(event: JobEvent): void;
}

/** How the job went. */
export interface RunOutcome {
  /** Prompts the journal had when the session was opened. */
  had: number;
  /** Prompts this run sent. */
  sent: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The texts of the user messages, in order. */
export function promptsIn(messages: readonly AgentMessage[]): string[] {
  return messages.flatMap((m) => {
    const message = m as Message;
    if (message.role !== "user") return [];
    return [typeof message.content === "string" ? message.content : message.content.map((c) => (c.type === "text" ? c.text : "")).join("")];
  });
}

/**
 * Runs `job` to the end, or throws.
 *
 * @example
 * ```ts
 * await boss.work<AgentRunJob>(QUEUE, ([job]) => runSession(job!.data, { store, owner, leaseTtlMs, tools, deadline, log }));
 * ```
 */
export async function runSession(job: AgentRunJob, options: RunSessionOptions): Promise<RunOutcome> {
  const agent = await openSession(job.sessionId, options);
  failOnError(agent, job.sessionId);
  const had = promptsIn(agent.state.messages);
  if (had.some((text, index) => text !== job.prompts[index])) throw new Error(`Session ${job.sessionId}: its transcript does not start with the job's prompts.`);
  const missing = job.prompts.slice(had.length);
  for (const prompt of missing) {
    await agent.prompt(prompt);
    failOnError(agent, job.sessionId);
  }
  // Finished: the lease is given back, so whoever gets the session next need not wait it out.
  await agent.closeSession();
  return { had: had.length, sent: missing.length };
}

/**
 * A resumed Agent on the session. While another worker holds its lease (a job handed on before
 * that worker stopped writing), waits for the lease to end, then tries again.
 */
async function openSession(sessionId: string, options: RunSessionOptions): Promise<Agent> {
  for (;;) {
    const agent = sessionAgent({ store: options.store, sessionId, owner: options.owner, leaseTtlMs: options.leaseTtlMs, tools: options.tools });
    try {
      await agent.resume();
      return agent;
    } catch (error) {
      if (!(error instanceof SessionLeaseHeldError)) throw error;
      const ms = Math.max(0, error.expiresAt - Date.now()) + 50;
      if (Date.now() + ms > options.deadline) throw error;
      options.log({ ev: "lease-wait", s: sessionId, holder: error.owner, ms });
      await sleep(ms);
    }
  }
}

/**
 * A run that ended in an error: the journal could not be written (this worker was fenced out,
 * or the database went away). The session is not done; another run of the job will finish it.
 */
function failOnError(agent: Agent, sessionId: string): void {
  const error = agent.state.errorMessage;
  if (error) throw new Error(`Session ${sessionId}: ${error}`);
}
