/**
 * The chat mode on a real pseudo-terminal: util-linux `script` runs `demo/main.ts --chat` on a
 * PTY, keystrokes go in through its stdin while tools run or text streams, and `@xterm/headless`
 * renders what the chat wrote into the screen a terminal shows (cursor moves and erasures
 * applied). Asserted on that screen: what the user types stays visible under the live rows, no
 * progress row is left once the tools ended, a typed line shows up once (as the queued note,
 * then as the steering message), and an answer's text is never cut by a note or an error.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { PtyTerminal } from "../helpers/pty-terminal.js";
import { ROOT } from "./support.js";

const COLUMNS = 100;
const ROWS = 60;
const SPINNER_OR_BAR = /^\s+[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] |[█░]{4}/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const terminals: PtyTerminal[] = [];
/** The chat on a terminal of its own: colours on (they are part of what a user sees), no server unless given. */
function chat(env: Record<string, string> = {}): PtyTerminal {
  const terminal = new PtyTerminal({
    command: [process.execPath, "--import", "tsx", "demo/main.ts", "--chat"],
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined, OPENAI_MODEL: undefined, ...env },
    columns: COLUMNS,
    rows: ROWS,
  });
  terminals.push(terminal);
  return terminal;
}
afterEach(async () => {
  await Promise.all(terminals.splice(0).map((terminal) => terminal.kill()));
});

/** The lines from the one equal to `first`, `count` of them. */
function linesFrom(lines: string[], first: string, count: number): string[] {
  const at = lines.indexOf(first);
  expect(at, `no line ${JSON.stringify(first)} in:\n${lines.join("\n")}`).toBeGreaterThanOrEqual(0);
  return lines.slice(at, at + count);
}

describe("npm start -- --chat on a terminal (demo model)", () => {
  it("typing while tools run stays visible, the Enter leaves no stale row, the steering line shows once", async () => {
    const t = chat();
    await t.waitFor(/^you>$/m);
    t.type("What's the weather in Paris, Tokyo and Oslo?");
    t.enter();
    // Tokyo's progress row: the tools run (Tokyo takes about 2 s).
    await t.waitFor(/^\s+\S get_weather\(Tokyo\)\s+[█░]+\s+\d+%/m);

    t.type("and what is 6 * 7?");
    // At once, under the live rows; and still there a few spinner frames (80 ms each) later. Soft
    // and time-bounded, so Enter still comes while Tokyo runs and the screen after it is checked too.
    const typedUnderRows = /\n +[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] get_weather\(\w+\) [^\n]*\nyou> and what is 6 \* 7\?$/;
    await t.waitFor(typedUnderRows, 1000).catch(() => undefined);
    await sleep(250);
    const typing = await t.screen();
    expect.soft(typing, "the typed line, under the live rows").toMatch(typedUnderRows);
    expect.soft(typing.split("\n").filter((line) => line.includes("get_weather(Tokyo)") && SPINNER_OR_BAR.test(line))).toHaveLength(1);
    expect.soft(typing.split("\n").filter((line) => line.includes("and what is 6 * 7?"))).toEqual(["you> and what is 6 * 7?"]);

    t.enter();
    await t.waitFor(/^\[assistant\] 6 \* 7 = 42\n+you>$/m);
    const lines = await t.lines();

    // No progress row survives the tools: neither the one under the cursor when Enter was pressed nor any other.
    expect(lines.filter((line) => SPINNER_OR_BAR.test(line))).toEqual([]);
    // The typed line: once as the queued note, once as the steering message, nowhere else.
    expect(lines.filter((line) => line.includes("and what is 6 * 7?"))).toEqual([
      "[steer] queued: “and what is 6 * 7?” (delivered after the running tools)",
      "[user · steering] and what is 6 * 7?",
    ]);
    for (const city of ["Paris", "Tokyo", "Oslo"]) expect(lines.filter((line) => line.startsWith(`[tool ✔] get_weather(${city}) → `))).toHaveLength(1);
    // The answer reads in one piece.
    expect(linesFrom(lines, "[assistant] Here's what I found:", 6)).toEqual([
      "[assistant] Here's what I found:",
      "- Paris: 18°C, light rain, wind 12 km/h",
      "- Tokyo: 24°C, clear skies, wind 8 km/h",
      "- Oslo: 6°C, snow showers, wind 20 km/h",
      "",
      "I'll work out 6 * 7.",
    ]);
    expect(lines[lines.length - 1]).toBe("you>");

    t.type("/exit");
    t.enter();
    await t.waitFor(/^bye$/m);
    expect(await t.exited).toBe(0);
  });
});

describe("npm start -- --chat on a terminal (a server that streams on cue)", () => {
  let server: Server | undefined;
  afterEach(
    () =>
      new Promise<void>((resolve) => {
        // A failed test may leave a response waiting for its cue.
        server?.closeAllConnections();
        return server ? server.close(() => resolve()) : resolve();
      }),
  );

  /** Each request gets the next script; a script writes SSE chunks and may wait for the test. */
  function serve(scripts: ((send: (delta: Record<string, unknown>) => void, res: ServerResponse) => Promise<void>)[]): Promise<string> {
    let next = 0;
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        const script = scripts[next++];
        res.writeHead(200, { "content-type": "text/event-stream" });
        const send = (chunk: Record<string, unknown>): void => void res.write(`data: ${JSON.stringify({ id: `chatcmpl-tty${next}`, ...chunk })}\n\n`);
        void (script ? script(send, res) : Promise.resolve()).then(() => res.end());
      });
    });
    return new Promise((resolve) => server!.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`)));
  }

  const text = (content: string) => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });

  function cue(): { wait: Promise<void>; go: () => void } {
    let go = (): void => {};
    const wait = new Promise<void>((resolve) => (go = resolve));
    return { wait, go };
  }

  it("a line typed while the answer streams, and a stream that fails mid-way: the text stays in one piece, notes after it", async () => {
    const first = cue();
    const second = cue();
    const url = await serve([
      async (send, res) => {
        send({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
        send(text("The quick brown "));
        send(text("fox"));
        await first.wait;
        send(text(" jumps over the lazy dog."));
        send({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
        res.write("data: [DONE]\n\n");
      },
      async (send) => {
        send(text("Partial ans"));
        await second.wait;
        send(text("wer"));
        send({ error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null } });
      },
    ]);
    const t = chat({ OPENAI_BASE_URL: url, OPENAI_API_KEY: "sk-test" });
    await t.waitFor(/^you>$/m);
    t.type("hello");
    t.enter();

    // Mid-line in the answer: a steering line. Its note shows at once, under the unfinished line.
    await t.waitFor(/^\[assistant\] The quick brown fox$/m);
    t.type("tell me more");
    t.enter();
    const noteUnderLine = /^\[assistant\] The quick brown fox\n\[steer\] queued: “tell me more” \(delivered after the running tools\)$/m;
    await t.waitFor(noteUnderLine, 2000).catch(() => undefined);
    expect.soft(await t.screen()).toMatch(noteUnderLine);
    first.go();
    await t.waitFor(/^\[user · steering\] tell me more$/m);

    // Mid-line in the next answer, which then fails: an unknown command.
    await t.waitFor(/^\[assistant\] Partial ans$/m);
    t.type("/oops");
    t.enter();
    await t.waitFor(/^\[error\] Unknown command \/oops\./m);
    second.go();
    await t.waitFor(/^\[error\] The provider reported an error mid-stream[^\n]*\n+you>$/m);
    const lines = await t.lines();

    expect(linesFrom(lines, "[assistant] The quick brown fox jumps over the lazy dog.", 4)).toEqual([
      "[assistant] The quick brown fox jumps over the lazy dog.",
      "[steer] queued: “tell me more” (delivered after the running tools)",
      "[turn 2]",
      "[user · steering] tell me more",
    ]);
    expect(lines.filter((line) => line.includes("tell me more"))).toHaveLength(2);
    const partial = linesFrom(lines, "[assistant] Partial answer", 2);
    expect(partial[1]).toMatch(/^\[error\] Unknown command \/oops\. Type a message and press Enter\.$/);
    const failure = lines.findIndex((line) => line.startsWith("[error] The provider reported an error mid-stream: The server had an error"));
    expect(failure).toBeGreaterThan(lines.indexOf("[assistant] Partial answer"));
    // The typed command shows in its note only: readline's echo of it never reached the screen.
    expect(lines.filter((line) => line.includes("/oops"))).toHaveLength(1);
    expect(lines.filter((line) => /quick|brown|lazy|Partial|answer/.test(line))).toEqual(["[assistant] The quick brown fox jumps over the lazy dog.", "[assistant] Partial answer"]);
    expect(lines[lines.length - 1]).toBe("you>");
  });
});
