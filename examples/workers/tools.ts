/**
 * The tools of the example, each with the replay policy a resume needs (SPEC S5): `lookup` only
 * reads, so a resumed session may run it again; `charge` has an effect outside the journal, so
 * a call interrupted mid-way is not run again: the model is told it may or may not have happened.
 *
 * @module
 */
import type { AgentTool } from "../../src/index.js"; // in your app: from "rxagent"

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The tools; `charge(toolCallId, amount)` performs the side effect.
 *
 * @example
 * ```ts
 * const tools = workerTools({ charge: (id, amount) => recordCharge(pool, schema, { ... }) });
 * ```
 */
export function workerTools(effects: { charge(toolCallId: string, amount: number): Promise<void> }): AgentTool[] {
  return [
    {
      name: "lookup",
      label: "Lookup",
      description: "Reads a record by key.",
      parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
      replay: "safe",
      execute: async (_id, params: { key: string }) => {
        await sleep(15);
        return { content: [{ type: "text", text: `record ${params.key}: open` }] };
      },
    },
    {
      name: "charge",
      label: "Charge",
      description: "Charges the customer (a side effect: never replayed).",
      parameters: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
      replay: "never",
      execute: async (id, params: { amount: number }) => {
        await sleep(10);
        await effects.charge(id, params.amount);
        await sleep(10);
        return { content: [{ type: "text", text: `charged ${params.amount}` }] };
      },
    },
  ];
}
