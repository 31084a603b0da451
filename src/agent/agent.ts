/**
 * The Agent of `rxagent`: the Agent of `rxagent/core` with ajv as the default validator of tool
 * arguments (SPEC T2) and with run control (SPEC R1–R3).
 *
 * @module
 */
import { ajvValidator } from "../tools/validators/ajv-validator.js";
import type { ArgumentValidator } from "../model/argument-validator.js";
import { Agent as CoreAgent } from "./agent-core.js";
import type { RunControl } from "../tools/run-control-port.js";
import { runControl } from "../run-control/run-control.js";

export type { AgentListener, AgentOptions, PromptInput } from "./agent-core.js";

/**
 * A stateful agent: `prompt()` runs the loop over its transcript, listeners are awaited, and
 * the state is reduced from the events. Tool arguments are checked with ajv unless `validator`
 * (or a tool's own) says otherwise; under a strict Content Security Policy pass
 * `interpretingValidator`, or import `Agent` from `rxagent/core` to leave ajv out of the bundle
 * (there, pass `runControl` as well to keep limits, approvals and scheduling).
 *
 * @example
 * ```ts
 * const agent = new Agent({ initialState: { systemPrompt: "Be brief.", model, tools }, streamFn });
 * agent.subscribe((event) => { if (event.type === "message_update") render(event.message); });
 * await agent.prompt("What is the weather in Oslo?");
 * agent.state.messages; // the whole transcript
 * ```
 */
export class Agent extends CoreAgent {
  protected override defaultValidator(): ArgumentValidator {
    return ajvValidator;
  }

  protected override defaultRunControl(): RunControl {
    return runControl;
  }
}
