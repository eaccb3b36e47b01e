// End to end: the LCM tab on SIL — the article's 13-node example written in SIL
// (static/examples/lcm_article.sil, block bbK = the article's node K). Stepping to the
// transformation shows the division inserted at the exits of bb5 and bb10, deleted from bb7
// and bb12, and bb12 receiving the quotient as a new block argument in the after-code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, screenshot, URL } from './harness.mjs';

const env = useBrowser();

// The article's sets, as for a+b on Bril.
const SEED = { NdSafe: [6, 7, 9, 10, 11, 12], NLatest: [11], XLatest: [2, 5, 10] };

test('LCM on the SIL article: same sets, and the transform adds a block argument', { timeout: 120_000 }, async () => {
  const { page } = env;
  await page.goto(URL);
  await page.waitForSelector('#example');
  await page.selectOption('#example', 'lcm-article-sil');
  await page.click('#tab-lcm');
  await page.waitForSelector('#lcm-table tbody tr[data-block="bb13"]');
  await page.waitForSelector('.lcm-graph svg g.node');
  assert.equal(await page.inputValue('#lcm-expr'), 'builtin "sdiv_Int64"(%a, %b)', 'the moved division is picked first');

  await page.keyboard.press('End');
  for (const [pred, nodes] of Object.entries(SEED)) {
    for (let n = 1; n <= 13; n++) {
      const v = await page.textContent(`#lcm-table tr[data-block="bb${n}"] td[data-pred="${pred}"]`);
      assert.equal(v, nodes.includes(n) ? '1' : '0', `${pred}(bb${n})`);
    }
  }
  const text = await page.textContent('#step-text');
  assert.match(text, /^Step 7 \(transformation\): builtin "sdiv_Int64"\(%a, %b\) moves/);
  assert.match(text, /1 new block argument/);
  const lines = (block, cls) =>
    page.$$eval(`.lcm-graph svg g.node[data-id="${block}"] tspan.${cls}`, (ts) => ts.map((t) => t.textContent));
  assert.equal((await lines('bb5', 'inserted')).length, 1);
  assert.equal((await lines('bb10', 'inserted')).length, 1);
  assert.match((await lines('bb7', 'deleted'))[0], /sdiv_Int64/);
  assert.match((await lines('bb12', 'deleted'))[0], /sdiv_Int64/);
  // The after-code: bb12 has a second parameter, passed by bb10 (inserted) and bb11 (kept).
  const after = await page.$$eval('.lcm-graph svg g.node[data-id="bb12"] text', (ts) => ts.map((t) => t.textContent).join('\n'));
  assert.match(after, /bb12\(%t12 : \$Builtin\.Int64, %2 : \$Builtin\.Int64\)/, after);
  await screenshot(page, 'lcm-sil-step7');
  assert.deepEqual(env.errors, []);
});
