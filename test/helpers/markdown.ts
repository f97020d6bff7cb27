import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The shell blocks of a Markdown file, for the tests that run the docs' commands. Conventions
 * (docs/development/testing.md, "Commands in the docs are tested"):
 * - a fenced block whose language is sh, bash, shell, zsh or console is a shell block;
 * - `<!-- readme-test: skip (reason) -->` on the line before the fence exempts it, with its reason;
 * - a comment `# → text` shows what the command before it prints; `…` in the text stands for
 *   anything, and the texts must appear in the block's output in their order.
 */

export interface ShellBlock {
  file: string;
  /** 1-based line of the opening fence */
  line: number;
  code: string;
  /** the reason the block is not run, when it carries the skip marker */
  skip?: string;
  /** what the block's commands print, in order (`…` = anything) */
  expected: string[];
}

const SHELLS = new Set(['sh', 'bash', 'shell', 'zsh', 'console']);
const FENCE = /^(`{3,}|~{3,})\s*([\w+-]*)/;
const MARKER = /^<!--\s*readme-test:\s*(.*?)\s*-->$/;
const SKIP = /^skip \((.+)\)$/;
const EXPECTED = /(?:^|\s)# → (.+)$/;

/** Every shell block of `text`; throws on a marker that is malformed or exempts no shell block. */
export function shellBlocks(file: string, text: string): ShellBlock[] {
  const lines = text.split('\n');
  const blocks: ShellBlock[] = [];
  let pendingMarker: { line: number; reason: string } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const marker = lines[i].trim().match(MARKER);
    if (marker) {
      const reason = marker[1].match(SKIP)?.[1];
      if (!reason) throw new Error(`${file}:${i + 1}: write the marker as <!-- readme-test: skip (reason) -->`);
      pendingMarker = { line: i + 1, reason };
      continue;
    }
    const fence = lines[i].match(FENCE);
    if (!fence) {
      if (pendingMarker && lines[i].trim()) throw new Error(`${file}:${pendingMarker.line}: the skip marker must stand right before a shell block`);
      continue;
    }
    const close = lines.findIndex((l, k) => k > i && l.startsWith(fence[1]) && !l.slice(fence[1].length).trim());
    const end = close === -1 ? lines.length : close;
    const isShell = SHELLS.has(fence[2].toLowerCase());
    if (pendingMarker && !isShell) throw new Error(`${file}:${pendingMarker.line}: the skip marker must stand right before a shell block`);
    if (isShell) {
      const code = lines.slice(i + 1, end).join('\n');
      const expected = code.split('\n').flatMap((l) => l.match(EXPECTED)?.[1]?.trim() ?? []);
      blocks.push({ file, line: i + 1, code, skip: pendingMarker?.reason, expected });
    }
    pendingMarker = undefined;
    i = end;
  }
  if (pendingMarker) throw new Error(`${file}:${pendingMarker.line}: the skip marker must stand right before a shell block`);
  return blocks;
}

/**
 * The first expected text that `output` does not show in order, or undefined when all appear.
 * Whitespace runs match any whitespace, `…` matches anything.
 */
export function missingExpected(output: string, expected: string[]): string | undefined {
  let from = 0;
  for (const text of expected) {
    const pattern = text
      .split('…')
      .map((part) =>
        part
          .trim()
          .split(/\s+/)
          .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('\\s+'),
      )
      .join('[\\s\\S]*?');
    const re = new RegExp(pattern, 'g');
    re.lastIndex = from;
    const found = re.exec(output);
    if (!found) return text;
    from = found.index + found[0].length;
  }
  return undefined;
}

/**
 * The documents whose commands run: README.md, then every Markdown file under docs/ (subfolders
 * too) in path order, so a page that relies on an earlier one's step keeps its place.
 */
export function documentFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f.split('\\').join('/')}`)
    .sort();
  return ['README.md', ...docs];
}
