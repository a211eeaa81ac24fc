import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { cliPath, runNode, spawnNode } from '../../test-support/child.js';
import { workspace } from '../../test-support/fixtures.js';

/** Debian's chromium package (docs/retrieval.md#search-page): `.ci/run` installs it. */
const CHROMIUM = '/usr/bin/chromium';
/** A quiet headless browser that talks to nothing but the page's server. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Ours: no crash handler, which would outlive the browser's process group and write outside the profile.
  '--disable-crash-reporter',
];
/** Generous: a busy machine may take seconds for a browser step; conditions are awaited, never slept on. */
const STEP_TIMEOUT_MS = 30_000;

const NOTES = {
  'recipes/shakshuka.md':
    '---\ntags: [recipe, breakfast]\n---\n# Shakshuka\n\nCrack four **eggs** into the [simmering tomatoes](https://example.org).\n',
  'recipes/soup.md': '---\ntags: [recipe, dinner]\n---\n# Lentil soup\n\nRed lentils, eggs on the side.\n',
  'journal/saturday.md': '---\ntags: [journal]\n---\n# Saturday\n\nBought eggs and kale at the market.\n',
  'projects/garden.md': '---\ntags: [project/garden]\n---\n# Garden plan\n\n## Raised beds\n\n### Drip irrigation\n',
};

function browserMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const why = `${CHROMIUM} is missing (apt-get install -y --no-install-recommends chromium)`;
  return process.env.NOTEGATE_REQUIRE_BROWSER === '1' ? undefined : `${why}: the search page is not tried in a browser`;
}

/** `notegate-rag serve` over an indexed lexical-only workspace: the page's URL and the vault's folder. */
async function servedNotes(t: TestContext): Promise<{ url: URL; folder: string }> {
  const ws = workspace(t, { life: NOTES }, 'none');
  const env = { PATH: process.env.PATH, HOME: ws.home };
  const indexed = await runNode(t, cliPath(), ['index', '--config', ws.configPath, '--quiet'], { env });
  assert.equal(indexed.code, 0, indexed.stderr);
  const child = spawnNode(t, cliPath(), ['serve', '--config', ws.configPath, '--port', '0'], { env });
  const line = await child.waitForLine(/^listening on /);
  return { url: new URL(line.replace('listening on ', '')), folder: path.join(ws.root, 'vaults', 'life') };
}

/**
 * A fresh profile in a new empty folder. One hook ends both, in order: the browser first (its processes
 * end with it), then its folder, which it writes to until it has closed.
 */
async function openBrowser(t: TestContext): Promise<BrowserContext> {
  const profile = mkdtempSync(path.join(tmpdir(), 'notegate-browser-'));
  let context: BrowserContext | undefined;
  t.after(async () => {
    try {
      await context?.close();
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
  });
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    timeout: STEP_TIMEOUT_MS,
  });
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  return context;
}

/**
 * Links that leave the browser (`vscode://`, `obsidian://`) do nothing in a headless one: a script the
 * browser runs before the page's own (outside its policy) records the link a click would follow.
 */
async function recordOpenedLinks(page: Page): Promise<void> {
  await page.addInitScript(`document.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a') : null;
    if (link === null) return;
    event.preventDefault();
    document.body.dataset.opened = link.href;
  }, true);`);
}

/**
 * Resolves once the page lists hits for `query` (answers to earlier keystrokes may come first), and
 * returns how many. Locators, not page scripts: the page's policy forbids evaluating strings.
 */
async function hitsListed(page: Page, query: string): Promise<number> {
  const listed = page.locator(`#hits[data-query=${JSON.stringify(query)}] .hit`);
  await listed.first().waitFor();
  return listed.count();
}

describe('the search page in a real browser', () => {
  it('finds a note while typing, filters by tag and folder, chooses with the keyboard, opens it in the editor', {
    skip: browserMissing(),
  }, async (t) => {
    if (!existsSync(CHROMIUM)) assert.fail(`NOTEGATE_REQUIRE_BROWSER=1 but ${CHROMIUM} is missing`);
    const { url, folder } = await servedNotes(t);
    const context = await openBrowser(t);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await recordOpenedLinks(page);

    const response = await page.goto(url.href);
    assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    await page.locator('body[data-ready="true"]').waitFor();
    assert.deepEqual(await page.locator('#mode option').allTextContents(), ['lexical']);

    // Live results: typing alone searches (no Enter), the match is marked in a markdown-free snippet.
    await page.locator('#query').pressSequentially('eggs', { delay: 30 });
    const titles = page.locator('#hits .hit .title');
    assert.equal(await hitsListed(page, 'eggs'), 3);
    assert.deepEqual((await titles.allTextContents()).sort(), ['Lentil soup', 'Saturday', 'Shakshuka']);
    const shakshuka = page.locator('#hits .hit', { hasText: 'Shakshuka' });
    assert.equal(await shakshuka.locator('.snippet').textContent(), 'Crack four eggs into the simmering tomatoes.');
    assert.deepEqual(await shakshuka.locator('mark').allTextContents(), ['eggs']);
    assert.match(await shakshuka.locator('.where').innerText(), /^life\/recipes\/shakshuka\.md:6-6$/);

    // The tag filter leaves the recipes.
    await page.locator('#tag').selectOption('recipe');
    await page.locator('#hits .hit', { hasText: 'Saturday' }).waitFor({ state: 'detached' });
    assert.equal(await hitsListed(page, 'eggs'), 2);
    assert.deepEqual((await titles.allTextContents()).sort(), ['Lentil soup', 'Shakshuka']);

    // The keyboard: the first hit is chosen, ↓ chooses the next, Enter opens it at its line.
    await page.locator('#query').focus();
    await page.keyboard.press('ArrowDown');
    const chosen = page.locator('#hits .hit[aria-selected="true"]');
    const chosenTitle = await chosen.locator('.title').textContent();
    const where = await chosen.locator('.where').innerText();
    await page.keyboard.press('Enter');
    await page.locator('body[data-opened]').waitFor();
    const opened = await page.locator('body').getAttribute('data-opened');
    const [, notePath = '', line = ''] = /^life\/(.+):(\d+)-\d+$/.exec(where) ?? [];
    assert.equal(opened, `vscode://file${path.join(folder, notePath)}:${line}:1`, `opened ${chosenTitle}`);

    // The folder filter: the journal alone.
    await page.locator('#tag').selectOption('');
    await page.locator('#namespace').selectOption('journal');
    await page.locator('#hits .hit', { hasText: 'Shakshuka' }).waitFor({ state: 'detached' });
    assert.equal(await hitsListed(page, 'eggs'), 1);
    assert.deepEqual(await titles.allTextContents(), ['Saturday']);

    // A typo is searched as the word meant, and the page says so.
    await page.locator('#namespace').selectOption('');
    await page.locator('#query').fill('irigation');
    assert.equal(await hitsListed(page, 'irigation'), 1);
    assert.match((await page.locator('#status').textContent()) ?? '', /searched for irrigation \(not irigation\)/);
    assert.deepEqual(await titles.allTextContents(), ['Garden plan']);

    assert.deepEqual(problems, [], 'no script error and no content security policy violation');
  });
});
