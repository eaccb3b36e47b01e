// End to end: Bril's extensions on the page — the speculation example (a guard's two edges
// on the CFG, LCM's refusal with its reason, both runs of the before/after view), the
// example of a program of two files, and files dropped on the editor joined into one
// program whose imports resolve (the function menu lists the linked names).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { URL, useBrowser, screenshot, openExample } from './harness.mjs';

const env = useBrowser();

test('speculation: the guard branches on the CFG, LCM says why it leaves the function alone', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'speculation');
  await page.waitForSelector('.view-cfg svg g.edge-labels text', { timeout: 30_000 });
  const labels = await page.$$eval('.view-cfg svg g.edge-labels text', (ts) => ts.map((t) => t.textContent));
  assert.equal(labels.filter((l) => l === 'holds').length, 2, `edge labels: ${labels}`);
  assert.equal(labels.filter((l) => l === 'fails').length, 2, `edge labels: ${labels}`);
  await screenshot(page, 'speculation-cfg');
  await page.click('#tab-lcm');
  await page.waitForFunction(() => document.querySelector('.views')?.textContent.includes('speculates'), null, { timeout: 30_000 });
  assert.deepEqual(errors, []);
});

test('a program of two files: the example links, and files dropped on the editor join into one program', { timeout: 90_000 }, async () => {
  const { page, errors } = env;
  await openExample(page, 'imports');
  await page.waitForFunction(() => [...document.querySelectorAll('#function option')].some((o) => o.value === 'math.bril___power'));

  // Two files dropped at once, the library first: the program that imports it comes first.
  const main = 'from "lib.bril" import @twice;\n@main {\n  x: int = const 21;\n  y: int = call @twice x;\n  print y;\n}\n';
  const lib = '@twice(a: int): int {\n  b: int = add a a;\n  ret b;\n}\n';
  await page.evaluate(([main, lib]) => {
    const data = new DataTransfer();
    data.items.add(new File([lib], 'lib.bril'));
    data.items.add(new File([main], 'main.bril'));
    const target = document.querySelector('.code-editor');
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  }, [main, lib]);
  await page.waitForFunction(() => document.querySelector('#source').value.includes('// file: lib.bril'));
  const text = await page.inputValue('#source');
  assert.ok(text.startsWith('from "lib.bril"'), text);
  await page.waitForFunction(() => [...document.querySelectorAll('#function option')].map((o) => o.value).join(' ') === 'main lib.bril___twice');
  await screenshot(page, 'imports-dropped');
  assert.deepEqual(errors, []);
});
