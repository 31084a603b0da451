/**
 * `node --import ./bench/lib/rxjs-es2015.mjs …`: runs with rxjs's ES2015 build (see
 * rxjs-es2015-hooks.mjs). `BENCH_RXJS=es2015 node bench/run.mjs` passes it to every worker.
 */
import { register } from "node:module";

register("./rxjs-es2015-hooks.mjs", import.meta.url);
