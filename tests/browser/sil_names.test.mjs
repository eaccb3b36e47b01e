// A pasted SIL program: the file name follows the text (untitled.sil, in the title and the
// errors), the edges of switch_enum / switch_value / checked_cast_br / try_apply carry their
// case or outcome, and a Swift-mangled function name is shown demangled beside the raw one.
// Run: scripts/test.sh e2e
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, screenshot, URL } from './harness.mjs';

const env = useBrowser();

const SIL = `sil_stage canonical

import Builtin
import Swift

enum E { case a, b }
class K {}
class Sub : K {}

sil @$s4main1fyyF : $@convention(thin) () -> () {
bb0:
  %0 = tuple ()
  return %0 : $()
}

sil @multiway : $@convention(thin) (E, Builtin.Int32, @owned K, @convention(thin) () -> @error any Error) -> () {
bb0(%0 : $E, %1 : $Builtin.Int32, %2 : $K, %3 : $@convention(thin) () -> @error any Error):
  switch_enum %0 : $E, case #E.a!enumelt: bb1, case #E.b!enumelt: bb2
bb1:
  %4 = integer_literal $Builtin.Int32, 1
  switch_value %1 : $Builtin.Int32, case %4: bb3, default bb4
bb2:
  checked_cast_br K in %2 : $K to Sub, bb5, bb6
bb3:
  try_apply %3() : $@convention(thin) () -> @error any Error, normal bb7, error bb8
bb4:
  br bb9
bb5(%5 : $Sub):
  br bb9
bb6(%6 : $K):
  br bb9
bb7(%7 : $()):
  br bb9
bb8(%8 : $any Error):
  br bb9
bb9:
  %9 = tuple ()
  return %9 : $()
}
`;

test('pasted SIL: untitled.sil, labelled multi-way edges, demangled names', { timeout: 60_000 }, async () => {
  const { page } = env;
  await page.goto(URL);
  await page.evaluate(() => localStorage.clear());
  await page.goto(URL);
  await page.selectOption('#example', 'loop');
  await page.waitForFunction(() => /loop\.bril/.test(document.querySelector('.editor-pane h2')?.textContent ?? ''));
  await page.fill('#source', SIL);
  await page.waitForFunction(() => /^untitled\.sil/.test(document.querySelector('.editor-pane h2')?.textContent ?? ''));
  assert.equal(await page.inputValue('#lang'), 'auto');

  const options = await page.$$eval('#function option', (os) => os.map((o) => o.textContent));
  assert.deepEqual(options, ['@$s4main1fyyF — main.f() -> ()', '@multiway']);

  await page.selectOption('#function', 'multiway');
  await page.click('#tab-cfg');
  await page.waitForSelector('.views svg g.edge-labels text');
  const labels = await page.$$eval('.views svg g.edge-labels text', (ts) => ts.map((t) => t.textContent).sort());
  assert.deepEqual(labels, ['.a', '.b', 'case %4', 'default', 'error', 'failure', 'normal', 'success']);
  const legend = await page.textContent('.view h2');
  assert.match(legend, /10 blocks/);
  assert.doesNotMatch(legend, /true \/ false/, 'no conditional branch here');
  assert.match(legend, /labelled with their case or outcome/);
  await screenshot(page, 'sil-multiway-edges');

  // An error in the pasted text names the untitled file.
  await page.fill('#source', SIL.replace('return %9', 'retrun %9'));
  await page.waitForSelector('#errors');
  assert.match(await page.textContent('#errors'), /^untitled\.sil:\d+:\d+: error/);
  assert.deepEqual(env.errors, []);
});
