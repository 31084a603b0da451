/**
 * The published package, as an app gets it: `npm pack` (which runs the build), then the
 * tarball installed into a fresh app outside the repo, offline, from the npm cache that
 * `npm ci` of this repo filled. The app then loads every `exports` entry from ESM and from
 * CommonJS, runs an agent in both, type-checks consumers of both formats against the oldest
 * and the newest rxjs the peer range is tested with, and bundles a browser entry.
 */
import { execFile, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NPM_CACHE, offlineEnv, REGISTRY, runner } from "./offline-npm.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), "fixtures");
const repoPackage = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
/** The two ends of the peer range the repo caches: the oldest allowed and the pinned one. */
const RXJS_OLDEST = repoPackage.devDependencies["rxjs-7.8.0"]!.replace(/^npm:rxjs@/, "");
const RXJS_PINNED = repoPackage.devDependencies["rxjs"]!;
const TYPES_NODE = repoPackage.devDependencies["@types/node"]!;
const TSC = join(REPO, "node_modules/typescript/bin/tsc");
const VITE = pathToFileURL(join(REPO, "node_modules/vite/dist/node/index.js")).href;
/** A text that occurs once in rxjs's source (UnsubscriptionError), and survives minifying. */
const RXJS_MARKER = "errors occurred during unsubscription";
/** A text that occurs once in ajv's source. */
const AJV_MARKER = "schema must be object or boolean";
/** Texts of run control (approvals, limits, lanes) and of sessions (the journal): in a bundle only when its app uses them. */
const RUN_CONTROL_MARKER = "The run reached its limit of";
/** Approval and lane code (controlled-batch.ts), beside the limits'. */
const LANE_MARKER = "concurrencyKey of tool";
const SESSION_MARKER = "build one agentSession() per Agent";

/** Entries for ES modules only (Angular is): no require condition, no CommonJS build. */
const ESM_ONLY = ["rxagent/angular"];

/** Known exports per entry; every entry of the packed package.json must have one here. */
const KNOWN_EXPORTS: Record<string, string> = {
  rxagent: "Agent",
  "rxagent/core": "Agent",
  "rxagent/testing": "fauxProvider",
  "rxagent/operators": "ofType",
  "rxagent/session": "InMemorySessionStore",
  "rxagent/session/file": "FileSessionStore",
  "rxagent/session/indexeddb": "IndexedDbSessionStore",
  "rxagent/session/postgres": "PostgresSessionStore",
  "rxagent/openai": "openaiCompatible",
  "rxagent/proxy": "streamProxy",
  "rxagent/proxy/node": "toNodeListener",
  "rxagent/retry": "withRetry",
  "rxagent/pi-ai": "fromPiAi",
  "rxagent/mcp": "connectMcpHttp",
  "rxagent/mcp/stdio": "connectMcpStdio",
  "rxagent/otel": "traceAgent",
  "rxagent/ai-sdk": "fromAiSdk",
  "rxagent/ag-ui": "createAgUiHandler",
  "rxagent/server": "createSessionServer",
  "rxagent/server/node": "toNodeListener",
  "rxagent/server/postgres": "postgresRelay",
  "rxagent/remote": "RemoteAgent",
  "rxagent/angular": "injectAgent",
};

/**
 * Optional peers the app installs: `rxagent/mcp` needs the MCP SDK (and zod, the SDK's own
 * peer), `rxagent/otel` the OpenTelemetry API, `rxagent/ai-sdk` the AI SDK's provider types, the
 * PostgreSQL store pg. All of them, not only those the app loads: npm 11 asks the registry for an
 * optional peer that is not in the lock. Versions from the repo's lock.
 */
const OPTIONAL_PEERS = ["@modelcontextprotocol/sdk", "zod", "@opentelemetry/api", "@ai-sdk/provider", "pg", "@angular/core"];

/** The npm cache `npm ci` filled and the registry it came from, read before the npm_* variables are dropped below. */

/**
 * The environment for child npm / node processes. The npm_* variables of an enclosing
 * `npm test` (npm_config_local_prefix=<repo> among them) would make npm act on the repo, so
 * they go. Every request through the proxy fails at once, so anything not in the cache
 * fails the install instead of quietly downloading it.
 */
const CHILD_ENV: NodeJS.ProcessEnv = offlineEnv(undefined, {});

/** Runs a command; rejects with its output when it fails. */
const run = runner(CHILD_ENV, 120_000);

/** The repo's lockfile: what `npm ci` put in the cache, with each package's integrity. */
const repoLock = JSON.parse(readFileSync(join(REPO, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };
interface LockEntry {
  name?: string;
  version: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  [field: string]: unknown;
}

/**
 * The repo's lock entry for a package: for an exact version any entry with that name and
 * version (rxjs 7.8.0 is there as the alias `rxjs-7.8.0`), else the top-level one. `resolved`
 * is filled in because the repo's lockfile omits registry URLs, and without one npm would ask
 * the registry where the tarball is.
 */
function repoLockEntry(name: string, version?: string): { path: string; entry: LockEntry } {
  const found = Object.entries(repoLock.packages).find(([path, entry]) =>
    version ? path !== "" && (entry.name ?? path.replace(/^.*node_modules\//, "")) === name && entry.version === version : path === `node_modules/${name}`,
  );
  if (!found) throw new Error(`${name}${version ? `@${version}` : ""} is not in the repo's package-lock.json, so not in the npm cache`);
  return { path: found[0], entry: appEntry(name, found[1]) };
}

/** A repo lock entry as the app's lock holds it: no alias name, no dev flag, a registry URL. */
function appEntry(name: string, found: LockEntry): LockEntry {
  const { name: _alias, dev: _dev, ...entry } = found;
  return { ...entry, resolved: entry.resolved ?? `${REGISTRY}/${name}/-/${name.split("/").pop()}-${entry.version}.tgz` };
}

/**
 * Where Node finds `name` from the package at `from` (a path in the repo's lock): in its own
 * `node_modules` first, then in each parent's. A dependency whose range the top-level copy does
 * not satisfy sits nested (body-parser's own content-type, say), and the app must get that one:
 * with the top-level copy npm would ask the registry for another.
 */
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
 * Writes the app's package.json and package-lock.json for the tarball, rxjs `rxjs` and
 * @types/node, then installs them. npm resolves a new dependency (and a peer) by fetching its
 * packument, which `npm ci` never caches; so the app gets a lockfile, as a real app has, and
 * npm only fetches tarballs, every one of which `npm ci` of this repo cached. `npm ls --all`
 * afterwards checks every edge the lockfile states, the peer on rxjs included.
 */
async function installApp(rxjs: string): Promise<void> {
  const tarballSpec = `file:${relative(app, tarball).split(sep).join("/")}`;
  const peers = Object.fromEntries(OPTIONAL_PEERS.map((name) => [name, repoLockEntry(name).entry.version]));
  const dependencies = { rxagent: tarballSpec, rxjs, "@types/node": TYPES_NODE, ...peers };
  const packages: Record<string, LockEntry> = {
    "": { name: "rxagent-consumer", version: "1.0.0", dependencies },
    "node_modules/rxagent": {
      version: manifest.version,
      resolved: tarballSpec,
      integrity: packed.integrity,
      license: manifest.license,
      dependencies: manifest.dependencies,
      peerDependencies: manifest.peerDependencies,
    },
  };
  // Each package at its path in the app and the path of the same package in the repo's lock
  // (they differ for an aliased top-level copy: rxjs 7.8.0 is `rxjs-7.8.0` in the repo).
  const queue: { appPath: string; repoPath: string; entry: LockEntry }[] = [];
  const top = (name: string, version?: string) => {
    const { path, entry } = repoLockEntry(name, version);
    queue.push({ appPath: `node_modules/${name}`, repoPath: path, entry });
  };
  top("rxjs", rxjs);
  top("@types/node", TYPES_NODE);
  for (const name of [...OPTIONAL_PEERS, ...Object.keys(manifest.dependencies ?? {})]) top(name);
  for (let next = queue.shift(); next; next = queue.shift()) {
    const { appPath, repoPath, entry } = next;
    if (packages[appPath]) continue;
    packages[appPath] = entry;
    for (const dependency of Object.keys(entry.dependencies ?? {})) {
      const found = resolveInRepoLock(repoPath, dependency);
      // Nested under this package in the repo: nested under it in the app too; else where the repo has it.
      const dependencyAppPath = found.startsWith(`${repoPath}/`) ? `${appPath}${found.slice(repoPath.length)}` : found;
      queue.push({ appPath: dependencyAppPath, repoPath: found, entry: appEntry(dependency, repoLock.packages[found]!) });
    }
  }
  writeFileSync(join(app, "package.json"), `${JSON.stringify({ name: "rxagent-consumer", version: "1.0.0", private: true, dependencies }, null, 2)}\n`);
  writeFileSync(join(app, "package-lock.json"), `${JSON.stringify({ name: "rxagent-consumer", version: "1.0.0", lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], app);
  await run("npm", ["ls", "--all"], app);
}

interface PackResult {
  filename: string;
  integrity: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

type ExportConditions = { types: string; default: string };
interface PackedPackage {
  version: string;
  license: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  exports: Record<string, string | { import: ExportConditions; require?: ExportConditions }>;
}

let work: string;
let app: string;
let packed: PackResult;
let tarball: string;
/** The package.json inside the tarball. */
let manifest: PackedPackage;
/** "rxagent", "rxagent/testing", ...: every code entry of the packed exports map. */
let specifiers: string[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "rxagent-package-"));
  app = join(work, "app");
  expect(relative(REPO, app).startsWith("..")).toBe(true);

  // --json prints the file list; the build's own output goes to stderr or before the JSON.
  const packOutput = await run("npm", ["pack", "--json", "--pack-destination", work], REPO);
  packed = (JSON.parse(packOutput.slice(packOutput.indexOf("[\n"))) as PackResult[])[0]!;
  tarball = join(work, packed.filename);

  manifest = JSON.parse(await run("tar", ["-xzOf", tarball, "package/package.json"], work)) as PackedPackage;

  cpSync(FIXTURES, app, { recursive: true });
  await installApp(RXJS_OLDEST);
  specifiers = Object.keys(manifest.exports)
    .filter((key) => key !== "./package.json")
    .map((key) => posix.join("rxagent", key));
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The rxjs versions `npm ls` shows in the app's tree, and where npm put a copy of rxjs. */
async function rxjsInTree(): Promise<{ versions: string[]; copies: string[] }> {
  type Dependency = { version?: string; dependencies?: Record<string, Dependency> };
  const tree = JSON.parse(await run("npm", ["ls", "rxjs", "--all", "--json"], app)) as Dependency;
  const versions = new Set<string>();
  const walk = (node: Dependency) => {
    for (const [name, child] of Object.entries(node.dependencies ?? {})) {
      if (name === "rxjs" && child.version) versions.add(child.version);
      walk(child);
    }
  };
  walk(tree);
  // `npm ls` names a deduped rxjs under rxagent too; the copies on disk are what bundles see.
  const copies = (JSON.parse(await run("npm", ["query", "#rxjs"], app)) as { location: string }[]).map((node) => node.location);
  return { versions: [...versions], copies };
}

describe("the npm tarball", () => {
  it("holds dist (ESM and CommonJS), src and README, and no tests or benchmarks", () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths.filter((path) => /^(test|bench|node_modules)\//.test(path))).toEqual([]);
    expect(paths).toContain("README.md");
    expect(paths).toContain("dist/cjs/package.json");
    expect(paths.some((path) => path.startsWith("src/"))).toBe(true);
    // rxjs is the app's: a peer, never a dependency of its own.
    expect(manifest.peerDependencies?.["rxjs"]).toMatch(/^\^7\./);
    expect(manifest.dependencies?.["rxjs"]).toBeUndefined();
    // Every code entry has import and require conditions (an ES-module-only entry: import only),
    // each with its own types, and every file the exports map names is packed.
    for (const [key, target] of Object.entries(manifest.exports)) {
      const esmOnly = ESM_ONLY.includes(`rxagent${key.slice(1)}`);
      if (typeof target !== "string") {
        const conditions = { types: expect.any(String), default: expect.any(String) };
        expect(target, key).toEqual(esmOnly ? { import: conditions } : { import: conditions, require: conditions });
        // Conditions match in order: "types" must come before "default".
        expect([Object.keys(target.import)[0], Object.keys(target.require ?? target.import)[0]], key).toEqual(["types", "types"]);
      }
      const files = typeof target === "string" ? [target] : [target.import.types, target.import.default, ...(target.require ? [target.require.types, target.require.default] : [])];
      for (const file of files) expect(paths, file).toContain(posix.normalize(file));
    }
    expect(JSON.parse(readFileSync(join(app, "node_modules/rxagent/dist/cjs/package.json"), "utf8"))).toEqual({ type: "commonjs" });
  });

  it("every source map resolves its sources to files in the tarball", () => {
    const paths = new Set(packed.files.map((file) => file.path));
    const maps = [...paths].filter((path) => path.startsWith("dist/") && path.endsWith(".map"));
    expect(maps.length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const map of maps) {
      const { sources, sourceRoot = "" } = JSON.parse(readFileSync(join(app, "node_modules/rxagent", map), "utf8")) as { sources: string[]; sourceRoot?: string };
      expect(sources.length, map).toBeGreaterThan(0);
      for (const source of sources) {
        const target = posix.normalize(posix.join(posix.dirname(map), sourceRoot, source));
        if (!paths.has(target)) missing.push(`${map} → ${source}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("every exports entry loads from ESM and from CommonJS, each from its own build, with the same exports", async () => {
    expect(Object.keys(KNOWN_EXPORTS).sort()).toEqual([...specifiers].sort());
    const [esm, cjs] = await Promise.all([
      run("node", ["load-entries.mjs", ...specifiers], app).then((out) => JSON.parse(out) as LoadResult),
      run("node", ["load-entries.cjs", ...specifiers.filter((specifier) => !ESM_ONLY.includes(specifier))], app).then((out) => JSON.parse(out) as LoadResult),
    ]);
    type LoadResult = { result: Record<string, Record<string, string>>; files: Record<string, string> };
    const dist = join(app, "node_modules/rxagent/dist") + sep;
    for (const specifier of specifiers) {
      expect(esm.result[specifier]![KNOWN_EXPORTS[specifier]!], `${specifier} (ESM)`).toBe("function");
      if (ESM_ONLY.includes(specifier)) {
        expect(JSON.stringify(manifest.exports[`.${specifier.slice("rxagent".length)}`]), specifier).not.toContain("require");
        continue;
      }
      expect(cjs.result[specifier], `${specifier}: CommonJS exports = ESM exports`).toEqual(esm.result[specifier]);
      const esmFile = fileURLToPath(esm.files[specifier]!);
      expect(esmFile.startsWith(dist) && !esmFile.startsWith(join(dist, "cjs")), esmFile).toBe(true);
      expect(cjs.files[specifier]!.startsWith(join(dist, "cjs") + sep), cjs.files[specifier]).toBe(true);
    }
  });

  it("runs an agent (a tool call, then an answer) from ESM and from CommonJS", async () => {
    const [esm, cjs] = await Promise.all([
      run("node", ["agent-run.mjs"], app).then((out) => JSON.parse(out) as Record<string, unknown>),
      run("node", ["agent-run.cjs"], app).then((out) => JSON.parse(out) as Record<string, unknown>),
    ]);
    for (const result of [esm, cjs]) {
      expect(result).toMatchObject({
        roles: ["system", "user", "assistant", "toolResult", "assistant"],
        toolResult: [{ type: "text", text: "echo: ping" }],
        answer: [{ type: "text", text: "pong" }],
        requests: 2,
        sameRxjs: true,
        ended: "agent_end",
      });
    }
    expect(cjs.loadedFrom).toBe(join(app, "node_modules/rxagent/dist/cjs/index.js"));
  });

  it("has exactly one rxjs in the app's tree", async () => {
    expect(await rxjsInTree()).toEqual({ versions: [RXJS_OLDEST], copies: ["node_modules/rxjs"] });
  });

  it(`type-checks ESM and CommonJS consumers against rxjs ${RXJS_OLDEST}, then ${RXJS_PINNED} (and node16 and bundler resolution)`, async () => {
    for (const [name, body] of Object.entries(CONSUMER_FILES)) writeFileSync(join(app, name), body);
    for (const [name, project] of Object.entries(CONSUMER_PROJECTS)) {
      writeFileSync(join(app, name), JSON.stringify({ compilerOptions: { ...COMMON_OPTIONS, ...project.compilerOptions }, files: Object.keys(project.files) }, null, 2));
    }
    const check = async (rxjs: string, projects: string[]) => {
      expect(JSON.parse(readFileSync(join(app, "node_modules/rxjs/package.json"), "utf8"))).toMatchObject({ version: rxjs });
      const results = await Promise.all(projects.map(async (project) => ({ project, explained: await typeCheck(project) })));
      for (const { project, explained } of results) {
        // Each consumer file reads, for every entry, the declarations of the build Node or the
        // bundler will load for it: dist/ for import, dist/cjs/ for require.
        const { imports, formats } = explainFiles(explained);
        for (const [file, expectedLabel] of Object.entries(CONSUMER_PROJECTS[project]!.files)) {
          const label = (declarations: string) =>
            [formats[declarations], declarations.startsWith("node_modules/rxagent/dist/cjs/") ? "dist/cjs/" : declarations.startsWith("node_modules/rxagent/dist/") ? "dist/" : declarations].filter(Boolean).join(" ");
          const actual = Object.fromEntries(Object.entries(imports[file] ?? {}).filter(([specifier]) => specifier.startsWith("rxagent")).map(([specifier, declarations]) => [specifier, label(declarations)]));
          const imported = expectedLabel.startsWith("CommonJS") ? specifiers.filter((specifier) => !ESM_ONLY.includes(specifier)) : specifiers;
          expect(actual, `${project} ${file}`).toEqual(Object.fromEntries(imported.map((specifier) => [specifier, expectedLabel])));
          expect(imports[file]?.["rxjs"], `${project} ${file}`).toBe("node_modules/rxjs/dist/types/index.d.ts");
        }
      }
    };
    await check(RXJS_OLDEST, ["tsconfig.nodenext.json"]);
    await installApp(RXJS_PINNED);
    expect(await rxjsInTree()).toEqual({ versions: [RXJS_PINNED], copies: ["node_modules/rxjs"] });
    await check(RXJS_PINNED, Object.keys(CONSUMER_PROJECTS));
  }, 240_000);

  it("bundles a browser entry with one copy of rxjs, and tree-shakes what an entry does not use: ajv only where the app names ajvValidator", async () => {
    const bundles = JSON.parse(await run("node", ["bundle.mjs", VITE, app, "browser-agent.js", "browser-agent-ajv.js", "browser-tiny.js"], app)) as Record<string, { fileName: string; code: string }[]>;
    const agentCode = bundles["browser-agent.js"]!.map((chunk) => chunk.code).join("\n");
    const tinyCode = bundles["browser-tiny.js"]!.map((chunk) => chunk.code).join("\n");
    expect(agentCode.split(RXJS_MARKER).length - 1).toBe(1);
    // The OpenAI provider is in: its endpoint path is a string, which minifying keeps.
    expect(agentCode).toContain("chat/completions");
    expect(tinyCode.split(RXJS_MARKER).length - 1).toBe(0);
    expect(tinyCode).not.toContain(AJV_MARKER);
    expect(tinyCode.length).toBeLessThan(2_000);
    const minGz = gzipSync(agentCode).length;
    // The one Agent with its default validator: no ajv and no generated code (strict-CSP pages).
    expect(agentCode).not.toContain(AJV_MARKER);
    expect(agentCode).not.toMatch(/new Function\(/);
    // The same Agent with ajvValidator named: ajv is in, and the rest is the same.
    const ajvCode = bundles["browser-agent-ajv.js"]!.map((chunk) => chunk.code).join("\n");
    expect(ajvCode).toContain(AJV_MARKER);
    expect(ajvCode).toContain("chat/completions");
    expect(ajvCode.split(RXJS_MARKER).length - 1).toBe(1);
    // Run control is built into the Agent; neither page keeps a session.
    for (const code of [agentCode, ajvCode]) {
      expect(code).toContain(RUN_CONTROL_MARKER);
      expect(code).toContain(LANE_MARKER);
      expect(code).not.toContain(SESSION_MARKER);
    }
    const ajvGz = gzipSync(ajvCode).length;
    expect(ajvGz).toBeGreaterThan(minGz + 20_000);
    console.log(`tarball ${packed.filename}: ${packed.size} bytes, ${packed.entryCount} files (${packed.unpackedSize} unpacked); browser bundle Agent + rxagent/openai: ${agentCode.length} bytes min, ${minGz} bytes min+gz; with ajvValidator named: ${ajvCode.length} bytes min, ${ajvGz} bytes min+gz; tiny entry ${tinyCode.length} bytes`);
  }, 120_000);
});

/** Type-checks one consumer project; returns tsc's account of every file the program read. */
async function typeCheck(project: string): Promise<string> {
  try {
    return await run("node", [TSC, "-p", project, "--explainFiles"], app);
  } catch (error) {
    // Keep the diagnostics and their indented details, drop the file list and its reasons.
    const explanation = /^\s+(Imported via|Matched by|Root file|Library|Default library|File is|Entry point|Part of|Type library|Referenced via|File redirects)/;
    const lines = (error as Error).message.split("\n");
    const diagnostics = lines.filter((line) => / error TS\d+:|failed:/.test(line) || (/^\s/.test(line) && !explanation.test(line)));
    // The MCP SDK's own CommonJS declarations fail `skipLibCheck: false` under node16/nodenext
    // (TS1541, a type-only import of an ES module); that is the SDK's, in its files, and the only
    // error let through. Any error in rxagent's declarations, or anywhere else, still fails.
    const ours = diagnostics.filter((line) => / error TS\d+:/.test(line) && !PEER_DECLARATION_ERROR.test(line));
    if (ours.length === 0 && diagnostics.some((line) => PEER_DECLARATION_ERROR.test(line))) return (error as Error).message;
    throw new Error(diagnostics.join("\n"));
  }
}

/** The one error a peer's declarations bring (see `typeCheck`). */
const PEER_DECLARATION_ERROR = /^node_modules\/@modelcontextprotocol\/sdk\/dist\/cjs\/.*error TS1541:/;

/** Compiler options every consumer project shares: the strictest reading of the types. */
const COMMON_OPTIONS = {
  strict: true,
  skipLibCheck: false,
  // TypeScript's own lib files (lib.dom.d.ts above all) are not what is under test and cost
  // seconds per program; the declarations of rxagent, rxjs and @types/node are still checked.
  skipDefaultLibCheck: true,
  noEmit: true,
  target: "ES2022",
  lib: ["ES2022", "DOM"],
  types: ["node"],
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
};

/**
 * The consumer projects, and what each file's rxagent imports must resolve to: the module
 * format TypeScript gives the declarations (under node16 and nodenext, the .mts file is ESM
 * and reads import conditions, the .cts file is CommonJS and reads require conditions) and
 * their folder. Bundler resolution reads import conditions.
 */
const CONSUMER_PROJECTS: Record<string, { compilerOptions: Record<string, string>; files: Record<string, string> }> = {
  "tsconfig.nodenext.json": { compilerOptions: { module: "nodenext", moduleResolution: "nodenext" }, files: { "consumer.mts": "ECMAScript dist/", "consumer.cts": "CommonJS dist/cjs/" } },
  "tsconfig.node16.json": { compilerOptions: { module: "node16", moduleResolution: "node16" }, files: { "consumer.mts": "ECMAScript dist/", "consumer.cts": "CommonJS dist/cjs/" } },
  "tsconfig.bundler.json": { compilerOptions: { module: "esnext", moduleResolution: "bundler" }, files: { "consumer.ts": "ECMAScript dist/" } },
};

/**
 * Reads `tsc --explainFiles`: each program file on a line of its own, then indented lines
 * saying why it is there (`Imported via "rxagent" from file 'consumer.cts' with packageId
 * ...`) and which module format it has (`File is CommonJS module
 * because ...`). Returns, per importing file, the file each bare specifier resolved to, and
 * each file's format.
 */
function explainFiles(explained: string): { imports: Record<string, Record<string, string>>; formats: Record<string, string> } {
  const imports: Record<string, Record<string, string>> = {};
  const formats: Record<string, string> = {};
  let current = "";
  for (const line of explained.split("\n")) {
    if (!line.startsWith(" ")) current = line.trim();
    const imported = /^\s+Imported via "([^".][^"]*)" from file '([^']+)'/.exec(line);
    if (imported) (imports[imported[2]!] ??= {})[imported[1]!] = current;
    const format = /^\s+File is (CommonJS|ECMAScript) module/.exec(line);
    if (format) formats[current] = format[1]!;
  }
  return { imports, formats };
}

/**
 * One consumer, written as .mts, .cts and .ts: the same import statements become `import`s
 * in the first and `require`s in the second under nodenext, so each format is checked.
 */
const CONSUMER = `import { filter, map, Observable, type SchedulerLike, firstValueFrom, toArray } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { Agent, agentLoop, ajvValidator, type AgentEvent, type AgentTool, type AgentToolResult, type UserMessage } from "rxagent";
import { Agent as CoreAgent, interpretingValidator } from "rxagent/core";
import { fauxProvider, fauxText, fauxToolCall, type FauxProvider } from "rxagent/testing";
import { ofType } from "rxagent/operators";
import { openaiCompatible } from "rxagent/openai";
import { createProxyHandler, streamProxy } from "rxagent/proxy";
import { toNodeListener } from "rxagent/proxy/node";
import { withRetry } from "rxagent/retry";
import { fromPiAi, fromPiAiModel } from "rxagent/pi-ai";
import { agentSession, forkSession, InMemorySessionStore, type SessionStore } from "rxagent/session";
import { FileSessionStore } from "rxagent/session/file";
import { IndexedDbSessionStore } from "rxagent/session/indexeddb";
import { PostgresSessionStore, type PostgresPool } from "rxagent/session/postgres";
import { connectMcpHttp } from "rxagent/mcp";
import { connectMcpStdio } from "rxagent/mcp/stdio";
import { traceAgent } from "rxagent/otel";
import { fromAiSdk } from "rxagent/ai-sdk";
import { createAgUiHandler, toAgUiEvents } from "rxagent/ag-ui";
import { createSessionServer } from "rxagent/server";
import { toNodeListener as sessionListener } from "rxagent/server/node";
import { postgresRelay, type RelayPool } from "rxagent/server/postgres";
import { RemoteAgent } from "rxagent/remote";
import type { AgentLike } from "rxagent";

/** A tool whose execute returns an Observable: two progress updates, then the result. */
const countdown: AgentTool<{ from: number }, { left: number }> = {
  name: "countdown",
  label: "Countdown",
  description: "Counts down.",
  parameters: { type: "object", properties: { from: { type: "number" } }, required: ["from"] },
  execute: (_id, { from }) =>
    new Observable<AgentToolResult<{ left: number }>>((subscriber) => {
      for (let left = from; left >= 0; left--) subscriber.next({ content: [{ type: "text", text: String(left) }], details: { left } });
      subscriber.complete();
    }),
};

// rxjs/testing's TestScheduler where rxagent expects a SchedulerLike.
const scheduler = new TestScheduler((actual, expected) => {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error("mismatch");
});
const clock: SchedulerLike = scheduler;
const provider = fauxProvider([{ content: [fauxToolCall("countdown", { from: 2 })] }, { content: [fauxText("Liftoff")] }], { scheduler, delay: 1 });
const recorded: FauxProvider = provider;
const agent = new Agent({ streamFn: recorded, scheduler: clock, initialState: { model: fromPiAiModel({ id: "faux-1", api: "faux", provider: "faux" }), tools: [countdown] } });

// rxagent's Observables are the app's rxjs Observables.
const events: Observable<AgentEvent> = agent.events$;
const user: UserMessage = { role: "user", content: "Count down from 2", timestamp: 0 };
const run$: Observable<AgentEvent> = agentLoop([user], { messages: [], tools: [countdown] }, { model: provider.model }, undefined, provider);
const toolUpdates$: Observable<number> = run$.pipe(
  filter((event): event is Extract<AgentEvent, { type: "tool_execution_update" }> => event.type === "tool_execution_update"),
  map((event) => (event.partialResult.details as { left: number }).left),
);
export const done: Promise<number[]> = firstValueFrom(toolUpdates$.pipe(toArray()));
export const typed: Observable<string> = events.pipe(map((event) => event.type));
// ofType narrows: \`outcome\` exists only on agent_end.
export const outcomes: Observable<string> = events.pipe(ofType("agent_end"), map((end) => end.outcome));

// The other entries: only that they type-check.
export const openai = withRetry(openaiCompatible({ baseUrl: "http://localhost:1/v1", apiKey: "key" }));
export const proxied = streamProxy({ url: "/api/stream", authToken: "token" });
export const handler = toNodeListener(createProxyHandler({ streamFn: openaiCompatible({}), token: "token", models: [{ id: "gpt-4o-mini", api: "openai-completions", provider: "openai" }] }));
export const piAi = fromPiAi(() => undefined);
// rxagent/core re-exports rxagent: the same Agent class.
export const strict: CoreAgent = new CoreAgent({ streamFn: provider, validator: interpretingValidator });
export const same: Agent = strict;
export const fast = new Agent({ streamFn: provider, validator: ajvValidator });
// Durable sessions: every store is a SessionStore, the Agent takes one.
const memory: SessionStore = new InMemorySessionStore();
export const stores: SessionStore[] = [memory, new FileSessionStore({ directory: "sessions" })];
export const browserStore = (factory: IDBFactory): SessionStore => new IndexedDbSessionStore({ indexedDB: factory });
export const serviceStore = (pool: PostgresPool): SessionStore => new PostgresSessionStore({ pool });
export const durable = new Agent({ streamFn: provider, initialState: { model: provider.model }, session: agentSession({ store: memory, id: "chat-1" }) });
export const resumed: Promise<void> = durable.resume();
export const forked = forkSession(memory, "chat-1", "chat-2", { messages: 1 });
// MCP, tracing and AI SDK models: the entries resolve, with their peers' types.
export const mcpEntries = [connectMcpHttp, connectMcpStdio] as const;
export const traced: Observable<AgentEvent> = run$.pipe(traceAgent());
export const fromModel = fromAiSdk;
// Run control.
export const limited = new Agent({ streamFn: provider, initialState: { model: provider.model }, limits: { maxTurns: 4 }, maxConcurrency: 2 });
export const approve: (toolCallId: string) => void = (id) => limited.approve(id);
// The agent on a server, followed from a page: a remote agent and a local one are both AgentLike.
export const sessions = sessionListener(createSessionServer({ agentFor: () => new Agent({ streamFn: provider }), authenticate: () => "user", authorize: () => true }).handle);
export const relayedSessions = (pool: RelayPool) => createSessionServer({ agentFor: () => new Agent({ streamFn: provider }), authenticate: () => "user", authorize: () => true, relay: postgresRelay({ pool }) });
export const remote: AgentLike = new RemoteAgent({ url: "/sessions/chat-1" });
export const local: AgentLike = agent;
// AG-UI: the handler an HttpAgent runs against, and the mapping as an operator.
export const agUi = createAgUiHandler({ agentFor: () => agent, token: "token" });
export const agUiEvents = run$.pipe(toAgUiEvents({ threadId: "t1", runId: "r1" }));
`;

/** What only an ES module can import: rxagent/angular (Angular ships ES modules only). */
const ESM_CONSUMER = `import { injectAgent, provideAgent } from "rxagent/angular";
export const angularProviders = provideAgent(() => remote);
export const signals = injectAgent;
`;
const CONSUMER_FILES: Record<string, string> = { "consumer.mts": CONSUMER + ESM_CONSUMER, "consumer.cts": CONSUMER, "consumer.ts": CONSUMER + ESM_CONSUMER };
