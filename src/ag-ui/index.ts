/**
 * `rxagent/ag-ui`: an rxagent agent behind the AG-UI protocol (1.0), so an AG-UI client —
 * `@ag-ui/client`'s `HttpAgent`, and so CopilotKit front ends — can run it.
 * {@link toAgUiEvents} maps one run's events to AG-UI events; {@link createAgUiHandler} is the
 * endpoint, a fetch-style handler that takes a `RunAgentInput` and streams the run as server-sent
 * events. Nothing of `@ag-ui/*` is imported: the protocol's shapes are declared here.
 *
 * @example
 * ```ts
 * import { createAgUiHandler } from "rxagent/ag-ui";
 * import { toNodeListener } from "rxagent/proxy/node";
 *
 * const handler = createAgUiHandler({ token: process.env.AG_UI_TOKEN, agentFor: () => new Agent({ streamFn, initialState }) });
 * createServer(toNodeListener(handler)).listen(8000);
 * ```
 *
 * @module
 */
export { createAgUiHandler, type AgUiHandlerOptions } from "./ag-ui-handler.js";
export { toAgUiEvents, type ToAgUiEventsOptions } from "./to-ag-ui-events.js";
export { encodeAgUiEvent } from "./ag-ui-sse.js";
export { fromAgUiMessages } from "./ag-ui-messages.js";
export { checkRunAgentInput } from "./run-agent-input.js";
export type { AgUiHistory } from "./ag-ui-run-plan.js";
export {
  AG_UI_PROTOCOL_VERSION,
  type AgUiContentPart,
  type AgUiEvent,
  type AgUiEventType,
  type AgUiInterrupt,
  type AgUiMessage,
  type AgUiPartSource,
  type AgUiPatchOperation,
  type AgUiResumeEntry,
  type AgUiRunOutcome,
  type AgUiTokenUsage,
  type AgUiTool,
  type AgUiToolCall,
  type RunAgentInput,
} from "./ag-ui-types.js";
