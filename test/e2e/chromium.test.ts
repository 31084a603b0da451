/**
 * The browser tests need no system browser: without one, the Chromium inside the
 * `@sparticuz/chromium` dev dependency is unpacked and launched by playwright-core.
 */
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { findChromium } from "../helpers/chromium.js";

describe("a Chromium for the browser tests", () => {
  it("without a system browser, the bundled one launches and runs a page", async () => {
    const saved = process.env.CHROMIUM_PATH;
    delete process.env.CHROMIUM_PATH;
    try {
      const found = await findChromium([]);
      expect(found.source).toBe("@sparticuz/chromium");
      const browser = await chromium.launch({ executablePath: found.executablePath, args: found.args });
      try {
        const page = await browser.newPage();
        await page.setContent(`<button onclick="this.textContent = 'clicked'">go</button>`);
        await page.click("button");
        expect(await page.textContent("button")).toBe("clicked");
      } finally {
        await browser.close();
      }
    } finally {
      if (saved !== undefined) process.env.CHROMIUM_PATH = saved;
    }
  }, 120_000);

  it("the bundled one outlives its pages: a second page and a second context open after the first closed (as every e2e file does)", async () => {
    const found = await findChromium([]);
    expect(found.args).not.toContain("--single-process");
    const browser = await chromium.launch({ executablePath: found.executablePath, args: found.args });
    try {
      for (let round = 0; round < 3; round++) {
        const page = await browser.newPage();
        await page.setContent(`<p>${round}</p>`);
        expect(await page.textContent("p")).toBe(String(round));
        await page.close();
      }
      const context = await browser.newContext({ viewport: { width: 400, height: 800 } });
      const page = await context.newPage();
      await page.setContent("<p>context</p>");
      expect(await page.textContent("p")).toBe("context");
      await context.close();
      expect(browser.isConnected()).toBe(true);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it("CHROMIUM_PATH that does not exist is a clear error, not a silent fallback", async () => {
    const saved = process.env.CHROMIUM_PATH;
    process.env.CHROMIUM_PATH = "/nonexistent/chromium";
    try {
      await expect(findChromium()).rejects.toThrow("CHROMIUM_PATH is set to /nonexistent/chromium, which does not exist.");
    } finally {
      if (saved === undefined) delete process.env.CHROMIUM_PATH;
      else process.env.CHROMIUM_PATH = saved;
    }
  });
});
