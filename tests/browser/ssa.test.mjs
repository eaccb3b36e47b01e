// End to end: SSA construction stepped on the loop example — φ placement's worklist and the
// φs it places on the CFG, the renaming walk's stacks, the φs written in either form — a link
// to a step opened in a fresh browser, and the round trip (into SSA, out again) in the
// before/after view with both runs. Screenshots: tests/artifacts/ssa-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { screenshot, useBrowser, inFreshBrowser, openExample } from './harness.mjs';

const env = useBrowser();
const WAIT = { timeout: 30_000 };

const stepText = (page) => page.textContent('#step-text');
const side = (page) => page.textContent('.ssa-side');
const badges = (page) => page.$$eval('.view-ssa svg g.badge text', (ts) => ts.map((t) => t.textContent));
const graphText = (page) => page.$$eval('.view-ssa svg g.node .code', (ls) => ls.map((l) => l.textContent).join('\n'));

/** Clicks "next" until `done()` holds in the page (at most `max` steps). */
async function stepUntil(page, done, arg, max = 200) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate(done, arg)) return;
    await page.click('.step-next');
  }
  throw new Error(`not reached in ${max} steps: ${await stepText(page)}`);
}

test('into SSA on the loop example: the worklist places φs, renaming shows its stacks, the φs are written out', { timeout: 120_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'ssa-loop');
  await page.waitForSelector('.view-ssa .ssa-phase', WAIT);
  assert.match(await stepText(page), /^Before SSA construction: 3 φs to place/);

  // Placement of `a`: the loop header gets its φ (and a badge on the CFG).
  await stepUntil(page, () => /φ for a at \.loop/.test(document.querySelector('#step-text')?.textContent ?? ''));
  assert.match(await page.textContent('.ssa-phase'), /φ placement/);
  assert.match(await side(page), /variable\s*a/);
  assert.match(await side(page), /φ at \(live\)\s*\.loop/);
  assert.ok((await badges(page)).includes('φ a'), `badges: ${await badges(page)}`);
  await page.waitForSelector('.view-ssa svg g.node.ssa-phi', WAIT);
  await screenshot(page, 'ssa-placement');

  // Renaming: inside `.body`, `a`'s stack holds the φ's name and the new one.
  await stepUntil(page, () => {
    const rows = [...document.querySelectorAll('.ssa-stacks tbody tr')].map((r) => r.textContent);
    return rows.some((r) => r.startsWith('a') && r.includes('a.2') && r.includes('a.3'));
  });
  assert.match(await page.textContent('.ssa-phase'), /Renaming/);
  assert.match(await page.textContent('.ssa-walk'), /\.loop/);
  const stacks = await page.$$eval('.ssa-stacks tbody tr', (rs) => rs.map((r) => r.textContent));
  await screenshot(page, 'ssa-renaming');

  // A link to this step opens the same step, with the same stacks, in a fresh browser.
  const want = await stepText(page);
  await page.click('#copy-link');
  const link = await page.inputValue('#share-url');
  await inFreshBrowser(link, async (p) => {
    await p.waitForSelector('.view-ssa .ssa-stacks', WAIT);
    assert.equal(await p.textContent('#step-text'), want);
    assert.deepEqual(await p.$$eval('.ssa-stacks tbody tr', (rs) => rs.map((r) => r.textContent)), stacks);
  });

  // The last step: the φs are written as set/get, or as phi on request.
  await page.click('.step-last');
  await page.waitForFunction(() => /Writing the φs/.test(document.querySelector('.ssa-phase')?.textContent ?? ''));
  await page.waitForFunction(() => [...document.querySelectorAll('.view-ssa svg g.node .code')].some((l) => / = get;/.test(l.textContent)));
  assert.match(await graphText(page), /set n\.1 n/);
  await page.click('#ssa-phi-form');
  await page.waitForFunction(() => [...document.querySelectorAll('.view-ssa svg g.node .code')].some((l) => / = phi /.test(l.textContent)));
  await screenshot(page, 'ssa-phi-form');
  assert.deepEqual(errors, []);
});

test('the round trip in the before/after view: out of SSA coalesces every copy, both runs agree', { timeout: 120_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'ssa-loop');
  await page.click('#tab-diff');
  await page.click('#pass-ssa');
  await page.waitForFunction(() => document.querySelectorAll('#pipeline .chip').length === 1);
  await page.selectOption('#add-pass', 'out-of-ssa');
  await page.waitForFunction(() => document.querySelectorAll('#pipeline .chip').length === 2);
  await page.selectOption('#stage-from', '0');
  await page.selectOption('#stage-to', '2');
  await page.waitForSelector('#after-code .dl', WAIT);
  await page.fill('#run-args', '5');
  await page.click('#run-both');
  await page.waitForSelector('#run-after .count', WAIT);
  assert.match(await page.textContent('.run-bar .verdict'), /Same behaviour/);
  await page.click('#run-stages');
  await page.waitForSelector('#stage-runs tbody tr', WAIT);
  const rows = await page.$$eval('#stage-runs tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(rows.map((r) => r[0]), ['input', 'after Into SSA', 'after Out of SSA']);
  const executed = rows.map((r) => Number(r[1]));
  assert.ok(executed[1] > executed[0], `SSA form costs its sets and gets: ${JSON.stringify(rows)}`);
  assert.equal(executed[2], executed[0], `the round trip costs nothing here: ${JSON.stringify(rows)}`);
  await screenshot(page, 'ssa-round-trip');

  // The out-of-SSA tab lists the copies the φs became, all coalesced at the last step.
  await page.click('#tab-out-of-ssa');
  await page.waitForSelector('.view-out-of-ssa .ssa-side', WAIT);
  assert.match(await page.textContent('.view-out-of-ssa'), /Out of SSA on @main/);
  assert.deepEqual(errors, []);
});

test('local value numbering: the table of the block, and a recomputation that becomes a copy', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'diamond');
  const program = '@main(x: int) {\n  a: int = add x x;\n  b: int = add x x;\n  c: int = mul a b;\n  d: int = mul b a;\n  print c d;\n}\n';
  await page.fill('#source', program);
  await page.click('#tab-lvn');
  await page.waitForSelector('.view-lvn .lvn-table', WAIT);
  await page.click('.step-last');
  await page.waitForFunction(() => document.querySelectorAll('.view-lvn .lvn-table tbody tr').length >= 3);
  const rows = await page.$$eval('.view-lvn .lvn-table tbody tr', (rs) => rs.map((r) => r.textContent));
  assert.ok(rows.some((r) => /x \(from outside\)/.test(r)), rows.join('\n'));
  assert.ok(rows.some((r) => /add #\d+ #\d+/.test(r)), rows.join('\n'));
  const code = await page.$$eval('.view-lvn svg g.node .code', (ls) => ls.map((l) => l.textContent).join('\n'));
  assert.match(code, /b: int = id a;/);
  assert.match(code, /d: int = id c;/);
  await screenshot(page, 'lvn-table');
  assert.deepEqual(errors, []);
});
