/**
 * The equivalent-mutant index (docs/mutation.md). Stryker skips a mutant only through a
 * `// Stryker disable next-line <Mutator>: <reason>` comment in the source, and such a comment
 * hides every mutant of that mutator starting on the next line. This test holds every comment
 * to one form (MUT1), keeps test/mutation/equivalent-mutants.json an exact list of the comments
 * (MUT2) and of the mutants each one hides, as Stryker's own instrumenter finds them (MUT3).
 * So every exclusion is reviewed in one place, and none hides more than it says.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Instrumenter } from "@stryker-mutator/instrumenter";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const INDEX = join(ROOT, "test/mutation/equivalent-mutants.json");

/** The mutators of the installed Stryker (9.6.1); checked against its instrumenter below. */
const MUTATORS = [
  "ArithmeticOperator",
  "ArrayDeclaration",
  "ArrowFunction",
  "AssignmentOperator",
  "BlockStatement",
  "BooleanLiteral",
  "ConditionalExpression",
  "EqualityOperator",
  "LogicalOperator",
  "MethodExpression",
  "ObjectLiteral",
  "OptionalChaining",
  "Regex",
  "StringLiteral",
  "UnaryOperator",
  "UpdateOperator",
];

/** Shorter than this, a reason names the mutant instead of saying why it cannot change behaviour. */
const MIN_REASON = 20;
/** Longer originals (a whole block, say) are cut in an `ignores` line. */
const MAX_ORIGINAL = 100;

/** The expression Stryker's instrumenter applies to a comment's text to find a directive. */
const STRYKER_DIRECTIVE = /^\s?Stryker (disable|restore)(?: (next-line))? ([a-zA-Z, ]+)(?::(.+)?)?/;
/** Any comment that looks like it means to be one. */
const MENTIONS_DIRECTIVE = /Stryker\s+(disable|restore)\b/i;

interface Directive {
  file: string;
  line: number;
  mutators: string[];
  reason: string;
  /** Why the comment breaks MUT1; empty when it is well formed. */
  problems: string[];
}

interface IndexEntry {
  file: string;
  mutators: string[];
  reason: string;
  /** The mutants the comment hides, as `<Mutator>: <original> -> <replacement>`. */
  ignores: string[];
}

/** Every comment of `source` that is (or looks like) a Stryker directive, checked against MUT1. */
function directivesIn(file: string, source: string): Directive[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const lines = source.split("\n");
  const seen = new Set<number>();
  const found: Directive[] = [];
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      const raw = source.slice(range.pos, range.end);
      const value = range.kind === ts.SyntaxKind.SingleLineCommentTrivia ? raw.slice(2) : raw.slice(2, -2);
      if (!MENTIONS_DIRECTIVE.test(value)) continue;
      const { line, character } = sourceFile.getLineAndCharacterOfPosition(range.pos);
      found.push({ file, line: line + 1, ...checkDirective(value, lines[line]!.slice(0, character)) });
    }
  };
  const visit = (node: ts.Node) => {
    take(ts.getLeadingCommentRanges(source, node.pos));
    take(ts.getTrailingCommentRanges(source, node.end));
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  const reasons = new Set<string>();
  for (const d of found) {
    if (d.reason !== "" && reasons.has(d.reason)) d.problems.push("repeats the reason of another comment in this file: give each its own");
    reasons.add(d.reason);
  }
  return found;
}

function checkDirective(value: string, before: string): Omit<Directive, "file" | "line"> {
  const match = STRYKER_DIRECTIVE.exec(value);
  if (!match) return { mutators: [], reason: "", problems: ["Stryker does not read this comment: write `// Stryker disable next-line <Mutator>: <reason>`"] };
  const [, kind, scope, names = "", reasonText] = match;
  const mutators = names.split(",").map((name) => name.trim()).filter((name) => name !== "");
  const reason = (reasonText ?? "").trim();
  const problems: string[] = [];
  if (kind !== "disable" || scope !== "next-line") problems.push(`only "Stryker disable next-line" is allowed, not "Stryker ${kind}${scope ? ` ${scope}` : ""}": one line at a time`);
  if (mutators.length === 0) problems.push("names no mutator");
  for (const name of mutators) {
    if (name.toLowerCase() === "all") problems.push('"all" disables every mutator: name the ones that are equivalent');
    else if (!MUTATORS.includes(name)) problems.push(`"${name}" is not a Stryker mutator (${MUTATORS.join(", ")})`);
  }
  if (reason.length < MIN_REASON) problems.push(`needs a reason after ":" of at least ${MIN_REASON} characters saying why the mutant cannot change behaviour`);
  if (before.trim() !== "") problems.push("must stand on its own line, above the code it is about");
  return { mutators, reason, problems };
}

/** The index file's entries; throws when it does not have the documented shape. */
function readIndex(json: unknown): IndexEntry[] {
  const mutants = (json as { mutants?: unknown } | null)?.mutants;
  if (!Array.isArray(mutants)) throw new Error('the index needs a "mutants" array');
  const strings = (value: unknown): value is string[] => Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string");
  return mutants.map((entry: unknown, i) => {
    const { file, mutators, reason, ignores, ...rest } = (entry ?? {}) as Record<string, unknown>;
    if (typeof file !== "string" || !strings(mutators) || typeof reason !== "string" || !strings(ignores)) {
      throw new Error(`mutants[${i}] needs "file" (string), "mutators" (non-empty string array), "reason" (string) and "ignores" (non-empty string array)`);
    }
    if (Object.keys(rest).length > 0) throw new Error(`mutants[${i}] has unknown keys: ${Object.keys(rest).join(", ")}`);
    return { file, mutators, reason, ignores };
  });
}

const keyOf = (d: Pick<IndexEntry, "file" | "mutators" | "reason">) => `${d.file}: ${[...d.mutators].sort().join(", ")}: ${d.reason}`;

/** Per file, the mutants Stryker ignores there, by the comment's reason. */
type Ignored = ReadonlyMap<string, ReadonlyMap<string, string[]>>;

/**
 * What keeps the index and the comments from being the same list (MUT2), compared as multisets.
 * An unlisted comment is reported with the entry to add (its `ignores` from `ignored`).
 */
function mismatches(index: readonly IndexEntry[], directives: readonly Directive[], ignored: Ignored = new Map()): string[] {
  const counts = new Map<string, number>();
  for (const entry of index) counts.set(keyOf(entry), (counts.get(keyOf(entry)) ?? 0) + 1);
  const found: string[] = [];
  for (const d of directives) {
    for (const problem of d.problems) found.push(`${d.file}:${d.line}: ${problem}`);
    if (d.problems.length > 0) continue;
    const left = counts.get(keyOf(d)) ?? 0;
    const entry = { file: d.file, mutators: d.mutators, reason: d.reason, ignores: ignored.get(d.file)?.get(d.reason) ?? [] };
    if (left === 0) found.push(`${d.file}:${d.line}: not listed in test/mutation/equivalent-mutants.json; the entry would be ${JSON.stringify(entry)}`);
    else counts.set(keyOf(d), left - 1);
  }
  for (const [key, left] of counts) for (let i = 0; i < left; i++) found.push(`listed but no such comment in the source: ${key}`);
  return found;
}

const quietLogger = {
  isTraceEnabled: () => false,
  isDebugEnabled: () => false,
  isInfoEnabled: () => false,
  isWarnEnabled: () => false,
  isErrorEnabled: () => false,
  isFatalEnabled: () => false,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  fatal: () => undefined,
};

/** The mutants Stryker's instrumenter marks Ignored in `source`, by the comment's reason. */
async function ignoredIn(file: string, source: string): Promise<Map<string, string[]>> {
  const { mutants } = await new Instrumenter(quietLogger).instrument([{ name: join(ROOT, file), mutate: true, content: source }], { plugins: null, excludedMutations: [], ignorers: [] });
  const lines = source.split("\n");
  const flat = (text: string) => text.replace(/\s+/g, " ").trim();
  const byReason = new Map<string, string[]>();
  for (const mutant of mutants) {
    if (mutant.status !== "Ignored" || mutant.statusReason === undefined) continue;
    const { start, end } = mutant.location; // lines and columns from 0
    const text = start.line === end.line ? lines[start.line]!.slice(start.column, end.column) : [lines[start.line]!.slice(start.column), ...lines.slice(start.line + 1, end.line), lines[end.line]!.slice(0, end.column)].join("\n");
    const original = flat(text).length > MAX_ORIGINAL ? `${flat(text).slice(0, MAX_ORIGINAL)}…` : flat(text);
    byReason.set(mutant.statusReason, [...(byReason.get(mutant.statusReason) ?? []), `${mutant.mutatorName}: ${original} -> ${flat(mutant.replacement)}`]);
  }
  return byReason;
}

/** What Stryker ignores in each of `files`. */
async function ignoredInFiles(files: Iterable<string>, read: (file: string) => string): Promise<Ignored> {
  const ignored = new Map<string, ReadonlyMap<string, string[]>>();
  for (const file of new Set(files)) ignored.set(file, await ignoredIn(file, read(file)));
  return ignored;
}

/** Where an entry's `ignores` is not exactly what its comment hides (MUT3). */
function ignoreMismatches(index: readonly IndexEntry[], ignored: Ignored): string[] {
  const found: string[] = [];
  for (const entry of index) {
    const actual = [...(ignored.get(entry.file)?.get(entry.reason) ?? [])].sort();
    const listed = [...entry.ignores].sort();
    if (JSON.stringify(actual) !== JSON.stringify(listed)) {
      found.push(`${keyOf(entry)}: the comment hides ${JSON.stringify(actual)}, the index lists ${JSON.stringify(listed)}`);
    }
  }
  return found;
}

/** Every TypeScript file under src/, as a path from the repository root. */
function sourceFiles(): string[] {
  const files = readdirSync(join(ROOT, "src"), { recursive: true, encoding: "utf8" }).filter((f) => /\.[cm]?tsx?$/.test(f));
  return files.map((f) => relative(ROOT, join(ROOT, "src", f)).split(sep).join("/")).sort();
}

const reasonText = "the value is clamped again by the caller";

describe("MUT1: an equivalent mutant is one `Stryker disable next-line <Mutator>: <reason>` comment", () => {
  it("MUT1: reads a line comment and a block comment with their mutators and reason", () => {
    const source = [
      "export function f(a: number): number {",
      `  // Stryker disable next-line EqualityOperator, ConditionalExpression: ${reasonText}`,
      "  if (a <= 0) return 0;",
      `  /* Stryker disable next-line ArithmeticOperator: ${reasonText}, twice */`,
      "  return a - 1;",
      "}",
    ].join("\n");
    expect(directivesIn("src/f.ts", source)).toEqual([
      { file: "src/f.ts", line: 2, mutators: ["EqualityOperator", "ConditionalExpression"], reason: reasonText, problems: [] },
      { file: "src/f.ts", line: 4, mutators: ["ArithmeticOperator"], reason: `${reasonText}, twice`, problems: [] },
    ]);
  });

  it("MUT1: refuses blanket and unreasoned forms, unknown mutators and comments Stryker would not read", () => {
    const problemsOf = (comment: string) => directivesIn("src/f.ts", `${comment}\nexport const x = 1;\n`).flatMap((d) => d.problems);
    expect(problemsOf(`// Stryker disable all: ${reasonText}`)).toEqual([expect.stringContaining('not "Stryker disable"'), expect.stringContaining('"all"')]);
    expect(problemsOf(`// Stryker disable next-line all: ${reasonText}`)).toEqual([expect.stringContaining('"all"')]);
    expect(problemsOf(`// Stryker disable StringLiteral: ${reasonText}`)).toEqual([expect.stringContaining("one line at a time")]);
    expect(problemsOf("// Stryker restore StringLiteral")).toEqual([expect.stringContaining("one line at a time"), expect.stringContaining("needs a reason")]);
    expect(problemsOf("// Stryker disable next-line StringLiteral")).toEqual([expect.stringContaining("needs a reason")]);
    expect(problemsOf("// Stryker disable next-line StringLiteral: same")).toEqual([expect.stringContaining("needs a reason")]);
    expect(problemsOf(`// Stryker disable next-line StringLitteral: ${reasonText}`)).toEqual([expect.stringContaining('"StringLitteral" is not a Stryker mutator')]);
    expect(problemsOf(`//   Stryker disable next-line StringLiteral: ${reasonText}`)).toEqual([expect.stringContaining("Stryker does not read this comment")]);
    expect(directivesIn("src/f.ts", `export const x = 1; // Stryker disable next-line StringLiteral: ${reasonText}\n`)[0]!.problems).toEqual([expect.stringContaining("its own line")]);
  });

  it("MUT1: two comments of a file do not share a reason (the reason is how Stryker's report tells them apart)", () => {
    const comment = `// Stryker disable next-line StringLiteral: ${reasonText}`;
    const problems = directivesIn("src/f.ts", `${comment}\nexport const x = "a";\n${comment}\nexport const y = "b";\n`).map((d) => d.problems);
    expect(problems).toEqual([[], [expect.stringContaining("repeats the reason")]]);
  });

  it("MUT1: other comments and strings that mention Stryker are not directives", () => {
    const source = `// Mutation testing uses Stryker.\nexport const s = "Stryker disable next-line";\n`;
    expect(directivesIn("src/f.ts", source)).toEqual([]);
  });

  it("MUT1: the mutator names are those of the installed Stryker", () => {
    const require = createRequire(import.meta.url);
    const dir = join(dirname(require.resolve("@stryker-mutator/instrumenter/package.json")), "dist/src/mutators");
    const names = readdirSync(dir)
      .filter((f) => f.endsWith("-mutator.js"))
      .flatMap((f) => [...readFileSync(join(dir, f), "utf8").matchAll(/^\s*name: '(\w+)',$/gm)].map((m) => m[1]!));
    expect([...new Set(names)].sort()).toEqual(MUTATORS);
  });
});

describe("MUT2: test/mutation/equivalent-mutants.json lists exactly the comments in src/", () => {
  const directive = (file: string, mutators: string[], reason = reasonText): Directive => ({ file, line: 3, mutators, reason, problems: [] });
  const entry = (file: string, mutators: string[], reason = reasonText): IndexEntry => ({ file, mutators, reason, ignores: ["StringLiteral: \"a\" -> \"\""] });

  it("MUT2: a listed comment matches; an unlisted comment and a listed comment that is gone are reported", () => {
    const a = directive("src/a.ts", ["EqualityOperator"]);
    expect(mismatches([entry("src/a.ts", ["EqualityOperator"])], [a])).toEqual([]);
    expect(mismatches([], [a])).toEqual([expect.stringMatching(/^src\/a\.ts:3: not listed/)]);
    expect(mismatches([entry("src/b.ts", ["StringLiteral"])], [a])).toEqual([
      expect.stringMatching(/^src\/a\.ts:3: not listed/),
      expect.stringMatching(/^listed but no such comment in the source: src\/b\.ts/),
    ]);
  });

  it("MUT2: the reason, the file and the mutators must be the same; the mutators in any order; each comment listed once", () => {
    const a = directive("src/a.ts", ["EqualityOperator", "ConditionalExpression"]);
    const listed = entry("src/a.ts", ["ConditionalExpression", "EqualityOperator"]);
    expect(mismatches([listed], [a])).toEqual([]);
    expect(mismatches([{ ...listed, reason: "another reason, though long enough" }], [a])).toHaveLength(2);
    expect(mismatches([{ ...listed, file: "src/b.ts" }], [a])).toHaveLength(2);
    expect(mismatches([{ ...listed, mutators: ["EqualityOperator"] }], [a])).toHaveLength(2);
    expect(mismatches([listed], [a, a])).toEqual([expect.stringContaining("not listed")]);
    expect(mismatches([listed, listed], [a])).toEqual([expect.stringContaining("listed but no such comment")]);
  });

  it("MUT2: a malformed comment is reported even when listed", () => {
    const bad = { ...directive("src/a.ts", ["all"]), problems: ['"all" disables every mutator'] };
    expect(mismatches([entry("src/a.ts", ["all"])], [bad])).toEqual(['src/a.ts:3: "all" disables every mutator', expect.stringContaining("listed but no such comment")]);
  });

  it("MUT2: the index has the documented shape", () => {
    expect(readIndex({ mutants: [] })).toEqual([]);
    expect(readIndex({ mutants: [entry("src/a.ts", ["StringLiteral"])] })).toEqual([entry("src/a.ts", ["StringLiteral"])]);
    expect(() => readIndex({})).toThrow(/"mutants" array/);
    expect(() => readIndex({ mutants: [{ ...entry("src/a.ts", []) }] })).toThrow(/mutants\[0\]/);
    expect(() => readIndex({ mutants: [{ ...entry("src/a.ts", ["StringLiteral"]), ignores: [] }] })).toThrow(/mutants\[0\]/);
    expect(() => readIndex({ mutants: [{ ...entry("src/a.ts", ["StringLiteral"]), line: 3 }] })).toThrow(/unknown keys: line/);
  });
});

describe("MUT3: each entry lists exactly the mutants its comment hides", () => {
  const reason = "with maxToolCalls undefined, `this.calls >= undefined` is already false";
  // One comment above a condition hides every ConditionalExpression mutant that starts on that line.
  const source = [
    "export function admit(calls: number, maxToolCalls: number | undefined): boolean {",
    `  // Stryker disable next-line ConditionalExpression: ${reason}`,
    "  if (maxToolCalls !== undefined && calls >= maxToolCalls) return false;",
    "  return true;",
    "}",
    "",
  ].join("\n");
  const file = "src/fixture.ts";
  const listed = (ignores: string[]): IndexEntry => ({ file, mutators: ["ConditionalExpression"], reason, ignores });

  it("MUT3: finds what Stryker's instrumenter ignores, by reason", async () => {
    const ignored = await ignoredIn(file, source);
    expect([...ignored.keys()]).toEqual([reason]);
    expect(ignored.get(reason)!.sort()).toEqual([
      "ConditionalExpression: calls >= maxToolCalls -> true",
      "ConditionalExpression: maxToolCalls !== undefined && calls >= maxToolCalls -> false",
      "ConditionalExpression: maxToolCalls !== undefined && calls >= maxToolCalls -> true",
      "ConditionalExpression: maxToolCalls !== undefined -> true",
    ]);
  });

  it("MUT3: an entry that lists only the equivalent mutant fails, because the comment hides three that are not", async () => {
    const problems = ignoreMismatches([listed(["ConditionalExpression: maxToolCalls !== undefined -> true"])], await ignoredInFiles([file], () => source));
    expect(problems).toEqual([expect.stringContaining("the comment hides")]);
  });

  it("MUT3: an entry that lists all four passes (and then the reviewer sees what is hidden)", async () => {
    const all = (await ignoredIn(file, source)).get(reason)!;
    expect(ignoreMismatches([listed([...all].reverse())], await ignoredInFiles([file], () => source))).toEqual([]);
  });

  it("MUT3: an unlisted comment is reported with the entry to add, its ignores included", async () => {
    const [directive] = directivesIn(file, source);
    const [problem] = mismatches([], [directive!], await ignoredInFiles([file], () => source));
    const suggested = JSON.parse(problem!.slice(problem!.indexOf("{"))) as IndexEntry;
    expect(suggested).toEqual({ ...listed([]), ignores: expect.arrayContaining(["ConditionalExpression: maxToolCalls !== undefined -> true"]) });
    expect(suggested.ignores).toHaveLength(4);
  });

  it("MUT3: an entry whose comment hides nothing any more fails", async () => {
    // The condition was rewritten, the comment stayed.
    const edited = source.replace("if (maxToolCalls !== undefined && calls >= maxToolCalls) return false;", "void calls;");
    expect(edited).not.toBe(source);
    const problems = ignoreMismatches([listed(["ConditionalExpression: maxToolCalls !== undefined -> true"])], await ignoredInFiles([file], () => edited));
    expect(problems).toEqual([expect.stringContaining("the comment hides []")]);
  });
});

describe("the repository's index", () => {
  it("MUT2, MUT3: the index, the Stryker comments in src/ and the mutants they hide agree", async () => {
    const index = readIndex(JSON.parse(readFileSync(INDEX, "utf8")));
    const files = sourceFiles();
    expect(files).toEqual(expect.arrayContaining(["src/loop/agent-loop.ts", "src/run-control/call-budget.ts", "src/agent/agent.ts", "src/stream/assistant-stream.ts"]));
    const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
    const directives = files.flatMap((file) => directivesIn(file, read(file)));
    const ignored = await ignoredInFiles([...index.map((e) => e.file), ...directives.map((d) => d.file)], read);
    expect(mismatches(index, directives, ignored)).toEqual([]);
    expect(ignoreMismatches(index, ignored)).toEqual([]);
  });
});
