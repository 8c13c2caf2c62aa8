import { createHook } from 'node:async_hooks';
import { Session } from 'node:inspector/promises';

/**
 * What held the main thread during each long event-loop stall (`STALLS=1 npm run bench --
 * event-loop`). A 5 ms timer notes every gap between its ticks longer than `overMs`; the V8
 * sampling profiler runs meanwhile (1 sample per 0.5 ms). Both use the monotonic clock, so each
 * gap's samples are picked out of the profile afterwards and summed per function: the application
 * or library frame nearest the top of each sampled stack, and (garbage collector) / (program).
 * An async hook times each callback and promise continuation too: the longest single tasks are
 * listed the same way, by the kind of resource that ran them.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Microseconds on the monotonic clock the profiler stamps its samples with. */
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

export class StallTracer {
  private readonly session = new Session();
  private readonly gaps: { from: number; to: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly tasks: { from: number; to: number; type: string }[] = [];
  private readonly types = new Map<number, string>();
  private readonly began = new Map<number, number>();
  private readonly hook = createHook({
    init: (id, type) => {
      this.types.set(id, type);
    },
    before: (id) => {
      this.began.set(id, nowUs());
    },
    after: (id) => {
      const from = this.began.get(id);
      const to = nowUs();
      if (from !== undefined && to - from > 20_000)
        this.tasks.push({ from, to, type: this.types.get(id) ?? '?' });
    },
    destroy: (id) => {
      this.types.delete(id);
      this.began.delete(id);
    },
    promiseResolve: () => {},
  });

  constructor(private readonly overMs = 50) {}

  async start() {
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: 500 });
    await this.session.post('Profiler.start');
    this.hook.enable();
    let last = nowUs();
    this.timer = setInterval(() => {
      const now = nowUs();
      if (now - last > this.overMs * 1000) this.gaps.push({ from: last, to: now });
      last = now;
    }, 5);
  }

  /** Stops tracing and describes each gap: its length and where its samples fell. */
  async stop(): Promise<string[]> {
    clearInterval(this.timer);
    this.hook.disable();
    // Profiler.stop answers { profile } (the inspector protocol); the promise API types it loosely.
    const { profile } = (await this.session.post('Profiler.stop')) as { profile: Profile };
    this.session.disconnect();
    const frameOf = blamedFrames(profile);
    const times: number[] = [];
    let t = profile.startTime;
    for (const delta of profile.timeDeltas ?? []) {
      t += delta;
      times.push(t);
    }
    const longest = [...this.tasks].sort((a, b) => b.to - b.from - (a.to - a.from)).slice(0, 15);
    const spans = [
      { from: 0, to: 0, type: 'all gaps', within: this.gaps },
      ...this.gaps.map((g) => ({ ...g, type: 'gap' })),
      ...longest.map((t) => ({ ...t, type: `task ${t.type}` })),
    ];
    return spans.map((gap) => {
      const counts = new Map<string, number>();
      let n = 0;
      (profile.samples ?? []).forEach((id, k) => {
        const at = times[k] ?? 0;
        const windows = 'within' in gap ? gap.within : [gap];
        if (!windows.some((w) => at >= w.from && at <= w.to)) return;
        n++;
        const frame = frameOf.get(id) ?? '?';
        counts.set(frame, (counts.get(frame) ?? 0) + 1);
      });
      const top = [...counts]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 'within' in gap ? 14 : 6)
        .map(([f, c]) => `${f} ${((100 * c) / Math.max(n, 1)).toFixed(0)}%`);
      const spanned = 'within' in gap ? gap.within.reduce((a, w) => a + w.to - w.from, 0) : gap.to - gap.from;
      return `${gap.type} ${(spanned / 1000).toFixed(0)} ms (${n} samples): ${top.join('; ')}`;
    });
  }
}

/**
 * For each profile node, the frame to blame: the nearest one on its stack that is in src/ (the
 * application), else the nearest in node_modules (a library, named by package), else its own.
 */
function blamedFrames(profile: Profile): Map<number, string> {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const name = (n: ProfileNode) => {
    const { functionName, url, lineNumber } = n.callFrame;
    const file = url.replace(/^.*\/(src|node_modules)\//, '$1/');
    return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
  };
  const blamed = new Map<number, string>();
  for (const node of profile.nodes) {
    let lib: string | undefined;
    let app: string | undefined;
    for (let id: number | undefined = node.id; id !== undefined && !app; id = parent.get(id)) {
      const n = byId.get(id);
      if (!n) break;
      if (/\/src\//.test(n.callFrame.url) && !/node_modules/.test(n.callFrame.url)) app = name(n);
      else if (!lib && /node_modules/.test(n.callFrame.url)) lib = name(n);
    }
    const own = node.callFrame.functionName;
    blamed.set(node.id, own.startsWith('(') ? own : [app, lib].filter(Boolean).join(' < ') || name(node));
  }
  return blamed;
}
