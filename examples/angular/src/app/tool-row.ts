/**
 * A row of the tool panel, from the state of a tool call.
 *
 * Imported by test/examples/angular.test.ts outside the Angular build, hence the relative path.
 */
import { messageText } from "../../../../src/angular/index.js"; // in your app: from "rxagent/angular"
import type { ToolCallState } from "../../../../src/angular/index.js"; // in your app: from "rxagent/angular"

/** What the panel draws for one call. */
export interface ToolRow {
  id: string;
  name: string;
  /** E.g. `get_weather(Tokyo)`. */
  heading: string;
  status: ToolCallState["status"];
  /** 0..1: the tool's last `details.progress`, 1 once done. */
  progress: number;
  /** The result's text, else the last update's. */
  text: string;
}

/** The row of `call`. */
export function toolRow(call: ToolCallState): ToolRow {
  const details = call.partialResult?.details as { progress?: number } | undefined;
  const shown = call.result ?? call.partialResult;
  return {
    id: call.toolCallId,
    name: call.toolName,
    heading: `${call.toolName}(${Object.values((call.args ?? {}) as Record<string, unknown>).join(", ")})`,
    status: call.status,
    progress: call.status === "done" ? 1 : (details?.progress ?? 0),
    text: shown ? messageText({ role: "toolResult", content: shown.content } as Parameters<typeof messageText>[0]) : (call.deniedBecause ?? ""),
  };
}
