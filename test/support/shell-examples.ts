import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A fenced shell block of README.md or docs/ that talks to gw. */
export interface ShellExample {
  /** `docs/cache.md:42` (the line of the opening fence). */
  where: string;
  script: string;
  /** The reason given by a `<!-- not-run: … -->` comment right before the fence: the block is not run. */
  notRun?: string;
}

const FENCE = /^```(bash|sh|shell)\s*$/;
const NOT_RUN = /^<!-- not-run: (.+?) -->\s*$/;
/** A block talks to gw when it names gw's local address or one of gw's headers or variables. */
const TALKS_TO_GW = /127\.0\.0\.1:8787|localhost:8787|\$GW_API_KEY|\$GW_BASE_URL|x-gw-/;

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** Every shell block of README.md and docs/**.md that talks to gw, in file order. */
export function shellExamples(root = '.'): ShellExample[] {
  const files = ['README.md', ...markdownFiles(join(root, 'docs')).map((file) => file.slice(root === '.' ? 0 : root.length + 1)).sort()];
  const examples: ShellExample[] = [];
  for (const file of files) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    for (let index = 0; index < lines.length; index++) {
      if (!FENCE.test(lines[index])) continue;
      const end = lines.findIndex((line, at) => at > index && line.startsWith('```'));
      const script = lines.slice(index + 1, end).join('\n');
      if (TALKS_TO_GW.test(script)) examples.push({ where: `${file}:${index + 1}`, script, notRun: NOT_RUN.exec(lines[index - 1] ?? '')?.[1] });
      index = end;
    }
  }
  return examples;
}
