/** A real SMTP server on loopback (package smtp-server) that records every accepted message. */
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  messageId: string;
  subject: string;
  to: string[];
  raw: string;
  startedAt: number;
  finishedAt: number;
}

export interface SmtpSink {
  url: string;
  received: ReceivedMail[];
  /** while set, DATA is held (the client waits) until release() */
  hold(): void;
  release(): void;
  /** messages whose DATA arrived while held (in flight) */
  heldCount(): number;
  /** forgets held messages without accepting them (their client died) */
  discardHeld(): void;
  stop(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  let held = false;
  let waiting: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const startedAt = Date.now();
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const finish = () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const header = (name: string) => raw.match(new RegExp(`^${name}:\\s*(.*)$`, 'mi'))?.[1]?.trim() ?? '';
          received.push({
            messageId: header('Message-ID').replace(/[<>]/g, ''),
            subject: header('Subject'),
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            startedAt,
            finishedAt: Date.now(),
          });
          callback();
        };
        if (held) waiting.push(finish);
        else finish();
      });
    },
  });
  // A client that dies mid-session (the SIGKILLed worker of the lease test) resets its connection;
  // smtp-server reports that as an 'error' event, which without a listener would crash the test run.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    hold: () => void (held = true),
    release() {
      held = false;
      const w = waiting;
      waiting = [];
      for (const f of w) f();
    },
    heldCount: () => waiting.length,
    discardHeld() {
      held = false;
      waiting = [];
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
