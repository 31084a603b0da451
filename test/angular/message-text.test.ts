/** messageText: the text blocks of any message, joined. */
import { describe, expect, it } from "vitest";
import { messageText } from "../../src/angular/message-text.js";
import type { AgentMessage } from "../../src/model/types.js";

describe("messageText", () => {
  it("joins the text blocks and skips the others", () => {
    const message = { role: "assistant", content: [{ type: "text", text: "Hel" }, { type: "toolCall", id: "1", name: "x", arguments: {} }, { type: "thinking", thinking: "hmm" }, { type: "text", text: "lo" }] } as unknown as AgentMessage;
    expect(messageText(message)).toBe("Hello");
  });

  it("takes a user message's plain string content as it is", () => {
    expect(messageText({ role: "user", content: "hi", timestamp: 0 })).toBe("hi");
  });

  it("is empty for no message, a message with only a tool call, and a custom message without content", () => {
    expect(messageText(undefined)).toBe("");
    expect(messageText({ role: "assistant", content: [{ type: "toolCall", id: "1", name: "x", arguments: {} }] } as unknown as AgentMessage)).toBe("");
    expect(messageText({ role: "note", body: "x" } as unknown as AgentMessage)).toBe("");
  });
});
