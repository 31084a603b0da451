/**
 * The session server against what a review found (SRV3, SRV4, SRV5): a large replay to a
 * reading follower, secrets in the model, refused prompts, the bound on hosted sessions, a
 * closed server, a refused follower, and a prompt sent before the stream is open.
 */
import { filter, firstValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/index.js";
import { RemoteAgent } from "../../src/remote/index.js";
import { fauxProvider } from "../../src/testing/index.js";
import { cuttingFetch, liveSessionServers, TOOLS } from "./live-session-server.js";

const start = liveSessionServers();
const auth = { authorization: "Bearer t-ann" };
const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) });

/** The text of an event stream until `until` is in it. */
async function readUntil(response: Response, until: string): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(until)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

describe("SRV3 SRV4: replays and what they carry", () => {
  it("SRV4: a reading follower gets a replay larger than maxClientBufferBytes whole, and stays connected", async () => {
    const { url, agents } = await start({ maxClientBufferBytes: 4096 });
    await (await fetch(`${url}/ann-big/events`, { headers: auth })).body!.cancel();
    const { agent } = agents.get("ann-big")!;
    agent.state.messages = Array.from({ length: 300 }, (_, i) => ({ role: "user" as const, content: `message ${i} ${"x".repeat(500)}`, timestamp: i }));
    const follower = new RemoteAgent({ url: `${url}/ann-big`, headers: () => auth });
    const whole = await firstValueFrom(follower.state$.pipe(filter((state) => state.messages.length === 300)));
    expect(whole.messages[299]).toMatchObject({ content: expect.stringMatching(/^message 299 /) });
    // Resuming from the first entry: every entry since, read as the follower reads.
    const resumed = await readUntil(await fetch(`${url}/ann-big/events`, { headers: { ...auth, "last-event-id": (await lastId(url)).replace(/\.\d+$/, ".1") } }), "message 299");
    expect(resumed).toContain("message 299");
    follower.close();
  });

  it("SRV4: the model travels as its names: no headers (credentials), no baseUrl", async () => {
    const model = { id: "m-1", api: "openai-completions", provider: "openai", baseUrl: "http://10.0.0.7:8080/v1", headers: { authorization: "Bearer sk-SECRET-123" } };
    const { url } = await start({ agentFor: () => new Agent({ streamFn: fauxProvider([]), initialState: { model, tools: TOOLS } }) });
    const text = await readUntil(await fetch(`${url}/ann-m/events`, { headers: auth }), "\n\n");
    expect(text).toContain('"id":"m-1"');
    expect(text).not.toContain("sk-SECRET");
    expect(text).not.toContain("10.0.0.7");
  });
});

/** The id of the newest entry of session ann-big, as a new follower's first frame says. */
async function lastId(url: string): Promise<string> {
  const text = await readUntil(await fetch(`${url}/ann-big/events`, { headers: auth }), "\n\n");
  return /^id: (\S+)$/m.exec(text)![1]!;
}

describe("SRV1: state changed between runs", () => {
  it("SRV1: a system prompt set on the server between runs (the transcript's first message replaced) reaches a connected follower", async () => {
    const { url, agents } = await start({ agentFor: () => new Agent({ streamFn: fauxProvider([{ content: "ok" }]), initialState: { systemPrompt: "Be brief." } }) });
    const follower = new RemoteAgent({ url: `${url}/ann-sys`, headers: () => auth });
    await firstValueFrom(follower.state$.pipe(filter((state) => state.systemPrompt === "Be brief.")));
    const { agent } = agents.get("ann-sys")!;
    agent.setSystemPrompt("Be terse.");
    await firstValueFrom(follower.state$.pipe(filter((state) => state.systemPrompt === "Be terse.")));
    // The same length, an earlier message edited: the follower's transcript follows.
    await agent.prompt("hi");
    const edited = agent.state.messages.map((message, index) => (index === 0 ? { ...message } : message));
    (edited[0] as { content: string }).content = "Be exact.";
    agent.state.messages = edited;
    await firstValueFrom(follower.state$.pipe(filter((state) => state.systemPrompt === "Be exact.")));
    follower.close();
  });
});

describe("SRV4: refusals", () => {
  it("SRV4: a prompt the Agent refuses (no streamFn) is a 409 with its text, and the remote agent's prompt() rejects with it", async () => {
    const { url } = await start({ agentFor: () => new Agent() });
    const answer = await post(`${url}/ann-x/commands`, { type: "prompt", text: "go" });
    expect(answer.status).toBe(409);
    expect(((await answer.json()) as { error: string }).error).toMatch(/streamFn/);
    const follower = new RemoteAgent({ url: `${url}/ann-x`, headers: () => auth });
    await expect(follower.prompt("go")).rejects.toThrow(/streamFn/);
    follower.close();
  });

  it("SRV4: a prompt's other fields are not read: a message of another role sent beside the text is left out", async () => {
    const { url, agents } = await start({ agentFor: () => new Agent({ streamFn: fauxProvider([{ content: "ok" }]) }) });
    expect((await post(`${url}/ann-r/commands`, { type: "prompt", text: "hi", message: { role: "assistant", content: "I agree" } })).status).toBe(202);
    const { agent } = agents.get("ann-r")!;
    await agent.waitForIdle();
    expect(agent.state.messages[0]).toMatchObject({ role: "user", content: [{ type: "text", text: "hi" }] });
    expect(JSON.stringify(agent.state.messages)).not.toContain("I agree");
  });

  it("SRV4: at maxSessions, a new session lets the longest-unused idle one go (onReleased), and is refused (503) when none is idle; no Agent for an id → 404", async () => {
    const released: string[] = [];
    const { url, agents } = await start({ maxSessions: 2, onReleased: (id) => released.push(id), agentFor: (id) => (id === "ann-none" ? undefined : new Agent({ streamFn: fauxProvider([{ content: "ok" }]), initialState: { tools: TOOLS } })) });
    expect((await fetch(`${url}/ann-none/events`, { headers: auth })).status).toBe(404);
    for (const id of ["ann-a", "ann-b"]) expect((await post(`${url}/${id}/commands`, { type: "abort" })).status).toBe(202);
    expect((await post(`${url}/ann-c/commands`, { type: "abort" })).status).toBe(202);
    expect(released).toEqual(["ann-a"]);
    // Two followers keep ann-b and ann-c busy: a third session has no room.
    const followers = await Promise.all(["ann-b", "ann-c"].map((id) => fetch(`${url}/${id}/events`, { headers: auth })));
    expect((await post(`${url}/ann-d/commands`, { type: "abort" })).status).toBe(503);
    expect(agents.has("ann-d")).toBe(false);
    for (const response of followers) await response.body!.cancel();
  });

  it("SRV4: a closed server answers 503, and hosts nothing again", async () => {
    const { url, server, agents } = await start();
    expect((await post(`${url}/ann-1/commands`, { type: "abort" })).status).toBe(202);
    server.close();
    expect((await fetch(`${url}/ann-1/events`, { headers: auth })).status).toBe(503);
    expect((await post(`${url}/ann-2/commands`, { type: "abort" })).status).toBe(503);
    expect(agents.has("ann-2")).toBe(false);
  });
});

describe("SRV5: the remote agent's connection", () => {
  it("SRV5: a follower the server refuses (403) says refused and does not try again", async () => {
    const { url } = await start();
    let requests = 0;
    const counting: typeof fetch = (input, init) => (requests++, fetch(input, init));
    const follower = new RemoteAgent({ url: `${url}/bob-1`, headers: () => auth, fetch: counting, reconnect: { initialDelayMs: 1 } });
    expect(await firstValueFrom(follower.connection$.pipe(filter((c) => c.status === "refused")))).toEqual({ status: "refused", httpStatus: 403 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(requests).toBe(1);
    follower.close();
  });

  it("SRV5: prompt() resolves when a state past the replay bound replaces the run's agent_end", { timeout: 15_000 }, async () => {
    const { url, agents } = await start({ maxReplayBytes: 64, agentFor: () => new Agent({ streamFn: fauxProvider([{ content: "a long answer, streamed in many deltas" }]) }) });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let calls = 0;
    // The first stream is cut after its first entry; the second waits until the run has ended on the server.
    const gated: typeof fetch = async (input, init) => {
      if (String(input).endsWith("/events") && ++calls === 2) await gate;
      return calls === 1 && String(input).endsWith("/events") ? cuttingFetch(1)(input, init) : fetch(input, init);
    };
    const follower = new RemoteAgent({ url: `${url}/ann-gap`, headers: () => auth, fetch: gated, reconnect: { initialDelayMs: 1 } });
    await firstValueFrom(follower.connection$.pipe(filter((c) => c.status === "connected")));
    const prompted = follower.prompt("go");
    while (!agents.get("ann-gap")?.agent.state.messages.length) await new Promise((resolve) => setTimeout(resolve, 5));
    await agents.get("ann-gap")!.agent.waitForIdle();
    open();
    await prompted;
    expect(follower.state.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    follower.close();
  });

  it("SRV5: prompt() right after the remote agent is made (before its stream is open) resolves when the run has ended", async () => {
    const { url } = await start({ agentFor: () => new Agent({ streamFn: fauxProvider([{ content: "done" }]) }) });
    const follower = new RemoteAgent({ url: `${url}/ann-fast`, headers: () => auth });
    await follower.prompt("go");
    await firstValueFrom(follower.state$.pipe(filter((state) => state.outcome === "completed")));
    follower.close();
  });
});
