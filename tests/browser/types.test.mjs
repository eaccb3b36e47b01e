// The Types view end to end: Swift type lowering of seed 002's Box/Transform/Phantom gallery
// example (trivial / loadable / address-only badges), the what-if substitution of T, a click
// from a why-chain step to the declaration it rests on, the hover of a value in the editor,
// and a permalink round trip into a fresh browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { URL as SITE, useBrowser, screenshot, inFreshBrowser } from './harness.mjs';

const WAIT = { timeout: 30_000 };
const env = useBrowser();

async function openTypes(page, fn) {
  await page.goto(SITE);
  await page.waitForSelector('#source', WAIT);
  await page.selectOption('#example', 'type-lowering');
  await page.waitForFunction(() => document.querySelector('#source').value.includes('struct Phantom'), null, WAIT);
  if (fn) await page.selectOption('#function', fn);
  await page.click('#tab-types');
  await page.waitForSelector('.types-view .type-row', WAIT);
}

/** The class word of the row of type text `ty` (as written, without `$`). */
const classOf = (page, ty) =>
  page.$eval(`.type-row[data-type="${ty}"] .type-badge`, (b) => b.textContent.trim());

test('the seed vectors: Box<Int> trivial, Box<NSObject> loadable, Box<Any> address-only', async () => {
  const { page, errors } = env;
  await openTypes(page, 'instances');
  assert.match(await page.textContent('.types-subtitle'), /Swift type lowering.*Types\.md.*TypeLowering\.cpp/s);
  assert.equal(await classOf(page, 'Box<Int>'), 'trivial');
  assert.equal(await classOf(page, 'Box<NSObject>'), 'loadable');
  assert.equal(await classOf(page, '*Box<Any>'), 'address-only');
  assert.equal(await classOf(page, 'Transform<Any>'), 'loadable');
  assert.equal(await classOf(page, '*Phantom<() -> ()>'), 'trivial');
  assert.equal(await classOf(page, '*Phantom<NSObject>'), 'trivial');
  // Badges say their class to a screen reader too.
  const label = await page.getAttribute('.type-row[data-type="*Box<Any>"] .type-badge', 'aria-label');
  assert.match(label, /^address-only/);
  // The why-chain names the field that makes Box<Any> address-only.
  assert.match(await page.textContent('.type-row[data-type="*Box<Any>"] .why'), /value/);

  // Selecting a row highlights its uses in the editor.
  await page.click('.type-row[data-type="*Box<Any>"] .type-name');
  await page.waitForSelector('.type-row.selected .type-uses li', WAIT);
  assert.ok((await page.$$('.ce-line-active')).length >= 3, 'the uses are highlighted');

  // Hovering a value in the editor names its type and class.
  const text = await page.$eval('#source', (t) => t.value);
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes('%4 = alloc_stack'));
  const box = await page.$eval('#source', (t) => {
    const r = t.getBoundingClientRect();
    return { x: r.left, y: r.top, st: t.scrollTop };
  });
  const lh = await page.$eval('.ce-line', (l) => l.offsetHeight);
  const ch = await page.$eval('.ce-measure', (m) => m.offsetWidth / 10);
  await page.$eval('#source', (t, top) => { t.scrollTop = top; }, Math.max(0, (line - 3) * lh));
  const st = await page.$eval('#source', (t) => t.scrollTop);
  const col = lines[line].indexOf('%4') + 1;
  await page.mouse.move(box.x + 8 + col * ch, box.y + 8 + line * lh - st + lh / 2);
  const tip = await page.waitForSelector('.ce-hover-tip', WAIT);
  assert.equal((await tip.textContent()).trim(), '`%4 : $*Box<Any>` — address-only (an address of it)');
  await page.mouse.move(0, 0);

  // The CFG's code lines carry the same description (an SVG <title>, shown on hover).
  await page.click('#tab-cfg');
  await page.waitForSelector('.optlab-graph .node', WAIT);
  const titles = await page.$$eval('.optlab-graph rect.line-bg > title', (ts) => ts.map((t) => t.textContent));
  assert.ok(titles.some((t) => t.includes('`%4 : $*Box<Any>` — address-only')), titles.join(' | '));
  await page.click('#tab-types');
  await page.waitForSelector('.types-view .type-row', WAIT);

  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'types-view-1440');
  await page.setViewportSize({ width: 1024, height: 768 });
  await screenshot(page, 'types-view-1024');
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.deepEqual(errors, []);
});

test('what-if: T := Any makes Box<T> address-only, T := Int trivial, NSObject loadable', async () => {
  const { page, errors } = env;
  await openTypes(page, 'boxes');
  assert.equal(await classOf(page, '*Box<T>'), 'address-only', 'a bare generic parameter is runtime-sized');
  assert.equal(await classOf(page, 'Phantom<T>'), 'trivial');
  assert.equal(await classOf(page, 'Transform<T>'), 'loadable');

  await page.fill('#whatif-T', 'Int');
  await page.press('#whatif-T', 'Enter');
  await page.waitForFunction(() => document.querySelector('.type-row[data-type="*Box<T>"] .type-badge')?.textContent.trim() === 'trivial', null, WAIT);
  assert.match(await page.textContent('.types-whatif-note'), /T := Int/);

  await page.click('.whatif[data-param="T"] .whatif-suggest:has-text("Any")');
  await page.waitForFunction(() => document.querySelector('.type-row[data-type="*Box<T>"] .type-badge')?.textContent.trim() === 'address-only', null, WAIT);
  assert.equal(await page.inputValue('#whatif-T'), 'Any');
  assert.match(await page.textContent('.type-row[data-type="*Box<T>"] .why'), /what-if/i, 'the chain names the substitution');

  await page.click('.whatif[data-param="T"] .whatif-suggest:has-text("NSObject")');
  await page.waitForFunction(() => document.querySelector('.type-row[data-type="*Box<T>"] .type-badge')?.textContent.trim() === 'loadable', null, WAIT);
  assert.equal(await classOf(page, 'Phantom<T>'), 'trivial', 'Phantom never depends on T');

  await page.click('#theme');
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark', null, WAIT);
  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'types-whatif-dark-1440');
  await page.click('#theme');
  await page.setViewportSize({ width: 1400, height: 900 });

  await page.click('.whatif[data-param="T"] .whatif-clear');
  await page.waitForFunction(() => document.querySelector('.type-row[data-type="*Box<T>"] .type-badge')?.textContent.trim() === 'address-only', null, WAIT);

  // A resilient switch: Phantom treated as a library-evolution type becomes address-only.
  await page.click('.resilient-switch[data-type="Phantom"]');
  await page.waitForFunction(() => document.querySelector('.type-row[data-type="Phantom<T>"] .type-badge')?.textContent.trim() === 'address-only', null, WAIT);
  assert.equal(await page.getAttribute('.resilient-switch[data-type="Phantom"]', 'aria-checked'), 'true');
  await page.click('.resilient-switch[data-type="Phantom"]');
  await page.waitForFunction(() => document.querySelector('.type-row[data-type="Phantom<T>"] .type-badge')?.textContent.trim() === 'trivial', null, WAIT);
  assert.deepEqual(errors, []);
});

test('a why-chain step selects its declaration in the editor', async () => {
  const { page, errors } = env;
  await openTypes(page, 'instances');
  const step = '.type-row[data-type="*Box<Any>"] .why .step-at';
  await page.waitForSelector(step, WAIT);
  await page.click(step);
  const sel = await page.$eval('#source', (t) => ({
    focused: document.activeElement === t,
    start: t.selectionStart,
    end: t.selectionEnd,
    text: t.value.slice(t.selectionStart, t.selectionEnd),
    line: t.value.slice(0, t.selectionStart).split('\n').length,
  }));
  assert.ok(sel.focused, 'the editor has the focus');
  assert.ok(sel.end > sel.start, 'a span is selected');
  const text = await page.$eval('#source', (t) => t.value);
  const declLine = text.split('\n').findIndex((l) => l.startsWith('struct Box<T>')) + 1;
  const fieldLine = text.split('\n').findIndex((l) => l.includes('var value: T')) + 1;
  assert.ok([declLine, fieldLine].includes(sel.line), `caret on line ${sel.line}: ${JSON.stringify(sel.text)}`);
  assert.match(sel.text, /Box|value/);
  assert.deepEqual(errors, []);
});

test('a permalink restores the Types tab, the selected type and the what-if', { timeout: 120_000 }, async () => {
  const { page, errors } = env;
  await openTypes(page, 'boxes');
  await page.click('.whatif[data-param="T"] .whatif-suggest:has-text("Any")');
  await page.waitForFunction(() => document.querySelector('#whatif-T')?.value === 'Any', null, WAIT);
  await page.click('.type-row[data-type="*Box<T>"] .type-name');
  await page.waitForSelector('.type-row.selected[data-type="*Box<T>"]', WAIT);
  await page.click('#copy-link');
  const link = await page.inputValue('#share-url');
  assert.ok(link.includes('#s='), link);

  await inFreshBrowser(link, async (p) => {
    await p.waitForSelector('.types-view .type-row', WAIT);
    assert.equal(await p.$eval('.tabs .tab.active', (t) => t.id), 'tab-types');
    assert.equal(await p.inputValue('#whatif-T'), 'Any');
    assert.equal(await p.$eval('.type-row.selected', (r) => r.dataset.type), '*Box<T>');
    assert.equal(await p.$eval('.type-row[data-type="*Box<T>"] .type-badge', (b) => b.textContent.trim()), 'address-only');
    assert.match(await p.textContent('.type-row[data-type="*Box<T>"] .why'), /what-if/i);
  });
  assert.deepEqual(errors, []);
});

test('a Bril program shows trivial rows and no error', async () => {
  const { page, errors } = env;
  await page.goto(SITE);
  await page.waitForSelector('#source', WAIT);
  await page.selectOption('#example', 'loop');
  await page.click('#tab-types');
  await page.waitForSelector('.types-bril', WAIT);
  const badges = await page.$$eval('.type-row .type-badge', (bs) => bs.map((b) => b.textContent.trim()));
  assert.ok(badges.length > 0 && badges.every((b) => b === 'trivial'), badges.join());
  assert.deepEqual(errors, []);
});

test('an undeclared type is unknown with a stub; inserting the stub declares it', async () => {
  const { page, errors } = env;
  await page.goto(SITE);
  await page.waitForSelector('#source', WAIT);
  const program = [
    'sil_stage canonical',
    '',
    'import Swift',
    '',
    'sil @f : $@convention(thin) (@in_guaranteed Foo) -> () {',
    'bb0(%0 : $*Foo):',
    '  %1 = tuple ()',
    '  return %1 : $()',
    '}',
    '',
  ].join('\n');
  await page.click('#source');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(program);
  await page.click('#tab-types');
  await page.waitForSelector('.type-row[data-type="*Foo"] .type-stub', WAIT);
  assert.equal(await classOf(page, '*Foo'), 'unknown');
  assert.match(await page.textContent('.type-row[data-type="*Foo"] .type-stub code'), /Foo/);
  await page.click('.type-row[data-type="*Foo"] .insert-stub');
  await page.waitForFunction(
    () => document.querySelector('.type-row[data-type="*Foo"] .type-badge')?.textContent.trim() !== 'unknown',
    null,
    WAIT,
  );
  const text = await page.$eval('#source', (t) => t.value);
  assert.match(text, /import Swift\n\n\S[^\n]*Foo[^\n]*\n\nsil @f/, text);
  assert.deepEqual(errors, []);
});

test('a qualifier that contradicts the classification is listed at line:col and goes there', async () => {
  const { page, errors } = env;
  await page.goto(SITE);
  await page.waitForSelector('#source', WAIT);
  const program = [
    'sil_stage canonical',
    '',
    'class C {}',
    '',
    'sil [ossa] @g : $@convention(thin) (@in_guaranteed C) -> () {',
    'bb0(%0 : $*C):',
    '  %1 = load [trivial] %0 : $*C',
    '  %2 = tuple ()',
    '  return %2 : $()',
    '}',
    '',
  ].join('\n');
  await page.click('#source');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(program);
  await page.click('#tab-types');
  const item = await page.waitForSelector('.types-warnings li', WAIT);
  assert.match(await item.textContent(), /^7:\d+ .*trivial/s);
  assert.equal(await classOf(page, 'C'), 'loadable');
  await screenshot(page, 'types-warning');
  await page.click('.types-warnings .warning-at');
  const line = await page.$eval('#source', (t) => t.value.slice(0, t.selectionStart).split('\n').length);
  assert.equal(line, 7);
  assert.deepEqual(errors, []);
});
