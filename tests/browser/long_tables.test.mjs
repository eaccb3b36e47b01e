// End to end: a table longer than 400 rows is drawn a window at a time (web/src/views/rows.rs),
// on a generated 600-block function whose dominator tree is known by construction. What a user
// needs of the whole table must still hold: it has its full height, a screen reader hears its
// size and each row's place, scrolling (wheel, scroll bar) brings any row in, a row deep in
// the table can be clicked, and selecting a block in a drawing by keyboard brings its row
// into view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, screenshot, URL } from './harness.mjs';

const env = useBrowser();
const WAIT = { timeout: 120_000 };
const N = 600;

/** A Bril function of `n` blocks b0…b(n-1) (n even), a ladder of diamonds: an even b(k)
 * branches to b(k+1) and b(k+2), an odd one jumps to b(k+1), the last returns (and b(n-2),
 * with no b(n) to branch to, jumps). Every path passes every even block and an odd block comes
 * only from the even one before it, so idom(b(k)) is b(k-2) for an even k ≥ 2 and b(k-1) for
 * an odd k; an odd b(k) < b(n-1) is control dependent on b(k-1), an even one on nothing. */
function ladder(n) {
  const out = ['@main(c: bool) {'];
  for (let k = 0; k < n; k++) {
    out.push(`.b${k}:`);
    if (k === n - 1) out.push('  ret;');
    else if (k % 2 === 1 || k === n - 2) out.push(`  jmp .b${k + 1};`);
    else out.push(`  br c .b${k + 1} .b${k + 2};`);
  }
  out.push('}');
  return out.join('\n');
}

const TABLE = '.view .lt-steps';

/** The rows in the page: [block, aria-rowindex, idom text]. */
const drawn = (page) =>
  page.$$eval(`${TABLE} tbody tr[data-block]`, (rows) =>
    rows.map((r) => [r.dataset.block, Number(r.getAttribute('aria-rowindex')), r.querySelector('td.idom').textContent]),
  );

/** Every drawn row is where the whole table has it (b(k) is row k + 2: the header is row 1)
 * and shows the idom the program's shape gives. */
function checkRows(rows) {
  for (const [block, index, idom] of rows) {
    const k = Number(block.slice(1));
    assert.equal(index, k + 2, `${block}'s aria-rowindex`);
    const want = k === 0 ? '' : k % 2 === 1 ? `b${k - 1}` : `b${k - 2}`;
    assert.equal(idom, want, `idom(${block})`);
  }
}

test('a long Lengauer–Tarjan table: its full height, its size for screen readers, and every row in reach', { timeout: 240_000 }, async () => {
  const { page } = env;
  await page.goto(URL);
  await page.locator('#source').fill(ladder(N));
  await page.waitForFunction((n) => document.querySelectorAll('.view-cfg svg g.node').length === n, N, WAIT);
  await page.click('#tab-dom');
  await page.waitForSelector(`${TABLE} tbody tr[data-block]`, WAIT);
  await page.keyboard.press('End');
  await page.waitForFunction((t) => document.querySelector(`${t} tr[data-block="b2"] td.idom`)?.textContent === 'b0', TABLE, WAIT);

  assert.equal(await page.getAttribute(TABLE, 'aria-rowcount'), String(N + 1));
  const first = await drawn(page);
  assert.ok(first.length >= 20 && first.length < 200, `${first.length} rows drawn of ${N}`);
  assert.equal(first[0][0], 'b0');
  checkRows(first);
  // The spacers stand in for the rows left out: the body is as high as N drawn rows.
  const { body, row } = await page.$eval(TABLE, (t) => ({
    body: t.tBodies[0].getBoundingClientRect().height,
    row: t.querySelector('tr[data-block="b1"]').getBoundingClientRect().height,
  }));
  assert.ok(Math.abs(body - N * row) <= 2, `body ${body} px for ${N} rows of ${row} px`);
  assert.equal(await page.locator(`${TABLE} tr.rows-spacer[aria-hidden="true"]`).count(), 1, 'one spacer, below');

  // The scroll bar dragged to the middle: the rows there are drawn, in place.
  await page.$eval('.view .dom-side', (pane) => { pane.scrollTop = pane.scrollHeight / 2; });
  await page.waitForSelector(`${TABLE} tr[data-block="b${N / 2}"]`);
  const middle = await drawn(page);
  assert.ok(!middle.some(([b]) => b === 'b0'), 'the top rows left the page');
  checkRows(middle);
  const visible = await page.$eval('.view .dom-side', (pane, n) => {
    const p = pane.getBoundingClientRect();
    const r = pane.querySelector(`tr[data-block="b${n / 2}"]`).getBoundingClientRect();
    return r.top >= p.top && r.bottom <= p.bottom;
  }, N);
  assert.ok(visible, `b${N / 2} is in the pane`);

  // The wheel, down to the last row; a click on it selects its block.
  await page.hover(`${TABLE} tbody`);
  for (let k = 0; k < 40 && (await page.locator(`${TABLE} tr[data-block="b${N - 1}"]`).count()) === 0; k++) {
    await page.mouse.wheel(0, 1500);
    await page.waitForTimeout(50);
  }
  const last = `${TABLE} tr[data-block="b${N - 1}"]`;
  await page.click(`${last} th`);
  await page.waitForSelector(`${last}.selected`);
  assert.equal(await page.getAttribute(last, 'aria-rowindex'), String(N + 1));
  assert.match(await page.textContent('.view .frontier-note'), new RegExp(`^DF\\(b${N - 1}\\)`));
  checkRows(await drawn(page));
  await screenshot(page, 'long-table-end');

  // Back at the top, select b(N-3) in the tree by keyboard: its row scrolls into the pane.
  await page.$eval('.view .dom-side', (pane) => { pane.scrollTop = 0; });
  await page.waitForSelector(`${TABLE} tr[data-block="b0"]`);
  await page.click(`${TABLE} tr[data-block="b0"] th`); // deselects b(N-1), selects b0
  await page.waitForSelector(`${TABLE} tr[data-block="b0"].selected`);
  const target = `b${N - 3}`;
  await page.focus(`.view .dom-tree svg g.node[data-id="${target}"] text.title`);
  await page.keyboard.press('Enter');
  await page.waitForSelector(`${TABLE} tr.selected[data-block="${target}"]`, WAIT);
  const inPane = await page.$eval('.view .dom-side', (pane, b) => {
    const p = pane.getBoundingClientRect();
    const r = pane.querySelector(`tr[data-block="${b}"]`).getBoundingClientRect();
    return r.top >= p.top && r.bottom <= p.bottom;
  }, target);
  assert.ok(inPane, `${target}'s row was brought into the pane`);
  assert.deepEqual(env.errors, []);
});

test('the control-dependence table of a long function is drawn a window at a time too', { timeout: 240_000 }, async () => {
  const { page } = env;
  await page.goto(URL);
  await page.locator('#source').fill(ladder(N));
  await page.waitForFunction((n) => document.querySelectorAll('.view-cfg svg g.node').length === n, N, WAIT);
  await page.click('#tab-cdg');
  await page.waitForSelector('.view #cdg-table tbody tr[data-block]', WAIT);
  assert.equal(await page.getAttribute('.view #cdg-table', 'aria-rowcount'), String(N + 1));
  const rows = () => page.$$eval('.view #cdg-table tbody tr[data-block]', (rs) => rs.map((r) => [r.dataset.block, Number(r.getAttribute('aria-rowindex'))]));
  const top = await rows();
  assert.ok(top.length < 200 && top[0][0] === 'b0', `${top.length} rows drawn`);
  await page.$eval('.view .dom-side', (pane) => { pane.scrollTop = pane.scrollHeight; });
  await page.waitForSelector(`.view #cdg-table tr[data-block="b${N - 1}"]`);
  for (const [b, i] of await rows()) assert.equal(i, Number(b.slice(1)) + 2, b);
  // An odd block depends on the branch of the even one before it; an even one on nothing.
  const deps = (b) => page.textContent(`.view #cdg-table tr[data-block="${b}"] td.deps`);
  assert.equal(await deps(`b${N - 5}`), `b${N - 6}`);
  assert.equal(await deps(`b${N - 6}`), '');
  assert.deepEqual(env.errors, []);
});

test('after the analysis of a long function, the views nearest the one shown are built ahead and opened as they are', { timeout: 240_000 }, async () => {
  const { page } = env;
  await page.goto(URL);
  await page.locator('#source').fill(ladder(N));
  await page.waitForFunction((n) => document.querySelectorAll('.view-cfg svg g.node').length === n, N, WAIT);
  // Built ahead, hidden: Dominators and Post-dominators (the tabs beside the CFG's), with
  // their drawings and tables.
  for (const slug of ['dom', 'pdom']) {
    await page.waitForSelector(`.view-kept[data-tab="${slug}"] .lt-steps tbody tr[data-block]`, { ...WAIT, state: 'attached' });
    await page.waitForFunction((slug) => {
      const gs = [...document.querySelectorAll(`.view-kept[data-tab="${slug}"] .graph-view`)];
      return gs.length === 2 && gs.every((g) => !g.classList.contains('pending') && g.querySelectorAll('svg g.node').length > 0);
    }, slug, WAIT);
  }
  assert.equal(await page.locator('.view').count(), 1, 'only the CFG is shown');
  // Opening one shows the very elements built ahead: drawn in the first frame, not rebuilt.
  const first = await page.evaluate(async () => {
    const built = document.querySelector('.view-kept[data-tab="dom"] .dom-view');
    built.dataset.mark = 'ahead';
    document.querySelector('#tab-dom').click();
    await new Promise((r) => requestAnimationFrame(r));
    const v = document.querySelector('.view.view-dom');
    return {
      same: v?.querySelector('.dom-view')?.dataset.mark === 'ahead',
      visible: !!v?.checkVisibility(),
      graphs: [...(v?.querySelectorAll('.graph-view') ?? [])].map((g) => !g.classList.contains('pending') && g.querySelectorAll('svg g.node').length),
    };
  });
  assert.deepEqual(first, { same: true, visible: true, graphs: [N, N] });
  // The step controls act on it as on any view.
  await page.click('.step-last');
  await page.waitForFunction((t) => document.querySelector(`${t} tr[data-block="b3"] td.idom`)?.textContent === 'b2', TABLE, WAIT);
  // An edit makes them stale: the next analysis builds them again (new elements).
  await page.click('#tab-cfg');
  await page.locator('#source').fill(ladder(N + 2));
  await page.waitForFunction((n) => document.querySelectorAll('.view-cfg svg g.node').length === n, N + 2, WAIT);
  await page.waitForFunction(() => {
    const v = document.querySelector('.view-kept[data-tab="dom"] .dom-view');
    return v && v.dataset.mark !== 'ahead' && v.querySelectorAll('svg g.node').length > 0;
  }, null, WAIT);
  await page.click('#tab-dom');
  await page.waitForSelector('.view.view-dom svg g.node', WAIT);
  assert.equal(await page.locator('.view.view-dom svg g.node').count(), 2 * (N + 2));
  assert.deepEqual(env.errors, []);
});
