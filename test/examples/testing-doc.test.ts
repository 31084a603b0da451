/**
 * docs/testing.md teaches testing an agent; each of its TypeScript blocks runs here as a test,
 * as a user would run it (its own process, `rxagent` imports pointing at the sources), and must
 * exit cleanly: its `node:assert` checks are the test's.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./support.js";

const DOC = join(ROOT, "docs/testing.md");
/** Inside the repository's node_modules, so the blocks resolve `rxjs` and rxjs-marbles as an app would. */
const SCRATCH = join(ROOT, "node_modules/.cache", `rxagent-testing-doc-${process.pid}`);
afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

const ENTRIES: Record<string, string> = {
  rxagent: "src/index.ts",
  "rxagent/testing": "src/testing/index.ts",
  "rxagent/operators": "src/operators/index.ts",
};

function blocks(markdown: string): { code: string; line: number }[] {
  const found: { code: string; line: number }[] = [];
  const pattern = /^```ts\n([\s\S]*?)^```/gm;
  for (const match of markdown.matchAll(pattern)) found.push({ code: match[1]!, line: markdown.slice(0, match.index).split("\n").length });
  return found;
}

/** The block with its `rxagent` imports pointed at the sources. */
function runnable(code: string): string {
  return code.replace(/from "(rxagent(?:\/[a-z-]+)?)"/g, (whole, specifier: string) => {
    const file = ENTRIES[specifier];
    if (!file) throw new Error(`docs/testing.md imports ${specifier}, which this test does not map`);
    return `from ${JSON.stringify(join(ROOT, file))}`;
  });
}

describe("docs/testing.md", () => {
  const all = blocks(readFileSync(DOC, "utf8"));

  it("has its blocks (the page is not empty)", () => {
    expect(all.length).toBeGreaterThanOrEqual(6);
  });

  for (const [index, block] of all.entries()) {
    it(`block ${index + 1} (line ${block.line}) runs and its assertions hold`, () => {
      mkdirSync(SCRATCH, { recursive: true });
      const file = join(SCRATCH, `block-${index + 1}.mts`);
      writeFileSync(file, runnable(block.code));
      const run = spawnSync(process.execPath, ["--import", "tsx", file], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
      expect(run.stderr, `stdout:\n${run.stdout}`).toBe("");
      expect(run.status).toBe(0);
    });
  }
});
