/** Injected CLI I/O, so tests run commands in-process and read what they print. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  /** prompts allowed (a TTY and no --yes) */
  interactive: boolean;
  /** stderr is a terminal: progress bars are drawn there */
  progress?: boolean;
}

/**
 * Characters that a terminal acts on instead of showing: C0 and C1 controls (ESC starts the escape
 * sequences that clear a screen or move the cursor; a newline or a carriage return starts a fake
 * row), DEL, the line and paragraph separators, and the bidirectional formatting characters that
 * reorder what is shown.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text as a terminal should show it: every control character written out visibly, as JSON writes it
 * (a newline as `\n`, ESC as `\u001b`), so a line of JSON output stays valid JSON of the same value.
 */
export function showControls(text: string): string {
  return text.replace(CONTROL, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

interface ShownIo extends Io {
  shown?: true;
}

/**
 * The CLI's output layer: every line a command prints goes through showControls, so text that
 * reached the database from a public form (a vendor's name) cannot drive the operator's terminal.
 * A line is one line: output that is several lines by design (help, JSON, a shell script) is printed
 * line by line (printLines).
 */
export function visibleIo(io: Io): Io {
  if ((io as ShownIo).shown) return io;
  const shown: ShownIo = { ...io, out: (line) => io.out(showControls(line)), err: (line) => io.err(showControls(line)), shown: true };
  return shown;
}

/** Prints text that is several lines by design (help, pretty JSON, a script) one line at a time. */
export function printLines(io: Io, text: string, to: 'out' | 'err' = 'out'): void {
  for (const line of text.split('\n')) io[to](line);
}

// set once the reader of stdout has gone (`svc user list | head -1`): the rest of the output is dropped
let stdoutGone = false;
let watching = false;

/** A line on stdout, unless its reader closed the pipe: then the command ends quietly, not with an EPIPE stack. */
function writeOut(line: string): void {
  if (stdoutGone) return;
  if (!watching) {
    watching = true;
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
      stdoutGone = true;
    });
  }
  process.stdout.write(`${line}\n`);
}

export const processIo: Io = {
  out: writeOut,
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  interactive: Boolean(process.stdin.isTTY),
  progress: Boolean(process.stderr.isTTY),
};

/** An error the CLI reports in one line with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
