// End to end: the Dominators, Post-dominators and Control dependence tabs on the example loaded
// at start (static/examples/loop.bril: entry → loop ⇄ body → odd/next → loop, loop → done).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, screenshot, URL } from './harness.mjs';

const env = useBrowser();
const VIRTUAL_EXIT = 'exit (virtual)';

/** The table as { vertex: { dfs, parent, sdom, idom } }. */
async function table(page) {
  return page.$$eval('.view .lt-steps tbody tr', (rows) =>
    Object.fromEntries(
      rows.map((r) => [
        r.dataset.block,
        Object.fromEntries(['dfs', 'parent', 'sdom', 'idom'].map((c) => [c, r.querySelector(`td.${c}`).textContent])),
      ]),
    ),
  );
}

async function stepCount(page) {
  const text = await page.textContent('.step-count');
  const [k, n] = text.split('/').map((s) => Number(s.trim()));
  return { k, n };
}

async function open(page, tab) {
  await page.goto(URL);
  await page.click(`#tab-${tab}`, { timeout: 30_000 });
}

test('the dominator tab steps through Lengauer–Tarjan and fills the table', { timeout: 90_000 }, async () => {
  const { page } = env;
  await open(page, 'dom');
  await page.waitForSelector('.view .lt-steps tbody tr');
  const start = await table(page);
  assert.deepEqual(Object.keys(start), ['entry', 'loop', 'body', 'odd', 'next', 'done']);
  for (const row of Object.values(start)) assert.deepEqual(row, { dfs: '', parent: '', sdom: '', idom: '' });
  assert.equal((await stepCount(page)).k, 0);
  // Both panes are drawn: the CFG searched and the tree, with no tree edge shown yet.
  assert.equal(await page.locator('.view .dom-search svg g.node').count(), 6);
  assert.equal(await page.locator('.view .dom-tree svg g.node').count(), 6);
  assert.equal(await page.locator('.view .dom-tree svg path.edge:not(.lt-hidden)').count(), 0);

  // Step 1: the DFS numbers the six blocks, one per key press.
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('#step-text'), /^Step 1: the DFS of the CFG starts at entry and numbers it 0/);
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  const numbered = await table(page);
  assert.deepEqual(
    Object.values(numbered).map((r) => r.dfs).sort(),
    ['0', '1', '2', '3', '4', '5'],
  );
  assert.equal(numbered.entry.dfs, '0');
  assert.equal(numbered.loop.parent, 'entry');
  assert.equal(await page.locator('.view .dom-search svg path.edge.lt-tree').count(), 5, 'the DFS spanning tree');
  assert.ok(Object.values(numbered).every((r) => r.sdom === '' && r.idom === ''));

  // Step 2 next: a semidominator, with the vertices it read marked on the CFG.
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('#step-text'), /^Step 2: sdom\(\w+\) = \w+, found through predecessor \w+/);
  assert.equal(await page.locator('.view .lt-steps td.sdom.changed').count(), 1);
  assert.ok((await page.locator('.view .dom-search svg g.node.lt-role').count()) >= 1);
  await page.click('.view .dom-tree svg g.node[data-id="body"]');
  await page.waitForSelector('.view .lt-steps tr.selected[data-block="body"]');
  assert.match(await page.textContent('.view .frontier-note'), /^DF\(body\) = \{loop\}/);
  await screenshot(page, 'dom');

  // The end: every idom is final and the tree has all its edges.
  await page.keyboard.press('End');
  const { k, n } = await stepCount(page);
  assert.equal(k, n);
  const end = await table(page);
  const idoms = Object.fromEntries(Object.entries(end).map(([b, r]) => [b, r.idom]));
  assert.deepEqual(idoms, { entry: '', loop: 'entry', body: 'loop', odd: 'body', next: 'body', done: 'loop' });
  assert.equal(await page.locator('.view .dom-tree svg path.edge:not(.lt-hidden)').count(), 5);
  await page.keyboard.press('Home');
  assert.equal((await stepCount(page)).k, 0);
  assert.deepEqual(env.errors, []);
});

test('the post-dominator tab draws the virtual exit and roots the tree there', { timeout: 90_000 }, async () => {
  const { page } = env;
  await open(page, 'pdom');
  await page.waitForSelector('.view .lt-steps tbody tr');
  const exitNode = `svg g.node[data-id="${VIRTUAL_EXIT}"]`;
  assert.equal(await page.locator(`.view .dom-search ${exitNode}`).count(), 1);
  assert.equal(await page.locator(`.view .dom-tree ${exitNode}`).count(), 1);
  assert.equal(await page.textContent(`.view .dom-tree ${exitNode} text.title`), VIRTUAL_EXIT);
  // Step 1 adds the edge from the virtual exit to done, the only block that returns.
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('#step-text'), /done leaves the function/);
  const edge = `.view .dom-search svg path.edge[data-from="${VIRTUAL_EXIT}"][data-to="done"]`;
  assert.equal(await page.locator(`${edge}:not(.lt-hidden)`).count(), 1);
  for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowRight');
  await screenshot(page, 'pdom-steps');
  await page.keyboard.press('End');
  const end = await table(page);
  assert.equal(Object.keys(end)[0], VIRTUAL_EXIT);
  assert.equal(end[VIRTUAL_EXIT].dfs, '0');
  const ipdoms = Object.fromEntries(Object.entries(end).map(([b, r]) => [b, r.idom]));
  assert.deepEqual(ipdoms, {
    [VIRTUAL_EXIT]: '',
    entry: 'loop',
    loop: 'done',
    body: 'next',
    odd: 'next',
    next: 'loop',
    done: VIRTUAL_EXIT,
  });
  // Selecting from the table works like a click on the drawing.
  await page.click(`.view .lt-steps tr[data-block="odd"]`);
  await page.waitForSelector('.view .dom-tree svg g.node.frontier[data-id="body"]');
  await page.click('.view .dom-tree .zoom-fit');
  assert.match(await page.textContent('.view .frontier-note'), /^PDF\(odd\) = \{body\}/);
  await screenshot(page, 'pdom');
  assert.deepEqual(env.errors, []);
});

test('the control-dependence tab draws the CDG and explains a dependence', { timeout: 90_000 }, async () => {
  const { page } = env;
  await open(page, 'cdg');
  await page.waitForSelector('.view .dom-cdg svg g.node');
  assert.equal(await page.locator('.view .dom-cdg svg g.node').count(), 6);
  // loop decides loop (again), body and next; body decides odd.
  const edges = await page.$$eval('.view .dom-cdg svg path.edge', (es) => es.map((e) => `${e.dataset.from}→${e.dataset.to}`).sort());
  assert.deepEqual(edges, ['body→odd', 'loop→body', 'loop→loop', 'loop→next']);
  const deps = await page.$$eval('#cdg-table tbody tr', (rows) =>
    Object.fromEntries(rows.map((r) => [r.dataset.block, r.querySelector('td.deps').textContent])),
  );
  assert.deepEqual(deps, { entry: '', loop: 'loop', body: 'loop', odd: 'body', next: 'loop', done: '' });
  await page.click('.view .dom-cdg svg g.node[data-id="odd"]');
  await page.waitForSelector('.view .dom-cdg svg g.node.frontier[data-id="body"]');
  const note = await page.textContent('#cdg-note');
  assert.match(note, /PDF\(odd\) = \{body\}/);
  assert.match(note, /body → odd: odd post-dominates odd/);
  await screenshot(page, 'cdg');
  assert.deepEqual(env.errors, []);
});

test('the 200-block example steps to the end in both trees', { timeout: 120_000 }, async () => {
  const { page } = env;
  await page.goto(URL);
  await page.selectOption('#example', 'stress-200');
  for (const tab of ['dom', 'pdom']) {
    await page.click(`#tab-${tab}`);
    await page.waitForSelector('.view .lt-steps tbody tr');
    const t0 = Date.now();
    await page.keyboard.press('End');
    await page.waitForFunction(() => document.querySelectorAll('.view .dom-tree svg g.node').length >= 200, null, { timeout: 60_000 });
    const ms = Date.now() - t0;
    const rows = await table(page);
    const blocks = Object.keys(rows).filter((b) => b !== VIRTUAL_EXIT);
    assert.ok(blocks.length >= 200, `${blocks.length} blocks`);
    // Every vertex the search reached but the root has its idom; the tree shows an edge for each.
    const reached = Object.entries(rows).filter(([, r]) => r.dfs !== 'unreachable');
    const missing = reached.filter(([, r]) => r.idom === '').map(([b]) => b);
    assert.equal(missing.length, 1, `only the root lacks an idom: ${missing}`);
    assert.equal(await page.locator('.view .dom-tree svg g.node').count(), reached.length);
    const shown = await page.locator('.view .dom-tree svg path.edge:not(.lt-hidden)').count();
    assert.equal(shown, reached.length - 1);
    console.log(`${tab}: 200-block tree drawn and complete ${ms} ms after End`);
  }
  await screenshot(page, 'pdom-200');
  assert.deepEqual(env.errors, []);
});
