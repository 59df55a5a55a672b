// Starts an installed Narratoria (default /usr/bin/narratoria-desktop) in a
// real window with its bundled skills, checks the window's title, that the
// skills are listed with their scripts (no problems), and saves screenshots.
// Exit status 0 = all seen.

import { openApp, shot } from "./harness.mjs";

const application = process.argv[2] || "/usr/bin/narratoria-desktop";
const app = await openApp({ application, copySkills: false, installed: true });
let ok = false;
try {
  const b = app.browser;
  await (await b.$('[data-testid="play-input"]')).waitForExist({ timeout: 20_000 });
  const title = await b.getTitle();
  await (await b.$("#tab-skills")).click();
  await (await b.$('[data-testid="skill"]')).waitForExist({ timeout: 10_000 });
  const skills = (await b.$$('[data-testid="skill"]')).length;
  // A bundle without the compiled scripts lists every skill as a problem.
  const problems = (await b.$$('[data-testid="skill-problems"] li')).length;
  await shot(b, "installed-skills");
  await (await b.$("#tab-play")).click();
  await shot(b, "installed");
  console.log(`installed app: title ${JSON.stringify(title)}, ${skills} skills, ${problems} skill problems`);
  ok = title === "Narratoria" && skills > 0 && problems === 0;
} catch (e) {
  console.error(`installed app: ${e.message}`);
} finally {
  await app.close();
}
process.exit(ok ? 0 : 1);
