/**
 * Mutation testing of the core (`npm run mutation`; docs/mutation.md): the loop, the tools, the
 * Agent and the assistant stream, against the in-process test suites (vitest.mutation.config.ts).
 * Equivalent mutants are `// Stryker disable next-line <Mutator>: <reason>` comments in the source,
 * listed in test/mutation/equivalent-mutants.json; nothing is excluded here by mutator or by file.
 *
 * @type {import("@stryker-mutator/api/core").PartialStrykerOptions}
 */
export default {
  mutate: ["src/engine/**/*.ts", "src/rx/**/*.ts", "src/loop/**/*.ts", "src/tools/**/*.ts", "src/run-control/**/*.ts", "src/agent/**/*.ts", "src/stream/**/*.ts"],

  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "vitest.mutation.config.ts", related: true },
  // Each mutant runs only the tests that reached it in the dry run.
  coverageAnalysis: "perTest",

  // Two shared cores: one test runner, so the tests' virtual-time and timer assertions keep their margins.
  concurrency: 1,
  // A mutant's allowed time is timeoutFactor × the covering tests' dry-run time + timeoutMS; a
  // loaded machine needs more slack than the defaults (1.5, 5 s) to keep slow runs from counting as timeouts.
  timeoutFactor: 2,
  timeoutMS: 10_000,
  // The dry run is the whole in-process suite with coverage; the default of 5 minutes is too short here.
  dryRunTimeoutMinutes: 30,

  reporters: ["html", "json", "clear-text", "progress"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  // The console lists each survivor with up to three of the tests that ran it, not every test.
  clearTextReporter: { reportTests: false, logTests: true, maxTestsToLog: 3 },
  incrementalFile: "reports/mutation/stryker-incremental.json",

  // What the sandbox copy leaves out (node_modules is linked, not copied; .git and reports/ are
  // always left out): build output, the benchmark package, generated docs and build caches.
  ignorePatterns: ["/dist", "/bench", "/docs/api", "/examples/angular/dist", "/examples/angular/.angular", "/examples/web/dist", "/coverage", "*.tgz", ".cache"],
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
};
