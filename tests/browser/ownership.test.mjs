// The Ownership view end to end on seed 003's gallery example: a value's lifetime drawn on
// the CFG (its live blocks carry the highlight class), a borrow scope continued by a reborrow
// phi, the two "break it" edits producing Swift's verifier messages (and undone by Ctrl+Z),
// the verifier's walk as steps, and a permalink round trip into a fresh browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { URL as SITE, useBrowser, screenshot, inFreshBrowser } from './harness.mjs';

const WAIT = { timeout: 30_000 };
const env = useBrowser();

async function openOwnership(page, fn) {
  await page.goto(SITE);
  await page.waitForSelector('#source', WAIT);
  await page.selectOption('#example', 'ownership');
  await page.waitForFunction(() => document.querySelector('#source').value.includes('@reborrow_phi'), null, WAIT);
  await page.selectOption('#function', fn);
  await page.click('#tab-ownership');
  await page.waitForFunction((f) => document.querySelector('.own-head h2')?.textContent.includes(`@${f}`), fn, WAIT);
  await page.waitForSelector('.own-view .optlab-graph g.node', WAIT);
}

async function selectValue(page, name) {
  await page.click(`.own-row[data-value="${name}"] .own-value`);
  await page.waitForSelector(`.own-row.selected[data-value="${name}"]`, WAIT);
}

/** The ids of the graph's nodes that carry `cls`. */
const nodesWith = (page, cls) =>
  page.$$eval(`.own-view .optlab-graph g.node.${cls}`, (ns) => ns.map((n) => n.dataset.id).sort());

test('a copy consumed on both arms of a diamond: its lifetime covers bb0, bb1, bb2', async () => {
  const { page, errors } = env;
  await openOwnership(page, 'copy_diamond');
  assert.match(await page.textContent('.own-subtitle'), /OSSA ownership and borrow scopes.*Ownership\.md/s);
  assert.match(await page.textContent('.own-findings h3'), /no errors/);
  await selectValue(page, '%2');
  assert.equal(await page.textContent('.own-row[data-value="%2"] .own-badge'), 'owned');
  assert.deepEqual(await nodesWith(page, 'own-live'), ['bb0', 'bb1', 'bb2']);
  assert.deepEqual(await nodesWith(page, 'own-def'), ['bb0']);
  assert.deepEqual(await nodesWith(page, 'own-end'), ['bb1', 'bb2'], 'consumed on both arms');
  assert.equal((await page.$$('.own-view .optlab-graph .line-bg.own-consume')).length, 2);
  assert.match(await page.textContent('.own-operands'), /ForwardingConsume, accepts owned, lifetime-ending/);
  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'ownership-diamond-1440');
  await page.setViewportSize({ width: 1024, height: 768 });
  await screenshot(page, 'ownership-diamond-1024');
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.deepEqual(errors, []);
});

test('a borrow scope reborrowed through a @guaranteed phi: the edge and the phi are marked', async () => {
  const { page, errors } = env;
  await openOwnership(page, 'reborrow_phi');
  await selectValue(page, '%1');
  assert.equal(await page.textContent('.own-row[data-value="%1"] .own-badge'), 'guaranteed');
  assert.match(await page.textContent('.own-row[data-value="%3"]'), /reborrow/);
  assert.equal((await page.$$('.own-view .optlab-graph .edge.own-reborrow')).length, 1);
  const badges = await page.$$eval('.own-view .optlab-graph .badge', (bs) => bs.map((b) => b.textContent));
  assert.ok(badges.some((b) => b.includes('reborrow → %3')), badges.join(' | '));
  await selectValue(page, '%3');
  assert.deepEqual(await nodesWith(page, 'own-scope'), ['bb1']);
  assert.ok(badges.length > 0);
  const end = await page.$$eval('.own-view .optlab-graph .badge', (bs) => bs.map((b) => b.textContent));
  assert.ok(end.some((b) => b.includes('end_borrow')), end.join(' | '));
  // The verifier's walk is the view's steps.
  const first = await page.textContent('#step-text').catch(() => '');
  await page.click('.step-last');
  await page.waitForFunction((t) => document.querySelector('#step-text')?.textContent !== t, first, WAIT);
  const last = await page.textContent('#step-text').catch(() => '');
  assert.ok(last.length > 0, 'a step sentence');
  assert.notEqual(first, last);
  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'ownership-reborrow-1440');
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.deepEqual(errors, []);
});

test('break it: deleting a destroy_value leaks the copy; Ctrl+Z takes it back', async () => {
  const { page, errors } = env;
  await openOwnership(page, 'copy_diamond');
  await selectValue(page, '%2');
  assert.equal(await page.locator('.own-break-end-borrow').count(), 0, 'not a borrow: not offered');
  await page.click('.own-break-destroy');
  await page.waitForSelector('.own-finding', WAIT);
  assert.equal(
    (await page.textContent('.own-finding .own-message')).trim(),
    'Error! Found a leak due to a consuming post-dominance failure!',
  );
  assert.ok(!(await page.inputValue('#source')).includes('destroy_value %2'));
  assert.ok((await nodesWith(page, 'own-failing')).length > 0, 'the failing block is marked');
  // The finding's line:col reveals it in the editor.
  await page.click('.own-finding .finding-at');
  assert.ok(await page.$eval('#source', (t) => document.activeElement === t && t.selectionEnd > t.selectionStart));
  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'ownership-leak-1440');
  await page.setViewportSize({ width: 1024, height: 768 });
  await screenshot(page, 'ownership-leak-1024');
  await page.setViewportSize({ width: 1400, height: 900 });
  // The edit is in the editor's undo history.
  await page.focus('#source');
  await page.keyboard.press('Control+z');
  await page.waitForFunction(() => document.querySelector('#source').value.includes('destroy_value %2'), null, WAIT);
  await page.waitForFunction(() => document.querySelector('.own-findings h3')?.textContent.includes('no errors'), null, WAIT);
  assert.deepEqual(errors, []);
});

test('break it: moving end_borrow above the call is a use outside the lifetime', async () => {
  const { page, errors } = env;
  await openOwnership(page, 'borrow_scope');
  await selectValue(page, '%1');
  assert.equal(await page.locator('.own-break-destroy').count(), 0, 'a borrow has no destroy_value');
  await page.click('.own-break-end-borrow');
  await page.waitForSelector('.own-finding', WAIT);
  assert.equal((await page.textContent('.own-finding .own-message')).trim(), 'Found outside of lifetime use?!');
  const text = await page.inputValue('#source');
  assert.ok(text.indexOf('end_borrow %1') < text.indexOf('%3 = apply %2(%1)'));
  assert.match(await page.textContent('.own-finding .own-finding-lines'), /Consuming User:.*end_borrow %1/s);
  assert.deepEqual(errors, []);
});

test('over consume in the gallery, and Bril is not checked', async () => {
  const { page, errors } = env;
  await openOwnership(page, 'over_consume');
  assert.equal((await page.textContent('.own-finding .own-message')).trim(), 'Found over consume?!');
  // The finding's line is highlighted in the editor.
  await page.waitForSelector('.ce-line-active', WAIT);
  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'ownership-over-consume-1440');
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.selectOption('#example', 'loop');
  await page.waitForSelector('.own-not-ossa', WAIT);
  assert.match(await page.textContent('.own-not-ossa'), /not OSSA: ownership is not checked/);
  assert.deepEqual(errors, []);
});

test('a permalink restores the Ownership tab and the selected value', { timeout: 120_000 }, async () => {
  const { page, errors } = env;
  await openOwnership(page, 'reborrow_phi');
  await selectValue(page, '%1');
  await page.click('#copy-link');
  const link = await page.inputValue('#share-url');
  assert.ok(link.includes('#s='), link);
  await inFreshBrowser(link, async (p) => {
    await p.waitForSelector('.own-view .own-row', WAIT);
    assert.equal(await p.$eval('.tabs .tab.active', (t) => t.id), 'tab-ownership');
    assert.equal(await p.$eval('.own-row.selected', (r) => r.dataset.value), '%1');
    await p.waitForSelector('.own-view .optlab-graph .edge.own-reborrow', { ...WAIT, state: 'attached' });
  });
  assert.deepEqual(errors, []);
});
