// Small things a lecturer and a keyboard user meet (issue 18): every view's tab in sight in
// lecture mode at 1024×768, the step sentence's code set as code (not between backticks), and
// DCE's "Marked live" list operated from the keyboard (one tab stop, ↑/↓ between lines,
// Enter or Space selects). Screenshots go to tests/artifacts/. Run: scripts/test.sh e2e
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, screenshot, URL } from './harness.mjs';

const env = useBrowser();

async function fresh(page, example) {
  await page.goto(URL);
  await page.evaluate(() => localStorage.clear());
  await page.goto(URL);
  await page.waitForSelector('.view svg g.node', { timeout: 30_000 });
  if (example) {
    await page.selectOption('#example', example);
    await page.waitForFunction((id) => document.querySelector('#example')?.value === id, example);
  }
}

test('lecture mode at 1024×768: every view tab is whole, on screen and clickable', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await page.setViewportSize({ width: 1024, height: 768 });
  await fresh(page);
  await page.click('#lecture');
  await page.waitForSelector('.app.lecture');
  const tabs = await page.$$eval('.tabs [role="tab"]', (ts) =>
    ts.map((t) => {
      const r = t.getBoundingClientRect();
      const list = t.parentElement.getBoundingClientRect();
      const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return {
        title: t.textContent,
        inList: r.left >= list.left - 1 && r.right <= list.right + 1 && r.top >= list.top - 1 && r.bottom <= list.bottom + 1,
        onScreen: r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight,
        whole: t.scrollWidth <= t.clientWidth + 1,
        hit: hit === t || t.contains(hit),
      };
    }),
  );
  assert.ok(tabs.some((t) => t.title === 'Copy elimination'), JSON.stringify(tabs.map((t) => t.title)));
  for (const t of tabs) assert.ok(t.inList && t.onScreen && t.whole && t.hit, `${t.title}: ${JSON.stringify(t)}`);
  await screenshot(page, 'lecture-1024x768-tabs');
  // The last one opens with a click, as a lecturer would.
  await page.click('#tab-copy-elim');
  await page.waitForSelector('.view.view-copy-elim');
  await page.click('#lecture');
  assert.deepEqual(errors, []);
});

test('the step sentence sets its code as code, without backticks', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await page.setViewportSize({ width: 1400, height: 900 });
  await fresh(page, 'dead1');
  await page.click('#tab-dce');
  await page.waitForSelector('.dce-view svg g.node');
  await page.locator('body').press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('#step-text code') !== null);
  assert.equal(await page.textContent('#step-text code'), 'return %0 : $Int32');
  const text = await page.textContent('#step-text');
  assert.doesNotMatch(text, /`/);
  assert.match(text, /^Mark return %0 : \$Int32 \(bb0\) live/);
  // Code font, not the sentence's.
  const fonts = await page.$eval('#step-text', (p) => [getComputedStyle(p).fontFamily, getComputedStyle(p.querySelector('code')).fontFamily]);
  assert.notEqual(fonts[0], fonts[1]);
  await screenshot(page, 'step-text-code', { clip: await page.$eval('.step-bar', (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; }) });
  assert.deepEqual(errors, []);
});

test("DCE's Marked live list: one tab stop, arrows move, Enter and Space select", { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await page.setViewportSize({ width: 1400, height: 900 });
  await fresh(page); // the first example, loop.bril: several instructions live
  await page.click('#tab-dce');
  await page.waitForSelector('.dce-view svg g.node');
  await page.locator('body').press('End');
  await page.waitForFunction(() => document.querySelectorAll('.marked-list .marked-pick').length >= 2);
  const buttons = page.locator('.marked-list .marked-pick');
  const n = await buttons.count();
  assert.equal(await page.locator('.marked-list .marked-pick[tabindex="0"]').count(), 1, 'one tab stop');
  const step = await page.textContent('.step-count');

  // Tab reaches the list (from the control just before it in the view), not each line.
  await page.focus('.marked-list .marked-pick[tabindex="0"]');
  const focused = () => page.evaluate(() => [...document.querySelectorAll('.marked-list .marked-pick')].indexOf(document.activeElement));
  assert.equal(await focused(), 0);
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), 1, '↓ moves to the next line');
  assert.equal(await page.textContent('.step-count'), step, 'the arrows do not step the view');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.marked-list li.selected');
  assert.equal(await page.evaluate(() => document.querySelector('.marked-list li.selected .marked-pick') === document.activeElement), true);
  assert.ok((await page.locator('#dce-why .chain li').count()) > 0, 'Enter: why it is live');
  const first = await page.textContent('#dce-why .chain');

  await page.keyboard.press('End');
  assert.equal(await focused(), n - 1, 'End: the last line');
  await page.keyboard.press('ArrowUp');
  assert.equal(await focused(), n - 2);
  await page.keyboard.press(' ');
  await page.waitForFunction((t) => document.querySelector('#dce-why .chain')?.textContent !== t, first);
  assert.equal(await page.getAttribute('.marked-list li.selected .marked-pick', 'aria-pressed'), 'true');
  assert.equal(await page.locator('.marked-list .marked-pick[tabindex="0"]').count(), 1, 'still one tab stop');
  await screenshot(page, 'dce-marked-keyboard');
  assert.deepEqual(errors, []);
});
