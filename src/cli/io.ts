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

export const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
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
