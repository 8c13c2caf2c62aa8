import http from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface StreamMessage {
  id: string | undefined;
  event: string | undefined;
  data: string;
  /** `performance.now()` when the message arrived. */
  at: number;
}

/**
 * A live event stream read over real HTTP, its messages parsed as a browser's EventSource parses
 * them (eventsource-parser), on a connection of its own as EventSource uses, so closing the client
 * closes the connection. `next` waits for a message matching a predicate.
 */
export class StreamClient {
  readonly messages: StreamMessage[] = [];
  readonly comments: string[] = [];
  ended = false;
  private raw = '';
  private waiters: (() => void)[] = [];

  private constructor(
    readonly status: number,
    readonly headers: http.IncomingHttpHeaders,
    private readonly request: http.ClientRequest,
    private readonly body: http.IncomingMessage,
  ) {}

  static open(url: string, headers: Record<string, string> = {}): Promise<StreamClient> {
    return new Promise((resolve, reject) => {
      const request = http.get(url, { headers, agent: false }, (body) => {
        const client = new StreamClient(body.statusCode ?? 0, body.headers, request, body);
        client.read();
        resolve(client);
      });
      request.on('error', reject);
    });
  }

  /** The JSON body of a refusal (any answer but the stream itself). */
  async json(): Promise<{ error: { code: string; message: string; param: string | null } }> {
    await this.closed();
    return JSON.parse(this.raw);
  }

  private read() {
    const parser = createParser({
      onEvent: (m: EventSourceMessage) => {
        this.messages.push({ id: m.id, event: m.event, data: m.data, at: performance.now() });
        this.notify();
      },
      onComment: (c) => {
        this.comments.push(c.trim());
        this.notify();
      },
    });
    this.body.setEncoding('utf8');
    this.body.on('data', (chunk: string) => {
      if (this.status === 200) parser.feed(chunk);
      else this.raw += chunk;
    });
    const end = () => {
      this.ended = true;
      this.notify();
    };
    this.body.on('end', end);
    this.body.on('close', end);
    this.body.on('error', end);
  }

  private notify() {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w();
  }

  /** Resolves on the next arrival (or the end), or after `ms`. */
  private arrival(ms: number) {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The first message (from `from` on) for which `match` holds; fails after `timeoutMs`. */
  async next(match: (m: StreamMessage) => boolean, timeoutMs = 5000, from = 0): Promise<StreamMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.slice(from).find(match);
      if (found) return found;
      if (this.ended) throw new Error(`stream ended before a matching message (${this.describe()})`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching message within ${timeoutMs} ms (${this.describe()})`);
      await this.arrival(left);
    }
  }

  /** Waits until the server ends the response. */
  async closed(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`stream still open after ${timeoutMs} ms`);
      await this.arrival(left);
    }
  }

  /** The catalogue events received (the stream's own notices carry no id), parsed. */
  events(): { id: string; type: string; data: Record<string, unknown>; organization_id: string }[] {
    return this.messages.filter((m) => m.id).map((m) => JSON.parse(m.data));
  }

  private describe() {
    return `${this.messages.length} messages: ${this.messages.map((m) => m.event).join(', ')}`;
  }

  /** Closes the connection, as a browser does when a page closes its EventSource. */
  close() {
    this.request.destroy();
  }
}
