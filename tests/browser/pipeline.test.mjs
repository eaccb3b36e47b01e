// End to end: the before/after view's pipeline picker (shortcuts, chips, adding a pass, two
// stages of any pipeline compared, both runs), its permalink opened in a fresh browser, and
// the copy propagation tab stepped through. Screenshots: tests/artifacts/pipeline-*.png,
// copyprop-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { screenshot, useBrowser, URL, inFreshBrowser, openExample } from './harness.mjs';

const env = useBrowser();
const WAIT = { timeout: 30_000 };

const chips = (page) => page.$$eval('#pipeline .chip-name', (cs) => cs.map((c) => c.textContent));
const codeLines = (page, side) =>
  page.$$eval(`#${side}-code .dl:not(.gap) .code`, (ls) => ls.map((l) => l.textContent));
const stageNames = (page) =>
  page.evaluate(() => ['#stage-from', '#stage-to'].map((s) => {
    const el = document.querySelector(s);
    return el.options[el.selectedIndex].textContent;
  }));

test('the default pipeline on partial.bril: LCM leaves copies, copy propagation removes them', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'partial');
  await page.click('#tab-diff');
  await page.waitForSelector('#after-code .dl', WAIT);
  assert.equal(await page.getAttribute('#pipeline-default', 'aria-pressed'), 'true');
  assert.deepEqual(await chips(page), ['LCM', 'Copy propagation', 'DCE']);
  assert.deepEqual(await stageNames(page), ['input', 'after DCE']);

  // The middle of the pipeline: after LCM against after copy propagation.
  await page.selectOption('#stage-from', '1');
  await page.selectOption('#stage-to', '2');
  await page.waitForFunction(() => document.querySelector('.diff-head h2')?.textContent.includes('after LCM and after Copy propagation'));
  const before = await codeLines(page, 'before');
  const after = await codeLines(page, 'after');
  assert.ok(before.some((l) => / = id /.test(l)), `LCM's copies:\n${before.join('\n')}`);
  assert.ok(!after.some((l) => / = id /.test(l)), `no copy left:\n${after.join('\n')}`);
  assert.match(await page.textContent('.diff-passes'), /^Copy propagation on @main: /);

  await page.fill('#run-args', 'false 2 3');
  await page.click('#run-both');
  await page.waitForSelector('#run-after .count', WAIT);
  assert.match(await page.textContent('.run-bar .verdict'), /Same behaviour · \d+% fewer instructions/);
  assert.match(await page.textContent('#run-before h3'), /^After LCM/);
  assert.match(await page.textContent('#run-after h3'), /^After Copy propagation/);
  await screenshot(page, 'pipeline-middle-stage');

  // Every stage at once: LCM's copies cost, copy propagation pays them back.
  await page.click('#run-stages');
  await page.waitForSelector('#stage-runs tbody tr', WAIT);
  const rows = await page.$$eval('#stage-runs tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(rows.map((r) => r[0]), ['input', 'after LCM', 'after Copy propagation', 'after DCE']);
  const executed = rows.map((r) => Number(r[1]));
  assert.ok(executed[1] > executed[0] && executed[2] < executed[1], JSON.stringify(rows));
  assert.match(rows[1][3], /^same behaviour, \d+ more$/);
  assert.match(rows[3][3], /^same behaviour, (as many|\d+% fewer)$/);
  await screenshot(page, 'pipeline-every-stage');

  // Editing the pipeline: remove DCE, add it back from the menu; a shortcut replaces it all.
  await page.click('#pipeline .chip:nth-child(3) .chip-remove');
  await page.waitForFunction(() => document.querySelectorAll('#pipeline .chip').length === 2);
  assert.equal(await page.getAttribute('#pipeline-default', 'aria-pressed'), 'false');
  await page.selectOption('#add-pass', 'dce');
  await page.waitForFunction(() => document.querySelectorAll('#pipeline .chip').length === 3);
  assert.deepEqual(await chips(page), ['LCM', 'Copy propagation', 'DCE']);
  assert.equal(await page.getAttribute('#pipeline-default', 'aria-pressed'), 'true');
  await page.click('#pass-copyprop');
  await page.waitForFunction(() => document.querySelectorAll('#pipeline .chip').length === 1);
  assert.deepEqual(await stageNames(page), ['input', 'after Copy propagation']);
  assert.deepEqual(errors, []);
});

test('a link to a middle stage of a custom pipeline opens the same comparison in a fresh browser', { timeout: 120_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'partial');
  await page.click('#tab-diff');
  await page.click('#pass-lcm');
  await page.waitForFunction(() => document.querySelectorAll('#pipeline .chip').length === 1);
  await page.selectOption('#add-pass', 'copyprop');
  await page.selectOption('#add-pass', 'dce');
  await page.waitForFunction(() => document.querySelectorAll('#pipeline .chip').length === 3);
  await page.selectOption('#stage-from', '1');
  await page.selectOption('#stage-to', '3');
  await page.waitForSelector('#after-code .dl', WAIT);
  const want = { before: await codeLines(page, 'before'), after: await codeLines(page, 'after'), stages: await stageNames(page) };
  assert.deepEqual(want.stages, ['after LCM', 'after DCE']);
  await page.click('#copy-link');
  const link = await page.inputValue('#share-url');

  await inFreshBrowser(link, async (p) => {
    await p.waitForSelector('#after-code .dl', WAIT);
    assert.equal(await p.$eval('.tabs .tab.active', (t) => t.id), 'tab-diff');
    assert.deepEqual(await chips(p), ['LCM', 'Copy propagation', 'DCE']);
    assert.deepEqual(await stageNames(p), want.stages);
    assert.deepEqual(await codeLines(p, 'before'), want.before);
    assert.deepEqual(await codeLines(p, 'after'), want.after);
    await screenshot(p, 'pipeline-link-opened');
  });
  assert.deepEqual(errors, []);
});

test('SIL: LCM runs (nothing to move here), copy propagation says why it runs on Bril only, DCE still runs', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'dead1');
  await page.click('#tab-diff');
  await page.waitForSelector('#after-code .dl', WAIT);
  const refused = await page.$$eval('.diff-passes li.problem', (ls) => ls.map((l) => l.textContent));
  assert.equal(refused.length, 1, refused.join('\n'));
  assert.match(refused[0], /Copy propagation runs on Bril; @dead1 is SIL: .*SSA/);
  assert.match(await page.textContent('.diff-counts'), /−6 deleted/);
  await page.click('#tab-copyprop');
  await page.waitForSelector('.view-copyprop .cp-problem', WAIT);
  assert.match(await page.textContent('.view-copyprop'), /SSA/);
  assert.deepEqual(errors, []);
});

test('the copy propagation tab steps through rounds, rewrites and deletions', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'copies');
  await page.click('#tab-copyprop');
  await page.waitForSelector('.view-copyprop table', WAIT);
  assert.match(await page.textContent('#step-text'), /^Before copy propagation: @main has \d+ cop/);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => /^Available copies, round 1 of \d+/.test(document.querySelector('#step-text')?.textContent ?? ''));
  await screenshot(page, 'copyprop-round');
  await page.keyboard.press('End');
  await page.waitForFunction(() => /^Delete /.test(document.querySelector('#step-text')?.textContent ?? '') && !!document.querySelector('#step-text code'));
  await screenshot(page, 'copyprop-end');
  assert.deepEqual(errors, []);
});
