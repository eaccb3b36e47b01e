// The program editor in the built app: colouring, line numbers, error marks at line:col,
// clicking an error, real keyboard typing (the coloured layer always shows the textarea's
// text), Tab, and a program switch. Run: scripts/test.sh e2e
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, screenshot, URL } from './harness.mjs';

const env = useBrowser();

/** The text the coloured layer shows (one `.ce-line` per line). */
async function layerText(page) {
  return page.$$eval('.code-editor .ce-line', (rows) => rows.map((r) => r.textContent).join('\n'));
}

/** Waits until the coloured layer shows exactly what the textarea holds. */
async function layerMatchesTextarea(page) {
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('.code-editor .ce-line')];
    return rows.map((r) => r.textContent).join('\n') === document.querySelector('#source').value;
  });
}

async function open(page) {
  await page.goto(URL);
  await page.waitForSelector('.code-editor .ce-line');
  await layerMatchesTextarea(page);
}

test('the program is shown coloured with line numbers', { timeout: 60_000 }, async () => {
  const { page } = env;
  await open(page);
  const value = await page.inputValue('#source');
  const lines = value.split('\n').length;
  assert.equal(await page.locator('.code-editor .ce-num').count(), lines);
  assert.equal(await page.locator('.code-editor .ce-num').last().textContent(), String(lines));
  assert.ok((await page.locator('.code-editor .hl-op').count()) > 3, 'opcodes are coloured');
  assert.ok((await page.locator('.code-editor .hl-label').count()) > 1, 'labels are coloured');
  // Coloured spans really are coloured, and the textarea's own text is invisible over them.
  const opColor = await page.$eval('.code-editor .hl-op', (e) => getComputedStyle(e).color);
  const textColor = await page.$eval('#source', (e) => getComputedStyle(e).color);
  assert.notEqual(opColor, 'rgb(31, 41, 51)');
  assert.equal(textColor, 'rgba(0, 0, 0, 0)');
  assert.deepEqual(env.errors, []);
});

test('an error is marked at line:col, listed, and clicking it moves the caret', { timeout: 60_000 }, async () => {
  const { page } = env;
  await open(page);
  const bad = ['@main {', '  one: int = const 1;', '  x: int = const;', '  print x;', '}', ''].join('\n');
  await page.fill('#source', bad);
  const entry = page.locator('.editor-errors li').first();
  await entry.waitFor();
  const text = (await entry.textContent()).trim();
  const m = text.match(/^(\d+):(\d+) (.+)$/);
  assert.ok(m, `entry reads "LINE:COL message": ${text}`);
  const [line, col] = [Number(m[1]), Number(m[2])];
  assert.equal(line, 3);
  assert.equal(col, 12);
  assert.match(m[3], /literal/);

  // The line is marked in the gutter (message on hover) and underlined from the column.
  const marker = page.locator('.code-editor .ce-num-err');
  assert.equal(await marker.count(), 1);
  assert.equal(await marker.textContent(), '3');
  assert.match(await marker.getAttribute('data-msg'), /^3:12 .*literal/);
  const underlined = page.locator('.code-editor .ce-line').nth(2).locator('.hl-err');
  assert.equal(await underlined.textContent(), 'const');
  const style = await underlined.evaluate((e) => getComputedStyle(e).textDecorationStyle);
  assert.equal(style, 'wavy');
  await marker.hover();
  const tip = page.locator('.code-editor .ce-tip');
  await tip.waitFor();
  assert.match(await tip.textContent(), /^3:12 .*literal/);
  await screenshot(page, 'editor-error');

  await entry.locator('button').click();
  const caret = await page.$eval('#source', (t) => [document.activeElement === t, t.selectionStart]);
  const want = bad.split('\n').slice(0, line - 1).join('\n').length + 1 + (col - 1);
  assert.deepEqual(caret, [true, want]);

  // Fixing the error clears every mark.
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.type(' 1');
  await page.waitForFunction(() => document.querySelectorAll('.editor-errors li').length === 0);
  assert.equal(await page.locator('.code-editor .ce-num-err, .code-editor .hl-err').count(), 0);
  assert.deepEqual(env.errors, []);
});

test('typing on the keyboard keeps the layer equal to the text', { timeout: 60_000 }, async () => {
  const { page } = env;
  await open(page);
  await page.fill('#source', '@main {\n}\n');
  await layerMatchesTextarea(page);
  await page.click('#source');
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await page.keyboard.type('v: int = const 42;', { delay: 15 });
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await page.keyboard.type('print v;', { delay: 15 });
  const want = '@main {\n  v: int = const 42;\n  print v;\n}\n';
  assert.equal(await page.inputValue('#source'), want);
  await layerMatchesTextarea(page);
  // Undo works (the Tab insertions are in the browser's undo history).
  await page.keyboard.press('Control+z');
  await layerMatchesTextarea(page);
  assert.notEqual(await page.inputValue('#source'), want);
  await page.keyboard.press('Control+Shift+z');
  await layerMatchesTextarea(page);
  // Long after the last key, the text is still what was typed (no reset by a re-render).
  await page.waitForTimeout(500);
  assert.equal(await page.inputValue('#source'), want);
  assert.equal(await layerText(page), want);
  assert.deepEqual(env.errors, []);
});

test('a SIL program is coloured as SIL and a new example replaces the text', { timeout: 60_000 }, async () => {
  const { page } = env;
  await open(page);
  const sil = [
    'sil_stage canonical',
    '',
    'import Builtin',
    '',
    'sil @f : $@convention(thin) (Builtin.Int1) -> () {',
    'bb0(%0 : $Builtin.Int1):',
    '  cond_br %0, bb1, bb2 // branch',
    'bb1:',
    '  br bb2',
    'bb2:',
    '  %3 = tuple ()',
    '  return %3 : $()',
    '}',
    '',
  ].join('\n');
  await page.fill('#source', sil);
  await page.waitForSelector('.code-editor[data-lang="sil"]');
  await layerMatchesTextarea(page);
  assert.ok((await page.locator('.code-editor .hl-value').count()) >= 3);
  assert.ok((await page.locator('.code-editor .hl-type').count()) >= 2);
  assert.equal(await page.locator('.code-editor .hl-keyword').first().textContent(), 'sil_stage');
  await screenshot(page, 'editor-sil');

  await page.selectOption('#example', 'diamond');
  await page.waitForFunction(() => document.querySelector('#source').value.includes('@main'));
  await layerMatchesTextarea(page);
  await page.waitForSelector('.code-editor[data-lang="bril"]');
  assert.deepEqual(env.errors, []);
});
