// End to end: what a lecturer with a projector and an author embedding a view see. Lecture mode
// at 1024×768 (the LCM graph next to its table, code in the nodes at least 18 px on screen, a
// one-row header), the normal page at 1024×768, 1280×720 and 1440×900, embeds in iframes
// (600×400 and 480×320: the graph fills its box, the visitor's autosave is never read), and
// graphs refitting when the window is resized. Screenshots go to tests/artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, screenshot, URL, fresh } from './harness.mjs';

const env = useBrowser();

/** The on-screen box of the first element matching `sel` (null if none). */
async function box(page, sel) {
  return page.$eval(sel, (e) => {
    const r = e.getBoundingClientRect();
    return { x: r.x, y: r.y, w: r.width, h: r.height, right: r.right, bottom: r.bottom };
  });
}

function inside(inner, outer, what, slack = 1) {
  assert.ok(
    inner.x >= outer.x - slack && inner.y >= outer.y - slack && inner.right <= outer.right + slack && inner.bottom <= outer.bottom + slack,
    `${what}: ${JSON.stringify(inner)} is not inside ${JSON.stringify(outer)}`,
  );
}

const viewportBox = (w, h) => ({ x: 0, y: 0, w, h, right: w, bottom: h });

/** Smallest and largest on-screen size (CSS px) of the code text in the graphs under `root`. */
async function codePx(pageOrFrame, root) {
  return pageOrFrame.$$eval(`${root} svg text.code`, (ts) => {
    const px = ts.map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
    return { min: Math.min(...px), max: Math.max(...px), n: px.length };
  });
}

/** The code lines of a graph that are entirely on screen inside its `.graph-view`. */
async function visibleLines(pageOrFrame, graph) {
  return pageOrFrame.$eval(graph, (g) => {
    const c = g.getBoundingClientRect();
    return [...g.querySelectorAll('text.code tspan')].filter((t) => {
      const r = t.getBoundingClientRect();
      return r.width > 0 && r.left >= c.left && r.right <= c.right && r.top >= c.top && r.bottom <= c.bottom;
    }).length;
  });
}

async function openLcmArticle(page) {
  await page.selectOption('#example', 'lcm-article');
  await page.click('#tab-lcm');
  await page.waitForSelector('#lcm-table tbody tr[data-block="n13"]');
  await page.waitForSelector('.lcm-graph svg g.node');
}

test('lecture mode at 1024×768: the LCM graph beside its whole table, code ≥ 18 px, a one-row header', { timeout: 120_000 }, async () => {
  const { page, errors } = env;
  await page.setViewportSize({ width: 1024, height: 768 });
  await fresh(page);
  await openLcmArticle(page);
  await page.click('#lecture');
  await page.waitForSelector('.app.lecture');
  // Up-safety's first round changes cells all over the graph; the graph pans to the first.
  await page.click('.lcm-stage[data-stage="3"]');
  await page.waitForSelector('.lcm-stage.active[data-stage="3"]');
  await page.waitForTimeout(300);
  const screen = viewportBox(1024, 768);
  const graph = await box(page, '.lcm-graph');
  const table = await box(page, '.lcm-table-wrap');
  const header = await box(page, 'header.bar');
  console.log(`lecture 1024x768: header ${JSON.stringify(header)} table ${JSON.stringify(table)} graph ${JSON.stringify(graph)}`);
  inside(graph, screen, 'the LCM graph');
  inside(table, screen, 'the table');
  // Side by side (or stacked), not overlapping; the graph gets a real share of the screen.
  assert.ok(table.right <= graph.x + 1 || table.bottom <= graph.y + 1, 'table and graph do not overlap');
  assert.ok(graph.w >= 450 && graph.h >= 350, `graph ${graph.w}×${graph.h}`);
  // Every row of the table is on screen (it used to be cut at n11).
  inside(await box(page, '#lcm-table tr[data-block="n13"]'), table, 'the last row n13');
  inside(await box(page, '#lcm-table'), table, 'the whole table');
  // Code in the nodes: at least 18 px on screen, and some of it in view.
  const px = await codePx(page, '.lcm-graph');
  console.log(`lecture code text: ${px.min.toFixed(2)}–${px.max.toFixed(2)} px on screen`);
  assert.ok(px.min >= 17.99, `code at ${px.min} px`);
  assert.ok((await visibleLines(page, '.lcm-graph')) >= 3, 'code lines in view');
  // A block whose badge changed at this step is in view (the graph followed the step).
  const changedInView = await page.$eval('.lcm-graph', (g) => {
    const c = g.getBoundingClientRect();
    return [...g.querySelectorAll('g.badges:has(.badge.changed)')].some((b) => {
      const r = b.getBoundingClientRect();
      return r.left >= c.left && r.right <= c.right && r.top >= c.top && r.bottom <= c.bottom;
    });
  });
  assert.ok(changedInView, 'a changed badge is on screen');
  // One row of header: every control on the same line.
  assert.ok(header.h <= 48, `header ${header.h} px high`);
  const tops = await page.$$eval('header.bar > *', (els) =>
    els.filter((e) => e.getBoundingClientRect().height > 0).map((e) => e.getBoundingClientRect().top));
  assert.ok(Math.max(...tops) - Math.min(...tops) < 12, `header rows: ${tops}`);
  // The step sentence is whole (it wraps, it is never cut with …).
  const step = await page.$eval('#step-text', (e) => ({ sw: e.scrollWidth, cw: e.clientWidth, b: e.getBoundingClientRect().bottom }));
  assert.ok(step.sw <= step.cw + 1 && step.b <= 768, JSON.stringify(step));
  await screenshot(page, 'lecture-1024x768-lcm');

  // Dominators in lecture mode: the trees get the height (the table is beside them).
  await page.click('#tab-dom');
  await page.waitForSelector('.view-dom svg g.node');
  for (const pane of ['.view .dom-search .graph-view', '.view .dom-tree .graph-view']) {
    const b = await box(page, pane);
    inside(b, screen, pane);
    assert.ok(b.h >= 400, `${pane} is ${b.h} px high`);
  }
  const title = await page.$$eval('.view-dom svg text.title', (ts) =>
    Math.min(...ts.map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)));
  assert.ok(title >= 17.99, `block names at ${title} px`);
  await screenshot(page, 'lecture-1024x768-dom');
  await page.click('#lecture');
  assert.deepEqual(errors, []);
});

test('normal mode at 1024×768 and 1280×720: the LCM graph above the fold, the step sentence whole', { timeout: 120_000 }, async () => {
  const { page, errors } = env;
  for (const [w, h] of [[1024, 768], [1280, 720]]) {
    await page.setViewportSize({ width: w, height: h });
    await fresh(page);
    await openLcmArticle(page);
    await page.click('.lcm-stage[data-stage="2"]');
    await page.keyboard.press('PageDown');
    await page.waitForTimeout(300);
    const graph = await box(page, '.lcm-graph');
    console.log(`normal ${w}x${h}: graph ${JSON.stringify(graph)}`);
    inside(graph, viewportBox(w, h), `the LCM graph at ${w}×${h}`);
    assert.ok(graph.h >= 300 && graph.w >= 250, `graph ${graph.w}×${graph.h}`);
    assert.ok((await visibleLines(page, '.lcm-graph')) >= 3, 'code lines in view');
    const step = await page.$eval('#step-text', (e) => ({ sw: e.scrollWidth, cw: e.clientWidth, b: e.getBoundingClientRect().bottom, text: e.textContent }));
    assert.ok(step.sw <= step.cw + 1 && step.b <= h, JSON.stringify(step));
    const header = await box(page, 'header.bar');
    assert.ok(header.h <= 48, `header ${header.h} px high at ${w}`);
    if (w === 1024) await screenshot(page, 'normal-1024x768-lcm');
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await fresh(page);
  await page.waitForSelector('.view-cfg svg g.node');
  inside(await box(page, '.view-cfg svg'), await box(page, '.view-cfg .graph-view'), 'the CFG at 1440×900');
  await screenshot(page, 'normal-1440x900');
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.deepEqual(errors, []);
});

test('graphs refit when the window is resized, and keep a zoom the user chose', { timeout: 120_000 }, async () => {
  const { page, errors } = env;
  await page.setViewportSize({ width: 1440, height: 900 });
  await fresh(page);
  await page.waitForSelector('.view-cfg svg g.node');
  const scale = () => page.$eval('.view-cfg .graph-stage', (s) => Number(/scale\(([\d.]+)\)/.exec(s.style.transform)[1]));
  inside(await box(page, '.view-cfg svg'), await box(page, '.view-cfg .graph-view'), 'the CFG at 1440');
  const k1440 = await scale();
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.waitForTimeout(400);
  const canvas = await box(page, '.view-cfg .graph-view');
  const drawing = await box(page, '.view-cfg svg');
  console.log(`refit: scale ${k1440} at 1440 → ${await scale()} at 1024; drawing ${JSON.stringify(drawing)} in ${JSON.stringify(canvas)}`);
  inside(drawing, canvas, 'the CFG after 1440 → 1024');
  assert.ok((await scale()) < k1440, 'it shrank to fit');
  // Container resize too: lecture mode hides the editor, the pane grows, and the CFG is
  // refitted at the lecture's readable size (code ≥ 18 px), starting from its entry.
  const before = await box(page, '.view-cfg .graph-view');
  await page.click('#lecture');
  await page.waitForTimeout(400);
  const after = await box(page, '.view-cfg .graph-view');
  assert.ok(after.w > before.w + 200, `the pane grew: ${before.w} → ${after.w}`);
  assert.ok((await codePx(page, '.view-cfg')).min >= 17.99);
  inside(await box(page, '.view-cfg g.node[data-id="entry"]'), after, 'the entry block in lecture mode');
  await page.click('#lecture');
  await page.waitForTimeout(400);
  inside(await box(page, '.view-cfg svg'), await box(page, '.view-cfg .graph-view'), 'the CFG back in normal mode');
  // A zoom the user set survives a resize.
  await page.click('.view-cfg .zoom-in');
  await page.click('.view-cfg .zoom-in');
  const zoomed = await scale();
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.waitForTimeout(400);
  assert.ok(Math.abs((await scale()) - zoomed) < 1e-3, `zoom ${zoomed} kept: ${await scale()}`);
  // Fit brings the whole graph back.
  await page.click('.view-cfg .zoom-fit');
  await page.waitForTimeout(200);
  inside(await box(page, '.view-cfg svg'), await box(page, '.view-cfg .graph-view'), 'the CFG after Fit');
  await page.setViewportSize({ width: 1400, height: 900 });
  assert.deepEqual(errors, []);
});

/** A page holding one iframe of `w`×`h` showing `hash`; returns the frame once its view drew. */
async function iframe(page, hash, w, h, ready) {
  // The host page names an icon, or the browser asks the server for /favicon.ico.
  await page.setContent(`<!DOCTYPE html><link rel="icon" href="data:,"><body style="margin:0"><iframe id="f" src="${URL}${hash}" width="${w}" height="${h}" style="border:0;display:block"></iframe></body>`);
  const frame = await (await page.$('#f')).contentFrame();
  await frame.waitForSelector(ready);
  await frame.waitForTimeout(400);
  return frame;
}

test('embed mode fits its view to the iframe and never shows the visitor\'s autosave', { timeout: 180_000 }, async () => {
  const { page, errors } = env;
  await page.setViewportSize({ width: 1400, height: 900 });
  await fresh(page);
  // The visitor's own program, autosaved.
  const mine = '@main {\n  mine: int = const 4242;\n  print mine;\n}\n';
  await page.fill('#source', mine);
  await page.waitForFunction(() => document.querySelector('.view-cfg svg')?.textContent.includes('4242'));

  for (const [view, ready, w, h] of [
    ['dce', '.app.embed .dce-graph svg g.node', 600, 400],
    ['lcm', '.app.embed .lcm-graph svg g.node', 600, 400],
    ['dom', '.app.embed .view-dom svg g.node', 600, 400],
    ['dce', '.app.embed .dce-graph svg g.node', 480, 320],
    ['lcm', '.app.embed .lcm-graph svg g.node', 860, 520],
  ]) {
    const frame = await iframe(page, `#embed=${view}`, w, h, ready);
    const text = await frame.$eval('.view', (v) => v.textContent);
    assert.ok(!text.includes('4242'), `${view}: the embed shows the author's example, not the visitor's text`);
    const graphs = await frame.$$eval('.view .graph-canvas', (gs) => gs.map((g) => {
      const c = g.getBoundingClientRect();
      const s = g.querySelector('svg').getBoundingClientRect();
      return { c: { x: c.x, y: c.y, w: c.width, h: c.height, right: c.right, bottom: c.bottom }, s: { x: s.x, y: s.y, w: s.width, h: s.height, right: s.right, bottom: s.bottom } };
    }));
    console.log(`embed ${view} ${w}x${h}: ${JSON.stringify(graphs)}`);
    for (const { c, s } of graphs) {
      inside(c, viewportBox(w, h), `${view} ${w}×${h}: the graph's canvas`);
      inside(s, c, `${view} ${w}×${h}: the whole drawing in its box`);
      // Fit to the box: the drawing spans its box's width or height (below the toolbar).
      assert.ok(s.w >= 0.85 * (c.w - 16) || s.h >= 0.85 * (c.h - 48), `${view}: drawing ${s.w}×${s.h} in ${c.w}×${c.h}`);
    }
    // The graphs together get a real share of the frame.
    const area = graphs.reduce((a, { c }) => a + c.w * c.h, 0);
    assert.ok(area >= 0.3 * w * h, `${view} ${w}×${h}: graphs cover ${Math.round((100 * area) / (w * h))}% of the frame`);
    if (w === 600) await screenshot(page, `embed-600x400-${view}`, { clip: { x: 0, y: 0, width: w, height: h } });
  }
  // The visitor's autosave is untouched.
  await page.goto(URL);
  await page.waitForSelector('.view-cfg svg g.node');
  assert.equal(await page.inputValue('#source'), mine);
  await page.evaluate(() => localStorage.clear());
  assert.deepEqual(errors, []);
});
