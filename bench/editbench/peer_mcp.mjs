// Drives @modelcontextprotocol/server-filesystem's applyFileEdits on temp files.
// argv[2]: path of the package's dist/lib.js. JSON lines in, JSON lines out.
import { pathToFileURL } from "node:url";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";

const lib = await import(pathToFileURL(process.argv[2]).href);
const dir = await fs.mkdtemp(path.join(os.tmpdir(), "editbench-mcp-"));
const file = path.join(dir, "task.txt");
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  const t = JSON.parse(line);
  let out;
  try {
    await fs.writeFile(file, t.text, "utf-8");
    await lib.applyFileEdits(file, [{ oldText: t.old, newText: t.new }], false);
    out = { id: t.id, result: await fs.readFile(file, "utf-8") };
  } catch (e) {
    out = { id: t.id, result: null, error: String(e).slice(0, 200) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
await fs.rm(dir, { recursive: true, force: true });
