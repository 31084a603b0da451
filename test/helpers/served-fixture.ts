/**
 * A browser test's page: a fixture folder built with Vite, served on 127.0.0.1 (a port the OS
 * picks), and one Chromium for the test file. Each test opens pages in a fresh context (empty
 * storage); the context is closed after the test, which fails on any page error.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { build, preview, type PreviewServer } from "vite";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { findChromium } from "./chromium.js";

export interface ServedFixture {
  /** The served page's address (set once the file's setup ran). */
  readonly url: string;
  /** Where the build went. */
  readonly outDir: string;
  /** `count` pages of one fresh context: tabs of one origin, sharing its storage. */
  pages(count: number): Promise<Page[]>;
}

/** Registers the file's setup and teardown; call it at the top level of a test file. */
export function serveFixture(root: string): ServedFixture {
  let outDir = "";
  let server: PreviewServer | undefined;
  let browser: Browser | undefined;
  let url = "";
  let context: BrowserContext | undefined;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    outDir = mkdtempSync(join(tmpdir(), "rxagent-e2e-"));
    const config = { root, configFile: false as const, logLevel: "silent" as const, base: "./" };
    await build({ ...config, build: { outDir, emptyOutDir: true, target: "es2022" } });
    server = await preview({ ...config, build: { outDir }, preview: { host: "127.0.0.1", port: 0, strictPort: false } });
    url = server.resolvedUrls!.local[0]!;
    const found = await findChromium();
    browser = await chromium.launch({ executablePath: found.executablePath, args: found.args });
  }, 90_000);

  afterEach(async () => {
    await context?.close();
    context = undefined;
    expect(pageErrors.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  return {
    get url() {
      return url;
    },
    get outDir() {
      return outDir;
    },
    async pages(count) {
      context = await browser!.newContext();
      const pages: Page[] = [];
      for (let n = 0; n < count; n++) {
        const page = await context.newPage();
        page.on("pageerror", (error) => pageErrors.push(error.message));
        pages.push(page);
      }
      return pages;
    },
  };
}
