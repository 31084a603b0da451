/**
 * Where the browser tests find a Chromium, with nothing installed by hand: `CHROMIUM_PATH` if
 * set, else the system's (`/usr/bin/chromium`, when the machine has one), else the one that ships
 * inside the `@sparticuz/chromium` dev dependency (unpacked on first use, no download).
 */
import { existsSync } from "node:fs";

/** How to launch it with playwright-core. */
export interface ChromiumLaunch {
  executablePath: string;
  args: string[];
  /** Which candidate it came from. */
  source: "CHROMIUM_PATH" | "system" | "@sparticuz/chromium";
}

/** Flags for a headless run on a machine whose network is closed (no background connections). */
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

export async function findChromium(systemPaths: readonly string[] = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]): Promise<ChromiumLaunch> {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH is set to ${fromEnv}, which does not exist.`);
    return { executablePath: fromEnv, args: ARGS, source: "CHROMIUM_PATH" };
  }
  const system = systemPaths.find((path) => existsSync(path));
  if (system) return { executablePath: system, args: ARGS, source: "system" };
  const bundled = (await import("@sparticuz/chromium")).default;
  const executablePath = await bundled.executablePath();
  // Its flags are tuned for AWS Lambda: `--single-process` ends the browser when its last page
  // closes, so a test's second page found it gone.
  const lambdaOnly = new Set(["--single-process"]);
  return { executablePath, args: [...new Set([...bundled.args.filter((arg) => !lambdaOnly.has(arg)), ...ARGS])], source: "@sparticuz/chromium" };
}
