import { Injectable, signal } from "@angular/core";

/**
 * The signed-in user's session: here just the bearer token the server checks. A real app
 * would set it at sign-in and refresh it; the Agent reads it afresh for every request.
 */
@Injectable({ providedIn: "root" })
export class Session {
  /** The bearer token for `/api/stream` and `/sessions`; `dev-token` is what the example servers accept. */
  readonly token = signal("dev-token");
}
