// Drives the chat page in headless chromium with playwright-core through a
// scenario, and prints what the page showed before and after the approval
// as JSON; the Go tests check it. Scenarios:
//   email:  asks about the weather; the run stops at the email approval;
//           approving lets the resumed run send it and finish.
//   script: asks for a script; the code mode program stops at the email
//           approval; approving resumes the program and the run finishes.
//
// Usage: node e2e/drive.mjs URL USER_DATA_DIR SCREENSHOT [CHROMIUM] [SCENARIO]
import { chromium } from 'playwright-core';

const [url, userDataDir, screenshot, executablePath = '/usr/bin/chromium', scenarioName = 'email'] = process.argv.slice(2);
const scenarios = {
  email: {
    prompt: 'What is the weather in Berlin? Email the team about it.',
    // After the approval: the email's output, then the model's confirmation.
    done: ['.tool[data-tool="sendEmail"][data-state="output-available"]', '.msg.assistant .text:has-text("Done: the team has the forecast.")'],
  },
  script: {
    prompt: 'Run a script: the weather in Berlin, emailed to the team.',
    done: ['.msg.assistant .text:has-text("The script ran: the team has the forecast.")'],
  },
};
const scenario = scenarios[scenarioName];
if (!url || !userDataDir || !screenshot || !scenario) {
  console.error('usage: node e2e/drive.mjs URL USER_DATA_DIR SCREENSHOT [CHROMIUM] [email|script]');
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
  await page.fill('#prompt', scenario.prompt);
  await page.click('#send');

  // The run searches for tools and stops at the email, which waits for
  // approval (sent by the model, or by the program it wrote).
  const approve = '.tool[data-tool="sendEmail"][data-state="approval-requested"] button.approve';
  await page.waitForSelector(approve);
  await page.waitForSelector('#status[data-status="ready"]');
  result.beforeApproval = await snapshot();

  await page.click(approve);
  // The page posts the answer by itself; the server sends the email and the
  // model confirms.
  for (const selector of scenario.done) await page.waitForSelector(selector);
  await page.waitForSelector('#status[data-status="ready"]');
  result.afterApproval = await snapshot();
  await page.screenshot({ path: screenshot, fullPage: true });
} catch (err) {
  result.error = String(err && err.stack ? err.stack : err);
} finally {
  await context.close();
}
console.log(JSON.stringify(result));
