/// <reference types="node" />
/**
 * A Node request body as a web `ReadableStream` that pulls one chunk at a time (Node-only).
 *
 * @module
 */
import type { IncomingMessage } from "node:http";

/**
 * The body of `req` as a stream that reads from the socket only when the consumer pulls, so a
 * handler that never reads (or cancels after a cap) leaves the rest unread and the socket paused.
 * Cancelling does not destroy `req`: the response can still be written.
 *
 * @example
 * ```ts
 * const request = new Request(url, { method: "POST", body: requestBodyStream(req), duplex: "half" } as RequestInit);
 * ```
 */
export function requestBodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let detach = () => undefined as void;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        return new Promise<void>((resolve) => {
          const finish = (action: () => void) => {
            detach();
            action();
            resolve();
          };
          const onReadable = () => {
            const chunk = req.read() as Buffer | string | null;
            if (chunk !== null) finish(() => controller.enqueue(typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
          };
          const onEnd = () => finish(() => controller.close());
          const onError = (error: Error) => finish(() => controller.error(error));
          const onClose = () => {
            if (!req.readableEnded) finish(() => controller.error(new Error("The client closed the connection before the body was sent")));
          };
          detach = () => {
            req.off("readable", onReadable);
            req.off("end", onEnd);
            req.off("error", onError);
            req.off("close", onClose);
          };
          req.on("readable", onReadable);
          req.on("end", onEnd);
          req.on("error", onError);
          req.on("close", onClose);
          if (req.readableEnded) onEnd();
          else onReadable();
        });
      },
      cancel() {
        detach();
      },
    },
    { highWaterMark: 0 },
  );
}
