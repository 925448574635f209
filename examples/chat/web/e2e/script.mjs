// Drives the chat page in headless chromium with playwright-core: asks for
// a script, waits for the code mode program to pause at the email
// approval, approves, waits for the resumed program and the answer, and
// prints what the page showed at both points as JSON. The Go test checks
// it.
//
// Usage: node e2e/script.mjs URL USER_DATA_DIR SCREENSHOT [CHROMIUM]
import { chromium } from 'playwright-core';

const [url, userDataDir, screenshot, executablePath = '/usr/bin/chromium'] = process.argv.slice(2);
if (!url || !userDataDir || !screenshot) {
  console.error('usage: node e2e/script.mjs URL USER_DATA_DIR SCREENSHOT [CHROMIUM]');
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
const result = { consoleErrors: [], requests: [] };
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(timeout);
  page.on('console', m => m.type() === 'error' && result.consoleErrors.push(m.text()));
  page.on('pageerror', e => result.consoleErrors.push(String(e)));
  page.on('request', r => r.url().includes('/api/chat') && result.requests.push(JSON.parse(r.postData() ?? 'null')));

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

  await page.goto(url);
  await page.waitForSelector('#prompt');
  await page.fill('#prompt', 'Run a script: the weather in Berlin, emailed to the team.');
  await page.click('#send');

  // The program pauses at the email: the page shows the email call of the
  // program waiting for approval.
  const approve = '.tool[data-tool="sendEmail"][data-state="approval-requested"] button.approve';
  await page.waitForSelector(approve);
  await page.waitForSelector('#status[data-status="ready"]');
  result.beforeApproval = await snapshot();

  await page.click(approve);
  // The page posts the answer by itself; the program resumes and sends the
  // email, and the model confirms.
  await page.waitForSelector('.msg.assistant .text:has-text("The script ran: the team has the forecast.")');
  await page.waitForSelector('#status[data-status="ready"]');
  result.afterApproval = await snapshot();
  await page.screenshot({ path: screenshot, fullPage: true });
} catch (err) {
  result.error = String(err && err.stack ? err.stack : err);
} finally {
  await context.close();
}
console.log(JSON.stringify(result));
