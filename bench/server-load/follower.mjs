/**
 * The load generator's side of one follower, kept light so a thousand of them share a core with
 * little cost: a raw node:http GET (its own socket, no keep-alive pool), the body cut into lines
 * by hand (no EventSource polyfill, no per-client Observable), and of each entry only the `id:`
 * line parsed and, in a `data:` line, the emission stamp a streamed delta carries. Everything
 * else is counted as bytes and dropped.
 *
 * Each follower checks its own sequence as it reads: every entry's number is the one after the
 * last it read, with the same epoch, across reconnects (no gap, no repeat). A stream that ends
 * for any reason is reconnected at once with `Last-Event-ID`.
 *
 * @example
 * ```js
 * const tally = new Tally(100_000);
 * const follower = new Follower({ port, path: "/sessions/s-1/events" }, tally);
 * await follower.open();
 * ```
 */
import http from "node:http";

const now = () => performance.timeOrigin + performance.now();
const STAMP = '"delta":"T';
const END = 'data: {"type":"agent_end"';

/** Counters all followers share, and the latency samples (ms) of the stamped deltas. */
export class Tally {
  entries = 0;
  bytes = 0;
  deltas = 0;
  heartbeats = 0;
  /** Where latency samples go; `record = false` while a phase's samples are not wanted. */
  record = true;
  samples;
  count = 0;

  constructor(capacity) {
    this.samples = new Float64Array(capacity);
  }

  sample(ms) {
    this.deltas++;
    if (this.record && this.count < this.samples.length) this.samples[this.count++] = ms;
  }

  /** The samples since `from` (an earlier `count`), sorted. */
  since(from) {
    return this.samples.slice(from, this.count).sort();
  }
}

/** One follower of one session. */
export class Follower {
  epoch = undefined;
  lastN = undefined;
  gaps = 0;
  repeats = 0;
  epochChanges = 0;
  /** Connections that ended without the benchmark asking (a drop, a slow-reader cut, an error). */
  drops = 0;
  refusals = 0;
  runsEnded = 0;
  deltas = 0;
  /** When the latest connection's 200 arrived, the latest connection was lost, the connection's first entry, the latest agent_end (this process's clock). */
  liveAt = 0;
  lostAt = 0;
  firstEntryAt = 0;
  endedAt = 0;
  firstProblem = undefined;
  #rest = "";
  #connection = 0;
  #request = undefined;
  #closed = false;
  #opened = undefined;

  constructor(target, tally) {
    this.target = target;
    this.tally = tally;
  }

  get lastId() {
    return this.lastN === undefined ? undefined : `${this.epoch}.${this.lastN}`;
  }

  /** Connects; resolves once the first entry (the session's state) has arrived. */
  open() {
    return new Promise((resolve, reject) => {
      this.#opened = { resolve, reject };
      this.#connect();
    });
  }

  /** Ends the follower for good. */
  close() {
    this.#closed = true;
    this.#request?.destroy();
  }

  #connect() {
    const connection = ++this.#connection;
    const headers = { accept: "text/event-stream" };
    if (this.lastN !== undefined) headers["last-event-id"] = this.lastId;
    const lost = () => {
      if (connection !== this.#connection || this.#closed) return;
      this.#connection++;
      this.drops++;
      this.lostAt = now();
      this.#rest = "";
      this.#connect();
    };
    const request = http.request({ host: "127.0.0.1", port: this.target.port, path: this.target.path, agent: false, headers }, (response) => {
      if (response.statusCode !== 200) {
        this.refusals++;
        this.#problem(`HTTP ${response.statusCode}`);
        response.resume();
        response.on("end", () => setTimeout(lost, 100));
        return;
      }
      this.liveAt = now();
      response.on("data", (chunk) => this.#read(chunk));
      response.on("close", lost);
      response.on("error", lost);
    });
    request.on("error", lost);
    request.end();
    this.#request = request;
  }

  #read(chunk) {
    const arrived = now();
    this.tally.bytes += chunk.length;
    const text = this.#rest + chunk.toString("latin1");
    let start = 0;
    for (let end = text.indexOf("\n", start); end >= 0; end = text.indexOf("\n", start)) {
      this.#line(text, start, end, arrived);
      start = end + 1;
    }
    this.#rest = text.slice(start);
  }

  #line(text, start, end, arrived) {
    const head = text.charCodeAt(start);
    if (head === 105 /* i */ && text.startsWith("id: ", start)) {
      const dot = text.lastIndexOf(".", end);
      this.#entry(text.slice(start + 4, dot), Number(text.slice(dot + 1, end)), arrived);
    } else if (head === 100 /* d */) {
      const at = text.indexOf(STAMP, start);
      if (at >= 0 && at < end) {
        this.deltas++;
        this.tally.sample(arrived - Number.parseFloat(text.slice(at + STAMP.length, at + STAMP.length + 17)));
      } else if (text.startsWith(END, start)) {
        this.runsEnded++;
        this.endedAt = arrived;
      }
    } else if (head === 58 /* : */) this.tally.heartbeats++;
  }

  #entry(epoch, n, arrived) {
    this.tally.entries++;
    if (this.firstEntryAt < this.liveAt) this.firstEntryAt = arrived;
    if (this.lastN !== undefined) {
      if (epoch !== this.epoch) {
        this.epochChanges++;
        this.#problem(`epoch ${this.epoch} → ${epoch}`);
      } else if (n <= this.lastN) {
        this.repeats++;
        this.#problem(`entry ${n} after ${this.lastN} (a repeat)`);
      } else if (n !== this.lastN + 1) {
        this.gaps++;
        this.#problem(`entry ${n} after ${this.lastN} (a gap)`);
      }
    }
    this.epoch = epoch;
    this.lastN = n;
    if (this.#opened) {
      this.#opened.resolve();
      this.#opened = undefined;
    }
  }

  #problem(text) {
    this.firstProblem ??= `${this.target.path}: ${text}`;
  }
}

const pool = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** POSTs `body` as JSON; resolves with the status and the parsed answer. */
export function post(port, path, body) {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const request = http.request({ host: "127.0.0.1", port, path, method: "POST", agent: pool, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } }, (response) => {
      const parts = [];
      response.on("data", (part) => parts.push(part));
      response.on("end", () => {
        const text = Buffer.concat(parts).toString("utf8");
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = { text };
        }
        resolve({ status: response.statusCode, body: json });
      });
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(payload);
  });
}

/** Runs `task` over `items`, at most `limit` at a time. */
export async function inBatches(items, limit, task) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Ends the POST pool's open sockets (later commands open new ones). */
export function closePool() {
  pool.destroy();
}
