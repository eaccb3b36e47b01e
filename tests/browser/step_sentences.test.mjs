// The step sentence and the table say the same thing: at every step of LCM on the article's
// example (Bril and SIL), the blocks the sentence names for each predicate are exactly the
// cells the predicate table outlines as changed, with the value those cells show.
// Run: scripts/test.sh e2e
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, screenshot, URL } from './harness.mjs';

const env = useBrowser();

/** `NdSafe drops to 0 in n1, n2 and 3 more; XdSafe …` → [{ pred, value, names, more }]. */
function named(text, expr) {
  const at = text.indexOf(`: for ${expr}, `);
  if (at < 0) return [];
  return text
    .slice(at + `: for ${expr}, `.length)
    .split('; ')
    .map((part) => {
      const m = part.match(/^(\w+) (?:drops to (0)|is ([01])) in (.+?)(?: and (\d+) more)?$/);
      return m && { pred: m[1], value: m[2] ?? m[3], names: m[4].split(', '), more: Number(m[5] ?? 0) };
    })
    .filter(Boolean);
}

for (const example of ['lcm-article', 'lcm-article-sil']) {
  test(`${example}: every step's sentence names the cells the table marks changed`, { timeout: 120_000 }, async () => {
    const { page } = env;
    await page.goto(URL);
    await page.waitForSelector('#example');
    await page.selectOption('#example', example);
    await page.click('#tab-lcm');
    await page.waitForSelector('#lcm-table tbody tr');
    const expr = await page.inputValue('#lcm-expr');
    const last = Number(await page.getAttribute('.step-slider', 'max'));
    if (await page.isEnabled('.step-first')) await page.click('.step-first');
    let withMarks = 0;
    for (let k = 0; k <= last; k++) {
      await page.waitForFunction((k) => document.querySelector('.step-slider')?.value === String(k), k);
      const text = await page.textContent('#step-text');
      const marked = await page.$$eval('#lcm-table td.changed', (cs) =>
        cs.map((c) => ({ block: c.closest('tr').dataset.block, pred: c.dataset.pred, value: c.textContent })));
      // Per predicate in the table's column order, cells in row order.
      const columns = await page.$$eval('#lcm-table th[data-pred]', (hs) => hs.map((h) => h.dataset.pred));
      const byPred = new Map();
      for (const p of columns) {
        const cells = marked.filter((m) => m.pred === p);
        if (cells.length > 0) byPred.set(p, cells);
      }
      const said = named(text, expr);
      assert.deepEqual(said.map((s) => s.pred), [...byPred.keys()], `step ${k}: ${text}`);
      for (const s of said) {
        const cells = byPred.get(s.pred);
        assert.equal(s.names.length + s.more, cells.length, `step ${k}: ${text}`);
        assert.deepEqual(s.names, cells.slice(0, s.names.length).map((c) => c.block), `step ${k}: ${text}`);
        assert.ok(cells.every((c) => c.value === s.value), `step ${k}: ${s.pred} cells are ${s.value}`);
      }
      if (marked.length > 0) withMarks++;
      if (k === 4) await screenshot(page, `${example}-step-4`);
      if (k < last) await page.click('.step-next');
    }
    assert.ok(withMarks >= 5, `${withMarks} steps with changed cells`);
    assert.deepEqual(env.errors, []);
  });
}
