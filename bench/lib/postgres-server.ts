/**
 * A PostgreSQL server for the session benchmark: the test suite's embedded one (no system
 * package), started in this process, its URL printed as one JSON line; stopped on SIGTERM.
 *
 *   node --import tsx bench/lib/postgres-server.ts
 */
import { startPostgres } from "../../test/helpers/postgres.js";

const server = await startPostgres();
process.stdout.write(JSON.stringify({ url: server.url, startupMs: server.startupMs }) + "\n");
process.on("SIGTERM", () => {
  void server.stop().then(() => process.exit(0));
});
