// End to end: the page as a whole — the CFG of what you type, parse errors that keep the last
// good graph, keyboard stepping, lecture mode, the function picker, and a screenshot of every
// view (tests/artifacts/view-*.png). The views' own tests are in their files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { URL, useBrowser, screenshot } from './harness.mjs';

const env = useBrowser();

// The CFG of static/examples/loop.bril, the example loaded at start.
const LOOP_BLOCKS = ['entry', 'loop', 'body', 'odd', 'next', 'done'];

const DIAMOND = [
  '@main {',
  '.entry:',
  '  c: bool = const true;',
  '  br c .left .right;',
  '.left:',
  '  jmp .end;',
  '.right:',
  '  jmp .end;',
  '.end:',
  '  ret;',
  '}',
  '',
].join('\n');

const TWO_FUNCTIONS = [
  '@main {',
  '  x: int = const 4;',
  '  y: int = call @twice x;',
  '  print y;',
  '}',
  '@twice(a: int): int {',
  '  b: int = add a a;',
  '  ret b;',
  '}',
  '',
].join('\n');

async function cfgTitles(page) {
  return page.$$eval('.view-cfg svg g.node text.title', (ts) => ts.map((t) => t.textContent));
}

async function fresh(page) {
  // A clean profile state: no autosave from an earlier test. The app autosaves when it starts:
  // clear only after it has, or a slow start (a loaded machine) saves again after the clear.
  await page.goto(URL);
  await page.waitForSelector('.view');
  await page.evaluate(() => localStorage.clear());
  await page.goto(URL);
  await page.waitForSelector('.view-cfg svg g.node', { timeout: 30_000 });
}

test('the first example is drawn, and typing a program redraws its CFG', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await fresh(page);
  assert.deepEqual(await cfgTitles(page), LOOP_BLOCKS);
  const code = await page.$eval('.view-cfg g.node[data-id="loop"] text.code', (t) => t.textContent);
  assert.match(code, /br\b.*\bcond\b/);
  assert.equal(await page.locator('.view-cfg svg path.edge').count(), 7);
  await screenshot(page, 'view-cfg');

  await page.fill('#source', DIAMOND);
  await page.waitForFunction(() => document.querySelectorAll('.view-cfg svg g.node').length === 4);
  assert.deepEqual(await cfgTitles(page), ['entry', 'left', 'right', 'end']);
  assert.deepEqual(errors, []);
});

test('a parse error shows line:col and the views keep the last good program', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await fresh(page);
  await page.fill('#source', DIAMOND);
  await page.waitForFunction(() => document.querySelectorAll('.view-cfg svg g.node').length === 4);
  await page.fill('#source', DIAMOND.replace('const true', 'const'));
  const err = await page.waitForSelector('#errors');
  assert.match(await err.textContent(), /\.bril:3:\d+: error/);
  await page.waitForSelector('.stale');
  assert.equal(await page.locator('.view-cfg svg g.node').count(), 4, 'the graph stays');
  await screenshot(page, 'parse-error');
  // Fixing the text clears the error.
  await page.fill('#source', DIAMOND);
  await page.waitForSelector('#errors', { state: 'detached' });
  assert.equal(await page.locator('.stale').count(), 0);
  assert.deepEqual(errors, []);
});

test('arrow keys, Home/End and PageUp/PageDown step the current view', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await fresh(page);
  await page.click('#tab-dce');
  const text = () => page.textContent('#step-text');
  const count = () => page.textContent('.step-count');
  const start = await text();
  assert.match(await count(), /^0 \/ \d+$/);
  await page.locator('body').press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.match(await count(), /^2 \/ /);
  assert.notEqual(await text(), start);
  await page.keyboard.press('ArrowLeft');
  assert.match(await count(), /^1 \/ /);
  await page.keyboard.press('End');
  const [k, n] = (await count()).split(' / ').map(Number);
  assert.equal(k, n);
  await page.keyboard.press('PageUp');
  assert.equal(await count(), `${n - 1} / ${n}`);
  await page.keyboard.press('Home');
  assert.match(await count(), /^0 \//);
  // Keys typed in the editor edit the text; they do not step.
  await page.click('#source');
  await page.keyboard.press('ArrowRight');
  assert.match(await count(), /^0 \//);
  assert.deepEqual(errors, []);
});

test('lecture mode hides the editor and steps with a presenter remote', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await fresh(page);
  await page.click('#tab-dom');
  await page.click('#lecture');
  await page.waitForSelector('.app.lecture');
  assert.equal(await page.isVisible('#source'), false);
  await page.keyboard.press('PageDown');
  await page.keyboard.press('PageDown');
  assert.match(await page.textContent('.step-count'), /^2 \//);
  await screenshot(page, 'lecture-mode');
  await page.click('#lecture');
  assert.equal(await page.isVisible('#source'), true);
  assert.deepEqual(errors, []);
});

test('the function picker switches the function every view shows', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await fresh(page);
  await page.fill('#source', TWO_FUNCTIONS);
  await page.waitForFunction(() => document.querySelectorAll('#function option').length === 2);
  await page.selectOption('#function', 'twice');
  await page.waitForFunction(() => document.querySelector('.view-cfg h2')?.textContent.includes('@twice'));
  const code = await page.$eval('.view-cfg g.node text.code', (t) => t.textContent);
  assert.match(code, /add a a/);
  assert.deepEqual(errors, []);
});

test('every view renders without errors (screenshots in tests/artifacts)', { timeout: 120_000 }, async () => {
  const { page, errors } = env;
  await fresh(page);
  for (const tab of ['dom', 'pdom', 'cdg', 'types', 'ownership', 'dce', 'lcm', 'diff']) {
    await page.click(`#tab-${tab}`);
    await page.waitForSelector(`.view-${tab}`);
    await page.keyboard.press('End');
    await page.waitForTimeout(300);
    assert.equal(await page.locator('.view .empty').count(), 0, `${tab} has content`);
    await screenshot(page, `view-${tab}`);
  }
  assert.deepEqual(errors, []);
});

test('the gallery says what each example teaches', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await fresh(page);
  const first = await page.textContent('#teaches');
  assert.ok(first.trim().length > 10, first);
  const ids = await page.$$eval('#example option', (os) => os.map((o) => [o.value, o.title]));
  assert.ok(ids.length >= 12, `${ids.length} examples`);
  for (const [id, teaches] of ids) assert.ok(id && teaches.length > 10, `${id}: ${teaches}`);
  await page.selectOption('#example', 'lcm-article');
  await page.waitForFunction((t) => document.querySelector('#teaches')?.textContent !== t, first);
  // An edit makes it the user's program: the line goes.
  await page.fill('#source', DIAMOND);
  await page.waitForSelector('#teaches', { state: 'detached' });
  assert.deepEqual(errors, []);
});

test('embed mode (#embed=VIEW) shows just that view, for an iframe', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await fresh(page);
  await page.goto(`${URL}#embed=dom`);
  await page.reload();
  await page.waitForSelector('.app.embed .view-dom svg g.node');
  for (const hidden of ['header.bar', '#source', '.tabs']) {
    assert.equal(await page.isVisible(hidden), false, `${hidden} is hidden`);
  }
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('.step-count'), /^1 \//);
  await screenshot(page, 'embed-dom');
  await page.goto(URL);
  assert.deepEqual(errors, []);
});
