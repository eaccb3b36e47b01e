// End to end: the LCM tab on the seed's 13-node example (static/examples/lcm_article.bril,
// block nK = the article's node K). The expected values are the sets seed 004 prints for a+b;
// nothing here is computed by the app's own code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useBrowser, screenshot, reportTiming, URL } from './harness.mjs';

const env = useBrowser({ acceptDownloads: true });

// Seed 004's sets for a+b (its 13 nodes; s is the start node, in none of them).
const SEED = {
  NComp: [7, 11, 12],
  XComp: [2],
  Transp: [1, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13], // ¬Transp = {2, 5}
  NdSafe: [6, 7, 9, 10, 11, 12],
  XdSafe: [2, 5, 6, 9, 10, 11],
  NuSafe: [6, 8, 13],
  XuSafe: [2, 6, 7, 8, 11, 12, 13],
  NEarliest: [9],
  XEarliest: [2, 5],
  NDelayed: [9, 10, 11],
  XDelayed: [2, 5, 9, 10],
  NLatest: [11],
  XLatest: [2, 5, 10],
};
const NODES = Array.from({ length: 13 }, (_, i) => i + 1);
const expected = (pred, node) => (SEED[pred].includes(node) ? '1' : '0');

async function cell(page, block, pred) {
  return page.textContent(`#lcm-table tr[data-block="${block}"] td[data-pred="${pred}"]`);
}

async function stepText(page) {
  return page.textContent('#step-text');
}

async function openArticle(page) {
  await page.goto(URL);
  await page.waitForSelector('#example');
  await page.selectOption('#example', 'lcm-article');
  await page.click('#tab-lcm');
  await page.waitForSelector('#lcm-table tbody tr[data-block="n13"]');
  await page.waitForSelector('.lcm-graph svg g.node');
}

/** Clicks the stage button of trace step `stage` (0 = step 1 … 7 = step 7). */
async function stage(page, i) {
  await page.click(`.lcm-stage[data-stage="${i}"]`);
  await page.waitForSelector(`.lcm-stage.active[data-stage="${i}"]`);
}

test('the 13-node example: NdSafe after down-safety and NLatest after latest are the seed\'s', { timeout: 120_000 }, async () => {
  const { page } = env;
  await openArticle(page);
  assert.equal(await page.inputValue('#lcm-expr'), 'add a b', 'the moved expression is picked first');
  // a+b is computed in the seed's NComp ∪ XComp blocks.
  const computed = new Set([...SEED.NComp, ...SEED.XComp]).size;
  assert.match(await page.textContent('#lcm-expr option:checked'), new RegExp(`add a b — ${computed} computations, moves`));
  // Step 0: nothing computed yet.
  assert.equal(await cell(page, 'n6', 'NdSafe'), '');

  // The end of down-safety: the step before up-safety's first round.
  await stage(page, 3);
  await page.keyboard.press('ArrowLeft');
  assert.match(await stepText(page), /^Step 3 \(down-safety\), round \d+ of \d+: nothing changed — the fixpoint is reached$/);
  for (const n of [6, 4, 11]) assert.equal(await cell(page, `n${n}`, 'NdSafe'), expected('NdSafe', n), `NdSafe(n${n})`);
  for (const n of NODES) {
    assert.equal(await cell(page, `n${n}`, 'NdSafe'), expected('NdSafe', n), `NdSafe(n${n})`);
    assert.equal(await cell(page, `n${n}`, 'XdSafe'), expected('XdSafe', n), `XdSafe(n${n})`);
    assert.equal(await cell(page, `n${n}`, 'NuSafe'), '', 'up-safety is not computed yet');
  }
  // The same bits on the graph: NdSafe above each box, XdSafe below.
  const badge = (block, side) =>
    page.textContent(`.lcm-graph svg g.badges.${side}[data-id="${block}"] text`);
  assert.equal(await badge('n6', 'entry'), 'NdSafe 1');
  assert.equal(await badge('n4', 'entry'), 'NdSafe 0');
  assert.equal(await badge('n5', 'exit'), 'XdSafe 1');
  // Hovering a column header or a badge explains the equation.
  assert.match(await page.getAttribute('#lcm-table th[data-pred="NdSafe"]', 'title'), /NdSafe\(B\) = NComp\(B\) ∨ \(Transp\(B\) ∧ XdSafe\(B\)\)/);
  assert.match(await page.textContent('.lcm-graph svg g.badges.entry[data-id="n6"] title'), /Down-safe at B's entry/);

  // Latest (no iteration): one step.
  await stage(page, 6);
  assert.match(await stepText(page), /^Step 6 \(latest\)/);
  for (const n of [11, 9, 12]) assert.equal(await cell(page, `n${n}`, 'NLatest'), expected('NLatest', n), `NLatest(n${n})`);
  for (const n of NODES) {
    for (const p of Object.keys(SEED)) assert.equal(await cell(page, `n${n}`, p), expected(p, n), `${p}(n${n})`);
  }
  assert.deepEqual(env.errors, []);
});

test('a fixpoint round highlights what changed; step 7 draws the result', { timeout: 120_000 }, async () => {
  const { page } = env;
  await openArticle(page);
  await stage(page, 2);
  const text = await stepText(page);
  assert.match(text, /^Step 3 \(down-safety\), round 1 of \d+, from all 1 in postorder: for add a b, NdSafe drops to 0 in /);
  // The round starts from all true; the highlighted cells are those it cleared, and the
  // description names their blocks (unless it had to abbreviate the list).
  const changed = await page.$$eval('#lcm-table td.changed', (cs) =>
    cs.map((c) => [c.closest('tr').dataset.block, c.dataset.pred, c.textContent]));
  assert.ok(changed.length > 0, 'round 1 clears bits of a+b');
  for (const [block, pred, value] of changed) {
    assert.equal(value, '0', `${pred}(${block}) was cleared`);
    assert.ok(new RegExp(`\\b${block}\\b`).test(text) || / more\b/.test(text), `${block} in ${text}`);
  }
  const unchanged = await page.$$eval('#lcm-table td[data-pred="NdSafe"]:not(.changed)', (cs) => cs.map((c) => c.textContent));
  assert.ok(unchanged.every((v) => v === '1'), 'what round 1 did not clear is still true');
  // Only this stage's columns are filled in beyond step 2.
  assert.equal(await cell(page, 'n9', 'NEarliest'), '');
  assert.equal(await cell(page, 'n9', 'NuSafe'), '');
  await screenshot(page, 'lcm-round');

  await page.keyboard.press('End');
  assert.match(await stepText(page), /^Step 7 \(transformation\): add a b moves/);
  // The seed: a+b inserted at the exits of 5 and 10, deleted from 7 and 12.
  const lines = (block, cls) =>
    page.$$eval(`.lcm-graph svg g.node[data-id="${block}"] tspan.${cls}`, (ts) => ts.map((t) => t.textContent));
  assert.equal((await lines('n5', 'inserted')).length, 1);
  assert.equal((await lines('n10', 'inserted')).length, 1);
  assert.match((await lines('n7', 'deleted'))[0], /add a b/);
  assert.match((await lines('n12', 'deleted'))[0], /add a b/);
  assert.match(await page.textContent('.lcm-caption'), /inserted at n5 \(exit\), n10 \(exit\) · deleted from n7, n12/);
  await screenshot(page, 'lcm-step7');
  assert.deepEqual(env.errors, []);
});

/** Clicks an export button and returns the downloaded file's name and text. */
async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const path = await dl.path();
  return { name: dl.suggestedFilename(), text: readFileSync(path, 'utf8') };
}

test('the table exports as Markdown, LaTeX and CSV with the seed\'s values', { timeout: 120_000 }, async () => {
  const { page } = env;
  await openArticle(page);
  const md = await download(page, '.export-md');
  assert.equal(md.name, 'lcm-main-add_a_b.md');
  const mdLines = md.text.split('\n');
  assert.equal(mdLines[0], '### `@main`: `add a b`');
  const header = mdLines[2].split('|').map((s) => s.trim()).filter(Boolean);
  assert.deepEqual(header, ['block', ...Object.keys(SEED)], 'the seed\'s thirteen predicates, in its order');
  const mdRows = Object.fromEntries(
    mdLines.slice(4).filter((l) => l.startsWith('| ')).map((l) => {
      const [label, ...vals] = l.split('|').map((s) => s.trim()).filter(Boolean);
      return [label, vals];
    }),
  );
  for (const n of NODES) {
    header.slice(1).forEach((p, j) => assert.equal(mdRows[`n${n}`][j], expected(p, n) === '1' ? 'T' : 'F', `md ${p}(n${n})`));
  }

  const csv = await download(page, '.export-csv');
  assert.equal(csv.name, 'lcm-main-add_a_b.csv');
  const csvLines = csv.text.trim().split('\n');
  assert.equal(csvLines[0], `function,expr,block,${header.slice(1).join(',')}`);
  for (const line of csvLines.slice(1)) {
    const [fn, expr, label, ...vals] = line.split(',');
    assert.deepEqual([fn, expr], ['main', 'add a b']);
    assert.deepEqual(vals, mdRows[label], `csv row ${label} agrees with the Markdown`);
  }
  assert.equal(csvLines.length - 1, Object.keys(mdRows).length);

  const tex = await download(page, '.export-tex');
  assert.equal(tex.name, 'lcm-main-add_a_b.tex');
  assert.match(tex.text, /\\begin\{tabular\}/);
  for (const [label, vals] of Object.entries(mdRows)) {
    assert.ok(tex.text.includes(`${label} & ${vals.join(' & ')} \\\\`), `tex row ${label}`);
  }
  assert.deepEqual(env.errors, []);
});

test('exercise mode hides a round, takes guesses and grades them', { timeout: 120_000 }, async () => {
  const { page } = env;
  await openArticle(page);
  await page.click('#exercise');
  await page.waitForSelector('#exercise[aria-pressed="true"]');
  // The last round of down-safety: the values are the seed's sets.
  await stage(page, 3);
  await page.keyboard.press('ArrowLeft');
  const hidden = await page.locator('#lcm-table td.hidden').count();
  const rows = await page.locator('#lcm-table tbody tr').count();
  assert.equal(hidden, 2 * rows, 'NdSafe and XdSafe of every block are hidden');
  assert.equal(await cell(page, 'n6', 'NdSafe'), '?');
  assert.equal(await cell(page, 'n6', 'NComp'), '0', 'step 2 stays visible');
  assert.equal(await page.locator('.lcm-graph svg g.badge.hidden').count(), 2 * (rows - 0));
  // Guess NdSafe(n6) (true in the seed) and NdSafe(n4) (false), miss the rest.
  await page.click('#lcm-table tr[data-block="n6"] td[data-pred="NdSafe"]');
  await page.click('#lcm-table tr[data-block="n4"] td[data-pred="NdSafe"]');
  assert.equal(await cell(page, 'n6', 'NdSafe'), '1');
  await page.click('#reveal');
  const cls = (b, p) => page.getAttribute(`#lcm-table tr[data-block="${b}"] td[data-pred="${p}"]`, 'class');
  assert.match(await cls('n6', 'NdSafe'), /guess-right/);
  assert.match(await cls('n4', 'NdSafe'), /guess-wrong/);
  assert.match(await cls('n7', 'NdSafe'), /missed/);
  const trues = SEED.NdSafe.length + SEED.XdSafe.length;
  assert.equal(await page.locator('#lcm-table td.missed').count(), trues - 1);
  assert.match(await page.textContent('.lcm-score'), new RegExp(`1 true cell found, 1 wrong guess, ${trues - 1} missed`));
  await screenshot(page, 'lcm-exercise');
  // Another step starts afresh.
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.locator('#lcm-table td.guess-right, #lcm-table td.guess').count(), 0);
  await page.click('#exercise');
  assert.equal(await page.locator('#lcm-table td.hidden').count(), 0);
  assert.deepEqual(env.errors, []);
});

/** A Bril function of 4·n blocks: n diamonds that each compute a+b (one arm of every third
 *  changes `a`), so LCM has partial redundancies everywhere. */
function diamonds(n) {
  const lines = ['@main(a: int, b: int, p: bool) {', '  one: int = const 1;'];
  for (let i = 0; i < n; i++) {
    lines.push(`.h${i}:`, `  br p .l${i} .r${i};`);
    lines.push(`.l${i}:`, `  t${i}: int = add a b;`, `  jmp .j${i};`);
    lines.push(`.r${i}:`);
    if (i % 3 === 0) lines.push('  a: int = add a one;');
    lines.push(`  jmp .j${i};`);
    lines.push(`.j${i}:`, `  u${i}: int = add a b;`, `  print u${i};`);
  }
  lines.push('  ret;', '}', '');
  return lines.join('\n');
}

test('a 200-block function with redundancies: every step shows, with its bits on the graph', { timeout: 180_000 }, async () => {
  const { page } = env;
  await page.goto(URL);
  await page.waitForSelector('#source');
  await page.click('#tab-lcm');
  await page.fill('#source', diamonds(50));
  await page.waitForFunction(() => document.querySelectorAll('#lcm-table tbody tr').length >= 200, null, { timeout: 60_000 });
  await page.waitForSelector('.lcm-graph svg g.node', { timeout: 60_000 });
  await page.$eval('#source', (el) => el.blur()); // step keys are ignored while typing
  const timings = [];
  const step = async (key, pattern) => {
    const t0 = Date.now();
    await page.keyboard.press(key);
    await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('#step-text')?.textContent ?? ''), pattern.source);
    // Let the table and the graph repaint before the next step.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    timings.push(Date.now() - t0);
  };
  await step('End', /^Step 7/);
  await step('Home', /^Before LCM/);
  for (let i = 0; i < 6; i++) await step('ArrowRight', /^Step/);
  reportTiming(`LCM at 200 blocks: slowest of ${timings.length} steps (${timings.join(', ')} ms)`, Math.max(...timings), 2_000);
  // The graph of 200 blocks is laid out in a worker and repainted when it answers, which on
  // a loaded machine (the other test files run beside this one) can come after the step's
  // text: wait for the bits rather than count them at once.
  const bits = () =>
    page
      .waitForFunction(() => document.querySelectorAll('.lcm-graph svg g.badge').length > 0, null, { timeout: 60_000 })
      .then(() => true, () => false);
  const drawn = await bits();
  if (!drawn) {
    // What the page shows, for the report. Session 14 found the drawing staying without its
    // bits for good after fast steps on a loaded machine (the badge layer empty, the layout
    // and the step right): decorations went to a copy of the SVG that had left the page.
    await screenshot(page, 'lcm-200-nobits');
    const state = await page.evaluate(() => ({
      step: document.querySelector('#step-text')?.textContent,
      nodes: document.querySelectorAll('.lcm-graph svg g.node').length,
      layers: [...document.querySelectorAll('.lcm-graph svg g.badge-layer')].map((l) => l.childElementCount),
    }));
    console.log(`no bits on the graph: ${JSON.stringify(state)}`);
  }
  assert.ok(drawn, 'bits drawn on the graph');
  await screenshot(page, 'lcm-200');
  assert.deepEqual(env.errors, []);
});
