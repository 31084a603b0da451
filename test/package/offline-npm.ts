/**
 * Child npm / node processes for the package tests, offline: the npm cache `npm ci` filled and
 * its registry, read before the npm_* variables are dropped (an enclosing `npm test`'s
 * npm_config_local_prefix=<repo> would make npm act on the repo). Every request through the
 * proxy fails at once, so anything not in the cache fails the install instead of downloading.
 */
import { execFile, execFileSync } from "node:child_process";

const npmConfig = (key: string) => process.env[`npm_config_${key}`] || execFileSync("npm", ["config", "get", key], { encoding: "utf8" }).trim();
export const NPM_CACHE = npmConfig("cache");
export const REGISTRY = npmConfig("registry").replace(/\/+$/, "");

/** The offline environment, without the variables `drop` matches (beside npm_*), plus `extra`. */
export function offlineEnv(drop: RegExp | undefined, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && !drop?.test(name))),
    npm_config_cache: NPM_CACHE,
    npm_config_registry: REGISTRY,
    npm_config_proxy: "http://127.0.0.1:9",
    npm_config_https_proxy: "http://127.0.0.1:9",
    npm_config_fetch_retries: "0",
    npm_config_update_notifier: "false",
    ...extra,
  };
}

/** A command runner in `env`: rejects with the command's output when it fails. */
export function runner(env: NodeJS.ProcessEnv, timeoutMs: number): (command: string, args: string[], cwd: string) => Promise<string> {
  return (command, args, cwd) =>
    new Promise((resolvePromise, reject) => {
      execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs }, (error, stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(" ")} (in ${cwd}) failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolvePromise(stdout);
      });
    });
}
