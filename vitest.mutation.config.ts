/**
 * The vitest config Stryker runs (`npm run mutation`, see docs/mutation.md): the normal suite minus
 * the suites that cannot kill a mutant of the mutated folders (src/loop, src/tools, src/agent,
 * src/stream) and only cost time. A mutant is switched on inside the vitest worker, so code that
 * runs in a child process, a browser or a bundle built from the sources never sees it, and its
 * coverage never reaches Stryker: those suites are left out. Every in-process suite stays.
 */
import { configDefaults, defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

/** One fixed seed for every generated test, so the dry run and each mutant run see the same cases. */
const SEED = "20240601";

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [
        ...configDefaults.exclude,
        // Browsers, Vite and Angular builds driven from the test.
        "test/e2e/**",
        // Each example or docs snippet runs in its own `tsx` process (or is type-checked by tsc).
        "test/examples/**",
        // The packed tarball, installed and loaded by consumer fixtures.
        "test/package/**",
        // Child processes killed with SIGKILL, worker processes over pg-boss, embedded Postgres.
        "test/session/crash-sigkill.test.ts",
        "test/session/approval-restart.test.ts",
        "test/session/workers.test.ts",
        "test/session/postgres-store.test.ts",
        // Real MCP servers started as child processes (tools are exercised in-process by
        // tool-definition, tool-list and tool-result, which stay).
        "test/mcp/stdio.test.ts",
        "test/mcp/http.test.ts",
        "test/mcp/filesystem.test.ts",
        "test/mcp/list-changed.test.ts",
        // Examples run with `tsx` in a child process.
        "test/mcp/example.test.ts",
        "test/otel/example.test.ts",
        "test/providers/ai-sdk/example.test.ts",
        // Checks the equivalent-mutant index against the sources; it runs no code under test.
        "test/mutation/**",
      ],
      setupFiles: ["test/mutation/fixed-seed.ts"],
      // The reliability properties read RXAGENT_SEED themselves; fixed-seed.ts gives it to every other property.
      env: { RXAGENT_SEED: SEED },
    },
  }),
);
