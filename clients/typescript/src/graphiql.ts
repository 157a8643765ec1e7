// GraphiQL, as a venue's developer meets it on a pub's offline network: served by the
// binary in a real browser (Debian's Chromium, driven by playwright-core), with every host
// but the server unreachable. Its documentation explorer lists the schema's root types and
// fields (read through the standard introspection query) and its editor completes a field
// name as it is typed.
//
// Environment (set by ./run): LEAGUE_URL; CHROMIUM (default /usr/bin/chromium).

import { strict as assert } from 'node:assert';

import { chromium } from 'playwright-core';

const url = process.env.LEAGUE_URL;
if (!url) throw new Error('LEAGUE_URL is not set');
const server = new URL(url);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  // Offline but for the server: no CDN could stand in for an asset the binary lacks.
  args: ['--no-sandbox', `--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE ${server.hostname}`],
});
try {
  const page = await browser.newPage();
  const elsewhere: string[] = [];
  const failed: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).host !== server.host) elsewhere.push(request.url());
  });
  page.on('requestfailed', (request) => failed.push(request.url()));
  await page.goto(`${url}/graphql`);

  // The documentation explorer: the root types, then Query's fields.
  await page.getByRole('button', { name: /documentation explorer/i }).first().click();
  const explorer = page.locator('.graphiql-doc-explorer');
  await explorer.getByText('Query', { exact: true }).first().click({ timeout: 15_000 });
  await explorer.getByText('tournament', { exact: true }).first().waitFor({ timeout: 15_000 });
  await explorer.getByText('standings', { exact: true }).first().waitFor();

  // Autocompletion in the query editor.
  await page.locator('.graphiql-query-editor .CodeMirror').first().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('{ standi');
  const hint = page.locator('.CodeMirror-hints li', { hasText: 'standings' }).first();
  await hint.waitFor({ timeout: 15_000 });

  assert.deepEqual(elsewhere, [], 'GraphiQL asked for nothing but the server');
  assert.deepEqual(failed, [], 'every request of the page was answered');
  console.log('graphiql: the documentation explorer shows Query and its fields; the editor completes `standings`; nothing asked of any other host');
} finally {
  await browser.close();
}
