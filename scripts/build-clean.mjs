/**
 * Empties dist/ before a build, so files whose source was deleted or renamed are not packed.
 */
import { rmSync } from "node:fs";

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
