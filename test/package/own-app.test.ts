/**
 * The README's "Your own app" section, followed as a newcomer follows it, against the packed
 * tarball: a fresh folder, `npm init -y`, the section's setup commands, the tsconfig `tsc --init`
 * writes (TypeScript's defaults: `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`,
 * `verbatimModuleSyntax`, `module: "nodenext"`), the section's `agent.ts` type-checked under it,
 * then the section's run command. Nothing is downloaded: the packages come from the npm cache
 * `npm ci` of this repo filled, as in `tarball.test.ts`.
 *
 * The section marks what the test reads with comments, each right before its code block:
 * `<!-- own-app:setup -->` (shell commands, one per line), `<!-- own-app:file NAME -->` (a file
 * to write), `<!-- own-app:run -->` (shell commands whose output is the run's). Every command is
 * run as written, with one exception: `npm install <names>` would ask the registry for each
 * name's metadata, which the cache does not hold, so the test installs the same names, at the
 * versions of the repo's lock (rxagent as the tarball), from a lockfile, as npm would have
 * written it.
 */
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NPM_CACHE, offlineEnv, REGISTRY, runner } from "./offline-npm.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const TSC = join(REPO, "node_modules/typescript/bin/tsc");

/** The npm cache `npm ci` filled and the registry it came from, read before the npm_* variables are dropped below. */

/**
 * The environment of every command, as in `tarball.test.ts`: no npm_* variables of an enclosing
 * `npm test`, and a proxy that refuses every request, so anything not in the cache fails instead
 * of downloading. No OPENAI_* variables either: the first agent must run on the scripted model.
 */
const CHILD_ENV: NodeJS.ProcessEnv = offlineEnv(/^OPENAI_/, { npm_config_fund: "false", npm_config_audit: "false" });

/** Runs a command; rejects with its output when it fails. */
const run = runner(CHILD_ENV, 180_000);

/** A line of the README's shell, run by the shell, as a reader pastes it. */
const shell = (line: string, cwd: string) => run("sh", ["-c", line], cwd);

/** The section's marked code blocks. */
interface OwnAppSection {
  text: string;
  setup: string[];
  files: Record<string, string>;
  runCommands: string[];
}

/** Reads the section "## Your own app" of the README: its marked blocks, in order. */
function readSection(markdown: string): OwnAppSection {
  const start = markdown.indexOf("\n## Your own app\n");
  expect(start, 'README.md has a section "## Your own app"').toBeGreaterThanOrEqual(0);
  const next = markdown.indexOf("\n## ", start + 1);
  const text = markdown.slice(start + 1, next < 0 ? undefined : next + 1);
  const section: OwnAppSection = { text, setup: [], files: {}, runCommands: [] };
  const lines = (code: string) => code.split("\n").filter((line) => line.trim() !== "" && !line.trim().startsWith("#"));
  for (const match of text.matchAll(/<!-- own-app:(\S+)(?: (\S+))? -->\n```(\w+)\n([\s\S]*?)^```$/gm)) {
    const [, kind, name, lang, code] = match as unknown as [string, string, string | undefined, string, string];
    if (kind === "setup" && lang === "sh") section.setup.push(...lines(code));
    else if (kind === "run" && lang === "sh") section.runCommands.push(...lines(code));
    else if (kind === "file" && name) section.files[name] = code;
    else throw new Error(`README.md: unknown marker <!-- own-app:${kind}${name ? ` ${name}` : ""} --> before a \`${lang}\` block`);
  }
  expect(section.setup.length, "<!-- own-app:setup --> commands").toBeGreaterThan(0);
  expect(Object.keys(section.files).length, "<!-- own-app:file NAME --> blocks").toBeGreaterThan(0);
  expect(section.runCommands.length, "<!-- own-app:run --> commands").toBeGreaterThan(0);
  return section;
}

/** What an `npm install` line asks for: package names, and whether they are dev dependencies. */
function parseInstall(line: string): { names: string[]; dev: boolean } | undefined {
  const words = line.replace(/\s#.*$/, "").trim().split(/\s+/);
  if (words[0] !== "npm" || !["install", "i", "add"].includes(words[1]!)) return undefined;
  const flags = words.slice(2).filter((word) => word.startsWith("-"));
  const unknown = flags.filter((flag) => !["-D", "--save-dev"].includes(flag));
  if (unknown.length > 0) throw new Error(`README.md: the test does not know the npm install flags ${unknown.join(" ")} (in "${line}")`);
  return { names: words.slice(2).filter((word) => !word.startsWith("-")), dev: flags.length > 0 };
}

/** The repo's lockfile: what `npm ci` put in the cache. */
const repoLock = JSON.parse(readFileSync(join(REPO, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };
interface LockEntry {
  name?: string;
  version: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
  [field: string]: unknown;
}

/** A repo lock entry as the app's lock holds it: no alias name, no dev flag, a registry URL (the repo's lock omits them). */
function appEntry(name: string, found: LockEntry): LockEntry {
  const { name: _alias, dev: _dev, ...entry } = found;
  return { ...entry, resolved: entry.resolved ?? `${REGISTRY}/${name}/-/${name.split("/").pop()}-${entry.version}.tgz` };
}

/** Where Node finds `name` from the package at `from` (a path in the repo's lock): its own node_modules first, then each parent's. */
function resolveInRepoLock(from: string, name: string): string {
  for (let base = from; ; ) {
    const candidate = `${base === "" ? "" : `${base}/`}node_modules/${name}`;
    if (repoLock.packages[candidate]) return candidate;
    if (base === "") throw new Error(`${name} (needed by ${from}) is not in the repo's package-lock.json, so not in the npm cache`);
    const parent = base.lastIndexOf("/node_modules/");
    base = parent < 0 ? "" : base.slice(0, parent);
  }
}

/**
 * `npm install` of `names` (and `devNames`) into `app`, offline: the versions of the repo's lock
 * (rxagent: the tarball), written into the app's package.json as `npm install` writes them
 * (`^version`), and a lockfile with every package of their trees, so npm only fetches tarballs,
 * all in the cache. rxagent's optional peers are left out, as `npm install rxagent rxjs` leaves
 * them out; `npm ls --all` afterwards checks every edge the lockfile states.
 */
async function installOffline(app: string, tarball: string, integrity: string, names: string[], devNames: string[]): Promise<void> {
  const manifestPath = join(app, "package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, unknown> & { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const tarballSpec = `file:${relative(app, tarball).split(sep).join("/")}`;
  const rxagent = JSON.parse(await run("tar", ["-xzOf", tarball, "package/package.json"], app)) as LockEntry & { license: string; peerDependencies: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }> };
  const packages: Record<string, LockEntry> = {};
  const queue: { appPath: string; repoPath: string; entry: LockEntry }[] = [];
  const spec = (name: string) => {
    if (name === "rxagent") return tarballSpec;
    const path = `node_modules/${name}`;
    if (!repoLock.packages[path]) throw new Error(`${name} is not in the repo's package-lock.json, so not in the npm cache`);
    queue.push({ appPath: path, repoPath: path, entry: appEntry(name, repoLock.packages[path]!) });
    return `^${repoLock.packages[path]!.version}`;
  };
  const dependencies = { ...manifest.dependencies, ...Object.fromEntries(names.map((name) => [name, spec(name)])) };
  const devDependencies = { ...manifest.devDependencies, ...Object.fromEntries(devNames.map((name) => [name, spec(name)])) };
  if (names.includes("rxagent")) {
    packages["node_modules/rxagent"] = {
      version: rxagent.version,
      resolved: tarballSpec,
      integrity,
      license: rxagent.license,
      dependencies: rxagent.dependencies,
      peerDependencies: rxagent.peerDependencies,
      ...(rxagent.peerDependenciesMeta ? { peerDependenciesMeta: rxagent.peerDependenciesMeta } : {}),
    };
    for (const name of Object.keys(rxagent.dependencies ?? {})) spec(name);
  }
  for (let next = queue.shift(); next; next = queue.shift()) {
    const { appPath, repoPath, entry } = next;
    if (packages[appPath]) continue;
    packages[appPath] = entry;
    for (const dependency of Object.keys(entry.dependencies ?? {})) {
      const found = resolveInRepoLock(repoPath, dependency);
      const dependencyAppPath = found.startsWith(`${repoPath}/`) ? `${appPath}${found.slice(repoPath.length)}` : found;
      queue.push({ appPath: dependencyAppPath, repoPath: found, entry: appEntry(dependency, repoLock.packages[found]!) });
    }
  }
  const name = manifest.name as string;
  const version = manifest.version as string;
  const updated = { ...manifest, dependencies, ...(Object.keys(devDependencies).length > 0 ? { devDependencies } : {}) };
  writeFileSync(manifestPath, `${JSON.stringify(updated, null, 2)}\n`);
  const root = { name, version, license: manifest.license, dependencies, ...(Object.keys(devDependencies).length > 0 ? { devDependencies } : {}) };
  writeFileSync(join(app, "package-lock.json"), `${JSON.stringify({ name, version, lockfileVersion: 3, requires: true, packages: { "": root, ...packages } }, null, 2)}\n`);
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], app);
  await run("npm", ["ls", "--all"], app);
}

/**
 * Packs the package from a copy of what the tarball is built from, so the build writes no
 * dist/ of the repo's (which `tarball.test.ts` may be packing at the same time).
 */
async function packCopy(work: string): Promise<{ tarball: string; integrity: string }> {
  const source = join(work, "source");
  mkdirSync(source);
  for (const path of ["package.json", "tsconfig.json", "tsconfig.build.json", "tsconfig.cjs.json", "README.md", "LICENSE", "scripts", "src"]) {
    if (existsSync(join(REPO, path))) cpSync(join(REPO, path), join(source, path), { recursive: true });
  }
  symlinkSync(join(REPO, "node_modules"), join(source, "node_modules"), "dir");
  // --json prints the file list; the build's own output goes to stderr or before the JSON.
  const output = await run("npm", ["pack", "--json", "--pack-destination", work], source);
  const [packed] = JSON.parse(output.slice(output.indexOf("[\n"))) as { filename: string; integrity: string }[];
  return { tarball: join(work, packed!.filename), integrity: packed!.integrity };
}

let work: string;
let app: string;
let section: OwnAppSection;

beforeAll(async () => {
  section = readSection(readFileSync(join(REPO, "README.md"), "utf8"));
  work = mkdtempSync(join(tmpdir(), "rxagent-own-app-"));
  const { tarball, integrity } = await packCopy(work);
  // The newcomer's empty folder, named as their app will be.
  app = join(work, "my-agent");
  mkdirSync(app);
  expect(relative(REPO, app).startsWith("..")).toBe(true);
  // The setup, line by line; consecutive `npm install` lines are installed together.
  let pending: { names: string[]; devNames: string[] } | undefined;
  const flush = async () => {
    if (pending) await installOffline(app, tarball, integrity, pending.names, pending.devNames);
    pending = undefined;
  };
  for (const line of section.setup) {
    const install = parseInstall(line);
    if (install) {
      pending ??= { names: [], devNames: [] };
      (install.dev ? pending.devNames : pending.names).push(...install.names);
      continue;
    }
    await flush();
    await shell(line, app);
  }
  await flush();
}, 420_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the README's own-app section, followed in a fresh app", () => {
  it("installs rxagent and rxjs, and TypeScript and Node's types for development", () => {
    const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as { type?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
    expect(manifest.type).toBe("module");
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(["rxagent", "rxjs"]);
    expect(Object.keys(manifest.devDependencies ?? {}).sort()).toEqual(["@types/node", "typescript"]);
    // The TypeScript of the repo, whose `tsc --init` the section describes.
    const version = (dir: string) => (JSON.parse(readFileSync(join(dir, "node_modules/typescript/package.json"), "utf8")) as { version: string }).version;
    expect(version(app)).toBe(version(REPO));
  });

  it("leaves tsc --init's tsconfig as it is, but for the types the section names", async () => {
    const defaults = join(work, "tsc-defaults");
    mkdirSync(defaults);
    await run("node", [TSC, "--init"], defaults);
    const expected = readFileSync(join(defaults, "tsconfig.json"), "utf8");
    const actual = readFileSync(join(app, "tsconfig.json"), "utf8");
    // The strict defaults rxagent's declarations must hold under.
    for (const option of ['"strict": true', '"exactOptionalPropertyTypes": true', '"noUncheckedIndexedAccess": true', '"verbatimModuleSyntax": true', '"module": "nodenext"']) {
      expect(expected).toContain(option);
    }
    expect(expected).toContain('"types": [],');
    expect(actual).toBe(expected.replace('"types": [],', '"types": ["node"],'));
  });

  it("type-checks the first agent under that tsconfig", async () => {
    for (const [name, code] of Object.entries(section.files)) writeFileSync(join(app, name), code);
    // tsc prints its diagnostics on stdout: run() puts them in the error.
    await shell("npx tsc --noEmit -p .", app);
  }, 120_000);

  it("runs the first agent with the section's command, on the scripted model, offline", async () => {
    let output = "";
    for (const line of section.runCommands) output += await shell(line, app);
    const scripted = /fauxProvider\(\[\{ content: "([^"]+)" \}\]\)/.exec(Object.values(section.files).join("\n"));
    expect(scripted, "the first agent plays a fauxProvider script").not.toBeNull();
    expect(output).toBe(`${scripted![1]}\n(completed)\n`);
  }, 120_000);
});
