// Drives the chat page in headless chromium with playwright-core to check
// that an answer survives a reload: asks about the weather, reloads the
// page while the answer streams (the server holds the answer after its
// first step until told to go on), lets the server go on once the
// reloaded page shows the resumed first step, waits for the whole answer
// (it stops at the email approval), approves, waits for the end, and
// reloads once more to check the stored answer. It
// prints what the page showed at each point as JSON; the Go test checks
// it.
//
// Usage: node e2e/resume.mjs URL RELEASE_URL USER_DATA_DIR SCREENSHOT [CHROMIUM]
import { chromium } from 'playwright-core';

const [url, releaseURL, userDataDir, screenshot, executablePath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!url || !releaseURL || !userDataDir || !screenshot) {
  console.error('usage: node e2e/resume.mjs URL RELEASE_URL USER_DATA_DIR SCREENSHOT [CHROMIUM]');
  process.exit(2);
}
// Waits are for events on the page; the timeout only bounds a broken run.
const timeout = 120_000;

const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath,
  headless: true,
  args: [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ],
  viewport: { width: 900, height: 1100 },
});
let phase = 'first';
const result = { consoleErrors: [], requests: [] };
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(timeout);
  page.on('console', m => m.type() === 'error' && result.consoleErrors.push({ phase, text: m.text() }));
  page.on('pageerror', e => result.consoleErrors.push({ phase, text: String(e) }));
  page.on('request', r => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith('/api/')) result.requests.push({ phase, method: r.method(), path });
  });

  // What the page shows: the messages and their parts, in order.
  const snapshot = () =>
    page.$$eval('.msg', msgs =>
      msgs.map(m => ({
        role: m.dataset.role,
        id: m.dataset.id,
        parts: [...m.querySelectorAll(':scope > :not(.who)')].map(el =>
          el.classList.contains('step') ? 'step'
            : el.classList.contains('tool') ? `tool:${el.dataset.tool}:${el.dataset.state}`
            : el.classList.contains('text') ? `text:${el.textContent}`
            : `other:${el.textContent}`,
        ),
      })),
    );
  const firstStep = '.tool[data-tool="toolSearch"][data-state="output-available"]';

  await page.goto(url);
  await page.waitForSelector('#prompt');
  await page.fill('#prompt', 'What is the weather in Berlin? Email the team about it.');
  await page.click('#send');
  // The first step arrives; the server holds the rest.
  await page.waitForSelector(firstStep);
  result.beforeReload = await snapshot();
  result.chatURL = page.url();

  phase = 'reloaded';
  await page.reload();
  await page.waitForSelector('#prompt');
  // The reloaded page gets the conversation and resumes the answer, which
  // replays from its start.
  await page.waitForSelector(firstStep);
  result.resumed = await snapshot();

  // Let the server go on: the rest streams live into the resumed page.
  const released = await fetch(releaseURL, { method: 'POST' });
  if (!released.ok) throw new Error(`releasing the answer: ${released.status}`);
  const approve = '.tool[data-tool="sendEmail"][data-state="approval-requested"] button.approve';
  await page.waitForSelector(approve);
  await page.waitForSelector('#status[data-status="ready"]');
  result.afterReload = await snapshot();

  phase = 'approved';
  await page.click(approve);
  await page.waitForSelector('.msg.assistant .text:has-text("Done: the team has the forecast.")');
  await page.waitForSelector('#status[data-status="ready"]');
  result.afterApproval = await snapshot();

  // A reload after the approval's turn shows the whole answer, the parts
  // from before the approval included.
  phase = 'reloaded-after';
  await page.reload();
  await page.waitForSelector('.msg.assistant .text:has-text("Done: the team has the forecast.")');
  await page.waitForSelector('#status[data-status="ready"]');
  result.reloadedAfterApproval = await snapshot();
  await page.screenshot({ path: screenshot, fullPage: true });
} catch (err) {
  result.error = String(err && err.stack ? err.stack : err);
} finally {
  await context.close();
}
console.log(JSON.stringify(result));
