import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { defined } from '../src/lib/defined.js';
import { benchConfig, benchDatabase, listenApp, sized, smoke } from './lib/harness.js';
import { recordResults } from './lib/results.js';

const ROUNDS = sized('BENCH_ROUNDS', 7, 1);
const SECRET = 'bench-inbound-secret-long-enough';

/**
 * What a Postmark inbound reply costs by size: a bare reply (the baseline), one with a 900 KB PDF
 * (1.2 MB of JSON), 5 MB, and Postmark's largest (35 MB of attachments, about 47 MB of JSON).
 * Each is posted ROUNDS times (default 7) over HTTP, one at a time, to an app on a real database;
 * the reply matches no conversation, so the cost is reading, parsing and matching the message.
 * Reports the median and worst latency, the ratio to the baseline, and the longest event-loop
 * stall seen while the size was being posted (other requests wait that long).
 */
export async function run() {
  const db = await benchDatabase(5);
  const config = benchConfig({ WORKERS_ENABLED: 'false', EMAIL_INBOUND_SECRET: SECRET });
  const { app, url } = await listenApp(db.database, config);
  const sizes = [
    { name: 'reply, no attachment', attachment: 0 },
    { name: 'reply + 900 KB PDF', attachment: 900_000 },
    { name: 'reply + 3.7 MB PDF (5 MB)', attachment: 3_700_000 },
    { name: 'reply + 35 MB of attachments', attachment: 35_000_000 },
  ].slice(0, smoke ? 2 : undefined);
  const rows: { name: string; bytes: number; p50: number; max: number; stall: number }[] = [];
  try {
    for (const size of sizes) {
      const body = JSON.stringify({
        From: 'dispatch@carrier.example',
        To: 'reply+cnv_none@reply.envoy.local',
        Subject: 'Re: Load',
        MessageID: '73e6d360-66eb-11e1-8e72-a8904824019b',
        TextBody: 'We can do 2,150 all in.\n\nOn Mon, Envoy Dispatch wrote:\n> What would you run it for?',
        StrippedTextReply: 'We can do 2,150 all in.',
        Headers: [{ Name: 'Message-ID', Value: '<bench@mail.example>' }],
        Attachments: size.attachment
          ? [
              {
                Name: 'rate-confirmation.pdf',
                Content: randomBytes(size.attachment).toString('base64'),
                ContentType: 'application/pdf',
                ContentLength: size.attachment,
              },
            ]
          : [],
      });
      const post = () =>
        fetch(`${url}/api/v1/integrations/email/inbound`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`postmark:${SECRET}`).toString('base64')}`,
            'content-type': 'application/json',
          },
          body,
        });
      const warm = await post();
      if (warm.status !== 200) throw new Error(`${size.name}: ${warm.status} ${await warm.text()}`);
      const stalls = monitorEventLoopDelay({ resolution: 5 });
      stalls.enable();
      const times: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const started = performance.now();
        const res = await post();
        await res.arrayBuffer();
        times.push(performance.now() - started);
      }
      stalls.disable();
      times.sort((a, b) => a - b);
      rows.push({
        name: size.name,
        bytes: body.length,
        p50: defined(times[Math.floor(times.length / 2)], 'times[Math.floor(times.length / 2)]'),
        max: defined(times.at(-1), 'times.at(-1)'),
        stall: stalls.max / 1e6,
      });
    }
  } finally {
    await app.close();
    await db.close();
  }
  const base = defined(rows[0], 'rows[0]');
  console.log(`\n### Postmark inbound replies by size (${ROUNDS} posts each, one at a time)\n`);
  console.log('| message | JSON bytes | p50 ms | max ms | p50 vs bare reply | longest event-loop stall ms |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    console.log(
      `| ${r.name} | ${r.bytes.toLocaleString('en-US')} | ${r.p50.toFixed(1)} | ${r.max.toFixed(1)} | ${(r.p50 / base.p50).toFixed(1)}x | ${r.stall.toFixed(0)} |`,
    );
  }
  await recordResults(
    'email-inbound',
    rows.flatMap((r) => [
      { name: `${r.name}: p50`, value: r.p50, unit: 'ms' },
      { name: `${r.name}: longest event-loop stall`, value: r.stall, unit: 'ms' },
    ]),
  );
}
