// The layout worker in the built site (dist/): trunk ships it as optlab-layout_loader.js next to
// the app. It must start offline, answer layout requests with the same shapes the app expects,
// and keep the page responsive while it works on a 1,000-block graph.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, URL } from './harness.mjs';

const env = useBrowser();

/** A request for a chain of `n` one-line blocks with a loop back every fifth block. */
function chainRequest(id, n) {
  const nodes = [];
  const edges = [];
  for (let i = 0; i < n; i++) {
    nodes.push({ id: `b${i}`, title: `b${i}`, lines: [`jmp .b${i + 1};`], class: '' });
    if (i + 1 < n) edges.push({ from: i, to: i + 1, label: '', kind: i % 2 ? 'Normal' : 'True' });
    if (i % 5 === 4) edges.push({ from: i, to: i - 3, label: '', kind: 'Normal' });
  }
  const style = { font_size: 13, char_width: 0.62, line_height: 1.3, padding: 6, margin: 6, badge_band: 0, id_prefix: 'g' };
  return { id, graph: { nodes, edges }, style };
}

test('the layout worker starts offline and lays out graphs without blocking the page', { timeout: 120_000 }, async () => {
  const page = env.page;
  await page.goto(URL);
  const result = await page.evaluate(async ({ small, big }) => {
    const worker = new Worker('./optlab-layout_loader.js');
    const replies = [];
    let waiting = null;
    worker.onmessage = (e) => {
      replies.push(JSON.parse(e.data));
      if (waiting) waiting();
    };
    const next = () =>
      new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('no reply from the worker')), 30_000);
        const take = () => {
          if (replies.length) {
            clearTimeout(t);
            waiting = null;
            resolve(replies.shift());
          } else waiting = take;
        };
        take();
      });
    const ready = await next();
    worker.postMessage(JSON.stringify(small));
    const smallReply = await next();
    worker.postMessage('not json');
    const bad = await next();

    // While the worker lays out 1,000 blocks, the page's own timers keep running.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const t0 = performance.now();
    worker.postMessage(JSON.stringify(big));
    const bigReply = await next();
    const ms = performance.now() - t0;
    clearInterval(timer);
    worker.terminate();
    const summary = (r) => ({ id: r.Done.id, nodes: r.Done.layout.nodes.length, placed: r.Done.layout.nodes.filter(Boolean).length, routed: r.Done.layout.edges.filter(Boolean).length, bbox: r.Done.layout.bbox });
    return { ready, small: summary(smallReply), bad, big: summary(bigReply), ms, ticks };
  }, { small: chainRequest(1, 12), big: chainRequest(2, 1000) });

  assert.equal(result.ready, 'Ready');
  assert.equal(result.small.id, 1);
  assert.equal(result.small.placed, 12);
  assert.equal(result.small.routed, 11 + 2);
  assert.ok(result.small.bbox.h > 12 * 20, JSON.stringify(result.small.bbox));
  assert.match(result.bad.Failed.error, /bad layout request/);
  assert.equal(result.big.id, 2);
  assert.equal(result.big.placed, 1000);
  // Timers fire about every 10 ms: the main thread was free while the worker computed.
  const expected = result.ms / 10;
  assert.ok(result.ticks > expected * 0.5, `${result.ticks} ticks in ${result.ms.toFixed(0)} ms`);
  console.log(`worker: 1,000-block layout in ${result.ms.toFixed(0)} ms, ${result.ticks} page timer ticks meanwhile`);
  assert.deepEqual(env.errors, []);
});
