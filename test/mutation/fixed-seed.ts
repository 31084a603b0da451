/**
 * Setup file of the mutation runs (vitest.mutation.config.ts): every fast-check property without
 * its own seed uses RXAGENT_SEED. Stryker decides which tests to run for a mutant from the
 * coverage of the dry run, so a property must generate the same cases in every run.
 */
import fc from "fast-check";

const seed = Number(process.env.RXAGENT_SEED);
if (!Number.isInteger(seed)) throw new Error("RXAGENT_SEED must be set to an integer for a mutation run");
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
