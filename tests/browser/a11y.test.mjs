// End to end: the page with the keyboard alone and for a screen reader. Tab order (header, view
// tabs, step controls, the view, the editor), the tabs as a tablist with arrow keys, roving focus
// across graph nodes (select a block, an instruction, an exercise guess without a mouse), the
// announced step sentence, the `?` list of keys, and an axe-core audit of every view in both
// themes: no serious or critical violation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { useBrowser, screenshot, URL, fresh } from './harness.mjs';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');

const env = useBrowser();

/** What has the focus, in a few words (id, class, role, data-index/data-line). */
function focused(page) {
  return page.evaluate(() => {
    const e = document.activeElement;
    if (!e || e === document.body) return { what: 'body' };
    const node = e.closest('g.node');
    return {
      what: e.id ? `#${e.id}` : `${e.tagName.toLowerCase()}.${(e.getAttribute('class') ?? '').split(' ')[0]}`,
      role: e.getAttribute('role'),
      inHeader: !!e.closest('header.bar'),
      tab: e.getAttribute('role') === 'tab',
      step: !!e.closest('.step-bar'),
      inGraph: !!node,
      node: node?.getAttribute('data-id') ?? null,
      line: e.getAttribute('data-line'),
      editor: !!e.closest('.editor-pane'),
      view: !!e.closest('.view'),
    };
  });
}

test('Tab goes header → tabs → step controls → view → editor; tabs move with the arrow keys', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await fresh(page);
  await page.click('#tab-dce');
  await page.waitForSelector('.dce-graph svg g.node');
  // Start from the top of the page (a click on the header's empty left edge).
  await page.mouse.click(2, 2);
  const seen = [];
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    seen.push(f);
    if (f.editor) break;
  }
  const first = (pred) => seen.findIndex(pred);
  const header = first((f) => f.inHeader);
  const tab = first((f) => f.tab);
  const step = first((f) => f.step);
  const graph = first((f) => f.inGraph);
  const editor = first((f) => f.editor);
  console.log(`Tab order: ${seen.map((f) => f.what).join(' → ')}`);
  assert.ok(header === 0, 'the header comes first');
  assert.ok(header < tab && tab < step && step < graph && graph < editor, JSON.stringify({ header, tab, step, graph, editor }));
  // One tab stop for the whole tablist, one for the whole graph.
  assert.equal(seen.filter((f) => f.tab).length, 1, 'the tablist is one tab stop');
  assert.equal(seen.filter((f) => f.inGraph).length, 1, 'the graph is one tab stop');

  // The tablist: arrows move and open the tab; the step keys do not step meanwhile.
  await page.focus('#tab-dce');
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('#tab-lcm[aria-selected="true"]');
  assert.equal((await focused(page)).what, '#tab-lcm');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('#tab-dce[aria-selected="true"]');
  await page.keyboard.press('Home');
  await page.waitForSelector('#tab-cfg[aria-selected="true"]');
  assert.equal((await focused(page)).what, '#tab-cfg');
  assert.equal(await page.getAttribute('#view-panel', 'role'), 'tabpanel');
  assert.equal(await page.getAttribute('#view-panel', 'aria-labelledby'), 'tab-cfg');

  // A mouse user typing in the editor who clicks a view tab, then a block, steps with →: the
  // clicks leave the editor without putting the focus on what was clicked.
  await page.click('#source');
  await page.click('#tab-dce');
  await page.waitForSelector('.dce-graph svg g.node');
  await page.click('.dce-graph g.node[data-id="loop"] text.title');
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('.step-count'), /^1 \//);
  assert.equal((await focused(page)).what, 'body');
  assert.deepEqual(errors, []);
});

test('keyboard only: select a block, an instruction (why live?) and make exercise guesses', { timeout: 120_000 }, async () => {
  const { page, errors } = env;
  await fresh(page);
  // CFG: Tab into the graph, arrows between blocks, Enter selects.
  await page.focus('#tab-cfg');
  await page.keyboard.press('Tab');
  let f = await focused(page);
  for (let i = 0; i < 5 && !f.inGraph; i++) {
    await page.keyboard.press('Tab');
    f = await focused(page);
  }
  assert.ok(f.inGraph && f.node === 'entry', JSON.stringify(f));
  await page.keyboard.press('ArrowRight'); // nothing right of the entry: stays
  await page.keyboard.press('ArrowUp'); // nothing above: stays
  assert.equal((await focused(page)).node, 'entry');
  // Down walks the entry's code lines, then on to the next block.
  const lines = await page.$$eval('.view-cfg g.node[data-id="entry"] text.code tspan', (t) => t.length);
  for (let i = 0; i <= lines; i++) await page.keyboard.press('ArrowDown');
  f = await focused(page);
  assert.equal(f.node, 'loop', JSON.stringify(f));
  assert.equal(f.line, null);
  await page.keyboard.press('Enter');
  await page.waitForSelector('.view-cfg g.node.selected[data-id="loop"]');
  // ←/→ in the graph moved the focus, not the step; the sentence says so for a screen reader.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown'); // past loop's two lines: the next row of blocks
  f = await focused(page);
  assert.ok(['body', 'done'].includes(f.node), JSON.stringify(f));
  const other = f.node === 'body' ? 'done' : 'body';
  await page.keyboard.press(f.node === 'body' ? 'ArrowRight' : 'ArrowLeft');
  assert.equal((await focused(page)).node, other);
  await page.keyboard.press(' ');
  await page.waitForSelector(`.view-cfg g.node.selected[data-id="${other}"]`);
  await screenshot(page, 'keyboard-cfg-selection');

  // DCE: Enter on a code line asks why it is live.
  await page.click('#tab-dce');
  await page.waitForSelector('.dce-graph svg g.node');
  await page.keyboard.press('End');
  await page.focus('.dce-graph [tabindex="0"]');
  await page.keyboard.press('ArrowDown');
  f = await focused(page);
  assert.equal(f.line, '0', JSON.stringify(f));
  await page.keyboard.press('Enter');
  await page.waitForSelector('#dce-why ol.chain li');
  assert.match(await page.textContent('#dce-why'), /live/i);

  // Exercise mode, keyboard only: the toggle, then a guess on a code line.
  await page.focus('#exercise');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#exercise[aria-pressed="true"]');
  await page.keyboard.press('Home');
  await page.waitForSelector('.dce-exercise .picked');
  assert.match(await page.textContent('.dce-exercise .picked'), /^0 picked/);
  await page.focus('.dce-graph [tabindex="0"]');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /^1 picked/.test(document.querySelector('.dce-exercise .picked')?.textContent ?? ''));

  // LCM exercise: a hidden cell is a button; Tab reaches it, Space guesses it.
  await page.selectOption('#example', 'lcm-article');
  await page.click('#tab-lcm');
  await page.waitForSelector('#lcm-table tbody tr[data-block="n13"]');
  await page.click('.lcm-stage[data-stage="2"]');
  await page.waitForSelector('#lcm-table td.hidden');
  await page.focus('#lcm-table td.hidden');
  await page.keyboard.press(' ');
  await page.waitForSelector('#lcm-table td.hidden.guess');
  await page.focus('#exercise');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#exercise[aria-pressed="false"]');
  assert.deepEqual(errors, []);
});

test('the step sentence is announced, the graphs are labelled, ? lists every key', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await fresh(page);
  await page.click('#tab-dom');
  await page.waitForSelector('.view-dom svg g.node');
  assert.equal(await page.getAttribute('#step-text', 'aria-live'), 'polite');
  const svgs = await page.$$eval('.view svg.optlab-graph', (ss) => ss.map((s) => [s.getAttribute('role'), s.getAttribute('aria-label')]));
  assert.ok(svgs.length >= 2);
  for (const [role, label] of svgs) {
    assert.equal(role, 'group');
    assert.ok(label && label.length > 5, label);
  }
  // Each block's name is a button (the roving tab stop), each code line one too.
  const node = await page.$eval('.view svg g.node > text.title', (n) => [n.getAttribute('role'), n.getAttribute('aria-label'), n.textContent]);
  assert.equal(node[0], 'button');
  assert.ok(node[1].startsWith(node[2]) && node[1].includes('block'), node[1]);

  // The "Keys" button and the ? key open the list; Escape closes it and gives the focus back.
  await page.click('#keys');
  await page.waitForSelector('#keys-overlay');
  assert.equal((await page.evaluate(() => document.activeElement.id)), 'keys-close');
  const text = await page.textContent('#keys-overlay');
  for (const k of ['← / →', 'Home / End', 'PageUp / PageDown', 'Enter / Space on a block', 'Escape, then Tab', '?']) {
    assert.ok(text.includes(k), `the list names ${k}`);
  }
  await screenshot(page, 'keys-overlay');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#keys-overlay', { state: 'detached' });
  assert.equal((await page.evaluate(() => document.activeElement.id)), 'keys');
  await page.keyboard.press('?');
  await page.waitForSelector('#keys-overlay');
  await page.keyboard.press('?');
  await page.waitForSelector('#keys-overlay', { state: 'detached' });
  // In the editor, ? is just a character.
  await page.focus('#source');
  await page.keyboard.press('End');
  await page.keyboard.press('?');
  assert.equal(await page.$('#keys-overlay'), null);
  // The editor says how to leave it.
  assert.match(await page.textContent('#editor-keys'), /Escape, then Tab/);
  assert.deepEqual(errors, []);
});

/** axe-core's serious and critical violations on the page as it is. */
async function audit(page) {
  if (!(await page.evaluate(() => typeof window.axe !== 'undefined'))) await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(0, 2).join(' ')}`) }));
  });
  return result;
}

test('axe-core: no serious or critical violation on any view, in either theme', { timeout: 600_000 }, async () => {
  const { page, errors } = env;
  await fresh(page);
  const tabs = await page.$$eval('[role="tab"]', (ts) => ts.map((t) => t.id.replace(/^tab-/, '')));
  const report = [];
  const bad = [];
  for (const theme of ['light', 'dark']) {
    while ((await page.evaluate(() => document.documentElement.getAttribute('data-theme'))) !== theme) {
      await page.click('#theme');
    }
    for (const tab of tabs) {
      await page.click(`#tab-${tab}`);
      await page.waitForSelector(`.view-${tab}`);
      await page.waitForTimeout(250);
      // A middle step, where most of a view's highlighting is on.
      await page.keyboard.press('PageDown');
      await page.keyboard.press('PageDown');
      await page.waitForTimeout(150);
      const all = await audit(page);
      const serious = all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      report.push(`${theme.padEnd(5)} ${tab.padEnd(10)} ${serious.length} serious/critical (${all.length} in all${all.length ? `: ${all.map((v) => `${v.id}/${v.impact}`).join(', ')}` : ''})`);
      for (const v of serious) bad.push(`${theme} ${tab}: ${v.id} (${v.impact}) ${v.help}\n    ${v.nodes.join('\n    ')}`);
    }
  }
  // Lecture mode and the keys list too.
  await page.click('#lecture');
  await page.click('#tab-lcm');
  await page.waitForTimeout(250);
  await page.click('#keys');
  await page.waitForSelector('#keys-overlay');
  const extra = (await audit(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  report.push(`dark  lecture+keys ${extra.length} serious/critical`);
  for (const v of extra) bad.push(`lecture/keys: ${v.id} (${v.impact}) ${v.help}\n    ${v.nodes.join('\n    ')}`);
  await page.keyboard.press('Escape');
  await page.click('#lecture');
  // Embedded views, in the dark theme (kept from above) and then the light one.
  for (const theme of ['dark', 'light']) {
    for (const view of ['dce', 'lcm', 'dom']) {
      await page.goto(`${URL}#embed=${view}`);
      await page.reload();
      await page.waitForSelector(`.app.embed .view-${view} svg g.node`);
      await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme);
      const found = (await audit(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      report.push(`${theme.padEnd(5)} embed=${view.padEnd(4)} ${found.length} serious/critical`);
      for (const v of found) bad.push(`${theme} embed=${view}: ${v.id} (${v.impact}) ${v.help}\n    ${v.nodes.join('\n    ')}`);
    }
  }
  await page.goto(URL);
  await page.waitForSelector('.view');
  await page.evaluate(() => localStorage.clear());
  console.log(`axe-core audit:\n${report.join('\n')}`);
  assert.deepEqual(bad, []);
  assert.deepEqual(errors, []);
});
