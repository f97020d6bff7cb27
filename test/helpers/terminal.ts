/**
 * A real terminal for CLI tests, with nothing installed by hand: `script` (util-linux, in Debian's
 * Essential package bsdutils, so on every Debian) runs the command on a pseudo-terminal of its own;
 * keys are written to that terminal as a keyboard sends them (its line discipline turns Ctrl-C into
 * SIGINT when the program has not taken raw mode), and every byte the program writes is kept and
 * rendered by @xterm/headless (npm) into the screen a user would see.
 */
import { spawn } from 'node:child_process';
import xterm from '@xterm/headless';

const KEYS = { Enter: '\r', 'C-c': '\x03' } as const;

export interface TerminalSession {
  /** The visible screen: one line per row, trailing blanks dropped. */
  screen: () => string;
  /** Types text as it is (no Enter). */
  type: (text: string) => void;
  /** Presses a key: Enter or Ctrl-C. */
  press: (key: keyof typeof KEYS) => void;
  /** Every byte the program wrote, frames later erased included. */
  written: () => string;
  /** The exit code once the program has ended and the screen caught up (128 + the signal's number when killed); else undefined. */
  exitCode: () => number | undefined;
  kill: () => void;
}

/** Single-quotes for sh. */
const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/** Starts `argv` on a new terminal of `cols`×`rows` (160×40 by default). */
export function openTerminal(argv: string[], opts: { cwd: string; env: Record<string, string | undefined>; cols?: number; rows?: number }): TerminalSession {
  const cols = opts.cols ?? 160;
  const rows = opts.rows ?? 40;
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true });
  // script gives the terminal no size of its own when its input is a pipe: stty sets it before the program starts
  const command = `stty cols ${cols} rows ${rows} && exec ${argv.map(quote).join(' ')}`;
  const child = spawn('script', ['--quiet', '--flush', '--return', '--echo', 'always', '--command', command, '/dev/null'], {
    cwd: opts.cwd,
    env: { ...opts.env, SHELL: '/bin/sh', TERM: 'xterm-256color' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let written = '';
  let errors = '';
  let code: number | undefined;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    written += chunk;
    term.write(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  child.on('close', (exit, signal) => {
    child.stdin.end();
    if (errors) written += `\n[script: ${errors.trim()}]`;
    // the screen is parsed asynchronously: the code is known once the last bytes are on it
    term.write('', () => (code = exit ?? 128 + (SIGNALS[signal ?? ''] ?? 0)));
  });
  child.on('error', (err) => {
    errors += `${err.message}\n`;
    code = 127;
  });
  const screen = () => {
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < rows; row++) lines.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '');
    return lines.join('\n').trimEnd();
  };
  return {
    screen,
    type: (text) => void child.stdin.write(text),
    press: (key) => void child.stdin.write(KEYS[key]),
    written: () => written,
    exitCode: () => code,
    kill: () => void (code === undefined && child.kill('SIGKILL')),
  };
}
