// The first visit's weight (issue 18: at most 350 KB gzipped before the first graph) and the
// handoff to the full app (web/src/handoff.rs): every response from the navigation until the
// first graph's SVG is on the page is recorded through the DevTools protocol
// (Network.loadingFinished), its gzipped size computed here (the test server does not
// compress; a real one would), and summed. Then the full app must take the page over with
// the editor's text unchanged, and a view the first build does not have must work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { URL, ARTIFACTS, FULL_APP, launch, screenshot, watchErrors } from './harness.mjs';

const BUDGET = 350 * 1024;
const FIRST_GRAPH = '.view-cfg svg g.node';

/** Gzipped size (level 9) of what `url` serves. */
async function gzipped(url) {
  const res = await fetch(url);
  return gzipSync(Buffer.from(await res.arrayBuffer()), { level: 9 }).length;
}

test('the first visit stays under 350 KB gzipped until its first graph, then the full app takes over', { timeout: 120_000 }, async () => {
  const context = await launch();
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const errors = [];
    watchErrors(page, errors);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const urls = new Map();
    const finished = [];
    let measuring = true;
    cdp.on('Network.requestWillBeSent', (e) => urls.set(e.requestId, e.request.url));
    cdp.on('Network.loadingFinished', (e) => {
      if (measuring) finished.push({ url: urls.get(e.requestId), wire: e.encodedDataLength });
    });
    // The full app must not be asked for before the first graph is drawn; it is held back
    // until the measurement ends, so that it never counts in it.
    let fullAskedEarly = false;
    let endMeasurement;
    const measured = new Promise((r) => (endMeasurement = r));
    await page.route(/optlab-full/, async (route) => {
      fullAskedEarly ||= !(await page.evaluate((sel) => document.querySelector(sel) !== null, FIRST_GRAPH));
      await measured;
      await route.continue();
    });

    await page.gotoFirstVisit(URL);
    const firstGraphMs = await (await page.waitForFunction((sel) => document.querySelector(sel) && performance.now(), FIRST_GRAPH, { polling: 'raf', timeout: 30_000 })).jsonValue();
    measuring = false;
    endMeasurement();
    // From now until the full app has the page, every frame must show a graph (no blank).
    await page.evaluate(() => {
      window.__blankFrames = 0;
      const look = () => {
        const shown = [...document.querySelectorAll('.view svg g.node')].some((g) => {
          const r = g.getBoundingClientRect();
          return r.width > 0 && getComputedStyle(g).visibility !== 'hidden';
        });
        if (!shown) window.__blankFrames += 1;
        if (!document.querySelector('[data-app="full"]')) requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    assert.equal(await page.getAttribute('[data-app]', 'data-app'), 'first', 'the first graph comes from the first-visit build');
    const text = await page.inputValue('#source');

    const rows = [];
    for (const { url, wire } of finished) {
      if (!url || !url.startsWith('http')) continue;
      rows.push({ file: new globalThis.URL(url).pathname.split('/').pop() || 'index.html', wire, gzip: await gzipped(url) });
    }
    const total = rows.reduce((n, r) => n + r.gzip, 0);
    const handoffMs = await (await page.waitForFunction((sel) => document.querySelector(sel) && performance.now(), FULL_APP, { polling: 'raf', timeout: 30_000 })).jsonValue();
    const report = { rows, total, budget: BUDGET, firstGraphMs: Math.round(firstGraphMs), handoffMs: Math.round(handoffMs) };
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, 'first-visit-size.json'), JSON.stringify(report, null, 2));
    for (const r of rows) console.log(`  ${r.file.padEnd(44)} ${String(r.wire).padStart(9)} B  ${(r.gzip / 1024).toFixed(1).padStart(7)} KB gz`);
    console.log(`  first visit: ${(total / 1024).toFixed(1)} KB gzipped; first graph at ${report.firstGraphMs} ms, full app at ${report.handoffMs} ms`);

    assert.ok(rows.some((r) => r.file.endsWith('.wasm')), 'the app module is among the responses');
    assert.ok(!rows.some((r) => r.file.startsWith('optlab-full')), 'the full app is not part of the first visit');
    assert.equal(fullAskedEarly, false, 'the full app is loaded after the first graph, not before');
    assert.ok(total <= BUDGET, `the first visit downloads ${total} bytes gzipped; the budget is ${BUDGET}`);

    // The full app has the page: the same text, and a view the first build does not have.
    await page.waitForSelector(FULL_APP);
    assert.equal(await page.evaluate(() => window.__blankFrames), 0, 'no frame without a graph during the handoff');
    assert.equal(await page.$$eval('[data-app]', (els) => els.length), 1, 'one app on the page');
    assert.equal(await page.inputValue('#source'), text);
    await screenshot(page, 'size-after-handoff');
    await page.click('#tab-dce');
    await page.waitForSelector('.dce-view svg g.node', { timeout: 30_000 });
    assert.equal(await page.inputValue('#source'), text);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('text typed before the handoff is kept, with the caret, and a gated tab opens after "loading…"', { timeout: 120_000 }, async () => {
  const context = await launch();
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const errors = [];
    watchErrors(page, errors);
    // Hold the full app back until the test has typed and asked for a gated view.
    let release;
    const held = new Promise((r) => (release = r));
    await page.route(/optlab-full/, async (route) => {
      await held;
      await route.continue();
    });
    await page.gotoFirstVisit(URL);
    await page.waitForSelector(FIRST_GRAPH, { timeout: 30_000 });
    assert.equal(await page.getAttribute('[data-app]', 'data-app'), 'first');
    await page.click('#source');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('# typed in the first build\n');
    const typed = await page.inputValue('#source');
    const caret = await page.$eval('#source', (t) => t.selectionStart);
    await page.click('#tab-lcm');
    await page.waitForSelector('.view .loading');
    await screenshot(page, 'size-loading');
    release();
    await page.waitForSelector(FULL_APP, { state: 'attached', timeout: 30_000 });
    await page.waitForSelector('.view-lcm svg g.node', { timeout: 30_000 });
    assert.equal(await page.inputValue('#source'), typed, 'not a keystroke lost');
    assert.equal(await page.$eval('#source', (t) => t.selectionStart), caret, 'the caret where it was');
    await screenshot(page, 'size-lcm-after-handoff');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('if the full app cannot load, the first build keeps the page and its other views say so', { timeout: 60_000 }, async () => {
  const context = await launch();
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.route(/optlab-full/, (route) => route.abort());
    await page.gotoFirstVisit(URL);
    await page.waitForSelector(FIRST_GRAPH, { timeout: 30_000 });
    await page.click('#tab-dce');
    await page.waitForFunction(() => /did not load/.test(document.querySelector('.view .loading')?.textContent ?? ''), null, { timeout: 15_000 });
    await page.click('#tab-cfg');
    await page.waitForSelector(FIRST_GRAPH);
    assert.equal(await page.getAttribute('[data-app]', 'data-app'), 'first');
  } finally {
    await context.close();
  }
});
