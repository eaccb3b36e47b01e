// The AddressLowering and copy elimination views end to end on seed 001's gallery examples:
// identity's opaque function step by step (the table of opaque values, the storage tree and
// the lowered CFG, each rewritten line side by side), a refused function, the witness thunk,
// copy elimination's three facts on both functions of the redundant-copy example (removed;
// kept with the failing fact named and drawn), dark mode, and a permalink restoring the view
// and the step in a fresh browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { URL as SITE, ARTIFACTS, useBrowser, screenshot, inFreshBrowser } from './harness.mjs';

const WAIT = { timeout: 30_000 };
const env = useBrowser();

async function openExample(page, id, marker) {
  await page.goto(SITE);
  await page.waitForSelector('#source', WAIT);
  await page.selectOption('#example', id);
  await page.waitForFunction((m) => document.querySelector('#source').value.includes(m), marker, WAIT);
}

/** Saves a screenshot of one element (scrolled into view) as tests/artifacts/NAME.png. */
async function shoot(page, selector, name) {
  await page.locator(selector).first().screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

const stepText = (page) => page.textContent('#step-text');

/** Steps with the → key, from a focused control of the view (not a text field). */
async function stepRight(page, n = 1) {
  const before = await stepText(page);
  await page.focus('.lw-phase, .ce-pick');
  for (let i = 0; i < n; i++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction((t) => document.querySelector('#step-text')?.textContent !== t, before, WAIT);
}

test('identity opens on AddressLowering of its opaque function; step 1 is the table of opaque values', async () => {
  const { page, errors } = env;
  await openExample(page, 'identity', '@identity_opaque');
  await page.waitForSelector('.lw-view #lw-values', WAIT);
  assert.equal(await page.$eval('#function', (s) => s.value), 'identity_opaque');
  assert.equal(await page.$eval('.tabs [aria-selected="true"]', (t) => t.id), 'tab-address-lowering');
  assert.match(await page.textContent('.lw-head h2'), /AddressLowering of @identity_opaque/);
  assert.match(await page.textContent('.lw-subtitle'), /AddressLowering \(Swift's, from the SIL opaque-values proposal\)/);
  assert.match(await stepText(page), /Step 1, storage assignment: 2 opaque values in reverse postorder: %0, %1/);
  assert.equal(await page.getAttribute('#lw-phase-1', 'aria-current'), 'step');
  const rows = await page.$$eval('#lw-values tbody tr', (rs) =>
    rs.map((r) => [r.dataset.value, r.cells[3].textContent, r.querySelector('.lw-kind').textContent]),
  );
  assert.deepEqual(rows, [
    ['%0', 'function argument', 'indirect argument'],
    ['%1', 'copy_value', '@out argument'],
  ]);
  assert.match(await page.textContent('#lw-values tbody tr:nth-child(2) .lw-why'), /returned @out/);
  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'lowering-identity-step1');
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.deepEqual(errors, []);
});

test('step 2: the storage tree with its legend, and the lowered CFG', async () => {
  const { page, errors } = env;
  await openExample(page, 'identity', '@identity_opaque');
  await page.waitForSelector('.lw-view #lw-values', WAIT);
  await stepRight(page);
  await page.waitForSelector('#lw-tree', WAIT);
  assert.match(await stepText(page), /Step 2, storage allocation: 0 alloc_stacks/);
  assert.equal(await page.getAttribute('#lw-phase-2', 'aria-current'), 'step');
  const roots = await page.$$eval('#lw-tree > ul > li', (ls) =>
    ls.map((l) => [l.dataset.value, l.querySelector('.lw-kind').textContent]),
  );
  assert.deepEqual(roots, [
    ['%0', 'indirect argument'],
    ['%1', '@out argument'],
  ]);
  assert.equal(await page.$$eval('.lw-legend .lw-kind', (ks) => ks.length), 8);
  assert.match(await page.textContent('.lw-no-stacks'), /No alloc_stack/);
  await page.waitForSelector('.lw-view .optlab-graph g.node', WAIT);
  assert.ok(await page.getAttribute('.lw-cfg', 'aria-label'));
  assert.deepEqual(errors, []);
});

test('step 3: each rewritten line, old and new side by side, the current one highlighted', async () => {
  const { page, errors } = env;
  await openExample(page, 'identity', '@identity_opaque');
  await page.waitForSelector('.lw-view #lw-values', WAIT);
  await stepRight(page, 2);
  await page.waitForSelector('#lw-rewrites', WAIT);
  assert.equal(await page.getAttribute('#lw-phase-3', 'aria-current'), 'step');
  const current = async () =>
    page.$eval('#lw-rewrites tr.current', (r) => [
      r.querySelector('.lw-old').textContent,
      [...r.querySelectorAll('.lw-new-line')].map((c) => c.textContent),
    ]);
  // Step 2 of the bar: the block's arguments get addresses, the @out result first.
  assert.deepEqual(await current(), ['bb0(%0 : $T):', ['bb0(%out0 : $*T, %0 : $*T):']]);
  await stepRight(page);
  assert.deepEqual(await current(), ['%1 = copy_value %0 : $T', ['copy_addr %0 to [init] %out0 : $*T']]);
  assert.match(await stepText(page), /copy_value → copy_addr/);
  assert.match(await page.textContent('.lw-now'), /copy_value → copy_addr/);
  // The input line of the current rewrite is marked in the before/after panes.
  assert.match(await page.textContent('.lw-input .lw-line.lw-current'), /copy_value %0/);
  assert.match(await page.textContent('.lw-output .lw-line.lw-current'), /copy_addr %0 to \[init\] %out0/);
  await stepRight(page);
  assert.deepEqual(await current(), ['destroy_value %0 : $T', ['destroy_addr %0 : $*T']]);
  await stepRight(page);
  assert.deepEqual(await current(), ['return %1 : $T', ['%unit = tuple ()', 'return %unit : $()']]);
  assert.equal(await page.$$eval('#lw-rewrites tr.current', (rs) => rs.length), 1);
  // A row's step button goes back to it.
  await page.click('#lw-rewrites tr[data-rewrite="1"] .lw-step-link');
  await page.waitForFunction(() => document.querySelector('#lw-rewrites tr.current')?.dataset.rewrite === '1', null, WAIT);
  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'lowering-identity-step3');
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.deepEqual(errors, []);
});

test('a function that is already lowered is refused with the reason; the thunk gets its @out argument', async () => {
  const { page, errors } = env;
  await openExample(page, 'identity', '@identity_opaque');
  await page.waitForSelector('.lw-view', WAIT);
  await page.selectOption('#function', 'identity');
  await page.waitForSelector('.lw-refused', WAIT);
  assert.match(await page.textContent('.lw-refused'), /@identity is not lowered: .*already lowered/);
  await openExample(page, 'witness-thunk', '@witness_opaque');
  await page.waitForSelector('.lw-view .lw-empty', WAIT);
  assert.equal(await page.$eval('#function', (s) => s.value), 'witness_opaque');
  await page.click('#lw-phase-3');
  await page.waitForSelector('#lw-rewrites', WAIT);
  const news = await page.$$eval('#lw-rewrites .lw-new-line', (cs) => cs.map((c) => c.textContent));
  assert.ok(news.includes('store %3 to [trivial] %out0 : $*Int'), news.join(' | '));
  assert.deepEqual(errors, []);
});

const CAST = `sil_stage raw

import Builtin

sil [ossa] @cast : $@convention(thin) <T> (@in T) -> @out T {
bb0(%0 : @owned $T):
  %1 = unchecked_value_cast %0 : $T to $T
  %2 = copy_value %1 : $T
  destroy_value %0 : $T
  return %2 : $T
}
`;

test('an instruction AddressLowering does not lower yet: the refusal names it and marks its line', async () => {
  const { page, errors } = env;
  await openExample(page, 'identity', '@identity_opaque');
  await page.waitForSelector('.lw-view', WAIT);
  await page.fill('#source', CAST);
  await page.waitForFunction(() => document.querySelector('.lw-head h2')?.textContent.includes('@cast'), null, WAIT);
  await page.waitForSelector('.lw-refused', WAIT);
  assert.match(await page.textContent('.lw-refused'), /@cast is not lowered: unchecked_value_cast on an address-only value/);
  assert.match(await page.textContent('.lw-refused-at'), /\(in bb0\): %1 = unchecked_value_cast %0 : \$T to \$T/);
  assert.match(await page.textContent('.lw-input .lw-line.lw-refused-line'), /unchecked_value_cast/);
  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'lowering-refused');
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.deepEqual(errors, []);
});

test('the step 2 stack slot of the redundant copy is on the lowered CFG', async () => {
  const { page, errors } = env;
  await openExample(page, 'redundant-copy', '@needed_copy');
  await page.waitForSelector('.ce-view', WAIT);
  await page.click('#tab-address-lowering');
  await page.click('#lw-phase-2');
  await page.waitForSelector('#lw-tree', WAIT);
  const tree = await page.$$eval('#lw-tree li', (ls) => ls.map((l) => l.dataset.value));
  assert.deepEqual(tree, ['%arg', '%copy']);
  assert.equal(await page.textContent('#lw-tree li[data-value="%copy"] .lw-kind'), 'alloc_stack');
  await page.waitForSelector('.lw-view .optlab-graph .line-bg.lw-alloc', { ...WAIT, state: 'attached' });
  const badges = await page.$$eval('.lw-view .optlab-graph .badge', (bs) => bs.map((b) => b.textContent));
  assert.ok(badges.some((b) => b.includes('alloc_stack %copy_addr')), badges.join(' | '));
  assert.ok(badges.some((b) => b.includes('dealloc_stack %copy_addr')), badges.join(' | '));
  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'lowering-redundant-copy-step2');
  await shoot(page, '.lw-cfg', 'lowering-redundant-copy-cfg');
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.deepEqual(errors, []);
});

test('copy elimination: the redundant copy is removed, all three facts hold', async () => {
  const { page, errors } = env;
  await openExample(page, 'redundant-copy', '@needed_copy');
  await page.waitForSelector('.ce-view .ce-fact', WAIT);
  assert.equal(await page.$eval('.tabs [aria-selected="true"]', (t) => t.id), 'tab-copy-elim');
  assert.equal(await page.$eval('#function', (s) => s.value), 'redundant_copy');
  assert.match(await page.textContent('.ce-head h2'), /Copy elimination on @redundant_copy/);
  assert.match(await page.textContent('.ce-head .lw-subtitle'), /opaque-values proposal/);
  const facts = await page.$$eval('.ce-fact', (fs) =>
    fs.map((f) => [f.dataset.fact, f.querySelector('.ce-mark').getAttribute('aria-label'), f.querySelector('.ce-fact-name').textContent]),
  );
  assert.deepEqual(facts, [
    ['0', 'holds', 'Precondition: one consuming use'],
    ['1', 'holds', '1. cannot be mutated'],
    ['2', 'holds', '2. consumed in scope by a destroy'],
    ['3', 'holds', '3. not used after the copy is consumed'],
  ]);
  assert.match(await page.textContent('.ce-verdict-text'), /removed/);
  assert.match(await page.textContent('.ce-candidate .ce-verdict'), /removed/);
  // The output has neither the copy nor the destroy; the consumer takes %arg.
  const out = await page.textContent('.ce-output');
  assert.ok(!out.includes('copy_value') && !out.includes('destroy_value'), out);
  assert.match(out, /apply %f<T>\(%arg\)/);
  // The facts' block and instructions are highlighted on the CFG and in the code.
  await page.waitForSelector('.ce-view .optlab-graph g.node.ce-holds', { ...WAIT, state: 'attached' });
  assert.ok((await page.$$('.ce-view .optlab-graph .line-bg.ce-copy')).length === 1);
  assert.ok((await page.$$('.ce-input .lw-line.ce-holds')).length >= 2);
  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'copy-elim-removed');
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.deepEqual(errors, []);
});

test('copy elimination: the needed copy is kept, fact 3 fails and is drawn', async () => {
  const { page, errors } = env;
  await openExample(page, 'redundant-copy', '@needed_copy');
  await page.waitForSelector('.ce-view .ce-fact', WAIT);
  await page.selectOption('#function', 'needed_copy');
  await page.waitForFunction(() => document.querySelector('.ce-head h2')?.textContent.includes('@needed_copy'), null, WAIT);
  const marks = await page.$$eval('.ce-fact', (fs) => fs.map((f) => f.querySelector('.ce-mark').textContent));
  assert.deepEqual(marks, ['✓', '✓', '✓', '✗']);
  assert.match(await page.textContent('.ce-fact[data-fact="3"] .ce-fact-text'), /is used after `?%copy`? is consumed: .*apply %u<T>\(%arg\)/);
  assert.match(await page.textContent('.ce-verdict-text'), /kept: fact 3 fails \(not used after the copy is consumed\)/);
  // One candidate, one step: no step bar; the candidate's button says the verdict.
  assert.match(await page.textContent('.ce-candidate .ce-verdict'), /kept/);
  // The failing fact is focused: its block is drawn failing, the late use marked.
  assert.equal(await page.getAttribute('.ce-fact[data-fact="3"] .ce-fact-pick', 'aria-pressed'), 'true');
  await page.waitForSelector('.ce-view .optlab-graph g.node.ce-fails', { ...WAIT, state: 'attached' });
  assert.match(await page.textContent('.ce-input .lw-line.ce-fails'), /apply %u<T>\(%arg\)/);
  assert.match(await page.textContent('.ce-output'), /copy_value %arg/);
  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'copy-elim-kept');
  await shoot(page, '.ce-cfg', 'copy-elim-kept-cfg');
  // Another fact, picked with the keyboard: it holds, so the block is drawn holding.
  await page.focus('.ce-fact[data-fact="1"] .ce-fact-pick');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.ce-view .optlab-graph g.node.ce-holds', { ...WAIT, state: 'attached' });
  assert.equal(await page.getAttribute('.ce-fact[data-fact="1"] .ce-fact-pick', 'aria-pressed'), 'true');
  // Dark mode.
  await page.click('#theme');
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark', null, WAIT);
  await screenshot(page, 'copy-elim-kept-dark');
  await page.click('#theme');
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.deepEqual(errors, []);
});

test('a permalink restores the AddressLowering view and its step in a fresh browser', { timeout: 120_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'identity', '@identity_opaque');
  await page.waitForSelector('.lw-view #lw-values', WAIT);
  await stepRight(page, 3);
  await page.waitForFunction(() => document.querySelector('#lw-rewrites tr.current .lw-old')?.textContent.includes('copy_value'), null, WAIT);
  const text = await stepText(page);
  await page.click('#copy-link');
  const link = await page.inputValue('#share-url');
  assert.ok(link.includes('#s='), link);
  await inFreshBrowser(link, async (p) => {
    await p.waitForSelector('.lw-view #lw-rewrites tr.current', WAIT);
    assert.equal(await p.$eval('.tabs [aria-selected="true"]', (t) => t.id), 'tab-address-lowering');
    assert.equal(await p.$eval('#function', (s) => s.value), 'identity_opaque');
    assert.match(await p.textContent('#lw-rewrites tr.current .lw-old'), /copy_value %0/);
    assert.equal(await p.textContent('#step-text'), text);
  });
  assert.deepEqual(errors, []);
});
