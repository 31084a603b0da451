/**
 * The chat mode (`npm start -- --chat`) driven through piped stdin, as a user at a terminal
 * would: prompt, a steering line while tools run, Ctrl-C (SIGINT) to abort the run but not the
 * program, a new prompt, `/exit`. Then the real-provider path against local servers: a working
 * one, a wrong URL and a wrong key — clear messages, no stack traces.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT, start, type Child } from "./support.js";

const STACK_LINE = /^\s+at .+\(.+:\d+:\d+\)$|^\s+at .+:\d+:\d+$/m;

const children: Child[] = [];
function chat(env: Record<string, string | undefined> = {}): Child {
  const child = start("demo/main.ts", ["--chat"], env);
  children.push(child);
  return child;
}
afterEach(() => {
  for (const child of children.splice(0)) if (child.process.exitCode === null) child.process.kill("SIGKILL");
});

describe("npm start -- --chat (demo model)", () => {
  it("prompt, steering line, Ctrl-C aborts the run not the program, new prompt, /exit", async () => {
    const c = chat();
    await c.waitFor(/^\[ready\]/m);
    c.send("What's the weather in Paris, Tokyo and Oslo?");
    await c.waitFor(/^\[tool ▶\] get_weather\(Tokyo\)$/m);

    // A line typed while tools run steers the agent.
    c.send("and what is 6 * 7?");
    await c.waitFor(/^\[steer\] queued: “and what is 6 \* 7\?”/m);

    // Ctrl-C: the run is aborted while Tokyo (the slowest call) still runs.
    const beforeAbort = c.stdout().length;
    expect(c.stdout()).not.toMatch(/\[tool ✔\] get_weather\(Tokyo\)/);
    c.process.kill("SIGINT");
    await c.waitFor(/^\[abort\] stopping the run/m, { from: beforeAbort });
    await c.waitFor(/^\[aborted\]/m, { from: beforeAbort });
    await c.waitFor(/^\[ready\]/m, { from: beforeAbort });
    const aborted = c.stdout().slice(beforeAbort);
    expect(aborted).toMatch(/^\[tool ✖\] get_weather\(Tokyo\) → Operation aborted/m);
    // Every tool call has exactly one result, and no new tool ran after the abort.
    expect(aborted).not.toMatch(/\[tool ▶\]/);
    expect(c.process.exitCode).toBeNull();

    // The program is still there: a new prompt gets an answer.
    const beforeSecond = c.stdout().length;
    c.send("what is 2 + 2");
    await c.waitFor(/^\[tool ✔\] calculate\(2 \+ 2\) → 2 \+ 2 = 4/m, { from: beforeSecond });
    await c.waitFor(/^\[ready\]/m, { from: beforeSecond });
    const second = c.stdout().slice(beforeSecond);
    expect(second).not.toMatch(/\[aborted\]|\[error\]/);

    c.send("/exit");
    expect(await c.exited).toBe(0);
    expect(c.stdout()).toMatch(/^bye$/m);
    expect(c.stderr()).toBe("");
  });

  it("/followup queues a follow-up that runs when the agent would stop; end of input waits and exits 0", async () => {
    const c = chat();
    await c.waitFor(/^\[ready\]/m);
    c.send("weather in Oslo please");
    await c.waitFor(/^\[tool ▶\] get_weather\(Oslo\)$/m);
    c.send("/followup what time is it?");
    await c.waitFor(/^\[follow-up\] queued: “what time is it\?”/m);
    c.process.stdin.end();
    expect(await c.exited).toBe(0);
    const out = c.stdout();
    const answer = out.search(/^\[assistant\] Oslo: 6°C/m);
    const followUp = out.indexOf("[user · follow-up] what time is it?");
    expect(answer).toBeGreaterThan(0);
    expect(followUp).toBeGreaterThan(answer);
    expect(out.indexOf("[tool ✔] get_time()")).toBeGreaterThan(followUp);
    expect(out).toMatch(/^bye$/m);
  });

  it("a second Ctrl-C quits; so does Ctrl-C while idle", async () => {
    const busy = chat();
    await busy.waitFor(/^\[ready\]/m);
    busy.send("weather in Tokyo");
    await busy.waitFor(/^\[tool ▶\] get_weather\(Tokyo\)$/m);
    busy.process.kill("SIGINT");
    await busy.waitFor(/^\[abort\]/m);
    busy.process.kill("SIGINT");
    expect(await busy.exited).toBe(0);
    expect(busy.stdout()).toMatch(/^bye$/m);

    const idle = chat();
    await idle.waitFor(/^\[ready\]/m);
    idle.process.kill("SIGINT");
    expect(await idle.exited).toBe(0);
    expect(idle.stdout()).toMatch(/^bye$/m);
  });
});

describe("npm start -- --chat with OPENAI_BASE_URL", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  function serve(handler: (body: string, headers: Record<string, string | string[] | undefined>) => { status: number; type: string; body: string }): Promise<string> {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const reply = handler(body, req.headers);
        res.writeHead(reply.status, { "content-type": reply.type });
        res.end(reply.body);
      });
    });
    return new Promise((resolve) => server!.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`)));
  }

  it("streams the server's answer, sending the model, the key and the demo tools", async () => {
    const requests: { body: Record<string, unknown>; auth: unknown }[] = [];
    const sse = readFileSync(`${ROOT}/test/providers/fixtures/text.sse`, "utf8");
    const url = await serve((body, headers) => {
      requests.push({ body: JSON.parse(body), auth: headers.authorization });
      return { status: 200, type: "text/event-stream", body: sse };
    });
    const c = chat({ OPENAI_BASE_URL: url, OPENAI_API_KEY: "sk-test", OPENAI_MODEL: "my-model" });
    await c.waitFor(/^rxagent chat · my-model at http:\/\/127\.0\.0\.1:\d+\/v1$/m);
    c.send("hello");
    await c.waitFor(/^\[assistant\] Hel/m);
    await c.waitFor(/^\[ready\]/m, { from: c.stdout().indexOf("[assistant]") });
    c.send("/exit");
    expect(await c.exited).toBe(0);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.auth).toBe("Bearer sk-test");
    expect(requests[0]!.body.model).toBe("my-model");
    const tools = (requests[0]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name).sort();
    expect(tools).toEqual(["calculate", "get_time", "get_weather", "read_file"]);
  });

  it("a wrong key: the server's message and a hint, no stack trace, the chat goes on", async () => {
    const body = readFileSync(`${ROOT}/test/providers/fixtures/error-401.json`, "utf8");
    const url = await serve(() => ({ status: 401, type: "application/json", body }));
    const c = chat({ OPENAI_BASE_URL: url, OPENAI_API_KEY: "sk-bad" });
    await c.waitFor(/^\[ready\]/m);
    c.send("hello");
    await c.waitFor(/^\[error\] HTTP 401.*Incorrect API key provided/m);
    await c.waitFor(/^\[hint\] Check OPENAI_API_KEY/m);
    c.send("/exit");
    expect(await c.exited).toBe(0);
    expect(c.stdout() + c.stderr()).not.toMatch(STACK_LINE);
  });

  it("a wrong URL: could not reach it, a hint, no stack trace", async () => {
    // A port that was just free: nothing listens there.
    const url = await serve(() => ({ status: 500, type: "text/plain", body: "" }));
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const c = chat({ OPENAI_BASE_URL: url });
    await c.waitFor(/^\[ready\]/m);
    c.send("hello");
    await c.waitFor(/^\[error\] .*could not reach http:\/\/127\.0\.0\.1:\d+\/v1/m);
    await c.waitFor(/^\[hint\] Check OPENAI_BASE_URL/m);
    c.send("/exit");
    expect(await c.exited).toBe(0);
    expect(c.stdout() + c.stderr()).not.toMatch(STACK_LINE);
  });
});
