/**
 * The docs keep their promises: the README's example runs (against a local OpenAI-compatible
 * server), the quick start is exactly two commands, every TypeScript snippet in the docs
 * type-checks against the real API, relative links resolve, and TypeDoc builds the API
 * reference from the doc comments.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, start } from "./support.js";

/** The README once merged, else the draft. */
const README = join(ROOT, "README.md");
const DOCS = ["docs/concepts.md", "docs/recipes.md", "docs/SPEC.md", "docs/coming-from-pi.md", "docs/comparison.md", "docs/sessions.md", "docs/deployment.md", "docs/mcp.md", "docs/otel.md", "docs/ai-sdk.md", "docs/approvals.md", "docs/limits.md", "docs/tool-scheduling.md", "docs/cancellation.md", "docs/usage.md", "docs/mutation.md", "docs/operators.md", "docs/testing.md", "docs/installing.md", "docs/performance.md", "docs/server.md", "docs/remote-agent.md", "docs/ag-ui.md"].map((file) => join(ROOT, file));

/** Scratch space inside the repository's node_modules, so snippets resolve `rxjs` & co. like user code. */
const SCRATCH = join(ROOT, "node_modules/.cache", `rxagent-docs-${process.pid}`);
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

const SUBPATHS: Record<string, string> = {
  rxagent: "src/index.ts",
  "rxagent/core": "src/core.ts",
  "rxagent/testing": "src/testing/index.ts",
  "rxagent/session": "src/session/index.ts",
  "rxagent/session/file": "src/session/stores/file-store.ts",
  "rxagent/session/indexeddb": "src/session/stores/indexeddb-store.ts",
  "rxagent/session/postgres": "src/session/stores/postgres-store.ts",
  "rxagent/openai": "src/providers/openai/index.ts",
  "rxagent/proxy": "src/providers/proxy/index.ts",
  "rxagent/proxy/node": "src/providers/proxy/node.ts",
  "rxagent/retry": "src/providers/retry/index.ts",
  "rxagent/operators": "src/operators/index.ts",
  "rxagent/pi-ai": "src/providers/pi-ai.ts",
  "rxagent/mcp": "src/mcp/index.ts",
  "rxagent/mcp/stdio": "src/mcp/stdio.ts",
  "rxagent/otel": "src/otel/index.ts",
  "rxagent/ai-sdk": "src/providers/ai-sdk/index.ts",
  "rxagent/ag-ui": "src/ag-ui/index.ts",
  "rxagent/angular": "src/angular/index.ts",
  "rxagent/server": "src/server/index.ts",
  "rxagent/server/node": "src/server/node.ts",
  "rxagent/server/postgres": "src/server/postgres/index.ts",
  "rxagent/remote": "src/remote/index.ts",
};

function codeBlocks(markdown: string, lang: string): { code: string; line: number }[] {
  const blocks: { code: string; line: number }[] = [];
  const pattern = new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```", "gm");
  for (const match of markdown.matchAll(pattern)) blocks.push({ code: match[1]!, line: markdown.slice(0, match.index).split("\n").length });
  return blocks;
}

describe("docs", () => {
  it("the README quick start is exactly the two commands", () => {
    const first = codeBlocks(readFileSync(README, "utf8"), "sh")[0]!;
    expect(first.code).toBe("npm install && npm start\nnpm test\n");
  });

  /** Runs the README's example against a local server that answers each request with `reply(n)`. */
  async function runReadmeExample(reply: (request: number, res: import("node:http").ServerResponse) => void) {
    const markdown = readFileSync(README, "utf8");
    const after = markdown.slice(markdown.indexOf("<!-- readme-example"));
    const example = codeBlocks(after, "ts")[0]!.code;
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        bodies.push(body);
        reply(bodies.length - 1, res);
      });
    });
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    try {
      const dir = join(SCRATCH, "readme");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
      const code = example.replace(/from "(rxagent[^"]*)"/g, (_, name: string) => `from "${relative(dir, join(ROOT, SUBPATHS[name]!)).replace(/\.ts$/, ".js")}"`);
      writeFileSync(join(dir, "example.ts"), code);
      const child = start(join(dir, "example.ts"), [], { OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, OPENAI_API_KEY: "sk-test" });
      child.process.stdin.end();
      const exit = await child.exited;
      return { example, exit, stdout: child.stdout(), stderr: child.stderr(), bodies };
    } finally {
      server.close();
    }
  }

  it("the README example runs against an OpenAI-compatible server", async () => {
    // A server that asks for get_weather, then answers (recorded OpenAI streams).
    const replies = ["tool-call.sse", "final-answer.sse"].map((file) => readFileSync(join(ROOT, "test/providers/fixtures", file), "utf8"));
    const run = await runReadmeExample((n, res) => res.writeHead(200, { "content-type": "text/event-stream" }).end(replies[n] ?? replies[1]));
    expect(run.example.split("\n").filter(Boolean).length).toBeLessThanOrEqual(22);
    expect(run.stderr).toBe("");
    expect(run.exit).toBe(0);
    expect(run.stdout).toContain('→ get_weather({"location":"Paris, France"');
    expect(run.stdout).toContain("It is 18°C in Paris.");
    expect(run.bodies).toHaveLength(2);
    expect(run.bodies[1]).toContain("Paris, France: 18°C, light rain");
  });

  it("the README example reports a failed request (a wrong key) and exits non-zero", async () => {
    const run = await runReadmeExample((_n, res) =>
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "Incorrect API key provided: sk-test" } })),
    );
    expect(run.exit).toBe(1);
    expect(run.stderr).toContain("The run failed:");
    expect(run.stderr).toContain("Incorrect API key provided");
    expect(run.stdout).toBe("");
  });

  it("every TypeScript snippet in the docs type-checks against the real API", () => {
    const dir = join(SCRATCH, "snippets");
    mkdirSync(dir, { recursive: true });
    const origin = new Map<string, string>();
    const globals: Record<string, string> = {
      agent: 'import("rxagent").Agent',
      model: 'import("rxagent").Model',
      streamFn: 'import("rxagent").StreamFn',
      assert: 'typeof import("node:assert/strict")',
    };
    let count = 0;
    for (const doc of DOCS) {
      for (const block of codeBlocks(readFileSync(doc, "utf8"), "ts")) {
        const declared = (name: string) => new RegExp(`\\b(?:const|let|var|function|class)\\s+${name}\\b|import[^;]*\\b${name}\\b[^;]*from|declare const[^;\\n]*\\b${name}\\b`).test(block.code);
        const prelude = Object.entries(globals)
          .filter(([name]) => !declared(name) && new RegExp(`\\b${name}\\b`).test(block.code))
          .map(([name, type]) => `declare const ${name}: ${type};`);
        const file = `snippet-${++count}.ts`;
        origin.set(file, `${relative(ROOT, doc)}:${block.line}`);
        writeFileSync(join(dir, file), `${block.code}\n${prelude.join("\n")}\nexport {};\n`);
      }
    }
    expect(count).toBeGreaterThan(15);
    const paths = Object.fromEntries(Object.entries(SUBPATHS).map(([name, file]) => [name, [relative(dir, join(ROOT, file))]]));
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2022", "DOM"],
          strict: true,
          skipLibCheck: true,
          noEmit: true,
          verbatimModuleSyntax: true,
          types: ["node"],
          paths,
        },
        include: ["*.ts"],
      }),
    );
    writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
    const result = spawnSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
    const errors = result.stdout
      .split("\n")
      .filter((line) => /error TS/.test(line))
      .map((line) => line.replace(/^(?:.*\/)?(snippet-\d+\.ts)\((\d+),\d+\)/, (_, file: string, row: string) => `${origin.get(file)} (+${Number(row)})`));
    expect(errors).toEqual([]);
    expect(result.status).toBe(0);
  });

  it("relative links in the docs point at files that exist", () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      const markdown = readFileSync(doc, "utf8");
      // The README draft is written to sit at the repository root.
      const base = doc.endsWith("README-draft.md") ? ROOT : dirname(doc);
      for (const match of markdown.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        const target = match[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        if (target === "docs/providers.md" || target.endsWith("/providers.md")) continue; // written by the providers work
        if (!existsSync(resolve(base, target))) broken.push(`${relative(ROOT, doc)} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the README's links are absolute (it is also the registry page) and point at files of this repository", () => {
    const markdown = readFileSync(README, "utf8");
    const base = "https://github.com/rxagent/rxagent/blob/main/";
    const relativeLinks: string[] = [];
    const broken: string[] = [];
    let repositoryLinks = 0;
    for (const match of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!.replace(/#.*$/, "");
      if (target === "" ) continue;
      if (!/^[a-z]+:/.test(target)) relativeLinks.push(target);
      else if (target.startsWith(base)) {
        repositoryLinks++;
        if (!existsSync(join(ROOT, target.slice(base.length)))) broken.push(target);
      }
    }
    expect(relativeLinks).toEqual([]);
    expect(broken).toEqual([]);
    expect(repositoryLinks).toBeGreaterThan(10);
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { homepage?: string; repository?: { url?: string } };
    expect(manifest.homepage).toMatch(/^https:\/\/github\.com\/rxagent\/rxagent/);
    expect(manifest.repository?.url).toContain("github.com/rxagent/rxagent");
  });

  it("TypeDoc builds the API reference from the doc comments (npm run docs)", () => {
    const out = join(tmpdir(), `rxagent-api-${process.pid}`);
    try {
      const result = spawnSync(process.execPath, [join(ROOT, "node_modules/typedoc/bin/typedoc"), "--options", join(ROOT, "typedoc.json"), "--out", out], { cwd: ROOT, encoding: "utf8" });
      expect(result.stdout + result.stderr).not.toMatch(/\[error\]/);
      expect(result.status).toBe(0);
      const pages = readdirSync(out, { recursive: true }).map(String);
      expect(pages).toContain("index.html");
      expect(pages.some((page) => /Agent\.html$/.test(page))).toBe(true);
      expect(pages.some((page) => /agentLoop\.html$/.test(page))).toBe(true);
      expect(pages.some((page) => /fauxProvider\.html$/.test(page))).toBe(true);
      expect(pages.some((page) => /openaiCompatible\.html$/.test(page))).toBe(true);
      const agentPage = pages.find((page) => /classes\/.*Agent\.html$|Agent\.html$/.test(page))!;
      expect(readFileSync(join(out, agentPage), "utf8")).toContain("steer");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
