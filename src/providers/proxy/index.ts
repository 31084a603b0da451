/**
 * `rxagent/proxy`: call models through your own server so the browser holds no provider key.
 *
 * {@link streamProxy} is a `StreamFn` that POSTs each request to your endpoint with a bearer
 * token and rebuilds the provider events from the stripped events the server streams back;
 * {@link createProxyHandler} is that server, as a fetch-style handler, serving only the models
 * the server defines. To the agent a proxied model is like any other: only the `streamFn` changes.
 * The events between the two are the entry's own business: their encoder and decoder are internal.
 *
 * @module
 */
export { type StreamProxyOptions, streamProxy } from "./stream-proxy.js";
export {
  createProxyHandler,
  type ProxyHandlerOptions,
  type ProxyModelRequest,
  type ProxyModels,
  type ProxyRequestBody,
  type ProxyRequestOptions,
} from "./proxy-server.js";
// What `onError` is given; the handler makes them, the app only reads them.
export type { ProxyError } from "./proxy-error.js";
