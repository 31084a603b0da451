/**
 * Types of the modules the example's Vite plugins generate (see vite.config.ts). Written out
 * structurally: an ambient module cannot import from a relative path, and these match
 * `StandaloneValidate` from rxagent.
 */
declare module "virtual:rxagent-tool-validators" {
  interface StandaloneError {
    keyword: string;
    instancePath: string;
    schemaPath?: string;
    params: Record<string, unknown>;
    message?: string;
  }
  /** Tool name → ajv standalone validation function, for `precompiledValidator(validators)`. */
  export const validators: Readonly<Record<string, ((data: unknown) => boolean) & { errors?: readonly StandaloneError[] | null; schemaKey?: string }>>;
}
