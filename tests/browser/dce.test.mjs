// End to end: the DCE view and the before/after view on the seed's examples (seed 000) —
// stepping the marking with the keyboard, stepping to the end and reading the after-code,
// running both programs, saving the after-code, exercise mode, and screenshots
// (tests/artifacts/dce-*.png, diff-*.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { URL, useBrowser, screenshot, reportTiming, openExample } from './harness.mjs';

const env = useBrowser();

// static/examples/dead1.sil: bb0 shows its header, %3 … %8, then the return (line 7).
const DEAD = [
  '%3 = struct_extract %0 : $Int32, #Int32._value',
  '%4 = struct_extract %1 : $Int32, #Int32._value',
  '%5 = integer_literal $Builtin.Int1, -1',
];

const stepText = (page) => page.textContent('#step-text');
// Clicks code line `k` of a box, with the whole drawing in view first (dead1's builtin line
// makes the box wider than the pane).
async function clickLine(page, block, k) {
  await page.click('.dce-view .zoom-fit');
  await page.click(`.dce-view g.node[data-id="${block}"] tspan[data-line="${k}"]`);
}
const lineClass = (page, block, k) =>
  page.getAttribute(`.dce-view g.node[data-id="${block}"] tspan[data-line="${k}"]`, 'class');

test('stepping DCE on dead1: → marks the return, End sweeps the sum away', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'dead1');
  await page.click('#tab-dce');
  await page.waitForSelector('.dce-view svg g.node[data-id="bb0"]');
  assert.match(await stepText(page), /^Before DCE: @dead1 has 7 instructions/);

  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('#step-text').textContent.startsWith('Phase 1'));
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('#step-text').textContent.startsWith('Mark return'));
  assert.equal(
    await stepText(page),
    'Mark return %0 : $Int32 (bb0) live: function exit — return leaves the function',
  );
  // The sentence's code is set as code, not between backticks.
  assert.equal(await page.textContent('#step-text code'), 'return %0 : $Int32');
  assert.equal(await lineClass(page, 'bb0', 7), 'live current');
  assert.equal(await page.locator('.marked-list li').count(), 1);
  assert.match(await page.textContent('.marked-list li'), /function exit: return/);

  await page.keyboard.press('End');
  await page.waitForFunction(() => document.querySelector('#step-text').textContent.startsWith('Delete %8'));
  for (let k = 1; k <= 6; k++) assert.match(await lineClass(page, 'bb0', k), /\bdeleted\b/, `line ${k}`);
  assert.equal(await lineClass(page, 'bb0', 7), 'live');

  // The why-live chain of the return, by clicking its line.
  await clickLine(page, 'bb0', 7);
  await page.waitForFunction(() => document.querySelector('#dce-why').textContent.includes('control leaves the function here'));
  assert.match(await lineClass(page, 'bb0', 7), /\bselected\b/);
  await screenshot(page, 'dce-end');

  // Back to the middle of the sweep: some lines struck out, the rest dead.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.querySelector('#step-text').textContent.startsWith('Delete %5'));
  assert.match(await lineClass(page, 'bb0', 4), /\bdead\b/);
  assert.match(await lineClass(page, 'bb0', 3), /\bdeleted current\b/);
  assert.deepEqual(errors, []);
});

test('the before/after view: what DCE removed, both runs, the saved after-code', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'dead1');
  await page.click('#tab-dce');
  await page.keyboard.press('End');
  await page.click('#tab-diff');
  await page.waitForSelector('#after-code .dl');
  if ((await page.getAttribute('#pass-dce', 'aria-pressed')) !== 'true') await page.click('#pass-dce');

  const after = await page.$$eval('#after-code .dl:not(.gap) .code', (ls) => ls.map((l) => l.textContent));
  assert.ok(after.includes('  return %0 : $Int32'), after.join('\n'));
  assert.ok(after.includes('bb0(%0 : $Int32, %1 : $Int32):'), 'user names are kept');
  for (const d of DEAD) assert.ok(!after.some((l) => l.includes(d)), `${d} is gone`);
  const deleted = await page.$$eval('#before-code .dl.deleted .code', (ls) => ls.map((l) => l.textContent.trim()));
  assert.deepEqual(deleted.slice(0, 3), DEAD);
  assert.equal(deleted.length, 6);
  assert.match(await page.textContent('.diff-counts'), /−6 deleted/);

  await page.fill('#run-args', '40 2');
  await page.click('#run-both');
  await page.waitForSelector('#run-after .count');
  assert.match(await page.textContent('#run-before'), /7 instructions executed · returned .*40/);
  assert.match(await page.textContent('#run-after'), /1 instruction executed · returned .*40/);
  assert.match(await page.textContent('.run-bar .verdict'), /Same behaviour · 86% fewer instructions/);

  // A wrong argument count is an error on both sides, said plainly.
  await page.fill('#run-args', '1');
  await page.click('#run-both');
  await page.waitForFunction(() => document.querySelector('#run-before .run-error')?.textContent.includes('expects 2 argument(s), got 1'));
  // Both runs failing the same way is not "the same behaviour": the verdict says how they fail.
  assert.match(await page.textContent('.run-bar .verdict'), /^Both runs fail with the same error: .*expects 2 argument/);

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('.export-after')]);
  assert.equal(download.suggestedFilename(), 'dead1.dce.sil');
  const saved = readFileSync(await download.path(), 'utf8');
  assert.ok(saved.includes('bb0(%0 : $Int32, %1 : $Int32):\n  return %0 : $Int32\n'), saved);
  assert.ok(!saved.includes('struct_extract'));
  await page.fill('#run-args', '40 2');
  await page.click('#run-both');
  await page.waitForSelector('#run-after .count');
  await screenshot(page, 'diff-dead1');
  assert.deepEqual(errors, []);
});

test('rewritten lines: undef for a dead block argument (dead-block-args)', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'dead-block-args');
  await page.click('#tab-diff');
  await page.waitForSelector('#after-code .dl');
  if ((await page.getAttribute('#pass-dce', 'aria-pressed')) !== 'true') await page.click('#pass-dce');
  const rewritten = await page.$$eval('#after-code .dl.rewritten .code', (ls) => ls.map((l) => l.textContent.trim()));
  assert.ok(rewritten.length >= 2, rewritten.join('\n'));
  assert.ok(rewritten.every((l) => l.includes('undef')), rewritten.join('\n'));
  await page.click('#run-both');
  await page.waitForSelector('#run-after .count');
  assert.match(await page.textContent('.run-bar .verdict'), /Same behaviour/);
  await screenshot(page, 'diff-dead-block-args');

  // The same run on the DCE tab, stopped in the middle of the sweep.
  await page.click('#tab-dce');
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('.dce-view svg tspan.inserted, .dce-view svg tspan.pending');
  await screenshot(page, 'dce-sweep');
  assert.deepEqual(errors, []);
});

test('exercise mode hides the next step and grades the prediction', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'dead1');
  await page.click('#tab-dce');
  await page.keyboard.press('Home');
  await page.click('#exercise');
  await page.waitForSelector('.dce-exercise .prompt');
  assert.match(await page.textContent('.dce-exercise .prompt'), /live by themselves/);
  // The return is the one root; predict it and a wrong one.
  await clickLine(page, 'bb0', 7);
  await clickLine(page, 'bb0', 4);
  await page.waitForFunction(() => document.querySelector('.dce-exercise .picked')?.textContent === '2 picked');
  assert.match(await lineClass(page, 'bb0', 4), /\bguess\b/);
  await page.click('#dce-reveal');
  await page.waitForSelector('.dce-exercise .verdict');
  assert.equal(await page.textContent('.dce-exercise .verdict'), '1 right · 1 wrong · 0 missed');
  assert.match(await lineClass(page, 'bb0', 7), /\bright\b/);
  assert.match(await lineClass(page, 'bb0', 4), /\bwrong\b/);
  await screenshot(page, 'dce-exercise');

  // Continue jumps past the roots: the next question is about the return's visit.
  await page.click('.dce-exercise .continue');
  await page.waitForFunction(() => document.querySelector('.dce-exercise .prompt')?.textContent.includes('The worklist takes'));
  assert.equal(await page.locator('.dce-exercise .verdict').count(), 0, 'a new question starts unrevealed');
  await page.click('#exercise');
  assert.deepEqual(errors, []);
});

test('Bril: the unused `square` of @gcd is struck out; LCM\'s after-code runs the same', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'functions');
  await page.selectOption('#function', 'gcd');
  await page.click('#tab-dce');
  await page.keyboard.press('End');
  await page.waitForSelector('.dce-view g.node[data-id="step"]');
  const lines = await page.$$eval('.dce-view g.node[data-id="step"] tspan', (ts) =>
    ts.map((t) => [t.textContent.trim(), t.getAttribute('class') ?? '']),
  );
  const square = lines.find(([text]) => text.startsWith('square: int = mul q q'));
  assert.ok(square, JSON.stringify(lines));
  assert.match(square[1], /\bdeleted\b/);
  assert.ok(lines.filter(([, c]) => /\bdeleted\b/.test(c)).length === 1, JSON.stringify(lines));
  await screenshot(page, 'dce-bril');

  await page.click('#tab-diff');
  await page.waitForSelector('#after-code .dl');
  if ((await page.getAttribute('#pass-dce', 'aria-pressed')) !== 'true') await page.click('#pass-dce');
  assert.deepEqual(
    await page.$$eval('#before-code .dl.deleted .code', (ls) => ls.map((l) => l.textContent.trim())),
    ['square: int = mul q q;'],
  );
  assert.equal(await page.inputValue('#run-args'), '84 36', 'the # ARGS: line');
  await page.click('#run-both');
  await page.waitForSelector('#run-after .count');
  const out = await page.textContent('#run-before .stdout');
  assert.match(out, /^12\n/);
  assert.equal(await page.textContent('#run-after .stdout'), out);

  await openExample(page, 'lcm-article');
  await page.click('#tab-diff');
  await page.click('#pass-lcm');
  await page.waitForFunction(() => document.querySelector('#pass-lcm')?.getAttribute('aria-pressed') === 'true');
  await page.waitForSelector('#after-code .dl.inserted');
  await page.click('#run-both');
  await page.waitForSelector('#run-after .count');
  assert.match(await page.textContent('.run-bar .verdict'), /Same behaviour/);
  assert.equal(await page.textContent('#run-after .stdout'), await page.textContent('#run-before .stdout'));
  await screenshot(page, 'diff-lcm');
  assert.deepEqual(errors, []);
});

test('the 200-block stress function: stepping DCE and the diff stay responsive', { timeout: 120_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'stress-200');
  await page.click('#tab-dce');
  await page.waitForSelector('.dce-view .graph-view:not(.pending) svg g.node', { timeout: 60_000 });
  const t0 = Date.now();
  await page.keyboard.press('End');
  await page.waitForFunction(() => /\/ (\d+)$/.exec(document.querySelector('.step-count')?.textContent ?? '')?.[1] ===
    /^(\d+)/.exec(document.querySelector('.step-count')?.textContent ?? '')?.[1]);
  await page.waitForSelector('.dce-view .graph-view:not(.pending) svg g.node', { timeout: 60_000 });
  const toEnd = Date.now() - t0;
  const t1 = Date.now();
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => !document.querySelector('.dce-view .graph-view')?.classList.contains('pending'));
  const oneStep = Date.now() - t1;
  console.log(`stress-200: End ${toEnd} ms`);
  reportTiming('DCE at 200 blocks: one step back', oneStep, 2000);
  await screenshot(page, 'dce-stress');

  await page.click('#tab-diff');
  await page.waitForSelector('#after-code .dl');
  await page.click('#run-both');
  await page.waitForSelector('#run-after .count', { timeout: 30_000 });
  assert.doesNotMatch(await page.textContent('.run-bar .verdict'), /differ/);
  assert.deepEqual(errors, []);
});
