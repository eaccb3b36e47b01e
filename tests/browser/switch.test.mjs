// End to end: switching views on a function too large to lay out during render (the 200-block
// example). The other views' layouts are prefetched in the worker once the analysis is done, and
// a view left stays in the page, hidden (web/src/views/keep.rs), so a switch shows the view
// without waiting: what the first frame after the click shows is asserted, not a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, screenshot, URL } from './harness.mjs';

const env = useBrowser();
const WAIT = { timeout: 60_000 };

/** Waits until every view's prefetch is asked for and the layout worker has nothing left
 * (every view built ahead lays out its own 200-block graphs too, one after another: with a
 * tab per pass that takes a while on a busy machine). */
async function prefetched(page) {
  await page.waitForFunction(() => {
    const asked = performance.getEntriesByName('optlab prefetch');
    if (asked.length < document.querySelectorAll('.tabs [role="tab"]').length - 1) return false;
    const last = Math.max(...asked.map((m) => m.startTime + m.duration));
    return performance.getEntriesByName('optlab layouts idle').some((m) => m.startTime > last);
  }, null, { timeout: 180_000, polling: 100 });
}

/** Clicks tab `slug` and returns what the first frame after the click shows of its view: per
 * graph, whether it is pending a layout and the ids of its nodes. */
async function firstFrame(page, slug) {
  return page.evaluate(async (slug) => {
    document.querySelector(`#tab-${slug}`).click();
    await new Promise((r) => requestAnimationFrame(r));
    const v = document.querySelector(`.view.view-${slug}`);
    if (!v || !v.checkVisibility()) return null;
    return [...v.querySelectorAll('.graph-view')].map((g) => ({
      pending: g.classList.contains('pending'),
      ids: [...g.querySelectorAll('svg g.node')].map((n) => n.dataset.id),
    }));
  }, slug);
}

const blocks = (page, sel) => page.$$eval(`${sel} svg g.node`, (ns) => ns.map((n) => n.dataset.id));

test('after the prefetch, a view opens with its graphs drawn in the first frame', { timeout: 300_000 }, async () => {
  const { page } = env;
  await page.goto(URL);
  await page.selectOption('#example', 'stress-200');
  await page.waitForFunction(() => document.querySelectorAll('.view-cfg svg g.node').length >= 200, null, WAIT);
  const cfg = await blocks(page, '.view-cfg');
  await prefetched(page);
  for (const slug of ['dom', 'pdom', 'cdg', 'dce', 'lcm']) {
    await page.click('#tab-cfg');
    await page.waitForSelector('.view-cfg svg g.node');
    const shown = await firstFrame(page, slug);
    assert.ok(shown && shown.length > 0, `${slug}: the view and its graphs are on the page`);
    for (const g of shown) {
      assert.equal(g.pending, false, `${slug}: no graph waits for its layout`);
      assert.ok(g.ids.length >= 200, `${slug}: ${g.ids.length} nodes drawn`);
    }
    // The graph Lengauer–Tarjan searches is the CFG: the same blocks.
    if (slug === 'dom') assert.deepEqual([...shown[0].ids].sort(), [...cfg].sort());
  }
  assert.deepEqual(env.errors, []);
});

test('a view left keeps its zoom and selection, and never shows an older program', { timeout: 180_000 }, async () => {
  const { page } = env;
  await page.goto(URL);
  await page.selectOption('#example', 'stress-200');
  await page.click('#tab-dom');
  await page.waitForSelector('.view-dom .dom-tree .graph-view:not(.pending) svg g.node', WAIT);
  // Select a block (in the table), then zoom the tree.
  const pick = (await blocks(page, '.view-dom .dom-tree'))[3];
  await page.click(`.view .lt-steps tbody tr[data-block="${pick}"] th`);
  await page.waitForSelector(`.view-dom .dom-tree g.node.selected[data-id="${pick}"]`);
  await page.click('.view-dom .dom-tree .zoom-in');
  const zoomed = await page.getAttribute('.view-dom .dom-tree .graph-stage', 'style');
  const step = await page.textContent('.step-count');
  // Away and back: the same drawing, at the same zoom, with the same selection and step.
  const back = await (async () => {
    await page.click('#tab-cfg');
    await page.waitForSelector('.view-cfg svg g.node');
    return firstFrame(page, 'dom');
  })();
  assert.ok(back.every((g) => !g.pending && g.ids.length >= 200), 'drawn in the first frame');
  assert.equal(await page.getAttribute('.view-dom .dom-tree .graph-stage', 'style'), zoomed);
  assert.equal(await page.locator(`.view-dom .dom-tree g.node.selected[data-id="${pick}"]`).count(), 1);
  assert.equal(await page.textContent('.step-count'), step);
  // Only the shown view is a `.view`; the one left is hidden.
  assert.equal(await page.locator('.view').count(), 1);
  assert.equal(await page.locator('.view-kept .graph-view').first().isVisible(), false);
  await screenshot(page, 'switch-kept');

  // Another program while the CFG is shown: back on the dominators, no frame shows a block of
  // the old program.
  await page.click('#tab-cfg');
  await page.selectOption('#example', 'loop');
  await page.waitForFunction(() => document.querySelectorAll('.view-cfg svg g.node').length < 20, null, WAIT);
  const now = await blocks(page, '.view-cfg');
  const frames = await page.evaluate(async () => {
    document.querySelector('#tab-dom').click();
    const seen = [];
    for (let k = 0; k < 20; k++) {
      await new Promise((r) => requestAnimationFrame(r));
      seen.push([...document.querySelectorAll('.view.view-dom svg g.node')].map((n) => n.dataset.id));
    }
    return seen;
  });
  for (const ids of frames) assert.ok(ids.every((b) => now.includes(b)), `a stale block in ${ids}`);
  assert.ok(frames.at(-1).length > 0, 'the new program is drawn');
  assert.deepEqual(env.errors, []);
});
